"""The only code that writes money: sessions, hands, voids, seats, rules, closing.

Every function that writes runs in one ``transaction.atomic()`` and starts by locking the
session row with ``select_for_update()``: two phones at one table submit at the same
moment, and the lock makes the second wait until the first has committed, so it sees the
new version (StaleState) or the hand it already recorded (idempotency) instead of
recording on top of a state that no longer exists. SQLite ignores row locks but its
IMMEDIATE transactions (settings.py) serialise writers the same way.

Money model (ledger/models.py has the sign convention). Per hand, at most three postings,
in this order, exactly as the engine's verdict says:

- ``ANTE``: each player who antes → the pot (second antes and "dealer antes for all"
  included, they are in ``result.antes``);
- ``PAYOUT`` (one winner) or ``SPLIT`` (a divided split pot): the pot → the winner(s);
- ``PENALTY``: bourré and renege penalties, players → the pot (they open the next pot).

So between hands the pot account holds exactly ``session.carry`` — the engine's
``next_carry`` — and the next hand's antes go in when that hand is recorded. A void posts
a ``REVERSAL`` of each of the hand's postings; nothing is ever updated or deleted.

Decisions where the issue left room (each is tested):

- ``Hand.number`` counts every recorded hand, voided ones included (a voided hand keeps
  its number; the next hand gets a new one); ``session.hands_count`` counts live hands.
- A hand's ``before`` holds the session state before the hand (carry, next dealer,
  excused, forfeits, hands count) plus ``seats`` ({name: player id}, so statistics
  survive a renamed player) and ``eliminated`` (seats this hand knocked out of a
  chip-limited table, re-seated by a void).
- Voiding the same hand twice returns it unchanged (a double-tapped Undo).
- Closing a closed session returns it unchanged (a double-tapped Close).
- ``share_equally`` shares the leftover among the players who paid antes or penalties
  into the pot since it was last empty (a pot that keeps a capped remainder under
  ``limit_caps_winner`` was never empty, so then: everybody who paid in this session).
  The indivisible remainder, or the whole pot when nobody paid into it (it came from the
  club), goes to the club's carry account. Nothing is rounded away.
- Chip-limited tables never pull the club's carried pot in (it is cash, not tournament
  chips); leftover chips follow the chosen policy like any other pot.
- Chip-limited shortfalls: antes are paid first, from the stack before the hand. If the
  pot actually collected is smaller than what the verdict pays out (an ante was short),
  the payees share what is there (equal shares, remainder stays in the pot). Penalties are
  paid from the stack after antes and payouts. Every unpaid amount is summed per player
  in ``Hand.shortfalls``; every dealt-in player left with no chips is eliminated
  (``active=False``, ``eliminated_at``) — a short ante whose player then won the pot
  leaves chips, so that player stays.
- Pending forfeits (R16, corrected reneges R39) are passed to the engine as
  ``forfeits``; its ``forfeits_next`` is kept. Forfeits of players not dealt in stay
  pending until the deal reaches them.
- ``set_seat_active(active=False)`` refuses to leave fewer than two players at a home
  table (a chip-limited tournament table may be emptied by seat moves); seating a ninth
  active player is refused (R3).
- ``record_hand`` takes an optional ``hand_id`` (added for digital hands; see there).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Count, F, Max, Q, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from games.engine import RuleError, Rules, verify
from games.models import GameSession, Hand, HandAction, Player, Seat, SessionEvent

from . import sql
from .models import Account, Leg, Posting, SettlementMark

__all__ = [
    "HandRejected",
    "SessionClosed",
    "SetupError",
    "StaleState",
    "VoidRefused",
    "add_seat",
    "buy_in",
    "cash_out",
    "change_rules",
    "check_invariants",
    "close_session",
    "complete_hand",
    "kitty_balance",
    "lock_session",
    "award_pot",
    "mark_transfer_paid",
    "player_stacks",
    "pot_balance",
    "record_hand",
    "session_balances",
    "session_state",
    "set_seat_active",
    "start_session",
    "void_hand",
]

MIN_PLAYERS, MAX_PLAYERS = 2, 8  # R3
SESSION_FIELDS = ("players", "dealer", "carry", "excused", "rules", "forfeits")
# Postings that move chips between the table and the bank: part of a player's stack, not
# of what they won or lost at the table.
BANK_KINDS = (Posting.Kind.BUY_IN, Posting.Kind.CASH_OUT)
TABLE_KINDS = tuple(k for k in Posting.Kind.values if k not in BANK_KINDS)
# The session's running totals of the ledger, saved with every write that posts.
BOOK_FIELDS = ["nets", "stacks"]
# What recording or voiding a hand changes on the session row.
HAND_FIELDS = [
    "carry",
    "next_dealer",
    "excused",
    "forfeits",
    "hands_count",
    "version",
    *BOOK_FIELDS,
]


# -- errors ---------------------------------------------------------------------------------


class HandRejected(ValueError):
    """The engine found the record invalid or not finished; nothing was written."""

    def __init__(self, verdict: dict[str, Any], errors: list[dict[str, Any]] | None = None):
        self.verdict = verdict
        self.errors = errors if errors is not None else list(verdict.get("errors") or [])
        first = self.errors[0]["message"] if self.errors else "the hand was rejected"
        super().__init__(first)


class StaleState(ValueError):
    """The submission was made against an older version of the session."""

    def __init__(self, current_version: int, expected_version: int | None = None):
        self.current_version = current_version
        self.expected_version = expected_version
        super().__init__(
            f"the session changed meanwhile (now version {current_version}, "
            f"the submission was made against version {expected_version})"
        )


class SessionClosed(ValueError):
    """The session is closed: nothing more can be recorded or changed."""


class SetupError(ValueError):
    """Bad input to a session operation. ``code`` says what, ``key`` which field."""

    def __init__(self, code: str, message: str, key: str | None = None):
        super().__init__(message)
        self.code = code
        self.key = key


class VoidRefused(ValueError):
    """Only the latest recorded hand of an open session can be voided."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


