"""Correcting any earlier hand: the form, the confirmation, the save.

One page, three steps, all plain POSTs (``ledger.postings.correct_hand`` does the work):

1. the record form, filled in with what the hand said (``GET``);
2. the confirmation: every player's change of net and the hands that change
   (``correct_hand(apply=False)``; a later hand only when what a player sees of it
   changes, the others counted as "N later hands unchanged"); when the new chain makes a later hand impossible,
   that hand's form instead, with which hand and why, to fix in the same flow;
3. the save (``step=confirm``), against the version the confirmation was made from.

What is decided so far travels in a hidden ``pending`` field (JSON: the corrected entry
and the fixes of later hands); it is only ever an entry like the record form's, and the
ledger verifies everything again when it saves.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.access import hand_for
from games.converters import parse_id
from games.http import AuthedHttpRequest
from games.messages import render as render_refusal
from games.messages import render_error
from games.models import GameSession, Hand, Membership, Role
from games.sessions.forms import HandForm
from games.sessions.views import _closed_response, _record_context
from games.templatetags.bourre import result_line
from ledger import postings
from ledger.postings.corrections import Correction, table_part


def _state_of(hand: Hand) -> dict[str, Any]:
    """The table as the hand's record saw it (names, dealer, pot, rules)."""
    record = hand.record or {}
    return {
        "players": list(record.get("players") or []),
        "dealer": record.get("dealer"),
        "carry": record.get("carry", 0),
        "excused": list(record.get("excused") or []),
        "rules": record.get("rules") or {},
        "version": hand.session.version,
    }


def _pending(request: AuthedHttpRequest) -> dict[str, Any]:
    try:
        data = json.loads(request.POST.get("pending") or "{}")
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    fixes = data.get("fixes")
    if not isinstance(fixes, dict):
        fixes = {}
    return {"entry": data.get("entry"), "fixes": {str(k): v for k, v in fixes.items()}}


def _page(
    request: AuthedHttpRequest,
    hand: Hand,
    membership: Membership,
    form: HandForm,
    target: Hand,
    pending: dict[str, Any],
    status: int = 200,
    **extra: Any,
) -> HttpResponse:
    session = hand.session
    context = _record_context(session, membership, form)
    context.update(
        hand=hand,
        target=target,
        pending=json.dumps(pending),
        version=request.POST.get("version") or session.version,
        **extra,
    )
    return render(request, "games/hand_correct.html", context, status=status)


def _hand(session: GameSession, number: int) -> Hand | None:
    return session.hands.filter(number=number, status=Hand.Status.RECORDED).first()


@login_required
def hand_correct(request: AuthedHttpRequest, hand_id: int) -> HttpResponse:
    hand, membership = hand_for(request.user, hand_id, Role.SCOREKEEPER)
    session = hand.session
    if not session.is_open:
        return _closed_response(request, session)
    if request.method != "POST":
        form = HandForm(state=_state_of(hand), prefill=table_part(hand.record))
        return _page(request, hand, membership, form, hand, {"entry": None, "fixes": {}})

    pending = _pending(request)
    version_text = request.POST.get("version", "")
    version = parse_id(version_text)
    if request.POST.get("step") != "confirm":
        refused = _take_form(request, hand, membership, pending)
        if refused is not None:
            return refused
    if pending["entry"] is None:
        pending["entry"] = table_part(hand.record)
    apply = request.POST.get("step") == "confirm"
    try:
        correction = postings.correct_hand(
            session_id=session.pk,
            number=int(hand.number or 0),
            entry=pending["entry"],
            fixes={n: e for k, e in pending["fixes"].items() if (n := parse_id(k)) is not None},
            expected_version=version,
            user=request.user,
            apply=apply,
            reason=request.POST.get("reason", "")[:200],
        )
    except postings.StaleState:
        messages.error(
            request,
            _(
                "The table moved on while hand %(number)s was being corrected (a hand was "
                "recorded or something changed). Nothing was changed: start the correction "
                "again."
            )
            % {"number": hand.number},
        )
        return redirect("hand_correct", hand.pk)
    except postings.ChainBroken as broken:
        return _broken(request, hand, membership, pending, broken)
    except postings.SessionClosed:
        session.refresh_from_db()
        return _closed_response(request, session)
    except postings.CorrectionRefused as refused:
        messages.error(
            request,
            _("Hand %(number)s cannot be corrected: %(why)s.")
            % {"number": hand.number, "why": render_refusal(refused)},
        )
        return redirect("hand_detail", hand.pk)
    if apply:
        messages.success(request, _corrected_text(hand, correction))
        return redirect("hand_detail", hand.pk)
    return render(
        request,
        "games/hand_correct_confirm.html",
        {
            "session": session,
            "membership": membership,
            "hand": hand,
            "correction": correction,
            "changes": sorted(correction.changes.items(), key=lambda kv: -abs(kv[1])),
            **_hands_shown(hand, correction),
            "pending": json.dumps(pending),
            "reason": request.POST.get("reason", "")[:200],
        },
    )


