"""Round trips to the database on the record path (issue #20): statements that do not
need each other's answers travel together (``games.sql.run_together``, psycopg's
pipeline mode on PostgreSQL). The record POST's locking access check carries the
ledger's read of the seats and hands; the record form's access check carries its read
of the table and of the latest hand's record; a scoreboard re-render's carries the
board's reads. The statements themselves are unchanged (tests/test_record_flat.py counts
them); what changes is how many times a phone's request waits for the database.

The race the POST's pairing must survive (the read after a lock that waited sees the
previous holder's hand) is tests/load/test_concurrency.py's."""

from __future__ import annotations

import uuid

import pytest
from django.db import DatabaseError, connection, transaction
from django.urls import reverse

from games.models import Hand
from ledger import postings

from .games.test_session_views import HTMX, hand_data, start_table

pytestmark = pytest.mark.django_db

POSTGRES = connection.vendor == "postgresql"
TRICKS = {"ann": 3, "ben": 1, "cal": 1, "dee": 0}


@pytest.fixture
def table(club, players, bob):
    return start_table(club, players, bob)


def test_run_together_answers_as_the_statements_run_one_by_one(table):
    from games.sql import run_together

    hands = Hand._meta.db_table
    statements = [
        (f"SELECT COUNT(*) FROM {hands} WHERE session_id = %s", [table.pk]),
        ("SELECT %s, %s", [7, "seven"]),
        (f"SELECT id FROM {hands} WHERE session_id = %s", [-1]),  # no rows
    ]
    together = run_together(statements)
    with connection.cursor() as cursor:
        alone = []
        for sql, params in statements:
            cursor.execute(sql, params)
            alone.append(cursor.fetchall())
    assert together == alone
    assert [len(rows) for rows in together] == [1, 1, 0]
    assert together[1] == [(7, "seven")]


def test_run_together_raises_djangos_error_and_the_connection_goes_on(table):
    """A statement the server refuses raises as any statement's error would (Django's,
    not the driver's); the caller's transaction rolls back and the connection serves the
    next request."""
    from games.sql import run_together

    with pytest.raises(DatabaseError), transaction.atomic():
        run_together([("SELECT 1", []), ("SELECT * FROM no_such_table_here", [])])
    assert run_together([("SELECT 1", []), ("SELECT 2", [])]) == [[(1,)], [(2,)]]
    table.refresh_from_db()  # the ORM too


def _pipelined(run) -> list[tuple[str, bool]]:
    """Run ``run()`` and return each statement with whether it was sent in pipeline mode
    (together with others), read off the driver's connection as it was sent."""
    from psycopg import pq

    seen: list[tuple[str, bool]] = []

    def spy(execute, sql, params, many, context):
        raw = context["connection"].connection
        seen.append((sql, raw.pgconn.pipeline_status != pq.PipelineStatus.OFF))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(spy):
        run()
    return seen


@pytest.mark.skipif(not POSTGRES, reason="pipeline mode is PostgreSQL's (SQLite has no wire)")
def test_a_record_posts_lock_and_table_read_share_one_round_trip(bob_client, table):
    url = reverse("hand_record", args=[table.pk])
    data = hand_data(table, trump="H", tricks=TRICKS, confirmed="1")

    def post():
        response = bob_client.post(url, data, **HTMX)
        assert response.status_code == 200 and "Hand 1 saved" in response.content.decode()

    seen = _pipelined(post)
    together = [sql for sql, piped in seen if piped]
    assert len(together) == 2, seen
    assert "FOR UPDATE" in together[0] and "_membership_id" in together[0]
    assert "MAX" in together[1] and "JOIN" in together[1]  # the seats and the hand lookup
    # Nothing else is pipelined: the write still sees the lookup's answer first.
    assert not [sql for sql, piped in seen if piped and sql.lstrip().upper().startswith("WITH")]
    postings.check_invariants(table)


@pytest.mark.skipif(not POSTGRES, reason="pipeline mode is PostgreSQL's (SQLite has no wire)")
def test_the_record_forms_access_check_and_reads_share_one_round_trip(bob_client, table):
    url = reverse("hand_record", args=[table.pk])

    def get():
        response = bob_client.get(url, **HTMX)
        assert response.status_code == 200 and 'data-next-number="1"' in response.content.decode()

    seen = _pipelined(get)
    together = [sql for sql, piped in seen if piped]
    assert len(together) == 3, seen
    assert "_membership_id" in together[0] and "FOR UPDATE" not in together[0]
    assert "MAX" in together[1]  # the seats, the next number, a digital hand
    assert "LIMIT 1" in together[2] and "record" in together[2]  # the latest hand's players
    # Only the login session is read before: the form waits for the database twice.
    assert len(seen) == 4 and not seen[0][1], seen


@pytest.mark.skipif(not POSTGRES, reason="pipeline mode is PostgreSQL's (SQLite has no wire)")
def test_a_scoreboard_re_render_reads_the_board_in_one_round_trip(bob, carol_client, table):
    """The poll after a change (the common poll while a table plays): the access check
    with the login's user, the seats, the latest hands and the tournament table in one
    round trip after the login session's."""
    from .games.test_session_views import WIN_ANN, record_direct

    url = reverse("session_detail", args=[table.pk])
    etag = carol_client.get(url, **HTMX)["ETag"]
    record_direct(table, user=bob, **WIN_ANN)

    def poll():
        response = carol_client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)
        assert response.status_code == 200 and "#1" in response.content.decode()

    seen = _pipelined(poll)
    together = [sql for sql, piped in seen if piped]
    assert len(seen) == 5 and not seen[0][1], seen
    assert len(together) == 4, seen
    assert "_membership_id" in together[0] and "_u_password" in together[0]
    assert "MAX" in together[1] and "LIMIT 5" in together[2] and "tournament" in together[3]


def test_a_key_the_form_cleans_is_looked_up_again(bob_client, table):
    """The table read sent with the lock is for the key as posted; when the form cleans
    the key (spaces stripped) the ledger looks the cleaned key up itself, so a retry of
    the same hand is still recognised."""
    url = reverse("hand_record", args=[table.pk])
    data = hand_data(table, trump="H", tricks=TRICKS, confirmed="1")
    key = uuid.uuid4().hex
    data["idempotency_key"] = f"  {key} "
    first = bob_client.post(url, data, **HTMX)
    assert first.status_code == 200 and "Hand 1 saved" in first.content.decode()
    assert Hand.objects.get(session=table).idempotency_key == key
    again = bob_client.post(url, data, **HTMX)
    assert again.status_code == 200 and "already saved" in again.content.decode()
    assert Hand.objects.filter(session=table).count() == 1
    postings.check_invariants(table)


def test_record_hand_takes_table_rows_only_with_its_lock(bob, table):
    with pytest.raises(RuntimeError, match="after the lock"):
        postings.record_hand(
            session_id=table.pk,
            entry={"trump": "S", "tricks": TRICKS},
            idempotency_key=uuid.uuid4().hex,
            expected_version=None,
            user=bob,
            table_rows=[],
        )
    table.refresh_from_db()
    assert table.hands_count == 0
    postings.check_invariants(table)
