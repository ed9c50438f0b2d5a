"""Bot matches for ``python -m games.engine botmatch`` and ``bench/bots.py``.

:func:`table_match` seats the same bot everywhere (heuristic against heuristic) and
reports, by :func:`hand_class` of the cards dealt, how often the bot plays and what a
player nets per hand (passing nets −1 ante; a hand class the bot plays should net more).
:func:`careful_rates` measures the careful bot's table (``careful_table.py``).
:func:`head_to_head` puts one bot kind in one seat among others on the same deals,
seats rotated, and compares it with the baseline kind in that seat (common random
numbers: the difference is the bot's doing alone).
Every hand starts with an empty pot (no carry): the figures are per hand.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, TypedDict

from .bots import CarefulBot, HeuristicBot, _mask, class_index, declaring_position
from .cards import parse_suit
from .careful_table import Cell
from .contracts import Action, HandResult, SeatView
from .rules import Rules
from .state import HandState

__all__ = [
    "HAND_CLASSES",
    "ClassRow",
    "HeadToHead",
    "MeanErr",
    "TableMatch",
    "hand_class",
    "head_to_head",
    "careful_rates",
    "mean_err",
    "net",
    "table_match",
]

NAMES = ("ann", "ben", "cal", "dee", "eve", "fay", "gus", "hal")

HAND_CLASSES = (
    "no trump",
    "no trump + side ace",
    "one low trump (2-10)",
    "one low trump + side ace",
    "one high trump (J-K)",
    "one high trump + side ace",
    "trump ace alone",
    "two low trumps",
    "two trumps with A or K",
    "three or more trumps",
)


class Bot(Protocol):
    def act(self, view: SeatView) -> Action: ...


class MeanErr(TypedDict):
    """A mean and its standard error."""

    mean: float
    stderr: float


# "class" is a keyword, so this one is spelt the functional way.
ClassRow = TypedDict(
    "ClassRow",
    {
        "class": str,
        "dealt": int,
        "play_rate": float,
        "net_played": float | None,
        "bourre_rate": float | None,
        "net_passed": float | None,
    },
)


class TableMatch(TypedDict):
    """:func:`table_match`'s figures: one row per hand class."""

    hands: int
    players: int
    classes: list[ClassRow]


class HeadToHead(TypedDict):
    """:func:`head_to_head`'s figures: nets per hand of the hero, the baseline and their
    difference, and the hero's decision times."""

    hands: int
    players: int
    hero: MeanErr
    base: MeanErr
    difference: MeanErr
    decisions: int
    p50_ms: float
    p95_ms: float
    max_ms: float
    mean_ms: float


def hand_class(hand: int, trump: int) -> str:
    """The class of a hand as dealt: trump length and rank, side aces."""
    return HAND_CLASSES[class_index(hand, trump)]


def net(result: HandResult, player: str) -> int:
    """Chips a player gained in one hand: taken from the pot minus antes and penalties."""
    gained: int = (
        result["payouts"].get(player, 0)
        - result["antes"].get(player, 0)
        - result["penalties"].get(player, 0)
    )
    return gained


def play_hand(
    seed: int,
    players: Sequence[str],
    dealer: int,
    bots: Mapping[str, Bot],
    rules: Rules,
    timings: list[float] | None = None,
    timed: str | None = None,
    watch: Callable[[HandState], None] | None = None,
) -> tuple[HandState, HandResult]:
    """One hand from ``seed``; ``timings`` collects the CPU seconds ``timed``'s bot took
    per decision; ``watch`` is shown the whole state once it is dealt (bench/bots.py's
    yardstick that sees every hand; never a seat's bot)."""
    state = HandState.new(players, dealer, rules, random.Random(seed))
    if watch is not None:
        watch(state)
    while state.phase != "done":
        player = state.awaiting[0]
        view = state.view_for(player)
        if timings is not None and player == timed:
            # CPU time of this process: what the decision costs on one core, whatever
            # else the machine is running
            start = time.process_time()
            action = bots[player].act(view)
            timings.append(time.process_time() - start)
        else:
            action = bots[player].act(view)
        state.apply(action)
    result = state.outcome()
    assert result is not None  # the hand is done
    return state, result


def table_match(
    hands: int, n_players: int, seed: int, rules: Rules, make_bot: Callable[[str], Bot]
) -> TableMatch:
    """Every seat plays ``make_bot(seed string)``; figures by hand class as dealt."""
    players = NAMES[:n_players]
    rows = {c: {"dealt": 0, "played": 0, "net_played": 0, "bourre": 0, "net_passed": 0}
            for c in HAND_CLASSES}  # fmt: skip
    for i in range(hands):
        hand_seed = seed * 1_000_003 + i
        bots = {p: make_bot(f"{hand_seed}:{p}") for p in players}
        deal = HandState.new(players, i % n_players, rules, random.Random(hand_seed))
        classes = {p: hand_class(deal.hands[s], deal.trump) for s, p in enumerate(players)}
        state, result = play_hand(hand_seed, players, i % n_players, bots, rules)
        passed = set(state.passed())
        for p in players:
            row = rows[classes[p]]
            row["dealt"] += 1
            if p in passed:
                row["net_passed"] += net(result, p)
            else:
                row["played"] += 1
                row["net_played"] += net(result, p)
                row["bourre"] += p in result["bourre"]
    table: list[ClassRow] = []
    for name, row in rows.items():
        played, dealt = row["played"], row["dealt"]
        table.append(
            {
                "class": name,
                "dealt": dealt,
                "play_rate": played / dealt if dealt else 0.0,
                "net_played": row["net_played"] / played if played else None,
                "bourre_rate": row["bourre"] / played if played else None,
                "net_passed": row["net_passed"] / (dealt - played) if dealt > played else None,
            }
        )
    return {"hands": hands, "players": n_players, "classes": table}


