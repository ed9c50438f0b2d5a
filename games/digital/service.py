"""Digital hands: the engine deals and referees, phones play, the ledger settles.

A digital hand is a Hand row (kind DIGITAL) whose state is always
``replay(seed, actions)``: the seed is drawn from ``secrets`` when the hand is dealt and
every move is appended to the HandAction log, so a server restart loses nothing and any
page can rebuild the hand. Nothing about a hand in progress lives in memory.

Seat links: a link is claimed by the first phone that opens it (``claim_seat``); the
host can release the claim or reissue the link (``reissue_seat``: the old one dies).

Writes (deal, move, bot toggle, cancel) each run in one transaction that starts by
locking the session row, as every write path of the project does (``ledger.postings``
too, so the two never wait on each other in opposite orders); that lock also
serializes concurrent taps on one hand.

Bots (seats with ``is_bot``, at the seat's ``bot_level``: easy, normal, careful or expert, see
``games.engine.expert.make_bot``) act inside the same transaction, right after the action
that gives them the turn: no worker process, no dependence on anybody polling, and a
bot-only table plays a whole hand in the request that deals it. Pages reveal those
moves one by one with a CSS delay (``games.digital.views._reveal_indexes``), so people
can follow them.

Money is never written here: a finished hand is settled by ``postings.complete_hand``
in the same transaction as its last move, under the lock already held (it completes this
very row: number, record, verdict, postings). A hand cancelled at a tournament table is
announced to its tournament like any other (``postings.announce_table_hand``).
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone

from games import sql
from games.digital.selectors import Table, bot_levels, hand_in_progress, load_actions, state_of
from games.engine import (
    BOT_LEVELS,
    CARD_NAMES,
    MAX_POT,
    BourreError,
    CardError,
    HandState,
    IllegalAction,
    make_bot,
    parse_card,
    worst_next_carry,
)
from games.engine.record import SESSION_KEYS, TABLE_KEYS
from games.models import GameSession, Hand, HandAction, Seat
from games.models.session import new_seat_secret
from ledger import postings

log = logging.getLogger(__name__)


# What kind of refusal each code is, as an HTTP status (400 unless named here).
_STATUS = {
    "not_found": 404,
    "wrong_seat": 403,
    "not_dealt_in": 403,
    "stale": 409,
    "hand_over": 409,
    "hand_cancelled": 409,
    "hand_in_progress": 409,
    "session_closed": 409,
    "out_of_turn": 409,
    "already_declared": 409,
    "wrong_phase": 409,
    "settle_failed": 409,
}


class DigitalError(BourreError):
    """A move, deal or toggle that cannot be done; nothing was written (except that a
    hand the session changed under is cancelled: ``hand_cancelled``).

    ``code`` says what went wrong (``out_of_turn``, ``illegal_card``, ``stale``,
    ``wrong_seat``...), ``rule`` the rule of RULES.md that forbids it, if any;
    ``message_id`` and ``params`` are the sentence people read (games.messages): an
    illegal move keeps the engine's, so the seat page names its card in the phone's
    language.
    """

    def __init__(
        self,
        message: str,
        code: str,
        rule: str | None = None,
        *,
        params: Mapping[str, object] | None = None,
        message_id: str | None = None,
    ) -> None:
        super().__init__(
            message,
            code=code,
            status=_STATUS.get(code, 400),
            params=params,
            message_id=message_id,
        )
        self.rule = rule


# -- writing -------------------------------------------------------------------------------


def _lock_hand(session_id: int, hand_id: int) -> tuple[GameSession, Hand]:
    # The session lock serialises moves as well: every write to a hand (a move, a bot
    # toggle, a cancel, the settlement) takes it first, so two phones tapping at once
    # apply one after the other and the second sees the first's move in the log. It also
    # orders every move with record_hand, void_hand and seat changes, so nobody changes
    # the session under a hand in play.
    session = postings.lock_session(session_id)
    hand = sql.digital_hand(session_id, hand_id)
    if hand is None:
        raise DigitalError(
            "There is no such digital hand at this table.",
            "not_found",
            message_id="no_digital_hand",
        )
    hand.session = session
    return session, hand


def start_hand(*, session_id: int, user: postings.Actor = None) -> Table:
    """Deal a digital hand with a fresh secret seed; bots act until a human's turn."""
    with transaction.atomic():
        session = postings.lock_session(session_id)
        if not session.is_open:
            raise DigitalError("This session is closed.", "session_closed")
        if Hand.objects.filter(session=session, status=Hand.Status.IN_PROGRESS).exists():
            raise DigitalError(
                "A digital hand is already being played at this table.", "hand_in_progress"
            )
        refusal = postings.table_deal_refusal(session)
        if refusal is not None:
            # A short tournament table must break or take a player first (RULES.md T1,
            # T2): the check's own sentence, by its code (games.messages).
            facts = {k: v for k, v in refusal.items() if k not in ("code", "message")}
            if refusal["code"] == "table_must_break":
                raise DigitalError(
                    refusal["message"],
                    "table_must_break",
                    params=facts,
                    message_id="table_must_break",
                )
            raise DigitalError(
                refusal["message"], "table_must_wait", params=facts, message_id="table_must_wait"
            )
        before = postings.session_state(session)
        hand = Hand(
            session=session,
            number=None,
            kind=Hand.Kind.DIGITAL,
            status=Hand.Status.IN_PROGRESS,
            seed=str(secrets.randbits(64)),
            before=before,
            created_by=postings.actor(user),
        )
        try:
            state = state_of(hand, [])
        except BourreError as exc:
            # Its reason follows in the reader's language (games.messages: reason_id).
            raise DigitalError(
                f"This table cannot deal a hand: {exc}",
                "bad_setup",
                params={**exc.params, "reason_id": exc.message_id},
            ) from None
        _require_pot_headroom(session, state)
        hand.save()
        table = Table(hand, state, 0, session=session)
        _advance(table, user)
    return table


