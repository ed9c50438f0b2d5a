"""The pages a person sees when a request is refused before any view answers it.

Django's own 400/403/404/500 pages are English framework text; ours (``templates/400.html``
… ``500.html``) speak the reader's language and say what to do next. The CSRF refusal has
its own view (``settings.CSRF_FAILURE_VIEW``): on a phone it means a form left open across
a sign-in or sign-out in another tab, or cookies refused — never "CSRF verification
failed". Django logs the reason (``django.security.csrf``); the page does not show it.

A method a view does not take answers 405 with ``Allow`` and ``templates/405.html`` (issue
33): a POST to a page that is only read (``POST /sessions/4/`` used to render the
scoreboard), or a GET of an address that only takes a form. ``require_safe``,
``require_GET`` and ``require_POST`` here are Django's decorators of those names
(``django.views.decorators.http``) with that page as the body, where Django's leave it
empty; class-based views answer it from ``http_method_not_allowed`` (``ReadablyNotAllowed``).
The API's views are DRF's, which answer 405 as problem+json themselves.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.http.response import HttpResponseBase
from django.template.loader import render_to_string
from django.utils.log import log_response

View = TypeVar("View", bound=Callable[..., HttpResponseBase])


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    return HttpResponse(render_to_string("403_csrf.html", request=request), status=403)


def method_not_allowed(request: HttpRequest, allowed: Sequence[str]) -> HttpResponseNotAllowed:
    """405 with ``Allow`` and a page that says, in the reader's language, that nothing
    was changed and where to go on."""
    response = HttpResponseNotAllowed(
        list(allowed),
        render_to_string("405.html", {"read_only": "POST" not in allowed}, request=request),
    )
    # As Django's require_http_methods logs it (django.request, a warning).
    log_response(
        "Method Not Allowed (%s): %s",
        request.method,
        request.path,
        response=response,
        request=request,
    )
    return response


def require_http_methods(methods: Sequence[str]) -> Callable[[View], View]:
    """Django's decorator of that name, answering other methods with the 405 page."""

    def decorator(view: View) -> View:
        @functools.wraps(view)
        def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if request.method not in methods:
                return method_not_allowed(request, methods)
            return view(request, *args, **kwargs)

        return cast(View, checked)

    return decorator


require_GET = require_http_methods(["GET"])
require_POST = require_http_methods(["POST"])
# Pages that are only read: GET, and HEAD (which Django answers as a GET without a body).
require_safe = require_http_methods(["GET", "HEAD"])


class ReadablyNotAllowed:
    """For class-based views: the 405 page instead of Django's empty answer."""

    def http_method_not_allowed(
        self, request: HttpRequest, *args: Any, **kwargs: Any
    ) -> HttpResponse:
        allowed = getattr(self, "_allowed_methods", lambda: ["GET", "HEAD", "OPTIONS"])()
        return method_not_allowed(request, allowed)
