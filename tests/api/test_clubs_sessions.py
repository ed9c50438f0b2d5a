"""Clubs, players and sessions."""

import pytest

from games.models import GameSession, Player
from ledger import postings
from tests.factories import PlayerFactory

from .conftest import FIRST_HAND, record


def test_club_list_shows_my_clubs_with_my_role(api_carol, club):
    (body,) = api_carol.get("/api/v1/clubs/").json()["results"]
    assert body.pop("created_at")
    assert body == {
        "id": club.pk,
        "name": "Bayou Club",
        "currency": {"code": "USD", "exponent": 0, "symbol": "$"},
        "role": "member",
    }


def test_club_detail(api_bob, club):
    body = api_bob.get(f"/api/v1/clubs/{club.pk}/").json()
    assert (body["name"], body["role"]) == ("Bayou Club", "scorekeeper")


def test_roster_lists_players_by_name(api_carol, club, players, bob):
    players[0].user = bob
    players[0].save()
    body = api_carol.get(f"/api/v1/clubs/{club.pk}/players/").json()["results"]
    assert [p["name"] for p in body] == ["ann", "ben", "cal", "dee"]
    assert body[0]["member"] == "bob" and body[1]["member"] is None


def test_player_detail(api_carol, players):
    body = api_carol.get(f"/api/v1/players/{players[1].pk}/").json()
    assert body["name"] == "ben"


def test_adding_a_player_uses_the_roster_rules(api_bob, club, players):
    response = api_bob.post(
        f"/api/v1/clubs/{club.pk}/players/",
        {"name": "  Eve   Lyn "},
        content_type="application/json",
    )
    assert response.status_code == 201
    assert response.json()["name"] == "Eve Lyn"  # spaces tidied like the roster form
    assert response["Location"] == f"http://testserver/api/v1/players/{response.json()['id']}/"
    duplicate = api_bob.post(
        f"/api/v1/clubs/{club.pk}/players/", {"name": "ANN"}, content_type="application/json"
    )
    assert duplicate.status_code == 400
    assert duplicate.json()["errors"][0]["field"] == "name"
    assert club.players.count() == 5


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": "x" * 41}, {"name": None}, [], "ann"])
def test_a_bad_player_body_is_400(api_bob, club, body):
    response = api_bob.post(
        f"/api/v1/clubs/{club.pk}/players/", body, content_type="application/json"
    )
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"


# --- sessions ------------------------------------------------------------------------------


def start_body(players, **extra):
    return {"name": "Friday", "players": [p.pk for p in players], "dealer": players[-1].pk, **extra}


