"""Ledger memos as data (issue #31): what each posting is, and its sentence in any language.

Every ``Posting`` and ``PrizePosting`` stores its memo three ways: ``memo_kind`` (a
``MemoKind``), ``memo_params`` (JSON: a hand's number, a player's name, a place, amounts
in minor units) and ``memo``, the English sentence ``english(kind, params)`` cut at the
column's 200 characters. The English text is what the CSV exports and the API have always
written, so they read the column unchanged; pages show ``shown(kind, params, currency)``,
the same sentence in the reader's language with its amounts written the reader's way.
Nothing reads the stored text back: ``ledger.invariants`` checks that it is still the
English of its kind and parameters.

The sentences are the catalogue's (``gettext_noop`` here, translated when shown), word for
word what the ledger wrote before memos were data, so stored memos and pages read as they
did. ``TEXT`` is a memo of no known shape (``params["text"]``), shown as stored: a row
whose old text did not parse (``ledger`` migration 0009) and a posting without a memo.

A memo whose English is longer than the column is shown as stored (cut), as before: its
translation would say more than the books keep.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from games.models.currency import Currency
from games.money import PLAIN, as_currency, format_money

MEMO_LENGTH = 200  # the ``memo`` column's length (ledger.models)


class MemoKind(enum.StrEnum):
    """Every kind of memo the ledgers write (stored in ``memo_kind``)."""

    TEXT = "text"  # no known shape: params {"text": …}
    # A recorded hand's postings (ledger.postings.hands): params {"hand": number}.
    HAND_ANTES = "hand_antes"
    HAND_POT_WON = "hand_pot_won"
    HAND_SPLIT = "hand_split"
    HAND_PENALTIES = "hand_penalties"
    # A reversal: params {"hand": number, "reverses": the reversed posting's kind code}.
    HAND_VOIDED = "hand_voided"
    HAND_CORRECTED = "hand_corrected"
    # Fixed sentences, no params: a session's opening and closing, bank moves, the
    # tournament tables' own ledgers.
    CARRY_IN = "carry_in"
    CARRY_OUT = "carry_out"
    POT_AWARDED = "pot_awarded"
    ALONE_AT_TABLE = "alone_at_table"
    ALONE_AT_BROKEN_TABLE = "alone_at_broken_table"
    LEFTOVER_SHARED = "leftover_shared"
    LEFTOVER_REMAINDER = "leftover_remainder"
    DEAD_POT = "dead_pot"
    POT_TO_TABLES = "pot_to_tables"
    POT_FROM_BROKEN = "pot_from_broken"
    TOURNAMENT_CHIPS = "tournament_chips"
    BUY_IN = "buy_in"
    CASH_OUT = "cash_out"
    # The prize ledger (games.tournaments): params {"name": the player's name, …}.
    FEE = "fee"
    PRIZE = "prize"  # + "place"
    REFUND = "refund"
    ENTRY = "entry"  # + "buy_in", "fee" (minor units)
    REENTRY = "reentry"  # + "number", "buy_in", "fee"
    REBUY = "rebuy"  # + "number", "buy_in", "fee"
    ADDON = "addon"  # + "price"
    DEAL = "deal"  # + "deal" (a DEAL_LABELS key), "agreed" (names joined), "amount"
    # The club's tab (issue #34): params {"payer": name, "payee": name, …}; the legs carry
    # the amount. A session's transfer put on the tab, or taken off it, + "session" (its
    # name); a payment, or its reversal, + "method" (a ledger.models.TabPayment.Method).
    TAB_SESSION = "tab_session"
    TAB_TAKEN_OFF = "tab_taken_off"
    TAB_PAYMENT = "tab_payment"
    TAB_PAYMENT_REVERSED = "tab_payment_reversed"


_FIXED = {
    MemoKind.CARRY_IN: gettext_noop("Pot carried in"),
    MemoKind.CARRY_OUT: gettext_noop("Pot carried to the club"),
    MemoKind.POT_AWARDED: gettext_noop("Pot awarded"),
    MemoKind.ALONE_AT_TABLE: gettext_noop("Alone at the table"),
    MemoKind.ALONE_AT_BROKEN_TABLE: gettext_noop("Alone at a broken table"),
    MemoKind.LEFTOVER_SHARED: gettext_noop("Leftover pot shared"),
    MemoKind.LEFTOVER_REMAINDER: gettext_noop("Leftover pot shared; the odd remainder to the club"),
    MemoKind.DEAD_POT: gettext_noop("Dead tournament pot returned to the bank"),
    MemoKind.POT_TO_TABLES: gettext_noop("Pot of a broken table: moved with its players"),
    MemoKind.POT_FROM_BROKEN: gettext_noop("Pot moved in from a broken table"),
    MemoKind.TOURNAMENT_CHIPS: gettext_noop("Tournament chips"),
    MemoKind.BUY_IN: gettext_noop("buy-in"),  # chips from the bank to a seat
    MemoKind.CASH_OUT: gettext_noop("cash-out"),
}
_HAND_WORDS = {
    MemoKind.HAND_ANTES: gettext_noop("antes"),
    MemoKind.HAND_POT_WON: gettext_noop("pot won"),
    MemoKind.HAND_SPLIT: gettext_noop("split pot divided"),
    MemoKind.HAND_PENALTIES: gettext_noop("bourré and renege penalties"),
}
_REVERSAL_WHY = {MemoKind.HAND_VOIDED: "voided", MemoKind.HAND_CORRECTED: "corrected"}
_PRIZE_SENTENCES = {
    MemoKind.FEE: gettext_noop("%(name)s: fee to the house"),
    MemoKind.PRIZE: gettext_noop("%(name)s: prize for place %(place)s"),
    MemoKind.REFUND: gettext_noop("%(name)s withdrew: buy-in and fee refunded"),
    MemoKind.ENTRY: gettext_noop("%(name)s: buy-in %(buy_in)s + fee %(fee)s"),
    MemoKind.REENTRY: gettext_noop(
        "%(name)s: re-entry %(number)s, buy-in %(buy_in)s + fee %(fee)s"
    ),
    MemoKind.REBUY: gettext_noop("%(name)s: rebuy %(number)s, buy-in %(buy_in)s + fee %(fee)s"),
    MemoKind.ADDON: gettext_noop("%(name)s: add-on, %(price)s"),
}
_TAB_SENTENCES = {
    MemoKind.TAB_SESSION: gettext_noop("%(session)s: %(payer)s owes %(payee)s, put on the tab"),
    MemoKind.TAB_TAKEN_OFF: gettext_noop(
        "%(session)s: %(payer)s's debt to %(payee)s taken off the tab"
    ),
    MemoKind.TAB_PAYMENT: gettext_noop("%(payer)s paid %(payee)s (%(method)s)"),
    MemoKind.TAB_PAYMENT_REVERSED: gettext_noop(
        "%(payer)s's payment to %(payee)s (%(method)s) reversed"
    ),
}
_MONEY_PARAMS = ("buy_in", "fee", "price", "amount")  # amounts in minor units

# A final-table deal's kinds: the English label its memo keeps (locale-free), and the deal
# form's words for it, in the reader's language (games.tournaments.deals uses both).
DEAL_LABELS = {
    "even": "even chop",
    "chips": "chip chop",
    "icm": "ICM deal",
    "custom": "custom deal",
}
DEAL_WORDS = {
    "even": gettext_lazy("Even chop"),
    "chips": gettext_lazy("Chip chop"),
    "icm": gettext_lazy("ICM deal"),
    "custom": gettext_lazy("Custom amounts"),
}


@dataclass(frozen=True)
class Memo:
    """A memo as a posting is given it: its kind and parameters (JSON-ready)."""

    kind: MemoKind
    params: Mapping[str, Any] = field(default_factory=dict)

    def stored(self, currency: Currency | str | None = None) -> str:
        """The ``memo`` column's text: the English sentence, cut at the column."""
        return english(self.kind, self.params, currency)[:MEMO_LENGTH]


