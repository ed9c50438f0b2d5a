"""Money for people: a club's currency, and the one parser and the one formatter of amounts.

Every amount the app stores is an integer in the currency's *minor unit* (DESIGN.md):
cents for $, € and £ (exponent 2), whole chips for chip games (exponent 0). The engine and
the ledger never see anything else; only this module turns an integer into words and words
into an integer.

- ``Currency`` is a club's ``code`` (ISO 4217: USD, EUR, GBP…; ``XXX``, ISO's "no
  currency", for chips), ``exponent`` (how many decimal places the minor unit has) and
  ``symbol`` (what a person reads: "$", "€", "chips"). A club picks one from ``CURRENCIES``
  at creation; sessions and tournaments keep a copy, as they kept the old symbol.
- Amounts are written in the reader's language (the active one, ``get_language()``, or
  ``language=``): its decimal sign, digit grouping and place of the symbol. The signs and
  the grouping are the language's Django number formats (``bourre_site/formats`` adds
  Sundanese and Albanian's grouping); the symbol goes after the number, behind a no-break
  space, in ``SYMBOL_AFTER`` languages. English and Korean: "$1,250.50", "$0.25"; Spanish,
  Finnish, Albanian: "1 250,50 €", "0,25 €"; Sundanese: "€1.250,50". The chips word is
  translated with its plural ("1 chip", "14 chips", "14 fichas"); another word currency
  ("points", a club's own) is written as the club typed it.
- A language writes some currencies the way the people who read it at such a table do,
  not its own default way (``CURRENCY_STYLE``), decided per currency. Spanish at a US
  dollar table: "$4.25", "$1,250.50" (US Spanish, CLDR's es-US and es-MX: the symbol first,
  a decimal point, comma groups), not Spain's "4,25 $". Bourré is a Louisiana game: a
  Spanish reader of a dollar table is a US (or Mexican, Puerto Rican) Spanish speaker,
  who sees dollar prices written that way on every receipt and would misread "4,25 $";
  Spain never counts in dollars. Euros and every other currency keep Spain's order
  ("4,25 €"), which is how euros are written in Spanish. Finnish and Albanian keep their
  own order for dollars too: their readers' dollars are foreign money written their
  language's way. The input of such an amount shows and reads the same decimal point
  ("4.25"), so a form reads back what the page wrote.
- ``PLAIN`` (English) is the locale-free form: CSV files, the API and the memos the ledger
  keeps pass ``language=PLAIN`` (or are numbers: ``ledger.exports.major``), so what a
  program or a later reader gets does not depend on who asked.
- ``parse_amount`` reads what a person types: "$0.25", "0.25", "1" (one whole dollar, 100
  cents), "1,250.50", "1.250,50", "1 250,50 €", "5 chips" (or the chips word of the
  language), and a decimal comma anywhere ("0,25", "€2,5"). One mark followed by three
  digits ("1,250", "1.250") is a thousands mark unless it is the reader's decimal sign
  (so "1,250" is 1250 on an English page and 1.25 on a Finnish one; "0.250" is always a
  fraction); with both marks, the last one is the decimal sign. Too many decimals for the
  currency ("0.255"), words, a minus sign, and amounts outside ``[minimum, maximum]`` are
  refused with a sentence in the reader's language that says what to type instead
  (``MoneyError``). ``MoneyField`` is the form field that uses it (at most ``MAX_POT``
  unless told less, so nothing typed overflows a column).
- ``format_money`` writes "$0.25", "$14" (a whole amount drops ".00", so a column of whole
  dollars reads as it always did), "$1,250.50", "14 chips", "−$3"; ``format_plain`` is the
  same number without the symbol ("0.25", "1,250.50"); ``input_value`` is what a form's
  input shows: the language's decimal sign, no grouping ("0,25", "1250,50"), which
  ``parse_amount`` reads back in that language.

Both ``format_money`` and ``parse_amount`` also take a code ("EUR") or an old one-string
currency ("$" means USD in cents, "chips" whole chips), read through ``as_currency``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from django import forms
from django.conf import settings
from django.utils import formats, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

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
    "PLAIN",
    "CURRENCY_STYLE",
    "SYMBOL_AFTER",
    "Currency",
    "MoneyError",
    "MoneyField",
    "as_currency",
    "currency_choices",
    "currency_name",
    "format_money",
    "format_plain",
    "input_value",
    "parse_amount",
]

MINUS = "\u2212"
NBSP = "\u00a0"
# The locale-free form (CSV, API, stored memos): English's "$1,250.50".
PLAIN = "en"
# Languages that write the symbol after the amount, behind a no-break space (CLDR's
# currency patterns: "1 250,50 €"); the others write it before ("$1.25", "€1.250,50").
SYMBOL_AFTER = frozenset({"es", "fi", "sq"})
# (language, currency code) → the language whose way of writing numbers such amounts
# take instead of their language's own (see the module docstring: Spanish dollars are
# written as US Spanish writes them, "$4.25").
CURRENCY_STYLE: Mapping[tuple[str, str], str] = {("es", "USD"): "en"}
# Spaces a person or a format may put between digit groups.
_SPACES = re.compile(r"[\s\u00a0\u202f\u2009]+")


# The house-rule switches (games.engine.rules) that are amounts: typed and shown in the
# session's currency, stored in its minor unit. The others are counts.
MONEY_RULES = ("ante", "pot_limit")


class MoneyError(ValueError):
    """An amount a person typed that is not one; ``message`` says what to type instead."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class _Numbers:
    """How one language writes an amount's number."""

    decimal: str  # "." or ","
    group: str  # "," "." or a no-break space
    grouping: int  # digits per group; 0: none
    symbol_after: bool


