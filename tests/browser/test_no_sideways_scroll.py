"""No page scrolls sideways on a phone: the document is never wider than the viewport.

Each page is loaded at 360 and 390 px and `document.documentElement.scrollWidth` is
compared with the phone's width (a mobile browser widens its layout viewport to the
content, so the page is measured against the phone, not against `innerWidth`):

- the club's roster, the players list and the signed-in player's own "Me" page, with a
  40-letter name that has nowhere to break ("Ann" stays whole on the roster);
- the hand page in English and Finnish: a money hand with a bourré and a renege (details
  open), and a tournament hand, whose amounts are "+9 pelimerkkiä" in Finnish;
- a finished three-round tournament with long names: the bracket (the organiser's page and
  the public one; the rounds still scroll inside the bracket), the print view;
- a walk through the other main pages in Finnish with a long name: scoreboard, record
  form, settlement, history, statistics, the tournament's dashboard and standings, and a
  tournament table's scoreboard and record form (its pot in chips).

Run: .venv/bin/python -m pytest tests/browser/test_no_sideways_scroll.py -m browser
"""

import pytest

from games.models import Player, Round
from games.tournaments import service as svc
from ledger import postings
from tests.browser.test_long_names import _fits, _whole
from tests.factories import PlayerFactory, seeded

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ONEWORD = "Wolfeschlegelsteinhausenbergerdorffvoral"  # 40 letters, nowhere to break
HYPHENS = "Bartholomew-Featherstonehaugh-Wolfington"  # 40, breaks only at its hyphens
WIDTHS = (360, 390)


def _long_table(club, user):
    """Ann, ONEWORD (the user's own player), HYPHENS and Bo; ONEWORD is bourréd in hand 1
    and HYPHENS reneges, so the hand page lists every kind of money."""
    players = [PlayerFactory(club=club, name=n) for n in ("Ann", ONEWORD, HYPHENS, "Bo")]
    players[1].user = user
    players[1].save()
    session = postings.start_session(
        club=club, name="Long names", players=players, dealer=players[3], rules={},
        currency=club.currency, user=user,
    )  # fmt: skip
    a, b, c, _d = postings.session_state(session)["players"]
    postings.record_hand(
        session_id=session.pk,
        entry={
            "trump": "S",
            "tricks": {a: 3, c: 2},
            "reneges": [{"player": c, "corrected": False}],
        },
        idempotency_key="long-1",
        expected_version=None,
        user=user,
    )
    assert b in session.hands.get().verdict["result"]["bourre"]
    return session


def _three_rounds(club, user):
    """Sixteen players, every third with a 40-letter name, drawn through three rounds; one
    hand is played at the final table. Returned running, at the final."""
    t = svc.create_tournament(
        club=club, user=user, name="Bayou Bracket", buy_in=10, starting_chips=20,
        antes=[1, 2], min_table=4, max_table=4, hands_per_round=5, final_hands=4,
    )  # fmt: skip
    for i in range(16):
        name = f"{ONEWORD[:38]}{i:02d}" if i % 3 == 0 else f"Player {i + 1}"
        entry = svc.register(tournament_id=t.pk, player=Player.objects.create(club=club, name=name), user=user)  # fmt: skip
        svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=user)
    svc.start(tournament_id=seeded(t.pk, "phone-1"), user=user)
    for _ in range(2):
        svc.end_round(tournament_id=t.pk, user=user, now=True)
        svc.draw_next_round(tournament_id=t.pk, user=user)
    final = Round.objects.get(tournament=t, number=3).tables.get().session
    seated = postings.session_state(final)["players"]
    postings.record_hand(
        session_id=final.pk,
        entry={"trump": "H", "passed": seated[2:], "tricks": {seated[0]: 3, seated[1]: 2}},
        idempotency_key="final-1",
        expected_version=None,
        user=user,
    )
    return t, final


def _measure(page, url: str, label: str, problems: list[str], ready: str = "main") -> None:
    page.goto(url)
    page.locator(ready).first.wait_for()
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 844})
        _fits(page, label, problems)