def _require_pot_headroom(session: GameSession, state: HandState) -> None:
    """Refuse a deal whose worst case could pass the largest pot the books keep: once
    played, a digital hand cannot be re-entered, so it must be settleable whatever
    happens (engine.rules: every bound on an amount)."""
    worst = worst_next_carry(session.carry, state.rules, len(state.players))
    if worst > MAX_POT:
        raise DigitalError(
            "The pot is so large that with bourrés this hand could bring it past the "
            "largest pot these books keep. Set a pot limit in the session's rules, "
            "or record the next hand as a reported hand.",
            "pot_over_cap",
            "R37",
            message_id="deal_pot_over_cap",
        )


def apply_action(
    *, seat: Seat, hand_id: int, seen: int, action: Mapping[str, Any], user: postings.Actor = None
) -> Table:
    """Apply ``action`` for ``seat``'s player, then let bots reply.

    ``seen`` is the number of moves the phone had seen: a move already in the log at
    that place is a repeat (same answer, nothing written); any other difference means
    the table moved on (``stale``). The acting player is always the seat's own.
    """
    player = seat.player.name
    claimed = action.get("player")
    if claimed not in (None, "", player):
        raise DigitalError(
            f"This link is {player}'s seat; it cannot act for {claimed}.",
            "wrong_seat",
            params={"player": player, "claimed": claimed},
        )
    move = {**action, "player": player}
    wanted = _normalize(move)
    cancelled = None
    with transaction.atomic():
        session, hand = _lock_hand(seat.session_id, hand_id)
        actions = load_actions(hand)
        if 0 <= seen < len(actions) and _normalize(actions[seen]) == wanted:
            return Table(
                hand, state_of(hand, actions), len(actions), duplicate=True, session=session
            )
        if seen != len(actions):
            raise DigitalError("The table moved on; here is where it stands now.", "stale")
        if hand.status != Hand.Status.IN_PROGRESS:
            raise DigitalError("This hand is over.", "hand_over")
        cancelled = _cancel_if_stale(session, hand)
        if cancelled is None:
            state = state_of(hand, actions)
            if player not in state.seat_of:
                raise DigitalError(
                    f"{player} is not dealt into this hand.",
                    "not_dealt_in",
                    params={"player": player},
                )
            try:
                state.apply(move)
            except IllegalAction as exc:
                # The engine's sentence and facts travel on: the page renders them.
                raise DigitalError(
                    str(exc),
                    exc.code,
                    exc.rule,
                    params=exc.params,
                    message_id=exc.message_id,
                ) from None
            table = Table(hand, state, len(actions), session=session)
            _advance(table, user, acted=1)
    # Raised after the commit: the cancellation stays, the move is refused.
    if cancelled == _CLOSED_UNDER_HAND:
        raise DigitalError(cancelled, "hand_cancelled", message_id="hand_cancelled_closed")
    if cancelled is not None:
        raise DigitalError(cancelled, "hand_cancelled")
    return table


