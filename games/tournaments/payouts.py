"""The payout table of a tournament (reads): which weights, which rounding unit, what
each place pays from a pool. The arithmetic is pure (``games.engine.tournament_payouts``).

Weights: a preset (share of the field on the standard curve, basis points), else the
custom table of whole percentages, else the default by field size.

Units: pools and prizes are in the tournament's minor unit (cents for $). The payout unit
defaults to one whole unit of the currency (100 cents: prizes in whole dollars, as a
director counts them out; service.create_tournament), so a split leaves no odd cents; a
director may set 0.01 for prizes to the cent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.utils.translation import gettext_noop

from games.engine import tournament as logic
from games.engine import tournament_payouts as pay
from games.models import Entry, Tournament

# Marked with gettext_noop: the API sends the English sentence; the pages translate it.
REMAINDER_RULE = gettext_noop(
    "Each prize is pool × share, rounded down to the payout unit; the units left over go "
    "one each to 1st, 2nd, … and anything below one unit to 1st. Players sharing a place "
    "split its prizes equally, leftover units one each in the order of a seeded draw."
)
# Entries that bought into the event.
COUNTED = (Entry.Status.CHECKED_IN, Entry.Status.PLAYING, Entry.Status.OUT, Entry.Status.WINNER)


def payout_weights(t: Tournament, entrants: int) -> list[int]:
    entrants = max(entrants, 1)
    if t.payout_preset in pay.PAYOUT_PRESETS:
        share = pay.PAYOUT_PRESETS[t.payout_preset][1]
        return pay.curve_weights(pay.paid_places(entrants, share))
    if t.payout_percentages and len(t.payout_percentages) <= entrants:
        return list(t.payout_percentages)
    return logic.default_payout_percentages(max(entrants, 2))[:entrants]


def payout_rows(t: Tournament, pool: int, entrants: int) -> list[dict[str, Any]]:
    """[{place, share (percent, 2 decimals as text), amount}] for this pool."""
    weights = payout_weights(t, entrants)
    total = sum(weights)
    amounts = logic.prize_amounts(pool, weights, t.payout_unit or 1) if pool else [0] * len(weights)
    rows = []
    for i, (w, a) in enumerate(zip(weights, amounts, strict=True)):
        points = w * 10_000 // total
        rows.append({"place": i + 1, "share": f"{points // 100}.{points % 100:02d}", "amount": a})
    return rows


def seeded_ranks(t: Tournament, player_ids: Iterable[int]) -> dict[int, int]:
    """player → rank in the tournament's seeded draw (its first round's seed). Players who
    share a place are listed in this order: it decides who gets the odd unit when their
    shared prize does not divide evenly (REMAINDER_RULE)."""
    seed = t.rounds.order_by("number").values_list("seed", flat=True).first() or ""
    return {p: i for i, p in enumerate(logic.seeded_order(list(player_ids), seed))}


def place_prizes(t: Tournament, places: Sequence[tuple[int, int]], pool: int) -> dict[int, int]:
    """player → prize, for ``places`` [(place, player)] of everyone in the event (players
    sharing a place in ``seeded_ranks`` order): the payout table for that many entrants,
    shared places splitting their prizes (``logic.prizes_by_place``). The end of the
    tournament pays by it, and the standings show knocked-out players what it will pay."""
    weights = payout_weights(t, len(places))
    return logic.prizes_by_place(pool, weights, list(places), t.payout_unit or 1)


def entrants_count(t: Tournament) -> int:
    return t.entries.filter(status__in=COUNTED).count()