def text_memo(text: str) -> Memo:
    return Memo(MemoKind.TEXT, {"text": text})


def hand_memo(kind: MemoKind, number: int) -> Memo:
    """One of a recorded hand's postings (``HAND_ANTES`` … ``HAND_PENALTIES``)."""
    if kind not in _HAND_WORDS:
        raise ValueError(f"not a hand's memo: {kind}")
    return Memo(kind, {"hand": number})


def reversal_memo(number: int, why: str, reverses: str) -> Memo:
    """A reversal of hand ``number``'s posting of kind ``reverses`` (a ``Posting.Kind``
    code); ``why`` is "voided" (an undo) or "corrected"."""
    kind = MemoKind.HAND_VOIDED if why == "voided" else MemoKind.HAND_CORRECTED
    if _REVERSAL_WHY[kind] != why:
        raise ValueError(f"a reversal is voided or corrected, not {why!r}")
    return Memo(kind, {"hand": number, "reverses": str(reverses)})


def prize_memo(kind: MemoKind, name: str, **facts: int) -> Memo:
    """A prize ledger memo about player ``name``: ``facts`` are its place, number or
    amounts (minor units), as ``_PRIZE_SENTENCES`` names them."""
    if kind not in _PRIZE_SENTENCES:
        raise ValueError(f"not a prize memo: {kind}")
    return Memo(kind, {"name": name, **facts})