def _language(language: str | None) -> str:
    return language or translation.get_language() or settings.LANGUAGE_CODE


@lru_cache(maxsize=64)
def _numbers(language: str) -> _Numbers:
    if language.split("-")[0].lower() == PLAIN:
        return _Numbers(".", ",", 3, False)
    decimal = str(formats.get_format("DECIMAL_SEPARATOR", language, use_l10n=True))
    group = str(formats.get_format("THOUSAND_SEPARATOR", language, use_l10n=True))
    grouping = formats.get_format("NUMBER_GROUPING", language, use_l10n=True)
    # A plain space would let a line break split "1 250"; a tuple grouping (Indian
    # lakh/crore) is not used by any language here: read as groups of three.
    group = NBSP if not group.strip() else group
    size = grouping if isinstance(grouping, int) else 3
    base = language.split("-")[0].lower()
    return _Numbers(decimal, group, size, base in SYMBOL_AFTER)


def _numbers_for(language: str, cur: Currency) -> _Numbers:
    """How ``language`` writes amounts of ``cur`` (``CURRENCY_STYLE`` first)."""
    style = CURRENCY_STYLE.get((language.split("-")[0].lower(), cur.code))
    return _numbers(style or language)


def _digits(amount: int, cur: Currency, numbers: _Numbers, grouped: bool = True) -> str:
    """``abs(amount)`` in the major unit, written with ``numbers``' signs."""
    whole, part = divmod(abs(amount), cur.minor)
    if not grouped or numbers.grouping <= 0:
        text = str(whole)
    elif numbers.grouping == 3:
        # Python's own grouping (C speed: format_money runs for every amount on a page).
        text = f"{whole:,}"
        if numbers.group != ",":
            text = text.replace(",", numbers.group)
    else:  # pragma: no cover - no language here groups by other than three
        digits, size = str(whole), numbers.grouping
        head = len(digits) % size or size
        rest = [digits[i : i + size] for i in range(head, len(digits), size)]
        text = numbers.group.join([digits[:head], *rest])
    if cur.exponent and part:
        text += numbers.decimal + str(part).rjust(cur.exponent, "0")
    return text


def format_plain(
    amount: int, currency: Currency | str, *, language: str | None = None, grouped: bool = True
) -> str:
    """The number alone, no symbol, no sign: "0.25", "14", "1,250.50" ("1 250,50" in fi)."""
    cur = as_currency(currency)
    return _digits(int(amount), cur, _numbers_for(_language(language), cur), grouped)


def format_count(number: int) -> str:
    """A count (chips, players) with the reader's digit grouping: 12000 -> "12,000",
    "12 000" (fi, a no-break space), "12.000" (su). Not money: no symbol, no minor unit."""
    text = _digits(abs(int(number)), CHIPS, _numbers(_language(None)))
    return MINUS + text if number < 0 else text


def _is_chips(cur: Currency) -> bool:
    return cur.symbol.lower() == CHIPS.symbol


def _chips(count: int, number: str) -> str:
    return ngettext("%(amount)s chip", "%(amount)s chips", count) % {"amount": number}


def currency_name(currency: Currency | str) -> str:
    """The currency as a sentence names it: "$", "€", "chips" (translated), "points"."""
    cur = as_currency(currency)
    return pgettext("currency", "chips") if _is_chips(cur) else cur.symbol


