"""The bar of issue #33 for rate limits: an authenticated API response carries the
RateLimit headers, and a login throttle reserves before it evaluates."""

import pytest
from django.test import Client

from games import ratelimit
from games.models import ApiToken

pytestmark = pytest.mark.django_db


def test_an_authenticated_api_response_carries_ratelimit_headers(alice):
    _, key = ApiToken.issue(alice, "bar")
    response = Client(headers={"Authorization": f"Bearer {key}"}).get("/api/v1/clubs/")
    assert response.status_code == 200
    limit = int(response["RateLimit-Limit"])
    assert limit > 0
    assert int(response["RateLimit-Remaining"]) == limit - 1
    assert int(response["RateLimit-Reset"]) > 0


def test_a_refused_login_attempt_holds_no_place(settings):
    for _ in range(settings.LOGIN_RATE_LIMIT):
        assert ratelimit.login_begin("192.0.2.1", "alice").wait == 0
    # The free places are all being checked: the next waits, and takes none.
    refused = ratelimit.login_begin("192.0.2.1", "alice")
    assert refused.wait > 0 and refused.slots == []