def deal_memo(deal: str, agreed: str, name: str, amount: int) -> Memo:
    """A share of a final-table deal of kind ``deal`` (a ``DEAL_LABELS`` key) that the
    players ``agreed`` (their names joined with ", ") made; ``name`` takes ``amount``."""
    if deal not in DEAL_LABELS:
        raise ValueError(f"unknown deal kind {deal!r}")
    return Memo(MemoKind.DEAL, {"deal": deal, "agreed": agreed, "name": name, "amount": amount})


def tab_memo(
    kind: MemoKind, payer: str, payee: str, *, session: str = "", method: str = ""
) -> Memo:
    """A tab posting's memo: a session's transfer (``session``: its name) or a payment
    (``method``: a ``TabPayment.Method`` code) from ``payer`` to ``payee`` (names)."""
    if kind not in _TAB_SENTENCES:
        raise ValueError(f"not a tab memo: {kind}")
    facts = {"payer": payer, "payee": payee}
    if kind in (MemoKind.TAB_SESSION, MemoKind.TAB_TAKEN_OFF):
        facts["session"] = session
    else:
        facts["method"] = method
    return Memo(kind, facts)


def _method_label(code: str) -> str:
    """A payment method's label in the active language (the models import this module)."""
    from ledger.models import TabPayment

    return str(TabPayment.Method(code).label)


def _tab_facts(params: Mapping[str, Any]) -> dict[str, Any]:
    facts = dict(params)
    if "method" in facts:
        facts["method"] = _method_label(facts["method"])
    return facts


def _money(
    params: Mapping[str, Any], currency: Currency | str | None, language: str | None
) -> dict[str, Any]:
    """The params with their amounts written in ``currency`` (``language``: PLAIN or the
    reader's)."""
    facts = dict(params)
    for key in _MONEY_PARAMS:
        if key in facts:
            if currency is None or currency == "":
                raise ValueError("a memo with an amount needs its currency")
            facts[key] = format_money(facts[key], as_currency(currency), language=language)
    return facts


def _posting_kind_label(code: str) -> str | None:
    """A posting kind's label in the active language, lower case (None: not a kind)."""
    from ledger.models import Posting  # the models import this module

    try:
        return str(Posting.Kind(code).label).lower()
    except ValueError:
        return None


