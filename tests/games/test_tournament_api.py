"""Tournament API (/api/v1/tournaments/…): permissions, list, detail, standings and the
prize ledger as JSON and CSV, following games.api's conventions."""

import csv
import io
import json
from datetime import datetime

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import ApiToken
from games.tournaments import service as svc
from tests.factories import seeded

from .test_tournament_service import make_tournament, names, record, win

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"


def token_client(user) -> Client:
    _, key = ApiToken.issue(user, "tests")
    return Client(headers={"Authorization": f"Bearer {key}"})


@pytest.fixture
def cup(club, alice):
    t = make_tournament(club, alice, n=8, buy_in=20, fee=2, starting_chips=20, antes=[1])
    svc.start(tournament_id=seeded(t.pk, "api"), user=alice)
    t.refresh_from_db()
    return t


def urls(t) -> list[str]:
    return [
        reverse("api_tournament_detail", args=[t.pk]),
        reverse("api_tournament_standings", args=[t.pk]),
        reverse("api_tournament_prizes", args=[t.pk]),
    ]


def test_anonymous_and_revoked_tokens_are_refused(cup, bob):
    token, key = ApiToken.issue(bob, "old")
    token.revoked_at = timezone.now()
    token.save()
    for client in (Client(), Client(headers={"Authorization": f"Bearer {key}"})):
        for url in [reverse("api_tournament_list"), *urls(cup)]:
            response = client.get(url)
            assert response.status_code == 401, url
            assert response["Content-Type"] == PROBLEM


def test_strangers_get_404_and_see_nothing_in_the_list(cup, mallory, club):
    api = token_client(mallory)
    for url in urls(cup):
        response = api.get(url)
        assert response.status_code == 404 and response["Content-Type"] == PROBLEM
    assert api.get(reverse("api_tournament_list")).json()["results"] == []
    response = api.get(reverse("api_tournament_list"), {"club": club.pk})
    assert response.status_code == 404


def test_members_read_everything(cup, carol):
    api = token_client(carol)
    for url in urls(cup):
        assert api.get(url).status_code == 200, url
    # Members read; creating a tournament needs the scorekeeper role.
    body = json.dumps({"club": cup.club_id, "name": "Mine"})
    response = api.post(reverse("api_tournament_list"), body, content_type="application/json")
    assert response.status_code == 403


def test_list_filters_and_pages(cup, club, alice):
    svc.create_tournament(club=club, user=alice, name="Later")
    api = token_client(alice)
    data = api.get(reverse("api_tournament_list")).json()
    assert [t["name"] for t in data["results"]] == ["Later", "Cup"]
    assert set(data) == {"next", "previous", "results"}
    running = api.get(reverse("api_tournament_list"), {"status": "running"}).json()
    assert [t["id"] for t in running["results"]] == [cup.pk]
    page = api.get(reverse("api_tournament_list"), {"page_size": 1}).json()
    assert len(page["results"]) == 1 and page["next"]
    bad = api.get(reverse("api_tournament_list"), {"status": "sideways"})
    assert bad.status_code == 400 and bad["Content-Type"] == PROBLEM


def test_detail_has_settings_rounds_tables_and_chips(cup, carol):
    data = token_client(carol).get(reverse("api_tournament_detail", args=[cup.pk])).json()
    assert data["name"] == "Cup" and data["status"] == "running" and data["entrants"] == 8
    assert data["prize_pool"] == {"pool": 160, "house": 16}
    assert data["public_url"].endswith(f"/t/{cup.public_token}/")
    (rnd,) = data["rounds"]
    assert rnd["seed"] == "api" and len(rnd["tables"]) == 2
    chips = [p["chips"] for x in rnd["tables"] for p in x["players"]]
    assert chips == [20] * 8
    assert {x["hand_limit"] for x in rnd["tables"]} == {10}


def test_standings_and_prize_ledger_after_the_end(club, alice):
    t = make_tournament(club, alice, n=4, buy_in=25, starting_chips=2, antes=[1])
    svc.start(tournament_id=seeded(t.pk, "s"), user=alice)
    x = t.tables.get()
    a, b, c, d = names(x.session)
    record(x.session, {"trump": "S", "passed": [], "tricks": {a: 5, b: 0, c: 0, d: 0}})
    api = token_client(alice)
    standings = api.get(reverse("api_tournament_standings", args=[t.pk])).json()
    assert standings["final"] is True
    assert standings["standings"][0]["player"]["name"] == a
    assert standings["standings"][0]["place"] == 1 and standings["standings"][0]["prize"] == 100
    ledger = api.get(reverse("api_tournament_prizes", args=[t.pk])).json()
    assert ledger["balances"]["pool"] == 0 and ledger["remainder_rule"]
    kinds = [p["kind"] for p in ledger["postings"]]
    assert kinds.count("buy_in") == 4 and kinds.count("prize") == 1
    for posting in ledger["postings"]:
        assert sum(leg["amount"] for leg in posting["legs"]) == 0
    total = ledger["balances"]["pool"] + ledger["balances"]["house"]
    total += sum(e["balance"] for e in ledger["balances"]["entrants"])
    assert total == 0


def test_prize_ledger_as_csv(cup, alice):
    api = token_client(alice)
    # Its own operation (issue 36): the JSON one answers JSON only.
    assert (
        api.get(reverse("api_tournament_prizes", args=[cup.pk]), {"format": "csv"}).status_code
        == 400
    )
    response = api.get(reverse("api_tournament_prizes_csv", args=[cup.pk]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    # The API's CSV: minor units, said so in the header, the currency's code beside them.
    assert rows[0] == [
        "posting", "date", "kind", "player", "account", "amount_minor", "currency", "memo"
    ]  # fmt: skip
    assert len(rows) == 1 + 8 * 4
    assert sum(int(r[5]) for r in rows[1:]) == 0
    assert {r[6] for r in rows[1:]} == {cup.currency.code}
    assert all(datetime.fromisoformat(r[1]).utcoffset() is not None for r in rows[1:])


def test_csv_errors_are_still_problems(cup, mallory):
    response = token_client(mallory).get(reverse("api_tournament_prizes_csv", args=[cup.pk]))
    assert response.status_code == 404 and response["Content-Type"] == PROBLEM


def test_schema_documents_the_tournament_endpoints(alice):
    schema = token_client(alice).get(reverse("api_schema"), {"format": "json"}).json()
    ids = {op["operationId"] for path in schema["paths"].values() for op in path.values()}
    assert {
        "tournaments_list",
        "tournaments_retrieve",
        "tournaments_standings",
        "tournaments_prizes",
    } <= ids


def test_live_chips_follow_recorded_hands(cup, alice):
    x = cup.tables.get(number=1)
    seats = list(names(x.session))
    record(x.session, win(seats, seats[0], {seats[1]: 2}), alice)
    data = token_client(alice).get(reverse("api_tournament_detail", args=[cup.pk])).json()
    table = data["rounds"][0]["tables"][0]
    assert table["hands"] == 1
    assert sum(p["chips"] for p in table["players"]) + table["pot"] == 20 * len(seats)
