"""Reads for the club's Tab pages (issue #34), in the reader's language and the club's money.

The ledger holds the tab (``ledger.tab``: balances, the clearing transfers, the history);
this module names the players, writes the amounts the reader's way, translates the
transfers' sentences (the session settlement's, ``ledger.settlement.PHRASES``) and says
who may confirm or reverse which payment.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils.translation import gettext

from games.models import Club, Membership, Player, Role
from games.money import format_money
from ledger import memos
from ledger.models import TabPayment
from ledger.settlement import PHRASES
from ledger.tab import TabLine, clearing_transfers, history, open_payments, tab_balances

__all__ = [
    "Balance",
    "Clearing",
    "HistoryLine",
    "Pending",
    "TabView",
    "player_history",
    "reminder_text",
    "tab_view",
]


@dataclass(frozen=True)
class Balance:
    player_id: int
    name: str
    amount: int  # + is owed; − owes
    mine: bool  # the reader's own player


@dataclass(frozen=True)
class Clearing:
    """One of the fewest transfers that clear the tab."""

    payer_id: int
    payee_id: int
    payer: str
    payee: str
    amount: int
    explanation: str
    reminder: str  # the "copy a reminder" text
    can_record: bool  # the reader may record it paid


@dataclass(frozen=True)
class Pending:
    """A payment reported and not yet confirmed."""

    payment: TabPayment
    can_confirm: bool
    can_reverse: bool


@dataclass(frozen=True)
class TabView:
    balances: list[Balance]
    clearing: list[Clearing]
    pending: list[Pending]
    mine: Balance | None
    players: list[Player]  # the roster, for the payment form
    can_record_any: bool


@dataclass(frozen=True)
class HistoryLine:
    line: TabLine
    text: str  # the memo in the reader's language
    at: datetime
    running: int  # the player's tab after this line


def _phrases() -> dict[str, str]:
    return {key: gettext(text) for key, text in PHRASES.items()}


def reminder_text(club: Club, payer: str, payee: str, amount: int) -> str:
    """The "copy a reminder" text for one transfer (a player without an account)."""
    return gettext(
        "Reminder from %(club)s: %(payer)s, you owe %(payee)s %(amount)s on the club's tab."
    ) % {
        "club": club.name,
        "payer": payer,
        "payee": payee,
        "amount": format_money(amount, club.currency),
    }


def _is_scorekeeper(membership: Membership) -> bool:
    return membership.has_role(Role.SCOREKEEPER)


def may_confirm(payment: TabPayment, membership: Membership) -> bool:
    """The payee's member, or a scorekeeper (or owner)."""
    return _is_scorekeeper(membership) or payment.payee.user_id == membership.user_id


def may_reverse(payment: TabPayment, membership: Membership) -> bool:
    """As confirming; the payer too while nobody has confirmed it (a wrong tap)."""
    return may_confirm(payment, membership) or (
        payment.confirmed_at is None and payment.payer.user_id == membership.user_id
    )


def may_record(membership: Membership, payer: Player, payee: Player) -> bool:
    """A scorekeeper records any payment; a member one they made or received."""
    return _is_scorekeeper(membership) or membership.user_id in (payer.user_id, payee.user_id)


def tab_view(club: Club, membership: Membership) -> TabView:
    """Everything the Tab page shows: four queries."""
    players = list(Player.objects.filter(club=club).order_by("name", "id"))
    by_id = {p.pk: p for p in players}
    amounts = tab_balances(club.pk)
    balances = [
        Balance(pid, by_id[pid].name, amount, by_id[pid].user_id == membership.user_id)
        for pid, amount in sorted(amounts.items(), key=lambda i: (-i[1], by_id[i[0]].name))
        if amount
    ]
    names = {p.pk: p.name for p in players}
    clearing = [
        Clearing(
            payer_id=int(t.payer),
            payee_id=int(t.payee),
            payer=names[int(t.payer)],
            payee=names[int(t.payee)],
            amount=t.amount,
            explanation=t.explanation,
            reminder=reminder_text(club, names[int(t.payer)], names[int(t.payee)], t.amount),
            can_record=may_record(membership, by_id[int(t.payer)], by_id[int(t.payee)]),
        )
        for t in clearing_transfers(
            amounts,
            names=names,
            format_amount=lambda a: format_money(a, club.currency),
            phrases=_phrases(),
        )
    ]
    pending = [
        Pending(p, may_confirm(p, membership), may_reverse(p, membership))
        for p in open_payments(club.pk)
    ]
    mine = next((b for b in balances if b.mine), None)
    if mine is None:
        own = next((p for p in players if p.user_id == membership.user_id), None)
        mine = Balance(own.pk, own.name, 0, True) if own is not None else None
    return TabView(
        balances=balances,
        clearing=clearing,
        pending=pending,
        mine=mine,
        players=[p for p in players if p.archived_at is None or amounts.get(p.pk)],
        can_record_any=_is_scorekeeper(membership),
    )


def player_history(club: Club, player: Player) -> list[HistoryLine]:
    """The player's tab, newest first, each line with the running balance after it."""
    running = 0
    out = []
    for line in history(club.pk, player_id=player.pk):
        running += line.amount
        out.append(
            HistoryLine(
                line=line,
                text=memos.shown(line.memo_kind, line.memo_params, club.currency),
                at=line.at,
                running=running,
            )
        )
    out.reverse()
    return out


def player_balance(club_id: int, player_id: int) -> int:
    """One player's tab (one query)."""
    return tab_balances(club_id, [player_id]).get(player_id, 0)


def member_tab(club_id: int, user_id: int) -> int | None:
    """The tab of the member's own player in the club; None when no player is theirs."""
    player_id = (
        Player.objects.filter(club_id=club_id, user_id=user_id).values_list("pk", flat=True).first()
    )
    return None if player_id is None else player_balance(club_id, player_id)
