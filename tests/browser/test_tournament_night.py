"""Issue #35's "done when", in Chromium: a capped freeze-out with a waiting list run by its
director from a pasted roster to a paid ICM deal.

The director's taps go through the real pages at 390×844 (paste the roster, withdraw,
check in the player who moved up, start, start the clock, raise the cap, check in and
seat the late entrant — every table full, so a table opens for her —, check the tables,
re-enter a busted player, make the deal); the wall screen is read at 1920×1080 and the
dashboard once more at a desktop's 1280×800. The hands at the tables (a few hundred
would take minutes by hand) are recorded by the tests' helper ``play_bot_hand``: an
engine-played hand sent through ``ledger.postings.record_hand`` (the service the record
form posts to) followed by ``service.after_hand`` (what the form's commit runs), so
breaking, balancing and the pots moving are the app's own. The clock is moved forward
through the service between stages (the director's "Move the clock" does the same), so
the antes rise and the field finishes in seconds.

At the end the prize ledger balances (``check_prize_ledger``), every table's books hold
(``check_invariants``) and ``manage.py check_books`` exits cleanly. Screenshots:
$SCREENSHOT_DIR (default: the test's tmp path)."""

from __future__ import annotations

import io
import os
import random
from pathlib import Path

import pytest
from django.core.management import call_command

from games.models import Entry, TournamentTable
from games.tournaments import clock, deals, tables
from games.tournaments import entries as late
from games.tournaments import service as svc
from ledger import books, postings
from tests.factories import seeded
from tests.games.test_tournament_service import play_bot_hand

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TV = {"width": 1920, "height": 1080}
DESKTOP = {"width": 1280, "height": 800}
ROSTER = ["Ann", "Ben", "Cy", "Dot", "Eve", "Fay", "Gus", "Hal", "Quinn", "Rosa"]


