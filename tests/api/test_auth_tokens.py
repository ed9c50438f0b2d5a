"""Onboarding: tokens by username and password, listed, revoked, expiring, and revoked
by any change of password (the change form, a reset, set_password anywhere)."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games.models import ApiToken

from .conftest import token_client

URL = "/api/v1/auth/tokens/"


def _create(client, username, password, **extra):
    body = {"username": username, "password": password, "name": "laptop", **extra}
    return client.post(URL, body, content_type="application/json")


def _bearer(key: str) -> Client:
    return Client(headers={"Authorization": f"Bearer {key}"})


def test_a_token_by_password_opens_the_api(api_anon, bob, club, password):
    response = _create(api_anon, "bob", password)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["token"].startswith("brt_") and body["status"] == "active"
    assert response["Cache-Control"] == "no-store"
    assert response["Location"] == f"http://testserver/api/v1/auth/tokens/{body['id']}/"
    assert _bearer(body["token"]).get("/api/v1/clubs/").status_code == 200
    listed = _bearer(body["token"]).get(URL).json()["results"]
    assert [t["name"] for t in listed] == ["laptop"]
    assert "token" not in listed[0]  # the key is shown once


def test_the_path_without_a_slash_works_too(api_anon, bob, password):
    response = api_anon.post(
        "/api/v1/auth/tokens",
        {"username": "bob", "password": password, "name": "x"},
        content_type="application/json",
    )
    assert response.status_code == 201


@pytest.fixture
def frozen_clock(monkeypatch):
    """The login throttle's clock stands still: its waits are seconds long."""
    from types import SimpleNamespace

    from games import ratelimit

    monkeypatch.setattr(ratelimit, "time", SimpleNamespace(time=lambda: 1_000_000.0))


def test_a_wrong_password_is_401_and_slows_down_like_the_login_form(
    api_anon, client, bob, password, settings, frozen_clock
):
    settings.LOGIN_RATE_LIMIT = 3  # failures tried at once per (address, username)
    for _ in range(3):
        response = _create(api_anon, "bob", "wrong")
        assert response.status_code == 401
        assert response.json()["errors"][0]["code"] == "invalid_credentials"
        assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    # The third failure started a wait: refused even with the right password...
    response = _create(api_anon, "bob", password)
    assert response.status_code == 429
    assert response["Retry-After"] == "1"
    # ...and the web login form shares the same throttle.
    login = client.post("/accounts/login/", {"username": "bob", "password": password})
    assert login.status_code == 429


def test_a_success_clears_the_pair(api_anon, bob, password, settings, frozen_clock):
    settings.LOGIN_RATE_LIMIT = 3
    _create(api_anon, "bob", "wrong")
    _create(api_anon, "bob", "wrong")
    assert _create(api_anon, "bob", password).status_code == 201
    # Two more failures are free again.
    assert _create(api_anon, "bob", "wrong").status_code == 401
    assert _create(api_anon, "bob", "wrong").status_code == 401
    assert _create(api_anon, "bob", password).status_code == 201


def test_an_expiring_token_stops_at_its_time(api_anon, bob, club, password):
    body = _create(api_anon, "bob", password, expires_in_days=30).json()
    assert body["expires_at"].endswith("Z")
    api = _bearer(body["token"])
    assert api.get("/api/v1/clubs/").status_code == 200
    ApiToken.objects.filter(pk=body["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert api.get("/api/v1/clubs/").status_code == 401


def test_revoking_by_api(api_anon, bob, club, password):
    body = _create(api_anon, "bob", password).json()
    api = _bearer(body["token"])
    assert api.delete(f"{URL}{body['id']}/").status_code == 204
    assert api.get("/api/v1/clubs/").status_code == 401
    assert ApiToken.objects.get(pk=body["id"]).revoked_at is not None


def test_someone_elses_token_is_404(api_mallory, bob):
    token, _ = ApiToken.issue(bob, "bob's")
    assert api_mallory.delete(f"{URL}{token.pk}/").status_code == 404
    assert api_mallory.get(f"{URL}{token.pk}/").status_code == 404
    assert ApiToken.objects.get(pk=token.pk).revoked_at is None


def test_the_password_change_form_revokes_every_token(bob, bob_client, club, password):
    api = token_client(bob)
    assert api.get("/api/v1/clubs/").status_code == 200
    response = bob_client.post(
        "/accounts/password/",
        {
            "old_password": password,
            "new_password1": "n3w-Secret-pw!",
            "new_password2": "n3w-Secret-pw!",
        },
    )
    assert response.status_code == 302
    assert api.get("/api/v1/clubs/").status_code == 401
    assert api.get(URL).status_code == 401


def test_any_set_password_revokes_every_token_eg_a_reset_link(bob, club):
    # A password reset (being added in parallel) ends in user.set_password(); user.save().
    api, other = token_client(bob), token_client(bob)
    bob.set_password("reset-by-email-123")
    bob.save()
    assert api.get("/api/v1/clubs/").status_code == 401
    assert other.get("/api/v1/clubs/").status_code == 401
    fresh = _create(Client(), "bob", "reset-by-email-123").json()
    assert _bearer(fresh["token"]).get("/api/v1/clubs/").status_code == 200
    statuses = {t["name"]: t["status"] for t in _bearer(fresh["token"]).get(URL).json()["results"]}
    assert statuses == {"tests": "password_changed", "laptop": "active"}


def test_saving_the_user_without_a_new_password_keeps_tokens(bob, club):
    api = token_client(bob)
    bob.first_name = "Bob"
    bob.save()
    assert api.get("/api/v1/clubs/").status_code == 200


@pytest.mark.parametrize("body", [{}, {"username": "bob"}, {"username": "bob", "password": "x"}])
def test_missing_fields_are_400(api_anon, bob, body):
    response = api_anon.post(URL, body, content_type="application/json")
    assert response.status_code == 400
