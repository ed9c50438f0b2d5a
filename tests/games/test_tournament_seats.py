"""Seat numbers at freeze-out tables: a player moved by balancing, by a table breaking up or
seated late takes the lowest free seat of the new table, so the seat numbers players were
told (the draw's, then each move's) stay unique at every table in play (games.tournaments.
tables). And a broken table's own page says where each of its players went."""

import random

import pytest
from django.urls import reverse

from games.models import Entry, Seat, SeatMove, Tournament, TournamentTable
from games.tournaments import service as svc
from tests.factories import seeded
from tests.games.test_tournament_service import (
    check_books,
    make_players,
    make_tournament,
    play_bot_hand,
    started_freezeout,
)

pytestmark = pytest.mark.django_db


def told_seats(t: Tournament) -> dict[int, list[tuple[int, int, int]]]:
    """Each table in play → (player, the seat number they were told, their seat now) for
    every player seated there: the seat of their latest move to that table, or the
    draw's (its order is the table's seat order, from seat 1)."""
    rnd = t.rounds.get()
    drawn = {
        (number, p): i + 1
        for number, players in enumerate(rnd.draw["tables"], start=1)
        for i, p in enumerate(players)
    }
    moved = {
        (m.target_id, m.player_id): m.seat
        for m in SeatMove.objects.filter(tournament=t).order_by("id")
    }
    out = {}
    for x in TournamentTable.objects.filter(tournament=t, status="playing"):
        rows = []
        for seat in Seat.objects.filter(session_id=x.session_id, active=True):
            told = moved.get((x.pk, seat.player_id)) or drawn[(x.number, seat.player_id)]
            rows.append((seat.player_id, told, seat.position + 1))
        out[x.number] = rows
    return out


def assert_unique_seats(t: Tournament, where: str) -> None:
    for number, rows in told_seats(t).items():
        told = [r[1] for r in rows]
        assert len(told) == len(set(told)), (where, number, rows)
        assert all(r[1] == r[2] for r in rows), (where, number, rows)
        assert all(1 <= r[1] <= t.max_table for r in rows), (where, number, rows)


@pytest.mark.parametrize("seed", range(6))
def test_seat_numbers_stay_unique_through_balancing_breaks_and_late_entries(club, alice, seed):
    rng = random.Random(seed)
    t = make_tournament(
        club,
        alice,
        n=rng.randint(9, 22),
        format="freezeout",
        buy_in=10,
        starting_chips=rng.choice([3, 4, 6]),
        antes=[1, 1, 2, 3, 5],
        hands_per_level=4,
        min_table=rng.choice([3, 4]),
        max_table=rng.choice([6, 7, 8]),
        late_until_level=2,
    )
    svc.start(tournament_id=seeded(t.pk, f"seats{seed}"), user=alice)
    t.refresh_from_db()
    assert_unique_seats(t, "draw")
    late = iter(make_players(club, 4, prefix=f"late{seed}-"))
    kinds = set()
    for step in range(400):
        t.refresh_from_db()
        if t.status == Tournament.Status.FINISHED:
            break
        if rng.random() < 0.05:
            player = next(late, None)
            if player is not None:
                try:
                    entry = svc.register(tournament_id=t.pk, player=player, user=alice)
                    svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=alice)
                except Exception:  # closed or full: the field is as it is
                    pass
                assert_unique_seats(t, f"late entry at step {step}")
        tables = list(
            TournamentTable.objects.filter(tournament=t, status="playing").select_related("session")
        )
        play_bot_hand(rng.choice(tables), rng, alice, loose=rng.random() < 0.5)
        assert_unique_seats(t, f"step {step}")
        kinds |= set(SeatMove.objects.filter(tournament=t).values_list("reason", flat=True))
    assert t.status == Tournament.Status.FINISHED
    assert {"balance", "break"} & kinds
    check_books(t)


