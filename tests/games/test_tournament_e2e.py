"""Whole tournaments to their finish with engine-generated hands (HandState + HeuristicBot,
recorded through ledger.postings.record_hand like any table's hands): a 40-entrant table
rounds event and a 20-entrant freeze-out. Standings, chip conservation and the prize
ledger are checked along the way and at the end."""

import random

import pytest

from games.models import Entry, Round, SeatMove, Tournament, TournamentTable
from games.tournaments import selectors, tables
from games.tournaments import service as svc
from ledger import books, postings
from tests.factories import seeded

from .test_tournament_service import check_books, make_tournament, play_bot_hand

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def playing_tables(t: Tournament) -> list[TournamentTable]:
    return list(
        TournamentTable.objects.filter(tournament=t, status="playing")
        .select_related("session")
        .order_by("number")
    )


def check_final_result(t: Tournament, entrants: int, buy_in: int, fee: int) -> list[dict]:
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    rows = selectors.standings(t)
    assert len(rows) == entrants
    places = [r["place"] for r in rows]
    assert places[0] == 1 and places == sorted(places) and None not in places
    assert Entry.objects.filter(tournament=t, status="winner").count() == 1
    assert rows[0]["status"] == "winner"
    balances = books.prize_balances(t)
    assert balances["pool"] == 0 and balances["house"] == entrants * fee
    assert sum(r["prize"] for r in rows) == entrants * buy_in
    prizes = [r["prize"] for r in rows]
    assert prizes == sorted(prizes, reverse=True)  # nobody below is paid more
    check_books(t)
    # Every table's session is closed at the end, with no chips left in any pot.
    for table in TournamentTable.objects.filter(tournament=t).select_related("session"):
        assert not table.session.is_open, table
        assert postings.pot_balance(table.session) == 0
        postings.check_invariants(table.session)
    return rows


def test_forty_entrant_table_rounds_to_the_final(club, alice):
    t = make_tournament(
        club,
        alice,
        n=40,
        name="Forty",
        buy_in=20,
        fee=2,
        starting_chips=30,
        antes=[1, 2, 3],
        hands_per_round=3,
        advance_per_table=2,
        final_hands=6,
        carry_stacks=True,
    )
    svc.start(tournament_id=seeded(t.pk, "forty"), user=alice)
    rng = random.Random(40)
    hands = 0
    for _ in range(500):
        t.refresh_from_db()
        if t.status == Tournament.Status.FINISHED:
            break
        rnd = t.rounds.order_by("-number").first()
        if rnd.status == Round.Status.FINISHED:
            report = selectors.chip_report(t)[-1]
            assert report["now"] == report["start"]  # chips conserved in the round
            nxt = svc.draw_next_round(tournament_id=t.pk, user=alice)
            # Stacks carry: the new round starts with exactly the advancing chips.
            assert sum(nxt.draw["chips"].values()) == report["advancing"]
            assert set(nxt.draw["ranked"]) == set(rnd.advanced)
            continue
        for x in playing_tables(t):
            if play_bot_hand(x, rng, alice):
                hands += 1
    rounds = list(t.rounds.order_by("number"))
    assert [len(r.draw["tables"]) for r in rounds] == [6, 2, 1]
    assert [len(r.draw["ranked"]) for r in rounds] == [40, 12, 4]
    assert rounds[-1].is_final
    for rnd in rounds[:-1]:
        for x in rnd.tables.all():
            assert x.result["hands"] >= 3  # the set number of hands, then the pot is won
            assert len(x.result["advanced"]) == 2
    rows = check_final_result(t, 40, 20, 2)
    # Players out in round 1 finish below those who reached round 2, and so on.
    out_rounds = [r["out_round"] for r in rows[1:]]
    assert out_rounds == sorted(out_rounds, reverse=True)
    assert hands < 400


def test_twenty_entrant_freeze_out_until_one_player_holds_every_chip(club, alice):
    t = make_tournament(
        club,
        alice,
        n=20,
        name="Freeze",
        format="freezeout",
        buy_in=10,
        fee=0,
        starting_chips=12,
        # Steep enough that two players left cannot trade antes for hundreds of hands.
        antes=[1, 2, 3, 5, 8, 13, 21, 34, 55, 89],
        hands_per_level=4,
    )
    rnd = svc.start(tournament_id=seeded(t.pk, "freeze"), user=alice)
    assert sorted(len(x) for x in rnd.draw["tables"]) == [6, 7, 7]
    rng = random.Random(20)
    for _ in range(400):
        t.refresh_from_db()
        if t.status == Tournament.Status.FINISHED:
            break
        for x in playing_tables(t):
            play_bot_hand(x, rng, alice)
        # The director's check between passes: tables whose pot is empty even out.
        svc.sync(tournament_id=t.pk, user=alice)
        live = playing_tables(t)
        infos = tables.table_infos(live)
        if len(live) > 1 and all(info.pot == 0 for info in infos.values()):
            sizes = [len(info.alive) for info in infos.values()]
            assert max(sizes) - min(sizes) <= 1, sizes
        report = selectors.chip_report(t)[0]
        assert report["now"] == report["start"] == 20 * 12
    rows = check_final_result(t, 20, 10, 0)
    assert rows[0]["chips"] == 20 * 12  # one player holds every chip
    # The later a player went out, the higher they finish.
    out = Entry.objects.filter(tournament=t, status="out").order_by("place")
    keys = [tuple(e.out_key) for e in out]
    assert keys == sorted(keys, reverse=True)
    moves = SeatMove.objects.filter(tournament=t)
    assert moves.filter(reason="break").exists()
    assert TournamentTable.objects.filter(tournament=t, status="broken").count() == 2
    for move in moves:
        assert move.chips > 0 and move.source_id != move.target_id
