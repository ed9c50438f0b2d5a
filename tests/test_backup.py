"""Backup and restore (issue 17, item 7): a database with played books is backed up,
restored into a fresh database, and passes ``check_books`` with identical balances.

SQLite always; PostgreSQL (pg_dump / pg_restore) when the suite runs on PostgreSQL. Each
step is the management command ``make backup`` / ``make restore`` run, in a subprocess
of its own pointed at a scratch database.
"""

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent


def _manage(database_url: str, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    env.update(DATABASE_URL=database_url, DJANGO_SECRET_KEY="backup-test-" + "k" * 40)
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def _round_trip(source_url: str, fresh_url: str, backup_file: Path) -> None:
    _manage(source_url, "migrate", "--noinput")
    _manage(source_url, "seed_demo")
    before = json.loads(_manage(source_url, "check_books", "--json").stdout)
    assert before["accounts"] and sum(before["accounts"].values()) == 0

    _manage(source_url, "backup", "--output", str(backup_file))
    assert backup_file.stat().st_size > 0
    _manage(fresh_url, "restore", str(backup_file), "--yes")

    # check_books exits 0 only when every book balances (_manage asserts it).
    after = json.loads(_manage(fresh_url, "check_books", "--json").stdout)
    assert after == before


def test_sqlite_backup_restores_into_a_fresh_database(tmp_path):
    _round_trip(
        f"sqlite:///{tmp_path / 'source.sqlite3'}",
        f"sqlite:///{tmp_path / 'fresh.sqlite3'}",
        tmp_path / "backup.sqlite3",
    )


@pytest.mark.postgres
def test_postgres_backup_restores_into_a_fresh_database(tmp_path):
    db = settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("PostgreSQL backups need DATABASE_URL=postgres://...")
    import psycopg

    base = {k: db[k] for k in ("HOST", "PORT", "USER", "PASSWORD") if db.get(k)}
    url = "postgres://{}{}@{}:{}/".format(
        base.get("USER", "postgres"),
        f":{base['PASSWORD']}" if base.get("PASSWORD") else "",
        base.get("HOST", "127.0.0.1"),
        base.get("PORT", 5432),
    )
    names = [f"bourre_bk_{uuid.uuid4().hex[:8]}_{w}" for w in ("src", "new")]
    admin = psycopg.connect(
        host=base.get("HOST", "127.0.0.1"),
        port=base.get("PORT", 5432),
        user=base.get("USER", "postgres"),
        password=base.get("PASSWORD"),
        dbname="postgres",
        autocommit=True,
    )
    try:
        for name in names:
            admin.execute(f'CREATE DATABASE "{name}"')
        _round_trip(url + names[0], url + names[1], tmp_path / "backup.pgdump")
    finally:
        for name in names:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
