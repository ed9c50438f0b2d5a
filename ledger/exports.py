"""Shared pieces of the CSV exports (pages and API alike)."""


def csv_cell(text: object) -> str:
    """Text that stays text in a spreadsheet: a name like "=HYPERLINK(…)" typed into the
    app must not become a formula when a treasurer opens the export (CSV injection)."""
    text = str(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
