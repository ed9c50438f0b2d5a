"""Every hand-written SQL statement of the games app, each with a contract test
(tests/test_sql_contracts.py) against its ORM equivalent on both databases.

Plain SQL only where a request runs the statement while a phone waits and the ORM's
compilation cost more than the database's work (bench/web.py, bench/digital.py). Names
come from the models' ``_meta``, so a renamed column changes the SQL with it.

- ``session_with_membership``: the session and the user's membership (every page and
  poll of a session; ``games.access.session_for``), returned together as a
  ``SessionAccess``; locked for a recorded hand (the access check and the ledger's lock
  in one statement).
- ``digital_hand``: a digital hand of a session (every move).
- ``board_poll``: a session's version, the user's role in its club and what the login
  session must match (every scoreboard poll that may be answered 304;
  ``games.polling.member_board_unchanged``).
- ``login_board_poll``: the same with the login session's row in the same statement
  (``games.polling.BoardPollMiddleware``: a poll answered 304 in one round trip).
- ``session_version``: a session's version alone (a poll whose access is already known).
- ``insert_rows``: a multi-row INSERT without the ORM's per-call overhead, for the
  hottest writes.
- ``run_each``: statements run one after the other, each one's rows returned (the
  scoreboard's reads).
- ``latest_record_statement``: the record of a session's latest recorded hand (the
  record form starts from who played it); ``recent_hands_statement``: its latest hands'
  summaries and ``tournament_table_statement``: the tournament table it is (the
  scoreboard).

``Model.objects.bulk_create`` costs about as much Python as a small insert costs the
database; a digital move and a recorded hand each run one or two such inserts while a
phone waits (bench/digital.py, bench/web.py). ``insert_rows`` writes the same rows with
one statement. Values go through each field's ``get_db_prep_save`` (so datetimes, JSON
and foreign keys are adapted exactly as the ORM adapts them), names come from the
model's ``_meta``, and the SQL is portable between PostgreSQL and SQLite 3.35+.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any
from weakref import WeakKeyDictionary

from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.db import connection, connections
from django.db.models import Field, Model
from django.db.models.sql import Query
from django.utils import timezone

from games.models import Club, GameSession, Hand, Membership, Tournament, TournamentTable

Statement = tuple[str, Sequence[Any]]


def run_each(statements: Sequence[Statement]) -> list[list[tuple[Any, ...]]]:
    """Run the statements in order and return each one's rows. (psycopg's pipeline mode,
    which sent them in one round trip, saved under 10 % of the requests using it and
    was removed in issue #31.)"""
    results = []
    with connection.cursor() as cursor:
        for sql, params in statements:
            cursor.execute(sql, params)
            results.append(cursor.fetchall())
    return results


def quote(name: str) -> str:
    return connection.ops.quote_name(name)


def table(model: type[Model]) -> str:
    return quote(model._meta.db_table)


def column(model: type[Model], field: str) -> str:
    return _quoted_column(_concrete(model, field))


def _quoted_column(field: Field[Any, Any]) -> str:
    assert field.column is not None, field  # a concrete field always has its column
    return quote(field.column)


def _concrete(model: type[Model], name: str) -> Field[Any, Any]:
    """A model's own column field by name (never a reverse relation)."""
    field = model._meta.get_field(name)
    assert isinstance(field, Field), name
    return field


def insert_rows(
    model: type[Model],
    fields: Sequence[str],
    rows: Sequence[Sequence[object]],
    returning: bool = False,
) -> list[int]:
    """INSERT ``rows`` (one value per field, in order) in one statement; returns the new
    ids in row order when ``returning`` (RETURNING keeps the order of VALUES on both
    databases, which Django's own bulk_create relies on too)."""
    if not rows:
        return []
    sql, params = insert_statement(model, fields, rows, returning)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()] if returning else []


def insert_statement(
    model: type[Model],
    fields: Sequence[str],
    rows: Sequence[Sequence[object]],
    returning: bool = False,
) -> tuple[str, list[Any]]:
    """``insert_rows``' statement and its parameters, not run: for a caller that writes
    the rows inside a larger statement (``ledger.sql.write_hand``'s first CTE)."""
    meta, sql = _insert_sql(model, tuple(fields), len(rows), returning)
    params: list[Any] = []  # get_db_prep_save's database-ready values
    for row in rows:
        params += [f.get_db_prep_save(v, connection) for f, v in zip(meta, row, strict=True)]
    return sql, params


