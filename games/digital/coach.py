"""The coach at a digital seat: a hint on the player's turn, a review after the hand, and
how often a player's decisions match the expert's.

Everything is built from the seat's own view (``HandState.view_for``) and the expert's
appraisal of it (``games.engine.coach``), seeded by the hand's id and the number of moves
so far: public facts, so a hint never depends on the cards the seat cannot see, and the
review of a decision is the very appraisal the hint gave at that point.

The host's switch (``GameSession.coach``): ``on``, ``off``, or ``auto`` (the default), on
only at a practice table, one player and the rest bots. A table where several people
play for money expects nobody to get advice; somebody playing alone against bots expects
to learn. A tournament table (``chip_limited``) is off in ``auto`` too. When the coach is
off neither hints nor reviews are given.

Reviews are computed when first asked for (the seat's board asks once the hand is over,
in a request of its own, so the last move's request pays nothing) and kept
(``CoachReview``), which is also what the club's statistics sum.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count, Q, Sum
from django.utils import timezone

from games.digital.selectors import bot_levels, state_of
from games.engine.coach import Hint, appraise, hint, judge
from games.engine.contracts import Action, SeatView
from games.models import CoachReview, GameSession, Hand, HandAction, Seat
from ledger import postings


def coach_on(session: GameSession, seats: Iterable[tuple[bool, bool]] | None = None) -> bool:
    """Whether this table's seats get hints and reviews. ``seats``: (is_bot, active) of
    every seat, when the caller has read them already (else one query)."""
    if session.coach == GameSession.Coach.ON:
        return True
    if session.coach == GameSession.Coach.OFF or session.chip_limited:
        return False
    if seats is None:
        seats = Seat.objects.filter(session=session).values_list("is_bot", "active")
    return sum(1 for is_bot, active in seats if active and not is_bot) == 1


def set_coach(session_id: int, choice: str) -> GameSession:
    """The host's choice (auto, on, off). The session's version moves on, so every seat's
    board is drawn again with its Hint button shown or taken away."""
    with transaction.atomic():
        session = postings.lock_session(session_id)
        if session.coach != choice:
            session.coach = choice
            session.bump()
            session.save(update_fields=["coach", "version"])
    return session


def seed(hand: Hand, seq: int) -> str:
    """The appraisal's seed at a decision: public facts only (never the deal's seed)."""
    return f"coach:{hand.pk}:{seq}"


def hint_for(hand: Hand, seq: int, view: SeatView) -> Hint | None:
    """The expert's hint for the seat whose view this is, or None when it has nothing to
    decide now."""
    if view["declare"] is None and not view["legal"]:
        return None
    return hint(view, appraise(view, seed(hand, seq), bot_levels(hand.session_id)))


def _forced(view: SeatView) -> bool:
    return view["declare"] is None and len(view["legal"]) <= 1


def review_for(hand: Hand, player_id: int, name: str) -> CoachReview | None:
    """The player's review of this finished hand: read, or computed and kept. None when
    the hand is not recorded or the player was not dealt in."""
    found = CoachReview.objects.filter(hand=hand, player_id=player_id).first()
    if found is not None or hand.status != Hand.Status.RECORDED:
        return found
    actions = list(
        HandAction.objects.filter(hand=hand).order_by("seq").values_list("action", flat=True)
    )
    state = state_of(hand, [])
    if name not in state.seat_of:
        return None
    items: list[dict[str, Any]] = []
    levels = bot_levels(hand.session_id)
    for seq, action in enumerate(actions):
        if action.get("player") == name:
            view = state.view_for(name)
            if not _forced(view):
                decision = judge(appraise(view, seed(hand, seq), levels), action)
                items.append(
                    {
                        "seq": seq + 1,
                        "kind": decision.kind,
                        "trick": view["trick_number"] if decision.kind == "card" else 0,
                        "chosen": decision.chosen,
                        "best": decision.best,
                        "best_gain": round(decision.best_gain, 3),
                        "chosen_gain": round(decision.chosen_gain, 3),
                        "matched": decision.matched,
                        "discard_scored": decision.discard_scored,
                        "cost": round(decision.cost, 3),
                    }
                )
        state.apply(action)
    review = CoachReview(
        hand=hand,
        player_id=player_id,
        decisions=len(items),
        matched=sum(1 for i in items if i["matched"]),
        cost=round(sum(i["cost"] for i in items) * 100),
        items=items,
    )
    try:
        with transaction.atomic():
            review.save()
    except IntegrityError:
        # Another request (the same phone twice) computed it first: theirs stands.
        return CoachReview.objects.get(hand=hand, player_id=player_id)
    return review


@dataclass(frozen=True)
class MatchRate:
    """How often a player's decisions matched the expert's."""

    decisions: int
    matched: int
    cost: float  # antes given up, in all
    recent_decisions: int
    recent_matched: int

    @property
    def rate(self) -> float | None:
        return self.matched / self.decisions if self.decisions else None

    @property
    def recent_rate(self) -> float | None:
        return self.recent_matched / self.recent_decisions if self.recent_decisions else None

    @property
    def cost_per_decision(self) -> float:
        return self.cost / self.decisions if self.decisions else 0.0


RECENT_DAYS = 30


def match_rates(player_ids: Iterable[int]) -> dict[int, MatchRate]:
    """Each player's match rate over every reviewed hand and the last 30 days (one query)."""
    since = timezone.now() - timedelta(days=RECENT_DAYS)
    recent = Q(created_at__gte=since)
    rows = (
        CoachReview.objects.filter(player_id__in=list(player_ids))
        .values("player_id")
        .annotate(
            n=Sum("decisions"),
            m=Sum("matched"),
            c=Sum("cost"),
            rn=Sum("decisions", filter=recent),
            rm=Sum("matched", filter=recent),
            hands=Count("id"),
        )
        .order_by()
    )
    return {
        r["player_id"]: MatchRate(
            decisions=r["n"] or 0,
            matched=r["m"] or 0,
            cost=(r["c"] or 0) / 100,
            recent_decisions=r["rn"] or 0,
            recent_matched=r["rm"] or 0,
        )
        for r in rows
    }


def action_label(action: Mapping[str, Any] | Action) -> dict[str, Any]:
    """An action as the templates show it: its kind, the cards drawn, the card."""
    kind = action.get("type")
    discard = action.get("discard")
    return {
        "kind": kind,
        "draw": len(discard) if kind == "play" and isinstance(discard, list) else 0,
        "card": action.get("card") if kind == "card" else None,
    }
