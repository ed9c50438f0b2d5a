"""The API's cross-cutting contract (issue 16): one 404 for missing and not-yours, 413
above the body limit, 400 for bad cursors and page sizes, UTC timestamps, and the API
FINDINGS (one duplicate-name code, strict tricks, JSON messages, the verifier's paths,
absolute Location headers, the schema's file name, numeric names)."""

import csv
import io
import json
import re
import zoneinfo

import pytest
from drf_spectacular.generators import SchemaGenerator

from games.api.base import MAX_BODY_BYTES
from games.models import Player
from ledger import postings

from .conftest import FIRST_HAND


def _post(client, url, body, **headers):
    return client.post(url, body, content_type="application/json", headers=headers)


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/clubs/{club}/",
        "/api/v1/players/{player}/",
        "/api/v1/sessions/{session}/",
        "/api/v1/hands/{hand}/",
        "/api/v1/sessions/{session}/settlement/",
    ],
)
def test_another_clubs_object_is_the_same_404_as_a_missing_one(api_bob, other_club_game, path):
    theirs = path.format(
        club=other_club_game.club_id,
        player=other_club_game.seats.first().player_id,
        session=other_club_game.pk,
        hand=other_club_game.hands.first().pk,
    )
    missing = path.format(club=999999, player=999999, session=999999, hand=999999)
    a, b = api_bob.get(theirs), api_bob.get(missing)
    assert a.status_code == b.status_code == 404
    assert a.json() == b.json()
    assert a["Content-Type"] == "application/problem+json"


def test_a_body_over_the_limit_is_413_even_for_the_public_verifier(api_anon, api_bob, game):
    # ~2.5 MB of JSON: Django's own limit used to turn this into a 500.
    big = json.dumps({"players": ["x" * 1000] * 2600})
    assert len(big) > MAX_BODY_BYTES
    for client, url in (
        (api_anon, "/api/v1/hands/verify/"),
        (api_bob, f"/api/v1/sessions/{game.pk}/hands/"),
    ):
        response = client.post(url, big, content_type="application/json")
        assert response.status_code == 413, url
        assert response["Content-Type"] == "application/problem+json"
        assert response.json()["errors"][0]["code"] == "body_too_large"


def test_a_body_under_the_limit_is_read(api_anon):
    response = _post(api_anon, "/api/v1/hands/verify/", {"players": ["ann"] * 10})
    assert response.status_code == 400  # read and refused by the verifier, not by size
    assert response.json()["type"] == "urn:bourre:problem:invalid-record"


@pytest.mark.parametrize("size", ["0", "-1", "501", "abc", "1.5"])
def test_a_bad_page_size_is_400(api_carol, played, size):
    response = api_carol.get(f"/api/v1/sessions/{played.pk}/hands/?page_size={size}")
    assert response.status_code == 400
    assert response.json()["errors"][0] == {
        "field": "page_size",
        "code": "bad_page_size",
        "message": "page_size is a whole number from 1 to 500.",
    }


def test_a_good_page_size_is_used_and_the_link_header_is_absolute(api_carol, played):
    """Issue 36: `next` is the cursor a client sends back; the Link header (RFC 8288)
    carries the absolute URLs."""
    response = api_carol.get(f"/api/v1/sessions/{played.pk}/hands/?page_size=1")
    body = response.json()
    assert len(body["results"]) == 1
    assert "/" not in body["next"] and body["previous"] is None
    assert response["Link"].startswith("<http://testserver/api/v1/sessions/")
    assert response["Link"].endswith('>; rel="next"')
    second = api_carol.get(f"/api/v1/sessions/{played.pk}/hands/?page_size=1&cursor={body['next']}")
    assert second.json()["results"][0]["id"] != body["results"][0]["id"]
    assert 'rel="prev"' in second["Link"]


def test_timestamps_are_utc_whatever_the_site_time_zone(api_carol, played, settings):
    assert settings.TIME_ZONE == "America/Chicago"
    hand = api_carol.get(f"/api/v1/sessions/{played.pk}/hands/").json()["results"][0]
    assert hand["created_at"].endswith("Z")
    session = api_carol.get(f"/api/v1/sessions/{played.pk}/").json()
    assert session["created_at"].endswith("Z")
    posting = api_carol.get(f"/api/v1/clubs/{played.club_id}/postings/").json()["results"][0]
    assert posting["created_at"].endswith("Z")