@lru_cache(maxsize=256)
def _insert_sql(
    model: type[Model], fields: tuple[str, ...], rows: int, returning: bool
) -> tuple[list[Field[Any, Any]], str]:
    """The fields and the statement of ``insert_rows`` for this shape, made once."""
    meta = [_concrete(model, f) for f in fields]
    one = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = (
        f"INSERT INTO {table(model)} ({', '.join(_quoted_column(f) for f in meta)}) "
        f"VALUES {', '.join([one] * rows)}"
    )
    return meta, (sql + (f" RETURNING {column(model, 'id')}" if returning else ""))


@dataclass(frozen=True)
class SessionAccess:
    """A session with what its access check needs: the user's membership of its club
    (``membership_id`` and ``role``, both None for a non-member) and the club's zone."""

    session: GameSession
    membership_id: int | None
    role: str | None
    time_zone: str


@cache
def _session_sql(for_update: bool = False) -> str:
    # The session's columns by name in the model's field order (``_model_from_row``).
    session_columns = ", ".join(f"s.{quote(f.column)}" for f in _fields(GameSession))
    sql = (
        f"SELECT {session_columns}, m.{column(Membership, 'id')}, m.{column(Membership, 'role')}, "
        f"(SELECT c.{column(Club, 'time_zone')} FROM {table(Club)} c "
        f"WHERE c.{column(Club, 'id')} = s.{column(GameSession, 'club')}) "
        f"FROM {table(GameSession)} s LEFT JOIN {table(Membership)} m "
        f"ON m.{column(Membership, 'club')} = s.{column(GameSession, 'club')} "
        f"AND m.{column(Membership, 'user')} = %s "
        f"WHERE s.{column(GameSession, 'id')} = %s"
    )
    # A scalar subquery for the zone: FOR UPDATE OF s locks the session row only.
    return sql + (" FOR UPDATE OF s" if for_update else "")


def session_with_membership(
    user_id: int, session_id: int, lock: bool = False
) -> SessionAccess | None:
    """The session, the user's membership of its club and the club's zone; None if there
    is no such session. One statement.

    With ``lock`` (inside the caller's transaction) the row is also locked as
    ``ledger.sql.lock_session`` locks it: a recorded hand's access check and the ledger's
    lock in one statement (``access.session_for``)."""
    if lock and not connection.in_atomic_block:
        raise RuntimeError("a locked read needs the caller's transaction")
    sql = _session_sql(lock and connection.features.has_select_for_update)
    # A plain cursor and the ORM's own converters and from_db: Manager.raw() spent more
    # Python mapping the row's columns than this whole function does now (issue #20).
    with connection.cursor() as cursor:
        cursor.execute(sql, [user_id, session_id])
        row = cursor.fetchone()
    if row is None:
        return None
    width = len(_fields(GameSession))
    membership_id, role, time_zone = row[width:]
    session: GameSession = _model_from_row(GameSession, row[:width])
    return SessionAccess(session, membership_id, role, time_zone)


@cache
def _fields(model: type[Model]) -> tuple[Any, ...]:
    return tuple(model._meta.concrete_fields)


def _model_from_row(
    model: type[Model], values: Sequence[Any], fields: tuple[Any, ...] | None = None
) -> Any:
    """A model instance from its columns (in ``concrete_fields`` order, or ``fields``'
    with the others deferred, as ``.only()`` would leave them), through the same
    converters and ``from_db`` as the ORM's own queries (JSON decoded; SQLite's booleans
    and datetimes come back as numbers and text)."""
    # Kept by model for every column (the common case: no tuple of fields to hash).
    key = model if fields is None else (model, fields)
    fields = fields or _fields(model)
    # The converters belong to a connection (bound to its operations): kept per connection.
    wrapper = connections[connection.alias]
    known = _CONVERTERS.setdefault(wrapper, {}).get(key)
    if known is None:
        compiler = wrapper.ops.compiler("SQLCompiler")(Query(model), wrapper, wrapper.alias)
        converters = compiler.get_converters([f.get_col(model._meta.db_table) for f in fields])
        known = (compiler, converters, [f.attname for f in fields])
        _CONVERTERS[wrapper][key] = known
    compiler, converters, names = known
    if converters:
        values = next(compiler.apply_converters([values], converters))
    return model.from_db(wrapper.alias, names, values)


