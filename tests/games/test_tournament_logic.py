"""games.tournament: the pure decisions (draw, balancing, advancement, tie-breaks, byes,
payouts), with examples and bounded property tests. No database."""

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import tournament as t
from games.engine.tournament import TournamentError

BOUNDED = settings(max_examples=60, deadline=None)

limits = st.tuples(st.integers(2, 8), st.integers(2, 8)).map(sorted)


# -- table sizes, rounds, byes --------------------------------------------------------------


@pytest.mark.parametrize(
    "n, sizes",
    [
        (2, [2]),
        (7, [7]),
        (8, [4, 4]),
        (15, [5, 5, 5]),
        (40, [7, 7, 7, 7, 6, 6]),
        (29, [6, 6, 6, 6, 5]),
    ],
)
def test_table_sizes_fewest_tables_within_one(n, sizes):
    assert t.table_sizes(n, 4, 7) == sizes


@pytest.mark.parametrize("low, high", [(1, 7), (4, 9), (5, 4)])
def test_table_limits_R3_two_to_eight_players(low, high):
    with pytest.raises(TournamentError) as exc:
        t.table_sizes(10, low, high)
    assert exc.value.code == "table_size"


def test_one_player_cannot_make_a_table():
    with pytest.raises(TournamentError):
        t.table_sizes(1)


