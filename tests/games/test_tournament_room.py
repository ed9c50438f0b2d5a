"""The room (issue #35, items 4 and 7): the wall screen's next break and next levels,
a break announced on every table's record form (a hand during it asks for one
confirmation, checked on the server), a re-entry logged as one, and a finished
freeze-out's top stack called the winner."""

import random
import re

import pytest
from django.test import Client
from django.urls import reverse

from games.engine import tournament_levels as levels
from games.models import Entry, Hand
from games.tournaments import clock, screens
from games.tournaments import entries as late
from games.tournaments import service as svc
from ledger import postings
from tests.factories import seeded

from .test_session_views import hand_data
from .test_tournament_service import check_books, make_tournament, play_bot_hand, play_to_the_end

pytestmark = pytest.mark.django_db


def test_the_next_break_counts_the_levels_before_it():
    # 15-minute levels, a 10-minute break after every 4 levels.
    at = lambda minutes: levels.next_break(int(minutes * 60), 15, 4, 10)  # noqa: E731
    assert at(0) == levels.NextBreak(after_level=3, seconds=60 * 60, length=600)
    assert at(50) == levels.NextBreak(after_level=3, seconds=10 * 60, length=600)
    assert at(65) is None  # on the break
    assert at(70) == levels.NextBreak(after_level=7, seconds=60 * 60, length=600)
    assert levels.next_break(0, 15, 0, 0) is None  # no breaks


def _timed(club, alice, **settings):
    t = make_tournament(
        club,
        alice,
        n=8,
        format="freezeout",
        starting_chips=20,
        antes=[1, 2, 3, 5, 8],
        level_minutes=15,
        break_every=2,
        break_minutes=10,
        **settings,
    )
    svc.start(tournament_id=seeded(t.pk, "room"), user=alice)
    clock.clock_action(tournament_id=t.pk, action="start", user=alice)
    t.refresh_from_db()
    return t


def test_the_wall_screen_has_the_next_break_levels_and_chips_in_play(club, alice):
    t = _timed(club, alice)
    tv = screens.tv_context(t)
    state = tv["clock"]
    assert state["next_break"]["after_level"] == 2 and state["next_break"]["minutes"] == 10
    assert 29 * 60 < state["next_break"]["seconds"] <= 30 * 60
    assert [(u["level"], u["ante"], u["minutes"]) for u in state["upcoming"]] == [
        (2, 2, 15),
        (3, 3, 15),
        (4, 5, 15),
    ]
    assert tv["chips_in_play"] == 8 * 20 and tv["bracket"] is None
    page = _tv_page(t)
    assert "Next break" in page and "after level 2, 10 min" in page and "Chips in play" in page
    assert "Coming up" in page and "ante 5" in page


def _tv_page(t):
    """The public wall screen, as a stranger with the link reads it."""
    return Client().get(reverse("tournament_tv", args=[t.public_token])).content.decode()


def test_a_rounds_event_shows_its_bracket_on_the_wall_screen(club, alice):
    t = make_tournament(club, alice, n=8, format="rounds", starting_chips=20, antes=[1, 2])
    svc.start(tournament_id=seeded(t.pk, "tvb"), user=alice)
    t.refresh_from_db()
    tv = screens.tv_context(t)
    names = {p["name"] for box in tv["bracket"]["current"]["tables"] for p in box["players"]}
    assert len(names) == 8
    page = _tv_page(t)
    assert "tv-bracket" in page and all(name in page for name in names)
    assert "Table 2" in page


def _on_break(t, alice):
    # 30 minutes in: the two 15-minute levels are done, the 10-minute break is on.
    clock.clock_action(tournament_id=t.pk, action="adjust", seconds=30 * 60 + 60, user=alice)
    t.refresh_from_db()
    assert clock.clock_state(t)["on_break"]


def test_a_hand_during_a_break_asks_for_one_confirmation(club, alice, alice_client):
    t = _timed(club, alice)
    table = t.tables.select_related("session").first()
    session = table.session
    url = reverse("hand_record", args=[session.pk])
    assert "is on a break" not in alice_client.get(url).content.decode()
    _on_break(t, alice)
    page = alice_client.get(url).content.decode()
    # The clock runs while the test does: a loaded machine may read 8:59 left.
    assert re.search(
        rf"{t.name} is on a break \((9:00|8:5\d) left\): play resumes at level 3\.", page
    )
    assert 'name="during_break"' in page
    players = postings.session_state(session)["players"]
    tricks = {players[0]: 3, players[1]: 1, players[2]: 1, players[3]: 0}
    before = Hand.objects.filter(session=session).count()
    refused = alice_client.post(url, hand_data(session, tricks=tricks))
    assert refused.status_code == 422
    assert "nothing was saved" in refused.content.decode()
    assert Hand.objects.filter(session=session).count() == before
    saved = alice_client.post(url, hand_data(session, tricks=tricks, during_break="1"))
    assert saved.status_code == 302
    assert Hand.objects.filter(session=session).count() == before + 1
    check_books(t)


def test_a_re_entry_is_logged_as_a_re_entry_not_a_move(club, alice, alice_client):
    t = make_tournament(
        club,
        alice,
        n=8,
        format="freezeout",
        starting_chips=20,
        antes=[1, 2],
        hands_per_level=5,
        late_until_level=8,
        max_reentries=1,
        # Room for eight at a table: the table that loses a player breaks at once
        # (RULES.md T1) and the re-entry needs a free seat at the table of seven left.
        max_table=8,
    )
    svc.start(tournament_id=seeded(t.pk, "re"), user=alice)
    t.refresh_from_db()
    rng = random.Random(8)
    while not Entry.objects.filter(tournament=t, status="out").exists():
        for x in t.tables.filter(status="playing").select_related("session"):
            play_bot_hand(x, rng, alice, loose=True)
    busted = Entry.objects.filter(tournament=t, status="out").select_related("player").first()
    move = late.reenter(tournament_id=t.pk, entry_id=busted.pk, user=alice)
    page = alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()
    logged = page[page.index('class="list moves"') :]
    line = logged[logged.index(busted.player.name) :][:400]
    assert "→" not in line and f"table {move.target.number}" in line and "Re-entry" in line
    check_books(t)


def test_a_finished_freeze_out_calls_its_top_stack_the_winner(club, alice, alice_client):
    t = make_tournament(club, alice, n=4, format="freezeout", starting_chips=8, antes=[1])
    svc.start(tournament_id=t.pk, user=alice)
    play_to_the_end(t, alice, random.Random(2))
    page = alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()
    assert "advances" not in page and "winner" in page
