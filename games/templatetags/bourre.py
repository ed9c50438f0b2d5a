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
posting's memo in the reader's language from its kind and parameters (``ledger.memos``):
the session ledger's and, given the tournament's money (``p|memo:tournament.currency``),
the prize ledger's, its amounts written the reader's way. Nothing here reads stored text.
``transfer_sentence`` writes one transfer of a settlement as a sentence (the page and its
"Copy as text" read the same one) and ``table_status`` a round's or table's state as a
word: both sit inside a line, so they are helpers rather than included templates.
"""

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from django import template
from django.forms import BoundField
from django.urls import reverse
from django.utils.dateparse import parse_datetime
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy

from games.engine.cards import CardError, parse_card, parse_suit
from games.engine.rules import RULE_FIELDS
from games.messages import rule_book_parts, rule_references
from games.models import GameSession, Hand
from games.money import (
    DEFAULT_CURRENCY,
    MINUS,
    MONEY_RULES,
    Currency,
    format_count,
    format_money,
    input_value,
)
from games.sessions import selectors
from games.sessions.rule_fields import CHOICE_LABELS
from games.sessions.selectors import HandFacts
from games.tournaments.deals import KIND_WORDS
from ledger.memos import shown
from ledger.models import Account, PrizePosting

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


# One transfer of a settlement, by who the kitty is (the pot while the session is open,
# the club's kitty once closed) — the same sentences the catalogues hold.
_TRANSFER = {
    ("payee", True): gettext_lazy(
        '<strong>%(payer)s</strong> has <span class="money">%(amount)s</span> in the pot'
    ),
    ("payer", True): gettext_lazy(
        '<strong>%(payee)s</strong> won <span class="money">%(amount)s</span> of the pot carried in'
    ),
    ("payee", False): gettext_lazy(
        '<strong>%(payer)s</strong> pays <span class="money">%(amount)s</span> into the club kitty'
    ),
    ("payer", False): gettext_lazy(
        'The club kitty pays <strong>%(payee)s</strong> <span class="money">%(amount)s</span>'
    ),
}
_PAYS = gettext_lazy(
    '<strong>%(payer)s</strong> pays <strong>%(payee)s</strong> <span class="money">%(amount)s</span>'
)


@register.simple_tag
def transfer_sentence(row: Mapping[str, Any], session: GameSession) -> SafeString:
    """A settlement row (``selectors.settlement_rows``) as a sentence in the reader's
    language, the names escaped and the amount in the session's money."""
    kitty = row.get("kitty")
    text = _TRANSFER[(kitty, bool(session.is_open))] if kitty in ("payee", "payer") else _PAYS
    values = {
        "payer": conditional_escape(row["payer"]),
        "payee": conditional_escape(row["payee"]),
        "amount": conditional_escape(format_money(row["amount"], session.currency)),
    }
    return mark_safe(str(text) % values)  # noqa: S308 - the sentence is ours, the values escaped


_STATUS = {
    "playing": pgettext_lazy("round or table", "playing"),
    "finished": pgettext_lazy("round or table", "finished"),
    "broken": pgettext_lazy("table broken up", "broken"),
}


@register.filter
def table_status(status: str) -> str:
    """A tournament round's or table's state as a word (an unknown one as it is)."""
    return str(_STATUS.get(status, status))


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
def absolute(amount: int | None) -> int | None:
    """An amount without its sign ("you owe $14", not "you owe -$14")."""
    return None if amount is None else abs(int(amount))


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


@register.filter
def memo(posting: Any, currency: Currency | str | None = None) -> str:
    """A posting's (or prize posting's) memo in the reader's language, from its kind and
    parameters (``ledger.memos.shown``): "Hand 4: pot won" → "Jako 4: potti voitettu"; a
    prize ledger's amounts the reader's way in the tournament's money ("ann: buy-in
    $1,250.50 + fee $1" → "ann: sisäänosto 1 250,50 $ + maksu 1 $"); a memo of no known
    shape as stored."""
    if posting is None or posting == "":
        return ""
    if (currency is None or currency == "") and isinstance(posting, PrizePosting):
        currency = posting.tournament.currency
    return shown(posting.memo_kind, posting.memo_params, currency)


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
def hand_facts(hand: Hand) -> HandFacts:
    """What a hand's verdict says, for the result and history templates: the facts are
    the selector's (``games.sessions.selectors.hand_facts``), the words the template's."""
    return selectors.hand_facts(hand)


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


@register.filter
def why(message: object) -> str:
    """A message in the table's words with its rule as a "why?" link to the rule book
    instead of a bare number: "ben passed, so ben took no tricks (R10)." → "… tricks.
    why?" (linking /rules/#R10); "R21: head the trick" → "Head the trick … why?".
    The rules are separated from the sentence by ``games.messages.rule_references``.
    A sentence citing several rules ("everybody passed (R40) … uncontested (R14)") ends
    with one "why?", to the first: a row of "why? why?" reads as a stutter, and the rule
    book's entry links the rules it leans on."""
    refs = rule_references(message)
    if not refs.rules:
        return conditional_escape(refs.text)
    rule = refs.rules[0]
    return format_html(
        '{} <a class="why" href="{}#{}" aria-label="{}">{}</a>',
        refs.text,
        reverse("rule_book"),
        rule,
        _("Why? Rule %(rule)s") % {"rule": rule},
        _("why?"),
    )


@register.filter
def rule_text(text: object) -> str:
    """A rule book entry: switch names in `backticks` as code, rule numbers as links
    (the entry is split by ``games.messages.rule_book_parts``)."""
    pieces = {
        "text": "{}",
        "code": "<code>{}</code>",
        "rule": '<a href="#{0}">{0}</a>',
    }
    return format_html_join(
        "", "{}", ((format_html(pieces[p.kind], p.text),) for p in rule_book_parts(text))
    )


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
