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


# --- restore from cron or CI (issue 33, item 7) -------------------------------------------


def _run(database_url: str, *args: str) -> subprocess.CompletedProcess:
    """``manage.py`` as cron runs it: stdin is not a terminal (here /dev/null)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    env.update(DATABASE_URL=database_url, DJANGO_SECRET_KEY="backup-test-" + "k" * 40)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_restore_without_a_terminal_and_without_yes_refuses_and_says_how(tmp_path):
    source = f"sqlite:///{tmp_path / 'source.sqlite3'}"
    target_file = tmp_path / "target.sqlite3"
    target = f"sqlite:///{target_file}"
    _manage(source, "migrate", "--noinput")
    _manage(source, "seed_demo")
    _manage(source, "backup", "--output", str(tmp_path / "backup.sqlite3"))
    _manage(target, "migrate", "--noinput")
    before = target_file.read_bytes()
    safety_copies = set((ROOT / "backups").glob("pre-restore-*"))

    refused = _run(target, "restore", str(tmp_path / "backup.sqlite3"))

    assert refused.returncode == 1
    assert "EOFError" not in refused.stderr and "Traceback" not in refused.stderr
    assert "no terminal to confirm on" in refused.stderr
    assert f"run with --yes (make restore FILE={tmp_path / 'backup.sqlite3'} YES=1)" in (
        refused.stderr
    )
    # Nothing was touched: no safety copy made, the database as it was.
    assert target_file.read_bytes() == before
    assert set((ROOT / "backups").glob("pre-restore-*")) == safety_copies

    # The same command with --yes restores, and the books then balance.
    _manage(target, "restore", str(tmp_path / "backup.sqlite3"), "--yes", "--no-safety-copy")
    after = json.loads(_manage(target, "check_books", "--json").stdout)
    assert after == json.loads(_manage(source, "check_books", "--json").stdout)


@pytest.mark.parametrize(
    ("extra", "passes_yes"),
    [((), False), (("YES=1",), True), (("YES=yes",), True), (("YES=0",), False)],
)
def test_make_restore_passes_yes_only_when_asked(extra, passes_yes):
    # A dry run (-n) prints the recipe's commands without running any of them.
    result = subprocess.run(
        ["make", "-n", "restore", "FILE=backups/b.sqlite3", *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    restore = [line for line in result.stdout.splitlines() if "manage.py restore" in line]
    assert len(restore) == 1, result.stdout
    assert restore[0].split()[-1] == ("--yes" if passes_yes else "backups/b.sqlite3")
