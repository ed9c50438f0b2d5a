"""``manage.py restore FILE`` (``make restore FILE=...``): put a backup back.

SQLite: the database file is replaced by the backup's content (SQLite's backup API, so a
half-written restore never shows). PostgreSQL: ``pg_restore --clean --if-exists`` into the
configured database, in one transaction; the ledger's triggers check every posting as it
comes back. Restore into a fresh database by pointing DATABASE_URL at an empty one
(``createdb``) first. The current database is backed up beside the backups first
(``backups/pre-restore-<time>.*``) unless ``--no-safety-copy``; ``--yes`` skips the
question (``make restore FILE=... YES=1``). Without ``--yes`` and without a terminal to
ask on (cron, CI: stdin is not a tty) it refuses with exit status 1 and says to run it
with ``--yes``, before touching anything: a question nobody can answer must not end in an
``EOFError``. Afterwards run ``manage.py migrate`` (a backup from an older release) and
``manage.py check_books``. Its messages are English, like every management command's:
they are read by the operator, not at the table.

A portable backup (``.json.gz``, ``manage.py backup --portable``) goes into either engine,
and only into an empty database: the restore migrates it first, refuses if it already
holds a user or a club (nothing is merged, nothing overwritten), then loads every row in
one transaction (``loaddata``; on PostgreSQL the ledger's triggers check every posting as
it arrives). This is how a ``make run`` evening on SQLite moves to PostgreSQL.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.utils import timezone

from games.management.commands.backup import is_portable, is_sqlite, pg_env_and_args


class Command(BaseCommand):
    help = "Restore the database from a file written by `manage.py backup`."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file")
        parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")
        parser.add_argument("--no-safety-copy", action="store_true")

    def handle(
        self, *args: Any, file: str, yes: bool = False, no_safety_copy: bool = False, **opts: Any
    ) -> None:
        source = Path(file)
        if not source.is_file():
            raise CommandError(f"no backup file at {source}")
        if is_portable(source):
            if not yes and not _confirmed(source, f"Load {source} into this database?"):
                raise CommandError("nothing restored")
            _restore_portable(source)
            self.stdout.write(f"Restored {source}. Now run: manage.py check_books")
            return
        if not yes and not _confirmed(source, f"Replace the database with {source}?"):
            raise CommandError("nothing restored")
        if not no_safety_copy and _has_tables():
            stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
            suffix = "sqlite3" if is_sqlite() else "pgdump"
            safety = settings.BASE_DIR / "backups" / f"pre-restore-{stamp}.{suffix}"
            call_command("backup", output=str(safety), stdout=self.stdout)
        if is_sqlite():
            _restore_sqlite(source)
        elif connection.vendor == "postgresql":
            _restore_postgres(source)
        else:
            raise CommandError(f"no restore for the {connection.vendor} database")
        self.stdout.write(f"Restored {source}. Now run: manage.py migrate; manage.py check_books")


def _confirmed(source: Path, question: str) -> bool:
    """Ask on the terminal; without one (cron, CI) refuse with the way to go on."""
    if not sys.stdin.isatty():
        raise CommandError(
            f"not restoring {source}: there is no terminal to confirm on; "
            f"run with --yes (make restore FILE={source} YES=1)"
        )
    try:
        answer = input(f"{question} [y/N] ")
    except EOFError:  # the terminal closed (Ctrl-D): no answer is a no
        return False
    return answer.strip().lower() in ("y", "yes")


def _has_tables() -> bool:
    return bool(connection.introspection.table_names())


def _restore_sqlite(source: Path) -> None:
    backup = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in backup.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "django_migrations" not in tables:
            raise CommandError(f"{source} is not a backup of this app (no django_migrations)")
        connection.close()
        target = sqlite3.connect(settings.DATABASES["default"]["NAME"])
        try:
            backup.backup(target)
        finally:
            target.close()
    finally:
        backup.close()


def _restore_postgres(source: Path) -> None:
    env, conn_args = pg_env_and_args()
    connection.close()
    result = subprocess.run(
        [
            "pg_restore",
            "--clean",
            "--if-exists",
            "--no-owner",
            "--no-privileges",
            "--single-transaction",
            "--exit-on-error",
            *conn_args,
            str(source),
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise CommandError(f"pg_restore failed: {result.stderr.strip()}")


def _restore_portable(source: Path) -> None:
    from django.contrib.auth import get_user_model

    from games.models import Club

    call_command("migrate", "--noinput", verbosity=0)
    users, clubs = get_user_model().objects.count(), Club.objects.count()
    if users or clubs:
        raise CommandError(
            f"This database already holds {users} user(s) and {clubs} club(s); nothing was "
            "loaded. A portable backup goes into an empty database: create one (createdb) "
            "and point DATABASE_URL at it, then restore again."
        )
    call_command("loaddata", str(source.resolve()), verbosity=0)
