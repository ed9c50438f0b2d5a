"""Hand-written SQL for the statements every recorded hand runs.

Recording a hand is the product's hottest write (a phone waits on it, and a digital hand
settles inside a player's move). On the reference machine the ORM spent more time
compiling these few statements than the database spent running them (bench/web.py,
bench/digital.py), so they are written out here once, portable between PostgreSQL and
SQLite (3.35+, for RETURNING), with table and column names taken from the models.

A recorded hand runs, after ``lock_session`` (the record form's POST locks with
``games.sql.session_with_membership(lock=True)`` instead, its access check and lock in
one) and ``seats_and_hand_lookup``: ``write_hand``,
which writes the hand's row, its postings, their legs, the club totals
(``add_player_totals``) and the session row in one statement on PostgreSQL (legs and
totals as arrays, so the statement's text stays the same from hand to hand) and as
``insert_hand``, ``write_postings`` (three statements) and ``save_session`` on SQLite. A
digital hand, whose row exists already, writes its money with ``write_postings`` and
the session with ``save_session``. Every statement reads or writes by primary key or one
hand's index range, so the cost does not grow with the session (issue #20;
tests/test_record_flat.py).

Skewed columns (a hand's status) are compared with literals, never parameters, so
PostgreSQL plans each lookup for the value it is (hands in progress are few).

Only ``ledger.postings`` calls this module (``add_player_totals`` keeps the club
statistics' running totals: one upsert per hand instead of a read and a write per
player). What it writes is checked like everything else the ledger writes: legs must
balance (in ``_post`` and, on PostgreSQL, by the deferred trigger of migration 0002) and
the tests run ``check_invariants`` after every operation.
"""

from __future__ import annotations

from functools import cache
from typing import Any, cast

from django.db import connection
from django.db.models import Field

from games.models import GameSession, Hand, Player, Seat
from games.sql import Statement, insert_rows, insert_statement
from games.sql import column as _column
from games.sql import table as _table

from .models import Leg, PlayerTotals, Posting


@cache
def _lock_sql(for_update: bool) -> str:
    sql = f"SELECT s.* FROM {_table(GameSession)} s WHERE s.{_column(GameSession, 'id')} = %s"
    return sql + (" FOR UPDATE OF s" if for_update else "")


def lock_session(session_id: int) -> GameSession:
    """The session row, locked until the transaction ends (SQLite has no row locks; its
    IMMEDIATE transactions serialise writers instead). Raises DoesNotExist."""
    rows = list(
        GameSession.objects.raw(_lock_sql(connection.features.has_select_for_update), [session_id])
    )
    if not rows:
        raise GameSession.DoesNotExist(f"no session {session_id}")
    return rows[0]


# A code constant, not input: written into the SQL as a literal (see _hands_sql).
_IN_PROGRESS = f"'{Hand.Status.IN_PROGRESS.value}'"
assert Hand.Status.IN_PROGRESS.value.replace("_", "").isalpha()


@cache
def _hands_sql() -> str:
    # Three scalar subqueries, each answered by an index, instead of one MAX over CASE
    # expressions that read every hand of the session (5–8 ms at 5,000 hands; now flat):
    # the last number by (session, number) read backwards, the hand in progress by the
    # partial index of hands in progress, the key by (session, idempotency_key). The
    # status is a literal: a plan for a parameter would not know that hands in progress
    # are few.
    hand, session = _table(Hand), _column(Hand, "session")
    number, status = _column(Hand, "number"), _column(Hand, "status")
    key, pk = _column(Hand, "idempotency_key"), _column(Hand, "id")
    return (
        f"SELECT (SELECT MAX({number}) FROM {hand} WHERE {session} = %s), "
        f"(SELECT MAX({pk}) FROM {hand} WHERE {session} = %s AND {status} = {_IN_PROGRESS}), "
        f"(SELECT MAX({pk}) FROM {hand} WHERE {session} = %s AND {key} = %s AND {key} <> '')"
    )