def format_money(
    amount: int | str | None,
    currency: Currency | str = DEFAULT_CURRENCY,
    signed: bool = False,
    *,
    language: str | None = None,
) -> str:
    """`$14`, `$0.25`, `−$3`, `14 chips`; with `signed`, `+$14` (zero has no sign).

    In the active language unless ``language`` says which (``PLAIN`` for files and
    programs): "1,25 €" in Finnish, "$1.25" in Korean.
    """
    if amount is None or amount == "":
        return ""
    amount = int(amount)
    cur = as_currency(currency)
    numbers = _numbers_for(_language(language), cur)
    digits = _digits(amount, cur, numbers)
    sign = MINUS if amount < 0 else "+" if signed and amount > 0 else ""
    if _is_chips(cur):
        if language and language != translation.get_language():
            with translation.override(language):
                return _chips(abs(amount), sign + digits)
        return _chips(abs(amount), sign + digits)
    if cur.is_word:
        return f"{sign}{digits} {cur.symbol}"
    if numbers.symbol_after:
        return f"{sign}{digits}{NBSP}{cur.symbol}"
    return f"{sign}{cur.symbol}{digits}"


def input_value(
    amount: int | None, currency: Currency | str, *, language: str | None = None
) -> str:
    """How a stored amount is shown back in a form's input: the language's decimal sign
    and no grouping ("0.25", "1", "1250.50"; "0,25" and "1250,50" in es, fi, sq, su; a
    dollar amount in es keeps its point, "0.25": ``CURRENCY_STYLE``)."""
    if amount is None or amount == "":
        return ""
    return format_plain(int(amount), currency, language=language, grouped=False)


def _marks(cur: Currency) -> list[str]:
    """What may stand before or after the number: symbols, the code, the chips word."""
    marks = {cur.symbol, cur.code, "$", "€", "£", "¥"}
    if _is_chips(cur):
        marks |= {_chips(n, "").strip() for n in (1, 2, 5)} | {currency_name(cur)}
    return sorted((m for m in marks if m), key=len, reverse=True)


def _split_number(body: str, decimal: str) -> tuple[str, str] | None:
    """The whole digits and the fraction's digits of "1,250.50", "1.250,50", "0,25"…;
    None if it is not a number. ``decimal`` is the reader's decimal sign."""
    if re.fullmatch(r"\d*", body):
        return body, ""
    kinds = {c for c in body if c in ".,"}
    if not re.fullmatch(r"[\d.,]+", body):
        return None
    if len(kinds) == 2:
        point = body[max(body.rfind("."), body.rfind(","))]
        whole, _point, part = body.rpartition(point)
        group = "," if point == "." else "."
        if not re.fullmatch(rf"\d{{1,3}}(?:{re.escape(group)}\d{{3}})*", whole):
            return None
        return whole.replace(group, ""), part
    (mark,) = kinds
    pieces = body.split(mark)
    if len(pieces) > 2:  # "1.250.000": thousands marks
        if re.fullmatch(rf"\d{{1,3}}(?:{re.escape(mark)}\d{{3}})+", body):
            return "".join(pieces), ""
        return None
    whole, part = pieces
    if mark != decimal and len(part) == 3 and 1 <= len(whole) <= 3 and not whole.startswith("0"):
        return whole + part, ""  # "1,250" on an English page, "1.250" on a Spanish one
    return whole, part