def test_the_settlement_csv_writes_paid_at_with_the_clubs_offset(api_bob, played, club, bob):
    """The CSV's times read as the pages and the other CSVs do (the club's zone, with its
    offset); the JSON stays UTC like every API timestamp."""
    club.time_zone = "Asia/Kolkata"  # +05:30 all year: never the server's or UTC
    club.save()
    transfers = api_bob.get(f"/api/v1/sessions/{played.pk}/settlement/").json()["transfers"]
    t = next(t for t in transfers if t["payer"]["kind"] == t["payee"]["kind"] == "player")
    mark = postings.mark_transfer_paid(
        session_id=played.pk,
        payer_id=t["payer"]["id"],
        payee_id=t["payee"]["id"],
        amount=t["amount"],
        paid=True,
        user=bob,
    )
    assert mark is not None
    local = mark.paid_at.astimezone(zoneinfo.ZoneInfo("Asia/Kolkata"))
    expected = local.isoformat(timespec="seconds")
    assert expected.endswith("+05:30")
    for url in (f"/api/v1/sessions/{played.pk}/settlement/csv/",):
        rows = list(csv.DictReader(io.StringIO(api_bob.get(url).content.decode())))
        [paid] = [r for r in rows if r["paid"] == "yes"]
        assert paid["paid_at"] == expected, url
    body = api_bob.get(f"/api/v1/sessions/{played.pk}/settlement/").json()
    [paid_json] = [x for x in body["transfers"] if x["paid"]]
    assert paid_json["paid_at"].endswith("Z")


# --- FINDINGS (API) ----------------------------------------------------------------------


def test_a_duplicate_player_name_has_one_code(api_bob, club, players):
    response = _post(api_bob, f"/api/v1/clubs/{club.pk}/players/", {"name": "ANN"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "duplicate_name"
    rename = api_bob.patch(
        f"/api/v1/players/{players[1].pk}/", {"name": "ann"}, content_type="application/json"
    )
    assert rename.json()["errors"][0]["code"] == "duplicate_name"


def test_tricks_as_strings_are_refused_like_the_verifier_does(api_bob, api_anon, game):
    entry = {"up_card": "QH", "passed": ["ben"], "tricks": {"ann": "3", "cal": 2, "dee": 0}}
    recorded = _post(api_bob, f"/api/v1/sessions/{game.pk}/hands/", entry)
    verified = _post(
        api_anon,
        "/api/v1/hands/verify/",
        {**entry, "players": ["ann", "ben", "cal", "dee"], "dealer": "dee"},
    )
    assert recorded.status_code == verified.status_code == 400
    assert recorded.json()["errors"][0]["code"] == "bad_tricks"
    assert verified.json()["errors"][0]["code"] == "bad_tricks"
    assert game.hands.count() == 0


def test_rules_that_disagree_are_explained_in_json_not_python(api_bob, game):
    response = _post(
        api_bob, f"/api/v1/sessions/{game.pk}/hands/", {**FIRST_HAND, "rules": {"ante": 5}}
    )
    assert response.status_code == 400
    message = response.json()["errors"][0]["message"]
    assert response.json()["errors"][0]["code"] == "session_mismatch"
    assert "None" not in message and "'" not in message
    assert '"ante": 1' in message and '"ante": 5' in message


def test_the_verifier_answers_with_and_without_the_trailing_slash(api_anon):
    record = {
        "players": ["ann", "ben", "cal", "dee"],
        "dealer": "dee",
        "up_card": "QH",
        "passed": ["ben"],
        "tricks": {"ann": 3, "cal": 2, "dee": 0},
    }
    old = _post(api_anon, "/api/v1/hands/verify", record)
    new = _post(api_anon, "/api/v1/hands/verify/", record)
    assert old.status_code == new.status_code == 200
    assert old.json() == new.json()


def test_location_headers_are_absolute(api_bob, game):
    response = _post(api_bob, f"/api/v1/sessions/{game.pk}/hands/", FIRST_HAND)
    assert response["Location"] == f"http://testserver/api/v1/hands/{response.json()['id']}/"


def test_the_schema_download_has_an_ascii_file_name(client, db):
    disposition = client.get("/api/v1/schema/?format=json")["Content-Disposition"]
    assert disposition == 'inline; filename="bourre-api-v1.json"'
    assert disposition.isascii()


def test_the_schema_separates_conflicts_and_validation_from_rejected_hands(client, db):
    schema = client.get("/api/v1/schema/?format=json").json()
    op = schema["paths"]["/api/v1/sessions/{session_id}/hands/"]["post"]["responses"]
    ref409 = op["409"]["content"]["application/problem+json"]["schema"]["$ref"]
    ref400 = op["400"]["content"]["application/problem+json"]["schema"]["$ref"]
    components = schema["components"]["schemas"]
    conflict = components[ref409.rsplit("/", 1)[1]]
    bad = components[ref400.rsplit("/", 1)[1]]
    # Nothing a closed-session or validation problem lacks is required.
    assert "current_version" not in conflict.get("required", [])
    assert "verdict" not in bad.get("required", [])
    assert (
        set(conflict["required"])
        == set(bad["required"])
        == {
            "type",
            "title",
            "status",
            "detail",
            "errors",
        }
    )


@pytest.mark.parametrize("name", ["-6.16e+277", "7", "3.5", "+12", "1e9"])
def test_a_name_that_is_only_a_number_is_refused(api_bob, club, name):
    response = _post(api_bob, f"/api/v1/clubs/{club.pk}/players/", {"name": name})
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "numeric_name"
    assert not Player.objects.filter(club=club, name=name).exists()


@pytest.mark.parametrize("name", ["Player 7", "Nan", "Inf", "7even", "E"])
def test_names_with_letters_are_fine(api_bob, club, name):
    response = _post(api_bob, f"/api/v1/clubs/{club.pk}/players/", {"name": name})
    assert response.status_code == 201, response.content


def test_the_verifier_says_how_much_of_its_rate_is_left(api_anon, settings, steady_rate_clock):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"verify": "3/min"},
    }
    record = {"players": ["ann", "ben"], "dealer": "ann", "trump": "S"}
    seen = [_post(api_anon, "/api/v1/hands/verify/", record) for _ in range(4)]
    assert [r["RateLimit-Remaining"] for r in seen[:3]] == ["2", "1", "0"]
    assert {r["RateLimit-Limit"] for r in seen} == {"3"}
    assert seen[3].status_code == 429
    assert 0 < int(seen[3]["Retry-After"]) <= 60
    assert 0 <= int(seen[0]["RateLimit-Reset"]) <= 60