def hand_lookup(session_id: int, key: str) -> tuple[int | None, int | None, int | None]:
    """(the session's last hand number, the id of its hand in progress, the id of its
    hand with this idempotency key — None for an empty key), in one statement."""
    with connection.cursor() as cursor:
        cursor.execute(
            _hands_sql(),
            [session_id, session_id, session_id, key or ""],
        )
        last, in_progress, existing = cursor.fetchone()
    return last, in_progress, existing


@cache
def _seats_sql() -> str:
    seat, player = _table(Seat), _table(Player)
    columns = ", ".join(
        f"s.{_column(Seat, f)}" for f in ("player", "active", "eliminated_at", "account")
    )
    return (
        f"SELECT {columns}, p.{_column(Player, 'name')} "
        f"FROM {seat} s JOIN {player} p ON p.{_column(Player, 'id')} = s.{_column(Seat, 'player')} "
        f"WHERE s.{_column(Seat, 'session')} = %s "
        f"ORDER BY s.{_column(Seat, 'position')}, s.{_column(Seat, 'id')}"
    )


@cache
def _seats_and_hands_sql() -> str:
    # The lookups ride along as uncorrelated scalar subqueries (computed once, not per
    # seat): recording a hand then costs one statement for both (issue #20 keeps the
    # record path's statement count while adding the club totals' upsert).
    lookups = _hands_sql().removeprefix("SELECT ")
    select, rest = _seats_sql().split(" FROM ", 1)
    return f"{select}, {lookups} FROM {rest}"


def seats_and_hand_statement(session_id: int, key: str) -> Statement:
    """``seats_and_hand_lookup``'s statement and parameters, not run: for a caller that
    ran it and hands back its rows."""
    return _seats_and_hands_sql(), [session_id, session_id, session_id, key or "", session_id]


def seats_and_hand_lookup(
    session_id: int, key: str, rows: list[tuple] | None = None
) -> tuple[
    list[tuple[int, str, bool, bool, int | None]], tuple[int | None, int | None, int | None]
]:
    """``seat_rows`` and ``hand_lookup`` in one statement (a session always has seats;
    without any, the lookup is asked on its own). ``rows``: what
    ``seats_and_hand_statement(session_id, key)`` answered, when the caller ran it."""
    if rows is None:
        with connection.cursor() as cursor:
            cursor.execute(*seats_and_hand_statement(session_id, key))
            rows = cursor.fetchall()
    if not rows:
        return [], hand_lookup(session_id, key)
    seats = [
        (player_id, name, bool(active), eliminated_at is not None, account_id)
        for player_id, active, eliminated_at, account_id, name, *_ in rows
    ]
    last, in_progress, existing = rows[0][5:]
    return seats, (last, in_progress, existing)


def seat_rows(session_id: int) -> list[tuple[int, str, bool, bool, int | None]]:
    """The session's seats in clockwise order: (player id, name, active, eliminated,
    account id)."""
    with connection.cursor() as cursor:
        cursor.execute(_seats_sql(), [session_id])
        return [
            (player_id, name, bool(active), eliminated_at is not None, account_id)
            for player_id, active, eliminated_at, account_id, name in cursor.fetchall()
        ]


POSTING_FIELDS = (
    *("club", "session", "hand", "kind", "memo", "memo_kind", "memo_params"),
    *("reverses", "created_by", "created_at"),
)


def _insert_new(objects: list, fields: tuple[str, ...]) -> None:
    """Insert unsaved instances of one model (``fields``: every column but the id, with
    the defaults the model's constructor filled in) and mark them saved, as ``create`` and
    ``bulk_create`` do."""
    _saved(objects, insert_rows(type(objects[0]), fields, _rows(objects, fields), returning=True))


def _rows(objects: list, fields: tuple[str, ...]) -> list[list[Any]]:
    """Unsaved instances' values of ``fields`` for ``insert_rows``: serializable_value,
    the field's value, the id for a foreign key (its attname)."""
    return [[o.serializable_value(f) for f in fields] for o in objects]


def insert_postings(postings: list[Posting]) -> None:
    """Insert unsaved postings; sets their ``pk``."""
    _insert_new(postings, POSTING_FIELDS)


@cache
def _hand_fields() -> tuple[str, ...]:
    return tuple(f.name for f in Hand._meta.concrete_fields if not f.primary_key)


