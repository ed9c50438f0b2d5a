"""Payment hand-off (issue #34 item 3): from a payee's saved handles, an amount and a note,
the links that open a payment app with the payee (and, where the app takes one, the
amount and the note) filled in, or the text to copy for a free-text handle (an IBAN).

Pure: the standard library only, no Django, no I/O. The app never moves money and never
asks for credentials: a link only opens the payer's own app, where they confirm. Links are
built only from what the payee saved, and every handle is checked again here (``check``)
before it goes into a URL, so a row written around the form (the admin, an old value)
never yields a link to somewhere else; every part is percent-encoded.

The formats (read from each app's own pages or, where it publishes none, from public code
that builds them; the tests pin each one):

- Venmo: ``https://venmo.com/u/<user>?txn=pay&amount=14.00&note=…`` (the profile link
  Venmo shows under "Me" is ``venmo.com/u/<user>``; ``txn=pay``, ``amount`` and ``note``
  are the parameters of its pay links). US dollars only: Venmo is a US service.
  Usernames: 5–30 letters, digits, hyphens and underscores.
- PayPal.Me: ``https://paypal.me/<name>/14.00USD`` (amount then ISO code). PayPal's help
  says names are letters and digits only, at most 20. Amounts only in PayPal's currency
  list (``PAYPAL_CURRENCIES``); HUF, JPY and TWD take no decimals, so an amount with
  cents in those opens the page without the amount. Another currency gets no amount.
- Cash App: ``https://cash.app/$<cashtag>/14.00``. US dollars only (Cash App's UK service
  closed). A $cashtag is 1–20 letters and digits with at least one letter. No note: Cash
  App documents no note parameter for these links.
- Revolut: ``https://revolut.me/<username>``. Revolut documents no amount or note
  parameter for revolut.me pages (public code disagrees: cents, decimals, path or query),
  so the page opens without them and the payer types the amount (``prefilled`` False).
  Usernames: 3–32 letters, digits, dots, hyphens and underscores.
- Free text (an IBAN, "cash at the next game"): at most 140 characters, no control or
  invisible formatting characters (no right-to-left override to disguise an IBAN); shown
  as text with a copy button, never as a link.

Chips (ISO ``XXX``) are not money: no hand-off at all.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

__all__ = [
    "APPS",
    "PAYPAL_CURRENCIES",
    "CopyText",
    "HandleRefused",
    "Handles",
    "PayLink",
    "PayOptions",
    "Skipped",
    "build",
    "check",
    "major_amount",
]

# The handle fields in the order the links are offered.
APPS: dict[str, str] = {
    "venmo": "Venmo",
    "paypal": "PayPal",
    "cashtag": "Cash App",
    "revolut": "Revolut",
}
USD_ONLY = frozenset({"venmo", "cashtag"})
# PayPal's REST currency codes (developer.paypal.com, "Currency codes").
PAYPAL_CURRENCIES = frozenset(
    [
        "AUD",
        "BRL",
        "CAD",
        "CNY",
        "CZK",
        "DKK",
        "EUR",
        "HKD",
        "HUF",
        "ILS",
        "JPY",
        "MYR",
        "MXN",
        "TWD",
        "NZD",
        "NOK",
        "PHP",
        "PLN",
        "GBP",
        "SGD",
        "SEK",
        "CHF",
        "THB",
        "USD",
    ]
)
PAYPAL_WHOLE_ONLY = frozenset({"HUF", "JPY", "TWD"})
NO_MONEY = "XXX"  # ISO 4217 "no currency": the club plays for chips

OTHER_MAX = 140
# (pattern, the limits the refusal names): what each app allows, after a leading @ or $
# (which people type out of habit) is dropped.
RULES: dict[str, tuple[re.Pattern[str], int, int]] = {
    "venmo": (re.compile(r"[A-Za-z0-9_-]{5,30}"), 5, 30),
    "paypal": (re.compile(r"[A-Za-z0-9]{1,20}"), 1, 20),
    "cashtag": (re.compile(r"(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{1,20}"), 1, 20),
    "revolut": (re.compile(r"[A-Za-z0-9._-]{3,32}"), 3, 32),
}
PREFIXES = {"venmo": "@", "paypal": "", "cashtag": "$", "revolut": "@"}
# The signs each app allows besides ASCII letters and digits (the patterns above).
SIGNS = {"venmo": "_-", "paypal": "", "cashtag": "", "revolut": "._-"}
# A pasted profile link is read as its handle: what comes after these (no scheme, no www).
SITES = {
    "venmo": ("venmo.com/u/", "venmo.com/"),
    "paypal": ("paypal.me/", "paypal.com/paypalme/"),
    "cashtag": ("cash.app/",),
    "revolut": ("revolut.me/",),
}
# Unicode categories refused in free text: controls, invisible formatting (bidi
# overrides, zero-width joiners), line and paragraph separators, private and unassigned.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"})


class HandleRefused(ValueError):
    """A handle that does not fit its app: ``code`` is ``length``, ``characters``,
    ``letter`` (a $cashtag needs one) or ``invisible`` (free text); ``low``/``high`` the
    allowed length. The form says it in the reader's language."""

    def __init__(self, app: str, code: str, low: int = 0, high: int = 0) -> None:
        super().__init__(f"{app}: {code} ({low}-{high})")
        self.app, self.code, self.low, self.high = app, code, low, high