# One piece (radon D): one left-to-right read of what was typed (sign, currency marks,
# separators, decimals, bounds); each branch refuses one malformed form in its own words.
def parse_amount(
    text: str | int | None,
    currency: Currency | str,
    *,
    minimum: int = 0,
    maximum: int | None = None,
    what: str | None = None,
    language: str | None = None,
) -> int:
    """What a person typed, in minor units: "$0.25" → 25, "1" → 100, "5 chips" → 5.

    ``minimum``/``maximum`` are in minor units; ``what`` names the amount in the message
    ("The ante must be at least $0.01"). Read and answered in the active language unless
    ``language`` says which.
    """
    if language and language != translation.get_language():
        with translation.override(language):
            return parse_amount(text, currency, minimum=minimum, maximum=maximum, what=what)
    cur = as_currency(currency)
    what = what or _("The amount")
    raw = str(text) if isinstance(text, int) else (text or "").strip()
    if not raw:
        raise MoneyError(
            _("%(what)s is missing: type an amount such as %(example)s.")
            % {"what": what, "example": _example(cur)}
        )
    body = _SPACES.sub("", raw)
    negative = "-" in body or MINUS in body
    body = body.replace("-", "").replace(MINUS, "").lstrip("+")
    for mark in _marks(cur):
        if body.lower().startswith(mark.lower()):
            body = body[len(mark) :]
        if body.lower().endswith(mark.lower()):
            body = body[: -len(mark)]
    split = _split_number(body, _numbers_for(_language(None), cur).decimal)
    if split is None or not (split[0] or split[1]):
        raise MoneyError(
            _("“%(text)s” is not an amount: type a number such as %(example)s.")
            % {"text": raw, "example": _example(cur)}
        )
    if negative:
        raise MoneyError(
            _("%(what)s cannot be negative: type it without a minus sign.") % {"what": what}
        )
    whole, part = split
    name = currency_name(cur)
    tiny = not whole.strip("0") and Decimal("0." + (part or "0")) * cur.minor < 1
    if len(part.rstrip("0")) > cur.exponent and tiny:
        raise MoneyError(
            _("“%(text)s” is less than %(smallest)s, the smallest amount in %(currency)s.")
            % {"text": raw, "smallest": format_money(1, cur), "currency": name}
        )
    if len(part.rstrip("0")) > cur.exponent:
        if cur.exponent == 0:
            said = _(
                "“%(text)s” has too many decimals: amounts in %(currency)s are whole "
                "numbers (%(example)s)."
            )
        else:
            said = ngettext(
                "“%(text)s” has too many decimals: amounts in %(currency)s have at most "
                "%(n)s decimal (%(example)s).",
                "“%(text)s” has too many decimals: amounts in %(currency)s have at most "
                "%(n)s decimals (%(example)s).",
                cur.exponent,
            )
        raise MoneyError(
            said % {"text": raw, "currency": name, "n": cur.exponent, "example": _example(cur)}
        )
    try:
        value = Decimal((whole or "0") + "." + (part or "0"))
    except InvalidOperation:  # pragma: no cover - the patterns admit digits only
        raise MoneyError(_("“%(text)s” is not an amount.") % {"text": raw}) from None
    amount = int(value * cur.minor)
    if amount < minimum:
        raise MoneyError(
            _("%(what)s must be at least %(amount)s.")
            % {"what": what, "amount": format_money(minimum, cur)}
        )
    if maximum is not None and amount > maximum:
        raise MoneyError(
            _("%(what)s can be at most %(amount)s.")
            % {"what": what, "amount": format_money(maximum, cur)}
        )
    return amount


def _example(cur: Currency) -> str:
    """What to type, in the reader's language: "0.25 or 5" ("0,25 or 5"), "5" in chips."""
    if not cur.exponent:
        return "5"
    small = input_value(cur.minor // 4 or 1, cur)
    return _("%(fraction)s or %(whole)s") % {"fraction": small, "whole": "5"}


class MoneyInput(forms.TextInput):
    """Shows a stored amount as typed ("0.25", "1"); the form's value stays the integer."""

    currency: Currency = DEFAULT_CURRENCY

    def format_value(self, value: Any) -> Any:
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
        **kwargs: Any,
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

    # An amount in minor units, where CharField's is text (the stubs' FloatField does so too).
    def to_python(self, value: Any | None) -> int | None:  # type: ignore[override]
        text = super().to_python(value)
        if text in self.empty_values:
            return None
        try:
            return parse_amount(
                text,
                self.currency,
                minimum=self.min_value,
                maximum=self.max_value,
                what=str(self.label) if self.label else None,
            )
        except MoneyError as error:
            raise forms.ValidationError(error.message, code="money") from None


class CurrencyField(forms.ChoiceField):
    """Pick a currency from ``CURRENCIES`` (plus ``own``, a club's currency that is not in
    the list, such as "points" kept by the data migration); cleans to a ``Currency``.

    A code ("EUR") or a symbol ("€") is accepted, so older clients that post the symbol
    keep working.
    """

    def __init__(self, *, own: Currency | None = None, **kwargs: Any) -> None:
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
    def posted(cls, data: Mapping[str, Any] | None, own: Currency) -> Currency:
        """The currency a form's data picks, if it is one on offer; else ``own``."""
        try:
            return cls(own=own, required=False).clean((data or {}).get("currency")) or own
        except forms.ValidationError:
            return own

    def to_python(self, value: Any | None) -> str:
        text = (super().to_python(value) or "").strip()
        if self.own is not None and text == self.own.symbol:
            return text
        if text and text not in CURRENCIES:
            mapped = currency_for_symbol(text)
            if CURRENCIES.get(mapped.code) == mapped:
                return mapped.code
        return text

    def clean(self, value: Any) -> Currency | None:
        text = super().clean(value)
        if not text:
            return None
        if self.own is not None and text == self.own.symbol:
            return self.own
        return CURRENCIES[text]
