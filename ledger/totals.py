"""The players' club totals counted the long way, from the ledger and the hands.

``PlayerTotals`` rows are kept by ``ledger.postings`` as hands are recorded and voided;
this module recounts them from scratch (a constant number of queries, but a cost that
grows with the club's whole history), for ``ledger.invariants.check_player_totals``, the
books check, and the backfill of migration ``ledger 0006``.
"""

from __future__ import annotations

from collections import defaultdict

from django.apps.registry import Apps
from django.db.models import Count, Max, Sum
from django.db.models.functions import Coalesce

from .books import TABLE_KINDS
from .models import Account, PlayerTotals, Posting

__all__ = ["recount_player_totals"]


def recount_player_totals(club_id: int, apps: Apps | None = None) -> dict[int, dict[str, int]]:
    """player id → {counter: value} for every player on the club's roster
    (``PlayerTotals.COUNTERS``), summed from the legs of live postings and the recorded
    hands' records and verdicts (voided hands count for nothing). ``apps``: a migration's
    historical models (the backfill), else the current ones."""
    if apps is not None:
        Player = apps.get_model("games", "Player")  # noqa: N806 (a model class)
        Hand = apps.get_model("games", "Hand")  # noqa: N806
        Leg = apps.get_model("ledger", "Leg")  # noqa: N806
    else:
        from games.models import Hand, Player
        from ledger.models import Leg
    players = list(
        Player.objects.filter(club_id=club_id)
        .annotate(sessions=Count("seats__session", distinct=True))
        .values_list("pk", "name", "sessions")
    )
    # Tournament tables play for chips, not money: their legs stay out of nets and pots.
    player_legs = Leg.objects.filter(
        account__club_id=club_id,
        account__kind=Account.Kind.PLAYER,
        posting__session__chip_limited=False,
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
    hands = Hand.objects.filter(session__club_id=club_id, status="recorded")
    for seats, dealt, passed, bourre, reneges in hands.values_list(
        "before__seats",
        "record__players",
        "record__passed",
        "verdict__result__bourre",
        "verdict__reneges",
    ):
        seats = seats or {}

        def pid_of(name: str, seats: dict[str, int] = seats) -> int | None:
            return seats.get(name) or by_name.get(str(name).lower())

        for name in dealt or []:
            counts[pid_of(name)]["hands_played"] += 1
        for name in passed or []:
            counts[pid_of(name)]["hands_passed"] += 1
        for name in bourre or []:
            counts[pid_of(name)]["bourres"] += 1
        for renege in reneges or []:
            counts[pid_of(renege.get("player"))]["reneges"] += 1

    out: dict[int, dict[str, int]] = {}
    for pid, _, sessions in players:
        won, biggest = pots.get(pid, (0, 0))
        row = dict.fromkeys(PlayerTotals.COUNTERS, 0)
        row.update(counts.get(pid, {}))
        row.update(net=nets.get(pid, 0), pots_won=won, biggest_pot=biggest or 0, sessions=sessions)
        out[pid] = row
    return out
