"""Problem details for every error, and the conventions other API modules import."""

import json

import pytest
from django.http import Http404
from rest_framework.exceptions import PermissionDenied
from rest_framework.test import APIRequestFactory

from games.api.base import ClubRolePermission, club_id_of, for_member
from games.models import GameSession

from .conftest import FIRST_HAND

PROBLEM_KEYS = {"type", "title", "status", "detail", "errors"}


def test_a_missing_object_is_a_404_problem(api_carol, club):
    response = api_carol.get("/api/v1/sessions/999999/")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert set(body) >= PROBLEM_KEYS
    assert (body["type"], body["title"], body["status"]) == ("about:blank", "Not found", 404)


def test_an_id_beyond_64_bits_is_404_not_500(api_carol, club):
    assert api_carol.get(f"/api/v1/sessions/{'9' * 40}/").status_code == 404


def test_a_wrong_method_is_405(api_carol, club):
    response = api_carol.delete(f"/api/v1/clubs/{club.pk}/")
    assert response.status_code == 405
    assert response.json()["errors"][0]["code"] == "method_not_allowed"


@pytest.mark.parametrize(
    "raw",
    [b"{", b"[" * 50_000 + b"]" * 50_000, b"[]", b'"text"', b"null", b"\xff"],
    ids=["truncated", "deep", "list", "string", "null", "not-utf8"],
)
def test_any_body_to_a_write_endpoint_is_a_clean_400(api_bob, game, raw):
    response = api_bob.post(
        f"/api/v1/sessions/{game.pk}/hands/", raw, content_type="application/json"
    )
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert game.hands.count() == 0
    # The API's own words, not Python's JSON decoder's ("Expecting value: line 1...").
    assert "line 1" not in response.content.decode() and "char" not in response.content.decode()


def test_a_body_that_is_not_json_is_told_in_the_readers_language(api_bob, game):
    response = api_bob.post(
        f"/api/v1/sessions/{game.pk}/hands/", b"{", content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="es",
    )  # fmt: skip
    body = response.json()
    assert response.status_code == 400 and body["errors"][0]["code"] == "parse_error"
    assert body["detail"] == body["errors"][0]["message"] and "JSON" in body["detail"]
    assert "parse error" not in body["detail"] and "comillas" in body["detail"]


def test_a_body_nested_too_deeply_is_told_so_not_to_check_its_commas(api_bob, game):
    deep = b"[" * 50_000 + b"]" * 50_000  # valid JSON, deeper than the decoder goes
    response = api_bob.post(
        f"/api/v1/sessions/{game.pk}/hands/", deep, content_type="application/json"
    )
    detail = response.json()["detail"]
    assert response.status_code == 400 and "nested too deeply" in detail
    assert "commas" not in detail


def test_the_verifier_says_a_body_is_not_json_in_the_readers_language(api_anon):
    response = api_anon.post(
        "/api/v1/hands/verify/", b"{x", content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="es",
    )  # fmt: skip
    body = response.json()
    [error] = body["errors"]
    assert response.status_code == 400 and error["code"] == "bad_json"
    assert "comillas" in error["message"]  # the API's words, in Spanish
    assert "Expecting" not in error["message"] and "line 1" not in error["message"]


@pytest.mark.parametrize(
    "body, field",
    [
        ([1, 2], None),
        ({"trump": "H", "tricks": "abc"}, "tricks"),
        ({"trump": "H", "tricks": {"ann": 3}, "passed": "ben"}, "passed"),
    ],
    ids=["list-body", "tricks-text", "passed-text"],
)
@pytest.mark.parametrize("lang", ["en", "fi"])
def test_a_value_of_the_wrong_shape_is_named_in_jsons_words(api_bob, game, body, field, lang):
    """DRF says 'Expected a dictionary, but got list' and 'got type "str"' (Python's
    names, in Finnish too); a client writes JSON."""
    response = api_bob.post(
        f"/api/v1/sessions/{game.pk}/hands/", json.dumps(body), content_type="application/json",
        HTTP_ACCEPT_LANGUAGE=lang,
    )  # fmt: skip
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error.get("field") == field
    for python in ("dictionary", "list.", '"str"', "sanakirja"):
        assert python not in error["message"], error["message"]
    assert "JSON" in error["message"]
    if lang == "fi":
        assert "must be" not in error["message"]  # in Finnish
    assert game.hands.count() == 0


