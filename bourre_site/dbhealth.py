"""A persistent PostgreSQL connection checked at the start of each request without a round
trip to the server. Measured gain: 12.4 % and 13.7 % of a 304 poll (two runs of
bench/devices.py, issue #31); tests/test_connection_health.py is its contract.

Django's ``CONN_HEALTH_CHECKS`` sends ``SELECT 1`` before the first query of every request
that reuses a connection. Under gunicorn that is one more hop to PostgreSQL's process on
every request: a third of a scoreboard poll's round trips. Settings turn it off, and
``check_connections`` (on ``request_started``, registered in ``games.apps``) asks the
operating system instead: between two requests nothing is owed to the client, so a
connection whose socket has something to read was told something by the server. When
PostgreSQL restarts (or ends the backend: ``pg_terminate_backend``, an idle timeout, a
crash that closes the socket) it sends its goodbye and closes the socket, which makes it
readable; only then is the real check run (Django's ``is_usable``), and a dead connection
is closed, so the request's first query opens a new one: the phone sees nothing of the
restart. Anything else the server may push between requests (a notice, a parameter's new
value) only costs that one real check.

What no socket shows: a server that vanished without closing the connection (a machine
pulled off the network). ``SELECT 1`` would not have answered either; the first query
fails, the phone gets the 503 with ``Retry-After`` (``bourre_site.middleware``) and Django
closes the connection after the error (``close_if_unusable_or_obsolete``), so the next
request connects afresh.
"""

from __future__ import annotations

import select
from typing import Any

from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper

if hasattr(select, "poll"):

    def _has_news(fd: int) -> bool:
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLPRI)
        return bool(poller.poll(0))  # POLLHUP and POLLERR are reported whatever was asked

else:  # pragma: no cover  (Windows has no poll; select works on its sockets)

    def _has_news(fd: int) -> bool:
        readable, _, broken = select.select([fd], [], [fd], 0)
        return bool(readable or broken)


def server_spoke(connection: BaseDatabaseWrapper) -> bool:
    """Whether the server sent anything on this idle PostgreSQL connection (or closed it),
    read from the socket without sending a thing."""
    raw = connection.connection
    try:
        fd = raw.fileno()
    except Exception:  # a connection psycopg already knows is closed
        return True
    if fd < 0:
        return True
    return _has_news(fd)


def check_connection(conn: BaseDatabaseWrapper) -> None:
    """Close ``conn`` (a Django connection) if it is an open PostgreSQL connection the
    server has ended; the next query then opens a new one. Inside a transaction it is
    left alone (closing would lose the transaction; the error will say so)."""
    if conn.vendor != "postgresql" or conn.connection is None or conn.in_atomic_block:
        return
    if server_spoke(conn) and not conn.is_usable():
        conn.close()


def check_connections(**kwargs: Any) -> None:
    """``request_started`` receiver: every connection this thread has opened."""
    for conn in connections.all(initialized_only=True):
        check_connection(conn)