def set_bot(
    *,
    session_id: int,
    seat_id: int,
    is_bot: bool,
    level: str | None = None,
    user: postings.Actor = None,
) -> Table:
    """Hand a seat to the bot (or back to its player), at ``level`` (easy, normal,
    expert; None keeps the seat's); a bot whose turn it is acts."""
    if level is not None and level not in BOT_LEVELS:
        raise DigitalError(
            "Choose how well the bot plays: easy, normal, careful or expert.", "bad_level"
        )
    with transaction.atomic():
        session = postings.lock_session(session_id)
        seat = Seat.objects.filter(pk=seat_id, session=session).first()
        if seat is None:
            raise DigitalError(
                "There is no such seat at this table.", "not_found", message_id="no_seat"
            )
        changed = []
        if seat.is_bot != is_bot:
            seat.is_bot = is_bot
            changed.append("is_bot")
        if level is not None and seat.bot_level != level:
            seat.bot_level = level
            changed.append("bot_level")
        if changed:
            seat.save(update_fields=changed)
        hand = hand_in_progress(session.pk)
        if hand is None:
            return Table(None, None, session=session)
        actions = load_actions(hand)
        table = Table(hand, state_of(hand, actions), len(actions), session=session)
        if is_bot and _cancel_if_stale(session, hand) is None:
            _advance(table, user)
    return table


def reissue_seat(*, session_id: int, seat_id: int) -> Seat:
    """A new private link for a seat: the old one answers 404 from now on, and the
    seat waits for the first phone that opens the new one."""
    with transaction.atomic():
        session = postings.lock_session(session_id)
        seat = Seat.objects.select_related("player").filter(pk=seat_id, session=session).first()
        if seat is None:
            raise DigitalError(
                "There is no such seat at this table.", "not_found", message_id="no_seat"
            )
        seat.secret = new_seat_secret()
        seat.claimed_by = ""
        seat.claimed_at = None
        seat.save(update_fields=["secret", "claimed_by", "claimed_at"])
    return seat


def release_seat(*, session_id: int, seat_id: int) -> Seat:
    """Forget which phone holds the seat: the next phone to open its link takes it."""
    seat = Seat.objects.select_related("player").filter(pk=seat_id, session_id=session_id).first()
    if seat is None:
        raise DigitalError(
            "There is no such seat at this table.", "not_found", message_id="no_seat"
        )
    Seat.objects.filter(pk=seat.pk).update(claimed_by="", claimed_at=None)
    seat.claimed_by = ""
    return seat


def claim_seat(seat: Seat, device: str) -> bool:
    """Whether the phone whose device cookie hashes to ``device`` holds the seat; the
    first phone to ask takes it (one conditional UPDATE, so two phones opening the link
    at once cannot both win)."""
    if seat.claimed_by:
        return seat.claimed_by == device
    taken = Seat.objects.filter(pk=seat.pk, claimed_by="").update(
        claimed_by=device, claimed_at=timezone.now()
    )
    if not taken:
        seat.refresh_from_db(fields=["claimed_by", "claimed_at"])
        return seat.claimed_by == device
    seat.claimed_by = device
    return True


def cancel_hand(*, session_id: int, user: postings.Actor = None, reason: str = "") -> Hand:
    """Abandon the hand in progress: no money has moved yet, so nothing is reversed."""
    with transaction.atomic():
        session = postings.lock_session(session_id)
        hand = hand_in_progress(session.pk)
        if hand is None:
            raise DigitalError(
                "No digital hand is being played.", "not_found", message_id="no_hand_in_play"
            )
        _void(session, hand, reason or "Cancelled by the scorekeeper before it was finished.", user)
    return hand


def _void(session: GameSession, hand: Hand, reason: str, user: postings.Actor = None) -> None:
    hand.status = Hand.Status.VOIDED
    hand.voided_at = timezone.now()
    hand.voided_by = postings.actor(user)
    hand.void_reason = reason[:200]
    hand.save(update_fields=["status", "voided_at", "voided_by", "void_reason"])
    postings.announce_table_hand(session)


