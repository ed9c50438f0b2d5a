"""The scratch database a benchmark runs in: made fresh, dropped at the end.

    configure("bench_web")          # before django.setup(): DATABASE_URL points at it
    with scratch("bench_web"):      # create (dropping a leftover), run, drop
        ...

PostgreSQL at ``BENCH_PG`` (default postgres://postgres@127.0.0.1:5432); with
``postgres=False`` a SQLite file in the temporary directory instead. Not a benchmark
itself (``make bench`` runs the files that do not start with ``_``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path

SERVER = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432").rstrip("/")


def sqlite_file(name: str) -> Path:
    return Path(tempfile.gettempdir()) / f"{name}.sqlite3"


def code_root(bench_file: str) -> Path:
    """The checkout whose code a benchmark runs: ``BENCH_ROOT`` (e.g. a worktree of main,
    to compare in the same hour) or the one the benchmark lives in; put on ``sys.path``."""
    import sys
    import warnings

    root = Path(os.environ.get("BENCH_ROOT") or Path(bench_file).resolve().parent.parent)
    sys.path.insert(0, str(root))
    warnings.filterwarnings("ignore", message="No directory at")  # no collectstatic here
    return root


def configure(name: str, postgres: bool = True, server: str = SERVER) -> None:
    """Point Django at the benchmark's own database; call before ``django.setup()``."""
    os.environ["DATABASE_URL"] = (
        f"{server.rstrip('/')}/{name}" if postgres else f"sqlite:///{sqlite_file(name)}"
    )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bourre_site.settings")
    # Benchmarks run without DEBUG (as production does), which needs a key of one's own;
    # a server a benchmark starts inherits it, so its login sessions stay valid there.
    os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))


def _reset(name: str, postgres: bool, server: str, create: bool) -> None:
    if not postgres:
        sqlite_file(name).unlink(missing_ok=True)
        return
    import psycopg

    with psycopg.connect(f"{server.rstrip('/')}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        if create:
            conn.execute(f"CREATE DATABASE {name}")


@contextlib.contextmanager
def scratch(name: str, postgres: bool = True, server: str = SERVER) -> Iterator[None]:
    """An empty database for the ``with`` block, dropped afterwards even on failure."""
    _reset(name, postgres, server, create=True)
    try:
        yield
    finally:
        from django.db import connections

        connections.close_all()
        _reset(name, postgres, server, create=False)
