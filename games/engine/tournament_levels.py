"""Ante levels and the tournament clock, pure Python (standard library only).

A structure is a list of antes, one per level, with a way to move from one level to the
next: by the clock (``level_minutes``), by hands dealt at each table
(``hands_per_level``), or, in table rounds, by round. Breaks (``break_every`` levels,
``break_minutes`` long) pause the escalation on the clock.

Choices where the issue left room, written down here and tested:

- **The structure never stalls.** Past the last listed level the ante keeps rising: each
  further level is half again the previous one, rounded up, and at least one more
  (``ante_for``). A heads-up game with a rising ante ends: every hand that is not a split
  moves at least one ante, and a player who cannot cover the ante is all in for what they
  have (``ledger.postings``: chip-limited sessions). ``bench/tournament.py`` plays 200
  freeze-outs of 20–100 bots to the end with this rule.
- **The clock** is three values stored on the tournament row, so every server agrees:
  when it started, when it was paused (None while running) and the seconds the director
  added or removed (``adjust``: a positive number jumps ahead). Elapsed time is
  ``(paused_at or now) − started_at + adjustment``, never below zero.
- **A level change applies from the next hand dealt** at each table: a table takes the
  level in force when its previous hand ended (or when it opened).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .tournament_errors import TournamentError

__all__ = [
    "PRESETS",
    "ClockPosition",
    "Preset",
    "ante_for",
    "clock_position",
    "elapsed_seconds",
    "level_schedule",
    "next_break",
]


@dataclass(frozen=True)
class Preset:
    """A structure that is what its label says: a clock of ``level_minutes`` per level
    with its breaks (levels by hands are a custom structure)."""

    label: str
    antes: tuple[int, ...]
    level_minutes: int
    break_every: int
    break_minutes: int


PRESETS: dict[str, Preset] = {
    "turbo": Preset("Turbo (10-min levels)", (1, 2, 3, 5, 8, 12, 20, 30, 50), 10, 0, 0),
    "standard": Preset(
        "Standard (15-min levels, a 10-min break every 4 levels)",
        (1, 2, 3, 4, 6, 8, 10, 15, 20, 30),
        15,
        4,
        10,
    ),
    "deep": Preset(
        "Deep (20-min levels, a 10-min break every 4 levels)",
        (1, 1, 2, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20),
        20,
        4,
        10,
    ),
}


def ante_for(schedule: Sequence[int], level: int) -> int:
    """The ante at 0-based ``level``; past the end it keeps rising by half, rounded up
    (at least +1), so a freeze-out cannot stall on a last level."""
    if not schedule:
        raise TournamentError("The ante schedule is empty.", code="antes")
    level = max(level, 0)
    if level < len(schedule):
        return schedule[level]
    ante = schedule[-1]
    for _ in range(level - len(schedule) + 1):
        ante = max(ante + 1, -(-ante * 3 // 2))
    return ante


@dataclass(frozen=True)
class ClockPosition:
    level: int  # 0-based; during a break, the level that comes after it
    on_break: bool
    seconds_left: int  # in this level or break
    seconds_in: int  # into this level or break
    length: int  # of this level or break, seconds


def level_schedule(
    levels: int, level_minutes: int, break_every: int, break_minutes: int
) -> list[tuple[int, bool, int]]:
    """(level, on_break, seconds) for the first ``levels`` levels with their breaks."""
    out: list[tuple[int, bool, int]] = []
    for level in range(levels):
        out.append((level, False, level_minutes * 60))
        if break_every and break_minutes and (level + 1) % break_every == 0:
            out.append((level + 1, True, break_minutes * 60))
    return out


def clock_position(
    elapsed: int, level_minutes: int, break_every: int = 0, break_minutes: int = 0
) -> ClockPosition:
    """Where a clock of ``elapsed`` seconds stands. Levels last ``level_minutes``; after
    every ``break_every`` levels comes a break of ``break_minutes``. It never runs out:
    past the listed antes the levels go on (see ``ante_for``)."""
    if level_minutes <= 0:
        raise TournamentError("A timed structure needs minutes per level.", code="level_minutes")
    elapsed = max(int(elapsed), 0)
    level_s = level_minutes * 60
    with_breaks = bool(break_every and break_minutes)
    block_levels = break_every if with_breaks else 1
    block_s = block_levels * level_s + (break_minutes * 60 if with_breaks else 0)
    blocks, rest = divmod(elapsed, block_s)
    base = blocks * block_levels
    if rest < block_levels * level_s:
        i, into = divmod(rest, level_s)
        return ClockPosition(base + i, False, level_s - into, into, level_s)
    into = rest - block_levels * level_s
    length = break_minutes * 60
    return ClockPosition(base + block_levels, True, length - into, into, length)


@dataclass(frozen=True)
class NextBreak:
    after_level: int  # 0-based: the break comes when this level ends
    seconds: int  # until it starts
    length: int  # seconds


def next_break(
    elapsed: int, level_minutes: int, break_every: int, break_minutes: int
) -> NextBreak | None:
    """The next break of a timed structure (None without breaks, or during one)."""
    if level_minutes <= 0 or not (break_every and break_minutes):
        return None
    pos = clock_position(elapsed, level_minutes, break_every, break_minutes)
    if pos.on_break:
        return None
    # Levels left before the break after this one ends (this one's rest included).
    after = (pos.level // break_every + 1) * break_every - 1
    seconds = pos.seconds_left + (after - pos.level) * level_minutes * 60
    return NextBreak(after, seconds, break_minutes * 60)


def elapsed_seconds(
    started_at: float | None, paused_at: float | None, adjustment: int, now: float
) -> int:
    """Seconds on the clock from its stored values (POSIX timestamps); 0 before it starts."""
    if started_at is None:
        return 0
    end = paused_at if paused_at is not None else now
    return max(int(end - started_at) + int(adjustment), 0)
