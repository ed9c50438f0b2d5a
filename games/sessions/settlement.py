"""Settlement page and CSV downloads of a session's money.

Transfers are recomputed from the ledger every time (`ledger.settlement`); a
`SettlementMark` only remembers that one of them was paid, with the amount it had then.
A mark whose transfer the books no longer ask for (a hand recorded or corrected after
the tick) is listed apart, "marked paid before the books changed", until it is cleared:
the transfers do not count it, so nobody pays twice without being told. A mark on a
transfer that is still there for another amount says what it leaves to pay (or what was
paid too much) and can be cleared on its row.
A transfer between two players of a closed session can instead go on the club's tab
(issue #34: ``settlement_tab``, one transfer or every unpaid one; ``ledger.postings.tab``
says what that writes); it is then neither paid nor open here, and the Tab page
(``games.clubs.tab_views``) follows it.
The page, its messages and the "Copy as text" sentence are in the reader's language; the
CSV headers and values stay English (column names are data, read by spreadsheets).

Once the session is closed, each transfer still to pay carries the payment hand-off
(issue #34 item 3): "Pay $14 with Venmo" links built from the payee's saved handles, with
the session's day as the note (``pay_context``; games/templatetags/pay.py).
"""

from __future__ import annotations

import html
from functools import partial
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone, translation
from django.utils.html import strip_tags
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import timezones
from games.access import session_for
from games.engine.errors import BourreError
from games.error_pages import require_POST, require_safe
from games.http import AuthedHttpRequest
from games.messages import render as say
from games.models import GameSession, Role
from games.money import PLAIN, format_money
from games.sessions.selectors import earlier_marks, mark_target, pay_context, settlement_rows
from games.templatetags.bourre import transfer_sentence
from ledger import exports, postings
from ledger.exports import LEDGER_COLUMNS, major, session_ledger_rows, stream_csv


