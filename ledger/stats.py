"""Club-wide player statistics in one query, however many sessions and hands the club has
played: each player's running totals (``PlayerTotals``), kept by ``ledger.postings`` as
hands are recorded and voided (issue #20; summing the whole history took 334 ms at 1,000
closed sessions). ``ledger.totals`` recounts them the long way for the checks.
"""

from __future__ import annotations

from typing import Any

from games.models import Club, Player

from .models import PlayerTotals

__all__ = ["club_player_stats"]


def club_player_stats(club: Club) -> list[dict[str, Any]]:
    """One dict per player on the club's roster, best net first:

    ``player_id``, ``name``, ``sessions`` (sessions seated in), ``hands_played`` (hands
    dealt in), ``hands_passed``, ``pots_won`` (pots taken alone: wins and uncontested
    hands), ``bourres``, ``reneges`` (as found or called, corrected or not), ``net``
    (won − lost at the table over all cash sessions; buy-ins, cash-outs and tournament
    chips excluded) and ``biggest_pot`` (the largest pot taken, 0 if none).
    """
    counters = PlayerTotals.COUNTERS
    rows = []
    for pid, name, *values in (
        Player.objects.filter(club=club)
        .order_by()
        .values_list("pk", "name", *(f"totals__{c}" for c in counters))
    ):
        row: dict[str, Any] = {"player_id": pid, "name": name}
        row.update((c, v or 0) for c, v in zip(counters, values, strict=True))
        rows.append(row)
    rows.sort(key=lambda r: (-r["net"], r["name"].lower()))
    return rows
