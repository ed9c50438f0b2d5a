"""Tournament logic, pure Python (standard library only, never imports Django).

Everything random takes a *seed string* that the tournament stores and shows, so a draw
can be checked by anyone and redone exactly: ``rng_for(seed, *salt)`` is
``random.Random("seed:salt…")``, and seeding ``random.Random`` with a string is stable
across Python versions and platforms (it hashes the string with SHA-512).

Choices where the issue left room, written down here and tested:

- Table sizes: the number of tables is the fewest that respects ``max_size``; sizes differ
  by at most one (``table_sizes``). ``max_size`` and "within one" are hard limits; the
  minimum is met wherever the numbers allow it. In table rounds a field that cannot be
  split into tables of ``min_size``..``max_size`` gives the fewest possible *byes*; byes go
  to the best-ranked players (the previous round's order; in round one, the seeded draw),
  who advance without playing. A field that fits one table (≤ ``max_size``) is the final.
- Provably fair draw: the seed is made when the tournament is created and only its
  SHA-256 ``commitment`` is shown; it is revealed at the first draw. Every draw and
  balancing step derives from it, so anyone can redo them from the seed and the entry list.
- Seat draw: the entrants are sorted and then shuffled with the seed, so the result does
  not depend on the order they were registered in. In later rounds each player goes to the
  table where they have met the fewest players before, then pairs are swapped between
  tables while that lowers the number of repeat meetings. Seats at each table are shuffled
  last; the first seat deals first.
- Balancing (freeze-out): a table below ``min_size`` breaks when the other tables have room
  for its players (the smallest table breaks first, ties: the highest table number); its
  players, in seeded random order, each go to the table with the fewest players (ties: the
  lowest number). Then, while two tables differ by more than one, a player drawn at random
  (not one who was just moved in, nor one moved by the previous balancing step unless
  nobody else sits there) moves from the largest table to the smallest. Tables
  named in ``held`` (a hand may be being played there) neither break nor give up players
  until they are free; tables in ``keep`` (a pot not yet won, RULES.md T1 ``move``) may
  break but give nobody for balancing; nobody joins a table in ``closed`` (T1
  ``play_out``: a short table playing out its pot). Which tables are which, and how a
  broken table's pot is shared: ``tournament_breaks``.
- Advancement: rank by chips, then (setting) pots won, then a recorded draw; a player with
  no chips left never advances.
- Places: a higher key finishes higher; equal keys share a place ("1, 2, 2, 4") and share
  the prizes of the places they cover.
- Prize money (integer minor units): each paid place gets ``pool × weight // total``
  rounded down to the payout unit; the units left over go one each to the highest places
  (1st, then 2nd, …), anything below one unit to 1st (``tournament_payouts``). Players sharing a
  place split the sum of the prizes of the places they cover equally; the units left over
  go one each to the tied players in their listed order (the service lists them by the
  recorded draw).
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from . import tournament_levels, tournament_payouts
from .tournament_errors import TournamentError

__all__ = [
    "DEFAULT_MAX_SIZE",
    "DEFAULT_MIN_SIZE",
    "BalancePlan",
    "Move",
    "RankedRow",
    "RoundDraw",
    "RoundPlan",
    "TournamentError",
    "advancing",
    "ante_for",
    "ante_level",
    "check_limits",
    "commitment",
    "default_payout_percentages",
    "draw_round",
    "draw_tables",
    "finishing_places",
    "new_seed",
    "plan_balance",
    "plan_round",
    "prize_amounts",
    "prizes_by_place",
    "rank_table",
    "repeat_meetings",
    "rng_for",
    "seeded_order",
    "table_sizes",
    "validate_payout_percentages",
]

DEFAULT_MIN_SIZE = 4
DEFAULT_MAX_SIZE = 7
# Bourré is played by 2 to 8 players (R3).
SMALLEST_TABLE = 2
LARGEST_TABLE = 8


# -- randomness ----------------------------------------------------------------------------


def new_seed() -> str:
    """A fresh seed from a secure source (128 bits), made when the tournament is created;
    only its commitment is shown until the first draw."""
    return secrets.token_hex(16)


def commitment(seed: str) -> str:
    """The SHA-256 of the seed (hex), published before anyone registers: once the seed is
    revealed, anyone can check it is the one promised."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def rng_for(seed: str, *salt: object) -> random.Random:
    """The RNG of one decision (``salt`` names it: "draw", round number, table…)."""
    return random.Random(":".join([seed, *(str(s) for s in salt)]))