@login_required
@require_safe
def settlement(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    session, membership = session_for(request.user, session_id)
    rows, names = settlement_rows(session)
    balances = session.net_by_player()
    nets = sorted(
        ((names.get(pid, str(pid)), amount) for pid, amount in balances.items()),
        key=lambda item: (-item[1], item[0]),
    )
    # "Copy as text": the page's own sentences, without their markup.
    sentences = [html.unescape(strip_tags(transfer_sentence(r, session))) for r in rows]
    template = "ledger/settlement.html"
    if request.htmx:
        template += "#transfers"
    context = {
        "session": session,
        "membership": membership,
        "rows": rows,
        "earlier": earlier_marks(session, rows, names),
        "nets": nets,
        "share_text": _("%(session)s: %(transfers)s.")
        % {
            "session": session.display_name,
            "transfers": "; ".join(sentences) or _("nobody owes anything"),
        },
        "can_mark": membership.has_role(Role.SCOREKEEPER),
        "share_url": request.build_absolute_uri(),
        **_tab_flags(rows),
    } | pay_context(session, rows)
    return render(request, template, context)


def _tab_flags(rows: list[dict[str, Any]]) -> dict[str, bool]:
    """Whether any transfer can still go on the tab, and whether any is on it."""
    return {
        "tabbable": any(r["tabbable"] for r in rows),
        "on_tab": any(r["on_tab"] for r in rows),
    }


def _player_id(value: str) -> int | None:
    return int(value) if value.isdigit() else None


@login_required
@require_POST
def settlement_tab(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    """Put one transfer (``action=put``, with payer, payee and the amount shown) or every
    unpaid one (``action=all``) on the club's tab, or take one off (``action=off``).
    Scorekeepers; a refusal is shown on the settlement page in the reader's words."""
    session, _membership = session_for(request.user, session_id, Role.SCOREKEEPER)
    action = request.POST.get("action", "")
    payer = _player_id(request.POST.get("payer", ""))
    payee = _player_id(request.POST.get("payee", ""))
    amount = _player_id(request.POST.get("amount", ""))
    try:
        if action == "all":
            written = postings.put_on_tab(session_id=session.pk, user=request.user)
            messages.success(
                request,
                ngettext(
                    "%(count)s transfer is on the club's tab.",
                    "%(count)s transfers are on the club's tab.",
                    len(written),
                )
                % {"count": len(written)},
            )
        elif action in ("put", "off") and payer and payee and amount:
            if action == "put":
                postings.put_on_tab(
                    session_id=session.pk, user=request.user, transfers=[(payer, payee, amount)]
                )
                said = _("%(payer)s → %(payee)s %(amount)s: on the club's tab.")
            else:
                postings.take_off_tab(
                    session_id=session.pk, payer_id=payer, payee_id=payee, user=request.user
                )
                said = _("%(payer)s → %(payee)s %(amount)s: taken off the tab.")
            names = dict(session.seats.values_list("player_id", "player__name"))
            messages.success(
                request,
                said
                % {
                    "payer": names.get(payer, ""),
                    "payee": names.get(payee, ""),
                    "amount": format_money(amount, session.currency),
                },
            )
        else:
            messages.error(request, _("That transfer is no longer part of the settlement."))
    except BourreError as error:
        messages.error(request, say(error))
    return redirect("session_settlement", session.pk)


@login_required
@require_POST
def settlement_mark(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    """Tick or untick "paid" on one transfer (scorekeepers)."""
    session, membership = session_for(request.user, session_id, Role.SCOREKEEPER)
    payer, payee = request.POST.get("payer", ""), request.POST.get("payee", "")
    paid = request.POST.get("paid") in ("1", "on", "true")
    target = mark_target(session, payer, payee, paid)
    if target is None:
        messages.error(request, _("That transfer is no longer part of the settlement."))
    else:
        refused = None
        if target.markable:
            try:
                postings.mark_transfer_paid(
                    session_id=session.pk,
                    payer_id=target.payer_id,
                    payee_id=target.payee_id,
                    amount=target.amount,
                    paid=paid,
                    user=request.user,
                )
            except BourreError as error:  # on the tab meanwhile
                refused = say(error)
                messages.error(request, refused)
        if not request.htmx and refused is None:
            if paid:
                said = _("%(payer)s → %(payee)s %(amount)s: marked paid.")
            elif target.clears:
                said = _("%(payer)s → %(payee)s %(amount)s: mark cleared.")
            else:
                said = _("%(payer)s → %(payee)s %(amount)s: marked not paid yet.")
            money = format_money(target.amount, session.currency)
            who = target.who
            messages.success(
                request, said % {"payer": who["payer"], "payee": who["payee"], "amount": money}
            )
    if request.htmx:
        rows, names = settlement_rows(session)
        return render(
            request,
            "ledger/settlement.html#transfers",
            {
                "session": session,
                "membership": membership,
                "rows": rows,
                "earlier": earlier_marks(session, rows, names),
                "can_mark": True,
                **_tab_flags(rows),
            }
            | pay_context(session, rows),
        )
    return redirect("session_settlement", session.pk)


def _csv_response(session: GameSession, what: str) -> tuple[HttpResponse, Any]:
    filename = f"{slugify(session.name) or 'session'}-{session.pk}-{what}.csv"
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response, exports.writer(response)


@login_required
@require_safe
def settlement_csv(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    session, _membership = session_for(request.user, session_id)
    # Values stay English in the CSV (the explanations, the pot's name and the amounts).
    with translation.override(PLAIN):
        rows, _names = settlement_rows(session)
    response, writer = _csv_response(session, "settlement")
    # Amounts in the major unit ("0.25") with the ISO code; times with the club's offset
    # (ledger.exports says why).
    writer.writerow(["payer", "payee", "amount", "currency", "paid", "paid_at", "explanation"])
    for r in rows:
        writer.writerow(
            [
                r["payer"],
                r["payee"],
                major(r["amount"], session.currency),
                session.currency.code,
                "yes" if r["paid"] else "no",
                timezones.iso(r["mark"].paid_at) if r["paid"] else "",
                r["explanation"],
            ]
        )
    return response


@login_required
@require_safe
def ledger_csv(request: AuthedHttpRequest, session_id: int) -> StreamingHttpResponse:
    """Every posting of the session with its legs: one row per leg, streamed from plain
    column values (``ledger.exports``), so a long session costs flat memory."""
    session, _membership = session_for(request.user, session_id)
    filename = f"{slugify(session.name) or 'session'}-{session.pk}-ledger.csv"
    # The rows are written after the view returns (and the club's zone is reset): the
    # zone active now goes with them.
    when = partial(timezones.iso, name=timezone.get_current_timezone_name())
    response = StreamingHttpResponse(
        stream_csv(
            LEDGER_COLUMNS,
            session_ledger_rows(session.pk, session.club_id, session.currency, when),
        ),
        content_type="text/csv; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
