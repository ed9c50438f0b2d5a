"""The waiting list that seats people (issue #35, item 1): the start keeps it waiting,
a withdrawal or a bust-out during late registration (re-entries off) and a raised cap
move it up in order, a waiting player entered again keeps their place, and the messages
say who was entered and who waits."""

import random

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import translation

from games.engine.tournament import TournamentError
from games.models import Entry, SeatMove
from games.tournaments import entries as late
from games.tournaments import service as svc
from games.tournaments import waiting
from tests.factories import seeded

from .test_tournament_service import check_books, make_players, make_tournament, play_bot_hand

pytestmark = pytest.mark.django_db


def _capped(club, alice, cap=8, extra=2, **settings):
    """A freeze-out of ``cap`` checked-in players, late registration through level 2,
    and ``extra`` more on the waiting list (w0, w1, ...)."""
    settings.setdefault("late_until_level", 2)
    t = make_tournament(
        club,
        alice,
        n=cap,
        format="freezeout",
        buy_in=10,
        fee=2,
        starting_chips=20,
        antes=[1, 2],
        hands_per_level=5,
        max_entries=cap,
        **settings,
    )
    extras = [
        svc.register(tournament_id=t.pk, player=p, user=alice)
        for p in make_players(club, extra, prefix="w")
    ]
    assert [e.status for e in extras] == ["waiting"] * extra
    return t, extras


def _status(entry):
    entry.refresh_from_db()
    return entry.status


def test_the_ordinal_follows_the_english_suffixes():
    words = [waiting.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112)]
    assert words == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th",
        "21st", "22nd", "23rd", "101st", "111th", "112th",
    ]  # fmt: skip
    with translation.override("fi"):
        assert waiting.ordinal(2) == "2."


def test_starting_keeps_the_waiting_list_waiting(club, alice):
    t, extras = _capped(club, alice)
    svc.start(tournament_id=seeded(t.pk, "wait"), user=alice)
    # Never a silent no-show: both still wait, first in line first.
    assert [_status(e) for e in extras] == ["waiting", "waiting"]
    t.refresh_from_db()
    assert [e.pk for e in waiting.waiting_entries(t)] == [e.pk for e in extras]


def test_a_no_show_at_the_start_gives_the_first_in_line_a_place(club, alice):
    t, extras = _capped(club, alice, cap=8, extra=2, max_table=6)
    # One of the eight never checks in: registered, not paid.
    absent = Entry.objects.filter(tournament=t, status="checked_in").first()
    svc.withdraw(tournament_id=t.pk, entry_id=absent.pk, user=alice)  # refunded
    assert _status(extras[0]) == "registered"  # moved up before the start
    # Registered but never checked in: a no-show at the start, whose place goes on.
    svc.start(tournament_id=seeded(t.pk, "noshow"), user=alice)
    assert _status(extras[0]) == "no_show"
    assert _status(extras[1]) == "registered"
    svc.check_in(tournament_id=t.pk, entry_id=extras[1].pk, user=alice)
    assert _status(extras[1]) == "playing"
    assert SeatMove.objects.filter(tournament=t, reason="late", player=extras[1].player).exists()
    check_books(t)


def test_a_waiting_player_entered_again_keeps_their_place_in_line(club, alice):
    t, extras = _capped(club, alice)
    svc.start(tournament_id=seeded(t.pk, "again"), user=alice)
    # Entering a waiting player again (late registration) is no refusal: they wait on.
    again = svc.register(tournament_id=t.pk, player=extras[1].player, user=alice)
    assert again.pk == extras[1].pk and again.status == "waiting"
    assert waiting.position(t, again) == 2
    # The first in line leaves (they held no place): the second is first now.
    svc.withdraw(tournament_id=t.pk, entry_id=extras[0].pk, user=alice)
    assert _status(extras[1]) == "waiting" and waiting.position(t, extras[1]) == 1


def test_raising_the_cap_during_late_registration_seats_the_list_in_order(club, alice):
    t, extras = _capped(club, alice, extra=3)
    svc.start(tournament_id=seeded(t.pk, "cap"), user=alice)
    with pytest.raises(TournamentError, match="8 places are taken"):
        waiting.set_cap(tournament_id=t.pk, max_entries=7, user=alice)
    moved = waiting.set_cap(tournament_id=t.pk, max_entries=10, user=alice)
    assert [e.pk for e in moved] == [extras[0].pk, extras[1].pk]
    assert [_status(e) for e in extras] == ["registered", "registered", "waiting"]
    for e in moved:
        svc.check_in(tournament_id=t.pk, entry_id=e.pk, user=alice)
    assert [_status(e) for e in extras[:2]] == ["playing", "playing"]
    check_books(t)


