"""``manage.py backup`` (``make backup``): one consistent copy of the database in a file.

SQLite: SQLite's online backup (a consistent copy even while the server writes) to
``backups/bourre-<time>.sqlite3``. PostgreSQL: ``pg_dump --format=custom`` to
``backups/bourre-<time>.pgdump`` (the password goes to pg_dump through PGPASSWORD, never on
its command line). ``--output`` names the file; ``--dir`` puts the timestamped file in another
folder (the club server's timer: ``/var/backups/bourre``). ``--keep N`` then deletes the
oldest ``bourre-<time>.*`` backups of that folder beyond the newest N (the one just written
included); nothing else there is touched: files named by ``--output``, ``pre-restore-*``
copies and other files stay. ``manage.py restore FILE`` puts a backup back.

Portable (``--portable``, or an ``--output`` ending in ``.json`` or ``.json.gz``): every
row of the project as Django's JSON fixture (``dumpdata``), gzipped, read in one
transaction so it is one consistent moment of the books. It is how a ``make run`` evening
on SQLite moves to a club server on PostgreSQL (README "Moving to a club server"): the
restore loads it into an empty database of either engine. Left out: what the target's
``migrate`` makes itself (content types, permissions) and the login sessions (the server
has its own secret key, so they would not be valid there); references to content types
and permissions are written by name (natural keys), every other id is kept as it is,
because hand records and running totals name players and accounts by id.

Backups run without the system checks: they sign nothing, and must work on a server whose
configuration is being repaired.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction
from django.utils import timezone

PORTABLE_SUFFIXES = (".json", ".json.gz")
# Made by the target's own migrate, or tied to this server's secret key.
NOT_MOVED = ("contenttypes", "auth.permission", "sessions")


def is_portable(path: Path) -> bool:
    return path.name.endswith(PORTABLE_SUFFIXES)


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


def portable_dump(path: Path) -> None:
    """The whole project as one gzipped JSON fixture, read in one transaction: SQLite's
    (this project's IMMEDIATE mode) holds writers back for the moment it takes;
    PostgreSQL's reads one snapshot (REPEATABLE READ)."""
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        call_command(
            "dumpdata",
            natural_foreign=True,
            use_base_manager=True,  # every row, whatever a model's default manager hides
            exclude=list(NOT_MOVED),
            output=str(path),
            verbosity=0,
        )


# The names this command gives its timestamped backups: bourre-YYYYmmdd-HHMMSS.<suffix>.
STAMPED = re.compile(r"bourre-\d{8}-\d{6}\.(sqlite3|pgdump|json\.gz)")


def prune(folder: Path, keep: int) -> list[Path]:
    """Delete the oldest timestamped backups in ``folder`` beyond the newest ``keep``;
    the deleted paths. The time is in the name, so the order is the name's."""
    stamped = sorted(p for p in folder.iterdir() if p.is_file() and STAMPED.fullmatch(p.name))
    old = stamped[: max(len(stamped) - keep, 0)]
    for path in old:
        path.unlink()
    return old


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
        parser.add_argument(
            "--portable",
            action="store_true",
            help="JSON that restores into SQLite or PostgreSQL (to move to another server)",
        )
        parser.add_argument(
            "--dir", dest="folder", help="the folder of the timestamped file (default: backups/)"
        )
        parser.add_argument(
            "--keep",
            type=int,
            help="then keep only the newest N timestamped backups of that folder",
        )

    def handle(
        self,
        *args: Any,
        output: str | None = None,
        portable: bool = False,
        folder: str | None = None,
        keep: int | None = None,
        **options: Any,
    ) -> None:
        if output and (folder or keep is not None):
            raise CommandError("--output names one file: use --dir and --keep without it.")
        if keep is not None and keep < 1:
            raise CommandError("--keep must be at least 1 (the backup just written).")
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        suffix = "json.gz" if portable else "sqlite3" if is_sqlite() else "pgdump"
        where = Path(folder) if folder else settings.BASE_DIR / "backups"
        path = Path(output) if output else where / f"bourre-{stamp}.{suffix}"
        if portable and not is_portable(path):
            raise CommandError(f"A portable backup's name ends in .json.gz or .json, not {path}")
        path.parent.mkdir(parents=True, exist_ok=True)
        if is_portable(path):
            portable_dump(path)
        elif is_sqlite():
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
        if keep is not None:
            for old in prune(path.parent, keep):
                self.stdout.write(f"Deleted the older backup {old}.")