_CONVERTERS: WeakKeyDictionary = WeakKeyDictionary()


@cache
def _recorded_hands_sql(fields: tuple[str, ...], limit: int) -> str:
    # Read backwards along (session, number) from the latest recorded hand; the status is
    # a literal, as in ledger.sql's lookups.
    recorded = Hand.Status.RECORDED.value
    assert recorded.isalpha()  # a code constant, written into the SQL
    return (
        f"SELECT {', '.join(column(Hand, f) for f in fields)} FROM {table(Hand)} "
        f"WHERE {column(Hand, 'session')} = %s AND {column(Hand, 'status')} = '{recorded}' "
        f"AND {column(Hand, 'number')} IS NOT NULL "
        f"ORDER BY {column(Hand, 'number')} DESC LIMIT {int(limit)}"
    )


def latest_record_statement(session_id: int) -> Statement:
    """The statement reading the record of the session's latest recorded hand, not run
    (for ``along``); ``latest_record`` decodes its rows."""
    return _recorded_hands_sql(("record",), 1), [session_id]


def latest_record(session_id: int, rows: list[tuple] | None = None) -> dict | None:
    """The record (HAND_RECORD.md) of the session's latest recorded hand, as
    ``session.hands.filter(status=RECORDED, number__isnull=False).order_by("-number")``
    would give it first;
    None before the first. ``rows``: what ``latest_record_statement`` answered, when the
    caller sent it along with another statement."""
    if rows is None:
        with connection.cursor() as cursor:
            cursor.execute(*latest_record_statement(session_id))
            rows = cursor.fetchall()
    if not rows:
        return None
    # The JSON field's own decoding, as the ORM's query would apply it (its expression
    # argument is for key lookups only; the stubs insist on one).
    field: Any = Hand._meta.get_field("record")
    return field.from_db_value(rows[0][0], None, connection)


# What a hand's one-line summary reads (templates/games/hand_result.html#summary and the
# scoreboard's link; the shortfalls say what a short tournament stack really paid): not
# its state before, log or history.
SUMMARY_FIELDS = ("id", "session", "number", "status", "record", "verdict", "shortfalls")


def recent_hands_statement(session_id: int, limit: int) -> Statement:
    """The statement reading the session's latest ``limit`` recorded hands, newest first,
    not run (for ``along``); ``recent_hands`` makes them hands."""
    names = tuple(f.name for f in _summary_fields())
    return _recorded_hands_sql(names, limit), [session_id]


def recent_hands(session: GameSession, rows: list[tuple]) -> list[Hand]:
    """``recent_hands_statement``'s rows as the hands
    ``session.hands.filter(status=RECORDED, number__isnull=False).order_by("-number")
    .only(*SUMMARY_FIELDS)[:limit]`` would give: the other fields deferred, and each
    hand's ``session`` the one given, as the related manager sets it."""
    fields = _summary_fields()
    hands = [_model_from_row(Hand, row, fields) for row in rows]
    for hand in hands:
        hand.session = session
    return hands


@cache
def _summary_fields() -> tuple:
    # In the model's field order: from_db fills the deferred ones in between.
    return tuple(f for f in _fields(Hand) if f.name in SUMMARY_FIELDS)


@cache
def _tournament_table_sql() -> str:
    # Both rows' columns by name in field order (``_model_from_row``), as
    # select_related("tournament") reads them; a session is one table at most.
    tt, tournament = _fields(TournamentTable), _fields(Tournament)
    columns = [f"tt.{quote(f.column)}" for f in tt] + [f"t.{quote(f.column)}" for f in tournament]
    return (
        f"SELECT {', '.join(columns)} FROM {table(TournamentTable)} tt "
        f"JOIN {table(Tournament)} t "
        f"ON t.{column(Tournament, 'id')} = tt.{column(TournamentTable, 'tournament')} "
        f"WHERE tt.{column(TournamentTable, 'session')} = %s"
    )


def tournament_table_statement(session_id: int) -> Statement:
    """The statement reading the tournament table a session is (if any), with its
    tournament, not run (for ``along``); ``tournament_table`` makes it the object."""
    return _tournament_table_sql(), [session_id]


def tournament_table(rows: list[tuple]) -> TournamentTable | None:
    """``tournament_table_statement``'s rows as
    ``TournamentTable.objects.filter(session=...).select_related("tournament").first()``
    gives them (None for a session that is no tournament's table)."""
    if not rows:
        return None
    width = len(_fields(TournamentTable))
    found: TournamentTable = _model_from_row(TournamentTable, rows[0][:width])
    found.tournament = _model_from_row(Tournament, rows[0][width:])
    return found


