"""The house rules page: read by members, changed by scorekeepers from the next hand on.

The form carries a fingerprint of the rules it was rendered for (``rules_seen``): a save
for rules someone has changed since — another phone, or Back then Save without
JavaScript — is refused with the rules as they stand (409), instead of undoing that
change without a word (issue #13).
"""

from __future__ import annotations

import hashlib
import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django_htmx.http import HttpResponseClientRedirect

from games.access import session_for
from games.errors import BourreError, form_error
from games.http import AuthedHttpRequest
from games.models import Role
from games.sessions import selectors
from games.sessions.rule_fields import RulesForm, current_rules
from games.sessions.views import _closed_response, _refuse_tournament_table
from games.templatetags.bourre import rule_value
from ledger import postings


@login_required
def session_rules(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    session, membership = session_for(request.user, session_id)
    form = RulesForm(request.POST or None, rules=session.rules, currency=session.currency)
    status = 200
    if request.method == "POST":
        session, membership = session_for(request.user, session_id, Role.SCOREKEEPER)
        _refuse_tournament_table(session)
        if not session.is_open:
            return _closed_response(request, session)
        seen = request.POST.get("rules_seen")
        if seen and seen != _rules_seen(session.rules):
            # The form was rendered for rules someone has changed since (another phone,
            # or Back then Save): saving it would undo their change without a word.
            messages.warning(
                request,
                _(
                    "The house rules were changed elsewhere while this form was open. Nothing "
                    "was saved: here are the rules as they stand now."
                ),
            )
            form = RulesForm(None, rules=session.rules, currency=session.currency)
            status = 409
        elif form.is_valid():
            old = current_rules(session.rules)
            new = form.rules()
            changed = [k for k in new if old.get(k) != new[k]]
            if not changed:
                messages.info(request, _("Nothing changed: the house rules stay as they were."))
                return redirect(session)
            try:
                postings.change_rules(session_id=session.pk, rules=new, user=request.user)
            except postings.SessionClosed:
                return _closed_response(request, session)
            except BourreError as error:
                form_error(form, error)
            else:
                labels = {k: form.fields[k].label for k in changed}
                changes = "; ".join(
                    f"{labels[k]}: {rule_value(k, old.get(k), session.currency)} → "
                    f"{rule_value(k, new[k], session.currency)}"
                    for k in changed
                )
                messages.success(
                    request,
                    _("New house rules from the next hand: %(changes)s.") % {"changes": changes},
                )
                if request.htmx:
                    return HttpResponseClientRedirect(session.get_absolute_url())
                return redirect(session)
    return render(
        request,
        "games/session_rules.html",
        {
            "session": session,
            "membership": membership,
            "form": form,
            "can_score": selectors.can_score(session, membership),
            "rules_seen": _rules_seen(session.rules),
        },
        status=422 if form.errors else status,
    )


def _rules_seen(rules: dict | None) -> str:
    """A short fingerprint of the rules a rules form was rendered for."""
    text = json.dumps(current_rules(rules), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
