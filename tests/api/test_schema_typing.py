"""The schema a generator can use (issue 16): engine components, examples on every write,
integer ids everywhere, enum names that say what they are, documented headers."""

import pytest
from drf_spectacular.generators import SchemaGenerator

from games.api import schema as engine_schema
from games.engine.record import SESSION_KEYS, TABLE_KEYS
from games.engine.rules import RULE_FIELDS

WRITES = ("post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def _operations(schema):
    for path, item in schema["paths"].items():
        for method, op in item.items():
            if method in ("get", *WRITES):
                yield path, method, op


def test_the_record_and_rules_components_come_from_the_engine(schema):
    components = schema["components"]["schemas"]
    assert set(components["HandRecord"]["properties"]) == set(SESSION_KEYS + TABLE_KEYS)
    assert set(components["TableRecord"]["properties"]) == set(TABLE_KEYS)
    rules = components["Rules"]["properties"]
    assert set(rules) == {f.key for f in RULE_FIELDS}
    assert rules["declaration"]["enum"] == ["sequential", "simultaneous"]
    assert rules["pot_limit"]["nullable"] is True
    assert components["Rules"]["additionalProperties"] is False


def test_a_record_key_the_engine_adds_without_a_type_fails_loudly():
    with pytest.raises(LookupError, match="forfeits_owed"):
        engine_schema.record_schema((*SESSION_KEYS, "forfeits_owed"))


def _ref(prop: dict) -> str:
    """The component a property refers to ($ref, or allOf[$ref] when it has a description)."""
    return (prop.get("$ref") or prop["allOf"][0]["$ref"]).rsplit("/", 1)[1]


def test_hand_record_verdict_and_rules_are_typed_where_they_appear(schema):
    components = schema["components"]["schemas"]
    detail = components["HandDetailOutput"]["properties"]
    assert _ref(detail["record"]) == "HandRecord"
    assert _ref(detail["verdict"]) == "Verdict"
    assert _ref(components["SessionDetailOutput"]["properties"]["rules"]) == "Rules"
    assert _ref(components["Verdict"]["properties"]["result"]) == "HandResult"
    verify = schema["paths"]["/api/v1/hands/verify/"]["post"]
    assert verify["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/HandRecord"
    )


def test_every_write_with_a_body_has_an_example(schema):
    missing = {
        f"{method.upper()} {path}"
        for path, method, op in _operations(schema)
        if method in WRITES
        and "requestBody" in op
        and not op["requestBody"]["content"].get("application/json", {}).get("examples")
    }
    assert not missing, missing


def test_every_id_is_an_integer(schema):
    ids = 0
    for path, _, op in _operations(schema):
        for param in op.get("parameters", []):
            if param["in"] == "path" and param["name"].endswith("_id"):
                ids += 1
                assert param["schema"]["type"] == "integer", (path, param["name"])
    assert ids > 30


def test_enum_names_say_what_they_are(schema):
    names = {n for n in schema["components"]["schemas"] if n.endswith("Enum")}
    assert not names & {"KindEnum", "StatusEnum"}
    assert {"SessionStatusEnum", "HandStatusEnum", "HandKindEnum", "PostingKindEnum"} <= names
    assert not [n for n in names if any(c.isdigit() for c in n)]  # no "Status2cbEnum"


def test_writes_document_idempotency_and_problems(schema):
    op = schema["paths"]["/api/v1/clubs/{club_id}/players/"]["post"]
    assert "Idempotency-Key" in {p["name"] for p in op["parameters"]}
    assert "Idempotent-Replayed" in op["responses"]["201"]["headers"]
    assert "Location" in op["responses"]["201"]["headers"]
    assert {"400", "413", "422"} <= set(op["responses"])
    session = schema["paths"]["/api/v1/sessions/{session_id}/"]["get"]["responses"]["200"]
    assert "ETag" in session["headers"]
    verify = schema["paths"]["/api/v1/hands/verify/"]["post"]["responses"]
    assert "Retry-After" in verify["429"]["headers"]
    assert {"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} <= set(
        verify["200"]["headers"]
    )


def test_the_csv_has_an_operation_of_its_own(schema):
    op = schema["paths"]["/api/v1/sessions/{session_id}/settlement/csv/"]["get"]
    assert list(op["responses"]["200"]["content"]) == ["text/csv"]


# --- issue 36: the shape a generated client needs ------------------------------------------

READABLE = {"application/json", "application/problem+json", "text/csv", "application/octet-stream"}


def _named_operations(schema):
    for path, operations in schema["paths"].items():
        for method, op in operations.items():
            yield f"{method.upper()} {path}", op


def test_no_response_offers_two_content_types_and_each_is_readable(schema):
    for name, op in _named_operations(schema):
        assert "format" not in {p["name"] for p in op.get("parameters", [])}, name
        for code, response in op["responses"].items():
            types = list(response.get("content", {}))
            assert len(types) <= 1, (name, code, types)
            assert set(types) <= READABLE, (name, code, types)
    export = schema["paths"]["/api/v1/clubs/{club_id}/export/"]["get"]["responses"]["200"]
    assert list(export["content"]) == ["application/octet-stream"]
    for csv_path in (
        "/api/v1/clubs/{club_id}/postings/csv/",
        "/api/v1/tournaments/{tournament_id}/standings/csv/",
        "/api/v1/tournaments/{tournament_id}/prizes/csv/",
    ):
        assert list(schema["paths"][csv_path]["get"]["responses"]["200"]["content"]) == ["text/csv"]


def test_every_list_is_a_cursor_page(schema):
    for name, op in _named_operations(schema):
        if not name.startswith("GET"):
            continue
        body = op["responses"]["200"].get("content", {}).get("application/json", {})
        assert body.get("schema", {}).get("type") != "array", name
        ref = body.get("schema", {}).get("$ref", "")
        if ref.endswith("Page"):
            page = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
            assert page["properties"]["next"]["type"] == "string", name
            params = {p["name"]: p["schema"] for p in op["parameters"]}
            assert params["page_size"]["minimum"] == 1 and params["page_size"]["maximum"] == 500


def test_input_schemas_refuse_unknown_fields_and_maps_are_named(schema):
    components = schema["components"]["schemas"]
    inputs = [n for n in components if n.endswith("Input")]
    assert inputs and all(components[n]["additionalProperties"] is False for n in inputs)
    for owner in ("HandCreateInput", "CorrectInput", "TableRecord", "Verdict"):
        assert components[owner]["properties"]["tricks"] == {"$ref": "#/components/schemas/Tricks"}
    assert "action_view" not in str(schema["paths"])  # no internal docstring leaks
