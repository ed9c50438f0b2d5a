"""``/metrics`` (bourre_site/metrics.py, issue #32 item 5): who may read it, what it counts
(requests by route and status, latency, exceptions, hands, the webhook backlog, the last
``check_books``), and, under `make run`'s gunicorn workers, one total for all of them."""

from __future__ import annotations

import http.client
import io
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.core.management import CommandError, call_command
from django.http import HttpRequest, HttpResponse
from django.urls import include, path
from prometheus_client.parser import text_string_to_metric_families

from bourre_site import books_check, metrics
from games.api import outbox
from games.models import GameSession, Tournament, WebhookEndpoint
from tests import lan_server
from tests.ledger.conftest import record


def _raise(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug")


# The site's own URLs plus a view that fails, for the exception counter.
urlpatterns = [path("boom/", _raise), path("", include("bourre_site.urls"))]


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a scrape, by name and labels."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(text: str, name: str, **labels: str) -> float:
    return samples(text).get((name, frozenset(labels.items())), 0.0)


def scrape(client, remote: str = "127.0.0.1", **headers: str):
    return client.get("/metrics", REMOTE_ADDR=remote, **headers)


@pytest.fixture(autouse=True)
def _books_file(settings, tmp_path):
    settings.BOOKS_CHECK_FILE = tmp_path / "check_books.json"


# -- who may read it ---------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("remote", ["127.0.0.1", "::1", "127.0.0.9"])
def test_loopback_reads_the_metrics(client, remote):
    response = scrape(client, remote)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    assert response["Cache-Control"] == "no-store"
    assert "bourre_http_requests_total" in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("remote", ["203.0.113.7", "192.168.1.20", "10.0.0.5"])
def test_anyone_else_gets_the_sites_404(client, remote):
    response = scrape(client, remote)
    assert response.status_code == 404
    assert b"bourre_" not in response.content


@pytest.mark.django_db
def test_behind_a_trusted_proxy_the_client_decides(client, settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    # Prometheus on the proxy's network, straight or through the proxy from loopback.
    assert scrape(client, "10.0.0.5").status_code == 200
    assert scrape(client, "10.0.0.2", HTTP_X_FORWARDED_FOR="127.0.0.1").status_code == 200
    # A visitor from the internet, forwarded by the proxy, does not.
    forwarded = scrape(client, "10.0.0.2", HTTP_X_FORWARDED_FOR="203.0.113.7")
    assert forwarded.status_code == 404
    # A forged hop to the left of the real client is never read.
    forged = scrape(client, "10.0.0.2", HTTP_X_FORWARDED_FOR="127.0.0.1, 203.0.113.7")
    assert forged.status_code == 404


@pytest.mark.django_db
def test_a_proxy_nobody_listed_cannot_pass_its_clients_off_as_loopback(client, settings):
    settings.TRUSTED_PROXIES = []
    assert scrape(client, "127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.7").status_code == 404
    assert scrape(client, "127.0.0.1").status_code == 200


# -- what it counts ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_requests_are_counted_by_route_pattern_and_status(client):
    before = scrape(client).content.decode()
    for _ in range(3):
        assert client.get("/healthz").status_code == 200
    client.get(f"/sessions/{10**9}/")  # to the login page: the pattern, not the id
    client.get(f"/no/such/page/{uuid.uuid4().hex}/")
    client.generic("BREW", "/healthz")
    client.get("/")
    after = scrape(client).content.decode()

    def grew(**labels: str) -> float:
        name = "bourre_http_requests_total"
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew(method="GET", route="healthz", status="200") == 3
    assert grew(method="GET", route="sessions/<id:session_id>/", status="302") == 1
    assert grew(method="GET", route="unmatched", status="404") == 1
    assert grew(method="GET", route="/", status="200") == 1  # the home page has a name
    assert grew(method="other", route="healthz", status="200") == 1
    # The app's own series only: a process gauge's float may hold any digits.
    ours = "\n".join(line for line in after.splitlines() if line.startswith("bourre_"))
    assert str(10**9) not in ours and "no/such/page" not in ours
    latency = "bourre_http_request_duration_seconds_count"
    assert value(after, latency, method="GET", route="healthz") - value(
        before, latency, method="GET", route="healthz"
    ) == pytest.approx(3)


@pytest.mark.django_db
@pytest.mark.urls("tests.test_metrics")
def test_a_view_that_raises_is_counted_as_an_exception_and_a_500(client):
    client.raise_request_exception = False
    before = scrape(client).content.decode()
    assert client.get("/boom/").status_code == 500
    after = scrape(client).content.decode()
    errors = "bourre_http_exceptions_total"
    assert value(after, errors, exception="RuntimeError") - value(
        before, errors, exception="RuntimeError"
    ) == pytest.approx(1)
    requests = "bourre_http_requests_total"
    labels = {"method": "GET", "route": "boom/", "status": "500"}
    assert value(after, requests, **labels) - value(before, requests, **labels) == 1


@pytest.mark.django_db
def test_hands_recorded_and_in_progress_come_from_the_database(client, club, players, bob):
    from tests.games.test_session_views import start_table

    session = start_table(club, players, bob)
    assert (
        value(scrape(client).content.decode(), "bourre_hands_recorded_total", kind="reported") == 0
    )
    record(session, bob, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    record(session, bob, tricks={"ann": 2, "ben": 2, "cal": 1, "dee": 0})
    text = scrape(client).content.decode()
    assert value(text, "bourre_hands_recorded_total", kind="reported") == 2
    assert value(text, "bourre_hands_recorded_total", kind="digital") == 0
    assert value(text, "bourre_hands_in_progress") == 0
    assert value(text, "bourre_database_up") == 1


@pytest.mark.django_db
def test_the_webhook_backlog_is_the_pending_deliveries(client, club):
    text = scrape(client).content.decode()
    assert value(text, "bourre_webhook_deliveries_pending") == 0
    assert value(text, "bourre_webhook_oldest_pending_seconds") == 0
    WebhookEndpoint.objects.create(club=club, url="https://hooks.example.com/a")
    WebhookEndpoint.objects.create(club=club, url="https://hooks.example.com/b")
    outbox.emit(club, "session.closed", {"id": 1})
    text = scrape(client).content.decode()
    assert value(text, "bourre_webhook_deliveries_pending") == 2
    assert value(text, "bourre_webhook_oldest_pending_seconds") >= 0


@pytest.mark.django_db
def test_the_last_check_books_is_reported(client, settings):
    assert "bourre_books_check_ok" not in scrape(client).content.decode()  # never ran
    call_command("seed_demo", stdout=io.StringIO())
    call_command("check_books", stdout=io.StringIO())
    text = scrape(client).content.decode()
    assert value(text, "bourre_books_check_ok") == 1
    assert value(text, "bourre_books_drifted") == 0
    checked = books_check.load()
    assert checked is not None and checked.sessions == GameSession.objects.count()
    assert checked.tournaments == Tournament.objects.count() >= 1  # the demo's freeze-out
    assert value(text, "bourre_books_check_timestamp_seconds") == pytest.approx(checked.checked_at)

    demo = GameSession.objects.get(name="Demo night")
    key = next(iter(demo.nets))
    demo.nets[key] += 1
    GameSession.objects.filter(pk=demo.pk).update(nets=demo.nets)
    with pytest.raises(CommandError):
        call_command("check_books", stdout=io.StringIO(), stderr=io.StringIO())
    text = scrape(client).content.decode()
    assert value(text, "bourre_books_check_ok") == 0
    assert value(text, "bourre_books_drifted") == 1


@pytest.mark.django_db
def test_check_books_says_so_when_it_cannot_keep_its_result(settings, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    settings.BOOKS_CHECK_FILE = blocker / "check_books.json"
    err = io.StringIO()
    call_command("check_books", stdout=io.StringIO(), stderr=err)  # the books still pass
    assert "The result was not kept for /metrics" in err.getvalue()


@pytest.mark.django_db
def test_a_database_that_does_not_answer_still_gives_the_request_figures(client, monkeypatch):
    from django.db import OperationalError

    def down() -> list:
        raise OperationalError("connection refused")

    monkeypatch.setattr(metrics, "_database_metrics", down)
    response = scrape(client)
    assert response.status_code == 200
    text = response.content.decode()
    assert value(text, "bourre_database_up") == 0
    assert "bourre_http_requests_total" in text


# -- several gunicorn workers, one total ---------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    started = lan_server.start(tmp_path_factory.mktemp("metrics"))
    yield started
    started.stop()


def _http(server, target: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.request("GET", target)
    response = conn.getresponse()
    return response.status, response.read().decode()


def test_make_run_adds_up_every_workers_counts(server):
    for _ in range(12):
        assert _http(server, "/healthz")[0] == 200
    labels = {"method": "GET", "route": "healthz", "status": "200"}
    for scrapes_before in range(4):  # each scrape may reach another worker
        status, text = _http(server, "/metrics")
        assert status == 200
        assert value(text, "bourre_http_requests_total", **labels) == 12
        assert (
            value(text, "bourre_http_requests_total", method="GET", route="metrics", status="200")
            == scrapes_before
        )


def _workers(server) -> int:
    """How many worker processes `make run`'s gunicorn master has forked."""
    pid = server.process.pid
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return len(children)


def test_make_run_has_several_workers(server):
    # What makes the two tests around this one meaningful: more than one process counts.
    assert _workers(server) == 2


def test_make_run_counts_failed_logins_once_across_its_workers(server):
    """Issue #33: each worker used to count failures in its own memory, so two workers
    evaluated twice the allowance. The counters are in the database now: 12 wrong
    passwords sent at once from one address, over connections of their own (spread over
    both workers), have exactly the address's free 5 evaluated."""
    secret = "a" * 32  # a CSRF secret, sent as the cookie and as the form's token
    body = urlencode({"username": "nobody", "password": "wrong", "csrfmiddlewaretoken": secret})

    def attempt(_: int) -> int:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        conn.request(
            "POST",
            "/accounts/login/",
            body=body,
            headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "Cookie": f"csrftoken={secret}",
                "Connection": "close",
            },
        )
        status = conn.getresponse().status
        conn.close()
        return status

    with ThreadPoolExecutor(max_workers=12) as pool:
        statuses = list(pool.map(attempt, range(12)))
    assert sorted(statuses) == [422] * 5 + [429] * 7