# -- table sizes and rounds ----------------------------------------------------------------


def check_limits(min_size: int, max_size: int) -> None:
    if not SMALLEST_TABLE <= min_size <= max_size <= LARGEST_TABLE:
        raise TournamentError(
            f"Table sizes must satisfy {SMALLEST_TABLE} ≤ minimum ≤ maximum ≤ "
            f"{LARGEST_TABLE} (Bourré seats 2 to 8 players, R3).",
            code="table_size",
            params={"smallest": SMALLEST_TABLE, "largest": LARGEST_TABLE},
        )


def table_sizes(
    n: int, min_size: int = DEFAULT_MIN_SIZE, max_size: int = DEFAULT_MAX_SIZE
) -> list[int]:
    """Sizes of the fewest tables of at most ``max_size`` for ``n`` players, largest first,
    differing by at most one. The minimum is not enforced here (see ``plan_round``)."""
    check_limits(min_size, max_size)
    if n < SMALLEST_TABLE:
        raise TournamentError(
            "A table needs at least two players.", code="too_few", message_id="table_too_few"
        )
    tables = -(-n // max_size)
    base, extra = divmod(n, tables)
    return [base + 1] * extra + [base] * (tables - extra)


@dataclass(frozen=True)
class RoundPlan:
    sizes: list[int]
    byes: int
    final: bool


def plan_round(n: int, min_size: int, max_size: int) -> RoundPlan:
    """How a round of ``n`` players is seated: one final table when they fit at one,
    otherwise tables within the limits after the fewest byes."""
    check_limits(min_size, max_size)
    if n < SMALLEST_TABLE:
        raise TournamentError(
            "A round needs at least two players.", code="too_few", message_id="round_too_few"
        )
    if n <= max_size:
        return RoundPlan([n], 0, True)
    for byes in range(n - min_size + 1):
        sizes = table_sizes(n - byes, min_size, max_size)
        if sizes[-1] >= min_size:
            return RoundPlan(sizes, byes, False)
    raise AssertionError("unreachable: one table of min_size always fits")  # pragma: no cover


def repeat_meetings(tables: Iterable[Sequence[int]], met: Mapping[int, Collection[int]]) -> int:
    """How many pairs seated together have already shared a table."""
    count = 0
    for table in tables:
        for i, p in enumerate(table):
            seen = met.get(p, ())
            count += sum(1 for q in table[i + 1 :] if q in seen)
    return count


def draw_tables(
    players: Sequence[int],
    seed: str,
    sizes: Sequence[int],
    *,
    met: Mapping[int, Collection[int]] | None = None,
    salt: object = "",
) -> list[list[int]]:
    """Seat ``players`` at tables of the given ``sizes``; each inner list is one table in
    seat order. Same players (in any order), seed, sizes and ``met`` → same tables."""
    order = sorted(players)
    if len(set(order)) != len(order):
        raise TournamentError("A player can only be drawn once.", code="duplicate")
    if sum(sizes) != len(order):
        raise TournamentError("Table sizes do not add up to the players.", code="sizes")
    rng = rng_for(seed, "draw", salt)
    rng.shuffle(order)
    if met:
        tables = _seat_avoiding(order, sizes, {p: set(met.get(p, ())) for p in order})
    else:
        tables, start = [], 0
        for size in sizes:
            tables.append(order[start : start + size])
            start += size
    for table in tables:
        rng.shuffle(table)
    return tables


def _seat_avoiding(
    order: list[int], sizes: Sequence[int], met: dict[int, set[int]]
) -> list[list[int]]:
    members: list[set[int]] = [set() for _ in sizes]
    room = list(sizes)
    table_of: dict[int, int] = {}
    for p in order:
        seen = met[p]
        best = min(
            (i for i in range(len(sizes)) if room[i]),
            key=lambda i: (len(members[i] & seen), -room[i], i),
        )
        members[best].add(p)
        room[best] -= 1
        table_of[p] = best

    def cost(p: int, table: int, without: int) -> int:
        seen = met[p]
        return sum(1 for q in members[table] if q != without and q != p and q in seen)

    # Swap pairs between tables while that lowers repeat meetings; bounded passes keep a
    # large field fast (a pass only looks at players who still meet someone again).
    for _ in range(8):
        improved = False
        for p in order:
            a = table_of[p]
            here_p = cost(p, a, p)
            if not here_p:
                continue
            best_gain, best_q = 0, None
            for q in order:
                b = table_of[q]
                if b == a:
                    continue
                gain = here_p + cost(q, b, q) - cost(p, b, q) - cost(q, a, p)
                if gain > best_gain:
                    best_gain, best_q = gain, q
            if best_q is not None:
                b = table_of[best_q]
                members[a].remove(p)
                members[b].remove(best_q)
                members[a].add(best_q)
                members[b].add(p)
                table_of[p], table_of[best_q] = b, a
                improved = True
        if not improved:
            break
    # Keep the seeded order within each table (the caller shuffles seats afterwards).
    tables: list[list[int]] = [[] for _ in sizes]
    for p in order:
        tables[table_of[p]].append(p)
    return tables


@dataclass(frozen=True)
class RoundDraw:
    tables: list[list[int]]
    byes: list[int]
    final: bool


def draw_round(
    ranked: Sequence[int],
    seed: str,
    min_size: int,
    max_size: int,
    *,
    met: Mapping[int, Collection[int]] | None = None,
    round_no: int = 1,
) -> RoundDraw:
    """Draw one round of table rounds. ``ranked`` lists the players best first (byes go
    to the top); in round one pass ``seeded_order(players, seed)``."""
    plan = plan_round(len(ranked), min_size, max_size)
    byes = list(ranked[: plan.byes])
    playing = list(ranked[plan.byes :])
    tables = draw_tables(playing, seed, plan.sizes, met=met, salt=round_no)
    return RoundDraw(tables, byes, plan.final)


def seeded_order(players: Iterable[int], seed: str, salt: object = "") -> list[int]:
    order = sorted(players)
    rng_for(seed, "order", salt).shuffle(order)
    return order


# -- balancing (freeze-out) ----------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    player: int
    source: int
    target: int
    reason: str  # "break" or "balance"


@dataclass(frozen=True)
class BalancePlan:
    moves: list[Move]
    broken: list[int]
    tables: dict[int, list[int]]  # the tables afterwards (broken ones left out)


# radon D: one balancing step (break, then even out) whose moves depend on each other
def plan_balance(
    tables: Mapping[int, Sequence[int]],
    min_size: int,
    max_size: int,
    rng: random.Random,
    *,
    held: Collection[int] = (),
    avoid: Collection[int] = (),
    keep: Collection[int] = (),
    closed: Collection[int] = (),
) -> BalancePlan:
    """Break tables below ``min_size`` and even out the rest (see the module docstring).
    ``tables`` maps table number → players still in, in seat order. ``avoid``: players
    moved by the previous balancing step; a balancing move picks someone else whenever
    the source table has anyone else (nobody is moved twice in a row by choice).
    ``keep``: tables that may break (T1 ``move``: their pot goes with their players) but
    give up nobody for balancing (their pot is not yet won); ``closed``: tables nobody
    joins (T1 ``play_out``: a short table playing out its pot)."""
    check_limits(min_size, max_size)
    seats = {t: list(ps) for t, ps in tables.items()}
    moves: list[Move] = []
    broken: list[int] = []
    moved_in: set[int] = set()
    while len(seats) > 1:
        small = [t for t, ps in seats.items() if len(ps) < min_size and t not in held]
        if not small:
            break
        victim = min(small, key=lambda t: (len(seats[t]), -t))
        others = [t for t in seats if t != victim and t not in closed]
        room = sum(max_size - len(seats[t]) for t in others)
        if not others or len(seats[victim]) > room:
            break
        players = seats.pop(victim)
        rng.shuffle(players)
        for p in players:
            target = min(others, key=lambda t: (len(seats[t]), t))
            seats[target].append(p)
            moves.append(Move(p, victim, target, "break"))
            moved_in.add(p)
        broken.append(victim)
    while len(seats) > 1:
        open_ = [t for t in seats if t not in closed]
        if not open_:
            break
        smallest = min(len(seats[t]) for t in open_)
        sources = [
            t
            for t, ps in seats.items()
            if len(ps) >= smallest + 2 and t not in held and t not in keep
        ]
        if not sources:
            break
        source = min(sources, key=lambda t: (-len(seats[t]), t))
        target = min(open_, key=lambda t: (len(seats[t]), t))
        candidates = (
            [p for p in seats[source] if p not in moved_in and p not in avoid]
            or [p for p in seats[source] if p not in moved_in]
            or seats[source]
        )
        p = rng.choice(candidates)
        seats[source].remove(p)
        seats[target].append(p)
        moves.append(Move(p, source, target, "balance"))
        moved_in.add(p)
    return BalancePlan(moves, broken, seats)


# -- advancement, places ------------------------------------------------------------------


@dataclass(frozen=True)
class RankedRow:
    player: int
    chips: int
    pots_won: int
    draw: int  # the recorded draw: 1 is best
    rank: int  # 1-based position at the table


def rank_table(
    rows: Iterable[tuple[int, int, int]],
    seed: str,
    *,
    salt: object = "",
    tiebreak: str = "pots",
) -> list[RankedRow]:
    """Rank (player, chips, pots_won) rows: chips, then pots won (``tiebreak="pots"``;
    ``"draw"`` skips it), then a draw recorded for every player."""
    if tiebreak not in ("pots", "draw"):
        raise TournamentError(
            f"Unknown tie-break {tiebreak!r}.", code="tiebreak", params={"tiebreak": tiebreak}
        )
    rows = sorted(rows)
    numbers = list(range(1, len(rows) + 1))
    rng_for(seed, "tiebreak", salt).shuffle(numbers)
    keyed = [
        (-chips, -pots if tiebreak == "pots" else 0, draw, player, chips, pots)
        for (player, chips, pots), draw in zip(rows, numbers, strict=True)
    ]
    keyed.sort()
    return [
        RankedRow(player, chips, pots, draw, i + 1)
        for i, (_, _, draw, player, chips, pots) in enumerate(keyed)
    ]


def advancing(ranked: Sequence[RankedRow], k: int) -> list[int]:
    """The top ``k``; a player with no chips left never advances."""
    return [row.player for row in ranked if row.chips > 0][:k]


def finishing_places(rows: Iterable[tuple[int, tuple[int, ...]]]) -> list[tuple[int, int]]:
    """(player, key) → [(place, player)], best first. A higher key finishes higher; equal
    keys share a place and the next place skips ("1, 2, 2, 4")."""
    ordered = sorted(rows, key=lambda row: row[1], reverse=True)
    out: list[tuple[int, int]] = []
    place = 0
    previous: tuple[int, ...] | None = None
    for i, (player, key) in enumerate(ordered):
        if key != previous:
            place = i + 1
            previous = key
        out.append((place, player))
    return out


# -- antes ----------------------------------------------------------------------------------


def ante_level(hands_per_level: int, round_no: int, hands_played: int) -> int:
    """0-based level: per round when ``hands_per_level`` is 0, else every N hands."""
    if hands_per_level <= 0:
        return max(round_no - 1, 0)
    return hands_played // hands_per_level


def ante_for(schedule: Sequence[int], level: int) -> int:
    """The ante at ``level``; past the end of the schedule it keeps rising
    (``tournament_levels.ante_for``: a freeze-out never stalls on its last level)."""
    if not schedule:
        raise TournamentError("The ante schedule is empty.", code="antes")
    return tournament_levels.ante_for(schedule, level)


# -- payouts --------------------------------------------------------------------------------

# (fewest entrants, percentages by place): sensible defaults by field size.
DEFAULT_PAYOUTS: list[tuple[int, list[int]]] = [
    (2, [100]),
    (5, [65, 35]),
    (8, [50, 30, 20]),
    (16, [45, 27, 17, 11]),
    (30, [40, 25, 16, 11, 8]),
    (50, [36, 22, 15, 11, 9, 7]),
    (100, [30, 20, 14, 10, 8, 7, 6, 5]),
]


def default_payout_percentages(entrants: int) -> list[int]:
    chosen = DEFAULT_PAYOUTS[0][1]
    for fewest, percentages in DEFAULT_PAYOUTS:
        if entrants >= fewest:
            chosen = percentages
    return list(chosen)


def validate_payout_percentages(percentages: Sequence[int], entrants: int | None = None) -> None:
    if not percentages:
        raise TournamentError("Pay at least one place.", code="payouts", message_id="pay_one_place")
    if any(type(p) is not int or p <= 0 for p in percentages):
        raise TournamentError(
            "Each paid place needs a whole percentage above 0.",
            "payouts",
            message_id="payout_percent_positive",
        )
    if sum(percentages) != 100:
        raise TournamentError(
            f"The percentages add up to {sum(percentages)}, not 100.",
            code="payouts",
            params={"sum": sum(percentages)},
            message_id="payout_percent_sum",
        )
    if any(a < b for a, b in zip(percentages, percentages[1:], strict=False)):
        raise TournamentError(
            "A lower place cannot pay more than a higher one.",
            "payouts",
            message_id="payout_order",
        )
    if entrants is not None and len(percentages) > entrants:
        raise TournamentError(
            f"{len(percentages)} places are paid but only {entrants} players entered.",
            code="payouts",
            params={"places": len(percentages), "entrants": entrants},
            message_id="payout_too_many_places",
        )


def prize_amounts(pool: int, percentages: Sequence[int], unit: int = 1) -> list[int]:
    """Prize per place (minor units), by weight (percentages or basis points), rounded
    down to ``unit``; leftover units to the top places (``tournament_payouts``)."""
    if pool < 0:
        raise TournamentError("The prize pool cannot be negative.", code="pool")
    return tournament_payouts.prize_amounts(pool, percentages, unit)


def prizes_by_place(
    pool: int, percentages: Sequence[int], places: Sequence[tuple[int, int]], unit: int = 1
) -> dict[int, int]:
    """player → prize, from ``finishing_places`` output (ties share)."""
    amounts = prize_amounts(pool, percentages, unit)
    if len(places) < len(amounts):
        raise TournamentError(
            "Fewer finishers than paid places.", code="payouts", message_id="payout_few_finishers"
        )
    prizes: dict[int, int] = {}
    i = 0
    while i < len(places):
        place = places[i][0]
        tied = [player for pl, player in places[i:] if pl == place]
        start = place - 1
        total = sum(amounts[start : start + len(tied)])
        share, rest = divmod(total, len(tied))
        for j, player in enumerate(tied):
            prizes[player] = share + (1 if j < rest else 0)
        i += len(tied)
    return prizes
