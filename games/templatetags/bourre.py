"""Template helpers for Bourré pages: money in the session's unit, cards and suits.

Money is stored in integer minor units (cents for $, whole chips) and only ever formatted
by ``games.money.format_money`` (DESIGN.md), behind the ``money``/``signed_money``
filters; Python code imports it from ``games.money``. A count of chips that is not money
(a tournament stack, an average, a pot or ante on the tournament pages) goes through
``grouped``: the language's digit grouping ("12,000"; "12 000" in Finnish), while CSV
files and the API keep plain numbers. Suits are shown as a coloured
symbol plus words for screen readers, never colour alone (UX.md).

Every word these helpers write is in the reader's language (issue 19): the suit and rank
names are lazy texts (made strings when a page renders, so never cache one across
languages), ``names`` joins a list with the language's "and", and ``result_line``,
``rule_value`` and ``account_label`` speak the catalogue's words. ``memo`` shows a
posting's English memo in the reader's language: the session ledger's and, given the
tournament's money (``memo:tournament.currency``), the prize ledger's, whose amounts are
re-read from the memo's locale-free form and written the reader's way.
"""

import functools
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any

from django import template
from django.forms import BoundField
from django.urls import reverse
from django.utils import translation
from django.utils.dateparse import parse_datetime
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, pgettext, pgettext_lazy

from games.engine.cards import CardError, parse_card, parse_suit
from games.engine.rules import RULE_FIELDS
from games.models import Hand
from games.money import (
    DEFAULT_CURRENCY,
    MINUS,
    MONEY_RULES,
    PLAIN,
    Currency,
    MoneyError,
    as_currency,
    format_count,
    format_money,
    input_value,
    parse_amount,
)
from games.sessions.rule_fields import CHOICE_LABELS
from games.tournaments.deals import KIND_LABELS, KIND_WORDS
from ledger.models import Account
from ledger.postings.hands import paid_money

__all__ = ["MINUS", "card_name", "register"]

register = template.Library()

# Card faces, the one table of them: suit letter → (symbol, name); rank letter → (as
# printed on the card, as read out). Digits print and read as themselves. The digital
# board (games.digital.views) and the record form use these too. The names are lazy:
# screen readers and sentences read them in the page's language.
SUITS = {
    "S": ("♠", pgettext_lazy("suit name, read out", "spades")),
    "H": ("♥", pgettext_lazy("suit name, read out", "hearts")),
    "D": ("♦", pgettext_lazy("suit name, read out", "diamonds")),
    "C": ("♣", pgettext_lazy("suit name, read out", "clubs")),
}
RANKS = {
    "T": ("10", "10"),
    "J": ("J", pgettext_lazy("card rank, read out", "jack")),
    "Q": ("Q", pgettext_lazy("card rank, read out", "queen")),
    "K": ("K", pgettext_lazy("card rank, read out", "king")),
    "A": ("A", pgettext_lazy("card rank, read out", "ace")),
}
SUIT_CODES = "SHDC"  # the engine's suit order (games.engine.cards.Suit)


@register.filter
def money(amount: int | str | None, currency: Currency | str = DEFAULT_CURRENCY) -> str:
    return format_money(amount, currency)


@register.filter
def grouped(number: int | str | None) -> str:
    """A count with the reader's digit grouping (``games.money.format_count``); blank for
    None, and anything that is not a number as it is."""
    if number is None or number == "":
        return ""
    try:
        count = int(number)
    except (TypeError, ValueError):
        return str(number)
    return format_count(count)


@register.filter
def signed_money(amount: int | str | None, currency: Currency | str = DEFAULT_CURRENCY) -> str:
    return format_money(amount, currency, signed=True)


@register.filter
def amount_input(amount: int | None, currency: Currency | str = DEFAULT_CURRENCY) -> str:
    """A stored amount as a form's input shows it: "0.25", "1" (no symbol, no grouping)."""
    return input_value(amount, currency)


