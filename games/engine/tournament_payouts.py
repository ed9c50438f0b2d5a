"""Payout tables, rounding and final-table deals, pure Python (integer minor units).

Choices where the issue left room, written down here and tested:

- **Presets** pay a share of the field (``top10``, ``top15``, ``top20``: 10, 15 or 20 % of
  the entrants, rounded up, at least one place) on a *harmonic curve*: place k weighs
  1/(k+1), so 2 paid split 60/40, 3 paid 46/31/23, 10 paid 24.7/16.5/12.4/…/4.5 %. The
  weights are basis points (they sum to 10,000); a custom table is whole percentages.
- **Rounding**: each prize is rounded down to a multiple of the *unit* (1: the minor unit;
  100: whole dollars; 5: a chip denomination). The remainder is handed out one unit at a
  time to 1st, 2nd, 3rd … (cycling); what is left below one unit goes to 1st. So no
  place is ever paid more than the place above it and the pool is paid out exactly.
- **Deals** at the final table share what the remaining players' places would pay:
  *even chop* splits it equally; *chip chop* gives each the smallest of those prizes and
  shares the rest in proportion to chips; *ICM* gives each player their
  Malmuth–Harville equity (the chance of finishing 1st is stack ÷ all stacks, and each
  next place goes the same way among those left; the equity is Σ chance × prize, exact
  fractions); *custom* takes the amounts the players agreed. Every share of the first
  three is a multiple of the *unit* (the event's prize unit, as its prizes are) and the
  shares add up to the total exactly (``_rounded``): each exact share is rounded down to
  the unit, and the units left over (fewer than the players) go one each by *largest
  remainder* — to the players whose exact share lost the most in rounding down; equal
  remainders go to the bigger stack, then by the caller's order (the service passes the
  seats), then the player id; what is below one unit (the odd cents the payout table
  gives 1st) goes to the biggest stack. So a short stack whose exact share was 0.9 of a
  unit above its rounded one gets that unit before a big stack 0.1 above; an even chop's
  odd units go to the biggest stacks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from .tournament_errors import TournamentError

__all__ = [
    "DEAL_KINDS",
    "PAYOUT_PRESETS",
    "chip_chop",
    "curve_weights",
    "custom_deal",
    "even_chop",
    "icm_deal",
    "icm_equities",
    "paid_places",
    "prize_amounts",
]

PAYOUT_PRESETS: dict[str, tuple[str, int]] = {
    "top10": ("Top 10 % of the field, standard curve", 10),
    "top15": ("Top 15 % of the field, standard curve", 15),
    "top20": ("Top 20 % of the field, standard curve", 20),
}
DEAL_KINDS = ("even", "chips", "icm", "custom")
BASIS = 10_000


class PayoutError(TournamentError):
    def __init__(
        self,
        message: str,
        code: str = "payouts",
        *,
        params: Mapping[str, object] | None = None,
        message_id: str | None = None,
    ) -> None:
        super().__init__(message, code=code, params=params, message_id=message_id)


def paid_places(entrants: int, share_percent: int) -> int:
    """How many places a share of the field pays (rounded up, at least one)."""
    return max(1, min(entrants, -(-entrants * share_percent // 100)))


def curve_weights(places: int) -> list[int]:
    """Basis points per place on the harmonic curve (sum 10,000, never increasing)."""
    if places < 1:
        raise PayoutError("Pay at least one place.", message_id="pay_one_place")
    scale = 10**12
    raw = [scale // (k + 1) for k in range(1, places + 1)]
    total = sum(raw)
    points = [BASIS * w // total for w in raw]
    for i in range(BASIS - sum(points)):
        points[i % places] += 1
    return points


def prize_amounts(pool: int, weights: Sequence[int], unit: int = 1) -> list[int]:
    """Prize per place: ``pool × weight // total``, rounded down to ``unit``; leftover
    units one each to 1st, 2nd, … and what is below one unit to 1st."""
    if pool < 0:
        raise PayoutError("The prize pool cannot be negative.", code="pool")
    if unit < 1:
        raise PayoutError("The rounding unit must be at least 1.", code="payout_unit")
    total = sum(weights)
    if not weights or total <= 0:
        raise PayoutError("Pay at least one place.", message_id="pay_one_place")
    amounts = [(pool * w // total) // unit * unit for w in weights]
    rest = pool - sum(amounts)
    i = 0
    while rest >= unit:
        amounts[i % len(amounts)] += unit
        rest -= unit
        i += 1
    amounts[0] += rest
    return amounts


def _by_chips(chips: Mapping[int, int], tiebreak: Mapping[int, object] | None = None) -> list[int]:
    """Biggest stack first; equal stacks by ``tiebreak`` (e.g. the name), then the id."""
    names = tiebreak or {}
    return sorted(chips, key=lambda p: (-chips[p], names.get(p, ""), p))


def _rounded(
    total: int, exact: Mapping[int, Fraction], order: Sequence[int], unit: int
) -> dict[int, int]:
    """Exact shares (adding up to ``total``) in whole ``unit``s: each rounded down, the
    units left over one each by largest remainder (equal remainders in ``order``: the
    bigger stack first), what is below one unit to the first in ``order`` (the biggest
    stack: the 1st of the payout rule). The result adds up to ``total`` exactly."""
    if unit < 1:
        raise PayoutError("The rounding unit must be at least 1.", code="payout_unit")
    out = {p: int(exact[p] // unit) * unit for p in order}
    units = (total - sum(out.values())) // unit
    by_remainder = sorted(order, key=lambda p: -(exact[p] - out[p]))  # stable: ``order``
    for p in by_remainder[:units]:
        out[p] += unit
    out[order[0]] += total - sum(out.values())
    assert sum(out.values()) == total and min(out.values()) >= 0
    return out


def even_chop(
    total: int,
    chips: Mapping[int, int],
    tiebreak: Mapping[int, object] | None = None,
    unit: int = 1,
) -> dict[int, int]:
    """``total`` shared equally in whole ``unit``s; odd units to the biggest stacks first."""
    order = _by_chips(chips, tiebreak)
    if not order:
        raise PayoutError("A deal needs players.", code="deal", message_id="deal_needs_players")
    return _rounded(total, {p: Fraction(total, len(order)) for p in order}, order, unit)


def chip_chop(
    total: int,
    floor_prize: int,
    chips: Mapping[int, int],
    tiebreak: Mapping[int, object] | None = None,
    unit: int = 1,
) -> dict[int, int]:
    """Each player gets ``floor_prize`` (the smallest prize still to be won) and the
    rest of ``total`` in proportion to their chips, rounded down to ``unit``; the units
    left over go one each by largest remainder (ties: the bigger stack, then
    ``tiebreak``, then the id). The shares add up to ``total`` exactly."""
    order = _by_chips(chips, tiebreak)
    if not order:
        raise PayoutError("A deal needs players.", code="deal", message_id="deal_needs_players")
    stacks = sum(chips.values())
    extra = total - floor_prize * len(order)
    if extra < 0 or stacks <= 0 or any(c < 0 for c in chips.values()):
        raise PayoutError(
            "Nothing is left to share by chips.", code="deal", message_id="deal_nothing_left"
        )
    exact = {p: floor_prize + Fraction(extra * chips[p], stacks) for p in order}
    return _rounded(total, exact, order, unit)


def icm_equities(chips: Mapping[int, int], prizes: Sequence[int]) -> dict[int, Fraction]:
    """Malmuth–Harville: a player finishes 1st with probability stack / all stacks; given
    who finished above, each next place goes the same way among the players left. A
    player's equity is Σ P(place k) × ``prizes[k]`` (places beyond the list pay 0), exact.
    Over the subsets of players still to be placed: 2^n · n² steps (n ≤ 8 at a table)."""
    players = sorted(chips)
    if any(c <= 0 for c in chips.values()):
        raise PayoutError(
            "Every player in the deal needs chips.", code="deal", message_id="deal_nothing_left"
        )
    n = len(players)
    pay = list(prizes[:n]) + [0] * max(n - len(prizes), 0)
    equity = dict.fromkeys(players, Fraction(0))
    # reach[mask]: the probability that exactly the players in ``mask`` are placed above.
    reach: dict[int, Fraction] = {0: Fraction(1)}
    for mask in sorted(range(1 << n), key=int.bit_count):
        p_here = reach.get(mask)
        if not p_here:
            continue
        place = mask.bit_count()
        if place == n:
            continue
        left = [i for i in range(n) if not mask >> i & 1]
        stacks = sum(chips[players[i]] for i in left)
        for i in left:
            p = p_here * Fraction(chips[players[i]], stacks)
            equity[players[i]] += p * pay[place]
            reach[mask | 1 << i] = reach.get(mask | 1 << i, Fraction(0)) + p
    return equity


def icm_deal(
    prizes: Sequence[int],
    chips: Mapping[int, int],
    tiebreak: Mapping[int, object] | None = None,
    unit: int = 1,
) -> dict[int, int]:
    """An ICM deal: each player's Malmuth–Harville equity (``icm_equities``) of the
    remaining ``prizes`` (1st, 2nd, …), rounded like a chip chop (``_rounded``)."""
    order = _by_chips(chips, tiebreak)
    if not order:
        raise PayoutError("A deal needs players.", code="deal", message_id="deal_needs_players")
    total = sum(prizes[: len(order)])
    return _rounded(total, icm_equities(chips, prizes), order, unit)


def custom_deal(total: int, amounts: Mapping[int, int], chips: Mapping[int, int]) -> dict[int, int]:
    """The amounts the players agreed: one per remaining player, adding up to ``total``."""
    if set(amounts) != set(chips):
        raise PayoutError(
            "Give an amount to every player still in, and to nobody else.",
            "deal",
            message_id="deal_every_player",
        )
    if any(type(x) is not int or x < 0 for x in amounts.values()):
        raise PayoutError(
            "Each amount must be a whole amount of 0 or more.",
            code="deal",
            message_id="deal_whole_amounts",
        )
    if sum(amounts.values()) != total:
        raise PayoutError(
            f"The amounts add up to {sum(amounts.values())}, not the {total} left to win.",
            code="deal_total",
            params={"sum": sum(amounts.values()), "total": total},
        )
    return dict(amounts)
