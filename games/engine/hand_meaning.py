"""What a hand means to the table, beyond the money of its verdict: who called a
declaration out of turn (R16), whose renege a dealer's fold with an Ace up is (R12, R38),
who forfeits a deal because of the hand (R16, R39), who tied at the top, who antes
next and who is really excused (R5; nobody under ``double_ante``), and whether two
results are the same hand.

The record form (games.sessions.forms) collects taps and asks these functions what the
taps mean for the record; the hand page's facts (games.sessions.selectors.hand_facts)
ask them what a recorded hand meant. Pure: no Django, no database, no words; every
value in or out is a plain name, a count or a frozen dataclass, so the same meaning is
computed once for the form, the pages and the tests.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .rules import Rules

__all__ = [
    "RenegeClaim",
    "called_out_of_turn",
    "claimed_reneges",
    "deal_forfeits",
    "excused_from_ante",
    "first_reneges",
    "forfeits_after",
    "same_result",
    "seat_order",
    "tied_at_top",
    "who_antes_next",
]

# The outcomes whose players at the top did not take the pot: a split (R35) or a pot
# whose best player reneged (R39); the hand page names who tied there.
TIED_OUTCOMES = ("split", "ineligible")


@dataclass(frozen=True)
class RenegeClaim:
    """A renege the table says happened: who, and whether it was caught in time (R39)."""

    player: str
    corrected: bool

    def as_record(self) -> dict[str, Any]:
        """The claim as a hand record's ``reneges`` item (HAND_RECORD.md)."""
        return {"player": self.player, "corrected": self.corrected}


def claimed_reneges(
    per_seat: Sequence[RenegeClaim],
    named: RenegeClaim | None,
    active: Collection[str],
    up_card: str,
) -> list[RenegeClaim]:
    """The reneges a record claims: the ones marked per seat, then the one named under
    "More" unless its player is marked already.

    The named player must have played, with one exception (R38 with R12): under an Ace
    up-card the dealer must play, so a dealer the table shows passing reneged; the named
    renege of a passer then stands as that breach (the engine refuses it for anyone but
    the dealer, in words).
    """
    reneges = list(per_seat)
    if named is None or named.player in {r.player for r in reneges}:
        return reneges
    if named.player in active or up_card.startswith("A"):
        reneges.append(named)
    return reneges


def forfeits_after(owed: Sequence[str], called: Sequence[str]) -> list[str] | None:
    """The pending forfeits a record carries when ``called`` declared out of turn at this
    hand (R16): the ones owed before, then each new caller once. None when nobody was
    called: the record then leaves the session's pending ones as they are (the session
    refuses a list that drops one)."""
    if not called:
        return None
    return list(owed) + [p for p in called if p not in owed]


def called_out_of_turn(
    record_forfeits: Iterable[str],
    owed_before: Collection[object],
    seat_ids: Mapping[str, object],
) -> list[str]:
    """Who declared out of turn at this hand (R16): the forfeits the record lists beyond
    the ones owed before it. The state before may name a player by seat id or by name."""
    return [
        p for p in record_forfeits if seat_ids.get(p) not in owed_before and p not in owed_before
    ]


def first_reneges(reneges: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Each player's first renege of a verdict (a player who reneged twice pays once,
    R39, and is named once)."""
    seen: list[Mapping[str, Any]] = []
    for renege in reneges:
        if renege.get("player") not in [r["player"] for r in seen]:
            seen.append(renege)
    return seen


def deal_forfeits(
    reneges: Iterable[Mapping[str, Any]],
    forfeits_next: Iterable[str],
    record_forfeits: Collection[str],
) -> list[Any]:
    """Who forfeits a deal because of this hand, each once: a renege caught in time
    (R39), then a forfeit the verdict leaves pending that the hand did not bring in (one
    called out of turn here, R16, still waiting for its player's deal)."""
    corrected: list[Any] = [r.get("player") for r in reneges if r.get("corrected")]
    pending = [p for p in forfeits_next if p not in record_forfeits]
    return list(dict.fromkeys(corrected + pending))


def seat_order(tricks: Mapping[str, int], seats: Sequence[str]) -> dict[str, int]:
    """A verdict's tricks in seat order (the record's players), not the order of play the
    verdict uses; a name not seated keeps its place after them."""
    return {p: tricks[p] for p in seats if p in tricks} | dict(tricks)


def tied_at_top(tricks: Mapping[str, int], outcome: str) -> tuple[int, list[str]]:
    """The most tricks anyone took, and who took them when the pot was split or carried
    for a renege (R35, R39); nobody is named for any other outcome."""
    top = max(tricks.values(), default=0)
    if outcome not in TIED_OUTCOMES:
        return top, []
    return top, [p for p, t in tricks.items() if t == top]


def excused_from_ante(excused: Iterable[str], rules: Rules) -> list[str]:
    """Who the next ante really excuses (R5): the players the last hand excused (R35,
    R36, R39), unless ``double_ante`` or ``dealer_antes_for_all`` is on, under which
    nobody is ever excused (RULES.md; the payout ignores ``excused`` then). A table that
    turns either switch on mid-session still carries the previous hand's excused players
    in its state; they ante like everyone else, so no page may mark them excused."""
    if rules.double_ante or rules.dealer_antes_for_all:
        return []
    return list(excused)


def who_antes_next(
    players: Sequence[str], dealer: str, excused: Collection[str], rules: Rules
) -> list[str]:
    """Who puts in an ante before the next deal (R5): the dealer alone for everyone under
    ``dealer_antes_for_all``, else every seated player the last hand did not excuse
    (R35, R36, R39; nobody is excused under ``double_ante``), in seat order."""
    if rules.dealer_antes_for_all:
        return [dealer]
    skipped = set(excused_from_ante(excused, rules))
    return [p for p in players if p not in skipped]


def same_result(typed: Mapping[str, Any], record: Mapping[str, Any] | None) -> bool:
    """Whether a typed hand says what a recorded one says: the same trump or up-card, the
    same players passing, the same tricks taken (a zero is no trick) and the same reneges,
    in any order. A hand typed twice for the same deal is then one hand, not two."""
    return _essentials(typed) == _essentials(record or {})


def _essentials(entry: Mapping[str, Any]) -> tuple[object, ...]:
    tricks = {p: n for p, n in (entry.get("tricks") or {}).items() if n}
    reneges = sorted(
        (r.get("player", ""), bool(r.get("corrected"))) for r in entry.get("reneges") or []
    )
    return (
        entry.get("up_card") or entry.get("trump"),
        sorted(entry.get("passed") or []),
        tricks,
        reneges,
    )
