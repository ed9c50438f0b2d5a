"""The room on screens (issue #35): the wall screen at 1920×1080 with the next break,
the next levels and chips in play (and a table-rounds event's bracket), nothing under
26 px; the dashboard's waiting list at 390×844; the record form at 390×844 keeps eight
characters of each long name (or wraps it) and announces a break. Screenshots:
$SCREENSHOT_DIR (default: the test's tmp path)."""

import os
from pathlib import Path

import pytest

from games.models import Player
from games.tournaments import clock
from games.tournaments import service as svc
from tests.factories import seeded
from tests.games.test_tournament_service import make_players, make_tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TV = {"width": 1920, "height": 1080}
# The smallest font size among elements holding text of their own.
SMALLEST_TEXT = (
    "Math.min(...[...document.querySelectorAll('.tv-screen *')]"
    ".filter(e => e.getClientRects().length && "
    "[...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))"
    ".map(e => parseFloat(getComputedStyle(e).fontSize)))"
)


def _shots(tmp_path) -> Path:
    path = Path(os.environ.get("SCREENSHOT_DIR", tmp_path))
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def tv(browser, server_settles):
    context = browser.new_context(viewport=TV, device_scale_factor=1)
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


def _fits_tv(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= TV["width"]
    assert page.evaluate("document.documentElement.scrollHeight") <= TV["height"]
    assert page.evaluate(SMALLEST_TEXT) >= 26


def test_the_wall_screen_shows_the_next_break_and_levels(live_server, tv, club, alice, tmp_path):
    t = make_tournament(
        club,
        alice,
        n=24,
        name="Charity Freeze-out",
        format="freezeout",
        buy_in=2500,
        starting_chips=100,
        structure_preset="standard",
        payout_preset="top20",
    )
    svc.start(tournament_id=seeded(t.pk, "room-tv"), user=alice)
    clock.clock_action(tournament_id=t.pk, action="start", user=alice)
    clock.clock_action(tournament_id=t.pk, action="adjust", seconds=20 * 60, user=alice)
    tv.goto(f"{live_server.url}/t/{t.public_token}/tv/")
    tv.locator("[data-clock]").wait_for()
    box = tv.locator(".tv-break")
    assert box.get_by_text("Next break").is_visible()
    assert box.get_by_text("after level 4, 10 min").is_visible()
    # It ticks with the clock: 40 minutes to the break, less a few seconds.
    left = box.locator("[data-clock-plus]").inner_text()
    assert left.startswith(("40:00", "39:5")), left
    upcoming = tv.locator(".tv-next li")
    assert upcoming.count() == 3
    assert "Level 3" in upcoming.nth(0).inner_text() and "ante 4" in upcoming.nth(1).inner_text()
    assert tv.get_by_text("Chips in play").is_visible()
    assert tv.locator(".tv-stats").get_by_text("2,400").is_visible()
    _fits_tv(tv)
    tv.screenshot(path=str(_shots(tmp_path) / "room-tv-freezeout-1920.png"))


def test_a_rounds_event_shows_its_bracket_on_the_wall_screen(
    live_server, tv, club, alice, tmp_path
):
    t = make_tournament(
        club, alice, n=16, name="Bracket Night", format="rounds", starting_chips=20, antes=[1, 2]
    )
    svc.start(tournament_id=seeded(t.pk, "room-rounds"), user=alice)
    tv.goto(f"{live_server.url}/t/{t.public_token}/tv/")
    bracket = tv.locator(".tv-bracket")
    bracket.wait_for()
    assert bracket.locator(".tv-table").count() >= 3
    assert bracket.locator(".tv-table li").count() == 16
    # Every name whole (these are short): one column a table, never "p…".
    cut = bracket.locator(".tv-name").evaluate_all(
        "els => els.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"
    )
    assert cut == []
    _fits_tv(tv)
    tv.screenshot(path=str(_shots(tmp_path) / "room-tv-rounds-1920.png"))


def test_the_dashboard_shows_the_waiting_list_on_a_phone(
    live_server, phone, login, club, alice, password, tmp_path
):
    t = make_tournament(
        club,
        alice,
        n=8,
        name="Capped Cup",
        format="freezeout",
        starting_chips=20,
        antes=[1, 2],
        hands_per_level=5,
        late_until_level=3,
        max_entries=8,
    )
    for p in make_players(club, 3, prefix="wait"):
        svc.register(tournament_id=t.pk, player=p, user=alice)
    login(phone, "alice", password)
    phone.goto(f"{live_server.url}/tournaments/{t.pk}/")
    phone.get_by_role("button", name="Start: draw round 1 (8 players)").click()
    phone.get_by_text("Still on the waiting list: wait001 (1st), wait002 (2nd), wait003").wait_for()
    card = phone.locator("section.waiting-list")
    assert card.locator("ol li").count() == 3
    assert card.get_by_text("8 of 8 places taken").is_visible()
    # Raise the cap by two: the first two in line get a place, one tap seats each.
    phone.get_by_label("Field cap").fill("10")
    phone.get_by_role("button", name="Change the cap").click()
    phone.get_by_text("A place is free for wait001, wait002").wait_for()
    card = phone.locator("section.waiting-list")
    assert card.locator("ol li").count() == 1
    card.get_by_role("button", name="Check in and seat").first.click()
    phone.get_by_text("wait001 checked in.").wait_for()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.locator("section.waiting-list").screenshot(
        path=str(_shots(tmp_path) / "room-waiting-card-390.png")
    )
    phone.screenshot(path=str(_shots(tmp_path) / "room-dashboard-waiting-390.png"), full_page=True)


LONG = ["Pierre-Alexandre", "Wolfeschlegelstein", "Maximiliana Rose", "Bartholomew Oaks"]


def test_the_record_form_keeps_eight_letters_of_long_names_and_shows_a_break(
    live_server, phone, login, club, alice, password, tmp_path
):
    t = svc.create_tournament(
        club=club,
        user=alice,
        name="Long Names Open",
        format="freezeout",
        starting_chips=50,
        antes=[1, 2, 3],
        level_minutes=15,
        break_every=1,
        break_minutes=10,
        min_table=4,
        max_table=6,
    )
    for name in [*LONG, "Christopher Lee", "Anastasiya K."]:
        player = Player.objects.create(club=club, name=name)
        entry = svc.register(tournament_id=t.pk, player=player, user=alice)
        svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=alice)
    svc.start(tournament_id=seeded(t.pk, "room-long"), user=alice)
    clock.clock_action(tournament_id=t.pk, action="start", user=alice)
    # 16 minutes in: level 1 is over, the break is on (9 minutes left).
    clock.clock_action(tournament_id=t.pk, action="adjust", seconds=16 * 60, user=alice)
    session = t.tables.get().session
    login(phone, "alice", password)
    phone.goto(f"{live_server.url}/sessions/{session.pk}/record/")
    names = phone.locator(".who-name")
    assert names.count() == 6
    # Each name: at least its first eight characters in view (on one line, or wrapped
    # onto the button's two lines), never cut sideways; the six rows fit about one screen.
    for i in range(6):
        el = names.nth(i)
        fit = el.evaluate(
            """el => {
              const box = el.getBoundingClientRect();
              const text = el.firstChild;
              let inside = 0, below = 0;
              for (let i = 0; i < text.length; i++) {
                const r = document.createRange();
                r.setStart(text, i); r.setEnd(text, i + 1);
                const c = r.getBoundingClientRect();
                if (c.bottom <= box.bottom + 0.5 && c.right <= box.right + 0.5) inside++;
                else below++;
              }
              return {inside, below, scroll: el.scrollWidth, width: el.clientWidth};
            }"""
        )
        # Clamped ("…"): the ellipsis may cover up to two of the characters laid out inside.
        visible = fit["inside"] - (2 if fit["below"] else 0)
        assert visible >= min(8, len(el.inner_text())), (el.inner_text(), fit)
        assert fit["scroll"] <= fit["width"] + 1, (el.inner_text(), fit)
    last = phone.locator(".seat-row").nth(5).bounding_box()
    assert last and last["y"] + last["height"] <= 844 + 200  # about one screen, not two
    notice = phone.locator(".break-notice")
    assert "Long Names Open is on a break" in notice.inner_text()
    box = phone.get_by_label("This hand was played before the break began")
    assert box.is_visible()  # in the bar with Save, in view without scrolling
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=str(_shots(tmp_path) / "room-record-long-names-390.png"), full_page=True)


