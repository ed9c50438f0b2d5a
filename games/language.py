"""Which language a request is answered in, and the menu's switcher (issue 19).

Order: the signed-in user's saved choice (``LanguagePreference``), then the language
cookie the switcher sets (so a guest on a share link or a seat keeps their choice), then
the browser's ``Accept-Language``; a code the site does not offer falls back to English.
It is the *viewer's* language, never the host's: a share or seat link carries no language.

The saved choice is read at login (``remember_language``, connected to Django's
``user_logged_in`` in ``GamesConfig.ready``: one query) and kept in the session beside the
user id, so no later request pays for it (the scoreboard poll's fast path in
games.polling keeps its single statement). A login session older than that is read once
by the user id stored in the session, no user object built; the switcher updates both.

The language cookie is the browser's copy of that answer: whenever a response has read a
signed-in session anyway, the cookie is set to the saved choice (or to ``NO_CHOICE``, which
Django's own reading skips, when the user saved none and the browser has no cookie). A
request that brings the cookie is answered in its language without reading the session,
so a page that needs no login costs a signed-in phone what it costs a guest (issue #31: a
signed-in bare page was 2.2× an anonymous one, the session read for the language alone).
After logout the browser keeps the language it had, as a guest's cookie would.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.base_user import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.http.response import HttpResponseBase
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from games.models import LanguagePreference

# [user id as in the session, saved code or ""]: the cached answer for this login.
SESSION_LANGUAGE = "_bourre_language"
# The cookie of a signed-in browser whose user saved no choice: not a language, so
# Django's get_language_from_request passes over it to Accept-Language.
NO_CHOICE = "-"


def supported(code: object) -> str | None:
    """The offered language for code ("es-MX" → "es"), or None."""
    if not isinstance(code, str) or not code:
        return None
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return None


def saved_language(request: HttpRequest) -> str | None:
    session = getattr(request, "session", None)
    if session is None:
        return None
    user_id = session.get(SESSION_KEY)
    if user_id is None:
        return None
    cached = session.get(SESSION_LANGUAGE)
    if isinstance(cached, list) and len(cached) == 2 and cached[0] == str(user_id):
        return supported(cached[1])
    code = _saved_code(user_id)
    session[SESSION_LANGUAGE] = [str(user_id), code]
    return supported(code)


def _saved_code(user_id: str | int) -> str:
    return (
        LanguagePreference.objects.filter(user_id=user_id)
        .values_list("language", flat=True)
        .first()
        or ""
    )


def remember_language(
    sender: type[AbstractBaseUser], request: HttpRequest, user: AbstractBaseUser, **kwargs: Any
) -> None:
    """``user_logged_in`` receiver: keep the user's saved language in the new session."""
    session = getattr(request, "session", None)
    if session is not None:
        session[SESSION_LANGUAGE] = [str(user.pk), _saved_code(user.pk)]


class PreferredLanguageMiddleware(LocaleMiddleware):
    """Django's LocaleMiddleware (Content-Language, Vary: Accept-Language) with the saved
    preference first. The site has no language prefixes in its URLs."""

    def process_request(self, request: HttpRequest) -> None:
        if settings.LANGUAGE_COOKIE_NAME in request.COOKIES:
            language = translation.get_language_from_request(request)
        else:
            language = saved_language(request) or translation.get_language_from_request(request)
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        response = super().process_response(request, response)
        session = getattr(request, "session", None)
        # Only a session this request has read already: the copy must cost no query.
        if session is None or not session.accessed or session.get(SESSION_KEY) is None:
            return response
        cookie = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
        code = saved_language(request)
        if code and cookie != code:
            _set_language_cookie(response, code)
        elif not code and cookie is None:
            _set_language_cookie(response, NO_CHOICE)
        return response


def _set_language_cookie(response: HttpResponseBase, code: str) -> None:
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        code,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        samesite="Lax",
    )


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """The switcher's plain POST: remember the choice (for a signed-in user, on their
    account; for anyone, in the language cookie) and go back to the page it came from."""
    code = supported(request.POST.get("language")) or settings.LANGUAGE_CODE
    target = request.POST.get("next") or request.headers.get("referer") or "/"
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = "/"
    user = request.user
    if user.is_authenticated:
        LanguagePreference.objects.update_or_create(user=user, defaults={"language": code})
        request.session[SESSION_LANGUAGE] = [str(user.pk), code]
    translation.activate(code)
    response = HttpResponseRedirect(target)
    _set_language_cookie(response, code)
    return response
