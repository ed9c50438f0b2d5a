"""Recording, completing and voiding a hand: antes, the payout and penalties."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Unpack, cast

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from games.engine import MAX_BALANCE, RuleError, Rules, verify
from games.engine.contracts import ErrorWhere, HandResult, RecordError, Verdict
from games.engine.record import SESSION_KEYS
from games.models import GameSession, Hand, HandAction, Seat
from ledger import sql
from ledger.errors import HandRejected, NeedsConfirmation, SetupError, StaleState, VoidRefused
from ledger.memos import Memo, MemoKind, hand_memo, reversal_memo
from ledger.models import Leg, Posting
from ledger.postings._common import (
    HAND_FIELDS,
    Actor,
    _dealt_in,
    _event,
    _keep_dealer_valid,
    _owners,
    _post,
    _postings,
    _require_open,
    _Seat,
    _seats,
    _state,
    actor,
    announce_change,
    announce_table_hand,
    lock_session,
    seat_back,
    table_deal_refusal,
)

# -- recording a hand ---------------------------------------------------------------------------


# A player's leg of a posting just written: (player id, posting kind, amount, posting id).
PostedLeg = tuple[int, str, int, int]


def _reject(code: str, message: str, **where: Unpack[ErrorWhere]) -> HandRejected:
    error = cast(RecordError, {"code": code, "message": message, **where})
    verdict: Verdict = {"valid": False, "errors": [error]}
    return HandRejected(verdict, [error])


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


# One piece (radon D): one pass over the keys the session supplies, each compared its own
# way (rules, excused, forfeits R16) so that a mismatch names the key.
def _build_record(entry: object, state: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(entry, Mapping):
        raise _reject("bad_record", "the hand must be a JSON object")
    for key in SESSION_KEYS:
        if key not in entry or entry[key] is None:
            continue
        given, ours = entry[key], state[key]
        if key == "rules":
            try:
                same = Rules.from_dict(given) == Rules.from_dict(ours)
            except (RuleError, TypeError):
                same = False
        elif key == "excused":
            same = isinstance(given, list) and sorted(map(str, given)) == sorted(ours)
        elif key == "forfeits":
            # R16: the table may add a forfeit for a declaration out of turn called at this
            # hand, never remove one the session holds
            if not isinstance(given, list):
                raise _reject(
                    "bad_record", "forfeits must be a list of player names", field="forfeits"
                )
            kept = [p for p in ours if p not in set(map(str, given))]
            if kept:
                raise _reject(
                    "forfeit_removed",
                    f"{', '.join(kept)} still owe{'s' if len(kept) == 1 else ''} a forfeited "
                    "deal from an earlier hand: a table can add a forfeit for a declaration "
                    "out of turn, never remove one (R16)",
                    field="forfeits",
                )
            same = True
        else:
            same = given == ours
        if not same:
            raise _reject(
                "session_mismatch",
                # JSON, not Python's repr: the message goes out in JSON bodies.
                f"{key} is {_json(ours)} in this session, not {_json(given)}: "
                "the session supplies it",
                field=key,
            )
    record = {k: v for k, v in entry.items() if k not in SESSION_KEYS}
    for key in SESSION_KEYS:
        if key == "forfeits":
            added = entry.get("forfeits") or []
            forfeits = list(state[key]) + [p for p in added if p not in state[key]]
            if forfeits:
                record[key] = forfeits  # the engine refuses a name not seated
            continue
        record[key] = state[key]
    return record


@dataclass
class _Money:
    """What actually moves for one hand, by player name."""

    antes: dict[str, int]
    payouts: dict[str, int]
    penalties: dict[str, int]
    shortfalls: dict[str, int]
    next_carry: int


# One piece (radon D): antes, payouts, then penalties against one running stack per
# player, in the order money moves at a chip-limited table.
def _money(result: HandResult, carry: int, stacks: dict[str, int] | None) -> _Money:
    antes = {p: int(x) for p, x in result["antes"].items() if x}
    payouts = {p: int(x) for p, x in result["payouts"].items() if x}
    penalties = {p: int(x) for p, x in result["penalties"].items() if x}
    pot = carry + sum(antes.values())
    # The engine promises conservation; a broken promise must not reach the ledger.
    if (
        pot != result["pot"]
        or pot - sum(payouts.values()) + sum(penalties.values()) != result["next_carry"]
    ):
        raise AssertionError(f"the engine's verdict does not conserve money: {result}")
    if stacks is None:
        return _Money(antes, payouts, penalties, {}, result["next_carry"])

    # Chip-limited: nobody pays more than they have; the unpaid rest is a shortfall.
    stack = dict(stacks)
    short: dict[str, int] = defaultdict(int)
    paid_antes = {}
    for p, x in antes.items():
        paid_antes[p] = min(x, max(stack.get(p, 0), 0))
        short[p] += x - paid_antes[p]
        stack[p] = stack.get(p, 0) - paid_antes[p]
    real_pot = carry + sum(paid_antes.values())
    if sum(payouts.values()) > real_pot:
        share = real_pot // len(payouts)
        payouts = dict.fromkeys(payouts, share)
    for p, x in payouts.items():
        stack[p] = stack.get(p, 0) + x
    paid_penalties = {}
    for p, x in penalties.items():
        paid_penalties[p] = min(x, max(stack.get(p, 0), 0))
        short[p] += x - paid_penalties[p]
        stack[p] = stack.get(p, 0) - paid_penalties[p]
    next_carry = real_pot - sum(payouts.values()) + sum(paid_penalties.values())
    return _Money(
        {p: x for p, x in paid_antes.items() if x},
        {p: x for p, x in payouts.items() if x},
        {p: x for p, x in paid_penalties.items() if x},
        {p: x for p, x in short.items() if x},
        next_carry,
    )


def paid_money(result: dict[str, Any], carry: int, shortfalls: dict[str, int]) -> _Money:
    """What really moved for a chip-limited hand, from its verdict and the shortfalls the
    ledger kept (``Hand.shortfalls``): the same ``_Money`` as ``_money`` computed from the
    stacks, so a result screen can say "pays 8" where the verdict asked 10.

    A player's shortfall is their unpaid ante first, then their unpaid penalty: one who
    could not pay the ante had nothing left, so all of a penalty went unpaid (a player
    who pays a penalty took no payout, R14/R39). So a shortfall above the penalty was
    partly the ante; one within it was the penalty only."""
    antes = {p: int(x) for p, x in result["antes"].items() if x}
    payouts = {p: int(x) for p, x in result["payouts"].items() if x}
    penalties = {p: int(x) for p, x in result["penalties"].items() if x}
    short_antes: dict[str, int] = {}
    paid_penalties: dict[str, int] = {}
    for p, x in penalties.items():
        short = shortfalls.get(p, 0)
        paid_penalties[p] = x - min(short, x)
    for p, short in shortfalls.items():
        over = short - penalties.get(p, 0)
        if over > 0:
            short_antes[p] = over
    paid_antes = {p: x - short_antes.get(p, 0) for p, x in antes.items()}
    real_pot = carry + sum(paid_antes.values())
    if sum(payouts.values()) > real_pot:
        payouts = dict.fromkeys(payouts, real_pot // len(payouts))
    return _Money(
        {p: x for p, x in paid_antes.items() if x},
        {p: x for p, x in payouts.items() if x},
        {p: x for p, x in paid_penalties.items() if x},
        {p: x for p, x in shortfalls.items() if x},
        real_pot - sum(payouts.values()) + sum(paid_penalties.values()),
    )


def _verified(
    session: GameSession, seats: list[_Seat], entry: object, rules: dict | None = None
) -> tuple[dict[str, Any], Verdict]:
    """The record built from the entry and the session, and the engine's verdict on it;
    HandRejected unless it is valid and complete. ``rules`` replaces the session's (a
    corrected hand is settled under the rules it was played by)."""
    state = _state(session, seats)
    if rules is not None:
        state["rules"] = dict(rules)
    record = _build_record(entry, state)
    verdict = verify(record)
    if not verdict.get("valid"):
        raise HandRejected(verdict)
    if not verdict.get("complete"):
        turn = verdict.get("next")
        nxt = turn["player"] if turn else None
        error: RecordError = {
            "code": "incomplete",
            "message": "the hand is not finished yet"
            + (f": {nxt} is next to play" if nxt else "")
            + " — give the tricks or the rest of the card log",
        }
        if nxt:
            error["player"] = nxt
        raise HandRejected(verdict, [error])
    return record, verdict


# A hand that costs this much is shown to the table before it is saved (issue 14).
CONFIRM_BOURRES = 3
CONFIRM_PENALTY_ANTES = 10


def surprises(record: dict[str, Any], result: HandResult) -> list[str]:
    """Why this hand deserves a second look before it is saved: three or more bourrés,
    or a penalty above ten antes. Empty when it is an ordinary hand. The reasons are read
    by the table (the record page, the API's problem): in the active language."""
    reasons = []
    bourre = list(result.get("bourre") or [])
    if len(bourre) >= CONFIRM_BOURRES:
        reasons.append(
            ngettext("%(n)s player is bourré", "%(n)s players are bourré", len(bourre))
            % {"n": len(bourre)}
        )
    ante = Rules.from_dict(record.get("rules") or {}).ante
    big = {
        p: x for p, x in (result.get("penalties") or {}).items() if x > CONFIRM_PENALTY_ANTES * ante
    }
    if big:
        reasons.append(gettext("a penalty above ten antes"))
    return reasons


def _require_room(session: GameSession, dealt: dict[str, _Seat], money: _Money) -> None:
    """Refuse the hand that would bring a player's running total past ``MAX_BALANCE``.
    Pots stop at ``MAX_POT`` (the verifier), so only thousands of hands at the largest
    stakes get here; the way on is a new session, and every sum stays a 64-bit integer
    (SQLite refuses to SUM past one)."""
    for name, seat in dealt.items():
        delta = money.payouts.get(name, 0) - money.antes.get(name, 0) - money.penalties.get(name, 0)
        key = str(seat.player_id)
        for total in (session.nets, session.stacks):
            if abs(total.get(key, 0) + delta) > MAX_BALANCE:
                raise _reject(
                    "balance_over_cap",
                    f"this hand would bring {name}'s total past the largest balance these "
                    f"books keep ({MAX_BALANCE}): close this session and start a new one",
                    player=name,
                )


def _before(session: GameSession, dealt: Mapping[str, _Seat]) -> dict[str, Any]:
    """A hand's ``before``: the session's state before it (what an undo restores and a
    correction replays from) and who was dealt in ({name: player id})."""
    return {
        "carry": session.carry,
        "next_dealer": session.next_dealer_id,
        "excused": list(session.excused),
        "forfeits": list(session.forfeits),
        "hands_count": session.hands_count,
        "seats": {n: s.player_id for n, s in dealt.items()},
        "eliminated": [],
    }


def _stacks_after(stacks: dict[str, int], money: _Money) -> dict[str, int]:
    """Each dealt-in player's chips once this hand's money has moved (chip-limited)."""
    after = dict(stacks)
    for p, x in money.antes.items():
        after[p] -= x
    for p, x in money.payouts.items():
        after[p] += x
    for p, x in money.penalties.items():
        after[p] -= x
    return after


def _hand_row(session: GameSession, pending: Hand | None, fields: dict[str, Any]) -> Hand:
    """The hand's row: ``pending`` (a digital hand) completed and saved, or a new hand,
    not yet written (``_write_money`` writes it with its money)."""
    if pending is None:
        return Hand(session=session, **fields)
    for f, v in fields.items():
        setattr(pending, f, v)
    pending.save(update_fields=list(fields))
    return pending


def hand_counts(hand: Hand, sign: int = 1) -> dict[int, dict[str, int]]:
    """What a recorded hand adds to its players' club totals (``sign`` −1: what voiding it
    takes away): hands dealt in and passed, bourrés, reneges. Names are the hand's own
    (``before["seats"]``: name → player id, as they were when it was played)."""
    seats = (hand.before or {}).get("seats") or {}
    counts: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    result = hand.result
    for counter, names in (
        ("hands_played", hand.record.get("players") or []),
        ("hands_passed", hand.record.get("passed") or []),
        ("bourres", result.get("bourre") or []),
        ("reneges", [r.get("player") for r in hand.verdict.get("reneges") or []]),
    ):
        for name in names:
            player_id = seats.get(name)
            if player_id is not None:
                counts[player_id][counter] += sign
    return counts


def _write_money(
    session: GameSession,
    seats: list[_Seat],
    hand: Hand,
    result: HandResult,
    money: _Money,
    user: Actor,
    before: dict[str, Any],
    after: dict[str, int],
) -> list[PostedLeg]:
    """At most three postings, in this order: antes, the payout (or split), penalties;
    with the hand's counts for the players' club totals; and the session moved on
    (``_advance``). A new hand's row is written with them (``sql.write_hand``: one
    statement on PostgreSQL instead of three, issue #20); a digital hand's row exists
    already. Returns the players' legs written — (player id, posting kind, amount, posting
    id), in posting order — so the result screen shows them without reading them back
    (``games.sessions.statements.hand_deltas``)."""
    owners = _owners(seats)
    entries = _hand_entries(session, seats, hand, result, money)
    batch = _postings(session, session.club_id, entries, user, hand=hand, owners=owners,
                      counts=hand_counts(hand))  # fmt: skip
    _advance(session, seats, result, money, before, after)
    session.bump()
    deltas = batch.totals.changed()
    if hand.pk is None:
        sql.write_hand(hand, batch.postings, batch.legs, deltas, session, HAND_FIELDS)
    else:
        sql.write_postings(batch.postings, batch.legs, session.club_id, deltas)
        sql.save_session(session, HAND_FIELDS)
    # A posting for each entry with a nonzero leg, in order, with its legs.
    kept = [(kind, legs) for kind, legs, _ in entries if any(legs.values())]
    return [
        (owners[account], kind, amount, posting.pk)
        for posting, (kind, legs) in zip(batch.postings, kept, strict=True)
        for account, amount in legs.items()
        if amount and account in owners
    ]


def _hand_entries(
    session: GameSession, seats: list[_Seat], hand: Hand, result: HandResult, money: _Money
) -> list[tuple[str, dict[int, int], Memo]]:
    """A hand's postings for ``_post``: antes, the payout (or split), penalties."""
    # open_session creates the pot with the session, and every seat is created with its
    # player's account (open_session, add_seat).
    pot = session.pot_account_id
    assert pot is not None
    acct: dict[str, int] = {}
    for s in seats:
        assert s.account_id is not None
        acct[s.name] = s.account_id
    number = hand.number
    assert number is not None  # numbered when it was recorded
    split = result["outcome"] == "split"
    return [
        (
            Posting.Kind.ANTE,
            {
                **{acct[p]: -x for p, x in money.antes.items()},
                pot: sum(money.antes.values()),
            },
            hand_memo(MemoKind.HAND_ANTES, number),
        ),
        (
            Posting.Kind.SPLIT if split else Posting.Kind.PAYOUT,
            {
                **{acct[p]: x for p, x in money.payouts.items()},
                pot: -sum(money.payouts.values()),
            },
            hand_memo(MemoKind.HAND_SPLIT if split else MemoKind.HAND_POT_WON, number),
        ),
        (
            Posting.Kind.PENALTY,
            {
                **{acct[p]: -x for p, x in money.penalties.items()},
                pot: sum(money.penalties.values()),
            },
            hand_memo(MemoKind.HAND_PENALTIES, number),
        ),
    ]


def _advance(
    session: GameSession,
    seats: list[_Seat],
    result: HandResult,
    money: _Money,
    before: dict[str, Any],
    after: dict[str, int],
) -> None:
    """The session's state before the next hand: eliminations, dealer, excused, forfeits
    (set on ``session`` in memory; a correction replays many hands before it saves)."""
    by_name = {s.name: s for s in seats}
    eliminated = set(before["eliminated"])
    if eliminated:
        Seat.objects.filter(session=session, player_id__in=eliminated).update(
            active=False, eliminated_at=timezone.now()
        )
        for s in seats:
            if s.player_id in eliminated:
                s.active, s.eliminated = False, True
    not_dealt = [pid for pid in session.forfeits if pid not in before["seats"].values()]
    forfeits = [by_name[n].player_id for n in result.get("forfeits_next", [])] + not_dealt
    eligible = {
        s.player_id
        for s in seats
        if s.active and (not session.chip_limited or after.get(s.name, s.stack) > 0)
    }
    dealer_id, forfeits = _keep_dealer_valid(
        seats, by_name[result["next_dealer"]].player_id, eligible, forfeits
    )
    session.carry = money.next_carry
    session.next_dealer_id = dealer_id
    session.excused = [
        by_name[n].player_id for n in result["excused_next"] if by_name[n].player_id in eligible
    ]
    session.forfeits = forfeits
    session.hands_count += 1


def _settle(
    session: GameSession,
    pending: Hand | None,
    number: int,
    entry: object,
    key: str,
    kind: str,
    seed: str,
    actions: Sequence[Mapping[str, object]] | None,
    user: Actor,
    confirm_surprises: bool = False,
    seats: list[_Seat] | None = None,
) -> tuple[Hand, list[PostedLeg]]:
    """Verify the hand against the locked session, write it (or complete ``pending``),
    post its money and move the session on; the hand and its players' legs. The caller holds the session's row lock
    inside a transaction (and has read the ``seats`` in it); nothing is written unless
    the hand is valid and complete."""
    if seats is None:
        seats = _seats(session)
    record, verdict = _verified(session, seats, entry)
    result = verdict["result"]
    assert result is not None  # _verified lets only a complete hand through
    if confirm_surprises:
        reasons = surprises(record, result)
        if reasons:
            raise NeedsConfirmation(verdict, reasons)
    dealt = {s.name: s for s in _dealt_in(session, seats)}
    stacks = {n: s.stack for n, s in dealt.items()} if session.chip_limited else None
    money = _money(result, session.carry, stacks)
    _require_room(session, dealt, money)

    before = _before(session, dealt)
    after: dict[str, int] = {}
    if stacks is not None:
        after = _stacks_after(stacks, money)
        before["eliminated"] = [dealt[p].player_id for p, x in after.items() if x <= 0]

    fields = {
        "number": number,
        "kind": kind,
        "status": Hand.Status.RECORDED,
        "record": record,
        "verdict": verdict,
        "before": before,
        "idempotency_key": key,
        "seed": str(seed or "")[:80],
        "created_by": actor(user),
        "shortfalls": money.shortfalls,
    }
    hand = _hand_row(session, pending, fields)
    legs = _write_money(session, seats, hand, result, money, user, before, after)
    if actions and (pending is None or not hand.actions.exists()):
        HandAction.objects.bulk_create(
            [HandAction(hand=hand, seq=i, action=a) for i, a in enumerate(actions)]
        )
    announce_table_hand(session)
    announce_change(session, "hand_recorded", {"hand": hand})
    # The session as this hand left it (callers need not read it again).
    hand.session = session
    return hand, legs


def record_hand(**kwargs: Any) -> tuple[Hand, bool]:
    """Verify and settle one hand; returns (hand, created). ``record_hand_with_legs``'s
    arguments; the legs it hands back are left out."""
    hand, created, _legs = record_hand_with_legs(**kwargs)
    return hand, created


def record_hand_with_legs(
    *,
    session_id: int,
    entry: dict,
    idempotency_key: str,
    expected_version: int | None,
    user: Actor,
    kind: str = "reported",
    seed: str = "",
    actions: Sequence[Mapping[str, object]] | None = None,
    hand_id: int | None = None,
    confirm_surprises: bool = False,
    locked: GameSession | None = None,
) -> tuple[Hand, bool, list[PostedLeg] | None]:
    """Verify and settle one hand; returns (hand, created, legs): the players' legs it
    wrote, for the result screen (``games.sessions.statements.hand_deltas``; None for a
    hand recorded before, whose legs are read where needed). Handing them back saves the
    record POST a read of the legs: 10.9 % and 12.0 % of the request in two runs of
    bench/devices.py (``legs_along``, issue #31); tests/test_sql_contracts.py holds the
    legs to the ones read back.

    ``locked``: the session row the caller already locked in its own open transaction
    (``games.access.session_for(..., lock=True)``, which reads the row and the user's
    role in one statement); the hand is then settled in that
    transaction without a savepoint, so any exception here must roll it back (the caller
    lets it leave its ``atomic`` block). Without it, the session is locked here.

    With ``confirm_surprises`` a hand that charges three or more bourrés or a penalty
    above ten antes raises ``NeedsConfirmation`` (nothing written); the caller shows what
    it costs whom and submits again without the flag once the table agrees.

    ``entry`` is the table's part of a HAND_RECORD.md record; the session supplies
    ``players``, ``dealer``, ``carry``, ``excused``, ``rules`` (and pending ``forfeits``).
    An entry that states one of those differently is rejected (``session_mismatch``).
    A digital hand created beforehand as ``in_progress`` (found by its idempotency key, or
    named by the optional ``hand_id``) is completed instead of a new one being created;
    a ``hand_id`` that is already recorded or voided is returned as is, like a retry.
    """
    key = idempotency_key or ""
    if len(key) > 80:
        raise SetupError("bad_key", "idempotency key longer than 80 characters", "key")
    if kind not in Hand.Kind.values:
        raise SetupError("bad_kind", f"unknown hand kind {kind!r}", "kind", params={"kind": kind})
    if locked is not None and (
        locked.pk != session_id or not transaction.get_connection().in_atomic_block
    ):
        raise RuntimeError("record_hand(locked=...) needs that session locked by the caller")
    with transaction.atomic(savepoint=locked is None):
        session = locked if locked is not None else lock_session(session_id)
        # After the lock, so that a hand committed by the previous lock holder is seen.
        seat_rows, (last, in_progress, existing) = sql.seats_and_hand_lookup(session.pk, key)
        pending: Hand | None = None
        if existing is not None:
            hand = Hand.objects.get(pk=existing)
            if hand.status != Hand.Status.IN_PROGRESS:
                hand.session = session
                return hand, False, None
            pending = hand
        elif hand_id is not None:
            found = Hand.objects.filter(session_id=session.pk, pk=hand_id).first()
            if found is None:
                raise SetupError("bad_hand", "no such hand in this session", "hand_id")
            if found.status != Hand.Status.IN_PROGRESS:
                found.session = session
                return found, False, None
            pending = found
        _require_open(session)
        if expected_version is not None and expected_version != session.version:
            raise StaleState(session.version, expected_version)
        refusal = table_deal_refusal(session) if pending is None else None
        if refusal is not None:
            raise HandRejected({"valid": False, "errors": []}, [refusal])
        if pending is None and in_progress is not None:
            # The digital hand owns the table's next pot: one hand at a time.
            raise HandRejected(
                {"valid": False, "errors": []},
                [
                    {
                        "code": "digital_hand_in_progress",
                        "message": "a digital hand is being played at this table; "
                        "finish or cancel it before recording another hand",
                    }
                ],
            )

        number = (last or 0) + 1
        seats = _seats(session, seat_rows)
        hand, legs = _settle(
            session,
            pending,
            number,
            entry,
            key,
            kind,
            seed,
            actions,
            user,
            confirm_surprises,
            seats,
        )
    return hand, True, legs


def complete_hand(*, session: GameSession, hand: Hand, entry: dict, user: Actor) -> Hand:
    """Settle a digital hand in progress inside the caller's transaction: what
    ``record_hand(hand_id=...)`` does, without taking the lock again.

    The caller must be in ``transaction.atomic()`` and have read ``session`` with
    ``select_for_update()`` in it (``games.digital`` locks the session and the hand in one
    statement). A hand that is no longer in progress is returned as is. Raises
    HandRejected or SessionClosed like ``record_hand``; the caller's transaction must
    then be rolled back (nothing of the hand is kept)."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("complete_hand runs inside the caller's locked transaction")
    if hand.session_id != session.pk:
        raise SetupError("bad_hand", "no such hand in this session", "hand_id")
    if hand.status != Hand.Status.IN_PROGRESS:
        return hand
    _require_open(session)
    seat_rows, (last, _, _) = sql.seats_and_hand_lookup(session.pk, "")
    key = hand.idempotency_key or f"digital-{hand.pk}"
    seats = _seats(session, seat_rows)
    settled, _legs = _settle(
        session, hand, (last or 0) + 1, entry, key, Hand.Kind.DIGITAL, hand.seed, None, user,
        seats=seats,
    )  # fmt: skip
    return settled


# -- undo -------------------------------------------------------------------------------------------


def reverse_postings(
    session: GameSession,
    originals: list[Posting],
    hands: list[Hand],
    why: str,
    user: Actor,
    seats: list[_Seat],
) -> None:
    """A ``REVERSAL`` of each posting, leg for leg, on the posting's own hand (``hands``,
    in the same order): what an undo and a correction write."""
    memos = []
    for p, h in zip(originals, hands, strict=True):
        assert h.number is not None  # a recorded hand's
        memos.append(reversal_memo(h.number, why, p.kind))
    _post(
        session,
        session.club_id,
        [
            (Posting.Kind.REVERSAL, {leg.account_id: -leg.amount for leg in p.legs.all()}, memo)
            for p, memo in zip(originals, memos, strict=True)
        ],
        user,
        hands=hands,
        reverses=originals,
        owners=_owners(seats),
    )


def _moved_in_since(session: GameSession, hand: Hand) -> int:
    """Chips moved into this session's pot outside hands after ``hand`` was recorded (a
    broken tournament table's pot: ``postings.move_pot``); 0 at every other table."""
    if not session.chip_limited or session.pot_account_id is None:
        return 0
    first = Posting.objects.filter(hand=hand).order_by("pk").values_list("pk", flat=True).first()
    if first is None:
        return 0
    return int(
        Leg.objects.filter(
            account_id=session.pot_account_id,
            posting__session=session,
            posting__hand__isnull=True,
            posting__kind=Posting.Kind.CARRY_IN,
            posting__pk__gt=first,
        ).aggregate(s=Sum("amount"))["s"]
        or 0
    )


