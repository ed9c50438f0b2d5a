"""What every money writer shares: the session lock, the acting user, posting legs and
updating the running totals, and the session's seats and state as the engine sees them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias, TypedDict, Unpack, cast

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.db.models import Max, Sum
from django.db.models.functions import Coalesce

from games.engine import MAX_POT, Rules
from games.engine.contracts import RulesDict
from games.models import GameSession, Hand, Seat, SessionEvent
from games.sql import Statement
from ledger import sql
from ledger.books import BANK_KINDS
from ledger.errors import SessionClosed, SetupError
from ledger.memos import Memo
from ledger.models import Account, Leg, PlayerTotals, Posting

MIN_PLAYERS, MAX_PLAYERS = 2, 8  # R3
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


# -- small helpers --------------------------------------------------------------------------

# Who asks for a write: a request's user (signed in or anonymous), or None (a command, a
# bot's move, a test). actor() keeps a signed-in one for created_by.
Actor: TypeAlias = User | AnonymousUser | None


def actor(user: Actor) -> User | None:
    """The user to store in created_by (None for anonymous callers)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return cast(User, user)  # signed in: never the AnonymousUser


# The session row, locked until the transaction ends: every write to a session (here
# and in games.digital) starts with it, so they apply one after the other (see
# ledger.postings). One wrapper for every caller: the plain statement in ledger.sql.
lock_session = sql.lock_session


def _require_open(session: GameSession) -> None:
    if not session.is_open:
        raise SessionClosed(f"session {session.name!r} is closed", params={"session": session.name})


def _check_amount(amount: object, key: str = "amount") -> int:
    # At most MAX_POT (engine.rules: every bound on an amount), so that balances stay far
    # inside a 64-bit column.
    if type(amount) is not int or not 0 < amount <= MAX_POT:
        raise SetupError(
            "bad_amount",
            f"{key} must be a whole number above 0 and at most {MAX_POT}",
            key,
            params={"key": key, "max": MAX_POT},
        )
    return amount


def _player_accounts(
    club_id: int, player_ids: Iterable[int], kind: str = Account.Kind.PLAYER
) -> dict[int, int]:
    """player id → account id of ``kind`` (a player's own, or their tab), creating missing
    accounts (race-safe: a concurrent creator's row wins and is read back)."""
    ids = set(player_ids)
    Account.objects.bulk_create(
        [Account(club_id=club_id, kind=kind, player_id=pid) for pid in ids],
        ignore_conflicts=True,
    )
    rows = Account.objects.filter(kind=kind, player_id__in=ids)
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


class _PostingOptions(TypedDict, total=False):
    """``_post``'s and ``_postings``' optional arguments (see ``_post``)."""

    hand: Hand | None
    reverses: list[Posting] | None
    owners: Mapping[int, int] | None
    counts: Mapping[int, Mapping[str, int]] | None
    hands: list[Hand] | None


def _post(
    session: GameSession | None,
    club_id: int,
    entries: list[tuple[str, dict[int, int], Memo]],
    user: Actor,
    **options: Unpack[_PostingOptions],
) -> list[Posting]:
    """Write postings given as (kind, {account id: amount}, ``memos.Memo``) with the club's
    running totals: one statement on PostgreSQL, three on SQLite (``sql.write_postings``),
    one more when a reversed pot's biggest pot must be read again.

    ``hand`` is every posting's hand; ``hands`` instead gives each entry its own (a
    correction re-settles many hands in one call).

    Zero legs are dropped and a posting left without legs is not written. Legs must sum
    to zero: checked here, and on PostgreSQL again by the database at commit.

    ``owners`` maps the player accounts among the legs to their player ids: their legs
    are added to the session's running totals (``nets``, ``stacks``), which the caller
    saves with the session row (``BOOK_FIELDS``) in the same transaction, and to the
    players' club totals (``PlayerTotals``: net, pots won, biggest pot), together with
    ``counts`` (player id → {counter: change}, e.g. hands played) in one statement.
    This is the one writer of both: a reversal is a posting like any other and
    subtracts what it reverses.
    """
    batch = _postings(session, club_id, entries, user, **options)
    # The postings, their legs and the club totals: one statement on PostgreSQL.
    sql.write_postings(batch.postings, batch.legs, club_id, batch.totals.changed())
    batch.totals.recount()
    return batch.postings


