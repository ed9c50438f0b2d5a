"""Shared pieces of the CSV exports (pages and API alike).

Every CSV the app writes goes through ``writer``: each text cell is escaped by
``csv_cell`` (names, memos, explanations, the currency: anything a person typed), numbers
pass as they are. A writer that escapes every cell cannot forget one.

The ledger exports (a session's ``ledger.csv`` page, the API's ``postings/?format=csv``)
stream one row per leg from plain column values (``values_list`` through chunked cursors
— server-side cursors on PostgreSQL): no model instance, no posting's hand with its JSON
fields decoded, a posting's time read as an integer second rather than a timestamp, and
memory flat however long the ledger (issue #20; bench/floor.py).
Their rows are made by ``_rows``, which escapes each typed cell once (a memo once per
posting, a name once per account, the currency once) instead of once per leg, so
``stream_csv`` writes them with the plain writer; the other cells are ledger values
(kinds, dates, ids, amounts).

Units (issue #14): the CSVs a person downloads from a page (``ledger.csv``, the settlement
CSV) write amounts in the currency's major unit as a plain decimal ("0.25", "-1.50",
"14": ``major``), with the currency's ISO code in a ``currency`` column, so a spreadsheet
sums dollars. The API's CSVs write the stored integers, minor units, and say so in the
header (``amount_minor``), with the code beside them. Times are ISO 8601 with the club's
UTC offset (games.timezones), the same in both.
"""

from __future__ import annotations

import csv
import functools
import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.db.models import BigIntegerField, Func, QuerySet

from games.models.currency import Currency
from ledger.models import Account, Leg, Posting

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.models.sql.compiler import SQLCompiler, _AsSqlType

__all__ = [
    "club_ledger_rows",
    "csv_cell",
    "major",
    "session_ledger_rows",
    "stream_csv",
    "writer",
]


def major(amount: int, currency: Currency) -> int | Decimal:
    """A stored amount as a plain decimal of the major unit: 25 cents → 0.25, -150 →
    -1.50, 1400 → 14.00; chips as they are. For a spreadsheet: no symbol, no commas. A
    number, not text, so ``writer`` does not take "-1.50" for a formula."""
    if not currency.exponent:
        return amount
    return Decimal(amount).scaleb(-currency.exponent)


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
# The club's ledger through the API: the same, with the posting's session, in minor units.
CLUB_LEDGER_COLUMNS = (*LEDGER_COLUMNS[:3], "session", *LEDGER_COLUMNS[3:8], "amount_minor",
                       "currency")  # fmt: skip

CHUNK = 2000  # rows per database fetch and per piece of the response

