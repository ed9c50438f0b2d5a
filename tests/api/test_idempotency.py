"""Idempotency-Key on every write, like Stripe's (games.api.idempotency)."""

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games.models import GameSession, Hand, IdempotencyRecord, Player
from ledger import postings

from .conftest import FIRST_HAND, SECOND_HAND, token_client


def _post(client, url, body, key):
    return client.post(url, body, content_type="application/json", headers={"Idempotency-Key": key})


def test_a_replayed_write_changes_nothing_and_says_so(api_bob, club):
    url = f"/api/v1/clubs/{club.pk}/players/"
    first = _post(api_bob, url, {"name": "Eve"}, "add-eve")
    again = _post(api_bob, url, {"name": "Eve"}, "add-eve")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert again["Location"] == first["Location"]
    assert Player.objects.filter(club=club, name="Eve").count() == 1


def test_the_same_key_with_a_different_body_is_422(api_bob, game):
    url = f"/api/v1/sessions/{game.pk}/hands/"
    assert _post(api_bob, url, FIRST_HAND, "hand-1").status_code == 201
    response = _post(api_bob, url, SECOND_HAND, "hand-1")
    assert response.status_code == 422
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["errors"][0]["code"] == "idempotency_key_reused"
    assert game.hands.count() == 1


def test_the_same_key_on_another_path_is_422(api_bob, club, game):
    assert _post(api_bob, f"/api/v1/sessions/{game.pk}/hands/", FIRST_HAND, "k").status_code == 201
    response = _post(api_bob, f"/api/v1/clubs/{club.pk}/players/", {"name": "Eve"}, "k")
    assert response.status_code == 422


def test_a_voided_hands_key_replays_the_recorded_response(api_bob, game):
    url = f"/api/v1/sessions/{game.pk}/hands/"
    first = _post(api_bob, url, FIRST_HAND, "h")
    void = _post(api_bob, f"/api/v1/hands/{first.json()['id']}/void/", {}, "v")
    assert void.status_code == 200 and void.json()["status"] == "voided"
    again = _post(api_bob, url, FIRST_HAND, "h")
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert game.hands.count() == 1  # not recorded again


def test_an_error_is_not_kept_so_the_fixed_request_may_reuse_the_key(api_bob, club):
    url = f"/api/v1/clubs/{club.pk}/players/"
    assert _post(api_bob, url, {"name": ""}, "k").status_code == 400
    assert not IdempotencyRecord.objects.exists()
    assert _post(api_bob, url, {"name": "Eve"}, "k").status_code == 201


def test_keys_belong_to_a_token(bob, club):
    one, two = token_client(bob), token_client(bob)
    url = f"/api/v1/clubs/{club.pk}/players/"
    assert _post(one, url, {"name": "Eve"}, "k").status_code == 201
    # Another token's key space: the same key is a new request (a duplicate name here).
    assert _post(two, url, {"name": "Eve"}, "k").status_code == 400


def test_keys_are_kept_24_hours_then_forgotten(api_bob, club):
    url = f"/api/v1/clubs/{club.pk}/players/"
    assert _post(api_bob, url, {"name": "Eve"}, "k").status_code == 201
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(hours=23))
    assert _post(api_bob, url, {"name": "Eve"}, "k")["Idempotent-Replayed"] == "true"
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(hours=25))
    assert _post(api_bob, url, {"name": "Zed"}, "k").status_code == 201  # a fresh key


def test_a_key_still_in_flight_is_409(api_bob, club):
    url = f"/api/v1/clubs/{club.pk}/players/"
    assert _post(api_bob, url, {"name": "Eve"}, "busy").status_code == 201
    # As if the first request were still running: no response stored yet.
    IdempotencyRecord.objects.filter(key="busy").update(status=None)
    again = _post(api_bob, url, {"name": "Eve"}, "busy")
    assert again.status_code == 409
    assert again.json()["errors"][0]["code"] == "idempotency_key_in_use"
    assert again["Retry-After"] == "1"


def test_a_malformed_key_is_400(api_bob, club):
    response = _post(api_bob, f"/api/v1/clubs/{club.pk}/players/", {"name": "Eve"}, "x" * 81)
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "bad_idempotency_key"


def test_a_session_created_twice_with_one_key_is_one_session(api_bob, club, players):
    body = {
        "name": "Friday",
        "players": [p.pk for p in players],
        "dealer": players[0].pk,
    }
    url = f"/api/v1/clubs/{club.pk}/sessions/"
    a, b = _post(api_bob, url, body, "s"), _post(api_bob, url, body, "s")
    assert a.json()["id"] == b.json()["id"]
    assert GameSession.objects.filter(club=club).count() == 1


@pytest.mark.postgres
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="concurrent requests need PostgreSQL; SQLite serialises writers anyway",
)
@pytest.mark.django_db(transaction=True)
def test_one_token_sending_one_key_twice_at_once_records_once(club, players, alice, bob):
    session = postings.start_session(
        club=club, name="Race", players=players, dealer=players[-1], rules={}, currency=club.currency,
        user=alice,
    )  # fmt: skip
    client = token_client(bob)

    def submit(_):
        try:
            return _post(client, f"/api/v1/sessions/{session.pk}/hands/", FIRST_HAND, "once")
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=3) as pool:
        responses = list(pool.map(submit, range(3)))
    statuses = sorted(r.status_code for r in responses)
    # The first records; the others replay it or are told to retry (still in flight).
    assert statuses[0] == 201 and set(statuses) <= {201, 409}
    assert sum(1 for r in responses if r.status_code == 201 and "Idempotent-Replayed" not in r) == 1
    assert Hand.objects.filter(session=session).count() == 1
    postings.check_invariants(session)
