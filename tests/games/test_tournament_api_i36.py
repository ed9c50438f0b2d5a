"""Issue 36's tournament values through the API: `payouts` says what each place was paid
and what is still due, during the event and after it (the pool account is empty once it
is paid out); a body that is not a JSON object to `end-round` is a 400; a freeze-out's
`hands_per_level: 0` is refused, never replaced, while 0 keeps its meaning in table
rounds (the ante rises each round)."""

import json
import random

import pytest
from django.urls import reverse

from games.models import Entry, Tournament
from games.tournaments import clock
from games.tournaments import service as svc
from ledger import books
from tests.factories import seeded

from .test_tournament_api import token_client
from .test_tournament_service import (
    check_books,
    eight_player_freezeout,
    make_tournament,
    play_to_the_end,
)

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"
PERCENTAGES = [40, 30, 20, 10]


def post(client, url, raw: str):
    return client.post(url, raw, content_type="application/json")


def payouts(client, t) -> dict:
    response = client.get(reverse("api_tournament_payouts", args=[t.pk]))
    assert response.status_code == 200, response.content
    return response.json()


def test_payouts_show_what_is_due_while_running_and_what_was_paid_after(club, alice):
    """Eight $10 buy-ins, four places paid 40/30/20/10 (T-payouts): while it runs every
    place's whole amount is due and nothing is paid (a knocked-out player is paid at the
    end); after the end each place shows what its entrant was paid, nothing due, from
    the pool as it was (it used to read 0 everywhere: the pool account is empty)."""
    t = eight_player_freezeout(club, alice, PERCENTAGES)
    svc.start(tournament_id=t.pk, user=alice)
    api = token_client(alice)
    during: list[dict] = []

    def look(t):
        if t.status == Tournament.Status.RUNNING and t.entries.filter(status="out").exists():
            during.append(payouts(api, t))

    play_to_the_end(t, alice, random.Random(2), each_pass=look)
    check_books(t)
    assert during, "nobody went out before the end"
    pool = 8 * t.buy_in
    for table in during:
        assert table["pool"] == pool
        assert [row["place"] for row in table["places"]] == [1, 2, 3, 4]
        for row, percent in zip(table["places"], PERCENTAGES, strict=True):
            assert row["amount"] == pool * percent // 100
            assert (row["paid"], row["due"]) == (0, row["amount"])

    after = payouts(api, t)
    assert books.prize_balances(t)["pool"] == 0  # paid out: the table reads the entries
    prizes = {e.place: e.prize for e in Entry.objects.filter(tournament=t)}
    assert after["pool"] == sum(prizes.values()) == pool
    assert [row["place"] for row in after["places"]] == [1, 2, 3, 4]
    for row in after["places"]:
        assert row["paid"] == prizes[row["place"]] > 0
        assert row["amount"] == row["paid"] and row["due"] == 0
    assert during[-1]["places"] == [
        {**row, "paid": 0, "due": row["amount"]} for row in after["places"]
    ]


@pytest.fixture
def bracket(club, alice):
    """A running table-rounds tournament: eight players at two tables."""
    t = make_tournament(club, alice, n=8, buy_in=20, starting_chips=20, antes=[1])
    svc.start(tournament_id=seeded(t.pk, "i36"), user=alice)
    t.refresh_from_db()
    return t


@pytest.mark.parametrize("raw", ["[]", '"now"', "1", "null", '[{"now": true}]'])
def test_end_round_refuses_a_body_that_is_not_a_json_object(bracket, alice, raw):
    """`[]` used to be read as no body and end the round (issue 36): any body of the wrong
    JSON type is a 400 naming the problem, and the round is untouched."""
    api = token_client(alice)
    url = reverse("api_tournament_end_round", args=[bracket.pk])
    before = list(bracket.tables.values_list("pk", "status"))
    response = post(api, url, raw)
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == PROBLEM
    assert response.json()["errors"]
    assert list(bracket.tables.values_list("pk", "status")) == before


def test_end_round_with_an_object_or_no_body_is_read(bracket, alice):
    """The refusal is about the body's type, not the call: `{"now": true}` ends the round
    (every table stops now), and no body at all is `{}`."""
    api = token_client(alice)
    url = reverse("api_tournament_end_round", args=[bracket.pk])
    no_body = api.generic("POST", url, b"", content_type="application/json")
    assert no_body.status_code != 400, no_body.content  # read as {} (the round may refuse)
    ended = post(api, url, json.dumps({"now": True}))
    assert ended.status_code == 200, ended.content
    assert not bracket.tables.filter(round__number=1, status="playing").exists()


def _create(api, club, **fields):
    body = {"club": club.pk, "name": "Zero", "buy_in": 10, "antes": [1, 2], **fields}
    return post(api, reverse("api_tournament_list"), json.dumps(body))


def test_a_freezeouts_zero_hands_per_level_is_refused_not_replaced(club, alice):
    """A freeze-out raises the ante every N hands (or minutes): 0 used to be stored as 10
    silently. Now it is a 400 on that field, in words, and nothing is created."""
    api = token_client(alice)
    response = _create(api, club, format="freezeout", hands_per_level=0)
    assert response.status_code == 400, response.content
    [error] = response.json()["errors"]
    assert error["field"] == "hands_per_level" and error["code"] == "zero_hands_per_level"
    assert "level_minutes" in error["message"]
    assert not Tournament.objects.filter(club=club).exists()
    negative = _create(api, club, format="freezeout", hands_per_level=-1)
    assert negative.status_code == 400
    assert not Tournament.objects.filter(club=club).exists()
    # With minutes instead, 0 hands is meaningful (the clock raises the ante): accepted.
    timed = _create(api, club, format="freezeout", hands_per_level=0, level_minutes=15)
    assert timed.status_code == 201, timed.content
    assert Tournament.objects.get(pk=timed.json()["id"]).hands_per_level == 0


def test_zero_hands_per_level_in_table_rounds_still_means_each_round(club, alice):
    """In table rounds 0 is the model's meaning, "the ante rises each round": it is kept
    as 0 (the detail says so), and a table's level follows the round, not its hands."""
    api = token_client(alice)
    response = _create(api, club, format="rounds", hands_per_level=0)
    assert response.status_code == 201, response.content
    t = Tournament.objects.get(pk=response.json()["id"])
    assert t.hands_per_level == 0
    detail = api.get(reverse("api_tournament_detail", args=[t.pk])).json()
    assert detail["hands_per_level"] == 0
    assert [clock.table_level(t, 1, 50), clock.table_level(t, 2, 0)] == [0, 1]