# What makes a spreadsheet read a cell as a formula (OWASP's list, and the full-width forms
# some spreadsheets also accept), even after leading spaces.
_TRIGGERS = ("=", "+", "-", "@", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_CONTROL = ("\t", "\r", "\n")


def csv_cell(text: object) -> str:
    """Text that stays text in a spreadsheet: a name like "=HYPERLINK(…)" typed into the
    app must not become a formula when a treasurer opens the export (CSV injection)."""
    text = str(text)
    if text[:1] in _CONTROL or text.lstrip()[:1] in _TRIGGERS:
        return "'" + text
    return text


class _EscapingWriter:
    def __init__(self, stream: Any, **kwargs: Any) -> None:
        self._writer = csv.writer(stream, **kwargs)

    @staticmethod
    def _cells(row: Iterable[object]) -> list[object]:
        # Numbers stay numbers (a negative amount is a number, not a formula).
        return [csv_cell(c) if isinstance(c, str) else c for c in row]

    def writerow(self, row: Iterable[object]) -> Any:
        return self._writer.writerow(self._cells(row))

    def writerows(self, rows: Iterable[Iterable[object]]) -> None:
        for row in rows:
            self.writerow(row)


def writer(stream: Any, **kwargs: Any) -> _EscapingWriter:
    """``csv.writer`` whose every text cell is escaped by ``csv_cell``."""
    return _EscapingWriter(stream, **kwargs)


def session_ledger_rows(
    session_id: int, club_id: int, currency: Currency, when: Callable[[datetime], str]
) -> Iterator[tuple]:
    """Every leg of the session's postings, oldest first, as ``LEDGER_COLUMNS``, amounts
    in the major unit (``major``); ``when`` writes a posting's time (the club's zone)."""

    # A session's amounts repeat (the antes, the same pot): each one's Decimal made once.
    @functools.cache
    def amounts(amount: int) -> int | Decimal:
        return major(amount, currency)

    posts = Posting.objects.filter(session_id=session_id)
    return _rows(club_id, posts, currency.code, False, when, amounts)


def club_ledger_rows(
    club_id: int, postings: QuerySet[Posting], currency: Currency, when: Callable[[datetime], str]
) -> Iterator[tuple]:
    """The legs of these postings (already filtered), oldest first, as
    ``CLUB_LEDGER_COLUMNS``, amounts in minor units; a session's legs in its currency, the
    others (bank moves of no session) in the club's (``currency``)."""
    return _rows(club_id, postings, currency.code, True, when)


class EpochSecond(Func):
    """A moment as whole seconds since 1970 (UTC, cut down like ``isoformat(timespec=
    "seconds")``), read as a plain integer: the exports write times to the second, and a
    timestamp column costs psycopg and Django a Python-level time-zone load a row, about
    a third of a ledger export's time (issue #20)."""

    output_field = BigIntegerField()

    def as_postgresql(
        self, compiler: SQLCompiler, connection: BaseDatabaseWrapper, **extra: Any
    ) -> _AsSqlType:
        template = "floor(extract(epoch from %(expressions)s))::bigint"
        return self.as_sql(compiler, connection, template=template, **extra)

    def as_sqlite(
        self, compiler: SQLCompiler, connection: BaseDatabaseWrapper, **extra: Any
    ) -> _AsSqlType:
        # Django keeps SQLite's datetimes as UTC text, "2026-12-05 00:00:00.999999":
        # the fraction is cut off first, as SQLite's strftime would round it up.
        # '%%%%s' reaches SQLite as '%s' (the template is %-formatted once, and the
        # cursor wrapper unescapes once more).
        template = "CAST(strftime('%%%%s', substr(%(expressions)s, 1, 19)) AS INTEGER)"
        return self.as_sql(compiler, connection, template=template, **extra)


def _rows(
    club_id: int,
    postings: QuerySet[Posting],
    currency: str,
    with_session: bool,
    when: Callable[[datetime], str],
    amounts: Callable[[int], int | Decimal] | None = None,
) -> Iterator[tuple]:
    """One row per leg of the postings, oldest posting first.

    Three plain reads instead of one wide join: the club's accounts once (one per player,
    one per session's pot, the bank and the carry), the postings (their cells made once,
    not once per leg; the time read as a whole second, ``EpochSecond``, and each second
    written once) and their legs (three integers each), both through chunked cursors and
    merged on the posting id."""
    accounts = {
        pk: (kind, "" if name is None else csv_cell(name))
        for pk, kind, name in Account.objects.filter(club_id=club_id).values_list(
            "pk", "kind", "player__name"
        )
    }
    extra = ("session_id", "session__currency_code") if with_session else ()
    heads = (
        postings.order_by("id")
        .annotate(second=EpochSecond("created_at"))
        .values_list("id", "second", "kind", "hand__number", "memo", "reverses_id", *extra)
        .iterator(chunk_size=CHUNK)
    )

    # A hand's postings share their second, and postings come in time order: a small
    # cache formats each second once, its memory flat however long the ledger.
    @functools.lru_cache(maxsize=64)
    def at(second: int) -> str:
        return when(datetime.fromtimestamp(second, UTC))

    legs = (
        Leg.objects.filter(posting__in=postings.values("id"))
        .order_by("posting_id", "id")
        .values_list("posting_id", "account_id", "amount")
        .iterator(chunk_size=CHUNK)
    )
    head: tuple = ()
    currency = csv_cell(currency)
    cur = currency
    current = None
    for posting_id, account_id, amount in legs:
        # Postings written after the legs were read have no legs here: skipped.
        while posting_id != current:
            pid, second, kind, number, memo, reverses, *more = next(heads)
            current = pid
            hand = "" if number is None else number
            if more:
                session, session_currency = more
                head = (pid, at(second), kind, session or "", hand, csv_cell(memo),
                        reverses or "")  # fmt: skip
                cur = csv_cell(session_currency) if session_currency else currency
            else:
                head = (pid, at(second), kind, hand, csv_cell(memo), reverses or "")
        yield (*head, *accounts[account_id], amounts(amount) if amounts else amount, cur)


def stream_csv(header: Sequence[str], rows: Iterable[Sequence]) -> Iterator[str]:
    """The CSV text in pieces of ``CHUNK`` rows (for a StreamingHttpResponse). The rows'
    typed cells are escaped already (``_rows``): the plain writer, not ``writer``."""
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