def test_seats_of_players_moved_in_by_a_break_are_the_lowest_free_ones(broken_table):
    """Every seed above balances or breaks; here the table breaks for sure (the seats were
    checked after every hand on the way), and each player it sends on sits in a seat
    nobody at the new table holds."""
    t, broken = broken_table
    moves = SeatMove.objects.filter(source=broken, reason="break")
    assert moves.exists()
    for m in moves:
        seat = Seat.objects.get(session=m.target.session, player=m.player)
        assert seat.active and m.seat == seat.position + 1


# -- the broken table's page -----------------------------------------------------------------


@pytest.fixture
def broken_table(club, alice):
    """A freeze-out whose table 2 broke up, its players moved on."""
    t, _round = started_freezeout(club, alice)
    rng = random.Random(9)
    for _ in range(400):
        broken = TournamentTable.objects.filter(tournament=t, status="broken").first()
        if broken:
            return t, broken
        for x in TournamentTable.objects.filter(tournament=t, status="playing").select_related(
            "session"
        ):
            play_bot_hand(x, rng, alice, loose=True)
            assert_unique_seats(t, "")
    raise AssertionError("no table broke up")


def test_a_broken_tables_page_says_where_each_player_went(carol_client, broken_table):
    t, broken = broken_table
    moves = list(
        SeatMove.objects.filter(source=broken, reason="break").select_related("player", "target")
    )
    assert moves
    page = carol_client.get(reverse("session_detail", args=[broken.session_id]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "This table was broken up" in html
    went = page.context["broken_moves"]
    assert {(r["name"], r["table"], r["seat"]) for r in went} == {
        (m.player.name, m.target.number, m.seat) for m in moves
    }
    for m in moves:
        assert f"{m.player.name}</span>" in html
        assert f"table {m.target.number}, seat {m.seat}" in html
    # No stacks of chips that left with their players: the seats list is not shown.
    assert 'class="list scoreboard"' not in html
    assert "money net" not in html and "Pot at the close" not in html
    partial = carol_client.get(
        reverse("session_detail", args=[broken.session_id]), HTTP_HX_REQUEST="true"
    )
    assert "This table was broken up" in partial.content.decode()


def test_a_broken_tables_shared_board_says_where_each_player_went(client, bob_client, broken_table):
    from tests.games.test_share import _link

    _, broken = broken_table
    broken.session.refresh_from_db()
    html = client.get(_link(bob_client, broken.session)).content.decode()
    assert "This table was broken up" in html
    for m in SeatMove.objects.filter(source=broken).select_related("player", "target"):
        assert f"table {m.target.number}, seat {m.seat}" in html
    assert 'class="list scoreboard"' not in html


def test_an_undone_elimination_whose_seat_was_taken_comes_back_in_a_free_seat(club, alice):
    """Table 2's last hand put a player out and a balancing move gave their seat to a
    newcomer; undoing that hand brings the player back, in the lowest free seat."""
    from ledger import postings
    from tests.games.test_tournament_service import names, record, table, win

    t, _round = started_freezeout(club, alice)
    one, two = table(t, 1), table(t, 2)
    s2 = list(names(two.session))
    busting = record(
        two.session, {"trump": "C", "passed": [s2[2]], "tricks": {s2[0]: 3, s2[1]: 2, s2[3]: 0}}
    )
    out = Entry.objects.get(tournament=t, status="out")
    s1 = list(names(one.session))
    record(one.session, win(s1, s1[0], {s1[1]: 2}))
    move = SeatMove.objects.get()
    newcomer = Seat.objects.get(session=two.session, player=move.player)
    assert newcomer.position == Seat.objects.get(session=two.session, player=out.player).position
    postings.void_hand(session_id=two.session_id, hand_id=busting.pk, user=alice)
    back = Seat.objects.get(session=two.session, player=out.player)
    assert back.active
    positions = list(
        Seat.objects.filter(session=two.session, active=True).values_list("position", flat=True)
    )
    assert len(positions) == len(set(positions))
    others = set(positions) - {back.position}
    assert back.position == min(p for p in range(8) if p not in others)
    postings.check_invariants(two.session)