@BOUNDED
@given(n=st.integers(2, 400), lim=limits)
def test_table_sizes_property(n, lim):
    low, high = lim
    sizes = t.table_sizes(n, low, high)
    assert sum(sizes) == n
    assert max(sizes) - min(sizes) <= 1
    assert max(sizes) <= high
    assert len(sizes) == -(-n // high)


def test_a_field_that_fits_one_table_is_the_final():
    plan = t.plan_round(7, 4, 7)
    assert plan.final and plan.sizes == [7] and plan.byes == 0


@pytest.mark.parametrize(
    "n, low, high, sizes, byes",
    [
        (10, 4, 4, [4, 4], 2),  # tables of exactly four: two byes
        (6, 4, 5, [5], 1),
        (9, 4, 4, [4, 4], 1),
        (40, 4, 7, [7, 7, 7, 7, 6, 6], 0),
    ],
)
def test_byes_when_numbers_do_not_divide(n, low, high, sizes, byes):
    plan = t.plan_round(n, low, high)
    assert (plan.sizes, plan.byes, plan.final) == (sizes, byes, False)


@BOUNDED
@given(n=st.integers(2, 300), lim=limits)
def test_plan_round_property_fewest_byes(n, lim):
    low, high = lim
    plan = t.plan_round(n, low, high)
    assert sum(plan.sizes) + plan.byes == n
    if plan.final:
        assert plan.sizes == [n] and n <= high
        return
    assert all(low <= s <= high for s in plan.sizes)
    assert max(plan.sizes) - min(plan.sizes) <= 1
    if plan.byes:
        # One bye fewer would not split within the limits.
        fewer = t.table_sizes(n - plan.byes + 1, low, high)
        assert min(fewer) < low


def test_draw_round_gives_byes_to_the_best_ranked():
    ranked = list(range(1, 11))
    draw = t.draw_round(ranked, "seed", 4, 4)
    assert draw.byes == [1, 2]
    assert sorted(p for table in draw.tables for p in table) == list(range(3, 11))


# -- the seat draw ---------------------------------------------------------------------------


def test_draw_is_reproducible_from_the_seed_and_independent_of_input_order():
    players = list(range(100, 140))
    sizes = t.table_sizes(40, 4, 7)
    one = t.draw_tables(players, "abc123", sizes)
    two = t.draw_tables(list(reversed(players)), "abc123", sizes)
    other = t.draw_tables(players, "abc124", sizes)
    assert one == two
    assert one != other


def test_draw_refuses_duplicates_and_wrong_sizes():
    with pytest.raises(TournamentError):
        t.draw_tables([1, 1, 2, 3], "s", [2, 2])
    with pytest.raises(TournamentError):
        t.draw_tables([1, 2, 3, 4], "s", [2, 3])


@BOUNDED
@given(n=st.integers(2, 200), lim=limits, seed=st.text(min_size=1, max_size=12))
def test_draw_property_every_entrant_seated_once_sizes_within_one(n, lim, seed):
    low, high = lim
    players = random.Random(n).sample(range(1, 10_000), n)
    tables = t.draw_tables(players, seed, t.table_sizes(n, low, high))
    seated = [p for table in tables for p in table]
    assert Counter(seated) == Counter(players)
    sizes = [len(x) for x in tables]
    assert max(sizes) - min(sizes) <= 1 and max(sizes) <= high


def _met(rounds):
    met = {}
    for tables in rounds:
        for table in tables:
            for p in table:
                met.setdefault(p, set()).update(q for q in table if q != p)
    return met


def test_later_rounds_avoid_players_who_already_met():
    # 16 players, tables of 4: a second round with nobody meeting again exists.
    players = list(range(16))
    first = t.draw_tables(players, "r1", [4, 4, 4, 4])
    met = _met([first])
    second = t.draw_tables(players, "r2", [4, 4, 4, 4], met=met)
    assert t.repeat_meetings(second, met) == 0
    assert t.repeat_meetings(first, met) == 4 * 6  # sanity: the measure counts pairs


@BOUNDED
@given(n=st.integers(8, 120), seed=st.text(min_size=1, max_size=8))
def test_avoiding_draw_never_worse_than_a_plain_draw(n, seed):
    players = list(range(n))
    sizes = t.table_sizes(n, 4, 7)
    met = _met([t.draw_tables(players, seed + "x", sizes)])
    plain = t.draw_tables(players, seed, sizes)
    avoiding = t.draw_tables(players, seed, sizes, met=met)
    assert Counter(p for x in avoiding for p in x) == Counter(players)
    assert [len(x) for x in avoiding] == [len(x) for x in plain]
    assert t.repeat_meetings(avoiding, met) <= t.repeat_meetings(plain, met)


# -- balancing -------------------------------------------------------------------------------


def test_a_table_below_the_minimum_breaks_into_the_smallest_tables():
    tables = {1: [1, 2, 3, 4, 5], 2: [6, 7, 8, 9, 10], 3: [11, 12, 13]}
    plan = t.plan_balance(tables, 4, 7, random.Random(1))
    assert plan.broken == [3]
    assert {m.player for m in plan.moves} == {11, 12, 13}
    assert all(m.reason == "break" for m in plan.moves)
    assert sorted(len(x) for x in plan.tables.values()) == [6, 7]


def test_a_table_that_cannot_break_is_balanced_instead():
    tables = {1: [1, 2, 3, 4, 5, 6, 7], 2: [8, 9, 10], 3: [11, 12, 13, 14, 15, 16]}
    plan = t.plan_balance(tables, 4, 7, random.Random(1))
    assert plan.broken == []
    assert sorted(len(x) for x in plan.tables.values()) == [5, 5, 6]
    assert all(m.reason == "balance" for m in plan.moves)


def test_held_tables_neither_break_nor_give_players():
    tables = {1: [1, 2, 3, 4, 5, 6, 7], 2: [8, 9, 10, 11], 3: [12, 13]}
    plan = t.plan_balance(tables, 4, 7, random.Random(3), held={1, 3})
    assert plan.broken == []
    assert all(m.source not in (1, 3) for m in plan.moves)


def test_balancing_draw_is_seeded():
    tables = {1: list(range(1, 8)), 2: [8, 9, 10, 11, 12], 3: [13, 14, 15]}
    a = t.plan_balance(tables, 4, 7, t.rng_for("s", "balance", 1))
    b = t.plan_balance(tables, 4, 7, t.rng_for("s", "balance", 1))
    assert a == b


@BOUNDED
@given(
    sizes=st.lists(st.integers(0, 8), min_size=2, max_size=12),
    lim=limits,
    seed=st.integers(0, 10**6),
)
def test_balance_property_seated_once_within_one_never_over_max(sizes, lim, seed):
    low, high = lim
    sizes = [min(s, high) for s in sizes]
    tables, next_id = {}, 1
    for number, size in enumerate(sizes, start=1):
        tables[number] = list(range(next_id, next_id + size))
        next_id += size
    players = [p for x in tables.values() for p in x]
    plan = t.plan_balance(tables, low, high, random.Random(seed))
    after = plan.tables
    assert Counter(p for x in after.values() for p in x) == Counter(players)
    assert all(len(x) <= high for x in after.values())
    if len(after) > 1:
        lens = [len(x) for x in after.values()]
        assert max(lens) - min(lens) <= 1
        # A table below the minimum is left only when the others have no room for it.
        if min(lens) < low:
            assert len(players) > (len(after) - 1) * high
    for move in plan.moves:
        assert move.source != move.target
    for number in plan.broken:
        assert number not in after


@settings(max_examples=25, deadline=None)
@given(n=st.integers(6, 60), seed=st.integers(0, 10**6))
def test_chips_conserved_across_tables_through_a_simulated_freeze_out(n, seed):
    """Random zero-sum hands at each table, eliminations, then breaks and moves that take
    each player's stack along: the total never changes and each player sits once."""
    rng = random.Random(seed)
    players = list(range(1, n + 1))
    sizes = t.table_sizes(n, 4, 7)
    seating = dict(enumerate(t.draw_tables(players, str(seed), sizes), start=1))
    stacks = dict.fromkeys(players, 20)
    total = sum(stacks.values())
    for step in range(400):
        live = [p for x in seating.values() for p in x]
        if len(live) <= 1:
            break
        for table in seating.values():
            if len(table) < 2:
                continue
            loser, winner = rng.sample(table, 2)
            amount = min(stacks[loser], rng.randint(1, 6))
            stacks[loser] -= amount
            stacks[winner] += amount
            table[:] = [p for p in table if stacks[p] > 0]
        plan = t.plan_balance(seating, 4, 7, t.rng_for(str(seed), "balance", step))
        seating = {k: list(v) for k, v in plan.tables.items() if v or len(plan.tables) == 1}
        live = [p for x in seating.values() for p in x]
        assert len(live) == len(set(live))
        assert sum(stacks[p] for p in live) == total
        if len(seating) > 1:
            lens = [len(x) for x in seating.values()]
            assert max(lens) - min(lens) <= 1
    assert sum(stacks.values()) == total


# -- advancement and tie-breaks --------------------------------------------------------------


def test_rank_by_chips_then_pots_won_then_recorded_draw():
    rows = [(1, 30, 1), (2, 30, 4), (3, 50, 0), (4, 30, 4), (5, 0, 9)]
    ranked = t.rank_table(rows, "seed", salt="t1")
    order = [r.player for r in ranked]
    assert order[0] == 3  # most chips
    assert set(order[1:3]) == {2, 4} and order[3] == 1  # then pots won
    tied = [r for r in ranked if r.player in (2, 4)]
    assert tied[0].draw < tied[1].draw  # then the draw, lower first
    assert sorted(r.draw for r in ranked) == [1, 2, 3, 4, 5]
    assert ranked == t.rank_table(list(reversed(rows)), "seed", salt="t1")  # recorded


def test_tiebreak_setting_draw_skips_pots_won():
    rows = [(1, 30, 0), (2, 30, 5)]
    for seed in map(str, range(20)):
        ranked = t.rank_table(rows, seed, tiebreak="draw")
        if ranked[0].player == 1:
            break
    else:
        pytest.fail("pots won decided a draw-only tie-break")
    with pytest.raises(TournamentError):
        t.rank_table(rows, "s", tiebreak="coin")


def test_no_chips_never_advances():
    ranked = t.rank_table([(1, 10, 0), (2, 0, 3), (3, 0, 0)], "s")
    assert t.advancing(ranked, 2) == [1]


def test_finishing_places_share_ties():
    places = t.finishing_places([(1, (3,)), (2, (2, 5)), (3, (2, 5)), (4, (1,))])
    assert places == [(1, 1), (2, 2), (2, 3), (4, 4)]


# -- antes ---------------------------------------------------------------------------------


def test_ante_levels_per_round_or_every_n_hands():
    assert t.ante_level(0, 3, 99) == 2
    assert t.ante_level(5, 1, 12) == 2
    # Past the schedule the ante keeps rising by half, rounded up (issue #18: no stall).
    assert [t.ante_for([1, 2, 5], level) for level in range(2, 6)] == [5, 8, 12, 18]
    with pytest.raises(TournamentError):
        t.ante_for([], 0)


# -- payouts --------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 8, 15, 16, 29, 30, 49, 50, 99, 100, 500])
def test_default_payouts_sum_to_100_and_pay_fewer_places_than_entrants(n):
    percentages = t.default_payout_percentages(n)
    t.validate_payout_percentages(percentages, n)
    assert len(percentages) < n or n == 2 and percentages == [100]


@pytest.mark.parametrize("bad", [[], [50, 40], [60, 50, -10], [30, 70], [50.5, 49.5], [100, 0]])
def test_payout_percentages_are_validated(bad):
    with pytest.raises(TournamentError):
        t.validate_payout_percentages(bad)


def test_too_many_paid_places_for_the_field():
    with pytest.raises(TournamentError):
        t.validate_payout_percentages([50, 30, 20], 2)


def test_prize_remainder_goes_to_the_top_places():
    assert t.prize_amounts(1001, [50, 30, 20]) == [501, 300, 200]
    assert t.prize_amounts(1002, [50, 30, 20]) == [502, 300, 200]
    assert t.prize_amounts(7, [40, 30, 20, 10]) == [3, 3, 1, 0]  # 2+2+1+0, two left over


def test_tied_players_share_the_prizes_of_the_places_they_cover():
    prizes = t.prizes_by_place(1000, [50, 30, 20], [(1, 9), (2, 7), (2, 8), (4, 6)])
    assert prizes == {9: 500, 7: 250, 8: 250, 6: 0}
    odd = t.prizes_by_place(1001, [50, 30, 20], [(1, 9), (1, 8), (3, 7)])
    assert odd == {9: 401, 8: 400, 7: 200}  # 801 shared: the odd unit to the first listed


@BOUNDED
@given(
    pool=st.integers(0, 10**9),
    n=st.integers(2, 300),
    ties=st.lists(st.booleans(), min_size=300, max_size=300),
)
def test_prizes_always_sum_to_the_pool(pool, n, ties):
    percentages = t.default_payout_percentages(n)
    keys = []
    key = 10**6
    for i in range(n):
        if not ties[i]:
            key -= 1
        keys.append((i, (key,)))
    places = t.finishing_places(keys)
    prizes = t.prizes_by_place(pool, percentages, places)
    assert sum(prizes.values()) == pool
    assert all(v >= 0 for v in prizes.values())
    by_place = sorted(places)
    for (pa, a), (pb, b) in zip(by_place, by_place[1:], strict=False):
        if pa < pb:
            assert prizes[a] >= prizes[b]