def test_after_late_registration_the_cap_is_fixed(club, alice):
    t, _extras = _capped(club, alice, late_until_level=0)
    svc.start(tournament_id=seeded(t.pk, "fixed"), user=alice)
    with pytest.raises(TournamentError, match="while late registration is open"):
        waiting.set_cap(tournament_id=t.pk, max_entries=12, user=alice)


def test_after_the_start_only_an_entry_not_yet_seated_withdraws(club, alice):
    t, extras = _capped(club, alice)
    svc.start(tournament_id=seeded(t.pk, "wd"), user=alice)
    svc.withdraw(tournament_id=t.pk, entry_id=extras[0].pk, user=alice)
    assert _status(extras[0]) == "withdrawn"
    assert waiting.position(t, extras[1]) == 1
    seated = Entry.objects.filter(tournament=t, status="playing").first()
    with pytest.raises(TournamentError, match="nobody withdraws"):
        svc.withdraw(tournament_id=t.pk, entry_id=seated.pk, user=alice)


def _bust_someone(t, alice, seed=8):
    rng = random.Random(seed)
    t.refresh_from_db()
    while not Entry.objects.filter(tournament=t, status="out").exists():
        assert late.late_open(t), "late registration closed before anyone busted"
        for x in t.tables.filter(status="playing").select_related("session"):
            play_bot_hand(x, rng, alice, loose=True)
        t.refresh_from_db()


def test_a_bust_out_during_late_registration_moves_the_first_in_line_up(club, alice):
    # Re-entries off. Ten in two tables of five: a bust-out leaves four (no table breaks,
    # RULES.md T1), so the first in line finds a free seat.
    t, extras = _capped(club, alice, cap=10, late_until_level=8)
    svc.start(tournament_id=seeded(t.pk, "bust"), user=alice)
    _bust_someone(t, alice)
    # after_hand moved the list on its own: the first in line has the place.
    assert [_status(e) for e in extras] == ["registered", "waiting"]
    svc.check_in(tournament_id=t.pk, entry_id=extras[0].pk, user=alice)
    assert _status(extras[0]) == "playing"
    check_books(t)


def test_with_re_entries_on_a_bust_out_keeps_its_place(club, alice):
    t, extras = _capped(club, alice, late_until_level=8, max_reentries=1)
    svc.start(tournament_id=seeded(t.pk, "bust"), user=alice)
    _bust_someone(t, alice)
    # The busted player may buy in again: the place stays theirs.
    assert [_status(e) for e in extras] == ["waiting", "waiting"]


def _messages(response):
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_the_messages_say_who_was_entered_and_who_waits(club, alice, alice_client):
    t = svc.create_tournament(club=club, user=alice, name="Capped", max_entries=2)
    first = make_players(club, 1, prefix="a")[0]
    svc.register(tournament_id=t.pk, player=first, user=alice)
    ann, ben, cal = make_players(club, 3, prefix="n")
    response = alice_client.post(
        reverse("tournament_entry_add", args=[t.pk]), {"players": [ann.pk, ben.pk, cal.pk]}
    )
    said = _messages(response)
    assert f"Entered: {ann.name}." in said
    assert f"Waiting list (the field is full): {ben.name} (1st), {cal.name} (2nd)." in said
    # The pasted roster says the same (a waiting player pasted again keeps their place).
    response = alice_client.post(
        reverse("tournament_roster", args=[t.pk]), {"names": f"{cal.name}\nZed"}
    )
    said = _messages(response)
    assert f"Waiting list (the field is full): {cal.name} (2nd), Zed (3rd)." in said


def test_the_start_message_names_the_waiting_list(club, alice, alice_client):
    t, extras = _capped(club, alice)
    response = alice_client.post(reverse("tournament_start", args=[seeded(t.pk, "msg")]))
    said = " ".join(_messages(response))
    names = f"{extras[0].player.name} (1st), {extras[1].player.name} (2nd)"
    assert f"Still on the waiting list: {names}. They get a place in this order" in said
    page = alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()
    assert "Waiting list" in page and extras[1].player.name in page and "2nd" in page


def test_the_cap_form_on_the_dashboard_seats_the_first_in_line(club, alice, alice_client):
    t, extras = _capped(club, alice)
    svc.start(tournament_id=seeded(t.pk, "form"), user=alice)
    response = alice_client.post(reverse("tournament_cap", args=[t.pk]), {"max_entries": "9"})
    said = " ".join(_messages(response))
    assert "Field cap: 9." in said and f"A place is free for {extras[0].player.name}" in said
    page = alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()
    assert "Check in and seat" in page
