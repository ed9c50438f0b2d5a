from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import ratelimit
from games.clubs.forms import LoginForm, SignupForm
from games.error_pages import ReadablyNotAllowed


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    # A path of this site only: redirect() reads a bare word as a URL name to reverse.
    if not next_url.startswith("/") or not url_has_allowed_host_and_scheme(
        next_url, {request.get_host()}
    ):
        next_url = ""
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        refused = _signup_refused(request, form, next_url)
        if refused is not None:
            return refused
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        # Someone who came from an invitation is about to join a club: no advice to
        # create one of their own above the invitation.
        welcome = (
            _("Welcome, %(name)s! Accept the invitation below to join the club.")
            if next_url.startswith("/invite/")
            else _("Welcome, %(name)s! Create a club to start keeping books.")
        )
        messages.success(request, welcome % {"name": user.username})
        return redirect(next_url or "home")
    return render(
        request,
        "registration/signup.html",
        {"form": form, "next": next_url},
        status=422 if form.errors else 200,
    )


def _signup_refused(request: HttpRequest, form: SignupForm, next_url: str) -> HttpResponse | None:
    """Accounts made from one address (IPv6: one /64) are limited: counted before the
    account is made, decided from the count, so concurrent sign-ups cannot pass it."""
    window = settings.SIGNUP_RATE_WINDOW
    network = ratelimit.network_of(ratelimit.client_ip(request))
    if ratelimit.hit("signup", network, window) <= settings.SIGNUP_RATE_LIMIT:
        return None
    minutes = max(1, window // 60)
    form.add_error(
        None,
        ngettext(
            "Too many new accounts from here. Try again in %(minutes)s minute.",
            "Too many new accounts from here. Try again in %(minutes)s minutes.",
            minutes,
        )
        % {"minutes": minutes},
    )
    response = render(
        request, "registration/signup.html", {"form": form, "next": next_url}, status=429
    )
    response["Retry-After"] = str(window)
    return response


class RefusedInput:
    """Django's auth views answer a refused form with 200; the app's forms say 422 (the
    form again, with its errors and what was typed), which htmx and the tests of
    "nothing silent" tell apart from a page shown."""

    def form_invalid(self, form: forms.BaseForm) -> HttpResponse:
        response: HttpResponse = super().form_invalid(form)  # type: ignore[misc]
        response.status_code = 422
        return response


class RateLimitedLoginView(RefusedInput, auth_views.LoginView):
    """Failed logins slow down (``games.ratelimit``): per (address, username), per address
    and per username everywhere, with delays that double. An attempt is reserved before
    the password is checked; while a wait runs the form is refused with 429 and
    Retry-After, even with the right password. A browser that signed in to the account
    before (its device cookie) has an allowance of its own, so an attack on the username
    from elsewhere does not lock the owner's known browser out."""

    attempt: ratelimit.LoginAttempt | None = None
    authentication_form = LoginForm

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        username = ratelimit.normalised(request.POST.get("username") or "")
        self.attempt = ratelimit.login_begin(
            ratelimit.client_ip(request), username, ratelimit.device_for(request, username)
        )
        if self.attempt.wait:
            return self._refused(self.attempt)
        try:
            return super().post(request, *args, **kwargs)
        finally:
            # Neither failed nor succeeded (an exception): the place is given back.
            self.attempt.release()

    def _refused(self, attempt: ratelimit.LoginAttempt) -> HttpResponse:
        wait = attempt.wait
        # An unbound form with the typed name: a bound one would check the password as
        # soon as its errors are read, the very evaluation this refusal is to spare.
        form = self.get_form_class()(
            self.request, initial={"username": self.request.POST.get("username", "")}
        )
        form.cleaned_data = {}  # add_error's bookkeeping; nothing was cleaned
        form.add_error(None, attempt.message())
        response = self.render_to_response(self.get_context_data(form=form), status=429)
        response["Retry-After"] = str(wait)
        return response

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        if self.attempt is not None:
            self.attempt.succeeded()
        response = super().form_valid(form)
        ratelimit.remember_device(self.request, response, form.get_user().get_username())
        return response

    def form_invalid(self, form: forms.BaseForm) -> HttpResponse:
        if self.attempt is not None:
            self.attempt.failed()
        return super().form_invalid(form)


class PasswordChangeView(RefusedInput, auth_views.PasswordChangeView):
    template_name = "registration/password_change.html"

    def form_valid(self, form: PasswordChangeForm) -> HttpResponse:
        messages.success(self.request, _("Your password was changed."))
        return super().form_valid(form)

    def get_success_url(self) -> str:
        return "/"


# -- password reset by e-mail (Django's views and forms; the e-mail backend is set in
# settings: the console by default, SMTP from DJANGO_EMAIL_* variables) -------------------


class PasswordResetView(RefusedInput, auth_views.PasswordResetView):
    """Asks for the e-mail address and sends the link. The answer is the same whether or
    not an account has that address (no way to probe who has an account); requests are
    counted per client IP like failed logins."""

    template_name = "registration/password_reset_form.html"
    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        window = settings.LOGIN_RATE_WINDOW
        network = ratelimit.network_of(ratelimit.client_ip(request))
        # Counted first, decided from the count (atomic): never more than the limit.
        if ratelimit.hit("reset-ip", network, window) > settings.LOGIN_RATE_LIMIT:
            form = self.get_form()
            form.is_valid()
            minutes = window // 60
            form.add_error(
                None,
                ngettext(
                    "Too many reset requests. Try again in %(minutes)s minute.",
                    "Too many reset requests. Try again in %(minutes)s minutes.",
                    minutes,
                )
                % {"minutes": minutes},
            )
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().post(request, *args, **kwargs)


class PasswordResetDoneView(ReadablyNotAllowed, auth_views.PasswordResetDoneView):
    template_name = "registration/password_reset_done.html"


class PasswordResetConfirmView(RefusedInput, auth_views.PasswordResetConfirmView):
    template_name = "registration/password_reset_confirm.html"


class PasswordResetCompleteView(ReadablyNotAllowed, auth_views.PasswordResetCompleteView):
    template_name = "registration/password_reset_complete.html"
