"""Reading the books: a session's nets, stacks, pot and the club kitty."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypedDict

from django.db.models import F, Prefetch, Q, QuerySet, Sum, Value, Window
from django.db.models.functions import Coalesce, RowNumber

from games.models import GameSession, Seat, Tournament
from ledger.models import (
    Account,
    Leg,
    Posting,
    PrizeAccount,
    PrizeLeg,
    PrizePosting,
)

if TYPE_CHECKING:  # django-stubs' helper is a test extra: `make run` does not install it
    from django_stubs_ext import WithAnnotations

# Postings that move chips between the table and the bank: part of a player's stack, not
# of what they won or lost at the table.
BANK_KINDS = (Posting.Kind.BUY_IN, Posting.Kind.CASH_OUT)
TABLE_KINDS = tuple(k for k in Posting.Kind.values if k not in BANK_KINDS)


def ledger_sums(session: GameSession, kinds: Iterable[str]) -> dict[int, int]:
    """player id → sum of the session's player legs of these posting kinds, summed from
    the ledger itself (every seat, zeros included). This is what the session's running
    totals must equal; ``check_invariants`` compares the two.

    One query: a zero for every seat, united with the sums of this session's legs (found
    through the postings' session index, so the cost is the session's size, not the
    players' whole history)."""
    zeros = Seat.objects.filter(session=session).order_by().values_list("player_id", Value(0))
    sums = (
        Leg.objects.filter(
            posting__session=session,
            posting__kind__in=list(kinds),
            account__kind=Account.Kind.PLAYER,
        )
        .order_by()
        .values("account__player_id")
        .annotate(total=Sum("amount"))
        .values_list("account__player_id", "total")
    )
    out: dict[int, int] = {}
    for player_id, amount in zeros.union(sums, all=True):
        out[player_id] = out.get(player_id, 0) + amount
    return out


def _books(session: GameSession) -> GameSession:
    return GameSession.objects.only("nets", "stacks").get(pk=session.pk)


def session_balances(session: GameSession) -> dict[int, int]:
    """player id → net won (+) or lost (−) at the table in this session, for every seated
    player; buy-ins and cash-outs are not counted. One small query (the session's running
    totals, so a long session costs no more than a short one); a page that has just read
    the session row can use ``session.net_by_player()`` instead."""
    return _books(session).net_by_player()


def player_stacks(session: GameSession) -> dict[int, int]:
    """player id → chips in front of the player: buy-ins − cash-outs + net. One query."""
    return _books(session).stack_by_player()


def pot_balance(session: GameSession) -> int:
    return Leg.objects.filter(account__session=session, account__kind=Account.Kind.POT).aggregate(
        s=Coalesce(Sum("amount"), 0)
    )["s"]


def kitty_balance(session: GameSession) -> int:
    """What the club's carry account gained from this session: leftovers sent to the club
    minus the carried pot pulled in. With it the session's books balance:
    Σ session_balances + pot_balance + kitty_balance == 0, so a settlement that must sum
    to zero can show the club's kitty as one more party."""
    # A tournament table's dead pot goes to the bank instead (close_session), and a broken
    # table's pot moves through the bank to the tables its players join (move_pot):
    # count both.
    return (
        Leg.objects.filter(posting__session=session)
        .filter(
            Q(account__kind=Account.Kind.CARRY)
            | Q(
                account__kind=Account.Kind.BANK,
                posting__kind__in=[Posting.Kind.CARRY_OUT, Posting.Kind.CARRY_IN],
            )
        )
        .aggregate(s=Coalesce(Sum("amount"), 0))["s"]
    )


def prize_balances(t: Tournament) -> dict[str, Any]:
    """{"pool", "house", "entrants": {player id: balance}} from the prize ledger, one query."""
    out: dict[str, Any] = {"pool": 0, "house": 0, "entrants": {}}
    rows = (
        PrizeLeg.objects.filter(account__tournament=t)
        .order_by()
        .values_list("account__kind", "account__player_id")
        .annotate(total=Sum("amount"))
    )
    for kind, player_id, total in rows:
        if kind == PrizeAccount.Kind.ENTRANT:
            out["entrants"][player_id] = total
        else:
            out[kind] = total
    return out


class _Numbered(TypedDict):
    number: int  # the posting's place in its tournament's ledger


def prize_postings(t: Tournament) -> QuerySet[WithAnnotations[PrizePosting, _Numbered]]:
    """The prize ledger, oldest first, legs prefetched (two queries). Each posting has a
    ``number``: its place in this tournament's ledger (#1, #2, …), whatever other
    tournaments wrote in between (the primary key is global)."""
    legs = PrizeLeg.objects.select_related("account").order_by("id")
    return (
        PrizePosting.objects.filter(tournament=t)
        .annotate(number=Window(RowNumber(), order_by=F("id").asc()))
        .order_by("id")
        .prefetch_related(Prefetch("legs", queryset=legs))
    )
