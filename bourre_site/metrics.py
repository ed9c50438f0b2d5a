"""``/metrics``: the app watched like a service, in Prometheus's text format.

What a scrape reads:

- ``bourre_http_requests_total{method,route,status}`` and
  ``bourre_http_request_duration_seconds{method,route}`` (a histogram): every answer,
  counted by ``MetricsMiddleware`` (second in MIDDLEWARE, so ``/healthz``, static files and
  refused hosts count too). ``route`` is the URL pattern (``sessions/<int:pk>/``; ``/``
  for the home page), or ``healthz``, ``static`` or ``unmatched``: never the raw path, so strangers' URLs cannot
  grow the series without end; an unknown method counts as ``other``. A streamed export's
  time is the time to its first byte. Errors are the 5xx statuses, and
  ``bourre_http_exceptions_total{exception}`` counts views that raised (a database outage
  is answered 503 before this middleware sees an exception: it counts as a status).
- From the database at scrape time (the truth whichever process recorded it):
  ``bourre_hands_recorded_total{kind}`` (recorded hands, undone ones included: a hand is
  never deleted), ``bourre_hands_in_progress``, ``bourre_webhook_deliveries_pending`` (the
  delivery worker's backlog) and ``bourre_webhook_oldest_pending_seconds``;
  ``bourre_database_up`` is 0 when those could not be read.
- The last ``check_books`` (bourre_site/books_check.py): ``bourre_books_check_ok`` (1 when
  every book balanced), ``bourre_books_drifted``, ``bourre_books_check_timestamp_seconds``;
  absent until the job has run once (alert on ``absent()`` or on the timestamp's age).

Who may read it: only a client whose address (``games.ratelimit.client_ip``: the peer, or
behind ``DJANGO_TRUSTED_PROXIES`` the first untrusted hop of ``X-Forwarded-For``) is
loopback or one of the trusted proxies' networks. Everyone else gets the site's 404, as
if there were no such page. A request that arrives through a proxy that is not listed
(``X-Forwarded-For`` from an untrusted peer) is refused too: behind an unlisted proxy on
the same machine every client would look like loopback.

Several gunicorn workers: each process counts its own requests, and a scrape reaches one
of them. With ``PROMETHEUS_MULTIPROC_DIR`` set (an empty folder, wiped at every start:
``make run`` makes a fresh one, bourre_site/lan.py) every worker writes its counts there
and the scrape adds them up (prometheus_client's multiprocess mode). Without it (one
process: runserver, tests) the process's own registry is read, with its CPU and memory.

prometheus_client directly, not django-prometheus: the figures that matter here (hands,
backlog, books) are read from the database at scrape time by a collector of our own in
either case, and django-prometheus's request metrics would add several series per view
and ask to swap the database and cache backends for its instrumented ones; one counter
and one histogram per request is the whole cost here.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

from django.db import DatabaseError
from django.db.models import Count, Min
from django.http import Http404, HttpRequest, HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from bourre_site import books_check
from games.error_pages import require_safe

MULTIPROC_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
if MULTIPROC_DIR:
    # prometheus_client writes its files there from the first count on.
    os.makedirs(MULTIPROC_DIR, exist_ok=True)

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

REQUESTS = Counter("bourre_http_requests", "HTTP requests answered.", ["method", "route", "status"])
LATENCY = Histogram(
    "bourre_http_request_duration_seconds",
    "Time from the request reaching the app to its response (first byte when streamed).",
    ["method", "route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
EXCEPTIONS = Counter("bourre_http_exceptions", "Views that raised an exception.", ["exception"])


def route_of(request: HttpRequest) -> str:
    match = request.resolver_match
    if match is not None:
        # The home page's pattern is the empty string: "/" is its name.
        return match.route or "/"
    if request.path_info.rstrip("/") == "/healthz":
        return "healthz"
    if request.path_info.startswith("/static/"):
        return "static"
    return "unmatched"


class MetricsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        start = time.perf_counter()
        response = self.get_response(request)
        elapsed = time.perf_counter() - start
        method = request.method if request.method in METHODS else "other"
        route = route_of(request)
        REQUESTS.labels(method, route, str(response.status_code)).inc()
        LATENCY.labels(method, route).observe(elapsed)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> None:
        EXCEPTIONS.labels(type(exception).__name__).inc()


# -- what the database and the books say, read at scrape time -------------------------------


class AppCollector:
    """Hands, webhook backlog and the last check of the books."""

    def describe(self) -> list[Metric]:
        return []  # nothing is read when the collector is registered, only when scraped

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("bourre_database_up", "1 when the database answered the scrape.")
        try:
            yield from _database_metrics()
            up.add_metric([], 1)
        except DatabaseError:
            up.add_metric([], 0)
        yield up
        yield from _books_metrics()


def _database_metrics() -> list[Metric]:
    from games.models import Hand, WebhookDelivery

    recorded = CounterMetricFamily(
        "bourre_hands_recorded", "Hands recorded (undone ones included).", labels=["kind"]
    )
    in_progress = 0
    by_kind: dict[str, int] = {kind: 0 for kind in Hand.Kind.values}
    rows = Hand.objects.order_by().values_list("kind", "status").annotate(n=Count("id"))
    for kind, status, n in rows:
        if status == Hand.Status.IN_PROGRESS:
            in_progress += n
        else:
            by_kind[kind] = by_kind.get(kind, 0) + n
    for kind, n in sorted(by_kind.items()):
        recorded.add_metric([kind], n)
    pending = WebhookDelivery.objects.filter(status=WebhookDelivery.Status.PENDING)
    backlog = pending.aggregate(n=Count("id"), oldest=Min("event__created_at"))
    oldest = backlog["oldest"]
    age = max(0.0, time.time() - oldest.timestamp()) if oldest else 0.0
    return [
        recorded,
        GaugeMetricFamily("bourre_hands_in_progress", "Digital hands being played.", in_progress),
        GaugeMetricFamily(
            "bourre_webhook_deliveries_pending",
            "Webhook deliveries waiting for the delivery worker.",
            backlog["n"],
        ),
        GaugeMetricFamily(
            "bourre_webhook_oldest_pending_seconds",
            "Age of the oldest webhook delivery still waiting (0: none).",
            age,
        ),
    ]


def _books_metrics() -> Iterator[Metric]:
    last = books_check.load()
    if last is None:
        return
    yield GaugeMetricFamily(
        "bourre_books_check_ok",
        "1 when the last check_books found every book balanced.",
        int(last.ok),
    )
    yield GaugeMetricFamily(
        "bourre_books_drifted", "Books the last check_books found out of balance.", last.drifted
    )
    yield GaugeMetricFamily(
        "bourre_books_check_timestamp_seconds",
        "When check_books last ran (Unix time).",
        last.checked_at,
    )


APP_REGISTRY = CollectorRegistry(auto_describe=False)
APP_REGISTRY.register(AppCollector())


# -- who may read it, and the view ----------------------------------------------------------


def may_read(request: HttpRequest) -> bool:
    from games.ratelimit import client_ip, is_loopback, trusted_proxy

    peer = request.META.get("REMOTE_ADDR", "")
    if "HTTP_X_FORWARDED_FOR" in request.META and not trusted_proxy(peer):
        return False  # a proxy nobody listed: its clients would all look like loopback
    client = client_ip(request)
    return is_loopback(client) or trusted_proxy(client)


def _process_metrics() -> bytes:
    if MULTIPROC_DIR:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry)
    return generate_latest(REGISTRY)


@require_safe  # a scrape reads; anything else is 405 like every read-only page
def metrics_view(request: HttpRequest) -> HttpResponse:
    if not may_read(request):
        raise Http404
    body = _process_metrics() + generate_latest(APP_REGISTRY)
    response = HttpResponse(body, content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    return response
