"""Money for people: a club's currency, and the one parser and the one formatter of amounts.

Every amount the app stores is an integer in the currency's *minor unit* (DESIGN.md):
cents for $, € and £ (exponent 2), whole chips for chip games (exponent 0). The engine and
the ledger never see anything else; only this module turns an integer into words and words
into an integer.

- ``Currency`` is a club's ``code`` (ISO 4217: USD, EUR, GBP…; ``XXX``, ISO's "no
  currency", for chips), ``exponent`` (how many decimal places the minor unit has) and
  ``symbol`` (what a person reads: "$", "€", "chips"). A club picks one from ``CURRENCIES``
  at creation; sessions and tournaments keep a copy, as they kept the old symbol.
- ``parse_amount`` reads what a person types: "$0.25", "0.25", "1" (one whole dollar, 100
  cents), "1,250.50", "5 chips", and a decimal comma ("0,25", "€2,5"; "1,250" is 1250).
  Too many decimals for the currency ("0.255"), words, a minus sign, and amounts outside
  ``[minimum, maximum]`` are refused with a sentence that says what to type instead
  (``MoneyError``). ``MoneyField`` is the form field that uses it (at most ``MAX_POT``
  unless told less, so nothing typed overflows a column).
- ``format_money`` writes "$0.25", "$14" (a whole amount drops ".00", so a column of whole
  dollars reads as it always did), "$1,250.50", "14 chips", "−$3"; ``format_plain`` is the
  same number without the symbol, for a form's input ("0.25", "14").

Both ``format_money`` and ``parse_amount`` also take a code ("EUR") or an old one-string
currency ("$" means USD in cents, "chips" whole chips), read through ``as_currency``.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from django import forms

from games.engine.rules import MAX_POT
from games.models.currency import (
    CHIPS,
    CURRENCIES,
    DEFAULT_CURRENCY,
    Currency,
    as_currency,
    currency_choices,
    currency_for_symbol,
)

__all__ = [
    "CHIPS",
    "CURRENCIES",
    "DEFAULT_CURRENCY",
    "MINUS",
    "MONEY_RULES",
    "Currency",
    "MoneyError",
    "MoneyField",
    "as_currency",
    "currency_choices",
    "format_money",
    "format_plain",
    "input_value",
    "parse_amount",
]

MINUS = "\u2212"


# The house-rule switches (games.engine.rules) that are amounts: typed and shown in the
# session's currency, stored in its minor unit. The others are counts.
MONEY_RULES = ("ante", "pot_limit")


class MoneyError(ValueError):
    """An amount a person typed that is not one; ``message`` says what to type instead."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def format_plain(amount: int, currency: Currency | str) -> str:
    """The number alone, no symbol, no sign: "0.25", "14", "1,250.50" (grouped)."""
    cur = as_currency(currency)
    whole, part = divmod(abs(int(amount)), cur.minor)
    text = f"{whole:,}"
    if cur.exponent and part:
        text += "." + str(part).rjust(cur.exponent, "0")
    return text


def format_money(
    amount: int | str | None, currency: Currency | str = DEFAULT_CURRENCY, signed: bool = False
) -> str:
    """`$14`, `$0.25`, `−$3`, `14 chips`; with `signed`, `+$14` (zero has no sign)."""
    if amount is None or amount == "":
        return ""
    amount = int(amount)
    cur = as_currency(currency)
    digits = format_plain(amount, cur)
    text = f"{digits} {cur.symbol}" if cur.is_word else f"{cur.symbol}{digits}"
    if amount < 0:
        return MINUS + text
    if signed and amount > 0:
        return "+" + text
    return text


def input_value(amount: int | None, currency: Currency | str) -> str:
    """How a stored amount is shown back in a form's input: "0.25", "1", "1250.5" is "1250.50"."""
    if amount is None or amount == "":
        return ""
    return format_plain(int(amount), currency).replace(",", "")


_NUMBER = re.compile(r"^(?P<whole>\d{1,3}(?:,\d{3})+|\d*)(?:\.(?P<part>\d*))?$")
# "0,25" or "12,5": a decimal comma (as € and £ tables may write it); "1,250" stays 1250.
_DECIMAL_COMMA = re.compile(r"^\d*,\d{1,2}$")


