"""Who may call what: every endpoint × anonymous, stranger, member, scorekeeper, revoked."""

import pytest

from .conftest import FIRST_HAND

READ_STATUS = {
    "anonymous": 401,
    "revoked": 401,
    "stranger": 404,
    "member": 200,
    "scorekeeper": 200,
    "owner": 200,
}
WRITE_STATUS = {
    "anonymous": 401,
    "revoked": 401,
    "stranger": 404,
    "member": 403,
    "scorekeeper": 201,
    "owner": 201,
}

READS = [
    "/api/v1/clubs/{club}/",
    "/api/v1/clubs/{club}/players/",
    "/api/v1/players/{player}/",
    "/api/v1/clubs/{club}/sessions/",
    "/api/v1/sessions/{session}/",
    "/api/v1/sessions/{session}/hands/",
    "/api/v1/hands/{hand}/",
    "/api/v1/clubs/{club}/postings/",
    "/api/v1/clubs/{club}/balances/",
    "/api/v1/clubs/{club}/stats/",
    "/api/v1/sessions/{session}/balances/",
    "/api/v1/sessions/{session}/settlement/",
    "/api/v1/sessions/{session}/settlement/csv/",
]


@pytest.fixture
def ids(club, players, played):
    return {
        "club": club.pk,
        "player": players[0].pk,
        "session": played.pk,
        "hand": played.hands.first().pk,
    }


@pytest.mark.parametrize("who", list(READ_STATUS))
@pytest.mark.parametrize("url", READS)
def test_reading_needs_membership(personas, ids, who, url):
    response = personas[who].get(url.format(**ids))
    assert response.status_code == READ_STATUS[who], response.content
    if response.status_code != 200:
        assert response["Content-Type"] == "application/problem+json"
        assert response.json()["status"] == READ_STATUS[who]


def _writes(ids, players):
    return [
        (f"/api/v1/clubs/{ids['club']}/players/", {"name": "eve"}),
        (
            f"/api/v1/clubs/{ids['club']}/sessions/",
            {"name": "Friday", "players": [p.pk for p in players], "dealer": players[0].pk},
        ),
        (f"/api/v1/sessions/{ids['session']}/hands/", FIRST_HAND),
    ]


@pytest.mark.parametrize("who", list(WRITE_STATUS))
@pytest.mark.parametrize("which", ["player", "session", "hand"])
def test_writing_needs_the_scorekeeper_role(personas, club, players, game, who, which):
    ids = {"club": club.pk, "session": game.pk}
    url, body = dict(zip(["player", "session", "hand"], _writes(ids, players), strict=True))[which]
    response = personas[who].post(url, body, content_type="application/json")
    assert response.status_code == WRITE_STATUS[who], response.content
    if response.status_code >= 400:
        assert response["Content-Type"] == "application/problem+json"


def test_a_stranger_sees_no_club_in_the_list(api_mallory, club):
    response = api_mallory.get("/api/v1/clubs/")
    assert response.status_code == 200
    assert response.json() == {"next": None, "previous": None, "results": []}


def test_anonymous_club_list_is_401_with_a_bearer_challenge(api_anon):
    response = api_anon.get("/api/v1/clubs/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/sessions/{session}/",
        "/api/v1/sessions/{session}/hands/",
        "/api/v1/sessions/{session}/balances/",
        "/api/v1/sessions/{session}/settlement/",
        "/api/v1/hands/{hand}/",
        "/api/v1/players/{player}/",
        "/api/v1/clubs/{club}/",
        "/api/v1/clubs/{club}/postings/",
        "/api/v1/clubs/{club}/stats/",
    ],
)
def test_another_clubs_objects_are_404_even_to_its_owner_of_our_club(
    api_alice, other_club_game, url
):
    ids = {
        "session": other_club_game.pk,
        "hand": other_club_game.hands.first().pk,
        "player": other_club_game.seats.first().player_id,
        "club": other_club_game.club_id,
    }
    response = api_alice.get(url.format(**ids))
    assert response.status_code == 404
    assert response.json()["title"] == "Not found"


def test_recording_into_another_clubs_session_is_404(api_bob, other_club_game):
    response = api_bob.post(
        f"/api/v1/sessions/{other_club_game.pk}/hands/",
        {"trump": "H", "tricks": {"xa": 3, "xb": 1, "xc": 1}},
        content_type="application/json",
    )
    assert response.status_code == 404
    assert other_club_game.hands.count() == 1


def test_session_login_works_for_reading(carol_client, played):
    response = carol_client.get(f"/api/v1/sessions/{played.pk}/")
    assert response.status_code == 200


def test_session_login_needs_csrf_for_writing(bob, game):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(bob)
    response = client.post(
        f"/api/v1/sessions/{game.pk}/hands/", FIRST_HAND, content_type="application/json"
    )
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
    assert game.hands.count() == 0


def test_token_requests_need_no_csrf(bob, game):
    from .conftest import token_client

    client = token_client(bob, enforce_csrf_checks=True)
    response = client.post(
        f"/api/v1/sessions/{game.pk}/hands/", FIRST_HAND, content_type="application/json"
    )
    assert response.status_code == 201


@pytest.mark.parametrize(
    "header", ["Bearer brt_not-a-real-token", "Bearer", "Bearer a b", "Token brt_nope"]
)
def test_bad_tokens_are_401(club, header):
    from django.test import Client

    response = Client(headers={"Authorization": header}).get("/api/v1/clubs/")
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"


def test_a_token_records_its_last_use(bob, club):
    from django.test import Client

    from games.models import ApiToken

    token, key = ApiToken.issue(bob, "script")
    assert token.last_used_at is None
    Client(headers={"Authorization": f"Bearer {key}"}).get("/api/v1/clubs/")
    token.refresh_from_db()
    assert token.last_used_at is not None
