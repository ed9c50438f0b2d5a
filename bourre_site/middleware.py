"""What every response shares: security headers, no caching of private pages, a health
check for load balancers and a clear answer while the database is away.

- ``HealthCheckMiddleware`` answers ``/healthz`` before anything else runs (no host check,
  no session, no redirect to https), so a load balancer may probe an app server by its
  address over plain http: 200 when the database and the cache answer, else 503.
- ``SecurityHeadersMiddleware``:
  * ``Content-Security-Policy``: scripts, styles, images and connections from this site
    only; no inline script or style, no eval (templates keep their JavaScript in
    ``static/js`` and their looks in CSS classes; ``static/js/app.js`` switches off
    htmx's injected indicator style and its eval). The Django admin and the API's Swagger
    page, which style themselves inline, get ``'unsafe-inline'`` styles (scripts stay
    strict); nothing else does.
  * ``Permissions-Policy``: no camera, microphone, location, payment... for any page.
  * ``Cache-Control: private, no-store`` on every response to a signed-in user (session
    or API token), on every export (an attachment or CSV) and on seat pages (the secret
    link is the key); a shared cache or the back button must not keep someone's books.
    "Signed in" is read from the request's session cookie and ``Authorization`` header,
    never by loading the user (issue #31: that doubled a signed-in bare page's cost).
  * A database that does not answer (``OperationalError``/``InterfaceError``) becomes a
    503 with ``Retry-After`` (problem+json under ``/api/``) instead of a bare 500.
- ``server_error`` (``handler500``) answers the same 503 when the database went away
  before any view ran: a signed-in request reads its login session in middleware
  (the scoreboard poll's 304 too, games/polling.py), where ``process_exception`` does
  not reach.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.db import InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

log = logging.getLogger("bourre.health")

RETRY_AFTER_SECONDS = 15

_POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": "'self'",
    "manifest-src": "'self'",
    "worker-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
CONTENT_SECURITY_POLICY = "; ".join(f"{k} {v}" for k, v in _POLICY.items())
RELAXED_STYLE_POLICY = "; ".join(
    f"{k} {v} 'unsafe-inline'" if k == "style-src" else f"{k} {v}" for k, v in _POLICY.items()
)
RELAXED_STYLE_PATHS = ("/admin/", "/api/v1/docs/")

PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "autoplay",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "usb",
    )
)

PRIVATE_PATHS = ("/seat/",)


def _signed_in(request: HttpRequest, response: HttpResponse) -> bool:
    """Whether the response may be someone's own, decided without loading the user (which
    would cost a signed-in bare page a query): a login session cookie sent or set, or an
    ``Authorization`` header (an API token). An anonymous visitor's session cookie (a
    language chosen before logging in) counts too: private, no-store is the safe side."""
    if settings.SESSION_COOKIE_NAME in request.COOKIES:
        return True
    if settings.SESSION_COOKIE_NAME in response.cookies:  # the login's answer sets it
        return True
    return "Authorization" in request.headers


def _private(request: HttpRequest, response: HttpResponse) -> bool:
    if _signed_in(request, response):
        return True
    if request.path.startswith(PRIVATE_PATHS):
        return True
    disposition = response.get("Content-Disposition", "")
    content_type = response.get("Content-Type", "")
    return disposition.startswith("attachment") or content_type.startswith("text/csv")


class SecurityHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            relaxed = request.path.startswith(RELAXED_STYLE_PATHS)
            response["Content-Security-Policy"] = (
                RELAXED_STYLE_POLICY if relaxed else CONTENT_SECURITY_POLICY
            )
        response["Permissions-Policy"] = PERMISSIONS_POLICY
        if response.get("Cache-Control") != "private, no-store" and _private(request, response):
            response["Cache-Control"] = "private, no-store"
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        log.error("database unavailable: %s", exception)
        return database_unavailable(request)


def database_unavailable(request: HttpRequest) -> HttpResponse:
    detail = "The database is not answering. Nothing was saved; try again in a moment."
    if request.path.startswith("/api/"):
        body = {
            "type": "urn:bourre:problem:unavailable",
            "title": "Service unavailable",
            "status": 503,
            "detail": detail,
            "errors": [{"code": "unavailable", "message": "the database is not answering"}],
        }
        response = HttpResponse(
            json.dumps(body), status=503, content_type="application/problem+json"
        )
    else:
        # A page of its own, without the site template: that one reads the session and
        # the user, which live in the database that is away.
        response = HttpResponse(
            "<!doctype html><html lang=en><meta charset=utf-8>"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            "<title>Back in a moment · Bourré books</title>"
            f"<h1>Back in a moment</h1><p>{detail}</p>"
            '<p><a href="">Try again</a></p></html>',
            status=503,
            content_type="text/html; charset=utf-8",
        )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "private, no-store"
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: Django calls it while handling the exception, so the exception is
    at hand; a database error gets the outage's 503, anything else Django's 500."""
    if isinstance(sys.exc_info()[1], OperationalError | InterfaceError):
        return database_unavailable(request)
    return defaults.server_error(request)


class HealthCheckMiddleware:
    path = "/healthz"

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info.rstrip("/") != self.path:
            return self.get_response(request)
        checks = {"database": _database_ok(), "cache": _cache_ok()}
        healthy = all(checks.values())
        response = JsonResponse(
            {
                "status": "ok" if healthy else "unavailable",
                **{k: "ok" if v else "unavailable" for k, v in checks.items()},
            },
            status=200 if healthy else 503,
        )
        if not healthy:
            response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        response["Cache-Control"] = "no-store"
        return response


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception as exc:  # any failure means "not healthy", which is the answer
        log.error("health check: database: %s", exc)
        return False


def _cache_ok() -> bool:
    try:
        cache.set("healthz", 1, timeout=10)
        return cache.get("healthz") == 1
    except Exception as exc:
        log.error("health check: cache: %s", exc)
        return False
