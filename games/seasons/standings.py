"""A season's standings, computed when read (nothing is stored, no money is written).

What counts, in the club's time zone (the season's dates are the club's days):
- every **finished** tournament of the club that started on a day of the season: each
  player with a finishing place earns ``points.points(formula, place, field)``, where the
  field is how many players of that tournament have a finishing place;
- every **closed** home session (a session that is not a tournament's table) that started
  on a day of the season: each player's net won there, in minor units, read from the
  ledger's running totals on the session row (``GameSession.nets``, which
  ``ledger.invariants.check_invariants`` holds to the legs). Open sessions count once
  they are closed: until then their nets still move.

Order and ties, in this order:
1. more tournament points;
2. a better best finish (a lower place; a player with no tournament comes after);
3. more net won at home sessions;
4. still equal: the players share the rank (listed by name).
Each row below a player with the same points says what put it there (``tie``:
``best_finish``, ``net`` or ``shared``), so the order explains itself.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from dataclasses import dataclass, field
from enum import StrEnum

from games import timezones
from games.models import Entry, GameSession, Player, Season, Tournament
from games.seasons.points import Formula, points

__all__ = [
    "CSV_COLUMNS",
    "PublicStanding",
    "Standing",
    "Tie",
    "csv_rows",
    "formula_of",
    "public_rows",
    "standings",
]


class Tie(StrEnum):
    NONE = ""
    BEST_FINISH = "best_finish"
    NET = "net"
    SHARED = "shared"


@dataclass
class Standing:
    player_id: int
    name: str
    rank: int = 0
    points: int = 0
    tournaments: int = 0
    sessions: int = 0
    net: int = 0
    best_place: int | None = None
    # Each tournament's (place, field, points), in the order they started.
    finishes: list[tuple[int, int, int]] = field(default_factory=list)
    tie: Tie = Tie.NONE
    # The player just above, when ``tie`` says why this one is below them.
    above: str = ""

    @property
    def events(self) -> int:
        return self.tournaments + self.sessions


@dataclass(frozen=True)
class PublicStanding:
    """A row as anyone with the season's public link may see it: names and numbers of
    the tournaments only. No player id, no home-session money or attendance; a tie that
    home-session net decided says only ``tie_break``."""

    rank: int
    name: str
    points: int
    tournaments: int
    best_place: int | None
    tie: str
    above: str


def public_rows(rows: list[Standing]) -> list[PublicStanding]:
    """What the public page (and a public API) shows of ``standings(season)``."""
    return [
        PublicStanding(
            rank=r.rank,
            name=r.name,
            points=r.points,
            tournaments=r.tournaments,
            best_place=r.best_place,
            tie="tie_break" if r.tie == Tie.NET else r.tie.value,
            above=r.above,
        )
        for r in rows
    ]


def formula_of(season: Season) -> Formula:
    return Formula(
        scale=season.points_scale,
        field_exponent=season.field_exponent,
        place_exponent=season.place_exponent,
        points_for_playing=season.points_for_playing,
    )


def _bounds(season: Season) -> tuple[datetime.datetime, datetime.datetime]:
    """The season's first moment and the moment after its last day, in the club's zone."""
    tz = timezones.zone(season.club.time_zone)
    start = datetime.datetime.combine(season.starts_on, datetime.time(), tzinfo=tz)
    end = datetime.datetime.combine(
        season.ends_on + datetime.timedelta(days=1), datetime.time(), tzinfo=tz
    )
    return start, end


def standings(season: Season) -> list[Standing]:
    """Every player who played in the season, ranked. Four reads: the tournaments'
    places, the sessions' nets, the players' names (and the season's club, if not loaded)."""
    start, end = _bounds(season)
    formula = formula_of(season)
    rows: dict[int, Standing] = {}

    def row(player_id: int) -> Standing:
        if player_id not in rows:
            rows[player_id] = Standing(player_id=player_id, name="")
        return rows[player_id]

    places = (
        Entry.objects.filter(
            tournament__club_id=season.club_id,
            tournament__status=Tournament.Status.FINISHED,
            tournament__started_at__gte=start,
            tournament__started_at__lt=end,
            place__isnull=False,
        )
        .order_by("tournament__started_at", "tournament_id")
        .values_list("tournament_id", "player_id", "place")
    )
    by_tournament: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for tournament_id, player_id, place in places:
        assert place is not None  # filtered above
        by_tournament[tournament_id].append((player_id, place))
    for finishes in by_tournament.values():
        size = len(finishes)
        for player_id, place in finishes:
            earned = points(formula, place, size)
            r = row(player_id)
            r.points += earned
            r.tournaments += 1
            r.finishes.append((place, size, earned))
            r.best_place = place if r.best_place is None else min(r.best_place, place)

    nets = GameSession.objects.filter(
        club_id=season.club_id,
        chip_limited=False,
        status=GameSession.Status.CLOSED,
        created_at__gte=start,
        created_at__lt=end,
    ).values_list("nets", flat=True)
    for session_nets in nets:
        for key, amount in session_nets.items():
            r = row(int(key))
            r.sessions += 1
            r.net += amount

    names = dict(Player.objects.filter(pk__in=rows).values_list("pk", "name"))
    for player_id, r in rows.items():
        r.name = names.get(player_id, "?")
    return _ranked(list(rows.values()))


def _key(r: Standing) -> tuple[int, float, int]:
    best = float("inf") if r.best_place is None else float(r.best_place)
    return (-r.points, best, -r.net)


def _ranked(rows: list[Standing]) -> list[Standing]:
    rows.sort(key=lambda r: (_key(r), r.name.casefold(), r.player_id))
    for i, r in enumerate(rows):
        r.rank = i + 1
        if i == 0:
            continue
        prev = rows[i - 1]
        if prev.points != r.points:
            continue
        r.above = prev.name
        if prev.best_place != r.best_place:
            r.tie = Tie.BEST_FINISH
        elif prev.net != r.net:
            r.tie = Tie.NET
        else:
            r.tie = Tie.SHARED
            r.rank = prev.rank
    return rows


# The CSV (games.seasons.views.standings_csv): one row per player, in rank order.
# ``points`` is the sum of ``tournament_points`` over the player's finishes (each one
# points.points(formula, place, field)); ``net_won`` is the sum of the player's nets over
# the season's closed home sessions, in the currency's major unit ("12.50"), so the column
# sums to the season's home-session total (zero when every player's session is counted:
# a session's nets sum to zero). ``events`` = ``tournaments`` + ``sessions``.
CSV_COLUMNS = (
    "rank",
    "player_id",
    "player",
    "points",
    "tournaments",
    "sessions",
    "events",
    "best_place",
    "net_won",
    "currency",
    "tie",
)


def csv_rows(season: Season, rows: list[Standing]) -> list[list[object]]:
    from ledger.exports import major

    cur = season.club.currency
    return [
        [
            r.rank,
            r.player_id,
            r.name,
            r.points,
            r.tournaments,
            r.sessions,
            r.events,
            r.best_place if r.best_place is not None else "",
            major(r.net, cur),
            cur.code,
            r.tie.value,
        ]
        for r in rows
    ]