# -- small helpers --------------------------------------------------------------------------


def _user(user):
    """The user to store in created_by (None for anonymous callers)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return user


def lock_session(session_id: int) -> GameSession:
    """The session row, locked until the transaction ends. Every write to a session
    starts here (here and in ``games.digital``), so they apply one after the other (see
    the module docstring). Raises GameSession.DoesNotExist."""
    return sql.lock_session(session_id)


def _require_open(session: GameSession) -> None:
    if not session.is_open:
        raise SessionClosed(f"session {session.name!r} is closed")


def _check_amount(amount: object, key: str = "amount") -> int:
    if type(amount) is not int or amount <= 0:
        raise SetupError("bad_amount", f"{key} must be a whole number above 0", key)
    return amount


def _player_accounts(club_id: int, player_ids: Iterable[int]) -> dict[int, int]:
    """player id → account id, creating missing accounts (race-safe: a concurrent
    creator's row wins and is read back)."""
    ids = set(player_ids)
    Account.objects.bulk_create(
        [Account(club_id=club_id, kind=Account.Kind.PLAYER, player_id=pid) for pid in ids],
        ignore_conflicts=True,
    )
    rows = Account.objects.filter(kind=Account.Kind.PLAYER, player_id__in=ids)
    return dict(rows.values_list("player_id", "pk"))


def _club_account(club_id: int, kind: str, lock: bool = False) -> Account:
    Account.objects.bulk_create([Account(club_id=club_id, kind=kind)], ignore_conflicts=True)
    qs = Account.objects.filter(club_id=club_id, kind=kind)
    if lock:
        # Two sessions of one club may start or close at once; the carry account's row
        # lock makes "read its balance, move it" atomic, so a leftover is pulled once.
        qs = qs.select_for_update()
    return qs.get()


def _balance(account_id: int) -> int:
    return Leg.objects.filter(account_id=account_id).aggregate(s=Coalesce(Sum("amount"), 0))["s"]


def _post(
    session: GameSession | None,
    club_id: int,
    entries: list[tuple[str, dict[int, int], str]],
    user,
    hand: Hand | None = None,
    reverses: list[Posting] | None = None,
    owners: Mapping[int, int] | None = None,
) -> list[Posting]:
    """Write postings given as (kind, {account id: amount}, memo); two queries in all.

    Zero legs are dropped and a posting left without legs is not written. Legs must sum
    to zero: checked here, and on PostgreSQL again by the database at commit.

    ``owners`` maps the player accounts among the legs to their player ids: their legs
    are added to the session's running totals (``nets``, ``stacks``), which the caller
    saves with the session row (``BOOK_FIELDS``) in the same transaction.
    """
    postings: list[Posting] = []
    legs_of: list[dict[int, int]] = []
    for i, (kind, legs, memo) in enumerate(entries):
        legs = {a: x for a, x in legs.items() if x}
        if sum(legs.values()) != 0:
            raise AssertionError(f"unbalanced {kind} posting: {legs}")
        if not legs:
            continue
        postings.append(
            Posting(
                club_id=club_id,
                session=session,
                hand=hand,
                kind=kind,
                memo=memo[:200],
                reverses=reverses[i] if reverses else None,
                created_by=_user(user),
            )
        )
        legs_of.append(legs)
        if session is not None and owners:
            _add_to_books(session, kind, legs, owners)
    if not postings:
        return []
    sql.insert_postings(postings)
    sql.insert_legs(
        [(p.pk, a, x) for p, legs in zip(postings, legs_of, strict=True) for a, x in legs.items()]
    )
    return postings


def _add_to_books(
    session: GameSession, kind: str, legs: Mapping[int, int], owners: Mapping[int, int]
) -> None:
    for account_id, amount in legs.items():
        player_id = owners.get(account_id)
        if player_id is None:
            continue
        key = str(player_id)
        session.stacks[key] = session.stacks.get(key, 0) + amount
        if kind not in BANK_KINDS:
            session.nets[key] = session.nets.get(key, 0) + amount


def _event(session: GameSession, kind: str, data: dict[str, Any], user) -> SessionEvent:
    return SessionEvent.objects.create(
        session=session, kind=kind, data=data, created_by=_user(user)
    )


def _rules_dict(rules: Mapping[str, Any] | None) -> dict[str, Any]:
    """Validated, complete rules (every switch spelled out). Raises RuleError (a
    ValueError with .code and .key)."""
    return Rules.from_dict(dict(rules or {})).to_dict()


# -- seats and the deal ----------------------------------------------------------------------


@dataclass
class _Seat:
    player_id: int
    name: str
    active: bool
    eliminated: bool
    account_id: int | None = None
    stack: int = 0


def _seats(session: GameSession) -> list[_Seat]:
    """The session's seats in clockwise order, in one query, with their account ids and
    stacks (the stacks from the session row as the caller read it)."""
    chips = session.stacks
    return [
        _Seat(player_id, name, active, eliminated, account_id, chips.get(str(player_id), 0))
        for player_id, name, active, eliminated, account_id in sql.seat_rows(session.pk)
    ]


def _owners(seats: Iterable[_Seat]) -> dict[int, int]:
    """account id → player id of the seats (for ``_post``)."""
    return {s.account_id: s.player_id for s in seats if s.account_id is not None}


def _dealt_in(session: GameSession, seats: list[_Seat]) -> list[_Seat]:
    """Who is dealt the next hand: active seats; on a chip-limited table only those with
    chips in front of them."""
    return [s for s in seats if s.active and (not session.chip_limited or s.stack > 0)]


def _keep_dealer_valid(
    seats: list[_Seat], dealer_id: int | None, eligible: set[int], forfeits: list[int]
) -> tuple[int | None, list[int]]:
    """The dealer if still dealt in; otherwise the deal passes to the next eligible seat
    on the dealer's left (R8), skipping — and so clearing — a pending forfeit (R16, R39)
    unless every candidate owes one. Returns (dealer id, forfeits still pending)."""
    if dealer_id in eligible or not eligible:
        return dealer_id, forfeits
    order = [s.player_id for s in seats]
    start = order.index(dealer_id) if dealer_id in order else -1
    around = [order[(start + k) % len(order)] for k in range(1, len(order) + 1)]
    candidates = [p for p in around if p in eligible]
    pending = set(forfeits)
    for i, pid in enumerate(candidates):
        if pid not in pending:
            skipped = set(candidates[:i])
            return pid, [p for p in forfeits if p not in skipped]
    return candidates[0], forfeits


def _ids_to_names(ids: Iterable[int], seats: list[_Seat], among: set[str]) -> list[str]:
    name_of = {s.player_id: s.name for s in seats}
    wanted = set(ids)
    return [name_of[s.player_id] for s in seats if s.player_id in wanted and s.name in among]


def _state(session: GameSession, seats: list[_Seat]) -> dict[str, Any]:
    dealt = _dealt_in(session, seats)
    names = [s.name for s in dealt]
    eligible = {s.player_id for s in dealt}
    dealer_id, forfeits = _keep_dealer_valid(
        seats, session.next_dealer_id, eligible, list(session.forfeits)
    )
    dealer = next((s.name for s in seats if s.player_id == dealer_id), None)
    return {
        "players": names,
        "dealer": dealer,
        "carry": session.carry,
        "excused": _ids_to_names(session.excused, seats, set(names)),
        "forfeits": _ids_to_names(forfeits, seats, set(names)),
        "rules": dict(session.rules),
        "version": session.version,
    }


def session_state(session: GameSession) -> dict[str, Any]:
    """What the next hand needs: {"players", "dealer", "carry", "excused", "rules",
    "version"} plus "forfeits" (players who owe a forfeited deal, R16/R39).

    ``players`` are the active seats in clockwise order (on a chip-limited table only
    those with chips); ``dealer`` is always one of them (R8). The same values are what
    :func:`record_hand` puts into the record, so a digital hand dealt from this state
    records cleanly as long as the version has not moved.
    """
    return _state(session, _seats(session))


# -- starting a session -----------------------------------------------------------------------


def start_session(
    *,
    club,
    name: str,
    players: list[Player],
    dealer: Player,
    rules: dict,
    currency: str,
    user,
    mode: str = "reported",
    leftover_policy: str = "carry_to_club",
    tournament_chips: dict[int, int] | None = None,
) -> GameSession:
    """Open a session: seats in the given clockwise order, the pot account, the club's
    carried-over pot pulled in (CARRY_IN), the first dealer; a "started" event.

    Raises RuleError (ValueError with .code/.key) for bad rules and SetupError for
    anything else that is wrong.
    """
    rules_dict = _rules_dict(rules)
    ids = [p.pk for p in players]
    if not MIN_PLAYERS <= len(ids) <= MAX_PLAYERS:
        raise SetupError("bad_players", "a session needs 2 to 8 players (R3)", "players")
    if len(set(ids)) != len(ids):
        raise SetupError("duplicate_player", "a player can have only one seat", "players")
    if any(p.club_id != club.pk for p in players):
        raise SetupError("unknown_player", "every player must be on the club's roster", "players")
    if dealer is None or dealer.pk not in ids:
        raise SetupError("bad_dealer", "the first dealer must be one of the players", "dealer")
    if mode not in GameSession.Mode.values:
        raise SetupError("bad_mode", f"unknown mode {mode!r}", "mode")
    if leftover_policy not in GameSession.LeftoverPolicy.values:
        raise SetupError("bad_policy", f"unknown leftover policy {leftover_policy!r}", "policy")
    if not (name or "").strip() or len(name.strip()) > 100:
        raise SetupError("bad_name", "the session needs a name of at most 100 characters", "name")
    if not (currency or "").strip() or len(currency.strip()) > 8:
        raise SetupError("bad_currency", "the currency unit is 1 to 8 characters", "currency")
    chips = dict(tournament_chips or {})
    for pid, amount in chips.items():
        if pid not in ids:
            raise SetupError("unknown_player", "chips for a player who is not seated", "chips")
        _check_amount(amount, "chips")

    with transaction.atomic():
        session = GameSession.objects.create(
            club=club,
            name=name.strip(),
            currency=currency.strip(),
            rules=rules_dict,
            mode=mode,
            leftover_policy=leftover_policy,
            chip_limited=bool(tournament_chips),
            next_dealer=dealer,
            created_by=_user(user),
        )
        pot = Account.objects.create(club=club, kind=Account.Kind.POT, session=session)
        accounts = _player_accounts(club.pk, ids)
        Seat.objects.bulk_create(
            [
                Seat(session=session, player_id=pid, position=i, account_id=accounts[pid])
                for i, pid in enumerate(ids)
            ]
        )
        session.pot_account = pot
        session.nets = {str(pid): 0 for pid in ids}
        session.stacks = dict(session.nets)
        carried = 0
        entries: list[tuple[str, dict[int, int], str]] = []
        if not session.chip_limited:
            kitty = _club_account(club.pk, Account.Kind.CARRY, lock=True)
            carried = _balance(kitty.pk)
            if carried:
                entries.append(
                    (Posting.Kind.CARRY_IN, {kitty.pk: -carried, pot.pk: carried}, "Pot carried in")
                )
        if chips:
            bank = _club_account(club.pk, Account.Kind.BANK)
            for pid in ids:
                if chips.get(pid):
                    entries.append(
                        (
                            Posting.Kind.BUY_IN,
                            {accounts[pid]: chips[pid], bank.pk: -chips[pid]},
                            "Tournament chips",
                        )
                    )
        _post(session, club.pk, entries, user, owners={a: p for p, a in accounts.items()})
        session.carry = carried
        session.save(update_fields=["carry", "pot_account", *BOOK_FIELDS])
        _event(
            session,
            "started",
            {
                "players": ids,
                "dealer": dealer.pk,
                "rules": rules_dict,
                "carried_in": carried,
                "chips": {str(k): v for k, v in chips.items()},
                "leftover_policy": leftover_policy,
            },
            user,
        )
    return session


# -- recording a hand ---------------------------------------------------------------------------


def _reject(code: str, message: str, **extra: Any) -> HandRejected:
    error = {"code": code, "message": message, **extra}
    return HandRejected({"valid": False, "errors": [error]}, [error])


def _build_record(entry: object, state: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(entry, Mapping):
        raise _reject("bad_record", "the hand must be a JSON object")
    for key in SESSION_FIELDS:
        if key not in entry or entry[key] is None:
            continue
        given, ours = entry[key], state[key]
        if key == "rules":
            try:
                same = Rules.from_dict(given) == Rules.from_dict(ours)
            except (RuleError, TypeError):
                same = False
        elif key in ("excused", "forfeits"):
            same = isinstance(given, list) and sorted(map(str, given)) == sorted(ours)
        else:
            same = given == ours
        if not same:
            raise _reject(
                "session_mismatch",
                f"{key} is {ours!r} in this session, not {given!r}: the session supplies it",
                field=key,
            )
    record = {k: v for k, v in entry.items() if k not in SESSION_FIELDS}
    for key in SESSION_FIELDS:
        if key == "forfeits" and not state[key]:
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


def _money(result: dict[str, Any], carry: int, stacks: dict[str, int] | None) -> _Money:
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


def _settle(
    session: GameSession,
    pending: Hand | None,
    number: int,
    entry: object,
    key: str,
    kind: str,
    seed: str,
    actions: list[dict] | None,
    user,
) -> Hand:
    """Verify the hand against the locked session, write it (or complete ``pending``),
    post its money and move the session on. The caller holds the session's row lock
    inside a transaction; nothing is written unless the hand is valid and complete."""
    seats = _seats(session)
    state = _state(session, seats)
    record = _build_record(entry, state)
    verdict = verify(record)
    if not verdict.get("valid"):
        raise HandRejected(verdict)
    if not verdict.get("complete"):
        nxt = (verdict.get("next") or {}).get("player")
        raise HandRejected(
            verdict,
            [
                {
                    "code": "incomplete",
                    "message": "the hand is not finished yet"
                    + (f": {nxt} is next to play" if nxt else "")
                    + " — give the tricks or the rest of the card log",
                    **({"player": nxt} if nxt else {}),
                }
            ],
        )
    result = verdict["result"]
    by_name = {s.name: s for s in seats}
    dealt = {s.name: s for s in _dealt_in(session, seats)}
    stacks = {n: s.stack for n, s in dealt.items()} if session.chip_limited else None
    money = _money(result, session.carry, stacks)

    before = {
        "carry": session.carry,
        "next_dealer": session.next_dealer_id,
        "excused": list(session.excused),
        "forfeits": list(session.forfeits),
        "hands_count": session.hands_count,
        "seats": {n: s.player_id for n, s in dealt.items()},
        "eliminated": [],
    }
    after: dict[str, int] = {}
    if stacks is not None:
        after = dict(stacks)
        for p, x in money.antes.items():
            after[p] -= x
        for p, x in money.payouts.items():
            after[p] += x
        for p, x in money.penalties.items():
            after[p] -= x
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
        "created_by": _user(user),
        "shortfalls": money.shortfalls,
    }
    if pending is not None:
        hand = pending
        for f, v in fields.items():
            setattr(hand, f, v)
        hand.save(update_fields=list(fields))
    else:
        hand = Hand.objects.create(session=session, **fields)
    if actions and (pending is None or not hand.actions.exists()):
        HandAction.objects.bulk_create(
            [HandAction(hand=hand, seq=i, action=a) for i, a in enumerate(actions)]
        )

    pot = session.pot_account_id
    acct = {n: s.account_id for n, s in by_name.items()}
    label = f"Hand {number}"
    _post(
        session,
        session.club_id,
        [
            (
                Posting.Kind.ANTE,
                {
                    **{acct[p]: -x for p, x in money.antes.items()},
                    pot: sum(money.antes.values()),
                },
                f"{label}: antes",
            ),
            (
                Posting.Kind.SPLIT if result["outcome"] == "split" else Posting.Kind.PAYOUT,
                {
                    **{acct[p]: x for p, x in money.payouts.items()},
                    pot: -sum(money.payouts.values()),
                },
                f"{label}: " + ("split pot divided" if result["outcome"] == "split" else "pot won"),
            ),
            (
                Posting.Kind.PENALTY,
                {
                    **{acct[p]: -x for p, x in money.penalties.items()},
                    pot: sum(money.penalties.values()),
                },
                f"{label}: bourré and renege penalties",
            ),
        ],
        user,
        hand=hand,
        owners=_owners(seats),
    )

    # The state before the next hand.
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
    session.bump()
    session.save(update_fields=HAND_FIELDS)
    # The session as this hand left it (callers need not read it again).
    hand.session = session
    return hand


def record_hand(
    *,
    session_id: int,
    entry: dict,
    idempotency_key: str,
    expected_version: int | None,
    user,
    kind: str = "reported",
    seed: str = "",
    actions: list[dict] | None = None,
    hand_id: int | None = None,
) -> tuple[Hand, bool]:
    """Verify and settle one hand; returns (hand, created).

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
        raise SetupError("bad_kind", f"unknown hand kind {kind!r}", "kind")
    with transaction.atomic():
        session = lock_session(session_id)
        # After the lock, so that a hand committed by the previous lock holder is seen.
        last, in_progress, existing = sql.hand_lookup(session.pk, key)
        pending: Hand | None = None
        if existing is not None:
            hand = Hand.objects.get(pk=existing)
            if hand.status != Hand.Status.IN_PROGRESS:
                hand.session = session
                return hand, False
            pending = hand
        elif hand_id is not None:
            hand = Hand.objects.filter(session_id=session.pk, pk=hand_id).first()
            if hand is None:
                raise SetupError("bad_hand", "no such hand in this session", "hand_id")
            if hand.status != Hand.Status.IN_PROGRESS:
                hand.session = session
                return hand, False
            pending = hand
        _require_open(session)
        if expected_version is not None and expected_version != session.version:
            raise StaleState(session.version, expected_version)
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
        hand = _settle(session, pending, number, entry, key, kind, seed, actions, user)
    return hand, True


def complete_hand(*, session: GameSession, hand: Hand, entry: dict, user) -> Hand:
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
    last, _, _ = sql.hand_lookup(session.pk, "")
    key = hand.idempotency_key or f"digital-{hand.pk}"
    return _settle(
        session, hand, (last or 0) + 1, entry, key, Hand.Kind.DIGITAL, hand.seed, None, user
    )


# -- undo -------------------------------------------------------------------------------------------


def void_hand(
    *, session_id: int, hand_id: int, user, reason: str = "", expected_version: int | None = None
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
            raise VoidRefused("not_found", "no such hand in this session")
        hand.session = session
        if hand.status == Hand.Status.VOIDED:
            return hand
        _require_open(session)
        if expected_version is not None and expected_version != session.version:
            raise StaleState(session.version, expected_version)
        if hand.status != Hand.Status.RECORDED:
            raise VoidRefused("not_recorded", "this hand is still being played")
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
        _post(
            session,
            session.club_id,
            [
                (
                    Posting.Kind.REVERSAL,
                    {leg.account_id: -leg.amount for leg in p.legs.all()},
                    f"Hand {hand.number} voided: reverses {p.get_kind_display().lower()}",
                )
                for p in originals
            ],
            user,
            hand=hand,
            reverses=originals,
            owners=_owners(seats),
        )
        before = hand.before
        back = before.get("eliminated") or []
        if back:
            Seat.objects.filter(session=session, player_id__in=back).update(
                active=True, eliminated_at=None
            )
        # Read again: seats re-activated above, stacks as the reversal left them (the
        # stacks before the hand).
        seats = _seats(session)
        eligible = {s.player_id for s in _dealt_in(session, seats)}
        dealer_id, forfeits = _keep_dealer_valid(
            seats, before["next_dealer"], eligible, list(before["forfeits"])
        )
        session.carry = before["carry"]
        session.next_dealer_id = dealer_id
        session.excused = list(before["excused"])
        session.forfeits = forfeits
        session.hands_count = before["hands_count"]
        session.bump()
        session.save(update_fields=HAND_FIELDS)
        hand.status = Hand.Status.VOIDED
        hand.voided_at = timezone.now()
        hand.voided_by = _user(user)
        hand.void_reason = (reason or "")[:200]
        hand.save(update_fields=["status", "voided_at", "voided_by", "void_reason"])
        _event(
            session,
            "hand_voided",
            {"hand": hand.pk, "number": hand.number, "reason": hand.void_reason},
            user,
        )
    return hand


# -- rules and seats ----------------------------------------------------------------------------------


def change_rules(*, session_id: int, rules: dict, user) -> GameSession:
    """New house rules from the next hand on; a "rules_changed" event with old and new.
    Raises RuleError (ValueError with .code/.key) for bad rules."""
    new = _rules_dict(rules)
    with transaction.atomic():
        session = lock_session(session_id)
        _require_open(session)
        old = dict(session.rules)
        if Rules.from_dict(old).to_dict() == new:
            return session
        changed = {k: [old.get(k), v] for k, v in new.items() if old.get(k) != v}
        session.rules = new
        session.bump()
        session.save(update_fields=["rules", "version"])
        _event(session, "rules_changed", {"old": old, "new": new, "changed": changed}, user)
    return session


def _active_count(session: GameSession) -> int:
    return Seat.objects.filter(session=session, active=True).count()


def _fix_dealer(session: GameSession) -> None:
    seats = _seats(session)
    eligible = {s.player_id for s in _dealt_in(session, seats)}
    dealer_id, forfeits = _keep_dealer_valid(
        seats, session.next_dealer_id, eligible, list(session.forfeits)
    )
    session.next_dealer_id = dealer_id
    session.forfeits = forfeits


def add_seat(*, session_id: int, player: Player, user, position: int | None = None) -> Seat:
    """Seat a player between hands: at the end of the table (on the last seat's left), or
    at ``position`` (the seats from there on move one place left). A player who left is
    seated again (moved to ``position`` if given)."""
    with transaction.atomic():
        session = lock_session(session_id)
        _require_open(session)
        if player.club_id != session.club_id:
            raise SetupError("unknown_player", "the player is not on the club's roster", "player")
        seat = Seat.objects.filter(session=session, player=player).first()
        if seat is not None and seat.active:
            raise SetupError("already_seated", f"{player.name} is already seated", "player")
        if _active_count(session) >= MAX_PLAYERS:
            raise SetupError("too_many_players", "a table seats at most 8 players (R3)", "player")
        if position is not None:
            if type(position) is not int or position < 0:
                raise SetupError("bad_position", "position must be a whole number ≥ 0", "position")
            others = Seat.objects.filter(session=session, position__gte=position)
            if seat is not None:
                others = others.exclude(pk=seat.pk)
            others.update(position=F("position") + 1)
        else:
            position = (
                Seat.objects.filter(session=session).aggregate(m=Max("position"))["m"] or 0
            ) + 1
        if seat is None:
            account = _player_accounts(session.club_id, [player.pk])[player.pk]
            seat = Seat.objects.create(
                session=session, player=player, position=position, account_id=account
            )
            event = "seat_added"
        else:
            seat.position = position if position is not None else seat.position
            seat.active, seat.left_at, seat.eliminated_at = True, None, None
            seat.save(update_fields=["position", "active", "left_at", "eliminated_at"])
            event = "seat_returned"
        key = str(player.pk)
        session.nets.setdefault(key, 0)
        session.stacks.setdefault(key, 0)
        _fix_dealer(session)
        session.bump()
        session.save(update_fields=["next_dealer", "forfeits", "version", *BOOK_FIELDS])
        _event(session, event, {"player": player.pk, "position": seat.position}, user)
    return seat


def set_seat_active(*, session_id: int, player_id: int, active: bool, user) -> Seat:
    """A player leaves the table (not dealt in) or comes back, between hands. If the next
    dealer leaves, the deal passes to the next active seat on the left (R8)."""
    with transaction.atomic():
        session = lock_session(session_id)
        _require_open(session)
        seat = Seat.objects.filter(session=session, player_id=player_id).first()
        if seat is None:
            raise SetupError("not_seated", "that player has no seat in this session", "player")
        if seat.active == bool(active):
            return seat
        count = _active_count(session)
        if active and count >= MAX_PLAYERS:
            raise SetupError("too_many_players", "a table seats at most 8 players (R3)", "player")
        # A home table needs two players; a tournament table (chip-limited) is emptied
        # by the tournament's own seat moves, so it may go below.
        if not active and count <= MIN_PLAYERS and not session.chip_limited:
            raise SetupError(
                "too_few_players", "a hand needs at least 2 players (R3): close instead", "player"
            )
        now = timezone.now()
        seat.active = bool(active)
        seat.left_at = None if active else now
        if active:
            seat.eliminated_at = None
        seat.save(update_fields=["active", "left_at", "eliminated_at"])
        _fix_dealer(session)
        session.bump()
        session.save(update_fields=["next_dealer", "forfeits", "version"])
        _event(session, "seat_returned" if active else "seat_left", {"player": player_id}, user)
    return seat


# -- buy-ins and cash-outs --------------------------------------------------------------------


def _seat_account(session: GameSession, player_id: int) -> int:
    """The ledger account of a seated player; SetupError if the player has no seat."""
    account = (
        Seat.objects.filter(session=session, player_id=player_id)
        .values_list("account_id", flat=True)
        .first()
    )
    if account is None:
        raise SetupError("not_seated", "that player has no seat in this session", "player")
    return account


def _bank_move(session_id: int, player_id: int, amount: int, user, kind: str) -> Posting:
    _check_amount(amount)
    with transaction.atomic():
        session = lock_session(session_id)
        _require_open(session)
        account = _seat_account(session, player_id)
        if kind == Posting.Kind.CASH_OUT:
            stack = session.stacks.get(str(player_id), 0)
            if amount > stack:
                raise SetupError(
                    "not_enough_chips", f"only {stack} in front of that player", "amount"
                )
        sign = 1 if kind == Posting.Kind.BUY_IN else -1
        bank = _club_account(session.club_id, Account.Kind.BANK)
        (posting,) = _post(
            session,
            session.club_id,
            [(kind, {account: sign * amount, bank.pk: -sign * amount}, kind.replace("_", "-"))],
            user,
            owners={account: player_id},
        )
        session.bump()
        session.save(update_fields=["version", *BOOK_FIELDS])
        _event(session, kind, {"player": player_id, "amount": amount}, user)
    return posting


def buy_in(*, session_id: int, player_id: int, amount: int, user) -> Posting:
    """Chips from the bank to a player (player +amount, bank −amount)."""
    return _bank_move(session_id, player_id, amount, user, Posting.Kind.BUY_IN)


def cash_out(*, session_id: int, player_id: int, amount: int, user) -> Posting:
    """Chips from a player back to the bank; at most the player's stack."""
    return _bank_move(session_id, player_id, amount, user, Posting.Kind.CASH_OUT)


# -- closing ----------------------------------------------------------------------------------------


def award_pot(*, session_id: int, player_id: int, user, memo: str = "") -> Posting | None:
    """Pay the whole pot of a chip-limited (tournament) table to one seated player, e.g.
    the last player left at a table. Returns None when the pot is empty."""
    with transaction.atomic():
        session = lock_session(session_id)
        _require_open(session)
        if not session.chip_limited:
            raise SetupError(
                "not_chip_limited", "only a tournament table's pot can be awarded", "session"
            )
        account = _seat_account(session, player_id)
        pot = session.pot_account_id
        amount = _balance(pot)
        if amount == 0:
            return None
        (posting,) = _post(
            session,
            session.club_id,
            [(Posting.Kind.PAYOUT, {pot: -amount, account: amount}, memo or "Pot awarded")],
            user,
            owners={account: player_id},
        )
        session.carry = 0
        session.bump()
        session.save(update_fields=["carry", "version", *BOOK_FIELDS])
        _event(session, "pot_awarded", {"player": player_id, "amount": amount}, user)
    return posting


def _pot_contributors(session: GameSession, pot_account_id: int) -> list[int]:
    """Players who paid antes or penalties into the pot since it was last empty, in the
    order they first paid (live hands only)."""
    legs = (
        Leg.objects.filter(posting__session=session)
        .filter(Q(posting__hand__isnull=True) | Q(posting__hand__status=Hand.Status.RECORDED))
        .filter(Q(account_id=pot_account_id) | Q(account__kind=Account.Kind.PLAYER))
        .order_by("posting_id", "id")
        .values_list("posting_id", "posting__kind", "account_id", "account__player_id", "amount")
    )
    pot = 0
    contributors: dict[int, None] = {}
    current = None
    for posting_id, kind, account_id, player_id, amount in legs:
        if posting_id != current:
            if current is not None and pot == 0:
                contributors.clear()
            current = posting_id
        if account_id == pot_account_id:
            pot += amount
        elif kind in (Posting.Kind.ANTE, Posting.Kind.PENALTY) and amount < 0:
            contributors.setdefault(player_id)
    if pot == 0:
        contributors.clear()
    return list(contributors)


def close_session(*, session_id: int, user, leftover_policy: str | None = None) -> GameSession:
    """Freeze the session. The pot left over goes by policy: ``carry_to_club`` (the
    club's carry account; the club's next session pulls it in) or ``share_equally`` (equal
    shares to the players who paid into it, the remainder to the club). Closing a closed
    session returns it unchanged."""
    with transaction.atomic():
        session = lock_session(session_id)
        if not session.is_open:
            return session
        policy = leftover_policy or session.leftover_policy
        if policy not in GameSession.LeftoverPolicy.values:
            raise SetupError("bad_policy", f"unknown leftover policy {policy!r}", "policy")
        pot = session.pot_account_id
        leftover = _balance(pot)
        # Tournament chips must never turn into a cash pot: a chip-limited table's dead pot
        # goes back to the bank that issued the chips, whatever the policy.
        kitty = _club_account(
            session.club_id,
            Account.Kind.BANK if session.chip_limited else Account.Kind.CARRY,
            lock=True,
        )
        shares: dict[int, int] = {}
        to_club = leftover
        if leftover and session.chip_limited:
            pass
        elif leftover and policy == GameSession.LeftoverPolicy.SHARE_EQUALLY:
            players = _pot_contributors(session, pot)
            if players:
                share = leftover // len(players)
                shares = dict.fromkeys(players, share) if share else {}
                to_club = leftover - share * len(shares)
        if leftover:
            accounts = _player_accounts(session.club_id, shares) if shares else {}
            legs = {pot: -leftover, kitty.pk: to_club}
            for pid, x in shares.items():
                legs[accounts[pid]] = x
            kind = Posting.Kind.LEFTOVER if shares else Posting.Kind.CARRY_OUT
            if session.chip_limited:
                memo = "Dead tournament pot returned to the bank"
            elif shares:
                memo = f"Leftover pot shared; {to_club} to the club"
            else:
                memo = "Pot carried to the club"
            owners = {a: pid for pid, a in accounts.items()}
            _post(session, session.club_id, [(kind, legs, memo)], user, owners=owners)
        session.status = GameSession.Status.CLOSED
        session.closed_at = timezone.now()
        session.leftover_policy = policy
        session.carry = 0
        session.bump()
        session.save(
            update_fields=[
                "status",
                "closed_at",
                "leftover_policy",
                "carry",
                "version",
                *BOOK_FIELDS,
            ]
        )
        _event(
            session,
            "closed",
            {
                "leftover": leftover,
                "policy": policy,
                "shares": {str(k): v for k, v in shares.items()},
                "remainder": to_club if shares else 0,
                "to_club": to_club,
            },
            user,
        )
    return session


# -- reading ----------------------------------------------------------------------------------------


def ledger_sums(session: GameSession, kinds: Iterable[str]) -> dict[int, int]:
    """player id → sum of the session's player legs of these posting kinds, summed from
    the ledger itself (every seat, zeros included). This is what the session's running
    totals must equal; ``check_invariants`` compares the two.

    One query: a zero for every seat, united with the sums of this session's legs (found
    through the postings' session index, so the cost is the session's size, not the
    players' whole history)."""
    zeros = Seat.objects.filter(session=session).order_by().values_list("player_id", Value(0))
    sums = (
        Leg.objects.filter(
            posting__session=session,
            posting__kind__in=list(kinds),
            account__kind=Account.Kind.PLAYER,
        )
        .order_by()
        .values("account__player_id")
        .annotate(total=Sum("amount"))
        .values_list("account__player_id", "total")
    )
    out: dict[int, int] = {}
    for player_id, amount in zeros.union(sums, all=True):
        out[player_id] = out.get(player_id, 0) + amount
    return out


def _books(session: GameSession) -> GameSession:
    return GameSession.objects.only("nets", "stacks").get(pk=session.pk)


def session_balances(session: GameSession) -> dict[int, int]:
    """player id → net won (+) or lost (−) at the table in this session, for every seated
    player; buy-ins and cash-outs are not counted. One small query (the session's running
    totals, so a long session costs no more than a short one); a page that has just read
    the session row can use ``session.net_by_player()`` instead."""
    return _books(session).net_by_player()


def player_stacks(session: GameSession) -> dict[int, int]:
    """player id → chips in front of the player: buy-ins − cash-outs + net. One query."""
    return _books(session).stack_by_player()


def pot_balance(session: GameSession) -> int:
    return Leg.objects.filter(account__session=session, account__kind=Account.Kind.POT).aggregate(
        s=Coalesce(Sum("amount"), 0)
    )["s"]


def kitty_balance(session: GameSession) -> int:
    """What the club's carry account gained from this session: leftovers sent to the club
    minus the carried pot pulled in. With it the session's books balance:
    Σ session_balances + pot_balance + kitty_balance == 0, so a settlement that must sum
    to zero can show the club's kitty as one more party."""
    # A tournament table's dead pot goes to the bank instead (close_session): count it too.
    return (
        Leg.objects.filter(posting__session=session)
        .filter(
            Q(account__kind=Account.Kind.CARRY)
            | Q(account__kind=Account.Kind.BANK, posting__kind=Posting.Kind.CARRY_OUT)
        )
        .aggregate(s=Coalesce(Sum("amount"), 0))["s"]
    )


def mark_transfer_paid(
    *, session_id: int, payer_id: int, payee_id: int, amount: int, paid: bool, user
) -> SettlementMark | None:
    """Tick (or untick) a settlement transfer as paid. Not money: only a note."""
    with transaction.atomic():
        session = lock_session(session_id)
        marks = SettlementMark.objects.filter(session=session, payer_id=payer_id, payee_id=payee_id)
        if not paid:
            marks.delete()
            return None
        _check_amount(amount)
        mark, _ = SettlementMark.objects.update_or_create(
            session=session,
            payer_id=payer_id,
            payee_id=payee_id,
            defaults={"amount": amount, "paid_at": timezone.now(), "paid_by": _user(user)},
        )
    return mark


def check_invariants(session: GameSession) -> None:
    """Raise AssertionError unless the books are right (used by tests after every step):

    - every posting of the club has legs summing to zero, and at least two legs;
    - the pot account holds ``session.carry`` (0 once closed), never less than 0;
    - the balances of all the club's accounts sum to zero;
    - Σ session_balances + pot + kitty_balance == 0 for this session;
    - on an open table with a live hand: ``carry`` is the engine's ``next_carry`` (on a
      chip-limited table, where shortfalls make them differ: no stack is negative);
    - ``hands_count`` is the number of live hands; every reversal reverses a posting of
      the same hand, leg for leg.
    """
    session = GameSession.objects.get(pk=session.pk)

    def check(ok: bool, message: str) -> None:
        if not ok:
            raise AssertionError(message)

    bad = list(
        Posting.objects.filter(club_id=session.club_id)
        .annotate(total=Coalesce(Sum("legs__amount"), 0), n=Count("legs"))
        .filter(~Q(total=0) | Q(n__lt=2))
        .values_list("pk", "total", "n")
    )
    check(not bad, f"postings unbalanced or with fewer than two legs: {bad}")
    pot = pot_balance(session)
    check(pot == session.carry, f"pot holds {pot} but session.carry is {session.carry}")
    check(pot >= 0, f"pot is negative: {pot}")
    if not session.is_open:
        check(pot == 0, f"closed session still has {pot} in the pot")
    total = Leg.objects.filter(account__club_id=session.club_id).aggregate(
        s=Coalesce(Sum("amount"), 0)
    )["s"]
    check(total == 0, f"the club's balances sum to {total}, not 0")
    balances = ledger_sums(session, TABLE_KINDS)
    kitty = kitty_balance(session)
    check(
        sum(balances.values()) + pot + kitty == 0,
        f"session books do not balance: players {sum(balances.values())}, pot {pot}, kitty {kitty}",
    )
    # session_balances must match a sum over the ledger taken another way (from the
    # legs, not the seats).
    direct = dict(
        Leg.objects.filter(posting__session=session, account__kind=Account.Kind.PLAYER)
        .exclude(posting__kind__in=BANK_KINDS)
        .order_by()
        .values("account__player_id")
        .annotate(total=Sum("amount"))
        .values_list("account__player_id", "total")
    )
    for pid, net in balances.items():
        check(net == direct.get(pid, 0), f"session_balances[{pid}] = {net}, ledger says {direct}")
    check(set(direct) <= set(balances), "a player outside the session has legs in its postings")
    # The running totals on the session row are the ledger's sums, seat for seat.
    check(
        session.net_by_player() == balances,
        f"session nets {session.nets} but the ledger sums to {balances}",
    )
    stacks = ledger_sums(session, Posting.Kind.values)
    check(
        session.stack_by_player() == stacks,
        f"session stacks {session.stacks} but the ledger sums to {stacks}",
    )
    pot_account = Account.objects.get(session=session, kind=Account.Kind.POT)
    check(session.pot_account_id == pot_account.pk, "session.pot_account is not its pot")
    accounts = dict(
        Account.objects.filter(
            kind=Account.Kind.PLAYER, player__seats__session=session
        ).values_list("player_id", "pk")
    )
    seat_accounts = dict(Seat.objects.filter(session=session).values_list("player_id", "account"))
    check(seat_accounts == accounts, f"seat accounts {seat_accounts}, ledger {accounts}")

    live = Hand.objects.filter(session=session, status=Hand.Status.RECORDED)
    count = live.count()
    check(session.hands_count == count, f"hands_count is {session.hands_count}, {count} live hands")
    last = live.order_by("-number").only("number", "verdict").first()
    if session.is_open and last is not None:
        expected = last.result["next_carry"]
        if session.chip_limited:
            # What was really paid can differ from the verdict (shortfalls); the pot
            # check above already holds the real amounts.
            check(min(stacks.values(), default=0) >= 0, f"negative stack: {stacks}")
        else:
            # Closing and carry-ins move the pot outside hands; neither happens after a
            # live hand of an open session, so the pot is exactly the engine's next pot.
            check(
                session.carry == expected,
                f"carry {session.carry} but hand {last.number} said next_carry {expected}",
            )
    for rev in (
        Posting.objects.filter(session=session, kind=Posting.Kind.REVERSAL)
        .select_related("reverses")
        .prefetch_related("legs", "reverses__legs")
    ):
        orig = rev.reverses
        check(orig is not None and orig.hand_id == rev.hand_id, f"stray reversal {rev.pk}")
        mine = sorted((leg.account_id, leg.amount) for leg in rev.legs.all())
        theirs = sorted((leg.account_id, -leg.amount) for leg in orig.legs.all())
        check(mine == theirs, f"reversal {rev.pk} does not mirror posting {orig.pk}")
