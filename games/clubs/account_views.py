"""The account a person controls (issue #33 item 6): the Account page, "Download my data"
(games.clubs.account_data) and "Delete my account" (games.clubs.account_service).

The Account page also keeps where the person wants to be paid (issue #34 item 3): their
payment handles, used for every player linked to them in any club (games.clubs.handles).

Deleting asks again for the password (or, for an account that has none, the username
typed out), and for every club the user alone owns a decision: hand it to another member
or delete it. The page says beforehand exactly what will happen, offers each club's books
export (the API's club export, which a signed-in browser may download) before a delete,
and names the open sessions that stop one. Afterwards the browser is signed out and the
page says what was done.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from games.clubs import account_service as service
from games.clubs import handles
from games.clubs.account_data import export_chunks, filename
from games.clubs.forms import HandlesForm
from games.error_pages import require_GET, require_POST
from games.http import AuthedHttpRequest


class DeleteAccountForm(forms.Form):
    """The confirmation: the password (or the username), and one decision per club the
    user alone owns (fields ``club_<id>`` and ``heir_<id>``)."""

    def __init__(self, *args: Any, user: User, plan: service.Plan, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user, self.plan = user, plan
        if user.has_usable_password():
            self.fields["password"] = forms.CharField(
                label=gettext_lazy("Your password"),
                strip=False,
                widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
                error_messages={"required": gettext_lazy("Type your password to confirm.")},
            )
        else:
            self.fields["username"] = forms.CharField(
                label=gettext_lazy("Type your username to confirm"),
                widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "none"}),
                error_messages={"required": gettext_lazy("Type your username exactly as it is.")},
            )
        for sole in plan.sole_clubs:
            pk = sole.club.pk
            choices = [("delete", gettext_lazy("Delete the club"))]
            if sole.heirs:
                choices.insert(0, ("hand_over", gettext_lazy("Hand it to another member")))
                heirs = [(m.pk, m.user.get_username()) for m in sole.heirs]
                # One member who could take over: that one, chosen already. Several: the
                # person picks (no silent first pick of someone to own their club).
                self.fields[f"heir_{pk}"] = forms.TypedChoiceField(
                    label=gettext_lazy("New owner"),
                    choices=heirs if len(heirs) == 1 else [("", "—"), *heirs],
                    initial=heirs[0][0] if len(heirs) == 1 else None,
                    coerce=int,
                    empty_value=None,
                    required=False,
                )
            self.fields[f"club_{pk}"] = forms.ChoiceField(
                label=sole.club.name,
                choices=choices,
                initial=choices[0][0],
                widget=forms.RadioSelect,
                error_messages={
                    "required": gettext_lazy("Choose what happens to this club."),
                    "invalid_choice": gettext_lazy("Choose what happens to this club."),
                },
            )

    def clean_password(self) -> str:
        password: str = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(gettext("That is not your password."))
        return password

    def clean_username(self) -> str:
        typed: str = self.cleaned_data["username"].strip()
        if typed != self.user.get_username():
            raise forms.ValidationError(gettext("Type your username exactly as it is."))
        return typed

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for sole in self.plan.sole_clubs:
            pk = sole.club.pk
            action = cleaned.get(f"club_{pk}")
            if action == "hand_over" and not cleaned.get(f"heir_{pk}"):
                self.add_error(
                    f"heir_{pk}",
                    gettext("Choose who takes over %(club)s.") % {"club": sole.club.name},
                )
            elif action == "delete" and sole.open_sessions:
                self.add_error(f"club_{pk}", service.open_sessions_sentence(sole))
        return cleaned

    def decisions(self) -> dict[int, service.Decision]:
        return {
            sole.club.pk: service.Decision(
                self.cleaned_data[f"club_{sole.club.pk}"],
                self.cleaned_data.get(f"heir_{sole.club.pk}"),
            )
            for sole in self.plan.sole_clubs
        }

    def club_rows(self) -> list[dict[str, Any]]:
        """Each sole-owned club with its bound fields, for the template."""
        return [
            {
                "sole": sole,
                "action": self[f"club_{sole.club.pk}"],
                "heir": self[f"heir_{sole.club.pk}"] if sole.heirs else None,
            }
            for sole in self.plan.sole_clubs
        ]


def _account_page(
    request: AuthedHttpRequest, handles_form: HandlesForm, status: int = 200
) -> HttpResponse:
    user = request.user
    context = {
        "memberships": user.memberships.select_related("club").order_by("club__name"),
        "players": user.players.select_related("club").order_by("club__name"),
        "handles_form": handles_form,
    }
    return render(request, "games/account.html", context, status=status)


@login_required
@require_GET
def account(request: AuthedHttpRequest) -> HttpResponse:
    return _account_page(request, HandlesForm(instance=handles.row_for(user=request.user)))


@login_required
@require_POST
def account_handles(request: AuthedHttpRequest) -> HttpResponse:
    """Save the person's payment handles; refused input comes back with the reasons."""
    form = HandlesForm(request.POST, instance=handles.row_for(user=request.user))
    if not form.is_valid():
        return _account_page(request, form, status=422)
    row = form.save(commit=False)
    row.updated_at, row.updated_by = timezone.now(), request.user
    row.save()
    messages.success(request, gettext("Payment handles saved."))
    return redirect("account")


@login_required
@require_GET
def account_data(request: AuthedHttpRequest) -> StreamingHttpResponse:
    response = StreamingHttpResponse(
        export_chunks(request.user), content_type="application/json; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename(request.user)}"'
    response["Cache-Control"] = "no-store"
    return response


@login_required
def account_delete(request: AuthedHttpRequest) -> HttpResponse:
    user = request.user
    plan = service.plan_for(user)
    form = DeleteAccountForm(request.POST or None, user=user, plan=plan)
    if request.method == "POST" and form.is_valid():
        try:
            done = service.delete_account(user, form.decisions())
        except service.AccountError as refused:
            # The clubs changed since the page was drawn (a new owner, a session opened):
            # the page again, as it is now, with the reason on top.
            plan = service.plan_for(user)
            form = DeleteAccountForm(request.POST, user=user, plan=plan)
            form.is_valid()
            form.add_error(None, str(refused))
        else:
            logout(request)
            return render(request, "games/account_deleted.html", {"done": done})
    status = 422 if form.errors else 200
    return render(
        request,
        "games/account_delete.html",
        {"form": form, "plan": plan, "clubs": form.club_rows()},
        status=status,
    )