def void_hand(
    *,
    session_id: int,
    hand_id: int,
    user: Actor,
    reason: str = "",
    expected_version: int | None = None,
) -> Hand:
    """Void the latest recorded hand: reverse its postings, restore the state before it.

    Voiding a hand that is already voided returns it unchanged (a double-tapped Undo).
    Raises VoidRefused for any other hand than the latest recorded one. The hand comes
    back with the session as the void left it (``hand.session``).
    """
    with transaction.atomic():
        session = lock_session(session_id)
        hand = Hand.objects.filter(session_id=session.pk, pk=hand_id).first()
        if hand is None:
            raise VoidRefused("not_found", "no such hand in this session", message_id="bad_hand")
        hand.session = session
        if hand.status == Hand.Status.VOIDED:
            return hand
        _require_open(session)
        if expected_version is not None and expected_version != session.version:
            raise StaleState(session.version, expected_version)
        if hand.status != Hand.Status.RECORDED:
            raise VoidRefused(
                "not_recorded", "this hand is still being played", message_id="hand_in_play"
            )
        latest = (
            Hand.objects.filter(session_id=session.pk, status=Hand.Status.RECORDED)
            .order_by("-number")
            .values_list("pk", flat=True)
            .first()
        )
        if latest != hand.pk:
            raise VoidRefused(
                "not_latest", "only the latest hand can be undone; undo the later ones first"
            )
        originals = list(
            Posting.objects.filter(hand=hand, reverses__isnull=True, reversed_by__isnull=True)
            .exclude(kind=Posting.Kind.REVERSAL)
            .prefetch_related("legs")
        )
        seats = _seats(session)
        reverse_postings(session, originals, [hand] * len(originals), "voided", user, seats)
        # The hand's counts leave the players' club totals with it (money went above).
        _post(session, session.club_id, [], user, counts=hand_counts(hand, -1))
        before = hand.before
        back = before.get("eliminated") or []
        if back:
            Seat.objects.filter(session=session, player_id__in=back).update(
                active=True, eliminated_at=None
            )
            # A newcomer may have taken a seat meanwhile (a tournament's free seat).
            seat_back(session, list(Seat.objects.filter(session=session, player_id__in=back)))
        # Read again: seats re-activated above, stacks as the reversal left them (the
        # stacks before the hand).
        seats = _seats(session)
        eligible = {s.player_id for s in _dealt_in(session, seats)}
        dealer_id, forfeits = _keep_dealer_valid(
            seats, before["next_dealer"], eligible, list(before["forfeits"])
        )
        # The pot as the reversal left it: the pot before the hand, plus any chips a
        # broken tournament table's pot brought in since (postings.move_pot, RULES.md T1).
        session.carry = before["carry"] + _moved_in_since(session, hand)
        session.next_dealer_id = dealer_id
        session.excused = list(before["excused"])
        session.forfeits = forfeits
        session.hands_count = before["hands_count"]
        session.bump()
        session.save(update_fields=HAND_FIELDS)
        hand.status = Hand.Status.VOIDED
        hand.voided_at = timezone.now()
        hand.voided_by = actor(user)
        hand.void_reason = (reason or "")[:200]
        hand.save(update_fields=["status", "voided_at", "voided_by", "void_reason"])
        announce_table_hand(session)
        _event(
            session,
            "hand_voided",
            {"hand": hand.pk, "number": hand.number, "reason": hand.void_reason},
            user,
        )
    return hand