@register.simple_tag
def rule_value(key: str, value: Any, currency: Currency | str = DEFAULT_CURRENCY) -> str:
    """A house-rule value as people read it: amounts in money ("$0.25"), switches "on" or
    "off", nothing as "none", choices in words ("next best"; the rules form's label for
    the value when it has one, in the reader's language)."""
    if value is None or value == "":
        return pgettext("a house rule with no value", "none")
    if value is True or value is False:
        return (
            pgettext("a house rule switch", "on")
            if value
            else pgettext("a house rule switch", "off")
        )
    if key in MONEY_RULES:
        return format_money(value, currency)
    label = CHOICE_LABELS.get(key, {}).get(value)
    if label is not None:
        return str(label)
    return str(value).replace("_", " ")


_RULE_LABELS = {spec.key: spec.label for spec in RULE_FIELDS}


@register.filter
def rule_label(key: str) -> str:
    """A house-rule switch as the rules form names it, in the reader's language ("Split
    pot"), so a history line never shows a setting's key; an unknown key as it is."""
    label = _RULE_LABELS.get(key)
    return _(label) if label else str(key)


@register.filter
def deal_label(deal: dict) -> str:
    """A final-table deal's kind as the deal form names it, in the reader's language; the
    deal keeps its English label for the ledger's memos (``tournaments.deals``)."""
    word = KIND_WORDS.get(deal.get("kind", ""))
    return str(word) if word else str(deal.get("label", ""))


# The memos the ledger writes (ledger.postings), stored in English so the books read the
# same whoever wrote them; pages show them in the reader's language. A memo of another
# shape (one typed through the API, one cut at the ledger's 200 characters) is shown as
# stored.
_MEMO_WORDS = {
    text: text
    for text in (
        gettext_noop("antes"),
        gettext_noop("pot won"),
        gettext_noop("split pot divided"),
        gettext_noop("bourré and renege penalties"),
        gettext_noop("Pot carried in"),
        gettext_noop("Pot carried to the club"),
        gettext_noop("Pot awarded"),
        gettext_noop("Leftover pot shared"),
        gettext_noop("Leftover pot shared; the odd remainder to the club"),
        gettext_noop("Dead tournament pot returned to the bank"),
        gettext_noop("Tournament chips"),
        gettext_noop("buy-in"),  # ledger.postings.bank: chips from the bank to a seat
        gettext_noop("cash-out"),
        gettext_noop("Alone at the table"),
        gettext_noop("Alone at a broken table"),
    )
}
_HAND_MEMO = re.compile(r"^Hand (?P<number>\d+): (?P<what>.+)$")
_REVERSAL_MEMO = re.compile(
    r"^Hand (?P<number>\d+) (?P<why>voided|corrected): reverses (?P<kind>.+)$"
)


@functools.cache
def _kinds_by_english() -> dict[str, Any]:
    """Posting kinds by their English label as a reversal memo writes it, read once."""
    from ledger.models import Posting  # the ledger's models need the app registry

    with translation.override("en"):
        return {str(kind.label).lower(): kind for kind in Posting.Kind}


def _kind_word(english: str) -> str | None:
    kind = _kinds_by_english().get(english)
    return None if kind is None else str(kind.label).lower()


