"""A currency as the models keep it: ISO 4217 code, exponent, symbol (issue #14).

Data only (games.models imports nothing above it): the value, the list a club picks from,
and how an old one-string currency ("$", "chips") is read. Parsing and formatting amounts
is games.money's.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

__all__ = [
    "CHIPS",
    "CURRENCIES",
    "DEFAULT_CURRENCY",
    "Currency",
    "as_currency",
    "currency_choices",
    "currency_for_symbol",
]


@dataclass(frozen=True, slots=True)
class Currency:
    code: str
    exponent: int
    symbol: str

    def __str__(self) -> str:
        # Where a page or a CSV wrote the old one-string currency it now writes the symbol.
        return self.symbol

    @property
    def minor(self) -> int:
        """Minor units in one whole unit: 100 for cents, 1 for chips."""
        return 10**self.exponent

    @property
    def is_word(self) -> bool:
        # A word ("chips", "CHF") reads after the number; a symbol ("$", "€") before it.
        return len(self.symbol) > 1 and self.symbol.isalpha()

    def as_dict(self) -> dict:
        return {"code": self.code, "exponent": self.exponent, "symbol": self.symbol}

    def fields(self) -> dict:
        """The model columns that keep it (games.models.club.HasCurrency)."""
        return {
            "currency_code": self.code,
            "currency_exponent": self.exponent,
            "currency_symbol": self.symbol,
        }


CHIPS = Currency("XXX", 0, "chips")
CURRENCIES: dict[str, Currency] = {
    c.code: c
    for c in (
        Currency("USD", 2, "$"),
        Currency("EUR", 2, "€"),
        Currency("GBP", 2, "£"),
        Currency("CAD", 2, "CA$"),
        Currency("AUD", 2, "A$"),
        Currency("JPY", 0, "¥"),
        CHIPS,
    )
}
DEFAULT_CURRENCY = CURRENCIES["USD"]

# The old one-string currencies (before exponents) → the currency they meant. Anything
# else (a word such as "chips" or "points") was a count of whole things: kept as it is.
SYMBOLS = {"$": "USD", "US$": "USD", "€": "EUR", "£": "GBP", "CA$": "CAD", "A$": "AUD"}


def currency_choices() -> list[tuple[str, str | Promise]]:
    """The money picker's choices; the chips' name is in the reader's language."""
    return [
        (c.code, _("Chips (no money)") if c is CHIPS else f"{c.symbol} {c.code}")
        for c in CURRENCIES.values()
    ]


def currency_for_symbol(symbol: str) -> Currency:
    """What an old one-string currency meant: "$" → USD in cents; "chips" → whole chips."""
    symbol = (symbol or "").strip()
    code = SYMBOLS.get(symbol) or SYMBOLS.get(symbol.upper())
    if code:
        return CURRENCIES[code]
    if symbol in CURRENCIES:
        return CURRENCIES[symbol]
    if symbol.lower() == "chips":
        return CHIPS
    return Currency("XXX", 0, symbol)


def as_currency(value: Currency | dict | str | None) -> Currency:
    """A Currency from a Currency, its dict, a code ("EUR") or an old one-string currency
    ("$" is USD in cents, "chips" whole chips: ``currency_for_symbol``)."""
    if isinstance(value, Currency):
        return value
    if isinstance(value, dict):
        return Currency(str(value["code"]), int(value["exponent"]), str(value["symbol"]))
    return currency_for_symbol(value or "")