def test_choosing_a_preset_fills_its_fields_and_the_structure_table(
    live_server, phone, login, club, password, tmp_path
):
    login(phone, "alice", password)
    phone.goto(f"{live_server.url}/clubs/{club.pk}/tournaments/new/")
    phone.get_by_label("Structure", exact=True).select_option("standard")
    assert phone.get_by_label("Minutes per level").input_value() == "15"
    assert phone.get_by_label("Raise the ante every … hands").input_value() == "0"
    assert phone.get_by_label("A break every … levels").input_value() == "4"
    assert phone.get_by_label("Break length (minutes)").input_value() == "10"
    table = phone.locator("#structure-table")
    # The table follows (htmx): four 15-minute levels, then the 10-minute break at 1:00.
    table.locator("tr.structure-break").first.wait_for()
    assert table.locator("tr.structure-break").first.inner_text().split() == [
        "Break", "10", "min", "1:00",
    ]  # fmt: skip
    table.screenshot(path=str(_shots(tmp_path) / "room-structure-390.png"))
    # Changing a field the preset filled makes the structure the director's own.
    phone.get_by_label("Minutes per level").fill("12")
    assert phone.get_by_label("Structure", exact=True).input_value() == ""
    phone.get_by_label("Minutes per level").dispatch_event("change")
    table.get_by_text("12 min").first.wait_for()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390