def test_roster_players_and_me_fit_a_long_name(live_server, phone, login, club, bob, password):
    session = _long_table(club, bob)
    login(phone, "bob", password)
    base = live_server.url
    problems: list[str] = []
    _measure(phone, f"{base}/clubs/{club.pk}/", "club roster", problems)
    _whole(phone.locator(".list span", has_text="Ann").first, "club roster", problems)
    _measure(phone, f"{base}/clubs/{club.pk}/players/", "players", problems, "#player-list")
    _whole(phone.locator("#player-list span", has_text="Ann").first, "players", problems)
    # "My money" on the scoreboard: bob's own player, straight to his statement.
    _measure(phone, f"{base}/sessions/{session.pk}/me/", "me", problems, "ol.statement")
    assert ONEWORD in phone.locator("h1").inner_text()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("language", ["en", "fi"])
def test_hand_pages_fit_in_english_and_finnish(
    live_server, phone, login, speak, club, bob, password, language
):
    session = _long_table(club, bob)
    _t, final = _three_rounds(club, bob)
    login(phone, "bob", password)
    speak(phone, language)
    problems: list[str] = []
    for label, hand in (("money hand", session.hands.get()), ("tournament hand", final.hands.get())):  # fmt: skip
        phone.goto(f"{live_server.url}/hands/{hand.pk}/")
        phone.locator("table.deltas").wait_for()
        phone.locator("details.details-toggle > summary").click()  # postings and record
        for width in WIDTHS:
            phone.set_viewport_size({"width": width, "height": 844})
            _fits(phone, f"{label} ({language})", problems)
    assert not problems, "\n".join(problems)


def test_a_finished_bracket_scrolls_its_rounds_not_the_page(
    live_server, phone, login, club, bob, password
):
    t, _final = _three_rounds(club, bob)
    login(phone, "bob", password)
    base = live_server.url
    problems: list[str] = []
    # The organiser's dashboard and standings while the final is played.
    _measure(phone, f"{base}/tournaments/{t.pk}/", "tournament dashboard", problems)
    _measure(phone, f"{base}/tournaments/{t.pk}/standings/", "standings", problems)
    svc.end_round(tournament_id=t.pk, user=bob, now=True)
    t.refresh_from_db()
    assert t.status == "finished"
    for label, url in (
        ("bracket", f"{base}/tournaments/{t.pk}/bracket/"),
        ("public bracket", f"{base}/t/{t.public_token}/"),
    ):
        _measure(phone, url, label, problems, ".bracket")
        phone.get_by_role("heading", name="Final").wait_for()
        # The rounds still scroll sideways inside the bracket.
        assert phone.locator(".bracket").evaluate("el => el.scrollWidth > el.clientWidth")
    _measure(phone, f"{base}/t/{t.public_token}/print/", "print view", problems, "table")
    assert not problems, "\n".join(problems)


def test_the_main_pages_fit_in_finnish_with_a_long_name(
    live_server, phone, login, speak, club, bob, password
):
    session = _long_table(club, bob)
    t, final = _three_rounds(club, bob)
    login(phone, "bob", password)
    speak(phone, "fi")
    base = live_server.url
    problems: list[str] = []
    for label, url in (
        ("scoreboard", f"/sessions/{session.pk}/"),
        ("record form", f"/sessions/{session.pk}/record/"),
        ("settlement", f"/sessions/{session.pk}/settlement/"),
        ("history", f"/sessions/{session.pk}/history/"),
        ("statistics", f"/clubs/{club.pk}/stats/"),
        ("tournament dashboard", f"/tournaments/{t.pk}/"),
        ("standings", f"/tournaments/{t.pk}/standings/"),
        # A tournament table counts chips: its pot is "12 pelimerkkiä" in big digits.
        ("tournament table's scoreboard", f"/sessions/{final.pk}/"),
        ("tournament table's record form", f"/sessions/{final.pk}/record/"),
    ):
        _measure(phone, base + url, label, problems)
    assert not problems, "\n".join(problems)
