"""POST /api/v1/hands/verify: public, throttled, stateless; 200 valid, 400 invalid."""

import json

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

URL = "/api/v1/hands/verify"
EXAMPLE = {
    "players": ["ann", "ben", "cal", "dee"],
    "dealer": "dee",
    "carry": 0,
    "up_card": "QH",
    "passed": ["ben"],
    "tricks": {"ann": 3, "cal": 2, "dee": 0},
}


def verify(body, client=None, raw=False, **extra):
    client = client or Client(enforce_csrf_checks=True)
    data = body if raw else json.dumps(body)
    return client.post(URL, data, content_type="application/json", **extra)


@pytest.mark.django_db
def test_the_documented_example_is_valid_R33_R36():
    response = verify(EXAMPLE)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    result = response.json()["result"]
    assert result["outcome"] == "win" and result["winner"] == "ann"
    assert result["payouts"] == {"ann": 4}
    assert result["bourre"] == ["dee"] and result["penalties"] == {"dee": 4}
    assert result["next_carry"] == 4 and result["next_dealer"] == "ann"


@pytest.mark.django_db
def test_an_invalid_record_is_400_with_the_verdict():
    response = verify({**EXAMPLE, "dealer": "zed"})
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["valid"] is False
    assert body["type"] == "urn:bourre:problem:invalid-record"
    assert body["status"] == 400
    assert "bad_dealer" in {e["code"] for e in body["errors"]}


@pytest.mark.django_db
def test_an_unfinished_hand_is_valid_and_says_who_is_next_R17():
    record = {k: v for k, v in EXAMPLE.items() if k != "tricks"}
    response = verify(record)
    assert response.status_code == 200
    assert response.json()["complete"] is False
    assert response.json()["next"]["player"] == "ann"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [[], [1, 2], "a hand", 42, 1.5, True, None, {}, {"players": None}, {"players": [[]]}],
    ids=[
        "empty-list",
        "list",
        "string",
        "int",
        "float",
        "bool",
        "null",
        "empty",
        "null-players",
        "nested",
    ],
)
def test_any_json_body_is_a_clean_400(body):
    response = verify(body)
    assert response.status_code == 400
    assert response.json()["valid"] is False
    assert response.json()["errors"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "raw",
    [b"", b"{", b"NaN", b"[" * 100_000 + b"]" * 100_000, b"\xff\xfe", b'{"players": "\\ud800"}'],
    ids=["empty", "truncated", "nan", "deep", "not-utf8", "lone-surrogate"],
)
def test_malformed_bodies_are_a_clean_400(raw):
    response = verify(raw, raw=True)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["valid"] is False


@pytest.mark.django_db
def test_a_lone_surrogate_name_is_echoed_as_valid_json():
    record = {**EXAMPLE, "players": ["\ud800", "ben", "cal", "dee"], "passed": ["zed"]}
    response = verify(record)
    assert response.status_code == 400
    assert json.loads(response.content)["valid"] is False


@pytest.mark.django_db
def test_a_form_post_is_415():
    response = Client().post(URL, {"players": "ann"})
    assert response.status_code == 415
    assert response["Content-Type"] == "application/problem+json"
    # It says what to send, not only what it got.
    assert "Content-Type: application/json" in response.json()["detail"]


@pytest.mark.django_db
def test_only_post_is_allowed():
    response = Client().get(URL)
    assert response.status_code == 405
    assert response.json()["status"] == 405


@pytest.mark.django_db
def test_it_needs_no_login_no_csrf_and_ignores_bad_tokens():
    client = Client(enforce_csrf_checks=True, headers={"Authorization": "Bearer brt_bogus"})
    assert verify(EXAMPLE, client=client).status_code == 200


def test_it_writes_nothing(db):
    with CaptureQueriesContext(connection) as queries:
        assert verify(EXAMPLE).status_code == 200
        assert verify({"players": []}).status_code == 400
    assert not [q for q in queries.captured_queries if not q["sql"].startswith("SELECT")]


def test_it_is_rate_limited_per_client(db, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"verify": "3/min"},
    }
    statuses = [verify(EXAMPLE, REMOTE_ADDR="10.0.0.1").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    throttled = verify(EXAMPLE, REMOTE_ADDR="10.0.0.1")
    assert throttled["Content-Type"] == "application/problem+json"
    assert int(throttled["Retry-After"]) > 0
    assert throttled.json()["type"] == "urn:bourre:problem:throttled"
    # Another client has its own allowance; a forged X-Forwarded-For is not one.
    assert verify(EXAMPLE, REMOTE_ADDR="10.0.0.2").status_code == 200
    forged = verify(EXAMPLE, REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="1.2.3.4")
    assert forged.status_code == 429
