"""``manage.py backup --dir D --keep N`` (the club server's nightly timer): only the newest N
timestamped backups stay in D; nothing else is touched. (A test that runs the whole command
inside the test database hung on SQLite and was taken out; the pruning is tested here.)"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from games.management.commands.backup import prune

pytestmark = pytest.mark.django_db


def _suffix() -> str:
    return "sqlite3" if connection.vendor == "sqlite" else "pgdump"


@pytest.mark.parametrize(
    ("options", "words"),
    [({"keep": 0}, "at least 1"), ({"output": "x.pgdump", "keep": 3}, "--output names one file")],
)
def test_refused_options_say_why(tmp_path: Path, options: dict, words: str) -> None:
    with pytest.raises(CommandError, match=words):
        call_command("backup", folder=str(tmp_path), stdout=StringIO(), **options)


def test_prune_keeps_other_files(tmp_path: Path) -> None:
    kept = ["pre-restore-20250101-000000.pgdump", "before-the-move.pgdump", "bourre-notes.txt"]
    stamped = [f"bourre-2026010{d}-030000.pgdump" for d in (1, 2, 3)]
    for name in kept + stamped:
        (tmp_path / name).write_bytes(b"x")
    assert prune(tmp_path, 2) == [tmp_path / stamped[0]]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept + stamped[1:])


def test_prune_orders_by_the_time_in_the_name(tmp_path: Path) -> None:
    names = ["bourre-20261231-235959.pgdump", "bourre-20270101-000000.pgdump"]
    for name in reversed(names):  # written newest first: file times say nothing
        (tmp_path / name).write_bytes(b"x")
    assert prune(tmp_path, 1) == [tmp_path / names[0]]
    assert [p.name for p in tmp_path.iterdir()] == [names[1]]
