"""The club's tab (issue #34): a session's transfers put on it, payments between players,
and their reversals. The only code that writes tab money.

Each player has one ``TAB`` account (created on first use). The postings:

- ``put_on_tab``: a closed session's settlement transfer "ben pays ann $14", not paid
  tonight, becomes a ``TAB`` posting linked to the session: ben's tab −14, ann's +14. The
  transfers are recomputed here (``ledger.tab.session_transfers``, the settlement page's
  own) and only a transfer the books still ask for, between two players, not ticked paid,
  goes on; a transfer already on the tab is left as it is (a double tap). ``take_off_tab``
  reverses it (the transfer is then open again, to pay tonight or put back on).
- ``report_payment``: "ben paid ann $14" (all or part of a debt, cash or an app) is a
  ``TAB_PAYMENT`` posting, ben's tab +14, ann's −14, written when it is *reported*, with a
  ``TabPayment`` row that says how and by whom. ``confirm_payment`` (the payee, or a
  scorekeeper) only stamps that row: the money moved when it was reported.
  Why a reported payment moves the balance at once: the person who paid says so at the
  moment they paid, and the clearing transfers and the reminders must stop asking them
  for it then, or they would be asked to pay twice while the payee has not looked yet.
  "Reported" stays on the row for everyone to see until the payee confirms it; a payment
  the payee never received is reversed, and the debt is back, in the books, for all.
  The Tab page's forms carry a one-time token (``form_token``, kept on the row): the same
  form submitted twice (a double tap on "Paid in full") records one payment.
- ``reverse_payment``: a ``REVERSAL`` of the payment's posting, leg for leg. Nothing is
  edited: a wrong amount is a reversal and a new payment.

Every write runs in one transaction that locks first: the session row (a session's
transfers) or the payment row (confirming, reversing), so two phones tapping at once
apply one after the other and the second sees what the first did. Listeners registered
with ``on_tab_change`` hear each change inside that transaction (the webhooks' outbox).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.db import transaction
from django.utils import timezone

from games.models import Club, Player
from ledger.errors import SetupError, TabConflict
from ledger.memos import MemoKind, tab_memo
from ledger.models import Account, Posting, SettlementMark, TabPayment
from ledger.postings._common import (
    Actor,
    _check_amount,
    _player_accounts,
    _post,
    actor,
    lock_session,
)
from ledger.tab import KITTY, session_tab, session_transfers

__all__ = [
    "confirm_payment",
    "on_tab_change",
    "put_on_tab",
    "report_payment",
    "reverse_payment",
    "take_off_tab",
]

TabListener = Callable[[int, str, dict[str, Any]], None]
_tab_listeners: list[TabListener] = []


def on_tab_change(listener: TabListener) -> None:
    """Call ``listener(club_id, kind, data)`` inside the transaction of every tab change:
    ``put_on_tab``, ``taken_off_tab``, ``payment_reported``, ``payment_confirmed``,
    ``payment_reversed``."""
    if listener not in _tab_listeners:
        _tab_listeners.append(listener)


def _announce(club_id: int, kind: str, data: dict[str, Any]) -> None:
    for listener in _tab_listeners:
        listener(club_id, kind, data)


def _tab_accounts(club_id: int, player_ids: Iterable[int]) -> dict[int, int]:
    """player id → tab account id, created as a player's own account is."""
    return _player_accounts(club_id, player_ids, Account.Kind.TAB)


