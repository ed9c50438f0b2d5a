"""End-of-session settlement: who pays whom, in the fewest transfers.

Pure Python, standard library only; never imports Django.

The input is a mapping of party keys (player id or name) to net balances in integer minor
units: positive means the party is owed money, negative means it owes. The balances must
sum to zero. Parties whose balance is zero take no part.

Why subsets matter. A settlement is a set of transfers. Look at the graph whose edges are
the transfers: every connected part of it must be zero-sum, and a connected part of ``s``
parties needs at least ``s - 1`` transfers. So a settlement that splits ``n`` non-zero
parties into ``g`` zero-sum groups needs at least ``n - g`` transfers, and ``n - g`` is
enough (see below). The fewest transfers is therefore ``n - G``, where ``G`` is the largest
number of disjoint zero-sum groups the non-zero balances can be partitioned into.

Exact method (up to ``EXACT_LIMIT`` = 18 non-zero balances). This is the standard
``O(2^n)`` dynamic programme over subsets: the subset sums are built incrementally (each
new party doubles the table), and ``best[mask]`` is the most zero-sum groups ``mask`` can
be cut into, with ``best[mask] = max(best[mask without one party]) + (sum(mask) == 0)``.
Rather than loop over 2^n masks and n parties in Python (0.3-0.5 s for n = 18), the same
recurrence is evaluated one *level* at a time with every set of masks stored as one Python
integer used as a 2^n-bit set. Level ``k`` is the set of zero-sum masks that can be cut
into at least ``k`` zero-sum groups:

* level 1 is every non-empty zero-sum mask;
* level ``k + 1`` is every zero-sum mask that strictly contains a mask of level ``k``
  (the difference of two nested zero-sum masks is itself zero-sum).

"Contains a mask of level k" is an upward closure, which takes one shift-and-or per party
on the big integer, so each level costs ``O(n * 2^n / 64)`` machine-word operations; 18
balances settle in a few hundredths of a second. ``G`` is the highest level that still
holds the full mask, and the groups are recovered by walking back down the levels.

Each group of the best partition has no zero-sum proper part (otherwise it could be cut
again), so it needs exactly ``size - 1`` transfers, and the greedy rule "the largest debtor
pays the largest creditor as much as possible" gives that: every transfer clears at least
one of the two parties and the last one clears both.

Greedy method (more than ``EXACT_LIMIT`` non-zero balances, and ``greedy_transfers``).
First every debtor whose loss exactly equals a creditor's win pays that creditor (one
transfer clears both); then the largest remaining debtor repeatedly pays the largest
remaining creditor. This never needs more than ``n - 1`` transfers and is usually close
to the optimum, but it cannot see zero-sum groups that are not exact pairs: for
-6 -4 +3 +3 +2 +2 it makes 5 transfers where 4 suffice ({-6 +3 +3} and {-4 +2 +2}).

Determinism. Parties are ordered by ``(str(key), type name, balance)`` before any work,
and every tie (equal amounts) is broken by that order, so the same balances in any dict
order give the same transfers. The result is sorted by payer, then payee, in that order.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["EXACT_LIMIT", "Transfer", "greedy_transfers", "settle_balances"]

#: Largest number of non-zero balances settled exactly; above it the greedy method is used.
EXACT_LIMIT = 18

Party = str | int
# A planned payment: (payer index, payee index, amount), indices into the ordered parties.
_Move = tuple[int, int, int]


@dataclass(frozen=True)
class Transfer:
    """One payment of ``amount`` minor units (always > 0) from ``payer`` to ``payee``."""

    payer: Party
    payee: Party
    amount: int
    explanation: str


def gettext_noop(text: str) -> str:
    """Marks a text for the catalogues and returns it unchanged (this module imports no
    Django; ``makemessages`` finds these by this name, the web layer translates)."""
    return text


# The sentences of the explanations, English by default; a caller that shows them to a
# person passes them in the reader's language (``phrases``; games.sessions.selectors).
PHRASES: dict[str, str] = {
    "clears_both": gettext_noop(
        "%(payer)s lost %(loss)s overall and %(payee)s won %(win)s; one transfer clears both."
    ),
    "pays_all": gettext_noop("%(payer)s lost %(loss)s overall and pays it all to %(payee)s"),
    "loss_split": gettext_noop("%(payer)s's %(loss)s loss is split: %(parts)s"),
    "loss_part": gettext_noop(
        "%(payer)s pays %(amount)s more of the %(loss)s loss (%(k)s of %(n)s)"
    ),
    "settles": gettext_noop("%(payee)s won %(win)s, so this transfer settles %(payee)s"),
    "win_collected": gettext_noop("%(payee)s's %(win)s win is collected: %(parts)s"),
    "win_part": gettext_noop("%(amount)s of %(payee)s's %(win)s win (%(k)s of %(n)s)"),
    "to": gettext_noop("%(amount)s to %(name)s"),
    "from": gettext_noop("%(amount)s from %(name)s"),
    "both": gettext_noop("%(first)s; %(second)s."),
}


def settle_balances(
    balances: Mapping[Party, int],
    names: Mapping[Party, str] | None = None,
    format_amount: Callable[[int], str] = str,
    phrases: Mapping[str, str] | None = None,
) -> list[Transfer]:
    """Return the fewest transfers that bring every balance to zero.

    ``balances`` maps a party key (player id or name) to its net balance in integer minor
    units (positive: is owed; negative: owes). They must sum to zero (``ValueError``
    otherwise); amounts must be ``int`` (``TypeError`` otherwise, ``bool`` included);
    keys must be ``str`` or ``int``. Zero balances are ignored; empty input gives ``[]``.

    Exact (provably fewest transfers) for up to ``EXACT_LIMIT`` non-zero balances; above
    that it falls back to the greedy method of ``greedy_transfers`` (see the module
    docstring for both methods).

    ``names`` maps keys to display names and ``format_amount`` turns an amount in minor
    units into text; ``phrases`` are the sentences (``PHRASES``, in another language;
    ``"to:<party>"`` and ``"from:<party>"`` replace "to"/"from" for one party, whose name
    a language may not put after its plain "to": "al bote", not "a el bote");
    all three are used only for the ``explanation`` of each transfer.
    """
    parties = _ordered_parties(balances)
    values = [value for _, value in parties]
    if len(values) > EXACT_LIMIT:
        moves = _greedy_moves(values)
    else:
        moves = []
        for group in _max_zero_sum_partition(values):
            moves += _largest_first({i: values[i] for i in group})
    return _transfers(moves, parties, names, format_amount, phrases)


def greedy_transfers(
    balances: Mapping[Party, int],
    names: Mapping[Party, str] | None = None,
    format_amount: Callable[[int], str] = str,
    phrases: Mapping[str, str] | None = None,
) -> list[Transfer]:
    """Settle with the greedy method only, whatever the number of balances.

    First each debtor whose loss exactly matches a creditor's win pays that creditor
    (parties taken in key order); then the largest remaining debtor repeatedly pays the
    largest remaining creditor as much as possible. At most ``n - 1`` transfers for ``n``
    non-zero balances, but sometimes more than ``settle_balances`` finds. Same validation
    and arguments as ``settle_balances``.
    """
    parties = _ordered_parties(balances)
    moves = _greedy_moves([value for _, value in parties])
    return _transfers(moves, parties, names, format_amount, phrases)


# --- validation and ordering -------------------------------------------------------------


def _ordered_parties(balances: Mapping[Party, int]) -> list[tuple[Party, int]]:
    """Check the balances; return the non-zero ones in a fixed, dict-order-free order."""
    if not isinstance(balances, Mapping):
        raise TypeError(f"balances must be a mapping, got {type(balances).__name__}")
    total = 0
    parties = []
    for key, value in balances.items():
        if isinstance(key, bool) or not isinstance(key, str | int):
            raise TypeError(f"party key must be a str or int, got {key!r}")
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(
                f"balance of {key!r} must be an int in minor units, "
                f"got {type(value).__name__} {value!r}"
            )
        total += value
        if value:
            parties.append((key, value))
    if total:
        raise ValueError(
            f"balances must sum to zero, but they sum to {total:+d}: "
            f"someone's winnings or losses are missing or miscounted"
        )
    parties.sort(key=lambda item: (str(item[0]), type(item[0]).__name__, item[1]))
    return parties


# --- exact method ------------------------------------------------------------------------


def _max_zero_sum_partition(values: Sequence[int]) -> list[list[int]]:
    """Partition the indices of ``values`` (non-zero, summing to zero) into the largest
    possible number of zero-sum groups. ``O(2^n)`` time and memory; see module docstring.

    Masks: bit ``i`` of a mask means ``values[i]`` is in the subset. Sets of masks are
    Python ints used as 2^n-bit sets (bit ``mask`` set means the mask is in the set).
    """
    n = len(values)
    if n == 0:
        return []
    size = 1 << n
    full = size - 1
    everything = (1 << size) - 1

    # Subset sums, built incrementally: adding party i appends a copy of the table so far
    # shifted by values[i], so sums[mask] is the sum of the values in mask.
    sums = [0]
    for value in values:
        sums += [s + value for s in sums]
    # All non-empty zero-sum masks, as a bit set (bit 0, the empty mask, is left out).
    zero_sum = int("".join("1" if s == 0 else "0" for s in reversed(sums)), 2) & ~1

    # lacking[i]: every mask that does not contain party i.
    lacking = []
    for i in range(n):
        run = 1 << i  # masks alternate: `run` masks without party i, then `run` with it
        with_i = ((1 << run) - 1) << run
        period = 2 * run
        while period < size:
            with_i |= with_i << period
            period *= 2
        lacking.append(everything ^ with_i)

    def one_more(masks: int) -> int:
        """Masks made of a mask in ``masks`` plus one party it does not contain."""
        grown = 0
        for i, without_i in enumerate(lacking):
            grown |= (masks & without_i) << (1 << i)
        return grown

    def upward(masks: int) -> int:
        """Every mask that contains (or is) a mask in ``masks``."""
        for i, without_i in enumerate(lacking):
            masks |= (masks & without_i) << (1 << i)
        return masks

    # levels[k]: zero-sum masks that can be cut into at least k + 1 zero-sum groups;
    # above[k]: every mask containing one of them.
    levels = [zero_sum]
    above = [upward(zero_sum)]
    while True:
        deeper = zero_sum & one_more(above[-1])  # zero-sum, strictly contains a level mask
        if not (deeper >> full) & 1:
            break
        levels.append(deeper)
        above.append(upward(deeper))

    # Walk back down: split the full mask into a level-(k-1) mask plus one zero-sum group,
    # dropping parties one at a time (lowest index first, for determinism).
    group_masks = []
    mask = full
    for level in range(len(levels) - 1, 0, -1):
        target, reachable = levels[level - 1], above[level - 1]
        sub = mask
        while True:
            for i in range(n):
                bit = 1 << i
                if sub & bit and (reachable >> (sub ^ bit)) & 1:
                    sub ^= bit
                    break
            else:  # pragma: no cover - the levels guarantee a way down
                raise AssertionError("settlement partition walk got stuck")
            if (target >> sub) & 1:
                break
        group_masks.append(mask ^ sub)
        mask = sub
    group_masks.append(mask)
    return sorted([i for i in range(n) if (m >> i) & 1] for m in group_masks)


def _largest_first(amounts: dict[int, int]) -> list[_Move]:
    """Settle ``amounts`` (index -> non-zero balance, summing to zero): the largest debtor
    pays the largest creditor as much as possible, until all are clear. Ties go to the
    lower index. At most ``len(amounts) - 1`` moves."""
    # Heaps of (-size of debt or claim, index): the largest, then the lowest index, first.
    debtors = [(value, i) for i, value in amounts.items() if value < 0]
    creditors = [(-value, i) for i, value in amounts.items() if value > 0]
    heapq.heapify(debtors)
    heapq.heapify(creditors)
    moves = []
    while debtors and creditors:
        owes, payer = heapq.heappop(debtors)
        owed, payee = heapq.heappop(creditors)
        amount = min(-owes, -owed)
        moves.append((payer, payee, amount))
        if owes + amount:
            heapq.heappush(debtors, (owes + amount, payer))
        if owed + amount:
            heapq.heappush(creditors, (owed + amount, payee))
    return moves


# --- greedy method -----------------------------------------------------------------------


def _greedy_moves(values: Sequence[int]) -> list[_Move]:
    """Exact debtor/creditor pairs first, then largest debtor to largest creditor."""
    unmatched_creditors: dict[int, list[int]] = {}
    for i, value in enumerate(values):
        if value > 0:
            unmatched_creditors.setdefault(value, []).append(i)
    for queue in unmatched_creditors.values():
        queue.reverse()  # so that pop() hands out the lowest index first

    moves = []
    rest = dict(enumerate(values))
    for i, value in enumerate(values):
        waiting = unmatched_creditors.get(-value) if value < 0 else None
        if waiting:
            payee = waiting.pop()
            moves.append((i, payee, -value))
            del rest[i], rest[payee]
    return moves + _largest_first(rest)


# --- explanations ------------------------------------------------------------------------


def _transfers(
    moves: list[_Move],
    parties: Sequence[tuple[Party, int]],
    names: Mapping[Party, str] | None,
    format_amount: Callable[[int], str],
    phrases: Mapping[str, str] | None = None,
) -> list[Transfer]:
    """Turn moves into ``Transfer``s, sorted by payer then payee, each with a sentence."""
    say = {**PHRASES, **(phrases or {})}
    moves = sorted(moves)
    paid: dict[int, list[tuple[int, int]]] = {}
    received: dict[int, list[tuple[int, int]]] = {}
    for payer, payee, amount in moves:
        paid.setdefault(payer, []).append((payee, amount))
        received.setdefault(payee, []).append((payer, amount))

    def name(i: int) -> str:
        key = parties[i][0]
        return str(names.get(key, key)) if names is not None else str(key)

    def money(amount: int) -> str:
        return format_amount(amount)

    # A loss split over several transfers, or a win collected from several payers, is
    # spelled out on its first transfer only; the others say which part they are (the
    # same sentence on every line reads as noise).
    told: set[tuple[str, int]] = set()

    def explain(payer: int, payee: int, amount: int) -> str:
        facts = {
            "payer": name(payer),
            "payee": name(payee),
            "loss": money(-parties[payer][1]),
            "win": money(parties[payee][1]),
            "amount": money(amount),
        }
        outgoing, incoming = paid[payer], received[payee]
        if len(outgoing) == 1 and len(incoming) == 1:
            return say["clears_both"] % facts
        if len(outgoing) == 1:
            first = say["pays_all"] % facts
        elif ("loss", payer) not in told:
            told.add(("loss", payer))
            parts = [
                say.get(f"to:{parties[p][0]}", say["to"]) % {"amount": money(a), "name": name(p)}
                for p, a in outgoing
            ]
            first = say["loss_split"] % {**facts, "parts": ", ".join(parts)}
        else:
            k = [p for p, _ in outgoing].index(payee) + 1
            first = say["loss_part"] % {**facts, "k": k, "n": len(outgoing)}
        if len(incoming) == 1:
            second = say["settles"] % facts
        elif ("win", payee) not in told:
            told.add(("win", payee))
            parts = [
                say.get(f"from:{parties[p][0]}", say["from"])
                % {"amount": money(a), "name": name(p)}
                for p, a in incoming
            ]
            second = say["win_collected"] % {**facts, "parts": ", ".join(parts)}
        else:
            k = [p for p, _ in incoming].index(payer) + 1
            second = say["win_part"] % {**facts, "k": k, "n": len(incoming)}
        return say["both"] % {"first": first, "second": second}

    return [
        Transfer(parties[payer][0], parties[payee][0], amount, explain(payer, payee, amount))
        for payer, payee, amount in moves
    ]
