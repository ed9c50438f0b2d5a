"""The two parts of a hand record (HAND_RECORD.md), named once for every caller.

A record is what the session knows before the deal (``SESSION_KEYS``: who sits where,
who deals, the carried pot, who is excused or owes a forfeited deal, the house rules) plus
what happened at the table (``TABLE_KEYS``: the up-card, trump, passes, draws, hands,
plays, tricks and reneges). A session supplies the first part itself, so a phone or an API
client reports only the second; a digital hand's deal is made from the first and is
cancelled if the session's first part changes under it.

The keys are read from the typed contracts (``contracts.SessionRecord`` and
``contracts.TableRecord``), in the order they are declared there, so the names and the
types are kept in one place.
"""

from __future__ import annotations

from .contracts import SessionRecord, TableRecord

__all__ = ["SESSION_KEYS", "TABLE_KEYS"]

# ("players", "dealer", "carry", "excused", "rules", "forfeits")
SESSION_KEYS: tuple[str, ...] = tuple(SessionRecord.__annotations__)
# ("up_card", "trump", "passed", "discards", "hands", "plays", "tricks", "reneges")
TABLE_KEYS: tuple[str, ...] = tuple(TableRecord.__annotations__)
