"""Tables that break and balance, pure (games.engine.tournament_breaks, RULES.md T1, T2)."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from games.engine import tournament as logic
from games.engine.tournament_breaks import (
    TableNow,
    balance_step,
    blocked,
    pot_receivers,
    pot_shares,
)


def test_t1_a_pot_is_shared_by_the_players_each_table_receives():
    # Five players went 1, 2, 1, 2, 1 (seat order): table 1 takes 3/5, table 2 takes 2/5.
    pot = 13
    shares = pot_shares(pot, [1, 2, 1, 2, 1])
    assert shares[2] == pot * 2 // 5
    # The indivisible remainder to the table of the first player in seat order.
    assert shares[1] == pot - pot * 2 // 5
    first_is_two = pot_shares(13, [2, 1, 1, 2, 1])
    assert first_is_two == {1: 13 * 3 // 5, 2: 13 - 13 * 3 // 5}


@given(st.integers(0, 10_000), st.lists(st.integers(1, 6), min_size=1, max_size=8))
def test_t1_a_moved_pot_is_never_lost_nor_made(pot, receivers):
    shares = pot_shares(pot, receivers)
    assert sum(shares.values()) == pot
    assert set(shares) <= set(receivers)
    n = len(receivers)
    for table, chips in shares.items():
        fair = pot * receivers.count(table) // n
        extra = chips - fair
        # Only the first player's table gets the remainder (fewer chips than players).
        assert extra == 0 or (table == receivers[0] and 0 < extra < n)


def test_t1_a_table_nobody_is_left_at_sends_its_pot_to_the_smallest_table():
    plan = logic.plan_balance({1: [1, 2, 3, 4, 5], 2: [6, 7, 8, 9], 3: []}, 4, 7, random.Random(1))
    assert plan.broken == [3]
    assert pot_receivers([], plan, 3) == [2]


def test_t1_a_short_table_with_room_elsewhere_breaks_before_its_next_deal_pot_or_not():
    tables = {1: TableNow([1, 2, 3, 4, 5]), 2: TableNow([6, 7, 8], pot=9)}
    assert blocked(tables, 4, 8) == {2: "break"}
    # Table 1 has just finished a hand; table 2, short, is not in one (it may not deal):
    # it breaks now, its pot with it (T1 move).
    plan = balance_step(
        {1: TableNow([1, 2, 3, 4, 5], free=True), 2: tables[2]}, 4, 8, random.Random(2)
    )
    assert plan.broken == [2] and sorted(plan.tables[1]) == list(range(1, 9))
    # play_out: it plays on until its pot is won, and nobody joins it meanwhile.
    assert blocked(tables, 4, 8, "play_out") == {}
    plan = balance_step(tables, 4, 8, random.Random(2), break_pot="play_out")
    assert plan.moves == [] and plan.broken == []


def test_t2_a_short_table_without_room_waits_for_a_player_from_the_largest():
    tables = {1: TableNow([1, 2, 3, 4, 5, 6, 7]), 2: TableNow([8, 9, 10], free=True)}
    assert blocked(tables, 4, 7) == {2: "join"}
    # Table 1 may be in the middle of a hand: nobody leaves it yet.
    assert balance_step(tables, 4, 7, random.Random(3)).moves == []
    # After its hand (its pot empty) players move over until the two are within one.
    done = {1: TableNow([1, 2, 3, 4, 5, 6, 7], free=True), 2: tables[2]}
    plan = balance_step(done, 4, 7, random.Random(3))
    assert [(m.source, m.target, m.reason) for m in plan.moves] == [(1, 2, "balance")] * 2
    assert sorted(map(len, plan.tables.values())) == [5, 5]
    # With chips in its pot it keeps its players until the pot is won (T2) …
    held = {1: TableNow([1, 2, 3, 4, 5, 6, 7], pot=4, free=True), 2: tables[2]}
    assert balance_step(held, 4, 7, random.Random(3)).moves == []
    # … and table 2 still may not deal meanwhile.
    assert blocked(held, 4, 7) == {2: "join"}


def test_the_final_table_deals_down_to_heads_up():
    assert blocked({1: TableNow([1, 2])}, 4, 7) == {}


def test_a_short_table_nothing_can_help_deals_on():
    # Minimum and maximum 4: a table of 3 beside a full one gets no room and no player.
    assert blocked({1: TableNow([1, 2, 3, 4]), 2: TableNow([5, 6, 7])}, 4, 4) == {}


def test_a_busy_table_neither_breaks_nor_gives():
    """A digital hand being played holds its table, even a short one."""
    tables = {1: TableNow([1, 2, 3, 4, 5], free=True), 2: TableNow([6, 7, 8], busy=True)}
    plan = balance_step(tables, 4, 8, random.Random(4))
    assert plan.broken == [] and all(m.source != 2 for m in plan.moves)
