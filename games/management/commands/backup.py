"""``manage.py backup`` (``make backup``): one consistent copy of the database in a file.

SQLite: SQLite's online backup (a consistent copy even while the server writes) to
``backups/bourre-<time>.sqlite3``. PostgreSQL: ``pg_dump --format=custom`` to
``backups/bourre-<time>.pgdump`` (the password goes to pg_dump through PGPASSWORD, never on
its command line). ``--output`` names the file. ``manage.py restore FILE`` puts it back.

Backups run without the system checks: they sign nothing, and must work on a server whose
configuration is being repaired.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.utils import timezone


def is_sqlite() -> bool:
    return connection.vendor == "sqlite"


def pg_env_and_args() -> tuple[dict[str, str], list[str]]:
    """libpq settings of the default database: the environment (password) and the
    connection arguments every pg_* tool takes."""
    db = settings.DATABASES["default"]
    env = dict(os.environ)
    if db.get("PASSWORD"):
        env["PGPASSWORD"] = str(db["PASSWORD"])
    args = [f"--dbname={db['NAME']}"]
    for flag, value in (
        ("--host", db.get("HOST")),
        ("--port", db.get("PORT")),
        ("--username", db.get("USER")),
    ):
        if value:
            args.append(f"{flag}={value}")
    return env, args


def sqlite_copy(source: sqlite3.Connection, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    out = sqlite3.connect(target)
    try:
        source.backup(out)
    finally:
        out.close()


class Command(BaseCommand):
    help = "Write a consistent backup of the database to a file (SQLite or PostgreSQL)."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--output", help="the file to write (default: backups/bourre-<time>.*)")

    def handle(self, *args: Any, output: str | None = None, **options: Any) -> None:
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        suffix = "sqlite3" if is_sqlite() else "pgdump"
        path = Path(output or settings.BASE_DIR / "backups" / f"bourre-{stamp}.{suffix}")
        path.parent.mkdir(parents=True, exist_ok=True)
        if is_sqlite():
            connection.ensure_connection()
            raw = connection.connection
            assert isinstance(raw, sqlite3.Connection)
            sqlite_copy(raw, path)
        elif connection.vendor == "postgresql":
            env, conn_args = pg_env_and_args()
            result = subprocess.run(
                ["pg_dump", "--format=custom", "--no-owner", f"--file={path}", *conn_args],
                env=env,
                capture_output=True,
                text=True,
            )
            if result.returncode != 0:
                raise CommandError(f"pg_dump failed: {result.stderr.strip()}")
        else:
            raise CommandError(f"no backup for the {connection.vendor} database")
        self.stdout.write(f"Backup written to {path} ({path.stat().st_size} bytes).")
