"""PostgreSQL keeps a connection's repeated statements prepared (issue #20; settings:
``server_side_binding`` and ``prepare_threshold``)."""

import pytest
from django.db import connection

from games import sql
from tests.games.test_session_views import start_table

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's own"),
]


def _prepared(fragment: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s",
            [f"%{fragment}%"],
        )
        return cursor.fetchone()[0]


@pytest.fixture
def table(club, players, alice):
    return start_table(club, players, alice)


def test_a_statement_run_five_times_is_prepared_once(table):
    table_name = '"games_gamesession"'
    before = _prepared(table_name)
    for _ in range(6):
        assert sql.session_version(table.pk) == table.version
    assert _prepared(table_name) == before + 1
    for _ in range(6):  # the same statement again: no second preparation
        assert sql.session_version(table.pk) == table.version
    assert _prepared(table_name) == before + 1
