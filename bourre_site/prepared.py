"""PostgreSQL keeps the hottest hand-written statements prepared per connection (issue #20).

Planning a statement cost PostgreSQL about as much as running it on the record path
(primary-key lookups and small inserts): prepared once per connection, its own CPU per
recorded hand (form GET + POST) fell by about a quarter (bench/load.py, same run).

Only the statements named by ``prepared()`` are prepared, never the ORM's: a
connection-wide ``prepare_threshold`` was tried and reverted (fe1a134), because after five
runs PostgreSQL may keep a *generic* plan, estimated without the parameters' values, and
an ORM filter on a skewed column (a hand's status or kind) became a table scan. So every
statement named here compares skewed columns with literals, never with parameters; the
rest are primary keys, unique keys and inserts, whose generic plan is the custom one
(tests/test_prepared_statements.py checks the generic plans on a grown table).

How: the connection binds parameters in the server (Django's ``server_side_binding``, so
a statement can be prepared at all), psycopg prepares nothing by itself (a threshold no
statement reaches), and ``PreparingCursor`` asks psycopg to prepare the named ones. psycopg
keeps the names per connection and forgets them at a rollback. A prepared statement
describes the tables as they were: restart the app servers after ``migrate`` (README).

A plan kept is made for the table as it was when the statement was first prepared on
that connection: it lasts until PostgreSQL analyzes the table (autovacuum does as a
table grows by a tenth) or the connection is replaced (every ``DJANGO_CONN_MAX_AGE``, 60
s). A connection kept through a table's growth from 100 to 20,000 hands in two minutes
(bench/floor.py before it opened a new one) ran the hand lookup 2.6× slower; no server
sees that growth within one connection's life.
Behind PgBouncer's transaction pooling none of this is switched on (settings): a prepared
statement lives on one server connection, which the next transaction may not get.
"""

from __future__ import annotations

from functools import cache
from typing import Any

PREPARED: set[str] = set()

# psycopg prepares a statement run this many times; none is (only explicit requests).
NEVER = 2**31 - 1


def prepared(sql: str) -> str:
    """Name ``sql`` as a statement to keep prepared on PostgreSQL; returns it unchanged
    (harmless on SQLite and behind PgBouncer, where nothing is prepared)."""
    PREPARED.add(sql)
    return sql


@cache
def cursor_factory() -> type:
    """The cursor class for ``OPTIONS["cursor_factory"]`` (imported only for PostgreSQL)."""
    from django.db.backends.postgresql import base

    # Django's server-binding cursor (a psycopg Cursor); its stubs do not show execute.
    server_binding: Any = base.ServerBindingCursor

    class PreparingCursor(server_binding):
        def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
            if kwargs.get("prepare") is None and query in PREPARED:
                kwargs["prepare"] = True
            return super().execute(query, params, **kwargs)

    return PreparingCursor


def options() -> dict[str, Any]:
    """The PostgreSQL connection options that switch this on."""
    return {
        "server_side_binding": True,
        "prepare_threshold": NEVER,
        "cursor_factory": cursor_factory(),
    }
