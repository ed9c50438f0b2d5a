"""ledger.settlement: fewest transfers that settle a session (pure; no Django, no database).

Two independent references check the optimum on small inputs:
* the partition formula, by brute force over every set partition: fewest transfers is
  n - (most zero-sum blocks a partition of the non-zero balances can have);
* a search over settlements, which needs no theory about groups: any settlement whose
  transfers form a forest can be carried out by repeatedly letting one party hand its
  whole remaining balance to another, so the fewest such steps is the true minimum.
"""

import dataclasses
import itertools
import random
from decimal import Decimal

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ledger.settlement import EXACT_LIMIT, Transfer, greedy_transfers, settle_balances

# --- helpers and references ------------------------------------------------------------


def apply(balances, transfers):
    """Balances after the transfers: a payer's debt goes down, a payee's claim goes down."""
    after = dict(balances)
    for t in transfers:
        after[t.payer] += t.amount
        after[t.payee] -= t.amount
    return after


def nonzero_count(balances):
    return sum(1 for value in balances.values() if value)


def set_partitions(items):
    """Every partition of the list ``items`` into non-empty blocks."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in set_partitions(rest):
        for i in range(len(partition)):
            yield partition[:i] + [[first, *partition[i]]] + partition[i + 1 :]
        yield [[first], *partition]


def max_zero_sum_groups(values):
    """Most blocks in a partition of ``values`` where every block sums to zero."""
    return max(
        len(partition)
        for partition in set_partitions(list(values))
        if all(sum(block) == 0 for block in partition)
    )


def min_transfers_by_partitions(balances):
    values = [v for v in balances.values() if v]
    return len(values) - max_zero_sum_groups(values) if values else 0


def max_zero_sum_groups_by_dp(values):
    """The textbook loop over subsets: best[mask] = max(best[mask - one party]) + zero sum."""
    n = len(values)
    best = [0] * (1 << n)
    for mask in range(1, 1 << n):
        members = [i for i in range(n) if mask >> i & 1]
        total = sum(values[i] for i in members)
        best[mask] = max(best[mask ^ (1 << i)] for i in members) + (total == 0)
    return best[-1]


def min_transfers_by_search(balances):
    """Breadth-first search: one step lets a party hand its whole balance to another."""
    start = tuple(sorted(v for v in balances.values() if v))
    frontier, seen, steps = {start}, {start}, 0
    while () not in frontier:
        following = set()
        for state in frontier:
            for i, j in itertools.permutations(range(len(state)), 2):
                moved = list(state)
                moved[j] += moved[i]
                moved[i] = 0
                nxt = tuple(sorted(v for v in moved if v))
                if nxt not in seen:
                    seen.add(nxt)
                    following.add(nxt)
        frontier, steps = following, steps + 1
    return steps


def cents(amount):
    return f"${amount // 100}.{amount % 100:02d}"


party_keys = st.one_of(
    st.integers(min_value=0, max_value=10_000), st.text("abcdefgh", min_size=1, max_size=4)
)


@st.composite
def balanced(draw, max_parties=12, max_abs=60, zeros=True):
    """A dict of distinct party keys to balances that sum to zero."""
    amounts = st.integers(-max_abs, max_abs)
    if not zeros:
        amounts = amounts.filter(bool)
    values = draw(st.lists(amounts, max_size=max_parties - 1))
    values.append(-sum(values))
    if not zeros:
        values = [v for v in values if v]
    keys = draw(st.lists(party_keys, min_size=len(values), max_size=len(values), unique=True))
    return dict(zip(keys, values, strict=True))


SETTINGS = settings(max_examples=100, deadline=None)


# --- worked cases ----------------------------------------------------------------------


def test_two_matching_pairs_need_two_transfers():
    balances = {"a": 5, "b": 3, "c": -5, "d": -3}
    transfers = settle_balances(balances)
    assert [(t.payer, t.payee, t.amount) for t in transfers] == [("c", "a", 5), ("d", "b", 3)]
    assert transfers[0].explanation == ("c lost 5 overall and a won 5; one transfer clears both.")


def test_one_loser_one_winner():
    (transfer,) = settle_balances({"ann": 14, "ben": -14})
    assert transfer == Transfer(
        payer="ben",
        payee="ann",
        amount=14,
        explanation="ben lost 14 overall and ann won 14; one transfer clears both.",
    )


def test_a_loss_split_between_two_winners_is_explained():
    transfers = settle_balances({"dee": 4, "cal": -9, "ann": 5})
    assert transfers == [
        Transfer(
            "cal",
            "ann",
            5,
            "cal's 9 loss is split: 5 to ann, 4 to dee; ann won 5, so this transfer settles ann.",
        ),
        Transfer(
            "cal",
            "dee",
            4,
            "cal pays 4 more of the 9 loss (2 of 2); dee won 4, so this transfer settles dee.",
        ),
    ]


def test_a_win_collected_from_two_losers_is_explained():
    transfers = settle_balances({"ann": 9, "ben": -5, "cal": -4})
    assert [(t.payer, t.payee, t.amount) for t in transfers] == [
        ("ben", "ann", 5),
        ("cal", "ann", 4),
    ]
    assert transfers[0].explanation == (
        "ben lost 5 overall and pays it all to ann; "
        "ann's 9 win is collected: 5 from ben, 4 from cal."
    )
    # The second line does not repeat the sentence: it says which part it is.
    assert transfers[1].explanation == (
        "cal lost 4 overall and pays it all to ann; 4 of ann's 9 win (2 of 2)."
    )


def test_no_explanation_repeats_another():
    """FINDINGS: "Dwayne's $34 win is collected: …" four times out of five."""
    balances = {"dwayne": 34, "ann": -10, "ben": -9, "cal": -8, "dee": -7, "eve": 5, "fay": -5}
    transfers = settle_balances(balances)
    sentences = [t.explanation for t in transfers]
    assert len(set(sentences)) == len(sentences)
    assert sum("win is collected" in s for s in sentences) <= 1


def test_names_and_amount_format_are_used_in_explanations():
    (transfer,) = settle_balances(
        {7: 1400, 8: -1400}, names={7: "Ann", 8: "Ben"}, format_amount=cents
    )
    assert (transfer.payer, transfer.payee, transfer.amount) == (8, 7, 1400)
    assert transfer.explanation == (
        "Ben lost $14.00 overall and Ann won $14.00; one transfer clears both."
    )


def test_names_mapping_may_leave_some_parties_out():
    (transfer,) = settle_balances({1: -3, 2: 3}, names={2: "Ann"})
    assert transfer.explanation == "1 lost 3 overall and Ann won 3; one transfer clears both."


def test_greedy_needs_more_transfers_than_the_optimum():
    # {-6 +3 +3} and {-4 +2 +2} are zero-sum, so 6 - 2 = 4 transfers suffice. Largest-first
    # pays 6 -> 3, then 4 -> the other 3, and the leftovers 3 and 1 must then share two 2s.
    balances = {"a": -6, "b": -4, "c": 3, "d": 3, "e": 2, "f": 2}
    optimal = settle_balances(balances)
    greedy = greedy_transfers(balances)
    assert max_zero_sum_groups(balances.values()) == 2
    assert len(optimal) == len(balances) - 2 == 4
    assert len(greedy) == 5 > len(optimal)
    assert set(apply(balances, optimal).values()) == {0}
    assert set(apply(balances, greedy).values()) == {0}
    assert {(t.payer, t.payee, t.amount) for t in optimal} == {
        ("a", "c", 3),
        ("a", "d", 3),
        ("b", "e", 2),
        ("b", "f", 2),
    }


def test_pair_and_two_triples_with_a_zero_balance():
    # {a, e} is an exact pair, {b, c, d} and {f, g, h} are zero-sum triples; i is ignored.
    balances = {"a": 6, "b": 4, "c": 3, "d": -7, "e": -6, "f": 5, "g": 2, "h": -7, "i": 0}
    assert min_transfers_by_partitions(balances) == 8 - 3 == 5
    transfers = settle_balances(balances)
    assert len(transfers) == 5
    assert "i" not in {t.payer for t in transfers} | {t.payee for t in transfers}


def test_exact_pairs_alone_are_not_enough():
    # {+6 -6} is an exact pair; the rest {+4 +3 -7} is a group of three: 2 groups, 3 transfers.
    balances = {"a": 6, "b": 4, "c": 3, "d": -7, "e": -6}
    assert len(settle_balances(balances)) == 3
    assert min_transfers_by_search(balances) == 3


def test_largest_exact_input_and_greedy_gap():
    # Three scaled copies of the greedy trap: 18 parties, 6 zero-sum groups -> 12 transfers.
    balances = {}
    for scale, tag in ((1, "x"), (10, "y"), (100, "z")):
        for i, value in enumerate((-6, -4, 3, 3, 2, 2)):
            balances[f"{tag}{i}"] = value * scale
    assert len(balances) == EXACT_LIMIT
    transfers = settle_balances(balances)
    assert len(transfers) == 18 - 6
    assert len(greedy_transfers(balances)) > len(transfers)
    assert set(apply(balances, transfers).values()) == {0}


def test_above_the_exact_limit_the_greedy_method_is_used():
    rng = random.Random(20240601)
    values = [rng.randint(-5_000, 5_000) or 1 for _ in range(199)]
    balances = {f"p{i:03d}": v for i, v in enumerate(values)}
    balances["bank"] = -sum(values)
    transfers = settle_balances(balances)
    assert transfers == greedy_transfers(balances)
    assert set(apply(balances, transfers).values()) == {0}
    assert len(transfers) <= nonzero_count(balances) - 1


def test_mixed_int_and_str_keys_are_kept_apart():
    transfers = settle_balances({1: 5, "1": -5})
    assert [(t.payer, t.payee, t.amount) for t in transfers] == [("1", 1, 5)]


def test_transfer_is_frozen():
    (transfer,) = settle_balances({"a": 1, "b": -1})
    with pytest.raises(dataclasses.FrozenInstanceError):
        transfer.amount = 2


@pytest.mark.parametrize("settle", [settle_balances, greedy_transfers])
@pytest.mark.parametrize("balances", [{}, {"a": 0}, {"a": 0, 2: 0, "c": 0}])
def test_nothing_to_settle(settle, balances):
    assert settle(balances) == []


def test_exhaustive_small_inputs_match_the_search():
    """Every balance vector of 2..5 parties with amounts in -3..3 (no zeros)."""
    amounts = [v for v in range(-3, 4) if v]
    checked = 0
    for n in range(2, 6):
        for head in itertools.product(amounts, repeat=n - 1):
            last = -sum(head)
            if not last:
                continue
            balances = {chr(ord("a") + i): v for i, v in enumerate((*head, last))}
            assert len(settle_balances(balances)) == min_transfers_by_search(balances)
            checked += 1
    assert checked > 1000


# --- errors ----------------------------------------------------------------------------


@pytest.mark.parametrize("settle", [settle_balances, greedy_transfers])
def test_balances_that_do_not_sum_to_zero_are_rejected(settle):
    with pytest.raises(ValueError, match=r"sum to zero.*\+1"):
        settle({"a": 3, "b": -2})


@pytest.mark.parametrize("settle", [settle_balances, greedy_transfers])
@pytest.mark.parametrize("bad", [1.5, 5.0, Decimal("5"), "5", None, True])
def test_non_integer_amounts_are_rejected(settle, bad):
    with pytest.raises((TypeError, ValueError)):
        settle({"a": bad, "b": -5})


@pytest.mark.parametrize("key", [(1, 2), None, 1.0, True])
def test_bad_party_keys_are_rejected(key):
    with pytest.raises(TypeError, match="party key"):
        settle_balances({key: 5, "b": -5})


def test_a_non_mapping_is_rejected():
    with pytest.raises(TypeError, match="mapping"):
        settle_balances([("a", 5), ("b", -5)])


# --- properties ------------------------------------------------------------------------


@SETTINGS
@given(balanced())
@example({"a": -6, "b": -4, "c": 3, "d": 3, "e": 2, "f": 2})
def test_transfers_settle_every_balance_exactly(balances):
    for settle in (settle_balances, greedy_transfers):
        transfers = settle(balances)
        assert all(value == 0 for value in apply(balances, transfers).values())
        for t in transfers:
            assert type(t.amount) is int and t.amount > 0
            assert t.payer != t.payee
            assert balances[t.payer] < 0 < balances[t.payee]
            assert t.explanation and "\n" not in t.explanation


@SETTINGS
@given(balanced(max_parties=EXACT_LIMIT, max_abs=12))
def test_never_more_than_n_minus_one_nor_than_greedy(balances):
    transfers = settle_balances(balances)
    greedy = greedy_transfers(balances)
    n = nonzero_count(balances)
    assert len(transfers) <= max(n - 1, 0)
    assert len(greedy) <= max(n - 1, 0)
    assert len(transfers) <= len(greedy)


@SETTINGS
@given(balanced(max_parties=40, max_abs=1_000))
def test_above_the_limit_still_settles_within_n_minus_one(balances):
    transfers = settle_balances(balances)
    assert set(apply(balances, transfers).values()) <= {0}
    assert len(transfers) <= max(nonzero_count(balances) - 1, 0)


@SETTINGS
@given(balanced(max_parties=14, max_abs=8), st.randoms(use_true_random=False))
def test_deterministic_under_dict_reordering(balances, rng):
    items = list(balances.items())
    rng.shuffle(items)
    reordered = dict(items)
    assert settle_balances(reordered) == settle_balances(balances)
    assert greedy_transfers(reordered) == greedy_transfers(balances)


@SETTINGS
@given(balanced(max_parties=7, max_abs=6, zeros=False))
@example({"a": -6, "b": -4, "c": 3, "d": 3, "e": 2, "f": 2})
@example({"a": 1, "b": 1, "c": 1, "d": -1, "e": -1, "f": -1, "g": 0})
def test_count_is_the_true_minimum_for_small_inputs(balances):
    count = len(settle_balances(balances))
    assert count == min_transfers_by_partitions(balances)
    if nonzero_count(balances) <= 6:
        assert count == min_transfers_by_search(balances)


@SETTINGS
@given(balanced(max_parties=12, max_abs=5, zeros=False))
def test_count_matches_the_textbook_subset_loop(balances):
    values = list(balances.values())
    expected = len(values) - max_zero_sum_groups_by_dp(values) if values else 0
    assert len(settle_balances(balances)) == expected
