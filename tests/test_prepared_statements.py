"""PostgreSQL keeps the record path's hand-written statements prepared, and only those
(issue #20; bourre_site/prepared.py): they are planned once per connection, and their
generic plans still find a session's hands by index when the table is large."""

from __future__ import annotations

import pytest
from django.db import connection
from django.urls import reverse
from psycopg import sql as psycopg_sql

from bourre_site.prepared import PREPARED
from games import sql as games_sql
from games.models import Hand
from ledger import postings
from ledger import sql as ledger_sql

from .games.test_session_views import HTMX, hand_data, start_table

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's own"),
]
HAND_TABLE = Hand._meta.db_table


@pytest.fixture
def table(club, players, bob):
    return start_table(club, players, bob)


def _prepared_statements() -> list[str]:
    """The statements this connection holds prepared (by the protocol, not SQL PREPARE)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE NOT from_sql")
        return [row[0] for row in cursor.fetchall()]


def _record(client, session) -> None:
    session.refresh_from_db()
    data = hand_data(session, trump="H", tricks={"ann": 3, "ben": 2}, confirmed="1")
    response = client.post(reverse("hand_record", args=[session.pk]), data, **HTMX)
    assert response.status_code == 200 and b"saved" in response.content
    postings.check_invariants(session)


def test_a_recorded_hands_statements_are_prepared_and_the_orms_are_not(bob_client, table):
    _record(bob_client, table)
    _record(bob_client, table)
    held = _prepared_statements()
    # The login session, the access check with the lock, the seats and hand lookup, the
    # hand, its money and the session row: each prepared once, however often it ran.
    for fragment in (
        'FROM "django_session" WHERE',
        "_membership_id",
        '(SELECT MAX("number")',
        f'INSERT INTO "{HAND_TABLE}"',
        'INSERT INTO "ledger_posting"',
        'UPDATE "games_gamesession" SET',
    ):
        matching = [s for s in held if fragment in s]
        assert len(matching) == 1, (fragment, held)
    # An ORM query run as often is not prepared: its plan may depend on its values.
    for _ in range(3):
        assert not Hand.objects.filter(session=table, status=Hand.Status.IN_PROGRESS).exists()
    assert not [s for s in _prepared_statements() if "EXISTS" in s.upper() or "LIMIT 1" in s]


def _numbered(statement: str) -> str:
    """psycopg's placeholders as PostgreSQL's ($1, $2…), for an SQL-level PREPARE."""
    parts = statement.split("%s")
    return "".join(f"{part}${i}" for i, part in enumerate(parts[:-1], 1)) + parts[-1]


def _generic_plan(statement: str, params: list) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        cursor.execute(f"PREPARE generic_check AS {_numbered(statement)}")
        try:
            # The arguments as literals: EXECUTE's own parameters would have no type.
            args = psycopg_sql.SQL(", ").join(psycopg_sql.Literal(p) for p in params)
            cursor.execute(f"EXPLAIN EXECUTE generic_check({args.as_string(cursor.connection)})")
            return "\n".join(row[0] for row in cursor.fetchall())
        finally:
            cursor.execute("DEALLOCATE generic_check")


def test_generic_plans_of_the_prepared_hand_lookups_use_indexes(bob_client, table):
    """A generic plan is made without the parameters' values: a skewed column compared
    with a parameter (a hand's status) would read every hand of the session, or the
    whole table. The lookups compare it with a literal, which the partial index of hands
    in progress matches."""
    _record(bob_client, table)
    # A large table (many sessions' hands would be the same for the planner): 20,000
    # recorded hands of this session, written directly (no money: the plans only).
    with connection.cursor() as cursor:
        cursor.execute(
            f'INSERT INTO "{HAND_TABLE}" (session_id, number, kind, status, record, verdict, '
            f'"before", idempotency_key, seed, created_at, void_reason, shortfalls, corrections) '
            f"SELECT %s, n, 'reported', 'recorded', '{{}}', '{{}}', '{{}}', 'k' || n, '', "
            f"now(), '', '{{}}', '[]' FROM generate_series(100, 20100) AS n",
            [table.pk],
        )
        cursor.execute(f'ANALYZE "{HAND_TABLE}"')
    key = "k500"
    # Each statement with its parameters and the index its plan must use: the partial
    # index of hands in progress, or (session, number) read backwards for the latest.
    checked = {
        ledger_sql._hands_sql(): ([table.pk, table.pk, table.pk, key], "hand_in_progress"),
        ledger_sql._seats_and_hands_sql(): (
            [table.pk, table.pk, table.pk, key, table.pk],
            "hand_in_progress",
        ),
    }
    # The latest hands, whatever columns and how many (other tests may have prepared
    # other shapes of the same statement in this process).
    latest = [
        games_sql.latest_record_statement(table.pk)[0],
        games_sql.recent_hands_statement(table.pk, 5)[0],
    ]
    latest += [s for s in PREPARED if s.startswith("SELECT") and 'ORDER BY "number" DESC' in s]
    for statement in latest:
        checked[statement] = ([table.pk], "unique_hand_number")
    # Every prepared statement that reads hands is checked here.
    reading_hands = {s for s in PREPARED if s.startswith("SELECT") and f'"{HAND_TABLE}"' in s}
    assert reading_hands <= set(checked), reading_hands - set(checked)
    for statement, (params, index) in checked.items():
        plan = _generic_plan(statement, params)
        assert f"Seq Scan on {HAND_TABLE}" not in plan, plan
        assert index in plan, plan
    # The lookups answer as before on the grown table.
    assert ledger_sql.hand_lookup(table.pk, key)[0] == 20100
    assert games_sql.latest_record(table.pk) == {}  # the grown hands' empty records
    (rows,) = games_sql.run_each([games_sql.recent_hands_statement(table.pk, 5)])
    assert [h.number for h in games_sql.recent_hands(table, rows)] == list(range(20100, 20095, -1))
