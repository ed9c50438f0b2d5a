"""Reading digital hands: the newest hand and the one in progress, a hand replayed from
its seed and action log (``Table``), the pages' ETag and the bot seats. Nothing here
writes; ``service`` does, under the session lock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db.models import OuterRef, Subquery
from django.db.models.functions import Coalesce

from games.engine import (
    HandState,
    replay,
)
from games.engine.contracts import Action
from games.models import GameSession, Hand, HandAction, Seat


@dataclass
class Table:
    """One hand as a page needs it: the row, its replayed state, the log length; after a
    write also the session (its version is the pages' ETag) and the bot seats."""

    hand: Hand | None
    state: HandState | None
    seq: int = 0
    written: list[Action] = field(default_factory=list)
    duplicate: bool = False
    session: GameSession | None = None
    bots: set[str] | None = None

    @property
    def in_progress(self) -> bool:
        return self.hand is not None and self.hand.status == Hand.Status.IN_PROGRESS


# -- reading -------------------------------------------------------------------------------


def latest_hand(session_id: int) -> Hand | None:
    """The session's newest digital hand (in progress or finished), or None."""
    # The move count comes from the (hand, seq) index of the newest hand only, so this
    # costs the same in a session's first hand and its two hundredth.
    last_seq = HandAction.objects.filter(hand=OuterRef("pk")).order_by("-seq").values("seq")
    return (
        Hand.objects.filter(session_id=session_id, kind=Hand.Kind.DIGITAL)
        .annotate(n_actions=Coalesce(Subquery(last_seq[:1]), 0))
        .order_by("-pk")
        .first()
    )


def hand_in_progress(session_id: int) -> Hand | None:
    """The digital hand being played in this session, if any (at most one).

    Pages that record a reported hand should refuse while this is not None.
    """
    return (
        Hand.objects.filter(session_id=session_id, status=Hand.Status.IN_PROGRESS)
        .order_by("-pk")
        .first()
    )


def etag_for(session: GameSession, hand: Hand | None) -> str:
    """Changes whenever anything a seat or watcher sees changes: a move, a new hand, a
    recorded or voided hand (session version)."""
    if hand is None:
        return f'"d{session.version}-0"'
    n = getattr(hand, "n_actions", None)
    return f'"d{session.version}-{hand.pk}-{hand.status[0]}{n}"'


def load_actions(hand: Hand) -> list[Action]:
    """The hand's action log, as HandState.actions wrote it."""
    return list(
        HandAction.objects.filter(hand=hand).order_by("seq").values_list("action", flat=True)
    )


def setup_of(hand: Hand) -> dict[str, Any]:
    """Players, dealer, rules, carry and excused the hand was dealt with: the session
    state saved when it was dealt, or, once recorded (the ledger then keeps its own
    ``before``), the same values in the record."""
    return hand.before if "players" in hand.before else hand.record


def state_of(hand: Hand, actions: Iterable[Mapping[str, Any]]) -> HandState:
    """The hand as its seed and action log make it."""
    b = setup_of(hand)
    return replay(
        b["players"],
        b["dealer"],
        b["rules"],
        int(hand.seed),
        actions,
        carry=b["carry"],
        excused=b["excused"],
    )


def load_table(hand: Hand | None) -> Table:
    if hand is None:
        return Table(None, None)
    actions = load_actions(hand)
    return Table(hand, state_of(hand, actions), len(actions))


def bot_names(session_id: int) -> set[str]:
    """Names of the seats the bot plays."""
    return set(bot_levels(session_id))


def bot_levels(session_id: int) -> dict[str, str]:
    """The seats the bot plays: name → level (easy, normal, expert)."""
    return dict(
        Seat.objects.filter(session_id=session_id, is_bot=True)
        .order_by()
        .values_list("player__name", "bot_level")
    )
