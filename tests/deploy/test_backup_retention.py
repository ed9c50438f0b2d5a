"""``manage.py backup --dir D --keep N`` (the club server's nightly timer): the backup lands
in D, and only the newest N timestamped backups stay there; nothing else is touched."""

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


def test_keep_deletes_the_oldest_timestamped_backups_only(tmp_path: Path) -> None:
    suffix = _suffix()
    old = [tmp_path / f"bourre-2026010{d}-030000.{suffix}" for d in (1, 2, 3)]
    others = [
        tmp_path / f"pre-restore-20250101-000000.{suffix}",  # restore's safety copy
        tmp_path / "before-the-move.pgdump",  # a file named with --output
        tmp_path / "bourre-notes.txt",
    ]
    for path in old + others:
        path.write_bytes(b"x")
    out = StringIO()
    call_command("backup", folder=str(tmp_path), keep=2, stdout=out)
    written = [p for p in tmp_path.iterdir() if p not in old + others]
    assert len(written) == 1 and written[0].stat().st_size > 1  # the real backup
    # Kept: the new one and the newest older one; the other two older ones are gone.
    assert sorted(p for p in tmp_path.iterdir() if p.name.startswith("bourre-2")) == sorted(
        [old[2], written[0]]
    )
    assert all(p.exists() for p in others)
    assert f"Deleted the older backup {old[0]}" in out.getvalue()


def test_without_keep_nothing_is_deleted(tmp_path: Path) -> None:
    old = tmp_path / f"bourre-20200101-000000.{_suffix()}"
    old.write_bytes(b"x")
    call_command("backup", folder=str(tmp_path), stdout=StringIO())
    assert old.exists() and len(list(tmp_path.iterdir())) == 2


@pytest.mark.parametrize(
    ("options", "words"),
    [({"keep": 0}, "at least 1"), ({"output": "x.pgdump", "keep": 3}, "--output names one file")],
)
def test_refused_options_say_why(tmp_path: Path, options: dict, words: str) -> None:
    with pytest.raises(CommandError, match=words):
        call_command("backup", folder=str(tmp_path), stdout=StringIO(), **options)


def test_prune_orders_by_the_time_in_the_name(tmp_path: Path) -> None:
    names = ["bourre-20261231-235959.pgdump", "bourre-20270101-000000.pgdump"]
    for name in reversed(names):  # written newest first: file times say nothing
        (tmp_path / name).write_bytes(b"x")
    assert prune(tmp_path, 1) == [tmp_path / names[0]]
    assert [p.name for p in tmp_path.iterdir()] == [names[1]]
