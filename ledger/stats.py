"""Club-wide player statistics, in a constant number of queries (four), however many
sessions and hands the club has played.

Money figures come from the ledger (legs of live postings); counts of hands come from
the recorded hands' records and verdicts, read as JSON fields only (not whole rows).
Voided hands count for nothing: their postings are reversed, and they are skipped.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Count, Max, Sum
from django.db.models.functions import Coalesce

from games.models import Hand, Player

from .books import TABLE_KINDS
from .models import Account, Leg, Posting

__all__ = ["club_player_stats"]


def club_player_stats(club) -> list[dict[str, Any]]:
    """One dict per player on the club's roster, best net first:

    ``player_id``, ``name``, ``sessions`` (sessions seated in), ``hands_played`` (hands
    dealt in), ``hands_passed``, ``pots_won`` (pots taken alone: wins and uncontested
    hands), ``bourres``, ``reneges`` (as found or called, corrected or not), ``net``
    (won − lost at the table over all cash sessions; buy-ins, cash-outs and tournament
    chips excluded) and
    ``biggest_pot`` (the largest pot taken, 0 if none).
    """
    players = list(
        Player.objects.filter(club=club)
        .annotate(sessions=Count("seats__session", distinct=True))
        .values_list("pk", "name", "sessions")
    )
    # Tournament tables play for chips, not money: their legs stay out of nets and pots.
    player_legs = Leg.objects.filter(
        account__club=club, account__kind=Account.Kind.PLAYER, posting__session__chip_limited=False
    )
    nets = dict(
        player_legs.filter(posting__kind__in=TABLE_KINDS)
        .order_by()
        .values("account__player_id")
        .annotate(net=Coalesce(Sum("amount"), 0))
        .values_list("account__player_id", "net")
    )
    pots = {
        pid: (count, biggest)
        for pid, count, biggest in player_legs.filter(
            posting__kind=Posting.Kind.PAYOUT, posting__reversed_by__isnull=True
        )
        .order_by()
        .values("account__player_id")
        .annotate(count=Count("id"), biggest=Max("amount"))
        .values_list("account__player_id", "count", "biggest")
    }

    by_name = {name.lower(): pid for pid, name, _ in players}
    # Keyed by pid_of(): None collects names that match no player.
    counts: dict[int | None, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    hands = Hand.objects.filter(session__club=club, status=Hand.Status.RECORDED).values_list(
        "before__seats",
        "record__players",
        "record__passed",
        "verdict__result__bourre",
        "verdict__reneges",
    )
    for seats, dealt, passed, bourre, reneges in hands:
        seats = seats or {}

        def pid_of(name: str, seats=seats) -> int | None:
            return seats.get(name) or by_name.get(str(name).lower())

        for name in dealt or []:
            counts[pid_of(name)]["hands_played"] += 1
        for name in passed or []:
            counts[pid_of(name)]["hands_passed"] += 1
        for name in bourre or []:
            counts[pid_of(name)]["bourres"] += 1
        for renege in reneges or []:
            counts[pid_of(renege.get("player"))]["reneges"] += 1

    rows = []
    for pid, name, sessions in players:
        won, biggest = pots.get(pid, (0, 0))
        c = counts.get(pid, {})
        rows.append(
            {
                "player_id": pid,
                "name": name,
                "sessions": sessions,
                "hands_played": c.get("hands_played", 0),
                "hands_passed": c.get("hands_passed", 0),
                "pots_won": won,
                "bourres": c.get("bourres", 0),
                "reneges": c.get("reneges", 0),
                "net": nets.get(pid, 0),
                "biggest_pot": biggest or 0,
            }
        )
    rows.sort(key=lambda r: (-r["net"], r["name"].lower()))
    return rows
