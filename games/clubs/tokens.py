"""Personal API tokens: create (the key is shown once; optionally expiring; read-only or
read and write), list, revoke.

The API's own onboarding (`POST /api/v1/auth/tokens/`) is games.api.tokens. The page and
its messages are in the reader's language (issue 19)."""

from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy, ngettext

from games.error_pages import require_POST
from games.http import AuthedHttpRequest
from games.models import ApiToken

MAX_ACTIVE_TOKENS = ApiToken.MAX_ACTIVE


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=60,
        label=gettext_lazy("Name"),
        help_text=gettext_lazy("Where you will use it, e.g. “club spreadsheet”."),
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "placeholder": gettext_lazy("Token name")}
        ),
    )

    expires_in_days = forms.TypedChoiceField(
        label=gettext_lazy("Expires"),
        choices=[
            ("", gettext_lazy("Never")),
            ("30", gettext_lazy("In 30 days")),
            ("90", gettext_lazy("In 90 days")),
            ("365", gettext_lazy("In a year")),
        ],
        coerce=int,
        empty_value=None,
        required=False,
        help_text=gettext_lazy("Every token also stops working when your password changes."),
    )
    scope = forms.ChoiceField(
        label=gettext_lazy("Access"),
        choices=ApiToken.Scope.choices,
        initial=ApiToken.Scope.WRITE,
        # Left out (an older form): read and write, as every token was before scopes.
        required=False,
        widget=forms.RadioSelect,
        help_text=gettext_lazy(
            "Read only: for a league website or a spreadsheet; it can change nothing."
        ),
    )

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean(self) -> dict[str, Any]:
        active = ApiToken.objects.filter(user=self.user, revoked_at__isnull=True).count()
        if active >= MAX_ACTIVE_TOKENS:
            raise forms.ValidationError(
                ngettext(
                    "You have %(n)s active token; revoke one you no longer use first.",
                    "You have %(n)s active tokens; revoke one you no longer use first.",
                    active,
                )
                % {"n": active}
            )
        return self.cleaned_data


def _context(request: AuthedHttpRequest, form: TokenForm, **extra: Any) -> dict[str, Any]:
    return {
        "form": form,
        # With the user: a token's is_active compares the password it was made under.
        "tokens": ApiToken.objects.filter(user=request.user).select_related("user"),
        "now": timezone.now(),
        **extra,
    }


@login_required
def token_list(request: AuthedHttpRequest) -> HttpResponse:
    """The user's tokens; POST creates one and shows its key, this once only."""
    form = TokenForm(request.POST or None, user=request.user)
    if request.method == "POST":
        if not form.is_valid():
            # 422 as every form of the app that shows refused input again.
            return render(request, "games/tokens.html", _context(request, form), status=422)
        days = form.cleaned_data.get("expires_in_days")
        expires = timezone.now() + timedelta(days=days) if days else None
        token, key = ApiToken.issue(
            request.user,
            form.cleaned_data["name"],
            expires_at=expires,
            scope=form.cleaned_data["scope"] or ApiToken.Scope.WRITE,
        )
        response = render(
            request,
            "games/tokens.html",
            _context(request, TokenForm(user=request.user), created=token, key=key),
            status=201,
        )
        # Only the hash is stored: keep the one page that shows the key out of caches.
        response["Cache-Control"] = "private, no-store"
        return response
    return render(request, "games/tokens.html", _context(request, form))


@login_required
@require_POST
def token_revoke(request: AuthedHttpRequest, token_id: int) -> HttpResponse:
    # Someone else's token is 404, not 403: its existence is not revealed.
    token = get_object_or_404(ApiToken, pk=token_id, user=request.user)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    if request.htmx:
        return render(
            request,
            "games/tokens.html#tokens",
            _context(request, TokenForm(user=request.user)),
        )
    messages.success(
        request,
        gettext("“%(name)s” is revoked; it no longer opens the API.") % {"name": token.name},
    )
    return redirect("token_list")