# The stored reason of a hand cancelled because its session closed (void_reason).
_CLOSED_UNDER_HAND = "The session was closed while this hand was being played; no money moved."
_CHANGED_UNDER_HAND = (
    "The table changed while this hand was being played (a hand was recorded, a seat or "
    "the rules changed), so it was cancelled; no money moved."
)
# Stored in English (the ledger's record); pages show them in the reader's language: the
# same sentences are games.messages' hand_cancelled_closed and hand_cancelled.
STORED_REASONS = frozenset({_CLOSED_UNDER_HAND, _CHANGED_UNDER_HAND})


def _cancel_if_stale(session: GameSession, hand: Hand) -> str | None:
    """Cancel the hand if the session closed or changed under it; say why."""
    reason = None
    if not session.is_open:
        reason = _CLOSED_UNDER_HAND
    elif session.version != hand.before.get("version") and _setup_changed(session, hand):
        reason = _CHANGED_UNDER_HAND
    if reason is not None:
        _void(session, hand, reason)
    return reason


def _setup_changed(session: GameSession, hand: Hand) -> bool:
    now = postings.session_state(session)
    return any(now.get(k) != hand.before.get(k) for k in SESSION_KEYS)


def _advance(table: Table, user: postings.Actor, acted: int = 0) -> None:
    """Let bots act while it is their turn, write the new moves, settle when over."""
    state, hand, session = table.state, table.hand, table.session
    assert state is not None and hand is not None and session is not None
    levels = bot_levels(session.pk)
    table.bots = bots = set(levels)
    start = table.seq
    while state.phase != "done":
        waiting = [p for p in state.awaiting if p in bots]
        if not waiting:
            break
        _bot_act(state, waiting[0], hand, start + acted, levels)
        acted += 1
    new = state.actions[start:]
    now = timezone.now()
    sql.insert_rows(
        HandAction,
        ("hand", "seq", "action", "created_at"),
        [(hand.pk, start + i + 1, a, now) for i, a in enumerate(new)],
    )
    table.written = list(new)
    table.seq = start + len(new)
    if state.phase == "done":
        table.hand = _settle(session, hand, state, user)


def _bot_act(state: HandState, player: str, hand: Hand, seq: int, levels: dict[str, str]) -> None:
    # Seeded per hand and move, so a test (or a bug report) replays bot play exactly. The
    # expert is told the other bots' levels (as the table shows them; people: normal).
    bot = make_bot(levels[player], random.Random(f"{hand.seed}:{seq}"), levels)
    try:
        state.apply(bot.act(state.view_for(player)))
    except IllegalAction:
        # A bot must never stall the table: log it and take the first legal move.
        log.exception("bot move refused for %s in hand %s", player, hand.pk)
        state.apply(state.legal_actions(player)[0])


def _settle(session: GameSession, hand: Hand, state: HandState, user: postings.Actor) -> Hand:
    record = state.to_record()
    fields: Mapping[str, object] = record
    entry = {k: fields[k] for k in TABLE_KEYS if k in fields}
    try:
        # In this transaction, under the session lock taken by _lock_hand or postings.lock_session:
        # completes this very row (number, record, verdict, postings) and moves the
        # session object on (its version is the pages' ETag).
        recorded = postings.complete_hand(
            session=session, hand=hand, entry=entry, user=postings.actor(user)
        )
    except postings.HandRejected as exc:
        log.error("digital hand %s rejected by the ledger: %s", hand.pk, exc.errors)
        raise DigitalError(
            "The hand is over but could not be settled; nothing was written.", "settle_failed"
        ) from exc
    except postings.SessionClosed:
        raise DigitalError("This session is closed.", "session_closed") from None
    assert recorded.pk == hand.pk
    return recorded


def _normalize(action: Mapping[str, Any]) -> tuple:
    """A comparable form of an action: ``10h`` and ``TH`` are one card."""
    kind = action.get("type")

    def card(text: object) -> str:
        try:
            return CARD_NAMES[parse_card(text)]
        except CardError:
            return repr(text)

    if kind == "card":
        return ("card", action.get("player"), card(action.get("card")))
    if kind == "play":
        discard = action.get("discard") or []
        if isinstance(discard, str):
            discard = [discard]
        return ("play", action.get("player"), tuple(sorted(card(c) for c in discard)))
    return (str(kind), action.get("player"))
