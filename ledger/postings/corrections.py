"""Correcting any earlier hand: the hand and every later one are settled again.

On a paper pad a host simply fixes hand 8 of 20; here hand 8's new record changes the
chain that follows it (the carried pot, who is excused, who deals, forfeited deals), so
``correct_hand`` replays hands 8..20 from the state hand 8 started from, each later hand
with the table's part of its own record (or the host's fix of it), and writes the
difference in one transaction:

- every hand whose money changed gets a ``REVERSAL`` of each of its live postings and
  new postings (through the same ``_post`` as recording, so the running totals follow);
  a later hand whose antes, payout and penalties are unchanged keeps its postings;
- every replayed hand keeps its number and row: ``record``, ``verdict`` and ``before``
  are the new ones, and when its record or result changed the earlier version is kept
  in ``Hand.corrections`` (with who, when and why); the ledger keeps both versions;
- the session's state (carry, dealer, excused, forfeits) is the one the last hand left.

A later hand that no longer stands under the new chain (a card log whose lead is now
out of turn, a dealer who may not pass...) raises ``ChainBroken`` naming that hand and
why, and nothing is written; the caller passes a fix for it in ``fixes`` and tries again.
``apply=False`` computes everything (the change of each player's net, the hands that
change) without writing, for the confirmation screen.

Refused (``CorrectionRefused``): a hand that is not recorded, a tournament (chip-limited)
table — its chips moved between tables after the hand, so its past cannot be replayed —
and a table with a digital hand being played.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, cast

from django.db import transaction
from django.utils import timezone

from games.engine.contracts import HandResult, Verdict
from games.engine.record import SESSION_KEYS
from games.models import GameSession, Hand
from ledger import sql
from ledger.errors import ChainBroken, CorrectionRefused, HandRejected, StaleState
from ledger.models import Posting
from ledger.postings._common import (
    HAND_FIELDS,
    Actor,
    _dealt_in,
    _event,
    _owners,
    _post,
    _require_open,
    _Seat,
    _seats,
    actor,
    lock_session,
)
from ledger.postings.hands import (
    _advance,
    _before,
    _hand_entries,
    _Money,
    _money,
    _verified,
    hand_counts,
    reverse_postings,
)

__all__ = ["Correction", "HandChange", "correct_hand", "table_part"]


def table_part(record: dict[str, Any]) -> dict[str, Any]:
    """What the table reported of a hand (the session supplies the rest)."""
    return {k: v for k, v in record.items() if k not in SESSION_KEYS}


@dataclass
class HandChange:
    """One replayed hand whose record or money changed."""

    number: int
    hand_id: int
    corrected: bool  # the host changed its record (else: re-settled by the chain)
    old_result: dict[str, Any]  # as stored
    new_result: HandResult
    money_changed: bool


@dataclass
class Correction:
    """What a correction does (or did): by player name, the change of net and the net
    after; the hands that change; whether it was written."""

    number: int
    changes: dict[str, int]
    nets_after: dict[str, int]
    hands: list[HandChange] = field(default_factory=list)
    applied: bool = False
    version: int = 0
    session: GameSession | None = None


@dataclass
class _Step:
    hand: Hand
    record: dict[str, Any]
    verdict: Verdict
    before: dict[str, Any]
    money: _Money
    seats: list[_Seat]

    @property
    def result(self) -> HandResult:
        result = self.verdict["result"]
        assert result is not None  # _verified lets only a complete hand through
        return result


def _seats_at(hand: Hand, seats: list[_Seat]) -> list[_Seat]:
    """The seats as they were at ``hand``: dealt in are the players its ``before``
    names (with the names they had then); the clockwise order is the session's."""
    then = (hand.before or {}).get("seats") or {}
    if not then:
        return seats
    name_of = {pid: name for name, pid in then.items()}
    return [
        _Seat(s.player_id, name_of.get(s.player_id, s.name), s.player_id in name_of, False,
              s.account_id, 0)
        for s in seats
    ]  # fmt: skip


def _old_money(hand: Hand) -> _Money:
    result = cast(HandResult, hand.result)  # stored from its verdict's result
    return _money(result, int((hand.before or {}).get("carry", 0)), None)


