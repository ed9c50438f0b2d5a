"""/healthz for load balancers, and a database outage answered 503 + Retry-After."""

import json

import pytest
from django.db import OperationalError
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_healthz_reports_database_and_cache(client):
    response = client.get("/healthz", HTTP_HOST="10.1.2.3")  # a balancer probes by address
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "cache": "ok"}


def test_healthz_is_503_when_the_cache_fails(client, monkeypatch):
    from django.core.cache import cache

    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "set", broken)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["cache"] == "unavailable"
    assert response["Retry-After"]


def test_healthz_is_503_when_the_database_fails(client, monkeypatch):
    from bourre_site import middleware

    def broken():
        raise OperationalError("connection refused")

    monkeypatch.setattr(middleware.connection, "cursor", broken)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == "unavailable"


def _database_down(monkeypatch, module, name):
    def broken(*args, **kwargs):
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(module, name, broken)


def test_database_outage_on_a_page_is_503_with_retry(alice_client, club, monkeypatch):
    from games.clubs import views

    _database_down(monkeypatch, views, "render")
    response = alice_client.get(reverse("club_detail", args=[club.pk]))
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    assert "Nothing was saved" in response.content.decode()


@pytest.mark.parametrize("poll", [False, True])
def test_database_outage_before_the_view_is_503_too(carol, table_for_outage, monkeypatch, poll):
    """The login session is read in middleware (the language, the scoreboard poll's 304),
    before any view: an outage there is the same 503, not Django's bare 500."""
    from django.contrib.sessions.backends import db as session_db
    from django.test import Client

    from games import sql

    phone = Client(raise_request_exception=False)
    phone.force_login(carol)
    url = reverse("session_detail", args=[table_for_outage.pk])
    etag = phone.get(url, HTTP_HX_REQUEST="true")["ETag"]
    _database_down(monkeypatch, session_db.SessionStore, "load")
    _database_down(monkeypatch, sql, "login_board_poll")
    headers = {"HTTP_IF_NONE_MATCH": etag} if poll else {}
    response = phone.get(url, HTTP_HX_REQUEST="true", **headers)
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    assert "Nothing was saved" in response.content.decode()
    api = phone.get("/api/v1/clubs/")
    assert api.status_code == 503 and api["Content-Type"] == "application/problem+json"


def test_other_errors_before_the_view_stay_500(alice_client, monkeypatch):
    from django.contrib.sessions.backends import db as session_db

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(session_db.SessionStore, "load", broken)
    alice_client.raise_request_exception = False
    response = alice_client.get(reverse("home"))
    assert response.status_code == 500 and "Retry-After" not in response


@pytest.fixture
def table_for_outage(club, players, bob):
    from tests.games.test_session_views import start_table

    return start_table(club, players, bob)


def test_database_outage_on_the_api_is_problem_json(client, monkeypatch):
    from games.api import views

    _database_down(monkeypatch, views, "verify")
    response = client.post(
        reverse("api_hand_verify"),
        {"players": ["ann", "ben"], "dealer": "ben", "up_card": "QH"},
        content_type="application/json",
    )
    assert response.status_code == 503
    assert response["Content-Type"] == "application/problem+json"
    body = json.loads(response.content)
    assert body["status"] == 503 and body["errors"][0]["code"] == "unavailable"
    assert int(response["Retry-After"]) > 0


def test_json_log_lines():
    import logging

    from bourre_site.jsonlog import JsonFormatter

    record = logging.makeLogRecord(
        {"name": "bourre", "levelname": "ERROR", "msg": "hand %s", "args": (7,), "status_code": 503}
    )
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "hand 7" and line["level"] == "ERROR"
    assert line["status_code"] == 503 and line["logger"] == "bourre"
