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
from games.clubs.forms import SignupForm
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


class RefusedInput:
    """Django's auth views answer a refused form with 200; the app's forms say 422 (the
    form again, with its errors and what was typed), which htmx and the tests of
    "nothing silent" tell apart from a page shown."""

    def form_invalid(self, form: forms.BaseForm) -> HttpResponse:
        response: HttpResponse = super().form_invalid(form)  # type: ignore[misc]
        response.status_code = 422
        return response


class RateLimitedLoginView(RefusedInput, auth_views.LoginView):
    """Failed logins slow down the address that made them (``games.ratelimit``): per
    (address, username) and per address, with delays that double. While a pair must wait
    the form is refused with 429, even with the right password; another address is not
    affected, so the owner still gets in while their username is under attack."""

    def _ident(self) -> tuple[str, str]:
        username = (self.request.POST.get("username") or "").strip().lower()
        return ratelimit.client_ip(self.request), username

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        wait = ratelimit.login_wait(*self._ident())
        if wait:
            form = self.get_form()
            form.errors.clear()
            form.add_error(
                None,
                ngettext(
                    "Too many failed logins from here. Try again in %(wait)s second.",
                    "Too many failed logins from here. Try again in %(wait)s seconds.",
                    wait,
                )
                % {"wait": wait},
            )
            response = self.render_to_response(self.get_context_data(form=form), status=429)
            response["Retry-After"] = str(wait)
            return response
        return super().post(request, *args, **kwargs)

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        ratelimit.login_succeeded(*self._ident())
        return super().form_valid(form)

    def form_invalid(self, form: forms.BaseForm) -> HttpResponse:
        ratelimit.login_failed(*self._ident())
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
        ip = ratelimit.client_ip(request)
        if ratelimit.count("reset-ip", ip, window) >= settings.LOGIN_RATE_LIMIT:
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
        ratelimit.hit("reset-ip", ip, window)
        return super().post(request, *args, **kwargs)


class PasswordResetDoneView(ReadablyNotAllowed, auth_views.PasswordResetDoneView):
    template_name = "registration/password_reset_done.html"


class PasswordResetConfirmView(RefusedInput, auth_views.PasswordResetConfirmView):
    template_name = "registration/password_reset_confirm.html"


class PasswordResetCompleteView(ReadablyNotAllowed, auth_views.PasswordResetCompleteView):
    template_name = "registration/password_reset_complete.html"
