"""Every hand-written SQL statement of the games app, each with a contract test
(tests/test_sql_contracts.py) against its ORM equivalent on both databases.

Plain SQL only where a request runs the statement while a phone waits and the ORM's
compilation cost more than the database's work (bench/web.py, bench/digital.py). Names
come from the models' ``_meta``, so a renamed column changes the SQL with it.

- ``session_with_membership``: the session and the user's membership (every page and
  poll of a session; ``games.access.session_for``); locked, with the club's webhook flag,
  for a recorded hand (the access check and the ledger's lock in one statement).
- ``digital_hand``: a digital hand of a session (every move).
- ``board_poll``: a session's version, the user's role in its club and what the login
  session must match (every scoreboard poll that may be answered 304;
  ``games.polling.member_board_unchanged``).
- ``login_board_poll``: the same with the login session's row in the same statement
  (``games.polling.BoardPollMiddleware``: a poll answered 304 in one round trip).
- ``session_version``: a session's version alone (a poll whose access is already known).
- ``insert_rows``: a multi-row INSERT without the ORM's per-call overhead, for the
  hottest writes.

``Model.objects.bulk_create`` costs about as much Python as a small insert costs the
database; a digital move and a recorded hand each run one or two such inserts while a
phone waits (bench/digital.py, bench/web.py). ``insert_rows`` writes the same rows with
one statement. Values go through each field's ``get_db_prep_save`` (so datetimes, JSON
and foreign keys are adapted exactly as the ORM adapts them), names come from the
model's ``_meta``, and the SQL is portable between PostgreSQL and SQLite 3.35+.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.db import connection
from django.utils import timezone

from games.models import Club, GameSession, Hand, Membership


def quote(name: str) -> str:
    return connection.ops.quote_name(name)


def table(model) -> str:
    return quote(model._meta.db_table)


def column(model, field: str) -> str:
    return quote(model._meta.get_field(field).column)


def insert_rows(
    model, fields: Sequence[str], rows: Sequence[Sequence[object]], returning: bool = False
) -> list[int]:
    """INSERT ``rows`` (one value per field, in order) in one statement; returns the new
    ids in row order when ``returning`` (RETURNING keeps the order of VALUES on both
    databases, which Django's own bulk_create relies on too)."""
    if not rows:
        return []
    meta = [model._meta.get_field(f) for f in fields]
    params: list[Any] = []  # get_db_prep_save's database-ready values
    for row in rows:
        params += [f.get_db_prep_save(v, connection) for f, v in zip(meta, row, strict=True)]
    one = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = (
        f"INSERT INTO {table(model)} ({', '.join(quote(f.column) for f in meta)}) "
        f"VALUES {', '.join([one] * len(rows))}"
    )
    with connection.cursor() as cursor:
        if not returning:
            cursor.execute(sql, params)
            return []
        cursor.execute(sql + f" RETURNING {column(model, 'id')}", params)
        return [row[0] for row in cursor.fetchall()]


@cache
def _session_sql(lock: bool = False, for_update: bool = False) -> str:
    def of_club(field: str) -> str:
        return (
            f"(SELECT c.{column(Club, field)} FROM {table(Club)} c "
            f"WHERE c.{column(Club, 'id')} = s.{column(GameSession, 'club')})"
        )

    # Locked for a recorded hand: the club's webhook flag rides along as in
    # ledger.sql.lock_session (scalar subqueries: FOR UPDATE OF s locks the session row only).
    webhooks = f", {of_club('has_webhooks')} AS _has_webhooks" if lock else ""
    sql = (
        f"SELECT s.*, m.{column(Membership, 'id')} AS _membership_id, "
        f"m.{column(Membership, 'role')} AS _role, {of_club('time_zone')} AS _time_zone"
        f"{webhooks} FROM {table(GameSession)} s LEFT JOIN {table(Membership)} m "
        f"ON m.{column(Membership, 'club')} = s.{column(GameSession, 'club')} "
        f"AND m.{column(Membership, 'user')} = %s "
        f"WHERE s.{column(GameSession, 'id')} = %s"
    )
    return sql + (" FOR UPDATE OF s" if for_update else "")


def session_with_membership(
    user_id: int, session_id: int, lock: bool = False
) -> GameSession | None:
    """The session with ``_membership_id`` and ``_role`` of the user's membership of its
    club (both None for a non-member) and ``_time_zone``, its club's zone; None if there
    is no such session. One statement.

    With ``lock`` (inside the caller's transaction) the row is also locked as
    ``ledger.sql.lock_session`` locks it and carries ``_has_webhooks``: a recorded hand's
    access check and the ledger's lock in one statement (``access.session_for``)."""
    if lock and not connection.in_atomic_block:
        raise RuntimeError("a locked read needs the caller's transaction")
    sql = _session_sql(lock, lock and connection.features.has_select_for_update)
    rows: list[Any] = list(GameSession.objects.raw(sql, [user_id, session_id]))
    if not rows:
        return None
    if lock:
        rows[0]._has_webhooks = bool(rows[0]._has_webhooks)  # SQLite answers 0 or 1
    return rows[0]


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


def login_board_poll(
    session_key: str, user_id: int, session_id: int
) -> tuple[str, tuple[int, str, str, bool] | None] | None:
    """The login session's stored data (what the database session engine's ``load``
    reads: the row of that key, unexpired) and, beside it, ``board_poll(user_id,
    session_id)``'s answer; None when no such login session is live. One statement: the
    user id comes from the client (the ETag it was given) and is only believed once the
    caller has decoded the session data and found the same id in it."""
    expires = Session._meta.get_field("expire_date")
    now = expires.get_db_prep_value(timezone.now(), connection)
    with connection.cursor() as cursor:
        cursor.execute(_login_board_poll_sql(), [session_id, user_id, session_key, now])
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