@pytest.mark.parametrize("value", ["csv", "xml", ""])
def test_a_format_other_than_the_operations_own_is_400_naming_it(api_carol, played, value):
    """Issue 36: one content type per operation, so `?format=` is validated against that
    one (an empty value too); the CSV is an operation of its own."""
    for path, own in (
        (f"/api/v1/sessions/{played.pk}/balances/", "json"),
        (f"/api/v1/clubs/{played.club_id}/postings/", "json"),
        (f"/api/v1/sessions/{played.pk}/settlement/", "json"),
    ):
        response = api_carol.get(f"{path}?format={value}")
        assert response.status_code == 400, path
        assert response["Content-Type"] == "application/problem+json"
        [error] = response.json()["errors"]
        assert error["field"] == "format" and error["code"] == "bad_format"
        assert error["message"] == f"Unknown format; this endpoint answers in: {own}."
        assert api_carol.get(f"{path}?format={own}").status_code == 200
    csv_only = api_carol.get(f"/api/v1/sessions/{played.pk}/settlement/csv/?format=json")
    assert csv_only.status_code == 400
    assert csv_only.json()["errors"][0]["message"].endswith("answers in: csv.")


def test_options_on_every_operation_is_never_a_server_error(api_bob, played, club, players):
    """DRF answers `OPTIONS` with the view's metadata, rendered by the operation's one
    renderer (issue 36): the streamed export's and the CSVs' renderers must render it
    (schemathesis found the export's 500)."""
    ids = {"club_id": club.pk, "session_id": played.pk, "player_id": players[0].pk}
    ids["hand_id"] = played.hands.first().pk
    document = SchemaGenerator().get_schema(request=None, public=True)
    answered = {}
    for template in document["paths"]:
        path = re.sub(r"\{(\w+)\}", lambda m: str(ids.get(m[1], 1)), template)
        answered[template] = api_bob.options(path).status_code
    assert len(answered) >= 50  # the walk reached every path
    assert {p: code for p, code in answered.items() if code >= 500} == {}
    export = api_bob.options(f"/api/v1/clubs/{club.pk}/export/")
    assert export.status_code == 200 and json.loads(export.content)["name"]
