"""A request id on every response (``X-Request-ID``) and on every log line written while
the request runs, so that a player's "it failed at 21:14" finds its lines in the logs.

- The id is the incoming ``X-Request-ID`` when the request comes from one of
  ``DJANGO_TRUSTED_PROXIES`` (Caddy, nginx or a load balancer that made one), and only
  when it is 1–128 printable characters of ``[A-Za-z0-9._:@/+=-]``; anything else gets a
  new one (32 hex digits). A client's own header is never taken: it could pose as
  another request's id in the logs.
- ``RequestIdMiddleware`` is the first middleware (bourre_site/settings.py), so even
  ``/healthz``, a refused host and the 503 of a database outage carry it.
- ``RequestIdFilter`` (on the console handler, settings.LOGGING) puts it on each log
  record as ``request_id``; the JSON formatter (bourre_site/jsonlog.py) writes it. Django
  logs a 4xx/5xx answer after the middleware has returned: the filter then reads the id
  from the request the record carries (``request.META[META_KEY]``).
- Gunicorn's access log (``make run`` with ``BOURRE_ACCESS_LOG=-``) prints it from the
  response header (bourre_site/lan.py).
"""

from __future__ import annotations

import logging
import string
import uuid
from collections.abc import Callable
from contextvars import ContextVar

from django.http import HttpRequest, HttpResponse

from games.ratelimit import trusted_proxy

HEADER = "X-Request-ID"
# Where the id waits on the request for log records written after the middleware returned.
META_KEY = "bourre.request_id"
MAX_LENGTH = 128
_ALLOWED = frozenset(string.ascii_letters + string.digits + "._:@/+=-")

current: ContextVar[str] = ContextVar("request_id", default="")


def _from_trusted_proxy(request: HttpRequest) -> bool:
    # The same proxies, and the same reading of an address, as the rate limits'.
    return trusted_proxy(request.META.get("REMOTE_ADDR", ""))


def acceptable(value: str) -> bool:
    return 0 < len(value) <= MAX_LENGTH and all(c in _ALLOWED for c in value)


def request_id_for(request: HttpRequest) -> str:
    incoming = request.headers.get(HEADER, "").strip()
    if incoming and acceptable(incoming) and _from_trusted_proxy(request):
        return incoming
    return uuid.uuid4().hex


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        rid = request_id_for(request)
        request.META[META_KEY] = rid
        token = current.set(rid)
        try:
            response = self.get_response(request)
        finally:
            current.reset(token)
        response[HEADER] = rid
        return response


class RequestIdFilter(logging.Filter):
    """Adds ``request_id`` to records written while a request runs (or about one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        rid = current.get()
        if not rid:
            meta = getattr(getattr(record, "request", None), "META", None)
            if isinstance(meta, dict):
                rid = str(meta.get(META_KEY, ""))
        if rid:
            record.request_id = rid
        return True
