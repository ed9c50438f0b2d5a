"""The director's tournament pages on a phone (390×844): the balance warning with its
Check button, the finished tournament's results card (every paid place, the others
behind a disclosure), the deal card's shares, and the standings' prizes due — thumb-
sized, never scrolling sideways. Screenshots are kept for a look: $SCREENSHOT_DIR
(default: the test's tmp path)."""

import os
import random
from pathlib import Path

import pytest

from games.tournaments import deals
from games.tournaments import service as svc
from tests.factories import seeded
from tests.games.test_tournament_service import (
    eight_player_freezeout,
    make_tournament,
    names,
    play_bot_hand,
    play_to_the_end,
    record,
    started_freezeout,
    table,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _shots(tmp_path) -> Path:
    return Path(os.environ.get("SCREENSHOT_DIR", tmp_path))


def _fits(page) -> None:
    wide = page.evaluate(
        "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right"
        " > 390).map(e => e.tagName + ' ' + e.className + ': ' + e.textContent.slice(0, 80))"
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, wide


def test_the_balance_warning_and_its_check_button_on_a_phone(
    live_server, phone, login, club, alice, password, tmp_path
):
    t, _ = started_freezeout(club, alice)
    two = table(t, 2)
    s2 = list(names(two.session))
    record(two.session, {"trump": "C", "passed": [s2[2]], "tricks": {s2[0]: 3, s2[1]: 2, s2[3]: 0}})
    login(phone, "alice", password)
    phone.goto(f"{live_server.url}/tournaments/{t.pk}/")
    card = phone.locator("section.balance-warning")
    card.get_by_role("heading", name="Tables to balance").wait_for()
    assert "1 player moves from table 1 to table 2" in card.inner_text()
    _fits(phone)
    button = card.get_by_role("button", name="Check the tables")
    box = button.bounding_box()
    assert box and box["height"] >= 44
    phone.screenshot(path=str(_shots(tmp_path) / "balance-dashboard-390.png"), full_page=True)
    card.screenshot(path=str(_shots(tmp_path) / "balance-warning-390.png"))
    button.click()
    phone.get_by_text("Tables checked.").wait_for()
    assert phone.locator("section.balance-warning").count() == 0


def test_the_results_card_shows_every_paid_place_on_a_phone(
    live_server, phone, login, club, alice, password, tmp_path
):
    t = eight_player_freezeout(club, alice, [30, 25, 20, 15, 10], name="Results Cup")
    svc.start(tournament_id=seeded(t.pk, "4a926374d19aa862cc9136152f4b51e8"), user=alice)
    play_to_the_end(t, alice, random.Random(3))
    login(phone, "alice", password)
    phone.goto(f"{live_server.url}/tournaments/{t.pk}/")
    card = phone.locator("section.podium")
    card.get_by_role("heading", name="Final result").wait_for()
    assert card.locator("ol.results-paid > li").count() == 5
    summary = card.get_by_text("3 other places")
    box = summary.bounding_box()
    assert box and box["height"] >= 44
    summary.click()
    assert card.locator("details.results-others li").nth(2).is_visible()
    # The seat moves name their draw (a real 32-digit seed): it wraps, the page does not widen.
    assert phone.locator("ul.moves li").count() > 0
    _fits(phone)
    card.screenshot(path=str(_shots(tmp_path) / "results-card-390.png"))
    phone.screenshot(path=str(_shots(tmp_path) / "results-dashboard-390.png"), full_page=True)


def test_the_deal_card_shows_the_shares_and_the_standings_the_prizes_due(
    live_server, phone, login, club, alice, password, tmp_path
):
    t = make_tournament(
        club,
        alice,
        n=5,
        name="Deal Cup",
        format="freezeout",
        buy_in=1001,
        starting_chips=8,
        antes=[1],
        hands_per_level=100,
        payout_percentages=[45, 30, 15, 10],
        payout_unit=1,
    )
    svc.start(tournament_id=t.pk, user=alice)
    rng = random.Random(1)
    for _ in range(200):
        t.refresh_from_db()
        chips = {}
        if table(t, 1).session.carry == 0:
            chips = deals.deal_terms(t)["chips"]
        if 1 < len(chips) <= 3:
            break
        play_bot_hand(table(t, 1), rng, alice)
    login(phone, "alice", password)
    phone.goto(f"{live_server.url}/tournaments/{t.pk}/")
    phone.get_by_text("Make a deal").click()
    preview = phone.locator("table.deal-preview")
    preview.wait_for()
    assert preview.locator("tbody tr").count() == len(chips)
    _fits(phone)
    # The whole table is in view: no column hidden behind a sideways scroll.
    assert phone.evaluate(
        "(() => { const t = document.querySelector('table.deal-preview');"
        " return t.scrollWidth <= t.parentElement.clientWidth; })()"
    )
    phone.locator("details.deal-form").screenshot(path=str(_shots(tmp_path) / "deal-390.png"))
    phone.goto(f"{live_server.url}/tournaments/{t.pk}/standings/")
    phone.get_by_text("paid at the end").first.wait_for()
    _fits(phone)
    # The prize due is in view, not behind the table's sideways scroll.
    phone.screenshot(path=str(_shots(tmp_path) / "standings-due-390.png"), full_page=True)
    assert phone.evaluate(
        "(() => { const t = document.querySelector('table.standings');"
        " return t.scrollWidth <= t.parentElement.clientWidth; })()"
    )
    phone.screenshot(path=str(_shots(tmp_path) / "standings-due-390.png"), full_page=True)