def insert_hand(hand: Hand) -> None:
    """Insert an unsaved hand (every column, as ``Hand.objects.create`` does); sets its
    ``pk``. The recorded hand's INSERT without the ORM's compilation (bench/floor.py)."""
    _insert_new([hand], _hand_fields())


@cache
def _update_sql(fields: tuple[str, ...]) -> str:
    assignments = ", ".join(f"{_column(GameSession, f)} = %s" for f in fields)
    return f"UPDATE {_table(GameSession)} SET {assignments} WHERE {_column(GameSession, 'id')} = %s"


def save_session(session: GameSession, fields: list[str]) -> None:
    """Write ``fields`` of the session row: what ``session.save(update_fields=fields)``
    writes (each field's ``pre_save`` and ``get_db_prep_save``), in a plain UPDATE."""
    with connection.cursor() as cursor:
        cursor.execute(_update_sql(tuple(fields)), _session_params(session, fields))


def _session_params(session: GameSession, fields: list[str]) -> list[Any]:
    """The parameters of ``_update_sql(fields)``: each field's ``pre_save`` and
    ``get_db_prep_save``, as ``session.save(update_fields=fields)`` writes them, then
    the id."""
    meta = [GameSession._meta.get_field(f) for f in fields]
    assert all(isinstance(f, Field) and f.concrete for f in meta)  # columns of the row
    params = [
        cast(Field, f).get_db_prep_save(cast(Field, f).pre_save(session, False), connection)
        for f in meta
    ]
    return [*params, session.pk]


def insert_legs(legs: list[tuple[int, int, int]]) -> None:
    """Insert legs given as (posting id, account id, amount)."""
    insert_rows(Leg, ("posting", "account", "amount"), legs)


@cache
def _totals_sql(rows: int) -> str:
    table, fields = _table(PlayerTotals), ("player", "club", *PlayerTotals.COUNTERS)
    names = [_column(PlayerTotals, f) for f in fields]
    one = "(" + ", ".join(["%s"] * len(fields)) + ")"
    biggest = _column(PlayerTotals, "biggest_pot")
    sets = [
        f"{c} = {table}.{c} + EXCLUDED.{c}"
        for f, c in zip(fields[2:], names[2:], strict=True)
        if f != "biggest_pot"
    ]
    # The largest of two values, written the same on both databases.
    sets.append(
        f"{biggest} = CASE WHEN EXCLUDED.{biggest} > {table}.{biggest} "
        f"THEN EXCLUDED.{biggest} ELSE {table}.{biggest} END"
    )
    return (
        f"INSERT INTO {table} ({', '.join(names)}) VALUES {', '.join([one] * rows)} "
        f"ON CONFLICT ({names[0]}) DO UPDATE SET {', '.join(sets)}"
    )


def _totals_params(club_id: int, deltas: dict[int, list[int]]) -> list[int]:
    params: list[int] = []
    for player_id in sorted(deltas):
        params += [player_id, club_id, *deltas[player_id]]
    return params


def add_player_totals(club_id: int, deltas: dict[int, list[int]]) -> None:
    """Add ``deltas`` (player id → one number per ``PlayerTotals.COUNTERS``; for
    ``biggest_pot`` a candidate, kept if larger) to the players' running totals, creating
    missing rows: one statement for the whole hand instead of a read and a write per
    player. Rows go in player order, so two sessions sharing players lock them in the
    same order."""
    if not deltas:
        return
    with connection.cursor() as cursor:
        cursor.execute(_totals_sql(len(deltas)), _totals_params(club_id, deltas))