@pytest.mark.parametrize(("entrants", "largest", "timed"), [(64, 8, True), (42, 7, False)])
def test_a_rounds_bracket_of_up_to_eight_tables_fits_the_wall_screen(
    live_server, tv, club, alice, tmp_path, entrants, largest, timed
):
    """Eight tables of eight (the most Bourré seats) under a running clock with its next
    break, or six of seven by rounds: every table and every name on the screen at once,
    nothing under 26 px, nothing scrolled, cut or spilling over another box."""
    clocked = {"level_minutes": 15, "break_every": 2, "break_minutes": 10} if timed else {}
    t = make_tournament(
        club,
        alice,
        n=entrants,
        name="Big Bracket Night",
        format="rounds",
        starting_chips=1000,
        antes=[10, 20],
        max_table=largest,
        min_table=4,
        **clocked,
    )
    svc.start(tournament_id=seeded(t.pk, "room-eight"), user=alice)
    if timed:
        clock.clock_action(tournament_id=t.pk, action="start", user=alice)
    tv.goto(f"{live_server.url}/t/{t.public_token}/tv/")
    bracket = tv.locator(".tv-bracket")
    bracket.wait_for()
    assert bracket.locator(".tv-table").count() == entrants // largest
    names = bracket.locator(".tv-table li")
    assert names.count() == entrants
    # Each name in view (not below the screen's edge nor under another box) and whole.
    hidden = names.evaluate_all(
        """els => els.filter(e => {
             const r = e.getBoundingClientRect();
             const list = e.closest('.tv-bracket').getBoundingClientRect();
             return r.bottom > Math.min(innerHeight, list.bottom) + 0.5 || r.right > innerWidth;
           }).map(e => e.textContent.trim())"""
    )
    tv.screenshot(path=str(_shots(tmp_path) / f"room-tv-rounds-{entrants}-1920.png"))
    assert hidden == []
    cut = bracket.locator(".tv-name").evaluate_all(
        "els => els.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"
    )
    assert cut == []
    # No box spills out of its place on the grid (over its neighbour or off the screen).
    spills = tv.evaluate(
        """[...document.querySelectorAll('.tv-screen > *')].filter(e =>
             e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1 ||
             e.getBoundingClientRect().bottom > innerHeight).map(e => e.className)"""
    )
    assert spills == []
    assert tv.locator(".tv-stats").get_by_text("Tables").is_visible()
    assert tv.locator(".tv-pay h2").is_visible()
    _fits_tv(tv)
    tv.screenshot(path=str(_shots(tmp_path) / f"room-tv-rounds-{entrants}-1920.png"))