@cache
def _hand_sql() -> str:
    return (
        f"SELECT * FROM {table(Hand)} WHERE {column(Hand, 'id')} = %s "
        f"AND {column(Hand, 'session')} = %s AND {column(Hand, 'kind')} = %s"
    )


def digital_hand(session_id: int, hand_id: int) -> Hand | None:
    """The digital hand ``hand_id`` of this session, or None (every move reads it)."""
    return next(iter(Hand.objects.raw(_hand_sql(), [hand_id, session_id, Hand.Kind.DIGITAL])), None)


@cache
def _board_poll_sql() -> str:
    user = get_user_model()
    return (
        f"SELECT s.{column(GameSession, 'version')}, m.{column(Membership, 'role')}, "
        f"u.{column(user, 'password')}, u.{column(user, 'is_active')} "
        f"FROM {table(GameSession)} s JOIN {table(Membership)} m "
        f"ON m.{column(Membership, 'club')} = s.{column(GameSession, 'club')} "
        f"AND m.{column(Membership, 'user')} = %s "
        f"JOIN {table(user)} u ON u.{column(user, 'id')} = m.{column(Membership, 'user')} "
        f"WHERE s.{column(GameSession, 'id')} = %s"
    )


def board_poll(user_id: int, session_id: int) -> tuple[int, str, str, bool] | None:
    """(the session's version, the user's role in its club, the user's password hash,
    whether the user is active); None unless the session exists and the user is a member
    of its club. One statement over primary keys and the membership's unique index: no
    model is built."""
    with connection.cursor() as cursor:
        cursor.execute(_board_poll_sql(), [user_id, session_id])
        row = cursor.fetchone()
    if row is None:
        return None
    version, role, password, active = row
    return version, role, password, bool(active)


@cache
def _login_board_poll_sql() -> str:
    user = get_user_model()
    return (
        f"SELECT ls.{column(Session, 'session_data')}, s.{column(GameSession, 'version')}, "
        f"m.{column(Membership, 'role')}, u.{column(user, 'password')}, "
        f"u.{column(user, 'is_active')} "
        f"FROM {table(Session)} ls "
        f"LEFT JOIN {table(GameSession)} s ON s.{column(GameSession, 'id')} = %s "
        f"LEFT JOIN {table(Membership)} m "
        f"ON m.{column(Membership, 'club')} = s.{column(GameSession, 'club')} "
        f"AND m.{column(Membership, 'user')} = %s "
        f"LEFT JOIN {table(user)} u ON u.{column(user, 'id')} = m.{column(Membership, 'user')} "
        f"WHERE ls.{column(Session, 'session_key')} = %s "
        f"AND ls.{column(Session, 'expire_date')} > %s"
    )


def _session_now() -> Any:
    """Now, as a login session's ``expire_date`` is compared with it in plain SQL."""
    return Session._meta.get_field("expire_date").get_db_prep_value(timezone.now(), connection)


def login_board_poll(
    session_key: str, user_id: int, session_id: int
) -> tuple[str, tuple[int, str, str, bool] | None] | None:
    """The login session's stored data (what the database session engine's ``load``
    reads: the row of that key, unexpired) and, beside it, ``board_poll(user_id,
    session_id)``'s answer; None when no such login session is live. One statement: the
    user id comes from the client (the ETag it was given) and is only believed once the
    caller has decoded the session data and found the same id in it."""
    with connection.cursor() as cursor:
        cursor.execute(_login_board_poll_sql(), [session_id, user_id, session_key, _session_now()])
        row = cursor.fetchone()
    if row is None:
        return None
    data, version, role, password, active = row
    if role is None:  # no such session, or not a member of its club
        return data, None
    return data, (version, role, password, bool(active))


@cache
def _version_sql() -> str:
    return (
        f"SELECT {column(GameSession, 'version')} FROM {table(GameSession)} "
        f"WHERE {column(GameSession, 'id')} = %s"
    )


def session_version(session_id: int) -> int | None:
    """The session's version (None: no such session); the primary key alone."""
    with connection.cursor() as cursor:
        cursor.execute(_version_sql(), [session_id])
        row = cursor.fetchone()
    return None if row is None else row[0]