def _net_by_id(money: _Money, ids: dict[str, int]) -> dict[int, int]:
    net: dict[int, int] = defaultdict(int)
    for p, x in money.antes.items():
        net[ids[p]] -= x
    for p, x in money.payouts.items():
        net[ids[p]] += x
    for p, x in money.penalties.items():
        net[ids[p]] -= x
    return net


def _same_money(a: _Money, b: _Money) -> bool:
    return (a.antes, a.payouts, a.penalties) == (b.antes, b.payouts, b.penalties)


def _replay(
    session: GameSession, seats: list[_Seat], chain: list[Hand], entries: dict[int, Any]
) -> list[_Step]:
    """Settle the chain again, in memory, from the state its first hand started from
    (``session`` is moved on as each hand is settled; nothing is saved)."""
    first = chain[0].before
    session.carry = first["carry"]
    session.next_dealer_id = first["next_dealer"]
    session.excused = list(first["excused"])
    session.forfeits = list(first["forfeits"])
    session.hands_count = first["hands_count"]
    steps = []
    for hand in chain:
        seats_then = _seats_at(hand, seats)
        try:
            record, verdict = _verified(
                session, seats_then, entries[int(hand.number or 0)], rules=hand.record.get("rules")
            )
        except HandRejected as rejected:
            errors = rejected.errors or [
                {"code": "hand_rejected", "message": "this hand no longer adds up"}
            ]
            raise ChainBroken(int(hand.number or 0), rejected.verdict, errors) from rejected
        result = verdict["result"]
        assert result is not None  # _verified lets only a complete hand through
        money = _money(result, session.carry, None)
        before = _before(session, {s.name: s for s in _dealt_in(session, seats_then)})
        steps.append(_Step(hand, record, verdict, before, money, seats_then))
        _advance(session, seats_then, result, money, before, {})
    return steps


def correct_hand(
    *,
    session_id: int,
    number: int,
    entry: dict[str, Any],
    user: Actor,
    fixes: dict[int, dict[str, Any]] | None = None,
    expected_version: int | None = None,
    apply: bool = True,
    reason: str = "",
) -> Correction:
    """Correct hand ``number`` of the session with the table's part of its record
    (``entry``, as ``record_hand`` takes it) and re-settle every later hand.

    ``fixes`` maps later hand numbers to corrected entries of their own (a later hand the
    chain made impossible, see ``ChainBroken``). With ``apply=False`` nothing is written
    and the returned ``Correction`` says what would change. Raises ``StaleState`` (the
    table moved on since the confirmation screen), ``SessionClosed``,
    ``CorrectionRefused`` and ``ChainBroken``.
    """
    fixes = {int(n): e for n, e in (fixes or {}).items()}
    with transaction.atomic():
        session = lock_session(session_id)
        _require_open(session)
        if expected_version is not None and expected_version != session.version:
            raise StaleState(session.version, expected_version)
        if session.chip_limited:
            raise CorrectionRefused(
                "tournament_table",
                "a tournament table's chips have moved on since; only its latest hand "
                "can be undone",
            )
        hands = Hand.objects.filter(session_id=session.pk)
        if hands.filter(status=Hand.Status.IN_PROGRESS).exists():
            raise CorrectionRefused(
                "digital_hand_in_progress",
                "a digital hand is being played at this table; finish or cancel it first",
            )
        chain = list(hands.filter(status=Hand.Status.RECORDED, number__gte=number))
        if not chain or chain[0].number != number:
            raise CorrectionRefused(
                "not_recorded",
                f"hand {number} is not a recorded hand of this session",
                params={"number": number},
            )
        entries = {int(h.number or 0): table_part(h.record) for h in chain}
        entries.update({n: e for n, e in fixes.items() if n in entries})
        entries[number] = entry
        seats = _seats(session)
        version = session.version
        nets_before = session.net_by_player()
        steps = _replay(session, seats, chain, entries)
        correction = _summarise(number, steps, seats, nets_before, set(fixes) | {number})
        correction.version = version
        if apply:
            _write(session, seats, steps, correction, user, reason)
            correction.applied = True
        correction.session = session
    return correction


