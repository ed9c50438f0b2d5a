"""The last ``check_books`` result, kept for ``/metrics`` (bourre_site/metrics.py).

``manage.py check_books`` runs as a scheduled job in a process of its own; the app servers
read what it found from a small JSON file, ``BOURRE_BOOKS_CHECK_FILE`` (default
``var/check_books.json`` in the project folder). A file, not a table: no migration, and a
check that runs while the database is being repaired still leaves its answer. With
several machines, run the job where the scraped app server runs, or point every machine's
``BOURRE_BOOKS_CHECK_FILE`` at shared storage. The file is replaced whole (written beside
it, then renamed), so a scrape never reads half of one.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from django.conf import settings


@dataclass(frozen=True)
class BooksCheck:
    checked_at: float  # Unix time
    drifted: int  # books that did not balance
    sessions: int
    tournaments: int

    @property
    def ok(self) -> bool:
        return self.drifted == 0


def path() -> Path:
    return Path(settings.BOOKS_CHECK_FILE)


def save(drifted: int, sessions: int, tournaments: int, where: Path | None = None) -> BooksCheck:
    result = BooksCheck(time.time(), drifted, sessions, tournaments)
    target = where or path()
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".check_books-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({**asdict(result), "ok": result.ok}, out)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return result


def load(where: Path | None = None) -> BooksCheck | None:
    """The last result, or None when the job never ran here (or left something unreadable)."""
    try:
        data = json.loads((where or path()).read_text(encoding="utf-8"))
        return BooksCheck(
            float(data["checked_at"]),
            int(data["drifted"]),
            int(data["sessions"]),
            int(data["tournaments"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
