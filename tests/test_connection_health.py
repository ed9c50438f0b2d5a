"""A persistent PostgreSQL connection is checked by Django's own ``CONN_HEALTH_CHECKS``
(issue #31 removed the socket check of bourre_site/dbhealth.py, which saved under 10 % of
a poll): a connection the server ended (what a PostgreSQL restart does to every
connection) is replaced before the request uses it.

The server is not restarted here (other databases share it): ``pg_terminate_backend``
ends one backend the way a restart ends them all. Run with DATABASE_URL=postgres://...;
on SQLite only the setting is checked.
"""

from __future__ import annotations

import select

import pytest
from django.conf import settings
from django.db import close_old_connections, connection, connections
from django.test import Client
from django.urls import reverse

postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs DATABASE_URL=postgres://..."
)


def _end_backend(victim) -> None:
    """End ``victim``'s server process from another connection, and wait until its
    goodbye has reached the socket (termination is asynchronous)."""
    pid = victim.connection.info.backend_pid
    killer = connections.create_connection("default")
    try:
        with killer.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
            assert cursor.fetchone() == (True,)
    finally:
        killer.close()
    readable, _, _ = select.select([victim.connection.fileno()], [], [], 10)
    assert readable, "the server did not end the connection within 10 s"


def test_django_checks_persistent_connections():
    assert settings.DATABASES["default"]["CONN_HEALTH_CHECKS"] is True


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_after_a_restart_the_phone_sees_nothing(club, players, bob, carol):
    """The request after the server ended the app's connection: a 200. A server sends
    ``request_started`` (``close_old_connections``, which arms Django's health check);
    the test client does not, so it is sent here as a server would."""
    from tests.games.test_session_views import HTMX, start_table

    table = start_table(club, players, bob)
    url = reverse("session_detail", args=[table.pk])
    phone = Client(raise_request_exception=False)
    phone.force_login(carol)
    assert phone.get(url, **HTMX).status_code == 200
    try:
        _end_backend(connection)
        close_old_connections()
        response = phone.get(url, **HTMX)
        assert response.status_code == 200, response.content[:200]
        assert 'id="board"' in response.content.decode()
    finally:
        connection.close()
