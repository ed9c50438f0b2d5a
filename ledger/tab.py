"""Reading the club's tab (issue #34): balances, the transfers that clear them, history.

The tab is what the club's players owe each other across sessions. Its money lives in the
ledger like any other (``ledger.models``: one ``TAB`` account per player; ``TAB``,
``TAB_PAYMENT`` and ``REVERSAL`` postings, written by ``ledger.postings.tab``), so a
balance is a sum of legs, and the balances of a club sum to zero.

- ``tab_balances``: player id → balance (positive: the player is owed; negative: owes).
- ``clearing_transfers``: the fewest transfers that clear every balance at once, by the
  session settlement's own algorithm (``ledger.settlement.settle_balances``, exact up to
  its ``EXACT_LIMIT``), with its sentences.
- ``settlement_balances`` / ``session_transfers``: a session's settlement as the session
  page shows it (the pot or the club's kitty as one more party, ``KITTY``), so that the
  transfers put on the tab are those the page showed, computed by the same code.
- ``session_tab``: which of a session's transfers are on the tab now.
- ``history``: the tab's legs, oldest first, as ``TabLine`` values (the page, the API's
  paginated history and its CSV read the same rows).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q, Sum

from games.models import GameSession
from ledger.models import Account, Leg, Posting, TabPayment
from ledger.settlement import Transfer, settle_balances

__all__ = [
    "KITTY",
    "TabLine",
    "clearing_transfers",
    "history",
    "session_tab",
    "session_transfers",
    "settlement_balances",
    "tab_balances",
]

KITTY = "kitty"  # the settlement party for money held by the pot or the club's kitty

# The postings that move tab accounts.
TAB_KINDS = (Posting.Kind.TAB, Posting.Kind.TAB_PAYMENT)


def settlement_balances(session: GameSession) -> dict[int | str, int]:
    """A session's settlement parties: player id → net (non-zero), and ``KITTY`` for what
    the pot and the club's kitty gained, so that they sum to zero."""
    balances: dict[int | str, int] = {pid: x for pid, x in session.net_by_player().items() if x}
    held = -sum(balances.values())
    if held:
        balances[KITTY] = held
    return balances


def session_transfers(session: GameSession) -> list[Transfer]:
    """The session's settlement transfers (explanations in English): what its page shows."""
    return settle_balances(settlement_balances(session))


def session_tab(session_id: int) -> dict[tuple[int, int], tuple[int, int]]:
    """(payer id, payee id) → (amount, posting id) of each of the session's transfers on
    the tab now (put on it and not taken off). One query."""
    legs = Leg.objects.filter(
        posting__session_id=session_id,
        posting__kind=Posting.Kind.TAB,
        posting__reversed_by__isnull=True,
    ).values_list("posting_id", "account__player_id", "amount")
    sides: dict[int, dict[str, int]] = {}
    for posting_id, player_id, amount in legs:
        side = sides.setdefault(posting_id, {})
        side["payee" if amount > 0 else "payer"] = player_id
        side["amount"] = abs(amount)
    return {(s["payer"], s["payee"]): (s["amount"], pid) for pid, s in sides.items()}


def tab_balances(club_id: int, player_ids: list[int] | None = None) -> dict[int, int]:
    """player id → tab balance (positive: is owed; negative: owes), for every player
    whose tab has moved (zeros included) or only those of ``player_ids``. One query."""
    legs = Leg.objects.filter(account__club_id=club_id, account__kind=Account.Kind.TAB)
    if player_ids is not None:
        legs = legs.filter(account__player_id__in=player_ids)
    return dict(
        legs.order_by()
        .values("account__player_id")
        .annotate(total=Sum("amount"))
        .values_list("account__player_id", "total")
    )


def clearing_transfers(
    balances: Mapping[int, int],
    names: Mapping[int, str] | None = None,
    format_amount: Callable[[int], str] = str,
    phrases: Mapping[str, str] | None = None,
) -> list[Transfer]:
    """The fewest transfers that bring every tab balance to zero (the settlement's
    algorithm: exact up to ``ledger.settlement.EXACT_LIMIT`` balances), each with its
    sentence (``names``, ``format_amount`` and ``phrases`` as ``settle_balances``)."""
    parties: dict[int | str, int] = {pid: x for pid, x in balances.items() if x}
    named: dict[int | str, str] | None = (
        {pid: name for pid, name in names.items()} if names is not None else None
    )
    return settle_balances(parties, names=named, format_amount=format_amount, phrases=phrases)


@dataclass(frozen=True)
class TabLine:
    """One leg of the tab: what one posting did to one player's tab."""

    leg_id: int
    posting_id: int
    at: datetime
    kind: str  # a Posting.Kind: tab, tab_payment, reversal
    player_id: int
    player: str
    amount: int  # + the player is owed more (or owes less); − the other way
    memo_kind: str
    memo_params: Mapping[str, Any]
    memo: str  # the English sentence (CSV, API)
    session_id: int | None
    payment_id: int | None  # the payment this leg is (or reverses)
    status: str  # a payment's: reported, confirmed, reversed; "" otherwise
    reversed: bool  # this posting has been reversed (taken off, a payment undone)


def payment_status(payment: TabPayment | None, reversed_: bool) -> str:
    if payment is None:
        return ""
    if reversed_:
        return "reversed"
    return "confirmed" if payment.confirmed_at is not None else "reported"


def history(
    club_id: int,
    player_id: int | None = None,
    ids: list[int] | None = None,
) -> Iterator[TabLine]:
    """The tab's legs, oldest first (by leg id): the club's, or one player's, or those
    of ``ids`` (a page the API's cursor chose). Three queries, whatever the page."""
    legs = (
        Leg.objects.filter(account__club_id=club_id, account__kind=Account.Kind.TAB)
        .select_related("posting", "account__player")
        .order_by("id")
    )
    if player_id is not None:
        legs = legs.filter(account__player_id=player_id)
    if ids is not None:
        legs = legs.filter(id__in=ids)
    rows = list(legs)
    posting_ids = {leg.posting_id for leg in rows}
    reversed_ids = set(
        Posting.objects.filter(reverses_id__in=posting_ids).values_list("reverses_id", flat=True)
    )
    # A payment's posting, or the posting a reversal undoes.
    wanted = posting_ids | {leg.posting.reverses_id for leg in rows if leg.posting.reverses_id}
    payments = {p.posting_id: p for p in TabPayment.objects.filter(posting_id__in=wanted)}
    for leg in rows:
        posting = leg.posting
        payment = payments.get(posting.pk) or payments.get(posting.reverses_id or 0)
        is_reversed = posting.pk in reversed_ids
        yield TabLine(
            leg_id=leg.pk,
            posting_id=posting.pk,
            at=posting.created_at,
            kind=posting.kind,
            player_id=leg.account.player_id or 0,
            player=leg.account.player.name if leg.account.player else "",
            amount=leg.amount,
            memo_kind=posting.memo_kind,
            memo_params=posting.memo_params,
            memo=posting.memo,
            session_id=posting.session_id,
            payment_id=payment.pk if payment else None,
            status=payment_status(payment, is_reversed or posting.reverses_id is not None),
            reversed=is_reversed,
        )


def open_payments(club_id: int) -> list[TabPayment]:
    """Payments reported and not yet confirmed nor reversed, oldest first."""
    return list(
        TabPayment.objects.filter(
            Q(club_id=club_id, confirmed_at__isnull=True, posting__reversed_by__isnull=True)
        )
        .select_related("payer", "payee")
        .order_by("id")
    )