def _hands_shown(hand: Hand, correction: Correction) -> dict[str, Any]:
    """The hands the confirmation lists, and how many later hands it leaves out: the
    corrected ones, and a later hand only when its money or its result line changes. A
    later hand re-settled without a difference a player could see (its stored state
    moved: who was excused, the hand's ``before``) would read "was ann wins $1.50 — now
    ann wins $1.50", twenty-two times, pushing "Save the correction" two scrolls down;
    it is counted in "N later hands unchanged" instead."""
    cur = hand.session.currency
    shown = [
        c
        for c in correction.hands
        if c.corrected
        or c.money_changed
        or result_line(c.old_result, cur) != result_line(dict(c.new_result), cur)
    ]
    later = (
        Hand.objects.filter(
            session_id=hand.session_id, status=Hand.Status.RECORDED, number__gt=hand.number
        ).count()
        if hand.number is not None
        else 0
    )
    listed_later = sum(1 for c in shown if c.number > (hand.number or 0))
    return {"hands_shown": shown, "later_unchanged": later - listed_later}


def _take_form(
    request: AuthedHttpRequest, hand: Hand, membership: Membership, pending: dict[str, Any]
) -> HttpResponse | None:
    """A form was posted: for this hand, or for a later one the chain broke. Its entry
    joins the pending correction; a refused form is shown again (422)."""
    target = hand
    number = parse_id(request.POST.get("target", ""))
    if number is not None and number != hand.number:
        target = _hand(hand.session, number) or hand
    form = HandForm(request.POST, state=_state_of(target))
    if not form.is_valid():
        return _page(request, hand, membership, form, target, pending, status=422)
    if target.pk == hand.pk:
        pending["entry"] = form.entry()
    else:
        pending["fixes"][str(target.number)] = form.entry()
    return None


def _corrected_text(hand: Hand, correction: Correction) -> str:
    """The notice of an applied correction, naming the later hands it re-settled."""
    later = [c.number for c in correction.hands if c.number != hand.number]
    text = _("Hand %(number)s corrected.") % {"number": hand.number}
    if later:
        numbers = ", ".join(str(n) for n in later)
        text += " " + ngettext(
            "Re-settled: hand %(numbers)s.", "Re-settled: hands %(numbers)s.", len(later)
        ) % {"numbers": numbers}
    return text


def _broken(
    request: AuthedHttpRequest,
    hand: Hand,
    membership: Membership,
    pending: dict[str, Any],
    broken: postings.ChainBroken,
) -> HttpResponse:
    """The hand that no longer stands, as a form to fix (the corrected hand itself when
    its own record does not add up)."""
    session = hand.session
    target = _hand(session, broken.number) or hand
    if target.pk == hand.pk:
        entry = pending["entry"]
        notice = ""
    else:
        entry = pending["fixes"].get(str(target.number)) or table_part(target.record)
        notice = _(
            "With hand %(number)s corrected, hand %(target)s no longer adds up: "
            "%(why)s. Fix hand %(target)s below; both are saved together."
        ) % {
            "number": hand.number,
            "target": target.number,
            "why": render_error(broken.errors[0]),
        }
    form = HandForm(
        {**_form_data(entry, target), "version": request.POST.get("version", "")},
        state=_state_of(target),
    )
    if form.is_valid():
        form.add_engine_errors(broken.errors, broken.verdict)
    form.notice = notice
    return _page(request, hand, membership, form, target, pending, status=409)


def _form_data(entry: dict[str, Any], hand: Hand) -> dict[str, Any]:
    """A bound form's data from an entry (what the prefill of an unbound form does)."""
    prefilled = HandForm(state=_state_of(hand), prefill=entry)
    data: dict[str, Any] = {"idempotency_key": "correction"}
    for name, field in prefilled.fields.items():
        value = prefilled.initial.get(name, field.initial)
        if value is not None:
            data[name] = value
    return data
