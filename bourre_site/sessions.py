"""The login session engines: Django's database engines (``db`` here, ``cached_db`` with a
shared cache in ``bourre_site.sessions_cached``), the session row read by one plain
statement (issue #20).

Every request of a signed-in phone loads its session row before anything else (the
language middleware reads it first). Django's engine reads it with
``Session.objects.get(session_key=..., expire_date__gt=now)``: about 0.26 ms of ORM query
building and model loading in a record POST, against 0.08 ms for the same row read by a
plain statement (bench on PostgreSQL, same run). The statement
(``games.sql.session_row``, beside the scoreboard poll's read of the same row) asks
exactly what the ORM asks (that key, not yet expired) and returns the same ``Session``
object, so everything else (saving, expiry, ``cached_db``'s cache) is Django's own;
tests/test_session_engine.py holds it to its ORM twin.
"""

from __future__ import annotations

from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session

from games.sql import session_row

__all__ = ["SessionStore", "session_row"]


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
