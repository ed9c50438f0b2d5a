"""The tournament clock and the level in force.

The clock is stored on the tournament row (``clock_started_at``, ``clock_paused_at``,
``clock_adjust``) so every server and worker computes the same time; pages tick in
JavaScript from the server's timestamp (``static/js/clock.js``). The arithmetic is pure
(``games.engine.tournament_levels``); this module reads the row and, for the director's
buttons, writes it under the tournament row lock.

Which level a table plays: by the clock when levels are timed, else by the table's own
hands (``hands_per_level``), else by round (table rounds). A table takes the level in
force when its previous hand ended (``tables._update_ante``): a change applies from the
next hand dealt there.

During a scheduled break (``table_break``) every table's record form says so, and a hand
recorded then asks for one confirmation (``games.sessions.views``; the API's hand
recording answers 409 ``during_break`` unless its body says ``"during_break": true``:
``refuse_during_break``). The wall screen shows
the next break and the next three levels (``clock_state``: ``next_break``, ``upcoming``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games.engine import tournament_levels as levels
from games.engine.tournament import TournamentError
from games.models import Tournament, TournamentTable
from games.tournaments.locks import locked

__all__ = [
    "BreakNotice",
    "clock_action",
    "clock_state",
    "elapsed",
    "refuse_during_break",
    "table_break",
    "tournament_level",
]

ACTIONS = ("start", "pause", "resume", "adjust")


def elapsed(t: Tournament, now: datetime | None = None) -> int:
    now = now or timezone.now()
    return levels.elapsed_seconds(
        t.clock_started_at.timestamp() if t.clock_started_at else None,
        t.clock_paused_at.timestamp() if t.clock_paused_at else None,
        t.clock_adjust,
        now.timestamp(),
    )


def _raw_elapsed(t: Tournament, now: datetime) -> int:
    assert t.clock_started_at is not None
    end = t.clock_paused_at or now
    return int((end - t.clock_started_at).total_seconds())


def clock_level(t: Tournament, now: datetime | None = None) -> int | None:
    """The 0-based level on the clock, or None when levels are not timed."""
    if t.level_minutes <= 0:
        return None
    return levels.clock_position(
        elapsed(t, now), t.level_minutes, t.break_every, t.break_minutes
    ).level


def table_level(t: Tournament, round_no: int, hands_played: int) -> int:
    """The level a table plays its next hand at."""
    on_clock = clock_level(t)
    if on_clock is not None:
        return on_clock
    if t.hands_per_level > 0:
        return hands_played // t.hands_per_level
    return max(round_no - 1, 0)


def tournament_level(t: Tournament) -> int:
    """The tournament's level (0-based): the clock's, or the furthest table's."""
    on_clock = clock_level(t)
    if on_clock is not None:
        return on_clock
    rnd = t.rounds.order_by("-number").first()
    if rnd is None:
        return 0
    if t.hands_per_level <= 0:
        return rnd.number - 1
    hands = (
        TournamentTable.objects.filter(tournament=t, round=rnd)
        .values_list("session__hands_count", flat=True)
        .order_by("-session__hands_count")
        .first()
    )
    return (hands or 0) // t.hands_per_level


def clock_state(t: Tournament, now: datetime | None = None) -> dict[str, Any]:
    """What the clock shows: level (1-based), ante, next ante, break, seconds left, the
    next break and the next three levels, and the server time it was computed at (the
    page ticks from it)."""
    now = now or timezone.now()
    level = tournament_level(t)
    out: dict[str, Any] = {
        "timed": t.level_minutes > 0,
        "running": bool(t.clock_started_at and not t.clock_paused_at),
        "started": t.clock_started_at is not None,
        "paused": t.clock_paused_at is not None,
        "level": level + 1,
        "ante": levels.ante_for(t.antes, level),
        "next_ante": levels.ante_for(t.antes, level + 1),
        "on_break": False,
        "seconds_left": None,
        "display": "",
        "server_time": int(now.timestamp() * 1000),
        "by": "minutes" if t.level_minutes > 0 else "hands" if t.hands_per_level else "round",
        "hands_per_level": t.hands_per_level,
    }
    # The next three levels (the wall screen's "coming up"): their antes and length.
    out["upcoming"] = [
        {
            "level": n + 1,
            "ante": levels.ante_for(t.antes, n),
            "minutes": t.level_minutes,
            "hands": 0 if t.level_minutes > 0 else t.hands_per_level,
        }
        for n in range(level + 1, level + 4)
    ]
    out["next_break"] = None
    if t.level_minutes > 0:
        seconds = elapsed(t, now)
        pos = levels.clock_position(seconds, t.level_minutes, t.break_every, t.break_minutes)
        out["on_break"] = pos.on_break
        out["seconds_left"] = pos.seconds_left
        out["length"] = pos.length
        out["display"] = f"{pos.seconds_left // 60}:{pos.seconds_left % 60:02d}"
        coming = levels.next_break(seconds, t.level_minutes, t.break_every, t.break_minutes)
        if coming is not None:
            out["next_break"] = {
                "after_level": coming.after_level + 1,
                "seconds": coming.seconds,
                # Beyond this level's rest: the page adds it to the ticking clock.
                "plus": coming.seconds - pos.seconds_left,
                "display": f"{coming.seconds // 60}:{coming.seconds % 60:02d}",
                "minutes": coming.length // 60,
            }
    return out