def _money_parts(postings: int, totals: bool, hand: str | None = None) -> list[str]:
    """The CTEs of ``_write_sql``; ``hand``: the SQL of every posting's hand column (None:
    each posting's own, a parameter like the other columns)."""
    # PostgreSQL: the postings' ids drawn from their sequence first (in posting order),
    # so the legs can name them in the same statement; each INSERT a data-modifying CTE
    # (the legs' foreign key to their posting and the balance trigger are checked at
    # commit, both deferred). The postings, the legs and the totals travel as one array
    # per column (unnest, in array order): the statement's text depends on the number of
    # postings alone and its parameters stay under psycopg's 50 (write_hand's too), so
    # psycopg parses it once per process instead of on every hand (issue #20).
    posting, leg = _table(Posting), _table(Leg)
    pk = _column(Posting, "id")
    names = ", ".join([pk, *(_column(Posting, f) for f in POSTING_FIELDS)])
    arrays = _posting_array_fields(hand is None)
    values = ", ".join(
        hand if f == "hand" and hand is not None else f"x.{_column(Posting, f)}"
        for f in POSTING_FIELDS
    )
    unnest = ", ".join(f"%s::{Posting._meta.get_field(f).db_type(connection)}[]" for f in arrays)
    aliases = ", ".join(_column(Posting, f) for f in arrays)
    leg_names = ", ".join(_column(Leg, f) for f in ("posting", "account", "amount"))
    parts = [
        f"ids AS (SELECT nextval(pg_get_serial_sequence(%s, %s)) AS id, n "
        f"FROM generate_series(1, {postings}) AS n ORDER BY n)",
        f"p AS (INSERT INTO {posting} ({names}) SELECT ids.id, {values} "
        f"FROM unnest({unnest}) WITH ORDINALITY AS x({aliases}, n) "
        f"JOIN ids ON ids.n = x.n ORDER BY x.n)",
        f"l AS (INSERT INTO {leg} ({leg_names}) SELECT ids.id, x.account, x.amount "
        f"FROM unnest(%s::integer[], %s::bigint[], %s::bigint[]) WITH ORDINALITY "
        f"AS x(n, account, amount, o) JOIN ids ON ids.n = x.n ORDER BY x.o)",
    ]
    if totals:
        parts.append(f"t AS ({_totals_array_sql()})")
    return parts


def _posting_array_fields(with_hand: bool) -> list[str]:
    """The posting columns that travel as arrays (all but the hand's in ``write_hand``)."""
    return [f for f in POSTING_FIELDS if with_hand or f != "hand"]


@cache
def _write_sql(postings: int, totals: bool) -> str:
    return f"WITH {', '.join(_money_parts(postings, totals))} SELECT id FROM ids ORDER BY n"


@cache
def _totals_array_sql() -> str:
    """``_totals_sql`` with its rows as one array per column (in player order)."""
    head, conflict = _totals_sql(1).split(" VALUES ", 1)
    count = 2 + len(PlayerTotals.COUNTERS)
    arrays = ", ".join(["%s::bigint[]"] * count)
    columns = ", ".join(f"c{i}" for i in range(count))
    conflict = conflict.split(" ON CONFLICT ", 1)[1]
    return (
        f"{head} SELECT {columns} FROM unnest({arrays}) WITH ORDINALITY "
        f"AS x({columns}, o) ORDER BY x.o ON CONFLICT {conflict}"
    )


def write_postings(
    postings: list[Posting],
    legs: list[dict[int, int]],
    club_id: int,
    deltas: dict[int, list[int]],
) -> None:
    """Insert unsaved ``postings`` (setting their ``pk``), each with its ``legs``
    ({account id: amount}), and add ``deltas`` to the club totals: what
    ``insert_postings``, ``insert_legs`` and ``add_player_totals`` write, in one statement
    on PostgreSQL (a recorded hand's money in one round trip; issue #20) and in those
    three on SQLite."""
    if not postings:
        add_player_totals(club_id, deltas)
        return
    if connection.vendor != "postgresql":
        insert_postings(postings)
        insert_legs(
            [(p.pk, a, x) for p, ls in zip(postings, legs, strict=True) for a, x in ls.items()]
        )
        add_player_totals(club_id, deltas)
        return
    params = _money_params(postings, legs, club_id, deltas)
    with connection.cursor() as cursor:
        cursor.execute(_write_sql(len(postings), bool(deltas)), params)
        ids = [row[0] for row in cursor.fetchall()]
    _saved(postings, ids)


def _saved(objects: list, ids: list[int]) -> None:
    """Mark inserted instances saved with their new ids, as ``create`` does."""
    for o, pk in zip(objects, ids, strict=True):
        o.pk = pk
        o._state.adding = False
        o._state.db = connection.alias


