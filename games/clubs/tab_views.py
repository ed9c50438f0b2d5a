"""The club's Tab pages (issue #34): balances, the fewest transfers that clear them,
payments reported and confirmed, each player's history, and the owner's reminders. Each
clearing transfer carries the payee's "Pay $14 with …" hand-off (``{% pay_links %}``).

Every member reads the tab. A payment is recorded by a scorekeeper, or by a member it
concerns (the payer or the payee; recorded by the payee it is confirmed at once); it is
confirmed by the payee's member or a scorekeeper, and reversed by them (or by the payer
while nobody has confirmed it). The money is ``ledger.postings.tab``'s to write; a
refusal is shown in the reader's words with the form still filled in. Each payment form
carries a one-time token: submitted twice, it records one payment and says so once more.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from games.access import club_for
from games.clubs import handles, tab
from games.clubs.tab_forms import PaymentForm, TabSettingsForm
from games.engine.errors import BourreError
from games.error_pages import require_POST, require_safe
from games.errors import form_error
from games.http import AuthedHttpRequest
from games.messages import render as say
from games.models import Club, Membership, Player, Role
from games.money import format_money
from ledger import postings
from ledger.models import TabPayment, TabSettings


def _page(
    request: AuthedHttpRequest,
    club: Club,
    membership: Membership,
    form: PaymentForm | None = None,
    status: int = 200,
) -> HttpResponse:
    view = tab.tab_view(club, membership)
    context = {
        "club": club,
        "membership": membership,
        "tab": view,
        # The payees' handles for each clearing transfer's "Pay $14 with …" (one query);
        # the note names the day it is paid, in the club's time zone.
        "pay_handles": handles.for_players(t.payee_id for t in view.clearing),
        "pay_note": handles.pay_note(timezone.now(), club.time_zone),
        "form": form or PaymentForm(club=club),
        "is_owner": membership.has_role(Role.OWNER),
    }
    return render(request, "ledger/tab.html", context, status=status)


@login_required
@require_safe
def club_tab(request: AuthedHttpRequest, club_id: int) -> HttpResponse:
    club, membership = club_for(request.user, club_id)
    return _page(request, club, membership)


@login_required
@require_POST
def tab_pay(request: AuthedHttpRequest, club_id: int) -> HttpResponse:
    """Record "payer paid payee amount" (the whole debt or a part)."""
    club, membership = club_for(request.user, club_id)
    form = PaymentForm(request.POST, club=club)
    if not form.is_valid():
        return _page(request, club, membership, form, status=422)
    payer: Player = form.cleaned_data["payer"]
    payee: Player = form.cleaned_data["payee"]
    if not tab.may_record(membership, payer, payee):
        raise PermissionDenied
    try:
        payment = postings.report_payment(
            club_id=club.pk,
            payer_id=payer.pk,
            payee_id=payee.pk,
            amount=form.cleaned_data["amount"],
            method=form.cleaned_data["method"],
            user=request.user,
            # The payee saying they were paid needs nobody else's word.
            confirmed=payee.user_id == request.user.pk,
            # A double tap or a resent form finds the payment this token recorded.
            form_token=form.cleaned_data["once"],
        )
    except BourreError as error:
        form_error(form, error)
        return _page(request, club, membership, form, status=422)
    # Said from the payment recorded (on a second submit, the first one's).
    facts = {
        "payer": payment.payer.name,
        "payee": payment.payee.name,
        "amount": format_money(payment.amount, club.currency),
    }
    if payment.confirmed:
        messages.success(request, _("%(payer)s paid %(payee)s %(amount)s: confirmed.") % facts)
    else:
        messages.success(
            request,
            _("%(payer)s paid %(payee)s %(amount)s: reported; %(payee)s confirms it.") % facts,
        )
    return redirect("club_tab", club.pk)


def _payment(club: Club, payment_id: int) -> TabPayment:
    return get_object_or_404(
        TabPayment.objects.select_related("payer", "payee"), pk=payment_id, club=club
    )


@login_required
@require_POST
def tab_payment_action(
    request: AuthedHttpRequest, club_id: int, payment_id: int, action: str
) -> HttpResponse:
    """Confirm or reverse a payment."""
    club, membership = club_for(request.user, club_id)
    payment = _payment(club, payment_id)
    facts = {
        "payer": payment.payer.name,
        "payee": payment.payee.name,
        "amount": format_money(payment.amount, club.currency),
    }
    try:
        if action == "confirm":
            if not tab.may_confirm(payment, membership):
                raise PermissionDenied
            postings.confirm_payment(payment_id=payment.pk, user=request.user)
            said = _("%(payer)s paid %(payee)s %(amount)s: confirmed.")
        elif action == "reverse":
            if not tab.may_reverse(payment, membership):
                raise PermissionDenied
            postings.reverse_payment(payment_id=payment.pk, user=request.user)
            said = _(
                "%(payer)s's payment of %(amount)s to %(payee)s is reversed: the debt is back."
            )
        else:
            raise Http404("No such action")
    except BourreError as error:
        messages.error(request, say(error))
    else:
        messages.success(request, said % facts)
    back = request.POST.get("back", "")
    if back == "player":
        return redirect("tab_player", club.pk, payment.payer_id)
    return redirect("club_tab", club.pk)


@login_required
@require_safe
def tab_player(request: AuthedHttpRequest, club_id: int, player_id: int) -> HttpResponse:
    """One player's tab: every session, payment and reversal, newest first."""
    club, membership = club_for(request.user, club_id)
    player = get_object_or_404(Player, pk=player_id, club=club)
    lines = tab.player_history(club, player)
    payments = {
        p.pk: p
        for p in TabPayment.objects.filter(
            pk__in=[h.line.payment_id for h in lines if h.line.payment_id]
        ).select_related("payer", "payee")
    }
    rows = [
        {
            "h": h,
            "payment": payments.get(h.line.payment_id or 0),
            "can_confirm": h.line.status == "reported"
            and tab.may_confirm(payments[h.line.payment_id or 0], membership),
        }
        for h in lines
    ]
    context = {
        "club": club,
        "membership": membership,
        "player": player,
        "balance": lines[0].running if lines else 0,
        "rows": rows,
    }
    return render(request, "ledger/tab_player.html", context)


@login_required
def tab_settings(request: AuthedHttpRequest, club_id: int) -> HttpResponse:
    """The owner's reminder settings (opt-in)."""
    club, membership = club_for(request.user, club_id, Role.OWNER)
    current = TabSettings.objects.filter(club=club).first() or TabSettings(club=club)
    form = TabSettingsForm(request.POST or None, instance=current, club=club)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("Tab reminders saved."))
        return redirect(reverse("club_tab", args=[club.pk]))
    return render(
        request,
        "ledger/tab_settings.html",
        {"club": club, "membership": membership, "form": form},
        status=422 if form.errors else 200,
    )
