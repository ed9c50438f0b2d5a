"""Hands: list, detail, and recording from a hand record (idempotent, versioned)."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from games.models import Hand
from ledger import postings
from ledger.models import Posting

from .conftest import FIRST_HAND, SECOND_HAND


def post_hand(client, session, body, **headers):
    return client.post(
        f"/api/v1/sessions/{session.pk}/hands/",
        body,
        content_type="application/json",
        headers=headers,
    )


def test_recording_a_hand_settles_it_through_the_ledger(api_bob, game):
    response = post_hand(api_bob, game, FIRST_HAND, **{"Idempotency-Key": "hand-1"})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["number"] == 1
    assert body["outcome"] == "win" and body["winner"] == "ann"
    assert body["verdict"]["result"]["payouts"] == {"ann": 4}
    # The session supplied players, dealer and carry.
    assert body["record"]["players"] == ["ann", "ben", "cal", "dee"]
    assert body["record"]["dealer"] == "dee"
    assert response["Location"] == f"http://testserver/api/v1/hands/{body['id']}/"
    assert set(Posting.objects.filter(hand_id=body["id"]).values_list("kind", flat=True)) == {
        "ante",
        "payout",
        "penalty",
    }
    postings.check_invariants(game)


def test_the_same_idempotency_key_replays_the_first_response(api_bob, game):
    first = post_hand(api_bob, game, FIRST_HAND, **{"Idempotency-Key": "retry-me"})
    again = post_hand(api_bob, game, FIRST_HAND, **{"Idempotency-Key": "retry-me"})
    assert (first.status_code, again.status_code) == (201, 201)
    assert "Idempotent-Replayed" not in first
    assert again["Idempotent-Replayed"] == "true"
    assert again["Location"] == first["Location"]
    assert again.json() == first.json()
    assert Hand.objects.filter(session=game).count() == 1
    assert Posting.objects.filter(session=game, hand__isnull=False).count() == 3


def test_a_replay_wins_over_a_now_stale_version_and_a_closed_session(api_bob, game, bob):
    version = game.version
    body = {**FIRST_HAND, "session_version": version}
    first = post_hand(api_bob, game, body, **{"Idempotency-Key": "k1"})
    postings.close_session(session_id=game.pk, user=bob)
    again = post_hand(api_bob, game, body, **{"Idempotency-Key": "k1"})
    assert (first.status_code, again.status_code) == (201, 201)
    assert again["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]


def test_without_a_key_each_post_records_a_new_hand(api_bob, game):
    assert post_hand(api_bob, game, FIRST_HAND).status_code == 201
    assert post_hand(api_bob, game, SECOND_HAND).status_code == 201
    assert game.hands.count() == 2


def test_a_stale_session_version_is_409_and_writes_nothing(api_bob, game):
    stale = game.version
    assert post_hand(api_bob, game, {**FIRST_HAND, "session_version": stale}).status_code == 201
    response = post_hand(api_bob, game, {**SECOND_HAND, "session_version": stale})
    assert response.status_code == 409
    assert response["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert problem["type"] == "urn:bourre:problem:stale-state"
    assert problem["current_version"] == stale + 1
    assert game.hands.count() == 1


def test_the_current_session_version_records(api_bob, game):
    response = post_hand(api_bob, game, {**FIRST_HAND, "session_version": game.version})
    assert response.status_code == 201


@pytest.mark.parametrize("etag", ['"{v}"', 'W/"{v}"', "{v}"])
def test_if_match_is_the_same_as_session_version(api_bob, game, etag):
    stale = game.version
    ok = post_hand(api_bob, game, FIRST_HAND, **{"If-Match": etag.format(v=stale)})
    assert ok.status_code == 201
    late = post_hand(api_bob, game, SECOND_HAND, **{"If-Match": etag.format(v=stale)})
    assert late.status_code == 409


def test_session_detail_etag_works_as_if_match(api_bob, game):
    etag = api_bob.get(f"/api/v1/sessions/{game.pk}/")["ETag"]
    assert post_hand(api_bob, game, FIRST_HAND, **{"If-Match": etag}).status_code == 201


def test_if_match_and_session_version_must_agree(api_bob, game):
    response = post_hand(api_bob, game, {**FIRST_HAND, "session_version": 1}, **{"If-Match": '"2"'})
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "session_version"


@pytest.mark.parametrize("etag", ["nope", '"abc"', '"1"x'])
def test_a_malformed_if_match_is_400(api_bob, game, etag):
    response = post_hand(api_bob, game, FIRST_HAND, **{"If-Match": etag})
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "If-Match"


@pytest.mark.parametrize("key", ["", "x" * 81, "has space", "tab\tkey", "é"])
def test_a_bad_idempotency_key_is_400(api_bob, game, key):
    response = post_hand(api_bob, game, FIRST_HAND, **{"Idempotency-Key": key})
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "Idempotency-Key"
    assert game.hands.count() == 0


def test_an_invalid_record_is_400_with_the_engines_errors_R7(api_bob, game):
    # Six tricks counted in a five-card hand (R7) cannot happen.
    response = post_hand(api_bob, game, {"trump": "H", "tricks": {"ann": 3, "ben": 3}})
    assert response.status_code == 400
    problem = response.json()
    assert problem["type"] == "urn:bourre:problem:hand-rejected"
    assert problem["verdict"]["valid"] is False
    assert {e["code"] for e in problem["errors"]} >= {"tricks_total"}
    assert game.hands.count() == 0
    assert not Posting.objects.filter(session=game, hand__isnull=False).exists()


def test_an_unfinished_hand_is_rejected(api_bob, game):
    response = post_hand(api_bob, game, {"trump": "H"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "incomplete"


def test_session_fields_may_be_repeated_when_they_agree(api_bob, game):
    body = {**FIRST_HAND, "players": ["ann", "ben", "cal", "dee"], "dealer": "dee", "carry": 0}
    assert post_hand(api_bob, game, body).status_code == 201


def test_session_fields_that_disagree_are_rejected(api_bob, game):
    response = post_hand(api_bob, game, {**FIRST_HAND, "dealer": "ann"})
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert error["code"] == "session_mismatch"
    assert game.hands.count() == 0


def test_a_table_adds_a_forfeit_for_a_declaration_out_of_turn_R16(api_bob, game):
    # dee deals FIRST_HAND; ann, who would deal next, declared out of turn: skipped
    response = post_hand(api_bob, game, {**FIRST_HAND, "forfeits": ["ann"]})
    assert response.status_code == 201, response.content
    result = response.json()["verdict"]["result"]
    assert result["next_dealer"] == "ben" and result["forfeits_next"] == []
    # ben deals; a call on ann (cal deals next) stays pending...
    body = {"trump": "S", "tricks": {"ann": 1, "ben": 1, "cal": 1, "dee": 2}, "forfeits": ["ann"]}
    assert post_hand(api_bob, game, body).status_code == 201
    game.refresh_from_db()
    assert postings.session_state(game)["forfeits"] == ["ann"]
    # ...and a later record cannot drop it
    response = post_hand(api_bob, game, {**SECOND_HAND, "forfeits": ["dee"]})
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert error["code"] == "forfeit_removed" and "ann still owes" in error["message"]
    assert game.hands.count() == 2


def test_unknown_fields_are_rejected_not_ignored(api_bob, game):
    response = post_hand(api_bob, game, {**FIRST_HAND, "pased": ["cal"]})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"code": "unknown_field", "message": "Unknown field.", "field": "pased"}
    ]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"tricks": {"ann": -1}}, "tricks.ann"),
        ({"tricks": {"ann": "many"}}, "tricks.ann"),
        ({"plays": [["ann"]]}, "plays.0"),
        ({"passed": "ben"}, "passed"),
        ({"reneges": [{"corrected": True}]}, "reneges.0.player"),
        ({"session_version": 0}, "session_version"),
    ],
)
def test_badly_typed_fields_are_field_errors(api_bob, game, body, field):
    response = post_hand(api_bob, game, {"trump": "H", **body})
    assert response.status_code == 400
    assert field in {e.get("field") for e in response.json()["errors"]}


def test_a_closed_session_is_409(api_bob, game, bob):
    postings.close_session(session_id=game.pk, user=bob)
    response = post_hand(api_bob, game, FIRST_HAND)
    assert response.status_code == 409
    assert response.json()["type"] == "urn:bourre:problem:session-closed"


def test_a_card_log_hand_records(api_bob, club, players, alice):
    # Two players, a complete card log (no hands needed): ann leads trump and takes 3.
    session = postings.start_session(
        club=club,
        name="Heads up",
        players=players[:2],
        dealer=players[1],
        rules={},
        currency=club.currency,
        user=alice,
    )
    plays = [
        ["ann", "AH"], ["ben", "2H"],
        ["ann", "KH"], ["ben", "3H"],
        ["ann", "QH"], ["ben", "4H"],
        ["ann", "2C"], ["ben", "AC"],
        ["ben", "AD"], ["ann", "3D"],
    ]  # fmt: skip
    response = post_hand(api_bob, session, {"up_card": "4H", "plays": plays})
    assert response.status_code == 201, response.content
    assert response.json()["verdict"]["tricks"] == {"ann": 3, "ben": 2}


def test_hand_list_is_in_playing_order_and_paginates(api_carol, played):
    response = api_carol.get(f"/api/v1/sessions/{played.pk}/hands/?page_size=1")
    assert response.status_code == 200
    page = response.json()
    assert [h["number"] for h in page["results"]] == [1]
    assert page["previous"] is None
    assert "cursor=" in response["Link"]
    second = api_carol.get(
        f"/api/v1/sessions/{played.pk}/hands/?page_size=1&cursor={page['next']}"
    ).json()
    assert [h["number"] for h in second["results"]] == [2]
    assert second["results"][0]["winner"] == "dee"
    assert second["next"] is None


def test_hand_list_filters_by_status(api_carol, played, bob):
    last = played.hands.order_by("-number").first()
    postings.void_hand(session_id=played.pk, hand_id=last.pk, user=bob)
    response = api_carol.get(f"/api/v1/sessions/{played.pk}/hands/?status=voided")
    assert [h["number"] for h in response.json()["results"]] == [2]
    assert api_carol.get(f"/api/v1/sessions/{played.pk}/hands/?status=nope").status_code == 400


def test_hand_detail_has_record_and_verdict(api_carol, played):
    hand = played.hands.get(number=1)
    body = api_carol.get(f"/api/v1/hands/{hand.pk}/").json()
    assert body["record"]["up_card"] == "QH"
    assert body["verdict"]["result"]["bourre"] == ["dee"]
    assert body["session"] == played.pk


@pytest.mark.parametrize(
    "cursor, status",
    [
        ("garbage", 400),
        ("cD1hYmM=", 400),  # "p=abc": a position that is not a number
        ("cD05OTk5OTk5OTk5OTk5OTk5OTk5OTk5OQ==", 200),  # "p=9999…": past the end, out of range
        ("cD0x", 200),  # "p=1": a real position
    ],
)
def test_a_forged_cursor_is_400_or_a_page_never_500(api_carol, played, cursor, status):
    response = api_carol.get(f"/api/v1/sessions/{played.pk}/hands/?cursor={cursor}")
    assert response.status_code == status
    if status == 400:
        assert response.json()["errors"][0]["code"] == "bad_cursor"
        assert response.json()["errors"][0]["field"] == "cursor"


@pytest.mark.postgres
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="row locks (select_for_update) need PostgreSQL; SQLite serialises writers anyway",
)
@pytest.mark.django_db(transaction=True)
def test_two_phones_retrying_at_once_record_one_hand(club, players, alice, bob):
    from .conftest import token_client

    session = postings.start_session(
        club=club, name="Race", players=players, dealer=players[-1], rules={}, currency=club.currency,
        user=alice,
    )  # fmt: skip
    clients = [token_client(bob) for _ in range(4)]

    def submit(client):
        try:
            return post_hand(client, session, FIRST_HAND, **{"Idempotency-Key": "same"}).status_code
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=4) as pool:
        statuses = sorted(pool.map(submit, clients))
    assert statuses == [200, 200, 200, 201]
    assert Hand.objects.filter(session=session).count() == 1
    postings.check_invariants(session)
