"""Template helpers for Bourré pages: money in the session's unit, cards and suits.

Money is stored in integer minor units and only ever formatted here (DESIGN.md). Suits are
shown as a coloured symbol plus words for screen readers, never colour alone (UX.md).
"""

from typing import Any

from django import template
from django.utils.dateparse import parse_datetime
from django.utils.html import format_html

from games.engine.cards import CardError, parse_card, parse_suit

register = template.Library()

# Card faces, the one table of them: suit letter → (symbol, name); rank letter → (as
# printed on the card, as read out). Digits print and read as themselves. The digital
# board (games.digital.views) and the record form use these too.
SUITS = {
    "S": ("♠", "spades"),
    "H": ("♥", "hearts"),
    "D": ("♦", "diamonds"),
    "C": ("♣", "clubs"),
}
RANKS = {
    "T": ("10", "10"),
    "J": ("J", "jack"),
    "Q": ("Q", "queen"),
    "K": ("K", "king"),
    "A": ("A", "ace"),
}
SUIT_CODES = "SHDC"  # the engine's suit order (games.engine.cards.Suit)
MINUS = "\u2212"


def format_money(amount: int | None, currency: str = "$", signed: bool = False) -> str:
    """`$14`, `−$3`, `14 chips`; with `signed`, `+$14` (zero has no sign)."""
    if amount is None or amount == "":
        return ""
    amount = int(amount)
    digits = f"{abs(amount):,}"
    currency = currency or ""
    # A word ("chips", "EUR") reads after the number; a symbol ("$", "€") before it.
    if len(currency) > 1 and currency.isalpha():
        text = f"{digits} {currency}"
    else:
        text = f"{currency}{digits}"
    if amount < 0:
        return MINUS + text
    if signed and amount > 0:
        return "+" + text
    return text


@register.filter
def money(amount, currency: str = "$") -> str:
    return format_money(amount, currency)


@register.filter
def signed_money(amount, currency: str = "$") -> str:
    return format_money(amount, currency, signed=True)


@register.filter
def net_class(amount) -> str:
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
def suit(text: str):
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
    return SUITS[SUIT_CODES[index]][1] if index is not None else str(text)


@register.filter
def card(text: str):
    """A card (`QH`, `10♥`) as rank + coloured suit symbol, read out as "queen of hearts"."""
    try:
        index = int(parse_card(text))
    except (CardError, TypeError, ValueError):
        return text
    rank = "23456789TJQKA"[index % 13]
    letter = SUIT_CODES[index // 13]
    shown, rank_name = RANKS.get(rank, (rank, rank))
    symbol, suit_word = SUITS[letter]
    return format_html(
        '<span class="card-face suit-{}"><span aria-hidden="true">{}{}</span>'
        '<span class="sr-only">{}</span></span>',
        letter,
        shown,
        symbol,
        f"{rank_name} of {suit_word}",
    )


@register.filter
def get_item(mapping, key):
    """`{{ dict|get_item:key }}`: templates cannot index a dict by a variable."""
    if mapping is None:
        return None
    try:
        return mapping.get(key)
    except AttributeError:
        return None


@register.filter
def names(items) -> str:
    """["ann", "ben", "cal"] → "ann, ben and cal"."""
    items = [str(i) for i in items or []]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


@register.filter
def pretty_json(value) -> str:
    import json

    return json.dumps(value, indent=1, ensure_ascii=False, sort_keys=False)


ACCOUNT_LABELS = {"pot": "pot", "carry": "club kitty", "bank": "bank"}


@register.filter
def account_label(account) -> str:
    """A ledger account as a player reads it: the player's name, "pot", "club kitty"."""
    if account.kind == "player" and account.player_id:
        return account.player.name
    return ACCOUNT_LABELS.get(account.kind, account.kind)


@register.simple_tag
def hand_facts(hand) -> dict:
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
        "pot": result.get("pot"),
        "antes": result.get("antes") or {},
        "ante_total": sum((result.get("antes") or {}).values()),
        "tricks": list(tricks.items()),
        "top": top,
        "tied": tied,
        "bourre": [(p, penalties.get(p, 0)) for p in bourre],
        "renege_penalties": [(p, x) for p, x in penalties.items() if p not in bourre],
        "reneges": reneged,
        "next_carry": result.get("next_carry"),
        "excused_next": result.get("excused_next") or [],
        "next_dealer": result.get("next_dealer"),
        "passed": (hand.record or {}).get("passed") or [],
        "trump": (hand.record or {}).get("trump")
        or ((hand.record or {}).get("up_card") or "")[-1:],
        "up_card": (hand.record or {}).get("up_card"),
        # Who owes a forfeited deal because of this hand (a corrected renege, R39).
        "forfeits": [
            p
            for p in result.get("forfeits_next") or []
            if p not in ((hand.record or {}).get("forfeits") or [])
        ],
    }


@register.simple_tag
def result_line(result: dict, currency: str = "$") -> str:
    """One hand's outcome in a few words (the correction's confirmation screen)."""
    result = result or {}
    outcome = result.get("outcome", "")
    payouts = result.get("payouts") or {}
    winner = result.get("winner")
    if outcome in ("win", "uncontested") and winner:
        text = f"{winner} wins {format_money(payouts.get(winner, 0), currency)}"
    elif outcome == "split" and payouts:
        text = "split: " + ", ".join(f"{p} {format_money(x, currency)}" for p, x in payouts.items())
    elif outcome == "all_passed":
        text = "everyone passed, the pot carries"
    else:
        text = "the pot carries"
    bourre = result.get("bourre") or []
    if bourre:
        text += "; bourré: " + ", ".join(bourre)
    return f"{text}; next pot {format_money(result.get('next_carry', 0), currency)}"


@register.filter
def iso_time(text: str):
    """A stored ISO 8601 timestamp (JSON) as a datetime, for the ``date`` filter."""
    try:
        return parse_datetime(str(text or ""))
    except ValueError:
        return None
