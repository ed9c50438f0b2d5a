"""Keys that recover (issue #33, games.api.idempotency): the key is written with the
response, in the change's own transaction, so a request that dies mid-write leaves the
key free and its retry records the hand exactly once.

The worker killed with SIGKILL mid-write is tests/test_bar_i33_hooks.py's (a real app
server); here: the key is not written before the change, a write failing midway, a
database connection dropped mid-write, and a genuinely concurrent duplicate (409 at once,
then the first one's response).
"""

import threading

import pytest
from django.db import connection, transaction
from django.test import Client

from games.models import GameSession, Hand, IdempotencyRecord
from ledger import postings
from tests import test_bar_i33_hooks as bar

from .conftest import FIRST_HAND, token_client


def _post(client, session, key="k-1"):
    return client.post(
        f"/api/v1/sessions/{session.pk}/hands/",
        FIRST_HAND,
        content_type="application/json",
        headers={"Idempotency-Key": key},
    )


def _quiet_client(user) -> Client:
    """A token client that answers a server error with a 500 response, as a server does."""
    client = token_client(user)
    client.raise_request_exception = False
    return client


def test_the_key_is_not_written_before_the_change(api_bob, game, monkeypatch):
    seen: list[bool] = []
    real = postings.record_hand

    def watched(**kwargs):
        seen.append(IdempotencyRecord.objects.filter(key="k-1").exists())
        return real(**kwargs)

    monkeypatch.setattr(postings, "record_hand", watched)
    assert _post(api_bob, game).status_code == 201
    assert seen == [False]  # nothing a crash here could leave behind
    assert IdempotencyRecord.objects.get(key="k-1").status == 201


def test_a_write_failing_midway_leaves_the_key_free(bob, game, monkeypatch):
    real = postings.record_hand

    def dies_after_writing(**kwargs):
        real(**kwargs)
        raise RuntimeError("the worker dies after the hand's rows were written")

    monkeypatch.setattr(postings, "record_hand", dies_after_writing)
    client = _quiet_client(bob)
    assert _post(client, game).status_code == 500
    assert not Hand.objects.filter(session=game).exists()
    monkeypatch.setattr(postings, "record_hand", real)
    retry = _post(client, game)
    assert retry.status_code == 201 and "Idempotent-Replayed" not in retry
    assert Hand.objects.filter(session=game).count() == 1
    game.refresh_from_db()
    postings.check_invariants(game)


def _terminate(backend_pid: int) -> None:
    import psycopg
    from django.conf import settings

    db = settings.DATABASES["default"]
    with psycopg.connect(
        host=db.get("HOST") or "127.0.0.1",
        port=db.get("PORT") or 5432,
        user=db.get("USER") or "postgres",
        password=db.get("PASSWORD") or None,
        dbname=db["NAME"],
        autocommit=True,
    ) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [backend_pid])


needs_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="a connection to drop and concurrent transactions need PostgreSQL (SQLite's "
    "test database is this process's memory, and it runs one write at a time)",
)


@pytest.mark.postgres
@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_a_connection_dropped_mid_write_leaves_the_key_free(bob, game, monkeypatch):
    real = postings.record_hand

    def connection_lost(**kwargs):
        result = real(**kwargs)  # the hand is written, not committed
        _terminate(connection.connection.info.backend_pid)
        return result

    monkeypatch.setattr(postings, "record_hand", connection_lost)
    client = _quiet_client(bob)
    assert _post(client, game).status_code == 503  # the outage answer: try again
    connection.close()  # as the app server does with a connection that failed
    assert not Hand.objects.filter(session=game).exists()
    assert not IdempotencyRecord.objects.exists()
    monkeypatch.setattr(postings, "record_hand", real)
    retry = _post(client, game)
    assert retry.status_code == 201 and "Idempotent-Replayed" not in retry
    assert _post(client, game)["Idempotent-Replayed"] == "true"
    assert Hand.objects.filter(session=game).count() == 1
    game.refresh_from_db()
    postings.check_invariants(game)


@pytest.mark.postgres
@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_a_concurrent_duplicate_is_told_409_at_once_then_gets_the_first_answer(bob, game):
    client = token_client(bob)
    answers: dict[str, object] = {}

    def send(name: str) -> None:
        try:
            answers[name] = _post(client, game)
        finally:
            connection.close()

    first = threading.Thread(target=send, args=("first",))
    with transaction.atomic():
        GameSession.objects.select_for_update().get(pk=game.pk)  # the first waits inside
        first.start()
        for _ in range(300):
            if bar._waiting_on_a_lock():
                break
            threading.Event().wait(0.1)
        else:
            pytest.fail("the first request never reached the write")
        second = threading.Thread(target=send, args=("second",))
        second.start()
        second.join(timeout=30)  # answered while the first still waits
        assert not second.is_alive()
    first.join(timeout=30)
    busy = answers["second"]
    assert busy.status_code == 409 and busy["Retry-After"] == "1"
    assert busy.json()["errors"][0]["code"] == "idempotency_key_in_use"
    assert answers["first"].status_code == 201
    again = _post(client, game)
    assert (again.status_code, again["Idempotent-Replayed"]) == (201, "true")
    assert again.json() == answers["first"].json()
    assert Hand.objects.filter(session=game).count() == 1
    game.refresh_from_db()
    postings.check_invariants(game)
