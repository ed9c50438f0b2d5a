"""Moving a `make run` evening to the club server (issue #32 item 6, README "Moving to a
club server"): a portable backup (``manage.py backup --portable``: JSON, gzipped) of the
laptop's SQLite database, restored into an empty database, keeps every hand, posting and
balance, and ``check_books`` passes there. SQLite → SQLite always; SQLite → PostgreSQL
when the suite runs on PostgreSQL (DATABASE_URL), where the ledger's triggers must hold
after the move. Each step is the management command run in a subprocess of its own."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from django.conf import settings

from tests.test_backup import _manage

COUNTS = (
    "import json; from django.contrib.auth.models import User; "
    "from games.models import Club, GameSession, Hand, Player; "
    "from ledger.models import Leg, Posting; "
    "print(json.dumps({m.__name__: m.objects.count() for m in "
    "(User, Club, Player, GameSession, Hand, Posting, Leg)}))"
)


def _counts(url: str) -> dict[str, int]:
    return json.loads(_manage(url, "shell", "-v", "0", "-c", COUNTS).stdout.splitlines()[-1])


def _evening(laptop: str, backup: Path) -> tuple[dict, dict]:
    """The laptop's evening (migrated, the demo's hands) and its portable backup."""
    _manage(laptop, "migrate", "--noinput")
    _manage(laptop, "seed_demo")
    books = json.loads(_manage(laptop, "check_books", "--json").stdout)
    counts = _counts(laptop)
    assert counts["Hand"] > 0 and counts["Leg"] > 0
    _manage(laptop, "backup", "--portable", "--output", str(backup))
    assert backup.stat().st_size > 0
    return books, counts


def _moved(server: str, backup: Path, books: dict, counts: dict) -> None:
    _manage(server, "restore", str(backup), "--yes")
    # check_books exits 0 only when every book balances (_manage asserts it).
    assert json.loads(_manage(server, "check_books", "--json").stdout) == books
    assert _counts(server) == counts


def test_a_portable_backup_moves_every_hand_into_a_fresh_database(tmp_path):
    backup = tmp_path / "evening.json.gz"
    books, counts = _evening(f"sqlite:///{tmp_path / 'laptop.sqlite3'}", backup)
    _moved(f"sqlite:///{tmp_path / 'server.sqlite3'}", backup, books, counts)


def test_a_portable_backup_is_never_merged_into_a_database_with_data(tmp_path):
    laptop = f"sqlite:///{tmp_path / 'laptop.sqlite3'}"
    backup = tmp_path / "evening.json.gz"
    _evening(laptop, backup)
    with pytest.raises(AssertionError) as refused:
        _manage(laptop, "restore", str(backup), "--yes")
    assert "already holds 1 user(s) and 1 club(s); nothing was loaded" in str(refused.value)


def test_a_portable_backup_needs_a_name_that_says_so(tmp_path):
    with pytest.raises(AssertionError) as refused:
        _manage(
            f"sqlite:///{tmp_path / 'laptop.sqlite3'}",
            "backup",
            "--portable",
            "--output",
            str(tmp_path / "evening.sqlite3"),
        )
    assert "ends in .json.gz or .json" in str(refused.value)


@pytest.mark.postgres
def test_sqlite_evening_moves_to_postgresql_with_the_ledger_guarded(tmp_path):
    db = settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("the move to PostgreSQL needs DATABASE_URL=postgres://...")
    import psycopg

    connect = {
        "host": db.get("HOST") or "127.0.0.1",
        "port": db.get("PORT") or 5432,
        "user": db.get("USER") or "postgres",
        "password": db.get("PASSWORD") or None,
    }
    name = f"bourre_move_{uuid.uuid4().hex[:8]}"
    password = f":{connect['password']}" if connect["password"] else ""
    server = f"postgres://{connect['user']}{password}@{connect['host']}:{connect['port']}/{name}"
    admin = psycopg.connect(**connect, dbname="postgres", autocommit=True)
    try:
        admin.execute(f'CREATE DATABASE "{name}"')
        backup = tmp_path / "evening.json.gz"
        books, counts = _evening(f"sqlite:///{tmp_path / 'laptop.sqlite3'}", backup)
        _moved(server, backup, books, counts)
        with psycopg.connect(**connect, dbname=name) as moved:
            # The ledger's triggers came with the schema: append-only, balanced postings.
            with pytest.raises(psycopg.errors.RestrictViolation, match="append-only"):
                moved.execute("UPDATE ledger_leg SET amount = amount + 1")
            moved.rollback()
            # New rows get new ids: the sequences continue after the moved rows.
            next_id = moved.execute("SELECT nextval('ledger_posting_id_seq')").fetchone()
            assert next_id is not None and next_id[0] > counts["Posting"]
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