def put_on_tab(
    *,
    session_id: int,
    user: Actor,
    transfers: Iterable[tuple[int, int, int]] | None = None,
) -> list[Posting]:
    """Put settlement transfers of a closed session on the club's tab: ``transfers`` as
    (payer id, payee id, amount) the caller saw, or None for every open transfer between
    two players (the whole settlement). Returns the postings written (none for a transfer
    already on the tab). Refuses an open session (``tab_session_open``), a transfer the
    books no longer ask for (``tab_no_transfer``) and one ticked paid tonight
    (``tab_paid_tonight``)."""
    with transaction.atomic():
        session = lock_session(session_id)
        if session.is_open:
            raise TabConflict(
                "tab_session_open",
                "Close the session first: only a final settlement goes on the tab.",
                params={"session": session.name},
            )
        current: dict[tuple[int, int], int] = {
            (int(t.payer), int(t.payee)): t.amount
            for t in session_transfers(session)
            if KITTY not in (t.payer, t.payee)
        }
        on_tab = session_tab(session.pk)
        paid = {
            (m.payer_id, m.payee_id)
            for m in SettlementMark.objects.filter(session=session)
            if current.get((m.payer_id, m.payee_id)) == m.amount
        }
        if transfers is None:
            wanted = [(p, q, a) for (p, q), a in current.items() if (p, q) not in paid]
        else:
            wanted = list(transfers)
        entries = []
        names = dict(session.seats.values_list("player_id", "player__name"))
        for payer, payee, amount in wanted:
            if (payer, payee) in on_tab:
                continue
            if current.get((payer, payee)) != amount:
                raise TabConflict(
                    "tab_no_transfer",
                    "That transfer is no longer part of the settlement.",
                )
            if (payer, payee) in paid:
                raise TabConflict(
                    "tab_paid_tonight",
                    f"{names.get(payer, payer)} → {names.get(payee, payee)} is ticked paid "
                    "tonight: clear the tick first.",
                    params={"payer": names.get(payer, ""), "payee": names.get(payee, "")},
                )
            entries.append((payer, payee, amount))
        if not entries:
            return []
        accounts = _tab_accounts(session.club_id, [p for e in entries for p in e[:2]])
        written = _post(
            session,
            session.club_id,
            [
                (
                    Posting.Kind.TAB,
                    {accounts[payer]: -amount, accounts[payee]: amount},
                    tab_memo(
                        MemoKind.TAB_SESSION,
                        names.get(payer, ""),
                        names.get(payee, ""),
                        session=session.name,
                    ),
                )
                for payer, payee, amount in entries
            ],
            user,
        )
        _announce(
            session.club_id,
            "put_on_tab",
            {
                "session": session.pk,
                "transfers": [{"payer": p, "payee": q, "amount": a} for p, q, a in entries],
            },
        )
    return written


def take_off_tab(*, session_id: int, payer_id: int, payee_id: int, user: Actor) -> Posting | None:
    """Take a session's transfer off the tab again (a reversal of its ``TAB`` posting):
    it is then open on the settlement, to pay tonight or to put back on. None when it was
    not on the tab (a double tap)."""
    with transaction.atomic():
        session = lock_session(session_id)
        found = session_tab(session.pk).get((payer_id, payee_id))
        if found is None:
            return None
        original = Posting.objects.prefetch_related("legs").get(pk=found[1])
        names = dict(session.seats.values_list("player_id", "player__name"))
        memo = tab_memo(
            MemoKind.TAB_TAKEN_OFF,
            names.get(payer_id, ""),
            names.get(payee_id, ""),
            session=session.name,
        )
        [reversal] = _post(
            session,
            session.club_id,
            [
                (
                    Posting.Kind.REVERSAL,
                    {leg.account_id: -leg.amount for leg in original.legs.all()},
                    memo,
                )
            ],
            user,
            reverses=[original],
        )
        _announce(
            session.club_id,
            "taken_off_tab",
            {"session": session.pk, "payer": payer_id, "payee": payee_id, "amount": found[0]},
        )
    return reversal


def _payment_data(payment: TabPayment) -> dict[str, Any]:
    return {
        "payment": payment.pk,
        "payer": payment.payer_id,
        "payee": payment.payee_id,
        "amount": payment.amount,
        "method": payment.method,
        "reported_at": payment.reported_at,
        "confirmed_at": payment.confirmed_at,
    }