@dataclass
class _Batch:
    """What ``_post`` writes, made in memory: the unsaved postings, each one's legs
    ({account id: amount}) and the club totals they change."""

    postings: list[Posting]
    legs: list[dict[int, int]]
    totals: _Totals


def _postings(
    session: GameSession | None,
    club_id: int,
    entries: list[tuple[str, dict[int, int], Memo]],
    user: Actor,
    **options: Unpack[_PostingOptions],
) -> _Batch:
    """``_post`` up to the write: the postings and their legs checked and made, the
    session's running totals moved (in memory) and the club totals' changes counted. A
    recorded hand writes the batch with its own row and the session's
    (``ledger.postings.hands``; a reversal never comes this way)."""
    hand, hands, reverses = options.get("hand"), options.get("hands"), options.get("reverses")
    owners = options.get("owners")
    postings: list[Posting] = []
    legs_of: list[dict[int, int]] = []
    totals = _Totals(session, options.get("counts"))
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
                hand=hands[i] if hands else hand,
                kind=kind,
                memo=memo.stored(),
                memo_kind=memo.kind,
                memo_params=dict(memo.params),
                reverses=reverses[i] if reverses else None,
                created_by=actor(user),
            )
        )
        legs_of.append(legs)
        if session is not None and owners:
            _add_to_books(session, kind, legs, owners)
            totals.add(kind, legs, owners, reverses[i] if reverses else None)
    return _Batch(postings, legs_of, totals)


class _Totals:
    """What a call of ``_post`` changes in the players' club totals (``PlayerTotals``)."""

    def __init__(self, session: GameSession | None, counts: Mapping[int, Mapping[str, int]] | None):
        # Tournament tables play for chips, not money: their legs count for nothing here.
        self.money = session is not None and not session.chip_limited
        self.deltas: dict[int, list[int]] = {}
        self.recount_biggest: set[int] = set()
        for player_id, changes in (counts or {}).items():
            row = self._row(player_id)
            for name, change in changes.items():
                row[_COUNTER[name]] += change

    def _row(self, player_id: int) -> list[int]:
        return self.deltas.setdefault(player_id, [0] * len(_COUNTER))

    def add(
        self,
        kind: str,
        legs: Mapping[int, int],
        owners: Mapping[int, int],
        reverses: Posting | None,
    ) -> None:
        if not self.money:
            return
        reversed_payout = reverses is not None and reverses.kind == Posting.Kind.PAYOUT
        for account_id, amount in legs.items():
            player_id = owners.get(account_id)
            if player_id is None:
                continue
            row = self._row(player_id)
            if kind not in BANK_KINDS:
                row[_COUNTER["net"]] += amount
            if kind == Posting.Kind.PAYOUT and amount > 0:
                row[_COUNTER["pots_won"]] += 1
                row[_COUNTER["biggest_pot"]] = max(row[_COUNTER["biggest_pot"]], amount)
            elif reversed_payout and amount < 0:
                row[_COUNTER["pots_won"]] -= 1
                self.recount_biggest.add(player_id)

    def changed(self) -> dict[int, list[int]]:
        """The rows to add to the club totals (``sql.add_player_totals``)."""
        return {p: d for p, d in self.deltas.items() if any(d)}

    def recount(self) -> None:
        """After the totals are written: the biggest pot of a player whose pot was
        reversed, read again."""
        if self.recount_biggest:
            # A reversed pot may have been the biggest: take the largest pot still standing
            # (rare: only a void of a won pot comes here).
            biggest = dict(
                Leg.objects.filter(
                    account__kind=Account.Kind.PLAYER,
                    account__player_id__in=self.recount_biggest,
                    posting__kind=Posting.Kind.PAYOUT,
                    posting__reversed_by__isnull=True,
                    posting__session__chip_limited=False,
                )
                .order_by()
                .values("account__player_id")
                .annotate(m=Max("amount"))
                .values_list("account__player_id", "m")
            )
            for player_id in self.recount_biggest:
                PlayerTotals.objects.filter(player_id=player_id).update(
                    biggest_pot=biggest.get(player_id) or 0
                )


