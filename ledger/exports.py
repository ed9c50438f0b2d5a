"""Shared pieces of the CSV exports (pages and API alike).

Every CSV the app writes goes through ``writer``: each text cell is escaped by
``csv_cell`` (names, memos, explanations, the currency: anything a person typed), numbers
pass as they are. A writer that escapes every cell cannot forget one.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any

__all__ = ["csv_cell", "writer"]

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
    def __init__(self, stream: Any, **kwargs: Any):
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
