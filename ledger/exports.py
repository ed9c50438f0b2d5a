"""Shared pieces of the CSV exports (pages and API alike).

The ledger exports (a session's ``ledger.csv`` page, the API's ``postings/?format=csv``)
stream one row per leg from plain column values (``values_list`` through a chunked
cursor — a server-side cursor on PostgreSQL): no model instance, no posting's hand with
its JSON fields decoded, and memory flat however long the ledger (issue #20; 3.6 s for a
5,000-hand session before, bench/exports.py).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence

from django.db.models import QuerySet

from ledger.models import Leg

# The session page's ledger.csv, one row per leg.
LEDGER_COLUMNS = (
    "posting",
    "created_at",
    "kind",
    "hand",
    "memo",
    "reverses",
    "account",
    "player",
    "amount",
    "currency",
)
# The club's ledger through the API: the same, with the posting's session.
CLUB_LEDGER_COLUMNS = (*LEDGER_COLUMNS[:3], "session", *LEDGER_COLUMNS[3:])

_POSTING = (
    "posting_id",
    "posting__created_at",
    "posting__kind",
    "posting__hand__number",
    "posting__memo",
    "posting__reverses_id",
)
_LEG = ("account__kind", "account__player__name", "amount")
CHUNK = 2000  # rows per database fetch and per piece of the response


def csv_cell(text: object) -> str:
    """Text that stays text in a spreadsheet: a name like "=HYPERLINK(…)" typed into the
    app must not become a formula when a treasurer opens the export (CSV injection)."""
    text = str(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def session_ledger_rows(session_id: int, currency: str) -> Iterator[tuple]:
    """Every leg of the session's postings, oldest first, as ``LEDGER_COLUMNS``."""
    legs = Leg.objects.filter(posting__session_id=session_id).order_by("posting_id", "id")
    for *posting, kind, name, amount in _legs(legs.values_list(*_POSTING, *_LEG)):
        yield (*posting, kind, name, amount, currency)


def club_ledger_rows(legs: QuerySet[Leg], club_currency: str) -> Iterator[tuple]:
    """The legs (already filtered, any order) as ``CLUB_LEDGER_COLUMNS``; a session's
    legs in its currency, the others (tournament and bank moves) in the club's."""
    values = legs.values_list(*_POSTING, *_LEG, "posting__session_id", "posting__session__currency")
    for row in _legs(values):
        pid, created, kind, hand, memo, reverses, account, name, amount, session, cur = row
        yield (
            pid,
            created,
            kind,
            session or "",
            hand,
            memo,
            reverses,
            account,
            name,
            amount,
            cur or club_currency,
        )


def _legs(values: QuerySet) -> Iterator[list]:
    """Rows of ``_POSTING + _LEG (+ more)`` made ready for CSV: the posting's cells are
    worked out once per posting (its legs come together), names and memos escaped."""
    last = None
    head: list = []
    for row in values.iterator(chunk_size=CHUNK):
        pid = row[0]
        if pid != last:
            last = pid
            created, kind, hand, memo, reverses = row[1:6]
            head = [
                pid,
                created.isoformat(),
                kind,
                "" if hand is None else hand,
                csv_cell(memo),
                reverses or "",
            ]
        name = row[7]
        yield [*head, row[6], "" if name is None else csv_cell(name), *row[8:]]


def stream_csv(header: Sequence[str], rows: Iterable[Sequence]) -> Iterator[str]:
    """The CSV text in pieces of ``CHUNK`` rows (for a StreamingHttpResponse)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    chunk: list[Sequence] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == CHUNK:
            writer.writerows(chunk)
            chunk.clear()
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    writer.writerows(chunk)
    yield buffer.getvalue()