def report_payment(
    *,
    club_id: int,
    payer_id: int,
    payee_id: int,
    amount: int,
    method: str,
    user: Actor,
    confirmed: bool = False,
    form_token: str = "",
) -> TabPayment:
    """Record "payer paid payee amount" (minor units, all or part of a debt) by
    ``method`` (a ``TabPayment.Method``): the tab moves now; the payment shows as
    reported until confirmed (``confirmed=True``: the payee reports it themselves).
    ``form_token``: the one-time token of the HTML form; the club's payment already
    recorded with it is returned as it is (nothing written), so a double tap pays once."""
    _check_amount(amount)
    if method not in TabPayment.Method.values:
        raise SetupError("tab_bad_method", "Choose how it was paid.", "method")
    if payer_id == payee_id:
        raise SetupError("tab_same_player", "Choose two different players.", "payee")
    with transaction.atomic():
        # The club row, locked: the club's tab writes apply one after the other.
        club = Club.objects.select_for_update().get(pk=club_id)
        if form_token:
            # Under the club's lock: a second submit waits for the first, then finds it.
            done = TabPayment.objects.filter(club=club, form_token=form_token).first()
            if done is not None:
                return done
        players = dict(
            Player.objects.filter(club=club, pk__in=[payer_id, payee_id]).values_list("pk", "name")
        )
        if len(players) != 2:
            raise SetupError(
                "player_not_on_roster", "The player is not on the club's roster.", "payer"
            )
        accounts = _tab_accounts(club.pk, [payer_id, payee_id])
        [posting] = _post(
            None,
            club.pk,
            [
                (
                    Posting.Kind.TAB_PAYMENT,
                    {accounts[payer_id]: amount, accounts[payee_id]: -amount},
                    tab_memo(
                        MemoKind.TAB_PAYMENT, players[payer_id], players[payee_id], method=method
                    ),
                )
            ],
            user,
        )
        now = timezone.now()
        payment = TabPayment.objects.create(
            club=club,
            posting=posting,
            payer_id=payer_id,
            payee_id=payee_id,
            amount=amount,
            method=method,
            reported_at=now,
            reported_by=actor(user),
            confirmed_at=now if confirmed else None,
            confirmed_by=actor(user) if confirmed else None,
            form_token=form_token,
        )
        _announce(club.pk, "payment_reported", _payment_data(payment))
        if confirmed:
            _announce(club.pk, "payment_confirmed", _payment_data(payment))
    return payment


def _locked_payment(payment_id: int) -> TabPayment:
    return (
        TabPayment.objects.select_for_update(of=("self",))
        .select_related("posting", "posting__reversed_by")
        .get(pk=payment_id)
    )


def confirm_payment(*, payment_id: int, user: Actor) -> TabPayment:
    """The payee (or a scorekeeper) confirms the payment was received. Not money: the
    tab moved when it was reported. Confirming twice returns it unchanged; a reversed
    payment cannot be confirmed (``tab_payment_reversed``)."""
    with transaction.atomic():
        payment = _locked_payment(payment_id)
        if _is_reversed(payment):
            raise TabConflict(
                "tab_payment_reversed",
                "That payment was reversed; record it again if it was made.",
            )
        if payment.confirmed_at is not None:
            return payment
        payment.confirmed_at = timezone.now()
        payment.confirmed_by = actor(user)
        payment.save(update_fields=["confirmed_at", "confirmed_by"])
        _announce(payment.club_id, "payment_confirmed", _payment_data(payment))
    return payment


def _is_reversed(payment: TabPayment) -> bool:
    return Posting.objects.filter(reverses_id=payment.posting_id).exists()


def reverse_payment(*, payment_id: int, user: Actor) -> TabPayment:
    """Reverse a payment (it was never made, or for another amount): a ``REVERSAL`` of
    its posting, leg for leg; the debt is back on the tab. Reversing twice returns it
    unchanged."""
    with transaction.atomic():
        payment = _locked_payment(payment_id)
        if _is_reversed(payment):
            return payment
        original = Posting.objects.prefetch_related("legs").get(pk=payment.posting_id)
        names = dict(
            Player.objects.filter(pk__in=[payment.payer_id, payment.payee_id]).values_list(
                "pk", "name"
            )
        )
        memo = tab_memo(
            MemoKind.TAB_PAYMENT_REVERSED,
            original.memo_params.get("payer", names[payment.payer_id]),
            original.memo_params.get("payee", names[payment.payee_id]),
            method=payment.method,
        )
        _post(
            None,
            payment.club_id,
            [
                (
                    Posting.Kind.REVERSAL,
                    {leg.account_id: -leg.amount for leg in original.legs.all()},
                    memo,
                )
            ],
            user,
            reverses=[original],
        )
        _announce(payment.club_id, "payment_reversed", _payment_data(payment))
    return payment


def payment_reversed(payment: TabPayment) -> bool:
    """Whether the payment has been reversed (one indexed read)."""
    return _is_reversed(payment)
