"""A persistent PostgreSQL connection is checked per request by its socket, not by a
``SELECT 1`` (bourre_site/dbhealth.py; kept by issue #31: 12-14 % of a 304 poll): a connection the server ended (what a
PostgreSQL restart does to every connection) is replaced before the request uses it, and a
quiet one costs no round trip.

The server is not restarted here (other databases share it): ``pg_terminate_backend``
ends one backend the way a restart ends them all (the goodbye message, then the socket
closed). Run with DATABASE_URL=postgres://...; on SQLite only the no-op is checked.
"""

from __future__ import annotations

import select
import time

import pytest
from django.conf import settings
from django.core.signals import request_started
from django.db import connection, connections
from django.test import Client
from django.urls import reverse

from bourre_site import dbhealth

postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs DATABASE_URL=postgres://..."
)


def _fresh():
    """A connection of its own to the test database, outside the test's transaction."""
    conn = connections.create_connection("default")
    conn.ensure_connection()
    return conn


def _end_backend(victim) -> None:
    """End ``victim``'s server process from another connection, and wait until its
    goodbye has reached the socket (termination is asynchronous)."""
    pid = victim.connection.info.backend_pid
    killer = _fresh()
    try:
        with killer.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
            assert cursor.fetchone() == (True,)
    finally:
        killer.close()
    readable, _, _ = select.select([victim.connection.fileno()], [], [], 10)
    assert readable, "the server did not end the connection within 10 s"


def _count_checks(conn, monkeypatch) -> list[bool]:
    calls: list[bool] = []
    real = conn.is_usable

    def is_usable() -> bool:
        calls.append(answer := real())
        return answer

    monkeypatch.setattr(conn, "is_usable", is_usable)
    return calls


def test_no_select_1_per_request():
    """Django's own check would run SELECT 1 before each request's first query."""
    assert settings.DATABASES["default"]["CONN_HEALTH_CHECKS"] is False
    receivers = [r[1]() for r in request_started.receivers]
    assert dbhealth.check_connections in receivers


@pytest.mark.django_db
def test_sqlite_connections_are_left_alone(monkeypatch):
    if connection.vendor != "sqlite":
        pytest.skip("the SQLite case")
    connection.ensure_connection()
    calls = _count_checks(connection, monkeypatch)
    dbhealth.check_connections()
    assert connection.connection is not None and calls == []


@postgres_only
@pytest.mark.django_db
def test_a_quiet_connection_costs_no_round_trip(monkeypatch):
    conn = _fresh()
    try:
        raw = conn.connection
        calls = _count_checks(conn, monkeypatch)
        dbhealth.check_connection(conn)
        assert calls == [] and conn.connection is raw
    finally:
        conn.close()


@postgres_only
@pytest.mark.django_db
def test_a_connection_the_server_ended_is_replaced(monkeypatch):
    conn = _fresh()
    try:
        _end_backend(conn)
        calls = _count_checks(conn, monkeypatch)
        dbhealth.check_connection(conn)
        assert calls == [False] and conn.connection is None
        with conn.cursor() as cursor:  # the next query connects afresh
            cursor.execute("SELECT 1")
            assert cursor.fetchone() == (1,)
    finally:
        conn.close()


@postgres_only
@pytest.mark.django_db
def test_news_that_is_not_a_goodbye_keeps_the_connection(monkeypatch):
    """A notification makes the socket readable too: the real check runs, passes, and the
    connection stays."""
    conn, other = _fresh(), _fresh()
    try:
        with conn.cursor() as cursor:
            cursor.execute("LISTEN bourre_dbhealth_test")
        with other.cursor() as cursor:
            cursor.execute("NOTIFY bourre_dbhealth_test")
        readable, _, _ = select.select([conn.connection.fileno()], [], [], 10)
        assert readable
        raw = conn.connection
        calls = _count_checks(conn, monkeypatch)
        dbhealth.check_connection(conn)
        assert calls == [True] and conn.connection is raw
    finally:
        conn.close()
        other.close()


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_after_a_restart_the_phone_sees_nothing(club, players, bob, carol):
    """The request after the server ended the app's connection: a 200, where without the
    socket check it would fail (the login session is read before any view: a 500)."""
    from tests.games.test_session_views import HTMX, start_table

    table = start_table(club, players, bob)
    url = reverse("session_detail", args=[table.pk])
    phone = Client(raise_request_exception=False)
    phone.force_login(carol)
    assert phone.get(url, **HTMX).status_code == 200
    try:
        _end_backend(connection)
        request_started.disconnect(dispatch_uid="bourre_site.dbhealth")
        try:
            failed = phone.get(url, **HTMX)
        finally:
            request_started.connect(dbhealth.check_connections, dispatch_uid="bourre_site.dbhealth")
        assert failed.status_code >= 500
        connection.close()  # what Django does after the error (close_if_unusable_or_obsolete)
        assert phone.get(url, **HTMX).status_code == 200

        _end_backend(connection)
        started = time.monotonic()
        response = phone.get(url, **HTMX)
        assert response.status_code == 200, response.content[:200]
        assert 'id="board"' in response.content.decode() and time.monotonic() - started < 10
    finally:
        connection.close()