def _shots(tmp_path) -> Path:
    path = Path(os.environ.get("SCREENSHOT_DIR", tmp_path))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _no_sideways(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def _playing(t) -> list[TournamentTable]:
    return list(t.tables.filter(status="playing").select_related("session").order_by("number"))


def _pots(t) -> dict[int, int]:
    return {x.number: x.session.carry for x in _playing(t)}


def _hand_round(t, rng, alice, seen_breaks: list[dict]) -> None:
    """One hand at each playing table (the helper); every table broken on the way is
    checked: the chips of its pot arrived at the tables that received its players."""
    for x in _playing(t):
        before = _pots(t)
        x.session.refresh_from_db()
        if not x.session.is_open:
            continue
        play_bot_hand(x, rng, alice)
        after = _pots(t)
        for broken in t.tables.filter(status="broken").exclude(
            number__in=[b["table"] for b in seen_breaks]
        ):
            shares = {int(n): v for n, v in broken.result.get("pot_moved", {}).items()}
            assert sum(shares.values()) == broken.result["pot"]
            checked = 0
            for n, share in shares.items():
                if n != x.number:  # the table that just dealt has a new pot of its own
                    assert after[n] == before[n] + share, (broken.number, n, before, after)
                    checked += 1
            seen_breaks.append(
                {"table": broken.number, "pot": broken.result["pot"], "checked": checked}
            )


def test_a_capped_freeze_out_from_a_pasted_roster_to_a_paid_icm_deal(
    live_server, phone, browser, login, club, alice, password, tmp_path
):
    t = svc.create_tournament(
        club=club,
        user=alice,
        name="Charity Night",
        format="freezeout",
        buy_in=20,
        starting_chips=20,
        antes=[1, 2, 3, 5, 8],
        hands_per_level=0,
        level_minutes=10,
        break_every=2,
        break_minutes=5,
        min_table=3,
        max_table=4,
        late_until_level=1,
        max_reentries=1,
        max_entries=8,
        payout_percentages=[50, 30, 20],
    )
    seeded(t.pk, "charity-night")
    shots = _shots(tmp_path)
    phone.on("dialog", lambda dialog: dialog.accept())
    login(phone, "alice", password)
    url = f"{live_server.url}/tournaments/{t.pk}/"
    phone.goto(url)

    # The roster, pasted: eight places, two wait in line.
    phone.locator("details.roster > summary").click()
    phone.get_by_label("Paste a roster").fill("\n".join(ROSTER))
    phone.locator("details.roster").get_by_label("Checked in and paid").check()
    phone.get_by_role("button", name="Enter them").click()
    phone.get_by_text("Entered 8: Ann, Ben, Cy, Dot, Eve, Fay, Gus, Hal.").wait_for()
    phone.get_by_text("Waiting list (the field is full): Quinn (1st), Rosa (2nd).").wait_for()

    # Hal withdraws (refunded): Quinn moves up, pays and is checked in; the draw seats her.
    phone.get_by_role("button", name="Withdraw Hal").click()
    phone.get_by_text("A place is free for Quinn (from the waiting list)").wait_for()
    phone.locator("ul.entries li", has_text="Quinn").get_by_role("button", name="Check in").click()
    phone.get_by_text("Quinn checked in.").wait_for()
    phone.get_by_role("button", name="Start: draw round 1 (8 players)").click()
    phone.get_by_text("Still on the waiting list: Rosa (1st)").wait_for()
    phone.get_by_role("button", name="Start the clock").click()
    phone.get_by_role("button", name="Pause").wait_for()
    t.refresh_from_db()
    assert t.entries.get(player__name="Quinn").status == Entry.Status.PLAYING
    assert [len(i.alive) for i in tables.table_infos(_playing(t)).values()] == [4, 4]

    # The wall screen: the clock, and the next break (after level 2).
    tv_context = browser.new_context(viewport=TV, device_scale_factor=1)
    tv = tv_context.new_page()
    tv.goto(f"{live_server.url}/t/{t.public_token}/tv/")
    tv.locator("[data-clock]").wait_for()
    assert tv.locator(".tv-break").get_by_text("Next break").is_visible()
    assert tv.locator(".tv-break").get_by_text("after level 2, 5 min").is_visible()
    tv.screenshot(path=str(shots / "night-tv-1920.png"))
    tv_context.close()

    # Late registration: one more place; Rosa is seated. Every table is full, so a table
    # opens for her, and the director's check fills it.
    phone.get_by_label("Field cap").fill("9")
    phone.get_by_role("button", name="Change the cap").click()
    phone.get_by_text("A place is free for Rosa").wait_for()
    phone.locator("section.waiting-list").get_by_role("button", name="Check in and seat").click()
    phone.get_by_text("Every table was full: table 3 is open, with Rosa.").wait_for()
    card = phone.locator("section.balance-warning")
    assert "has 1: 1 player moves from table 1 to table 3" in card.inner_text()
    card.screenshot(path=str(shots / "night-balance-card-390.png"))
    phone.locator("section.balance-warning").get_by_role("button", name="Check the tables").click()
    phone.locator("article.tt-card", has_text="Table 3").locator(".tt-players li").nth(2).wait_for()
    assert [len(i.alive) for i in tables.table_infos(_playing(t)).values()] == [3, 3, 3]
    phone.screenshot(path=str(shots / "night-new-table-390.png"), full_page=True)
    _no_sideways(phone, 390)

    # Hands until someone busts; they re-enter (late registration is still open).
    rng = random.Random(35)
    breaks: list[dict] = []
    for _ in range(200):
        if t.entries.filter(status=Entry.Status.OUT).exists():
            break
        _hand_round(t, rng, alice, breaks)
    busted = t.entries.filter(status=Entry.Status.OUT).select_related("player").first()
    assert busted is not None and late.late_open(t)
    phone.goto(url)
    phone.get_by_text("Late entries, re-entries, rebuys").click()
    row = phone.locator("ul.entries li", has_text=busted.player.name)
    row.get_by_role("button", name="Re-enter").click()
    phone.get_by_text(f"{busted.player.name} re-entered with a new stack.").wait_for()
    busted.refresh_from_db()
    assert busted.status == Entry.Status.PLAYING and busted.reentries == 1

    # Late registration closes; the antes rise with the clock until three are left.
    clock.clock_action(tournament_id=t.pk, action="adjust", seconds=30 * 60, user=alice)
    for _ in range(400):
        t.refresh_from_db()
        left = _playing(t)
        if len(left) == 1:
            info = deals.deal_terms(t) if left[0].session.carry == 0 else None
            if info and len(info["chips"]) <= 3:
                break
        _hand_round(t, rng, alice, breaks)
    else:
        raise AssertionError("the field did not come down to a final table of three")
    # A table broke with chips in its pot, and those chips went with its players.
    assert any(b["pot"] > 0 and b["checked"] for b in breaks), breaks

    # The ICM deal, agreed by everyone still in, ends it.
    phone.goto(url)
    phone.get_by_text("Make a deal").click()
    form = phone.locator("details.deal-form")
    form.locator("table.deal-preview").wait_for()
    form.get_by_label("ICM deal").check()
    for box in form.locator("input[type=checkbox]").all():
        box.check()
    phone.screenshot(path=str(shots / "night-deal-390.png"), full_page=True)
    form.get_by_role("button", name="Record the deal and end the tournament").click()
    phone.get_by_text("Deal recorded: the tournament is over.").wait_for()
    t.refresh_from_db()
    assert t.status == "finished" and t.deal["kind"] == "icm"
    podium = phone.locator("section.podium")
    assert podium.locator("ol.results-paid li").count() == 3
    # The seat moves say who a broken table sent where.
    assert phone.locator("ul.moves li", has_text="Table broken up").count() >= 2
    _no_sideways(phone, 390)
    phone.screenshot(path=str(shots / "night-result-390.png"), full_page=True)

    desktop_context = browser.new_context(viewport=DESKTOP)
    desktop = desktop_context.new_page()
    login(desktop, "alice", password)
    desktop.goto(f"{live_server.url}/tournaments/{t.pk}/prizes/")
    desktop.screenshot(path=str(shots / "night-prizes-1280.png"), full_page=True)
    desktop_context.close()

    # The books: the prize pool paid out exactly, every table's ledger whole.
    postings.check_prize_ledger(t)
    for x in t.tables.select_related("session"):
        postings.check_invariants(x.session)
    balances = books.prize_balances(t)
    assert balances["pool"] == 0
    paid = sum(t.deal["amounts"].values()) + sum(
        e.prize for e in t.entries.exclude(player_id__in=[int(p) for p in t.deal["amounts"]])
    )
    assert paid == 20 * 10  # nine buy-ins and one re-entry
    out = io.StringIO()
    call_command("check_books", stdout=out)  # raises CommandError on a drifted book
