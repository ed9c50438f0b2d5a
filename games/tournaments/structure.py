"""The level structure as a table (issue #35, item 2): what the director reads on the
settings form before Create, and the wall screen's next levels and next break.

Rows are computed from the settings alone (antes, minutes or hands per level, breaks),
with ``games.engine.tournament_levels`` doing the arithmetic, so the table, the clock and
the tables agree. Past the listed antes the levels go on rising by half (``ante_for``):
the table shows the listed ones and says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.engine import tournament_levels as levels
from games.tournaments.service import FREEZEOUT_HANDS_PER_LEVEL

__all__ = ["LevelRow", "StructureSettings", "from_data", "rows"]

# The settings form's fields the table is made from.
FIELDS = (
    "format",
    "structure_preset",
    "antes_text",
    "level_minutes",
    "hands_per_level",
    "break_every",
    "break_minutes",
)
# Enough rows for any sensible schedule; a longer pasted list is cut (the form says so).
MOST_ROWS = 40


@dataclass(frozen=True)
class StructureSettings:
    antes: tuple[int, ...]
    level_minutes: int
    hands_per_level: int
    break_every: int
    break_minutes: int
    by_round: bool = False


@dataclass(frozen=True)
class LevelRow:
    """One level, or a break (``is_break``: ``minutes`` long, ``level`` the one after)."""

    level: int  # 1-based
    is_break: bool
    ante: int
    minutes: int  # 0: not timed
    hands: int  # 0: not by hands
    starts: str  # "1:15" into the clock ("" when not timed)


def _clock(seconds: int) -> str:
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}"


def rows(s: StructureSettings, count: int | None = None) -> list[LevelRow]:
    """The listed levels (or ``count`` of them) with the breaks between them."""
    if not s.antes:
        return []
    n = min(count if count is not None else len(s.antes), MOST_ROWS)
    out: list[LevelRow] = []
    at = 0
    for level in range(n):
        ante = levels.ante_for(s.antes, level)
        timed = s.level_minutes > 0
        hands = 0 if timed or s.by_round else s.hands_per_level
        out.append(
            LevelRow(level + 1, False, ante, s.level_minutes, hands, _clock(at) if timed else "")
        )
        at += s.level_minutes * 60
        if timed and s.break_every and s.break_minutes and (level + 1) % s.break_every == 0:
            if level + 1 < n:
                out.append(LevelRow(level + 2, True, 0, s.break_minutes, 0, _clock(at)))
            at += s.break_minutes * 60
    return out


def _number(data: Any, name: str) -> int:
    try:
        return max(int(str(data.get(name) or 0).strip() or 0), 0)
    except ValueError:
        return 0


def from_data(data: Any) -> StructureSettings:
    """The structure a settings form's fields describe (a preset's own when one is
    chosen, as the service applies it); unreadable numbers count as 0."""
    preset = levels.PRESETS.get(str(data.get("structure_preset") or ""))
    if preset is not None:
        return StructureSettings(
            preset.antes, preset.level_minutes, 0, preset.break_every, preset.break_minutes
        )
    antes: list[int] = []
    for part in str(data.get("antes_text") or "").replace(",", " ").split():
        if not part.isdigit() or int(part) <= 0:
            return StructureSettings((), 0, 0, 0, 0)
        antes.append(int(part))
    minutes, hands = _number(data, "level_minutes"), _number(data, "hands_per_level")
    by_round = str(data.get("format") or "") == "rounds"
    if not by_round and not minutes and not hands:
        hands = FREEZEOUT_HANDS_PER_LEVEL  # what the service sets (service.create_tournament)
    return StructureSettings(
        tuple(antes[:MOST_ROWS]),
        minutes,
        hands,
        _number(data, "break_every"),
        _number(data, "break_minutes"),
        by_round=by_round and not minutes and not hands,
    )
