"""The issue's end-to-end test: a 60-entrant freeze-out with rising levels, late
registration, five re-entries and a chip chop at the final table, played by the engine's
bots and recorded through ledger.postings like any table's hands. It ends with
check_invariants on every table and the prize ledger."""

import random

import pytest

from games.models import Entry, SeatMove, Tournament, TournamentTable
from games.tournaments import deals, selectors, tables
from games.tournaments import entries as late
from games.tournaments import service as svc
from ledger import books, postings
from ledger.models import PrizePosting
from tests.factories import seeded

from .test_tournament_service import check_books, make_players, make_tournament, play_bot_hand

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

BUY_IN, FEE, CHIPS = 10, 1, 10


def playing_tables(t: Tournament) -> list[TournamentTable]:
    return list(
        TournamentTable.objects.filter(tournament=t, status="playing")
        .select_related("session")
        .order_by("number")
    )


def test_sixty_entrants_late_registration_five_reentries_and_a_chip_chop(club, alice):
    t = make_tournament(
        club,
        alice,
        n=55,
        name="Sixty",
        format="freezeout",
        buy_in=BUY_IN,
        fee=FEE,
        starting_chips=CHIPS,
        antes=[1, 2, 3, 5, 8],
        hands_per_level=4,
        late_until_level=3,
        max_reentries=1,
        min_table=4,
        max_table=8,
        payout_preset="top15",
    )
    rnd = svc.start(tournament_id=seeded(t.pk, "sixty"), user=alice)
    assert sum(len(x) for x in rnd.draw["tables"]) == 55
    latecomers = make_players(club, 5, prefix="late")
    rng = random.Random(60)
    reentered: list[int] = []
    antes_seen: set[int] = set()
    final_chop = None
    for step in range(800):
        t.refresh_from_db()
        assert t.status == Tournament.Status.RUNNING
        live = playing_tables(t)
        infos = tables.table_infos(live)
        if len(live) == 1:
            info = next(iter(infos.values()))
            if len(info.alive) >= 3 and info.pot == 0:
                final_chop = info
                break
        for x in live:
            play_bot_hand(x, rng, alice)
            antes_seen.add(x.session.rules["ante"])
        svc.sync(tournament_id=t.pk, user=alice)
        t.refresh_from_db()
        if late.late_open(t):
            if latecomers:
                entry = svc.register(tournament_id=t.pk, player=latecomers[0], user=alice)
                svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=alice)
                latecomers.pop(0)
            busted = Entry.objects.filter(tournament=t, status="out", reentries=0).first()
            if busted is not None and len(reentered) < 5:
                late.reenter(tournament_id=t.pk, entry_id=busted.pk, user=alice)
                reentered.append(busted.player_id)
        else:
            # Closed after level 3: a late entry is refused with the reason.
            stranger = make_players(club, 1, prefix=f"toolate{step}-")[0]
            with pytest.raises(svc.TournamentError, match="closed after level 3"):
                svc.register(tournament_id=t.pk, player=stranger, user=alice)
        if step % 10 == 0:
            check_books(t)
    assert final_chop is not None, "the final table was never reached"
    assert not latecomers and len(reentered) == 5
    # The levels rose as the tables played (every 4 hands at each table).
    assert {1, 2, 3} <= antes_seen
    assert SeatMove.objects.filter(tournament=t, reason="late").count() == 5
    assert SeatMove.objects.filter(tournament=t, reason="reentry").count() == 5

    # Everyone still in agrees to a chip chop.
    terms = deals.deal_terms(t)
    still = list(terms["chips"])
    t = deals.make_deal(tournament_id=t.pk, kind="chips", agreed=still, user=alice)
    assert t.status == Tournament.Status.FINISHED
    assert t.deal["kind"] == "chips" and len(t.deal["agreed"]) == len(still)

    # Money: 60 buy-ins and 5 re-entries, every fee to the house, the pool paid out.
    paid_in = 65
    balances = books.prize_balances(t)
    assert balances["pool"] == 0 and balances["house"] == paid_in * FEE
    rows = selectors.standings(t)
    assert len(rows) == 60
    assert sum(r["prize"] for r in rows) == paid_in * BUY_IN
    assert [r["place"] for r in rows[: len(still)]] == list(range(1, len(still) + 1))
    assert {r["player"]["id"] for r in rows[: len(still)]} == set(still)
    shares = {int(p): x for p, x in t.deal["amounts"].items()}
    assert sum(shares.values()) == terms["total"]
    for r in rows[: len(still)]:
        assert r["prize"] == shares[r["player"]["id"]]
    deal_postings = PrizePosting.objects.filter(tournament=t, kind="deal")
    assert deal_postings.count() == len(still)
    assert all("agreed by" in p.memo for p in deal_postings)
    # Busted players rank by elimination order: the later out, the better the place.
    out = Entry.objects.filter(tournament=t, place__gt=len(still)).order_by("place")
    keys = [tuple(e.out_key) for e in out]
    assert keys == sorted(keys, reverse=True)
    # A re-entered player is ranked once, by their last exit.
    assert Entry.objects.filter(tournament=t, player_id__in=reentered, reentries=1).count() == 5

    for x in TournamentTable.objects.filter(tournament=t).select_related("session"):
        postings.check_invariants(x.session)
        assert not x.session.is_open
    postings.check_prize_ledger(t)
    check_books(t)
