"""The standings and the deal card on a phone (390×844): every column of the standings
in view (place, player, chips, prize; where and when a player went out is a line under
their name, not a tall column cut off at the edge), and the deal card's summary reads
as a title with a line under it. Screenshots: $SCREENSHOT_DIR (default: tmp path)."""

import os
import random
from pathlib import Path

import pytest

from games.models import Entry
from games.tournaments import deals
from games.tournaments import service as svc
from tests.factories import seeded
from tests.games.test_tournament_service import make_tournament, play_bot_hand

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Every header cell and every cell of the table inside the viewport and inside the
# table's box (no column behind a sideways scroll); the page no wider than the screen.
IN_VIEW = """(() => {
  const t = document.querySelector('table.standings');
  const box = t.parentElement.getBoundingClientRect();
  const bad = [...t.querySelectorAll('th, td')].filter(c => {
    const r = c.getBoundingClientRect();
    return r.left < Math.max(box.left, 0) - 0.5 || r.right > Math.min(box.right, window.innerWidth) + 0.5;
  }).map(c => c.textContent.trim().slice(0, 40));
  return {bad, scroll: t.parentElement.scrollWidth - t.parentElement.clientWidth,
          page: document.documentElement.scrollWidth};
})()"""


def _shots(tmp_path) -> Path:
    return Path(os.environ.get("SCREENSHOT_DIR", tmp_path))


def _running_with_players_out(club, alice):
    """Nine players with long names at two tables, a few of them knocked out."""
    t = make_tournament(
        club,
        alice,
        n=9,
        prefix="Maximiliana Okonkwo-",
        name="Phone Cup",
        format="freezeout",
        buy_in=12345,
        starting_chips=1500,
        antes=[100, 200, 400, 800],
        hands_per_level=2,
        min_table=4,
        max_table=7,
        payout_percentages=[30, 20, 14, 11, 9, 7, 5, 4],
    )
    svc.start(tournament_id=seeded(t.pk, "phone"), user=alice)
    rng = random.Random(5)
    for _ in range(300):
        if Entry.objects.filter(tournament=t, status="out").count() >= 3:
            break
        t.refresh_from_db()
        for x in t.tables.filter(status="playing").select_related("session"):
            play_bot_hand(x, rng, alice)
    t.refresh_from_db()
    assert t.status == "running"
    assert Entry.objects.filter(tournament=t, status="out").count() >= 3
    return t


def test_the_standings_fit_a_phone_with_every_column_in_view(
    live_server, phone, login, club, alice, password, tmp_path
):
    t = _running_with_players_out(club, alice)
    login(phone, "alice", password)
    phone.goto(f"{live_server.url}/tournaments/{t.pk}/standings/")
    standings = phone.locator("table.standings")
    standings.wait_for()
    phone.screenshot(path=str(_shots(tmp_path) / "standings-390.png"), full_page=True)
    headers = standings.locator("thead th")
    assert headers.all_inner_texts() == ["Place", "Player", "Chips", "Prize"]
    for i in range(headers.count()):
        assert headers.nth(i).is_visible()
    fit = phone.evaluate(IN_VIEW)
    assert fit["bad"] == [] and fit["scroll"] <= 0 and fit["page"] <= 390, fit
    # Where they went out: a line under the name, and no row taller than a few lines.
    out = standings.locator("tbody tr.out-row").first
    assert "knocked out at table" in out.locator("td").nth(1).inner_text()
    # A paid place's prize due, in the last column, in view (checked above).
    assert "paid at the end" in standings.locator("tbody tr.out-row td.money").first.inner_text()
    # And on the narrowest phones the project supports.
    phone.set_viewport_size({"width": 360, "height": 800})
    fit = phone.evaluate(IN_VIEW)
    assert fit["bad"] == [] and fit["scroll"] <= 0 and fit["page"] <= 360, fit
    phone.screenshot(path=str(_shots(tmp_path) / "standings-360.png"), full_page=True)
    tallest = max(
        b["height"] for b in (r.bounding_box() for r in standings.locator("tbody tr").all())
    )
    assert tallest <= 150, tallest  # a column of its own made them over 200 px tall


def test_the_deal_cards_summary_is_a_title_with_a_line_under_it(
    live_server, phone, login, club, alice, password, tmp_path
):
    t = make_tournament(
        club, alice, n=3, format="freezeout", buy_in=123456, starting_chips=30, name="Deal Cup"
    )
    svc.start(tournament_id=t.pk, user=alice)
    t.refresh_from_db()
    assert deals.deal_terms(t)["total"] == 3 * 123456
    login(phone, "alice", password)
    phone.goto(f"{live_server.url}/tournaments/{t.pk}/")
    summary = phone.locator("details.deal-form > summary")
    title = summary.locator("strong")
    line = summary.locator(".deal-total")
    title.wait_for()
    summary.screenshot(path=str(_shots(tmp_path) / "deal-summary-390.png"))
    a, b = title.bounding_box(), line.bounding_box()
    assert a and b
    # The title on one line, the total under it starting at the same left edge: not two
    # columns side by side wrapping each on its own.
    assert b["y"] >= a["y"] + a["height"] - 1
    assert abs(b["x"] - a["x"]) <= 2
    assert a["height"] < 40
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    summary.click()
    phone.locator("table.deal-preview").wait_for()
    phone.locator("details.deal-form").screenshot(path=str(_shots(tmp_path) / "deal-open-390.png"))