_COUNTER = {name: i for i, name in enumerate(PlayerTotals.COUNTERS)}


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


def _event(session: GameSession, kind: str, data: dict[str, Any], user: Actor) -> SessionEvent:
    event = SessionEvent.objects.create(
        session=session, kind=kind, data=data, created_by=actor(user)
    )
    announce_change(session, kind, data)
    return event


# Listeners told of every change *inside* its transaction (the webhook outbox:
# games.api.outbox writes its event rows there, so they commit or roll back with the
# change). Registered by games.apps; the ledger cannot import the API package.
_change_listeners: list[Callable[[GameSession, str, dict[str, Any]], None]] = []


def on_change(listener: Callable[[GameSession, str, dict[str, Any]], None]) -> None:
    """Call ``listener(session, kind, data)`` in the transaction of each change: every
    session event's kind (``closed``, ``hand_voided``…) plus ``hand_recorded``
    (``data["hand"]`` is the Hand) and ``settlement_marked``."""
    if listener not in _change_listeners:
        _change_listeners.append(listener)


def announce_change(session: GameSession, kind: str, data: dict[str, Any]) -> None:
    for listener in _change_listeners:
        listener(session, kind, data)


def _rules_dict(rules: Mapping[str, Any] | None) -> RulesDict:
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


def free_position(session: GameSession) -> int:
    """The lowest seat position no seat in play holds. A seat left by a player who went
    out or moved away keeps its position (it is no longer dealt in): a newcomer may take
    that seat, and whoever comes back to a taken seat is given this one (``seat_back``)."""
    taken = set(
        Seat.objects.filter(session=session, active=True).values_list("position", flat=True)
    )
    return next(p for p in range(len(taken) + 1) if p not in taken)


def seat_back(session: GameSession, seats: list[Seat]) -> None:
    """Seats coming back into play (an undo, a player returning): one whose position was
    taken meanwhile (``free_seat``) moves to the lowest free one, so no two seats in play
    share a position (a tournament table's seat numbers stay unique)."""
    for seat in seats:
        if (
            Seat.objects.filter(session=session, active=True, position=seat.position)
            .exclude(pk=seat.pk)
            .exists()
        ):
            seat.position = free_position(session)
            seat.save(update_fields=["position"])