# The prize ledger's memos (games.tournaments: entries, service, tables, deals). A name
# may hold ": " itself, so each pattern is anchored at the fixed text after the name (the
# name is greedy: the last "…: fee to the house" is the fixed one). Groups called
# buy_in, fee, price or amount are money written locale-free (games.money.PLAIN).
_PRIZE_MEMOS = tuple(
    (re.compile(pattern), sentence)
    for pattern, sentence in (
        (r"^(?P<name>.+): fee to the house$", gettext_noop("%(name)s: fee to the house")),
        (
            r"^(?P<name>.+): prize for place (?P<place>\d+)$",
            gettext_noop("%(name)s: prize for place %(place)s"),
        ),
        (
            r"^(?P<name>.+) withdrew: buy-in and fee refunded$",
            gettext_noop("%(name)s withdrew: buy-in and fee refunded"),
        ),
        (
            r"^(?P<name>.+): re-entry (?P<number>\d+), buy-in (?P<buy_in>.+?) \+ fee (?P<fee>.+)$",
            gettext_noop("%(name)s: re-entry %(number)s, buy-in %(buy_in)s + fee %(fee)s"),
        ),
        (
            r"^(?P<name>.+): rebuy (?P<number>\d+), buy-in (?P<buy_in>.+?) \+ fee (?P<fee>.+)$",
            gettext_noop("%(name)s: rebuy %(number)s, buy-in %(buy_in)s + fee %(fee)s"),
        ),
        (
            r"^(?P<name>.+): buy-in (?P<buy_in>.+?) \+ fee (?P<fee>.+)$",
            gettext_noop("%(name)s: buy-in %(buy_in)s + fee %(fee)s"),
        ),
        (r"^(?P<name>.+): add-on, (?P<price>.+)$", gettext_noop("%(name)s: add-on, %(price)s")),
    )
)
_MONEY_GROUPS = ("buy_in", "fee", "price", "amount")
_DEAL_KINDS = {label: kind for kind, label in KIND_LABELS.items()}
_DEAL_MEMO = re.compile(
    r"^Deal \((?P<label>"
    + "|".join(re.escape(label) for label in _DEAL_KINDS)
    + r")\) agreed by (?P<rest>.+) takes (?P<amount>.+)$"
)


@lru_cache(maxsize=4096)
def _plain_amount(text: str, currency: Currency) -> int | None:
    # Read in PLAIN whoever reads, so the answer does not depend on the language: cached,
    # as switching languages to read it is most of the filter's time on a long ledger.
    try:
        return parse_amount(text, currency, language=PLAIN)
    except MoneyError:
        return None


def _memo_money(text: str, currency: Currency | str | None) -> str | None:
    """An amount as the memo wrote it (``PLAIN``), in the reader's way; None if it does not
    read as the tournament's money (then the memo is shown as stored)."""
    if currency is None or currency == "":
        return text
    cur = as_currency(currency)
    amount = _plain_amount(text, cur)
    return None if amount is None else format_money(amount, cur)


def _prize_memo(text: str, currency: Currency | str | None) -> str | None:
    if found := _DEAL_MEMO.match(text):
        # "agreed by <everyone>: <name>": names may hold ": ", so the split is the first
        # one whose right-hand name is among those who agreed (joined with ", ").
        rest, at = found["rest"], 0
        while (at := rest.find(": ", at)) != -1:
            who, name = rest[:at], rest[at + 2 :]
            if f", {who}, ".find(f", {name}, ") != -1:
                amount = _memo_money(found["amount"], currency)
                if amount is None:
                    return None
                return _("Deal (%(kind)s) agreed by %(names)s: %(name)s takes %(amount)s") % {
                    # mid-sentence, as the memo writes it ("even chop")
                    "kind": str(KIND_WORDS[_DEAL_KINDS[found["label"]]]).lower(),
                    "names": who,
                    "name": name,
                    "amount": amount,
                }
            at += 2
        return None
    for pattern, sentence in _PRIZE_MEMOS:
        if found := pattern.match(text):
            facts = found.groupdict()
            for group in _MONEY_GROUPS:
                if group in facts:
                    written = _memo_money(facts[group], currency)
                    if written is None:
                        return None
                    facts[group] = written
            return _(sentence) % facts
    return None


@register.filter
def memo(text: str, currency: Currency | str | None = None) -> str:
    """A posting's memo in the reader's language: "Hand 4: pot won" → "Jako 4: potti
    voitettu"; "Hand 4 corrected: reverses antes" likewise; a prize ledger's memo too,
    its amounts in the reader's way when the tournament's money is given ("ann: buy-in
    $1,250.50 + fee $1" → "ann: sisäänosto 1 250,50 $ + maksu 1 $"); anything else as
    stored."""
    if not text:
        return ""
    if text in _MEMO_WORDS:
        return _(text)
    if found := _HAND_MEMO.match(text):
        what = found["what"]
        if what in _MEMO_WORDS:
            return _("Hand %(number)s: %(what)s") % {"number": found["number"], "what": _(what)}
    if found := _REVERSAL_MEMO.match(text):
        kind = _kind_word(found["kind"])
        if kind is not None:
            facts = {"number": found["number"], "kind": kind}
            if found["why"] == "voided":
                return _("Hand %(number)s undone: reverses %(kind)s") % facts
            return _("Hand %(number)s corrected: reverses %(kind)s") % facts
    if ": " in text:  # every prize ledger memo has one
        return _prize_memo(text, currency) or text
    return text