def check(app: str, value: str) -> str:
    """The handle as it is stored (trimmed, without the habit @ or $), or HandleRefused.
    An empty value is allowed (no handle for that app)."""
    value = value.strip()
    if not value:
        return ""
    if app == "other":
        value = " ".join(value.split())  # one line: a pasted IBAN keeps single spaces
        if any(unicodedata.category(c) in REFUSED_CATEGORIES for c in value):
            raise HandleRefused(app, "invisible")
        if len(value) > OTHER_MAX:
            raise HandleRefused(app, "length", 1, OTHER_MAX)
        return value
    pattern, low, high = RULES[app]
    bare = value.lower().removeprefix("https://").removeprefix("http://").removeprefix("www.")
    for site in SITES[app]:
        if bare.startswith(site):
            value = value[len(value) - len(bare) + len(site) :].rstrip("/")
            break
    prefix = PREFIXES[app]
    if prefix and value.startswith(prefix):
        value = value[1:]
    if pattern.fullmatch(value):
        return value
    if not all(c.isascii() and (c.isalnum() or c in SIGNS[app]) for c in value):
        raise HandleRefused(app, "characters", low, high)
    if not low <= len(value) <= high:
        raise HandleRefused(app, "length", low, high)
    raise HandleRefused(app, "letter", low, high)  # only a $cashtag's rule is left


@dataclass(frozen=True)
class Handles:
    """What a payee saved (empty strings for none)."""

    venmo: str = ""
    paypal: str = ""
    cashtag: str = ""
    revolut: str = ""
    other: str = ""

    def __bool__(self) -> bool:
        return any((self.venmo, self.paypal, self.cashtag, self.revolut, self.other))


@dataclass(frozen=True)
class PayLink:
    app: str  # a key of APPS
    name: str  # the app's own name ("Cash App"), never translated
    url: str
    prefilled: bool  # the amount is in the link; otherwise the payer types it


@dataclass(frozen=True)
class CopyText:
    text: str


@dataclass(frozen=True)
class Skipped:
    """A saved handle that gets no link for this amount: ``reason`` ``usd_only``."""

    app: str
    name: str
    reason: str


@dataclass(frozen=True)
class PayOptions:
    links: tuple[PayLink, ...] = ()
    copy: CopyText | None = None
    skipped: tuple[Skipped, ...] = field(default=())

    def __bool__(self) -> bool:
        return bool(self.links or self.copy or self.skipped)


def major_amount(amount: int, exponent: int) -> str:
    """Minor units as the plain decimal the apps read: 1450, 2 → "14.50"; 14, 0 → "14"."""
    if amount < 0 or exponent < 0:
        raise ValueError("amounts handed off are positive")
    if exponent == 0:
        return str(amount)
    whole, frac = divmod(amount, 10**exponent)
    return f"{whole}.{frac:0{exponent}d}"


def _safe(app: str, value: str) -> str:
    """The stored handle if it still fits its app, else "" (no link)."""
    try:
        return check(app, value)
    except HandleRefused:
        return ""


def build(handles: Handles, amount: int, currency: str, exponent: int, note: str) -> PayOptions:
    """The hand-off for paying ``amount`` (minor units of ``currency``, an ISO code with
    ``exponent`` decimals) to the payee whose handles these are, with ``note`` (already
    in the reader's language)."""
    if amount <= 0 or currency == NO_MONEY:
        return PayOptions()
    decimal = major_amount(amount, exponent)
    links: list[PayLink] = []
    skipped: list[Skipped] = []
    for app, name in APPS.items():
        handle = _safe(app, getattr(handles, app))
        if not handle:
            continue
        if app in USD_ONLY and currency != "USD":
            skipped.append(Skipped(app, name, "usd_only"))
            continue
        url, prefilled = _url(app, handle, amount, decimal, currency, exponent, note)
        links.append(PayLink(app, name, url, prefilled))
    other = _safe("other", handles.other)
    return PayOptions(tuple(links), CopyText(other) if other else None, tuple(skipped))


def _url(
    app: str, handle: str, amount: int, decimal: str, currency: str, exponent: int, note: str
) -> tuple[str, bool]:
    path = quote(handle, safe="")
    if app == "venmo":
        query = urlencode({"txn": "pay", "amount": decimal, "note": note}, quote_via=quote)
        return f"https://venmo.com/u/{path}?{query}", True
    if app == "cashtag":
        return f"https://cash.app/${path}/{quote(decimal, safe='.')}", True
    if app == "paypal":
        if currency not in PAYPAL_CURRENCIES:
            return f"https://paypal.me/{path}", False
        if currency in PAYPAL_WHOLE_ONLY:
            whole, cents = divmod(amount, 10**exponent)
            if cents:
                return f"https://paypal.me/{path}", False
            decimal = str(whole)
        return f"https://paypal.me/{path}/{quote(decimal + currency, safe='.')}", True
    return f"https://revolut.me/{path}", False