@dataclass(frozen=True)
class BreakNotice:
    """A scheduled break at a table's tournament, for its record form."""

    tournament: str
    next_level: int  # 1-based: the level play resumes at
    display: str  # time left in the break, "7:30"


def table_break(session_id: int) -> BreakNotice | None:
    """The break the tournament of this table is on now (None when playing or not a
    tournament table). A hand recorded during it asks for one confirmation (the record
    form's checkbox, checked again on the server: games.sessions.views)."""
    t = Tournament.objects.filter(
        tables__session_id=session_id, status=Tournament.Status.RUNNING, level_minutes__gt=0
    ).first()
    if t is None:
        return None
    state = clock_state(t)
    if not state["on_break"]:
        return None
    return BreakNotice(t.name, state["level"], state["display"])


def refuse_during_break(session_id: int) -> None:
    """The API's one confirmation (the record form's checkbox, in API terms): a hand sent
    to a table whose tournament is on a scheduled break without ``"during_break": true``
    is refused (409 ``during_break``), nothing saved; the client resends it with the flag
    if the hand was played before the break began."""
    pause = table_break(session_id)
    if pause is not None:
        raise TournamentError(
            f"{pause.tournament} is on a break ({pause.display} left): nothing was saved. "
            'If this hand was played before the break began, send it again with "during_break": '
            "true.",
            code="during_break",
            params={"tournament": pause.tournament, "left": pause.display},
        )


def clock_action(*, tournament_id: int, action: str, user: User, seconds: int = 0) -> Tournament:
    """The director's clock buttons: start, pause, resume, adjust (±seconds)."""
    if action not in ACTIONS:
        raise TournamentError(
            f"Unknown clock action {action!r}.",
            code="clock",
            message_id="unknown_clock_action",
            params={"action": action},
        )
    with transaction.atomic():
        t = locked(tournament_id)
        if t.status == Tournament.Status.FINISHED:
            raise TournamentError(
                "The tournament is over: the clock has stopped.",
                "status",
                message_id="clock_stopped",
            )
        if t.level_minutes <= 0:
            raise TournamentError(
                "Levels go by hands here, not by the clock: set minutes per level first.",
                code="clock",
                message_id="clock_by_hands",
            )
        now = timezone.now()
        if action == "start":
            if t.clock_started_at is not None:
                raise TournamentError(
                    "The clock is already started.", code="clock", message_id="clock_running"
                )
            t.clock_started_at = now
        elif t.clock_started_at is None:
            raise TournamentError(
                "Start the clock first.", code="clock", message_id="clock_not_started"
            )
        elif action == "pause":
            if t.clock_paused_at is None:
                t.clock_paused_at = now
        elif action == "resume":
            if t.clock_paused_at is not None:
                # The paused time does not count: move the start on by it.
                t.clock_started_at += now - t.clock_paused_at
                t.clock_paused_at = None
        else:
            if type(seconds) is not int or abs(seconds) > 24 * 3600:
                raise TournamentError(
                    "Adjust by whole seconds, at most a day.", "seconds", message_id="clock_seconds"
                )
            # Never before the start: the clock shows 0:00 at the least.
            t.clock_adjust = max(t.clock_adjust + seconds, -_raw_elapsed(t, now))
        t.bump()
        t.save()
    return t
