"""Request ids (bourre_site/requestid.py, issue #32 item 5): every response carries an
``X-Request-ID``, every log line written for that request carries the same id, and an
incoming id is taken only from a trusted proxy."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.http import HttpRequest, HttpResponse
from django.urls import include, path

from bourre_site.jsonlog import JsonFormatter
from bourre_site.requestid import HEADER, RequestIdFilter

ROOT = Path(__file__).resolve().parent.parent
log = logging.getLogger("bourre.test.requestid")


def _logs(request: HttpRequest) -> HttpResponse:
    log.warning("inside the view")
    return HttpResponse("logged")


def _raise(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug")


def _conflict(request: HttpRequest) -> HttpResponse:
    return HttpResponse("taken", status=409)


urlpatterns = [
    path("logs/", _logs),
    path("boom/", _raise),
    path("conflict/", _conflict),
    path("", include("bourre_site.urls")),
]


def _is_generated(rid: str) -> bool:
    return len(rid) == 32 and all(c in "0123456789abcdef" for c in rid)


@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    """What the console handler would print, for the test logger and django.request."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter())
    loggers = [log, logging.getLogger("django.request")]
    for logger in loggers:
        logger.addHandler(handler)
    yield out
    for logger in loggers:
        logger.removeHandler(handler)


def _lines(out: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


@pytest.mark.django_db
@pytest.mark.parametrize("target", ["/", "/healthz", "/accounts/login/", "/no/such/page/"])
def test_every_response_carries_a_fresh_id(client, target):
    first, second = client.get(target), client.get(target)
    assert _is_generated(first[HEADER]) and _is_generated(second[HEADER])
    assert first[HEADER] != second[HEADER]


@pytest.mark.django_db
def test_a_clients_own_id_is_not_taken(client, settings):
    settings.TRUSTED_PROXIES = []
    response = client.get("/healthz", HTTP_X_REQUEST_ID="pretend-to-be-someone-else")
    assert _is_generated(response[HEADER])


@pytest.mark.django_db
def test_a_trusted_proxys_id_is_kept(client, settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    proxy = {"REMOTE_ADDR": "10.0.0.2"}
    kept = client.get("/healthz", HTTP_X_REQUEST_ID="caddy-7f3a:42", **proxy)
    assert kept[HEADER] == "caddy-7f3a:42"
    stranger = client.get("/healthz", HTTP_X_REQUEST_ID="caddy-7f3a:42", REMOTE_ADDR="192.0.2.9")
    assert _is_generated(stranger[HEADER])


@pytest.mark.django_db
@pytest.mark.parametrize("bad", ["a b", "x" * 129, "line\nbreak", "é", "<script>"])
def test_a_malformed_id_is_replaced_even_from_a_trusted_proxy(client, settings, bad):
    settings.TRUSTED_PROXIES = ["127.0.0.1/32"]
    response = client.get("/healthz", HTTP_X_REQUEST_ID=bad)
    assert _is_generated(response[HEADER])


@pytest.mark.django_db
@pytest.mark.urls("tests.test_request_id")
def test_log_lines_of_a_request_carry_its_id(client, json_lines):
    response = client.get("/logs/")
    lines = _lines(json_lines)
    assert [line["message"] for line in lines] == ["inside the view"]
    assert lines[0]["request_id"] == response[HEADER]


@pytest.mark.django_db
@pytest.mark.urls("tests.test_request_id")
def test_djangos_own_error_lines_carry_the_id(client, json_lines):
    client.raise_request_exception = False
    failed = client.get("/boom/")
    missing = client.get("/no/such/page/")
    # An error answer a view returns is logged by Django after the middleware returned.
    refused = client.get("/conflict/")
    assert (failed.status_code, missing.status_code, refused.status_code) == (500, 404, 409)
    by_message = {line["message"]: line for line in _lines(json_lines)}
    assert by_message["Internal Server Error: /boom/"]["request_id"] == failed[HEADER]
    assert "RuntimeError: a bug" in by_message["Internal Server Error: /boom/"]["exception"]
    assert by_message["Not Found: /no/such/page/"]["request_id"] == missing[HEADER]
    assert by_message["Conflict: /conflict/"]["request_id"] == refused[HEADER]


def test_a_line_outside_any_request_has_no_id(json_lines):
    log.warning("at start-up")
    assert "request_id" not in _lines(json_lines)[0]


def _production_log_line(**env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "BOURRE_"))}
    clean |= {"DJANGO_SETTINGS_MODULE": "bourre_site.settings", "DJANGO_SECRET_KEY": "k" * 60}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django, logging; django.setup(); logging.getLogger('bourre').error('books')",
        ],
        cwd=ROOT,
        env=clean | env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr.strip()


def test_production_logs_are_json_lines_and_a_terminal_gets_text():
    line = json.loads(_production_log_line())
    assert line["message"] == "books" and line["level"] == "ERROR" and line["logger"] == "bourre"
    assert _production_log_line(BOURRE_LAN="1") == "books"  # `make run`: a person reads it
    assert _production_log_line(DJANGO_LOG_FORMAT="text") == "books"
