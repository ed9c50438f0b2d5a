"""The login session engines: Django's database engines (``db`` here, ``cached_db`` with a
shared cache in ``bourre_site.sessions_cached``), the session row read by one plain
statement (issue #20).

Every request of a signed-in phone loads its session row before anything else (the
language middleware reads it first). Django's engine reads it with
``Session.objects.get(session_key=..., expire_date__gt=now)``: about 0.26 ms of ORM query
building and model loading in a record POST, against 0.08 ms for the same row read by a
plain statement (bench on PostgreSQL, same run). The statement asks exactly what the ORM
asks (that key, not yet expired) and returns the same ``Session`` object, so everything
else (saving, expiry, ``cached_db``'s cache) is Django's own;
tests/test_session_engine.py holds it to its ORM twin.
"""

from __future__ import annotations

from functools import cache
from typing import cast

from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.db import connections, router
from django.db.models import Field
from django.utils import timezone


@cache
def _row_sql() -> str:
    quote = connections[router.db_for_read(Session)].ops.quote_name
    data, expires, key = (
        quote(str(cast(Field, Session._meta.get_field(name)).column))
        for name in ("session_data", "expire_date", "session_key")
    )
    return (
        f"SELECT {data}, {expires} FROM {quote(Session._meta.db_table)} "
        f"WHERE {key} = %s AND {expires} > %s"
    )


def session_row(session_key: str | None) -> Session | None:
    """The live session of that key, as ``Session.objects.get`` would load it; None if
    there is none (unknown, or expired)."""
    if not session_key:
        return None
    connection = connections[router.db_for_read(Session)]
    expires = Session._meta.get_field("expire_date")
    now = expires.get_db_prep_value(timezone.now(), connection)
    with connection.cursor() as cursor:
        cursor.execute(_row_sql(), [session_key, now])
        row = cursor.fetchone()
    if row is None:
        return None
    data, expire_date = row
    # The backend's own conversion (SQLite stores text; time zones), as the ORM's.
    column = expires.get_col(Session._meta.db_table)
    for converter in connection.ops.get_db_converters(column):
        expire_date = converter(expire_date, column, connection)
    return Session(session_key=session_key, session_data=data, expire_date=expire_date)


class SessionStore(db.SessionStore):
    """``django.contrib.sessions.backends.db`` (SESSION_ENGINE ``bourre_site.sessions``),
    the row read by ``session_row``. Named as Django's, as every store class here must
    be: Django signs session data with a salt made of the class's name, and another
    name would make every login written before unreadable (everyone signed out)."""

    def _get_session_from_db(self) -> Session | None:
        found = session_row(self.session_key)
        if found is None:
            self._session_key = None  # as Django's: a missing row is a new, empty session
        return found
