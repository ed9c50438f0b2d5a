"""A full room grows (issue #35): when every table is full, a late entrant or a re-entry
opens the next table instead of being refused, and balancing fills it from the other
tables one player at a time, without breaking it as short meanwhile (RULES.md T1, T2)."""

from __future__ import annotations

import random

from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import tournament as logic
from games.engine import tournament_breaks as breaks
from games.models import Entry, SeatMove, TournamentTable
from games.tournaments import entries as late
from games.tournaments import service as svc
from games.tournaments import tables
from ledger import postings
from tests.factories import seeded

from .test_tournament_service import (
    check_books,
    make_players,
    make_tournament,
    play_bot_hand,
    play_to_the_end,
)


def _one_full_table(club, alice, **settings):
    """Five players at one table of at most five, late registration open to level 3."""
    t = make_tournament(
        club,
        alice,
        n=5,
        format="freezeout",
        buy_in=10,
        fee=2,
        starting_chips=20,
        antes=[1, 2],
        hands_per_level=5,
        min_table=3,
        max_table=5,
        late_until_level=3,
        **settings,
    )
    svc.start(tournament_id=seeded(t.pk, "grow"), user=alice)
    t.refresh_from_db()
    return t


def _playing(t) -> dict[int, int]:
    """table number → players with chips there."""
    found = t.tables.filter(status=TournamentTable.Status.PLAYING)
    return {
        n: len(i.alive)
        for n, i in ((i.table.number, i) for i in tables.table_infos(list(found)).values())
    }


def test_a_late_entrant_opens_a_new_table_when_every_table_is_full(club, alice):
    t = _one_full_table(club, alice)
    assert t.rounds.get().is_final
    newcomer = make_players(club, 1, prefix="late")[0]
    entry = svc.register(tournament_id=t.pk, player=newcomer, user=alice)
    svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=alice)
    entry.refresh_from_db()
    assert entry.status == Entry.Status.PLAYING
    assert _playing(t) == {1: 5, 2: 1}
    assert not t.rounds.get().is_final  # drawn at one table, it has two now
    move = SeatMove.objects.get(tournament=t, reason="late")
    assert (move.target.number, move.seat, move.chips) == (2, 1, 20)
    # Alone there, the new table cannot deal: a player joins it first (T2), and the
    # dashboard says from where; it is not broken as short (nowhere has room for her).
    new = t.tables.get(number=2)
    refusal = postings.table_deal_refusal(new.session)
    assert refusal is not None and refusal["code"] == "table_must_wait"
    note = tables.balance_outlook(t)[0]
    assert (note.kind, note.table, note.target) == ("move", 1, 2)
    check_books(t)
    # The director's check between hands: balancing fills it one player at a time.
    svc.sync(tournament_id=t.pk, user=alice)
    assert _playing(t) == {1: 3, 2: 3}
    assert SeatMove.objects.filter(tournament=t, reason="balance", target=new).count() == 2
    assert postings.table_deal_refusal(new.session) is None
    check_books(t)
    t = play_to_the_end(t, alice, random.Random(5))
    assert t.entries.filter(status=Entry.Status.WINNER).count() == 1
    check_books(t)