def english(kind: str, params: Mapping[str, Any], currency: Currency | str | None = None) -> str:
    """The memo's English sentence, amounts locale-free (``PLAIN``): what ``memo`` holds
    (uncut). ``currency`` is needed by the prize ledger's memos with an amount."""
    kind = MemoKind(kind)
    if kind is MemoKind.TEXT:
        return str(params.get("text", ""))
    if kind in _FIXED:
        return _FIXED[kind]
    if kind in _HAND_WORDS:
        return f"Hand {params['hand']}: {_HAND_WORDS[kind]}"
    if kind in _REVERSAL_WHY:
        with translation.override("en"):
            label = _posting_kind_label(params["reverses"])
        return f"Hand {params['hand']} {_REVERSAL_WHY[kind]}: reverses {label}"
    if kind in _TAB_SENTENCES:
        with translation.override("en"):
            return _TAB_SENTENCES[kind] % _tab_facts(params)
    facts = _money(params, currency, PLAIN)
    if kind is MemoKind.DEAL:
        return (
            f"Deal ({DEAL_LABELS[facts['deal']]}) agreed by {facts['agreed']}: "
            f"{facts['name']} takes {facts['amount']}"
        )
    return _PRIZE_SENTENCES[kind] % facts


def shown(kind: str, params: Mapping[str, Any], currency: Currency | str | None = None) -> str:
    """The memo in the reader's language, amounts the reader's way ("Hand 4: pot won" →
    "Jako 4: potti voitettu"; "ann: buy-in $1,250.50 + fee $1" → "ann: sisäänosto
    1 250,50 $ + maksu 1 $"). A memo cut by the column is shown as stored."""
    kind = MemoKind(kind)
    text = english(kind, params, currency)
    if kind is MemoKind.TEXT or len(text) > MEMO_LENGTH:
        return text[:MEMO_LENGTH]
    if kind in _FIXED:
        return _(_FIXED[kind])
    if kind in _HAND_WORDS:
        return _("Hand %(number)s: %(what)s") % {
            "number": params["hand"],
            "what": _(_HAND_WORDS[kind]),
        }
    if kind in _REVERSAL_WHY:
        facts = {"number": params["hand"], "kind": _posting_kind_label(params["reverses"])}
        if kind is MemoKind.HAND_VOIDED:
            return _("Hand %(number)s undone: reverses %(kind)s") % facts
        return _("Hand %(number)s corrected: reverses %(kind)s") % facts
    if kind in _TAB_SENTENCES:
        return _(_TAB_SENTENCES[kind]) % _tab_facts(params)
    facts = _money(params, currency, None)
    if kind is MemoKind.DEAL:
        return _("Deal (%(kind)s) agreed by %(names)s: %(name)s takes %(amount)s") % {
            # mid-sentence, as the English memo writes it ("even chop")
            "kind": str(DEAL_WORDS[facts["deal"]]).lower(),
            "names": facts["agreed"],
            "name": facts["name"],
            "amount": facts["amount"],
        }
    return _(_PRIZE_SENTENCES[kind]) % facts


def renamed_params(
    kind: str, params: Mapping[str, Any], names: Mapping[str, str], name: str | None = None
) -> dict[str, Any]:
    """A prize memo's parameters with players' names replaced (a deleted account's
    anonymisation): ``name`` is the new name of the posting's own player if it was
    renamed; ``names`` maps old names to new ones, for the players a deal lists as having
    agreed (joined with ", ") and for the memo's name when ``name`` is None. Other kinds,
    and text memos (no known shape: nothing in them is known to be a name), as they were."""
    out = dict(params)
    if kind not in _PRIZE_SENTENCES and kind != MemoKind.DEAL:
        return out
    if isinstance(out.get("name"), str):
        out["name"] = name if name is not None else names.get(out["name"], out["name"])
    if kind == MemoKind.DEAL and isinstance(out.get("agreed"), str):
        out["agreed"] = ", ".join(names.get(n, n) for n in out["agreed"].split(", "))
    return out