def parse_amount(
    text: str | int | None,
    currency: Currency | str,
    *,
    minimum: int = 0,
    maximum: int | None = None,
    what: str = "The amount",
) -> int:
    """What a person typed, in minor units: "$0.25" → 25, "1" → 100, "5 chips" → 5.

    ``minimum``/``maximum`` are in minor units; ``what`` names the amount in the message
    ("The ante must be at least $0.01").
    """
    cur = as_currency(currency)
    raw = str(text) if isinstance(text, int) else (text or "").strip()
    if not raw:
        raise MoneyError(f"{what} is missing: type an amount such as {_example(cur)}.")
    body = raw.replace("\u00a0", "").replace(" ", "")
    negative = "-" in body or MINUS in body
    body = body.replace("-", "").replace(MINUS, "").lstrip("+")
    for mark in sorted({cur.symbol, cur.code, "$", "€", "£", "¥"}, key=len, reverse=True):
        if body.lower().startswith(mark.lower()):
            body = body[len(mark) :]
        if body.lower().endswith(mark.lower()):
            body = body[: -len(mark)]
    if _DECIMAL_COMMA.match(body):
        body = body.replace(",", ".")
    match = _NUMBER.match(body)
    if not match or not (match.group("whole") or match.group("part")):
        raise MoneyError(f"“{raw}” is not an amount: type a number such as {_example(cur)}.")
    if negative:
        raise MoneyError(f"{what} cannot be negative: type it without a minus sign.")
    part = match.group("part") or ""
    tiny = not (match.group("whole") or "").strip("0,") and Decimal("0." + part) * cur.minor < 1
    if len(part.rstrip("0")) > cur.exponent and tiny:
        smallest = format_money(1, cur)
        raise MoneyError(f"“{raw}” is less than {smallest}, the smallest amount in {cur.symbol}.")
    if len(part.rstrip("0")) > cur.exponent:
        if cur.exponent == 0:
            hint = f"amounts in {cur.symbol} are whole numbers"
        else:
            hint = f"amounts in {cur.symbol} have at most {cur.exponent} decimals"
        raise MoneyError(f"“{raw}” has too many decimals: {hint} ({_example(cur)}).")
    try:
        value = Decimal((match.group("whole") or "0").replace(",", "") + "." + (part or "0"))
    except InvalidOperation:  # pragma: no cover - the pattern admits digits only
        raise MoneyError(f"“{raw}” is not an amount.") from None
    amount = int(value * cur.minor)
    if amount < minimum:
        raise MoneyError(f"{what} must be at least {format_money(minimum, cur)}.")
    if maximum is not None and amount > maximum:
        raise MoneyError(f"{what} can be at most {format_money(maximum, cur)}.")
    return amount


def _example(cur: Currency) -> str:
    return "0.25 or 5" if cur.exponent else "5"


class MoneyInput(forms.TextInput):
    """Shows a stored amount as typed ("0.25", "1"); the form's value stays the integer."""

    currency: Currency = DEFAULT_CURRENCY

    def format_value(self, value):
        if isinstance(value, int) and not isinstance(value, bool):
            return input_value(value, self.currency)
        return super().format_value(value)


class MoneyField(forms.CharField):
    """A form's amount: typed as "$0.25", "0.25" or "1", cleaned to minor units (an int).

    The currency is set by the form (``field.currency = …``) before it is bound, since a
    session's amounts are counted in its club's. ``min_value``/``max_value`` are in minor
    units; messages are the app's own (``parse_amount``).
    """

    def __init__(
        self,
        *,
        currency: Currency | str = DEFAULT_CURRENCY,
        min_value: int = 0,
        max_value: int | None = MAX_POT,
        **kwargs,
    ) -> None:
        kwargs.setdefault("widget", MoneyInput())
        super().__init__(**kwargs)
        self.currency = as_currency(currency)
        self.min_value = min_value
        self.max_value = max_value
        self.widget.attrs.update({"inputmode": "decimal", "autocomplete": "off"})

    @property
    def currency(self) -> Currency:
        return self._currency

    @currency.setter
    def currency(self, value: Currency) -> None:
        # The input shows amounts in it too.
        self._currency = value
        if isinstance(self.widget, MoneyInput):
            self.widget.currency = value

    def to_python(self, value):
        text = super().to_python(value)
        if text in self.empty_values:
            return None
        try:
            return parse_amount(
                text,
                self.currency,
                minimum=self.min_value,
                maximum=self.max_value,
                what=str(self.label or "The amount"),
            )
        except MoneyError as error:
            raise forms.ValidationError(error.message, code="money") from None


class CurrencyField(forms.ChoiceField):
    """Pick a currency from ``CURRENCIES`` (plus ``own``, a club's currency that is not in
    the list, such as "points" kept by the data migration); cleans to a ``Currency``.

    A code ("EUR") or a symbol ("€") is accepted, so older clients that post the symbol
    keep working.
    """

    def __init__(self, *, own: Currency | None = None, **kwargs) -> None:
        super().__init__(choices=(), **kwargs)
        self.set_own(own)

    def set_own(self, own: Currency | None, same_exponent: bool = False) -> None:
        """Offer ``own`` too; with ``same_exponent``, only currencies counted like it (a
        session must count in its club's minor unit)."""
        self.own = own if own is not None and CURRENCIES.get(own.code) != own else None
        choices = [
            (code, label)
            for code, label in currency_choices()
            if not (same_exponent and own and CURRENCIES[code].exponent != own.exponent)
        ]
        if self.own is not None:
            choices.insert(0, (self.own.symbol, self.own.symbol))
        self.choices = choices
        if own is not None:
            self.initial = self.own.symbol if self.own else own.code

    @classmethod
    def posted(cls, data, own: Currency) -> Currency:
        """The currency a form's data picks, if it is one on offer; else ``own``."""
        try:
            return cls(own=own, required=False).clean((data or {}).get("currency")) or own
        except forms.ValidationError:
            return own

    def to_python(self, value):
        text = (super().to_python(value) or "").strip()
        if self.own is not None and text == self.own.symbol:
            return text
        if text and text not in CURRENCIES:
            mapped = currency_for_symbol(text)
            if CURRENCIES.get(mapped.code) == mapped:
                return mapped.code
        return text

    def clean(self, value) -> Currency | None:
        text = super().clean(value)
        if not text:
            return None
        if self.own is not None and text == self.own.symbol:
            return self.own
        return CURRENCIES[text]
