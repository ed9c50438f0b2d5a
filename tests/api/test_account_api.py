"""`GET /api/v1/me/export/` (issue #33 item 6): the caller's own account as one JSON
document, the same as the web page's "Download my data"; documented in the schema.
Deleting the account is web-only (games.api.me says why): the API has no such operation.
"""

import json

import jsonschema
from drf_spectacular.generators import SchemaGenerator

from games.models import ApiToken, WebhookEndpoint

from .conftest import FIRST_HAND, SECOND_HAND, record

URL = "/api/v1/me/export/"


def _json_schema(node):
    """OpenAPI 3.0's ``nullable`` as JSON Schema's ``null`` type (what jsonschema reads)."""
    if isinstance(node, list):
        return [_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _json_schema(v) for k, v in node.items() if k != "nullable"}
    if node.get("nullable"):
        out = {"anyOf": [out, {"type": "null"}]}
    return out


def _document(response) -> dict:
    assert response.status_code == 200
    assert response.streaming and response["Content-Type"] == "application/json"
    return json.loads(b"".join(response.streaming_content))


def test_the_export_is_the_callers_account_and_holds_no_secret(api_alice, alice, game, bob):
    game.club.players.filter(name="ann").update(user=alice)
    record(game, FIRST_HAND, bob)
    record(game, SECOND_HAND, bob)
    hook = WebhookEndpoint.objects.create(club=game.club, url="https://example.com/hook")
    data = _document(api_alice.get(URL))
    assert data["profile"]["username"] == "alice"
    assert [m["role"] for m in data["memberships"]] == ["owner"]
    assert data["clubs_owned"][0]["webhooks"][0]["url"] == "https://example.com/hook"
    assert [p["name"] for p in data["players"]] == ["ann"]
    assert [h["number"] for h in data["hands"]] == [1, 2]
    assert data["postings"] and data["sessions"][0]["seat"]["position"] == 0
    text = json.dumps(data)
    assert hook.secret not in text and alice.password not in text
    for token in ApiToken.objects.filter(user=alice):
        assert token.key_hash not in text and token.password_fingerprint not in text
    assert data["api_tokens"][0]["name"] == "tests"
    assert data["payment_handles"] is None and data["players"][0]["payment_handles"] is None


def test_the_export_holds_the_callers_payment_handles_as_documented(api_alice, alice, game):
    """Where the caller is paid (issue #34), in the documented shape."""
    from games.models import PaymentHandles

    game.club.players.filter(name="ann").update(user=alice)
    PaymentHandles.objects.create(user=alice, cashtag="AliceB", revolut="alice.b")
    data = _document(api_alice.get(URL))
    assert (data["payment_handles"]["cashtag"], data["payment_handles"]["revolut"]) == (
        "AliceB",
        "alice.b",
    )
    schema = _json_schema(SchemaGenerator().get_schema(request=None, public=True))
    documented = schema["paths"][URL]["get"]["responses"]["200"]["content"]["application/json"]
    jsonschema.validate(data, {**documented["schema"], "components": schema["components"]})


def test_the_export_matches_its_documented_schema(api_alice, alice, game, bob):
    game.club.players.filter(name="ann").update(user=alice)
    record(game, FIRST_HAND, bob)
    data = _document(api_alice.get(URL))
    generator = SchemaGenerator()
    schema = _json_schema(generator.get_schema(request=None, public=True))
    operation = schema["paths"][URL]["get"]
    assert operation["operationId"] == "me_export" and operation["tags"] == ["account"]
    assert "delete" not in schema["paths"][URL]
    documented = operation["responses"]["200"]["content"]["application/json"]["schema"]
    # "#/components/..." references resolve against the root: give it the components.
    jsonschema.validate(data, {**documented, "components": schema["components"]})


def test_a_stranger_sees_only_their_own_account(api_mallory, game, bob):
    record(game, FIRST_HAND, bob)
    data = _document(api_mallory.get(URL))
    assert data["profile"]["username"] == "mallory"
    assert data["memberships"] == data["hands"] == data["postings"] == []
    assert "Bayou Club" not in json.dumps(data)


def test_without_a_token_it_is_a_401_problem(api_anon, api_revoked, db):
    for client in (api_anon, api_revoked):
        response = client.get(URL)
        assert response.status_code == 401
        assert response["Content-Type"] == "application/problem+json"


def test_the_export_cannot_be_written_to(api_alice):
    for method in (api_alice.post, api_alice.delete, api_alice.put):
        assert method(URL).status_code == 405