def test_a_reentry_opens_a_new_table_when_every_table_is_full(club, alice):
    # Two tables of at most four: eight seats. A bust, then a late entrant fills the
    # freed seat; the busted player's re-entry finds every table full.
    t = make_tournament(
        club,
        alice,
        n=8,
        format="freezeout",
        buy_in=10,
        fee=2,
        starting_chips=12,
        antes=[1, 2],
        hands_per_level=8,
        min_table=2,
        max_table=4,
        late_until_level=3,
        max_reentries=1,
    )
    svc.start(tournament_id=seeded(t.pk, "grow-re"), user=alice)
    t.refresh_from_db()
    rng = random.Random(11)
    while not t.entries.filter(status=Entry.Status.OUT).exists():
        for x in t.tables.filter(status="playing").select_related("session"):
            play_bot_hand(x, rng, alice, loose=True)
        svc.sync(tournament_id=t.pk, user=alice)
        assert late.late_open(t), "nobody went out before late registration closed"
    busted = t.entries.filter(status=Entry.Status.OUT).first()
    sizes = _playing(t)
    assert sum(sizes.values()) == 7 and len(sizes) == 2
    newcomer = make_players(club, 1, prefix="late")[0]
    entry = svc.register(tournament_id=t.pk, player=newcomer, user=alice)
    svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=alice)
    assert sorted(_playing(t).values()) == [4, 4]
    late.reenter(tournament_id=t.pk, entry_id=busted.pk, user=alice)
    sizes = _playing(t)
    assert sizes[3] == 1 and sum(sizes.values()) == 9, sizes
    move = SeatMove.objects.get(tournament=t, reason="reentry")
    assert move.target.number == 3 and move.source is not None
    check_books(t)
    # A table gives a player only with its pot empty (T2); the director's check then
    # moves one from each full table whose pot is empty.
    pots = {x.number: x.session.carry for x in t.tables.filter(status="playing")}
    svc.sync(tournament_id=t.pk, user=alice)
    sizes = _playing(t)
    gave = [n for n in (1, 2) if pots[n] == 0]
    assert sizes == {1: 4 - (1 in gave), 2: 4 - (2 in gave), 3: 1 + len(gave)}, (sizes, pots)
    check_books(t)


@settings(max_examples=60, deadline=None)
@given(
    full=st.integers(min_value=1, max_value=6),
    max_size=st.integers(min_value=3, max_value=8),
    gap=st.integers(min_value=0, max_value=4),
    seed=st.integers(min_value=0, max_value=10**6),
)
def test_a_new_table_is_filled_and_never_broken_while_the_others_are_full(
    full, max_size, gap, seed
):
    """RULES.md T1, T2: full tables plus a table opened for one newcomer. Hand after hand,
    one table at a time is between hands (the one that just dealt); nobody busts. The
    new table is never broken nor gives anyone up, and ends within one of the others;
    no table ever goes above the maximum."""
    min_size = max(2, max_size - gap)
    rng = random.Random(seed)
    new = full + 1
    seats: dict[int, list[int]] = {
        n: list(range(n * 10, n * 10 + max_size)) for n in range(1, full + 1)
    }
    seats[new] = [999]
    for step in range(200):
        free = rng.choice(sorted(seats))
        now = {n: breaks.TableNow(ps, free=n == free) for n, ps in seats.items()}
        plan = breaks.balance_step(now, min_size, max_size, logic.rng_for("g", step))
        assert new not in plan.broken, (step, seats)
        assert all(m.source != new for m in plan.moves), (step, seats)
        seats = {n: list(ps) for n, ps in plan.tables.items()}
        assert all(len(ps) <= max_size for ps in seats.values())
        sizes = [len(ps) for ps in seats.values()]
        if max(sizes) - min(sizes) <= 1:
            break
    sizes = [len(ps) for ps in seats.values()]
    assert max(sizes) - min(sizes) <= 1 and len(seats) == full + 1


def test_a_bust_before_the_new_table_deals_gives_the_newcomer_the_freed_seat():
    """T1: the new table breaks like any short table once the others have room for its
    players: a bust at a full table before anyone joined it sends the newcomer there."""
    seats = {1: [1, 2, 3, 4], 2: [5, 6, 7], 3: [99]}  # table 2 lost a player
    now = {n: breaks.TableNow(ps, free=True) for n, ps in seats.items()}
    plan = breaks.balance_step(now, 3, 4, random.Random(0))
    assert plan.broken == [3] and plan.tables == {1: [1, 2, 3, 4], 2: [5, 6, 7, 99]}


def test_the_dashboard_says_a_new_table_opened_and_how_it_fills(club, alice, alice_client):
    t = _one_full_table(club, alice)
    newcomer = make_players(club, 1, prefix="late")[0]
    entry = svc.register(tournament_id=t.pk, player=newcomer, user=alice)
    url = reverse("tournament_entry_action", args=[t.pk, entry.pk, "checkin"])
    page = alice_client.post(url, follow=True).content.decode()
    assert "ate001 checked in." in page  # the message starts with a capital
    assert "Every table was full: table 2 is open, with late001." in page
    assert "Tables to balance" in page
