"""Running a tournament through the API (item 7): create (with an Idempotency-Key),
register by name and check in, start (the seed is revealed), record hands at a table,
balance, the clock, a deal, payouts, standings as CSV — problem+json on refusals."""

import csv
import io
import json
import random

import pytest
from django.test import Client
from django.urls import reverse

from games.engine import tournament as logic
from games.models import ApiToken, Tournament
from ledger import postings

from .test_tournament_service import bot_entry

pytestmark = pytest.mark.django_db
PROBLEM = "application/problem+json"


def api(user) -> Client:
    _, key = ApiToken.issue(user, "tests")
    return Client(headers={"Authorization": f"Bearer {key}"})


def post(client, url, body=None, **headers):
    return client.post(
        url, json.dumps(body or {}), content_type="application/json", headers=headers
    )


def said(response) -> str:
    """Everything a problem says: its detail and each error's message."""
    body = response.json()
    return " ".join([body.get("detail", ""), *(e["message"] for e in body.get("errors", []))])


def test_create_and_run_a_freeze_out_through_the_api(club, alice, carol):
    client = api(alice)
    body = {
        "club": club.pk,
        "name": "API Cup",
        "format": "freezeout",
        "buy_in": 500,
        "fee": 50,
        "starting_chips": 20,
        "antes": [1, 2, 3],
        "hands_per_level": 3,
        "payout_preset": "top20",
        "payout_unit": 100,
    }
    created = post(client, reverse("api_tournament_list"), body, **{"Idempotency-Key": "cup-1"})
    assert created.status_code == 201, created.content
    data = created.json()
    assert data["seed"] is None and len(data["seed_commitment"]) == 64
    assert created["ETag"] and created["Location"].endswith(f"/tournaments/{data['id']}/")
    # A retry with the same key creates nothing new: the first answer again, marked as a
    # replay (games.api.idempotency, issue 16).
    again = post(client, reverse("api_tournament_list"), body, **{"Idempotency-Key": "cup-1"})
    assert again.status_code == 201 and again.json()["id"] == data["id"]
    assert again["Idempotent-Replayed"] == "true"
    assert Tournament.objects.filter(club=club).count() == 1
    tid = data["id"]

    # A member may not register anybody: 403 problem.
    refused = post(api(carol), reverse("api_tournament_entries", args=[tid]), {"names": ["X"]})
    assert refused.status_code == 403 and refused["Content-Type"] == PROBLEM

    names = [f"api{i}" for i in range(5)]
    entries = post(
        client,
        reverse("api_tournament_entries", args=[tid]),
        {"names": names, "check_in": True},
        **{"Idempotency-Key": "entries-1"},
    )
    assert entries.status_code == 201
    assert [e["status"] for e in entries.json()["entries"]] == ["checked_in"] * 5
    retry = post(
        client,
        reverse("api_tournament_entries", args=[tid]),
        {"names": names, "check_in": True},
        **{"Idempotency-Key": "entries-1"},
    )
    assert retry.status_code == 201 and len(retry.json()["entries"]) == 5
    assert retry["Idempotent-Replayed"] == "true"
    # Without a key, entering someone twice is a 409 conflict with the reason.
    twice = post(client, reverse("api_tournament_entries", args=[tid]), {"names": ["api0"]})
    assert twice.status_code == 409 and "already entered" in said(twice)

    started = post(client, reverse("api_tournament_start", args=[tid]))
    assert started.status_code == 200
    seed = started.json()["seed"]
    assert logic.commitment(seed) == data["seed_commitment"]
    late = post(client, reverse("api_tournament_entries", args=[tid]), {"names": ["late"]})
    assert late.status_code == 409 and late.json()["errors"][0]["code"] == "status"

    clock = client.get(reverse("api_tournament_clock", args=[tid])).json()
    assert (clock["level"], clock["ante"], clock["timed"]) == (1, 1, False)
    no_clock = post(client, reverse("api_tournament_clock", args=[tid]), {"action": "start"})
    assert no_clock.status_code == 400 and "by hands" in said(no_clock)

    # Hands at table 1 until three players are left, then a chip chop.
    rng = random.Random(5)
    t = Tournament.objects.get(pk=tid)
    url = reverse("api_tournament_table_hands", args=[tid, 1])
    for i in range(200):
        table = t.tables.get(number=1)
        table.session.refresh_from_db()
        state = postings.session_state(table.session)
        if len(state["players"]) <= 3 and table.session.carry == 0:
            break
        entry, _ = bot_entry(state, rng)
        response = post(
            client, url, entry, **{"Idempotency-Key": f"h{i}", "If-Match": f'"{state["version"]}"'}
        )
        assert response.status_code == 201, response.content
    assert post(client, reverse("api_tournament_balance", args=[tid])).status_code == 200
    stale = post(client, url, {"trump": "H"}, **{"If-Match": '"1"'})
    assert stale.status_code == 409
    missing = post(client, reverse("api_tournament_table_hands", args=[tid, 9]), {})
    assert missing.status_code == 404

    terms = client.get(reverse("api_tournament_deal", args=[tid])).json()
    still = [int(p) for p in terms["chips"]]
    assert sum(terms["chips_chop"].values()) == terms["total"]
    half = post(
        client, reverse("api_tournament_deal", args=[tid]), {"kind": "chips", "agreed": still[:1]}
    )
    assert half.status_code == 400 and "must agree" in said(half)
    done = post(
        client, reverse("api_tournament_deal", args=[tid]), {"kind": "chips", "agreed": still}
    )
    assert done.status_code == 200 and done.json()["status"] == "finished"

    payouts = client.get(reverse("api_tournament_payouts", args=[tid])).json()
    assert payouts["deal"]["kind"] == "chips" and payouts["unit"] == 100
    prizes = client.get(reverse("api_tournament_prizes", args=[tid])).json()
    assert prizes["balances"]["pool"] == 0 and prizes["balances"]["house"] == 5 * 50
    assert [p["number"] for p in prizes["postings"]] == list(range(1, len(prizes["postings"]) + 1))
    standings = client.get(reverse("api_tournament_standings_csv", args=[tid]))
    assert standings.status_code == 200 and standings["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(standings.content.decode())))
    assert rows[0][:3] == ["place", "player", "status"] and len(rows) == 6
    assert sum(int(r[6]) for r in rows[1:]) == 5 * 500
    t.refresh_from_db()
    for x in t.tables.select_related("session"):
        postings.check_invariants(x.session)
    postings.check_prize_ledger(t)


def test_entry_actions_and_strangers(club, alice, mallory):
    client = api(alice)
    created = post(
        client,
        reverse("api_tournament_list"),
        {"club": club.pk, "name": "Acts", "buy_in": 10},
    ).json()
    tid = created["id"]
    entries = post(client, reverse("api_tournament_entries", args=[tid]), {"names": ["a", "b"]})
    first = entries.json()["entries"][0]["id"]
    url = reverse("api_tournament_entry_action", args=[tid, first, "check-in"])
    assert post(client, url).json()["status"] == "checked_in"
    bad = post(client, reverse("api_tournament_entry_action", args=[tid, first, "dance"]))
    assert bad.status_code == 404 and bad["Content-Type"] == PROBLEM
    nope = post(client, reverse("api_tournament_entry_action", args=[tid, first, "rebuy"]))
    assert nope.status_code == 400 and "for freeze-outs" in said(nope)
    stranger = api(mallory)
    for name in ("api_tournament_entries", "api_tournament_payouts", "api_tournament_clock"):
        assert stranger.get(reverse(name, args=[tid])).status_code == 404
    assert post(stranger, reverse("api_tournament_start", args=[tid])).status_code == 404
    other = post(stranger, reverse("api_tournament_list"), {"club": club.pk, "name": "Mine"})
    assert other.status_code == 404


def test_registering_is_all_or_nothing_and_a_name_twice_is_one_entry(club, alice):
    """A refused name (already entered) leaves nothing behind: no other entry, no new
    roster player (a 409 used to come back with the rest entered). "Dee" and "dee" in
    one request are one player, entered once."""
    from games.models import Entry, Player

    client = api(alice)
    tid = post(
        client, reverse("api_tournament_list"), {"club": club.pk, "name": "Cup", "buy_in": 10}
    ).json()["id"]
    url = reverse("api_tournament_entries", args=[tid])
    once = post(client, url, {"names": ["Dee", "Eve", "dee"]})
    assert once.status_code == 201
    assert [e["player"]["name"] for e in once.json()["entries"]] == ["Dee", "Eve"]
    roster = Player.objects.filter(club=club).count()
    refused = post(client, url, {"names": ["Zoë New Person", "Eve"]})
    assert refused.status_code == 409 and refused["Content-Type"] == PROBLEM
    assert "Eve" in said(refused)
    assert Player.objects.filter(club=club).count() == roster  # Zoë was not added
    assert sorted(
        Entry.objects.filter(tournament_id=tid).values_list("player__name", flat=True)
    ) == ["Dee", "Eve"]
