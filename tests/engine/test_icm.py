"""ICM deals (games.engine.tournament_payouts.icm_deal, Malmuth–Harville) and every deal
rounded to the event's prize unit (issue #35: a chip chop paid cents when prizes round to
$1)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import tournament_payouts as pay


def test_two_players_icm_is_each_ones_chance_of_first_times_the_difference():
    # Malmuth–Harville, two players: P(A 1st) = a / (a + b); A takes P(1st)·1st +
    # P(2nd)·2nd.
    a, b = 3_000, 1_000
    first, second = 600_00, 400_00
    p_a = Fraction(a, a + b)
    want_a = p_a * first + (1 - p_a) * second
    want_b = (1 - p_a) * first + p_a * second
    equity = pay.icm_equities({1: a, 2: b}, [first, second])
    assert equity == {1: want_a, 2: want_b}
    assert want_a == 55_000  # 0.75 × 600 + 0.25 × 400, the hand-computed $550.00


def test_three_players_icm_follows_the_harville_formula():
    chips = {1: 5_000, 2: 3_000, 3: 2_000}
    prizes = [500_00, 300_00, 200_00]
    total = sum(chips.values())

    def p_first(i: int, among: list[int]) -> Fraction:
        return Fraction(chips[i], sum(chips[j] for j in among))

    players = list(chips)
    want = {}
    for i in players:
        others = [j for j in players if j != i]
        first = Fraction(chips[i], total)
        # 2nd: someone else j wins, then i wins among the rest.
        second = sum(
            p_first(j, players) * p_first(i, [k for k in players if k != j]) for j in others
        )
        third = 1 - first - second
        want[i] = first * prizes[0] + second * prizes[1] + third * prizes[2]
    assert pay.icm_equities(chips, prizes) == want
    assert sum(want.values()) == sum(prizes)
    # The big stack is worth less than its chip share of the pool, the short stack more.
    assert want[1] < Fraction(chips[1], total) * sum(prizes)
    assert want[3] > Fraction(chips[3], total) * sum(prizes)


def test_an_icm_deal_rounds_each_share_to_the_prize_unit_and_adds_up():
    chips = {1: 5_000, 2: 3_000, 3: 2_000}
    prizes = [500_00, 300_00, 200_00]
    shares = pay.icm_deal(prizes, chips, unit=100)
    assert sum(shares.values()) == 1_000_00
    assert all(x % 100 == 0 for x in shares.values())
    equity = pay.icm_equities(chips, prizes)
    # Each share is its equity rounded down to $1, or one $1 more (largest remainders).
    for p, x in shares.items():
        assert x - 100 < equity[p] < x + 100


@given(
    st.lists(st.integers(1, 50_000), min_size=2, max_size=8),
    st.integers(0, 1_000_000),
    st.sampled_from([1, 5, 100, 500]),
)
def test_every_deal_pays_exactly_the_pool_in_whole_units(stacks, pool, unit):
    chips = dict(enumerate(stacks, start=1))
    weights = list(range(len(stacks), 0, -1))
    prizes = pay.prize_amounts(pool, weights, unit)
    total = sum(prizes)
    floor = prizes[-1]
    deals = {
        "icm": pay.icm_deal(prizes, chips, unit=unit),
        "even": pay.even_chop(total, chips, unit=unit),
        "chips": pay.chip_chop(total, floor, chips, unit=unit),
    }
    biggest = pay._by_chips(chips)[0]
    for kind, shares in deals.items():
        assert sum(shares.values()) == total == pool, kind
        assert min(shares.values()) >= 0, kind
        # Whole units, except what is below one unit of the pool, which goes to the
        # biggest stack (as the payout table gives it to 1st).
        for p, x in shares.items():
            assert x % unit == (pool % unit if p == biggest else 0), (kind, p, x)


def test_a_chip_chop_no_longer_pays_cents_when_prizes_round_to_a_dollar():
    # Issue #35: $1,250.00 between 3 players, prizes in whole dollars.
    chips = {1: 7_001, 2: 5_003, 3: 2_999}
    shares = pay.chip_chop(1_250_00, 250_00, chips, unit=100)
    assert sum(shares.values()) == 1_250_00
    assert all(x % 100 == 0 for x in shares.values())
    # To the cent (unit 1) it would have paid cents.
    assert any(x % 100 for x in pay.chip_chop(1_250_00, 250_00, chips).values())


def test_icm_needs_chips():
    with pytest.raises(pay.PayoutError):
        pay.icm_deal([100, 50], {1: 10, 2: 0})
