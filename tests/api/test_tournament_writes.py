"""A tournament's writes answer like every other write (issue #36 item 3): an object (never
a bare array) with the tournament's new `version` and its `ETag`, each as documented; the
payout table's `deal` is a named component with its fields."""

import json

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator

from games.models import Tournament
from games.tournaments import deals, selectors
from games.tournaments import service as svc
from tests.games.test_tournament_service import make_tournament

from .test_account_api import _json_schema

pytestmark = pytest.mark.django_db

WRITES = ("post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def schema():
    return _json_schema(SchemaGenerator().get_schema(request=None, public=True))


def _post(client, url, body=None, **headers):
    return client.post(
        url, json.dumps(body or {}), content_type="application/json", headers=headers
    )


def _documented(schema, path: str, method: str, status: int, data) -> None:
    """`data` is exactly what the operation documents for `status` (unknown keys too)."""
    response = schema["paths"][path][method]["responses"][str(status)]
    documented = response["content"]["application/json"]["schema"]
    component = schema["components"]["schemas"][documented["$ref"].rsplit("/", 1)[1]]
    closed = {**component, "additionalProperties": False}
    jsonschema.validate(data, {**closed, "components": schema["components"]})
    assert "ETag" in response["headers"], (path, method, status)


def test_no_write_answers_a_bare_array(schema):
    for path, operations in schema["paths"].items():
        for method, op in operations.items():
            if method not in WRITES:
                continue
            for status, response in op["responses"].items():
                body = response.get("content", {}).get("application/json", {}).get("schema", {})
                if status.startswith("2") and body:
                    assert "$ref" in body, (method, path, status, body)


def test_registering_answers_the_entries_and_the_tournaments_version(
    club, alice, api_alice, schema
):
    t = make_tournament(club, alice, n=0, name="Cup")
    url = f"/api/v1/tournaments/{t.pk}/entries/"
    made = _post(api_alice, url, {"names": ["ann", "ben"]}, **{"Idempotency-Key": "e1"})
    assert made.status_code == 201, made.content
    body = made.json()
    t.refresh_from_db()
    assert [e["player"]["name"] for e in body["entries"]] == ["ann", "ben"]
    assert body["version"] == t.version
    assert made["ETag"] == selectors.etag(t)
    _documented(schema, "/api/v1/tournaments/{tournament_id}/entries/", "post", 201, body)
    # The retry is the same object, replayed.
    again = _post(api_alice, url, {"names": ["ann", "ben"]}, **{"Idempotency-Key": "e1"})
    assert again.json() == body and again["Idempotent-Replayed"] == "true"

    # An entry's action answers the entry with the version it left the tournament at.
    first = body["entries"][0]["id"]
    checked = _post(api_alice, f"{url}{first}/check-in/")
    assert checked.status_code == 200, checked.content
    t.refresh_from_db()
    assert checked.json()["status"] == "checked_in"
    assert checked.json()["version"] == t.version > body["version"]
    assert checked["ETag"] == selectors.etag(t)
    _documented(
        schema,
        "/api/v1/tournaments/{tournament_id}/entries/{entry_id}/{action}/",
        "post",
        200,
        checked.json(),
    )


def test_a_clock_button_answers_the_clock_and_the_tournaments_version(
    club, alice, api_alice, schema
):
    t = make_tournament(club, alice, n=4, format="freezeout", level_minutes=15)
    svc.start(tournament_id=t.pk, user=alice)
    started = _post(api_alice, f"/api/v1/tournaments/{t.pk}/clock/", {"action": "start"})
    assert started.status_code == 200, started.content
    t.refresh_from_db()
    assert started.json()["running"] is True
    assert started.json()["version"] == t.version
    assert started["ETag"] == selectors.etag(t)
    _documented(schema, "/api/v1/tournaments/{tournament_id}/clock/", "post", 200, started.json())


def test_the_table_hand_documents_the_sessions_write_answer(schema):
    op = schema["paths"]["/api/v1/tournaments/{tournament_id}/tables/{number}/hands/"]["post"]
    for status in ("200", "201"):
        body = op["responses"][status]["content"]["application/json"]["schema"]
        assert body["$ref"].endswith("/HandWriteOutput")
        assert "ETag" in op["responses"][status]["headers"]


def test_the_payouts_deal_is_a_named_component_with_its_fields(club, alice, api_alice, schema):
    t = make_tournament(club, alice, n=3, format="freezeout", starting_chips=30, buy_in=1000)
    svc.start(tournament_id=t.pk, user=alice)
    t.refresh_from_db()
    still = list(deals.deal_terms(t)["chips"])
    deals.make_deal(tournament_id=t.pk, kind="chips", agreed=still, user=alice)
    assert Tournament.objects.get(pk=t.pk).status == Tournament.Status.FINISHED

    payouts = api_alice.get(f"/api/v1/tournaments/{t.pk}/payouts/").json()
    deal = payouts["deal"]
    assert deal["kind"] == "chips" and deal["by"] == "alice"
    assert sorted(int(p) for p in deal["amounts"]) == sorted(still)
    assert sum(deal["amounts"].values()) == payouts["pool"] == 3 * 1000
    assert sum(deal["chips"].values()) == 3 * 30
    assert deal["at"].endswith("Z")  # UTC, like every timestamp
    component = schema["components"]["schemas"]["PayoutsOutput"]["properties"]["deal"]
    assert "DealOutput" in json.dumps(component)
    deal_schema = schema["components"]["schemas"]["DealOutput"]
    assert set(deal_schema["required"]) == {"kind", "amounts", "chips", "agreed", "at", "by"}
    jsonschema.validate(
        payouts,
        {
            **schema["components"]["schemas"]["PayoutsOutput"],
            "components": schema["components"],
        },
    )
    # Before any deal it is null, as documented.
    other = make_tournament(club, alice, n=3, prefix="o", name="No deal")
    assert api_alice.get(f"/api/v1/tournaments/{other.pk}/payouts/").json()["deal"] is None