@register.filter
def net_class(amount: int | None) -> str:
    """CSS class for a net amount: green up, red down (the sign is in the text too)."""
    if not amount:
        return ""
    return "pos" if int(amount) > 0 else "neg"


def suit_index(text: str) -> int | None:
    try:
        return int(parse_suit(text))
    except (CardError, TypeError, ValueError):
        return None


@register.filter
def suit(text: str) -> str:
    """A suit code (`H`, `♥`) as a coloured symbol with its name for screen readers."""
    index = suit_index(text)
    if index is None:
        return text
    return format_html(
        '<span class="suit-{}"><span aria-hidden="true">{}</span><span class="sr-only">{}</span></span>',
        SUIT_CODES[index],
        *SUITS[SUIT_CODES[index]],
    )


@register.filter
def suit_name(text: str) -> str:
    index = suit_index(text)
    return str(SUITS[SUIT_CODES[index]][1]) if index is not None else str(text)


@register.filter
def card(text: str) -> str:
    """A card (`QH`, `10♥`) as rank + coloured suit symbol, read out as "queen of hearts"."""
    try:
        index = int(parse_card(text))
    except (CardError, TypeError, ValueError):
        return text
    rank = "23456789TJQKA"[index % 13]
    letter = SUIT_CODES[index // 13]
    shown = RANKS.get(rank, (rank, rank))[0]
    symbol = SUITS[letter][0]
    return format_html(
        '<span class="card-face suit-{}"><span aria-hidden="true">{}{}</span>'
        '<span class="sr-only">{}</span></span>',
        letter,
        shown,
        symbol,
        card_name(rank, letter),
    )


def card_name(rank: str, suit_letter: str) -> str:
    """A card as it is read out, "queen of hearts", in the active language; ``rank`` is
    the engine's letter or digit ("Q", "T", "7")."""
    rank_name = RANKS.get(rank, (rank, rank))[1]
    return _("%(rank)s of %(suit)s") % {"rank": rank_name, "suit": SUITS[suit_letter][1]}


@register.filter
def get_item(mapping: Mapping[Any, Any] | None, key: Any) -> Any:
    """`{{ dict|get_item:key }}`: templates cannot index a dict by a variable."""
    if mapping is None:
        return None
    try:
        return mapping.get(key)
    except AttributeError:
        return None


@register.filter
def names(items: Iterable[object] | None) -> str:
    """["ann", "ben", "cal"] → "ann, ben and cal", with the active language's "and"
    ("ann, ben ja cal")."""
    words = [str(i) for i in items or []]
    if len(words) <= 1:
        return "".join(words)
    return _("%(names)s and %(last)s") % {"names": ", ".join(words[:-1]), "last": words[-1]}


@register.filter
def pretty_json(value: object) -> str:
    import json

    return json.dumps(value, indent=1, ensure_ascii=False, sort_keys=False)


ACCOUNT_LABELS = {
    "pot": pgettext_lazy("ledger account", "pot"),
    "carry": pgettext_lazy("ledger account", "club kitty"),
    "bank": pgettext_lazy("ledger account", "bank"),
}


@register.filter
def account_label(account: Account) -> str:
    """A ledger account as a player reads it: the player's name, "pot", "club kitty"."""
    if account.kind == "player" and account.player_id and account.player is not None:
        return account.player.name
    return str(ACCOUNT_LABELS.get(account.kind, account.kind))


@register.simple_tag
def hand_facts(hand: Hand) -> dict[str, Any]:
    """What a hand's verdict says, shaped for the result and history templates."""
    verdict = hand.verdict or {}
    result = verdict.get("result") or {}
    # Seat order (the record's players), not the order of play the verdict uses.
    seats = (hand.record or {}).get("players") or []
    raw_tricks = verdict.get("tricks") or {}
    tricks = {p: raw_tricks[p] for p in seats if p in raw_tricks} | raw_tricks
    outcome = result.get("outcome", "")
    payouts = result.get("payouts") or {}
    penalties = result.get("penalties") or {}
    pot, next_carry = result.get("pot"), result.get("next_carry")
    shortfalls = getattr(hand, "shortfalls", None) or {}
    short_penalties: set[str] = set()
    if shortfalls and result:
        # A tournament table: nobody paid more than their chips. Say what really moved,
        # not what the verdict asked ("pays 8 — all they had", the pot that really carries).
        carry = int(pot or 0) - sum((result.get("antes") or {}).values())
        moved = paid_money(result, carry, shortfalls)
        short_penalties = {p for p, x in penalties.items() if moved.penalties.get(p, 0) < x}
        payouts = moved.payouts
        penalties = {p: moved.penalties.get(p, 0) for p in penalties}
        pot = carry + sum(moved.antes.values())
        next_carry = moved.next_carry
    bourre = list(result.get("bourre") or [])
    top = max(tricks.values(), default=0)
    tied = [p for p, t in tricks.items() if t == top] if outcome in ("split", "ineligible") else []
    reneges = verdict.get("reneges") or []
    reneged: list[dict[str, Any]] = []
    for r in reneges:
        if r.get("player") not in [x["player"] for x in reneged]:
            reneged.append(r)
    return {
        "outcome": outcome,
        "winner": result.get("winner"),
        "won": payouts.get(result.get("winner")) if result.get("winner") else None,
        "payouts": sorted(payouts.items(), key=lambda kv: -kv[1]),
        "pot": pot,
        "antes": result.get("antes") or {},
        "ante_total": sum((result.get("antes") or {}).values()),
        "tricks": list(tricks.items()),
        "top": top,
        "tied": tied,
        "bourre": [(p, penalties.get(p, 0)) for p in bourre],
        "renege_penalties": [(p, x) for p, x in penalties.items() if p not in bourre],
        # Who could not pay all of their penalty (a tournament stack ran out).
        "short": sorted(short_penalties),
        "reneges": reneged,
        "next_carry": next_carry,
        "excused_next": result.get("excused_next") or [],
        "next_dealer": result.get("next_dealer"),
        "passed": (hand.record or {}).get("passed") or [],
        "trump": (hand.record or {}).get("trump")
        or ((hand.record or {}).get("up_card") or "")[-1:],
        "up_card": (hand.record or {}).get("up_card"),
        # Who declared out of turn at this hand (R16): forfeits the table added here,
        # beyond those it owed before the hand.
        "out_of_turn": _out_of_turn(hand),
        # Who forfeits a deal because of this hand (a renege caught in time, R39): the
        # deal skips them once, at once when they were next to deal.
        "forfeits": list(
            dict.fromkeys(
                [r.get("player") for r in reneged if r.get("corrected")]
                + [
                    p
                    for p in result.get("forfeits_next") or []
                    if p not in ((hand.record or {}).get("forfeits") or [])
                ]
            )
        ),
    }


def _out_of_turn(hand: Hand) -> list[str]:
    # A one-line summary (the scoreboard's latest hands) reads the hands without their
    # state before and does not say this: no query per hand for it.
    if "before" in hand.get_deferred_fields():
        return []
    record = hand.record or {}
    before = getattr(hand, "before", None) or {}
    ids = (before.get("seats") or {}) if isinstance(before, dict) else {}
    owed = set(before.get("forfeits") or []) if isinstance(before, dict) else set()
    return [p for p in record.get("forfeits") or [] if ids.get(p) not in owed and p not in owed]


@register.simple_tag
def result_line(result: dict, currency: Currency | str = DEFAULT_CURRENCY) -> str:
    """One hand's outcome in a few words (the correction's confirmation screen)."""
    result = result or {}
    outcome = result.get("outcome", "")
    payouts = result.get("payouts") or {}
    winner = result.get("winner")
    if outcome in ("win", "uncontested") and winner:
        text = _("%(player)s wins %(amount)s") % {
            "player": winner,
            "amount": format_money(payouts.get(winner, 0), currency),
        }
    elif outcome == "split" and payouts:
        shares = ", ".join(f"{p} {format_money(x, currency)}" for p, x in payouts.items())
        text = _("split: %(shares)s") % {"shares": shares}
    elif outcome == "all_passed":
        text = _("everyone passed, the pot carries")
    else:
        text = _("the pot carries")
    bourre = result.get("bourre") or []
    if bourre:
        text = _("%(result)s; bourré: %(players)s") % {"result": text, "players": ", ".join(bourre)}
    return _("%(result)s; next pot %(amount)s") % {
        "result": text,
        "amount": format_money(result.get("next_carry", 0), currency),
    }


@register.filter
def iso_time(text: str) -> datetime | None:
    """A stored ISO 8601 timestamp (JSON) as a datetime, for the ``date`` filter."""
    try:
        return parse_datetime(str(text or ""))
    except ValueError:
        return None


_RULE_REFS = re.compile(r"\s*\((R\d+)(?:[,/ ]+R\d+)*\)|^(R\d+): ")
_RULE_WORDS = re.compile(r"\((R\d+):\s*([^)]+)\)")
_CODE = re.compile(r"`([^`]+)`")


@register.filter
def why(message) -> str:
    """A message in the table's words with its rule as a "why?" link to the rule book
    instead of a bare number: "ben passed, so ben took no tricks (R10)." → "… tricks.
    why?" (linking /rules/#R10); "R21: head the trick" → "Head the trick … why?"."""
    text = str(message)
    rules: list[str] = []

    def drop(match: re.Match) -> str:
        rules.append(match.group(1) or match.group(2))
        return ""

    def keep_words(match: re.Match) -> str:
        rules.append(match.group(1))
        return f"({match.group(2).strip()})"

    text = _RULE_WORDS.sub(keep_words, text)
    text = _RULE_REFS.sub(drop, text).strip()
    if text[:1].islower():
        text = text[0].upper() + text[1:]
    if not rules:
        return conditional_escape(text)
    url = reverse("rule_book")
    links = " ".join(
        format_html(
            '<a class="why" href="{}#{}" aria-label="{}">{}</a>',
            url,
            r,
            _("Why? Rule %(rule)s") % {"rule": r},
            _("why?"),
        )
        for r in dict.fromkeys(rules)
    )
    return mark_safe(f"{conditional_escape(text)} {links}")  # noqa: S308 - parts escaped


@register.filter
def rule_text(text) -> str:
    """A rule book entry: switch names in `backticks` as code, rule numbers as links."""
    escaped = str(conditional_escape(text))
    escaped = _CODE.sub(r"<code>\1</code>", escaped)
    escaped = re.sub(r"\b(R\d+)\b", r'<a href="#\1">\1</a>', escaped)
    return mark_safe(escaped)  # noqa: S308 - escaped above


@register.filter
def described(field: BoundField) -> BoundField | str:
    """The field's widget; when it has errors, linked to them (``aria-describedby`` the
    error list ``<id>_errors``, then the help text) — Django marks it ``aria-invalid``."""
    if not field.errors or not field.auto_id:
        return field
    ids = [f"{field.auto_id}_errors"]
    if field.help_text:
        ids.append(f"{field.auto_id}_helptext")
    return field.as_widget(attrs={"aria-describedby": " ".join(ids)})


@register.filter
def groups_have_errors(groups: Iterable[tuple[str, Iterable[BoundField]]]) -> bool:
    """Whether any field of ``[(title, fields), ...]`` has an error (a collapsed section
    holding one opens, without JavaScript too)."""
    return any(field.errors for _, fields in groups for field in fields)