def test_starting_a_session(api_bob, club, players):
    response = api_bob.post(
        f"/api/v1/clubs/{club.pk}/sessions/",
        start_body(players, rules={"ante": 2}),
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    session = GameSession.objects.get(pk=body["id"])
    assert [s["player"]["name"] for s in body["seats"]] == ["ann", "ben", "cal", "dee"]
    assert body["dealer"]["name"] == "dee"
    assert body["rules"]["ante"] == 2
    assert body["currency"] == {"code": "USD", "exponent": 0, "symbol": "$"}
    assert body["pot"] == 0
    assert response["ETag"] == f'"{session.version}"'
    postings.check_invariants(session)


def test_a_new_session_pulls_in_the_clubs_carried_pot(api_bob, club, players, game, bob):
    record(game, FIRST_HAND, bob)  # leaves 4 in the pot
    postings.close_session(session_id=game.pk, user=bob)  # carried to the club
    response = api_bob.post(
        f"/api/v1/clubs/{club.pk}/sessions/", start_body(players), content_type="application/json"
    )
    assert response.json()["pot"] == 4
    assert response.json()["carry"] == 4


@pytest.mark.parametrize(
    "change, field, code",
    [
        ({"rules": {"ante": 0}}, "rules.ante", "bad_rule_value"),
        ({"rules": {"antes": 1}}, "rules.antes", "unknown_rule"),
        ({"dealer": 999999}, "dealer", "bad_dealer"),
        ({"players": [1]}, "players", "min_length"),
        ({"mode": "telepathy"}, "mode", "invalid_choice"),
        ({"leftover_policy": "burn"}, "leftover_policy", "invalid_choice"),
        ({"name": " "}, "name", "blank"),
        ({"colour": "red"}, "colour", "unknown_field"),
    ],
)
def test_bad_session_input_is_a_field_error(api_bob, club, players, change, field, code):
    response = api_bob.post(
        f"/api/v1/clubs/{club.pk}/sessions/",
        {**start_body(players), **change},
        content_type="application/json",
    )
    assert response.status_code == 400, response.content
    assert {"field": field, "code": code} in [
        {"field": e.get("field"), "code": e["code"]} for e in response.json()["errors"]
    ]
    assert not GameSession.objects.exists()


def test_duplicate_and_foreign_players_are_refused_R3(api_bob, club, players, other_club_game):
    foreign = other_club_game.seats.first().player_id
    response = api_bob.post(
        f"/api/v1/clubs/{club.pk}/sessions/",
        {"name": "x", "players": [players[0].pk, players[0].pk, foreign], "dealer": players[0].pk},
        content_type="application/json",
    )
    assert response.status_code == 400
    codes = {e["code"] for e in response.json()["errors"]}
    assert codes == {"duplicate_player", "unknown_player"}
    # The other club's player is not revealed by name.
    assert "xa" not in response.content.decode()


def test_nine_players_are_refused_R3(api_bob, club, players):
    nine = players + [PlayerFactory(club=club, name=f"p{i}") for i in range(5)]
    response = api_bob.post(
        f"/api/v1/clubs/{club.pk}/sessions/", start_body(nine), content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "players"


def test_session_detail_has_pot_dealer_excused_and_balances(api_carol, game, bob):
    record(game, FIRST_HAND, bob)
    response = api_carol.get(f"/api/v1/sessions/{game.pk}/")
    body = response.json()
    assert body["pot"] == 4  # dee's bourré penalty opens the next pot
    assert body["dealer"]["name"] == "ann"
    assert [p["name"] for p in body["excused"]] == ["dee"]
    nets = {b["player"]["name"]: b["net"] for b in body["balances"]}
    assert nets == {"ann": 3, "ben": -1, "cal": -1, "dee": -5}
    assert body["next_hand"]["players"] == ["ann", "ben", "cal", "dee"]
    assert body["next_hand"]["version"] == body["version"]
    assert response["ETag"] == f'"{body["version"]}"'


def test_session_list_newest_first_with_status_filter(api_carol, club, players, game, alice):
    later = postings.start_session(
        club=club, name="Later", players=players[:2], dealer=players[0], rules={},
        currency=club.currency, user=alice,
    )  # fmt: skip
    postings.close_session(session_id=game.pk, user=alice)
    page = api_carol.get(f"/api/v1/clubs/{club.pk}/sessions/").json()
    assert [s["id"] for s in page["results"]] == [later.pk, game.pk]
    open_only = api_carol.get(f"/api/v1/clubs/{club.pk}/sessions/?status=open").json()
    assert [s["id"] for s in open_only["results"]] == [later.pk]


def test_player_lookups_stay_in_the_club(api_bob, club, other_club_game):
    assert Player.objects.count() == 3  # only the other club's roster exists
    response = api_bob.get(f"/api/v1/clubs/{other_club_game.club_id}/players/")
    assert response.status_code == 404


def test_polling_with_the_etag_is_304_until_the_session_changes(
    api_carol, game, bob, django_assert_max_num_queries
):
    url = f"/api/v1/sessions/{game.pk}/"
    etag = api_carol.get(url)["ETag"]
    with django_assert_max_num_queries(3):  # token, session, membership
        response = api_carol.get(url, headers={"If-None-Match": etag})
    assert response.status_code == 304
    assert response.content == b""
    record(game, FIRST_HAND, bob)
    response = api_carol.get(url, headers={"If-None-Match": etag})
    assert response.status_code == 200
    assert response["ETag"] != etag
