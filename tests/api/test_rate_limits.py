"""Rate limits on the API (issue #33 item 4): per token, per signed-in user, per address
for anonymous calls, each in fixed windows of one atomic counter (games.ratelimit
``window_hit``); RateLimit-* headers on every response, 429 problem with Retry-After past
the limit, and the schema says so on every operation.
"""

import pytest
from django.test import Client
from drf_spectacular.generators import SchemaGenerator

from .conftest import token_client

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("steady_rate_clock")]

RATE_HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")


@pytest.fixture
def rates(settings):
    def set_rates(token: str = "600/min", anon: str = "60/min") -> None:
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {"verify": "120/min", "token": token, "anon": anon},
        }

    return set_rates


def test_an_authenticated_response_says_where_its_token_stands(api_carol, club, rates):
    rates(token="5/min")
    first = api_carol.get(f"/api/v1/clubs/{club.pk}/")
    second = api_carol.get(f"/api/v1/clubs/{club.pk}/")
    assert first.status_code == 200
    assert first["RateLimit-Limit"] == "5"
    assert (first["RateLimit-Remaining"], second["RateLimit-Remaining"]) == ("4", "3")
    assert 0 < int(first["RateLimit-Reset"]) <= 60


def test_an_anonymous_response_counts_its_address(api_anon, rates):
    rates(anon="3/min")
    refused = api_anon.get("/api/v1/clubs/", REMOTE_ADDR="198.51.100.5")
    assert refused.status_code == 401
    assert refused["RateLimit-Limit"] == "3"
    assert refused["RateLimit-Remaining"] == "2"
    # Another address of the same IPv6 /64 is the same client; another line is not.
    a = api_anon.get("/api/v1/clubs/", REMOTE_ADDR="2001:db8:9:9::1")
    b = api_anon.get("/api/v1/clubs/", REMOTE_ADDR="2001:db8:9:9::2")
    c = api_anon.get("/api/v1/clubs/", REMOTE_ADDR="2001:db8:9:10::1")
    assert [r["RateLimit-Remaining"] for r in (a, b, c)] == ["2", "1", "2"]


def test_past_the_limit_is_a_429_problem_with_retry_after(api_carol, club, rates):
    rates(token="2/min")
    statuses = [api_carol.get(f"/api/v1/clubs/{club.pk}/").status_code for _ in range(2)]
    refused = api_carol.get(f"/api/v1/clubs/{club.pk}/")
    assert statuses == [200, 200]
    assert refused.status_code == 429
    assert refused["Content-Type"] == "application/problem+json"
    body = refused.json()
    assert body["type"] == "urn:bourre:problem:throttled"
    assert body["errors"][0]["code"] == "throttled"
    assert "Too many requests. Try again in" in body["detail"]
    assert 0 < int(refused["Retry-After"]) <= 60
    assert refused["Retry-After"] == refused["RateLimit-Reset"]
    assert refused["RateLimit-Remaining"] == "0"


def test_the_429_speaks_the_readers_language(api_carol, club, rates):
    rates(token="1/min")
    api_carol.get(f"/api/v1/clubs/{club.pk}/")
    refused = api_carol.get(f"/api/v1/clubs/{club.pk}/", HTTP_ACCEPT_LANGUAGE="es")
    assert refused.status_code == 429
    assert "Too many requests" not in refused.json()["detail"]


def test_each_token_has_its_own_limit(carol, club, rates):
    rates(token="2/min")
    first, second = token_client(carol), token_client(carol)
    for _ in range(2):
        assert first.get(f"/api/v1/clubs/{club.pk}/").status_code == 200
    assert first.get(f"/api/v1/clubs/{club.pk}/").status_code == 429
    # The same user's other token, and the signed-in browser, are counted apart.
    assert second.get(f"/api/v1/clubs/{club.pk}/").status_code == 200
    browser = Client()
    browser.force_login(carol)
    assert browser.get(f"/api/v1/clubs/{club.pk}/")["RateLimit-Remaining"] == "1"


def test_a_stranger_refused_with_404_is_counted_too(api_mallory, club, rates):
    rates(token="2/min")
    for _ in range(2):
        assert api_mallory.get(f"/api/v1/clubs/{club.pk}/").status_code == 404
    assert api_mallory.get(f"/api/v1/clubs/{club.pk}/").status_code == 429


def test_a_response_refused_before_the_count_still_has_the_headers(api_carol, club, rates):
    rates(token="5/min")
    api_carol.get(f"/api/v1/clubs/{club.pk}/")
    unknown_format = api_carol.get(f"/api/v1/clubs/{club.pk}/?format=csv")
    assert unknown_format.status_code == 400
    assert unknown_format["RateLimit-Remaining"] == "4"


def test_every_operation_documents_the_headers_and_429(db):
    schema = SchemaGenerator().get_schema(request=None, public=True)
    operations = [
        (path, method, op)
        for path, item in schema["paths"].items()
        for method, op in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]
    assert len(operations) > 50
    for path, method, op in operations:
        assert "429" in op["responses"], (method, path)
        assert "Retry-After" in op["responses"]["429"]["headers"], (method, path)
        for status, response in op["responses"].items():
            assert set(RATE_HEADERS) <= set(response.get("headers", {})), (method, path, status)


@pytest.mark.parametrize(
    "path", ["/api/v1/schema/", "/api/v1/docs/", "/api/v1/nowhere/", "/api/v1/sessions/abc/"]
)
def test_the_schema_its_docs_and_an_unrouted_path_carry_the_headers(api_carol, rates, path):
    """Issue #33: every API response says where its client stands, not only the routed
    operations'; and each is counted (the second answer has one less left)."""
    rates(token="5/min")
    first, second = api_carol.get(path), api_carol.get(path)
    assert first.status_code in (200, 404)
    for name in RATE_HEADERS:
        assert name in first, (path, name)
    assert (first["RateLimit-Remaining"], second["RateLimit-Remaining"]) == ("4", "3")


def test_an_unrouted_path_is_the_same_problem_and_is_limited(api_anon, rates):
    rates(anon="2/min")
    answers = [api_anon.post("/api/v1/nowhere/", {}, format="json") for _ in range(3)]
    assert [a.status_code for a in answers] == [404, 404, 429]
    assert answers[0]["Content-Type"] == "application/problem+json"
    assert answers[0].json()["errors"] == [
        {"code": "not_found", "message": answers[0].json()["detail"]}
    ]
    assert answers[2]["Retry-After"]


def test_the_schema_says_every_response_carries_the_headers(settings):
    description = settings.SPECTACULAR_SETTINGS["DESCRIPTION"]
    assert "the schema itself and the 404 of a path" in description