def test_validation_errors_are_flattened_with_dotted_fields(api_bob, game):
    response = api_bob.post(
        f"/api/v1/sessions/{game.pk}/hands/",
        {"trump": "H", "tricks": {"ann": -1}, "reneges": [{"player": "ann"}, {}]},
        content_type="application/json",
    )
    body = response.json()
    assert body["type"] == "urn:bourre:problem:validation"
    assert {e["field"] for e in body["errors"]} == {"tricks.ann", "reneges.1.player"}
    assert all({"code", "message"} <= set(e) for e in body["errors"])


def test_an_unexpected_error_is_a_logged_500_problem(api_bob, game, monkeypatch, caplog):
    from ledger import postings

    def broken(**kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(postings, "record_hand", broken)
    response = api_bob.post(
        f"/api/v1/sessions/{game.pk}/hands/", FIRST_HAND, content_type="application/json"
    )
    assert response.status_code == 500
    assert response["Content-Type"] == "application/problem+json"
    assert "boom" not in response.content.decode()  # no internals leak
    assert "Unhandled API error" in caplog.text


def test_unicode_is_returned_as_is(api_bob, club):
    response = api_bob.post(
        f"/api/v1/clubs/{club.pk}/players/", {"name": "José ♥"}, content_type="application/json"
    )
    assert "José ♥".encode() in response.content


def test_a_lone_surrogate_is_refused_not_a_500(api_bob, club):
    response = api_bob.post(
        f"/api/v1/clubs/{club.pk}/players/",
        b'{"name": "\\ud800"}',
        content_type="application/json",
    )
    assert response.status_code == 400
    json.loads(response.content)


# --- the reusable conventions ----------------------------------------------------------------


class _View:
    pass


@pytest.mark.parametrize(
    "who, method, outcome",
    [
        ("mallory", "GET", Http404),
        ("carol", "GET", True),
        ("carol", "POST", PermissionDenied),
        ("bob", "POST", True),
    ],
)
def test_club_role_permission_follows_games_access(request, game, mallory, who, method, outcome):
    user = request.getfixturevalue(who)
    factory = APIRequestFactory()
    drf_request = factory.generic(method, "/")
    drf_request.user = user
    drf_request.method = method
    permission = ClubRolePermission()
    if outcome is True:
        assert permission.has_object_permission(drf_request, _View(), game)
    else:
        with pytest.raises(Exception) as caught:
            permission.has_object_permission(drf_request, _View(), game)
        assert caught.type.__name__ == outcome.__name__


def test_club_id_of_reaches_through_sessions_and_hands(club, played):
    hand = played.hands.first()
    assert club_id_of(club) == club_id_of(played) == club_id_of(hand) == club.pk


def test_for_member_keeps_only_my_clubs_rows(carol, mallory, game, other_club_game):
    mine = for_member(GameSession.objects.all(), carol)
    assert list(mine) == [game]
    assert list(for_member(GameSession.objects.all(), mallory)) == [other_club_game]


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/clubs/{big}/",
        "/api/v1/clubs/{big}/players/",
        "/api/v1/clubs/{big}/postings/",
        "/api/v1/players/{big}/",
        "/api/v1/hands/{big}/",
        "/api/v1/sessions/{big}/settlement/",
    ],
)
def test_ids_beyond_any_row_are_404_not_a_database_overflow(api_carol, club, url):
    # Found by schemathesis: a foreign-key lookup with such an id overflowed SQLite.
    response = api_carol.get(url.format(big=2**64 + 7))
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"


def test_any_bourre_error_is_a_problem_with_its_own_status(api_bob, game, monkeypatch):
    """The API maps the whole error family in one place: a refusal that has no problem
    type of its own still answers with its status, code and field, never a 500."""
    from games.digital.service import DigitalError
    from ledger import postings

    def refused(**kwargs):
        raise DigitalError("Another hand is being played at this table.", "hand_in_progress")

    monkeypatch.setattr(postings, "record_hand", refused)
    response = api_bob.post(
        f"/api/v1/sessions/{game.pk}/hands/", FIRST_HAND, content_type="application/json"
    )
    assert response.status_code == 409
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["status"] == 409
    assert body["errors"] == [
        {"code": "hand_in_progress", "message": "Another hand is being played at this table."}
    ]