def _summarise(
    number: int,
    steps: list[_Step],
    seats: list[_Seat],
    nets_before: dict[int, int],
    fixed: set[int],
) -> Correction:
    delta: dict[int, int] = defaultdict(int)
    changes = []
    for step in steps:
        hand = step.hand
        old = _old_money(hand)
        ids = {**hand.before.get("seats", {}), **step.before["seats"]}
        for pid, x in _net_by_id(old, ids).items():
            delta[pid] -= x
        for pid, x in _net_by_id(step.money, ids).items():
            delta[pid] += x
        same_money = _same_money(old, step.money)
        if not same_money or step.record != hand.record or step.verdict != hand.verdict:
            changes.append(
                HandChange(
                    int(hand.number or 0),
                    hand.pk,
                    hand.number in fixed and step.record != hand.record,
                    hand.result,
                    step.result,
                    not same_money,
                )
            )
    names = {s.player_id: s.name for s in seats}
    return Correction(
        number=number,
        changes={names[pid]: delta.get(pid, 0) for pid in names},
        nets_after={names[pid]: nets_before.get(pid, 0) + delta.get(pid, 0) for pid in names},
        hands=changes,
    )


def _add_counts(into: dict[int, dict[str, int]], counts: dict[int, dict[str, int]]) -> None:
    for player_id, changes in counts.items():
        for counter, change in changes.items():
            into[player_id][counter] += change


# One piece (radon D): reverse, re-post, rewrite records and counts, bump, in one order
# inside the caller's transaction; the counts need the records before and after.
def _write(
    session: GameSession,
    seats: list[_Seat],
    steps: list[_Step],
    correction: Correction,
    user: Actor,
    reason: str,
) -> None:
    """Reverse and re-post the hands whose money changed, store every replayed hand's
    new record, and save the state the last hand left."""
    moved = {c.hand_id for c in correction.hands if c.money_changed}
    changed = {c.hand_id: c for c in correction.hands}
    owners = _owners(seats)
    originals = list(
        Posting.objects.filter(hand_id__in=moved, reversed_by__isnull=True)
        .exclude(kind=Posting.Kind.REVERSAL)
        .order_by("id")
        .prefetch_related("legs")
    )
    by_id: dict[int | None, Hand] = {s.hand.pk: s.hand for s in steps}
    reverse_postings(
        session, originals, [by_id[p.hand_id] for p in originals], "corrected", user, seats
    )
    entries, hands = [], []
    for step in steps:
        if step.hand.pk in moved:
            new = _hand_entries(session, step.seats, step.hand, step.result, step.money)
            entries += new
            hands += [step.hand] * len(new)
    _post(session, session.club_id, entries, user, owners=owners, hands=hands)

    counts: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    now = timezone.now().isoformat()
    by = actor(user)
    why = (reason or "").strip()[:200]
    rewritten = {
        s.hand.pk
        for s in steps
        if s.hand.pk in changed or s.before != s.hand.before or s.record != s.hand.record
    }
    for step in steps:
        hand = step.hand
        change = changed.get(hand.pk)
        if change is not None:
            hand.corrections = [
                *hand.corrections,
                {
                    "at": now,
                    "by": by.get_username() if by else "",
                    "reason": why if change.corrected or hand.number == correction.number
                    else f"re-settled after hand {correction.number} was corrected",
                    "record": hand.record,
                    "verdict": hand.verdict,
                },
            ]  # fmt: skip
        live = hand.status == Hand.Status.RECORDED
        if live:
            _add_counts(counts, hand_counts(hand, -1))
        hand.record, hand.verdict, hand.before = step.record, step.verdict, step.before
        if live:
            _add_counts(counts, hand_counts(hand))
    # Hands whose stored state is unchanged (the chain has settled back) are not written.
    sql.rewrite_hands([s.hand for s in steps if s.hand.pk in rewritten])
    # The rewritten records' counts (hands played, passed, bourrés, reneges) in the
    # players' club totals, through the ledger's one writer (issue #20).
    changes = {p: dict(c) for p, c in counts.items() if any(c.values())}
    if changes:
        _post(session, session.club_id, [], user, counts=changes)
    session.bump()
    session.save(update_fields=HAND_FIELDS)
    _event(
        session,
        "hand_corrected",
        {
            "number": correction.number,
            "hands": [c.number for c in correction.hands],
            "changes": correction.changes,
            "reason": why,
        },
        user,
    )