def _seats(
    session: GameSession, rows: list[tuple[int, str, bool, bool, int | None]] | None = None
) -> list[_Seat]:
    """The session's seats in clockwise order, in one query, with their account ids and
    stacks (the stacks from the session row as the caller read it). ``rows``: the seat
    rows when the caller has already read them (``sql.seats_and_hand_lookup``)."""
    chips = session.stacks
    if rows is None:
        rows = sql.seat_rows(session.pk)
    return [
        _Seat(player_id, name, active, eliminated, account_id, chips.get(str(player_id), 0))
        for player_id, name, active, eliminated, account_id in rows
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
    on the dealer's left (R8), skipping — and so clearing — a pending forfeit (R16, R39).
    When every candidate owes one the forfeits cancel out (as in the engine's
    ``payout._next_deal``): the next candidate deals and theirs are all cleared.
    Returns (dealer id, forfeits still pending)."""
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
    everyone = set(candidates)
    return candidates[0], [p for p in forfeits if p not in everyone]


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


@dataclass(frozen=True)
class TableState:
    """``session_state`` with what the record form shows beside it, read by the same
    statement (``sql.seats_and_hand_lookup``): the number the next hand is saved under
    (undone hands keep theirs) and whether a digital hand is being played."""

    state: dict[str, Any]
    next_number: int
    digital_busy: bool


def table_statement(session_id: int, key: str = "") -> Statement:
    """The statement that reads a table's seats and hands (``table_state``'s read, and
    ``record_hand``'s after its lock, for the hand of idempotency ``key``), not run: a
    caller that runs it itself hands its rows back as ``table_state(rows=...)`` (the
    scoreboard's ``board_reads``)."""
    return sql.seats_and_hand_statement(session_id, key)


def table_seats(
    session: GameSession, rows: list[tuple] | None = None
) -> tuple[list[_Seat], int, bool]:
    """The session's seats in clockwise order (as ``session_state`` reads them: player id,
    name, active…), the number the next hand is saved under (undone hands keep theirs, so
    it is not the hands counted plus one) and whether a digital hand is being played: the
    scoreboard's read of the table. ``rows``: what ``table_statement(session.pk)``
    answered, when the caller sent it along with its own statement."""
    return _table(session, rows)


def table_state(session: GameSession, rows: list[tuple] | None = None) -> TableState:
    """The record form's read of the table: one statement instead of three (issue #20).
    ``rows``: what ``table_statement(session.pk)`` answered, when the caller ran it."""
    seats, next_number, digital_busy = _table(session, rows)
    return TableState(_state(session, seats), next_number, digital_busy)


def _table(session: GameSession, rows: list[tuple] | None) -> tuple[list[_Seat], int, bool]:
    """``table_statement``'s answer (read here without ``rows``): the seats, the number
    the next hand is saved under and whether a digital hand is in progress."""
    seat_rows, (last, in_progress, _) = sql.seats_and_hand_lookup(session.pk, "", rows)
    return _seats(session, seat_rows), (last or 0) + 1, in_progress is not None


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


# -- tournament tables ------------------------------------------------------------------------

# A hand recorded or voided at a tournament table (a chip-limited session) moves its
# tournament on: ante level, eliminations, the end of the table, balancing. The tournament
# service posts chips through this ledger, so the ledger cannot import it; instead
# ``games.apps.GamesConfig.ready()`` registers it here, and every path that records or
# voids a hand calls ``announce_table_hand`` explicitly. It runs after commit, so a failure
# there never undoes the hand (``robust``: it is logged, and the next hand or the
# director's "sync" catches up).
_table_hand_listeners: list[Callable[[int], None]] = []


# Before a new hand at a chip-limited table: checks that may refuse the deal (a tournament
# table below the minimum must break or take a player first, RULES.md T1–T2). Each returns
# None or the refusal as a record error ({"code", "message", facts…}); registered by
# ``games.apps`` like the after-hand listener, called under the session lock. A check
# reads other tables without locking them (it holds this table's lock only).
_table_deal_checks: list[Callable[[int], dict[str, Any] | None]] = []


def on_table_deal(check: Callable[[int], dict[str, Any] | None]) -> None:
    """Ask ``check(session_id)`` before each new hand at a chip-limited table."""
    if check not in _table_deal_checks:
        _table_deal_checks.append(check)


def table_deal_refusal(session: GameSession) -> dict[str, Any] | None:
    """The first refusal of a new hand at this table (None: it may deal)."""
    if not session.chip_limited:
        return None
    for check in _table_deal_checks:
        refusal = check(session.pk)
        if refusal is not None:
            return refusal
    return None


def on_table_hand(listener: Callable[[int], None]) -> None:
    """Call ``listener(session_id)`` after each committed hand of a chip-limited table."""
    if listener not in _table_hand_listeners:
        _table_hand_listeners.append(listener)


def announce_table_hand(session: GameSession) -> None:
    """A hand of this session was recorded or voided (inside the transaction)."""
    if not session.chip_limited:
        return
    session_id = session.pk
    for listener in _table_hand_listeners:
        transaction.on_commit(_after_commit(listener, session_id), robust=True)


def _after_commit(listener: Callable[[int], None], session_id: int) -> Callable[[], None]:
    """``listener(session_id)`` as a function with a name: Django logs a robust hook's
    failure by its ``__qualname__``, which a ``functools.partial`` lacks (the logging
    itself then raised, out of the hand's recording, instead of logging)."""

    def announce() -> None:
        listener(session_id)

    announce.__qualname__ = f"{getattr(listener, '__qualname__', repr(listener))}({session_id})"
    return announce