def mean_err(values: Sequence[float]) -> MeanErr:
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / max(len(values) - 1, 1)
    return {"mean": mean, "stderr": math.sqrt(var / len(values))}


def head_to_head(
    hands: int,
    n_players: int,
    seed: int,
    rules: Rules,
    make_hero: Callable[[str], Bot],
    make_field: Callable[[str], Bot],
    progress: Callable[[HeadToHead], None] | None = None,
    every: int = 500,
    watch: Callable[[HandState], None] | None = None,
) -> HeadToHead:
    """Deal k puts ``make_hero`` in seat k mod n (the others ``make_field``), then plays
    the same deal with ``make_field`` in that seat too; same seeds for the others, so the
    difference is the hero's alone. Also times the hero's decisions."""
    players = NAMES[:n_players]
    hero_nets: list[float] = []
    base_nets: list[float] = []
    timings: list[float] = []
    for i in range(hands):
        hand_seed = seed * 1_000_003 + i
        hero = players[i % n_players]
        dealer = (i // n_players) % n_players
        for kind in ("hero", "base"):
            bots = {p: make_field(f"{hand_seed}:{p}") for p in players}
            if kind == "hero":
                bots[hero] = make_hero(f"{hand_seed}:{hero}")
            _, result = play_hand(
                hand_seed,
                players,
                dealer,
                bots,
                rules,
                timings if kind == "hero" else None,
                hero,
                watch,
            )
            (hero_nets if kind == "hero" else base_nets).append(net(result, hero))
        if progress is not None and (i + 1) % every == 0 and i + 1 < hands:
            progress(_figures(i + 1, n_players, hero_nets, base_nets, timings))
    return _figures(hands, n_players, hero_nets, base_nets, timings)


def _figures(
    hands: int,
    n_players: int,
    hero_nets: list[float],
    base_nets: list[float],
    timings: list[float],
) -> HeadToHead:
    timings = sorted(timings)

    def pct(q: float) -> float:
        return timings[min(len(timings) - 1, int(q * len(timings)))] * 1000 if timings else 0.0

    return {
        "hands": hands,
        "players": n_players,
        "hero": mean_err(hero_nets),
        "base": mean_err(base_nets),
        "difference": mean_err([h - b for h, b in zip(hero_nets, base_nets, strict=True)]),
        "decisions": len(timings),
        "p50_ms": pct(0.5),
        "p95_ms": pct(0.95),
        "max_ms": timings[-1] * 1000 if timings else 0.0,
        "mean_ms": sum(timings) / len(timings) * 1000 if timings else 0.0,
    }


class _Forced(CarefulBot):
    """Always PLAYs (discarding as the HeuristicBot does) and notes the situation it
    declared in: what :func:`careful_rates` measures."""

    def __init__(self, rng: random.Random, rates: dict[tuple[int, int, int, int], Cell]) -> None:
        super().__init__(rng, rates)
        self.seen: tuple[int, int, int] | None = None

    def declare(self, view: SeatView) -> Action:
        playing, left = declaring_position(view)
        self.seen = (class_index(_mask(view["hand"]), parse_suit(view["trump"])), playing, left)
        return self.play_declared(view)


def careful_rates(
    hands: int,
    n_players: int,
    seed: int,
    rules: Rules,
    rates: dict[tuple[int, int, int, int], Cell] | None,
    min_hands: int = 150,
) -> dict[tuple[int, int, int, int], Cell]:
    """Deal k forces seat k mod n to PLAY among CarefulBots using ``rates`` (None:
    among HeuristicBots, where the measurement starts); returns how
    often that seat took the pot alone and was bourréd, by (players, class, opponents
    already playing, players still to declare), the counts capped at 3, cells of fewer
    than ``min_hands`` left out, plus each class in any position (key ``-1, -1``)."""
    players = NAMES[:n_players]
    counts: dict[tuple[int, int, int, int], list[int]] = {}
    for i in range(hands):
        hand_seed = seed * 1_000_003 + i
        hero = players[i % n_players]
        dealer = (i // n_players) % n_players
        forced = _Forced(random.Random(f"{hand_seed}:{hero}"), rates or {})
        bots: dict[str, Bot] = {
            p: HeuristicBot(random.Random(f"{hand_seed}:{p}"))
            if rates is None
            else CarefulBot(random.Random(f"{hand_seed}:{p}"), rates)
            for p in players
        }
        bots[hero] = forced
        _, result = play_hand(hand_seed, players, dealer, bots, rules)
        if forced.seen is None:
            continue  # the others all passed: the dealer took the pot without declaring
        cls, playing, left = forced.seen
        won = result["winner"] == hero
        bourre = hero in result["bourre"]
        for key in ((n_players, cls, min(playing, 3), min(left, 3)), (n_players, cls, -1, -1)):
            row = counts.setdefault(key, [0, 0, 0])
            row[0] += won
            row[1] += bourre
            row[2] += 1
    return {
        key: (round(w / k, 3), round(b / k, 3), k)
        for key, (w, b, k) in sorted(counts.items())
        if k >= min_hands
    }
