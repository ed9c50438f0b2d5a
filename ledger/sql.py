"""Hand-written SQL for the statements every recorded hand runs.

Recording a hand is the product's hottest write (a phone waits on it, and a digital hand
settles inside a player's move). On the reference machine the ORM spent more time
compiling these few statements than the database spent running them (bench/web.py,
bench/digital.py), so they are written out here once, portable between PostgreSQL and
SQLite (3.35+, for RETURNING), with table and column names taken from the models.

Only ``ledger.postings`` calls this module. What it writes is checked like everything
else the ledger writes: legs must balance (in ``_post`` and, on PostgreSQL, by the
deferred trigger of migration 0002) and the tests run ``check_invariants`` after every
operation.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from django.db import connection

from games.models import GameSession, Hand

from .models import Leg, Posting


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def _table(model) -> str:
    return _q(model._meta.db_table)


def _column(model, field: str) -> str:
    return _q(model._meta.get_field(field).column)


@cache
def _lock_sql(for_update: bool) -> str:
    sql = f"SELECT * FROM {_table(GameSession)} WHERE {_column(GameSession, 'id')} = %s"
    return sql + (" FOR UPDATE" if for_update else "")


def lock_session(session_id: int) -> GameSession:
    """The session row, locked until the transaction ends (SQLite has no row locks; its
    IMMEDIATE transactions serialise writers instead). Raises DoesNotExist."""
    rows = list(
        GameSession.objects.raw(_lock_sql(connection.features.has_select_for_update), [session_id])
    )
    if not rows:
        raise GameSession.DoesNotExist(f"no session {session_id}")
    return rows[0]


@cache
def _hands_sql() -> str:
    number, status = _column(Hand, "number"), _column(Hand, "status")
    key, pk, session = (
        _column(Hand, "idempotency_key"),
        _column(Hand, "id"),
        _column(Hand, "session"),
    )
    return (
        f"SELECT MAX({number}), "
        f"MAX(CASE WHEN {status} = %s THEN {pk} END), "
        f"MAX(CASE WHEN {key} = %s THEN {pk} END) "
        f"FROM {_table(Hand)} WHERE {session} = %s"
    )


def hand_lookup(session_id: int, key: str) -> tuple[int | None, int | None, int | None]:
    """(the session's last hand number, the id of its hand in progress, the id of its
    hand with this idempotency key — None for an empty key), in one statement."""
    with connection.cursor() as cursor:
        cursor.execute(_hands_sql(), [Hand.Status.IN_PROGRESS, key or None, session_id])
        last, in_progress, existing = cursor.fetchone()
    return last, in_progress, existing


POSTING_FIELDS = ("club", "session", "hand", "kind", "memo", "reverses", "created_by", "created_at")


def _insert_sql(model, fields: Sequence[str], rows: int, returning: bool) -> str:
    columns = ", ".join(_column(model, f) for f in fields)
    values = ", ".join(["(" + ", ".join(["%s"] * len(fields)) + ")"] * rows)
    sql = f"INSERT INTO {_table(model)} ({columns}) VALUES {values}"
    return sql + (f" RETURNING {_column(model, 'id')}" if returning else "")


def insert_postings(postings: list[Posting]) -> None:
    """Insert unsaved postings with their legs' parent ids set on them (``pk``)."""
    params: list[object] = []
    for p in postings:
        params += [
            p.club_id,
            p.session_id,
            p.hand_id,
            p.kind,
            p.memo,
            p.reverses_id,
            p.created_by_id,
            connection.ops.adapt_datetimefield_value(p.created_at),
        ]
    with connection.cursor() as cursor:
        cursor.execute(_insert_sql(Posting, POSTING_FIELDS, len(postings), True), params)
        ids = [row[0] for row in cursor.fetchall()]
    # RETURNING gives the rows in the order of VALUES on both databases (Django's own
    # bulk_create relies on the same).
    for p, pk in zip(postings, ids, strict=True):
        p.pk = pk
        p._state.adding = False
        p._state.db = connection.alias


def insert_legs(legs: list[tuple[int, int, int]]) -> None:
    """Insert legs given as (posting id, account id, amount)."""
    params = [x for leg in legs for x in leg]
    with connection.cursor() as cursor:
        cursor.execute(_insert_sql(Leg, ("posting", "account", "amount"), len(legs), False), params)