def _money_params(
    postings: list[Posting],
    legs: list[dict[int, int]],
    club_id: int,
    deltas: dict[int, list[int]],
    with_hand: bool = True,
) -> list[Any]:
    """The parameters of ``_money_parts``' CTEs (without the hand's, for ``write_hand``)."""
    fields = [Posting._meta.get_field(f) for f in _posting_array_fields(with_hand)]
    params: list[Any] = [Posting._meta.db_table, Posting._meta.pk.column]
    params += [  # one list per column, in posting order
        [
            cast(Field, f).get_db_prep_save(p.serializable_value(f.name), connection)
            for p in postings
        ]
        for f in fields
    ]
    numbers, accounts, amounts = [], [], []
    for n, ls in enumerate(legs, 1):
        for account_id, amount in ls.items():
            numbers.append(n)
            accounts.append(account_id)
            amounts.append(amount)
    params += [numbers, accounts, amounts]
    if deltas:
        rows = _totals_params(club_id, deltas)
        width = 2 + len(PlayerTotals.COUNTERS)
        params += [rows[i::width] for i in range(width)]  # one list per column
    return params


@cache
def _write_hand_sql(postings: int, totals: bool, fields: tuple[str, ...], hand: str) -> str:
    # The hand's INSERT first (``hand``: insert_hand's statement), its id given to every
    # posting by a subquery; the session row's UPDATE last. Data-modifying CTEs see one
    # snapshot and none reads another's table, and the postings' foreign key to their
    # hand is checked at commit (deferred).
    parts = [
        f"h AS ({hand})",
        *_money_parts(postings, totals, hand="(SELECT id FROM h)"),
        f"s AS ({_update_sql(fields)})",
    ]
    return f"WITH {', '.join(parts)} SELECT h.id, ids.id FROM h, ids ORDER BY ids.n"


def write_hand(
    hand: Hand,
    postings: list[Posting],
    legs: list[dict[int, int]],
    deltas: dict[int, list[int]],
    session: GameSession,
    fields: list[str],
) -> None:
    """A new recorded hand: insert the unsaved ``hand`` (setting its ``pk``), its unsaved
    ``postings`` (their ``hand`` and ``pk``) with their ``legs`` and the club totals'
    ``deltas``, and save ``fields`` of the session row: what ``insert_hand``,
    ``write_postings`` and ``save_session`` write, in one statement on PostgreSQL (a
    recorded hand in one round trip instead of three; issue #20) and in those on SQLite.
    """
    if connection.vendor != "postgresql" or not postings:
        insert_hand(hand)
        for p in postings:
            p.hand = hand  # its id, now that it has one
        write_postings(postings, legs, session.club_id, deltas)
        save_session(session, fields)
        return
    hand_sql, hand_params = insert_statement(
        Hand, _hand_fields(), _rows([hand], _hand_fields()), returning=True
    )
    params = [
        *hand_params,
        *_money_params(postings, legs, session.club_id, deltas, with_hand=False),
        *_session_params(session, fields),
    ]
    sql = _write_hand_sql(len(postings), bool(deltas), tuple(fields), hand_sql)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    _saved([hand], [rows[0][0]])
    _saved(postings, [posting_id for _, posting_id in rows])
    for p in postings:
        p.hand = hand


HAND_REWRITE_FIELDS = ("record", "verdict", "before", "corrections")


def rewrite_hands(hands: list[Hand]) -> None:
    """Save the record, verdict, state before and history of hands a correction
    re-settled (``ledger.postings.corrections``): one UPDATE run for every hand
    (Django's bulk_update spends seconds compiling its CASE expressions for 500 hands)."""
    if not hands:
        return
    fields = [Hand._meta.get_field(f) for f in HAND_REWRITE_FIELDS]
    assert all(isinstance(f, Field) for f in fields)  # plain columns, not relations
    assignments = ", ".join(f"{_column(Hand, f.name)} = %s" for f in fields)
    sql = f"UPDATE {_table(Hand)} SET {assignments} WHERE {_column(Hand, 'id')} = %s"
    rows = [
        [cast(Field, f).get_db_prep_save(getattr(h, f.name), connection) for f in fields] + [h.pk]
        for h in hands
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)
