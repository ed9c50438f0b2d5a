"""The OpenAPI components describe the same shapes as the engine's typed contracts.

games/api/schema.py writes the record, the verdict and the result as JSON Schema by hand
(HAND_RECORD.md's words); games/engine/contracts.py types them for mypy. Both describe
what ``verify`` takes and gives, so their keys must agree: a key added to one and not the
other fails here.
"""

from __future__ import annotations

from typing import Any

import pytest

from games.api.schema import components
from games.engine.contracts import (
    HandRecord,
    HandResult,
    RecordError,
    Renege,
    RulesDict,
    TableRecord,
    TableRenege,
    Verdict,
)
from games.engine.record_parse import _RENEGE_KEYS


@pytest.mark.parametrize(
    ("component", "contract"),
    [
        ("Rules", RulesDict),
        ("HandRecord", HandRecord),
        ("TableRecord", TableRecord),
        ("RenegeCall", TableRenege),
        ("Verdict", Verdict),
        ("VerdictError", RecordError),
        ("HandResult", HandResult),
        ("Renege", Renege),
    ],
)
def test_component_and_contract_have_the_same_keys(component: str, contract: Any) -> None:
    schema = components()[component]
    assert set(schema["properties"]) == set(contract.__annotations__)
    # what the schema calls required the contract requires too
    assert set(schema.get("required") or ()) <= contract.__required_keys__


def test_optional_keys_agree_where_the_schema_lists_them_all() -> None:
    for component, contract in (("Verdict", Verdict), ("VerdictError", RecordError)):
        assert set(components()[component]["required"]) == contract.__required_keys__


def test_the_parser_accepts_the_renege_keys_the_contract_declares() -> None:
    assert set(TableRenege.__annotations__) == _RENEGE_KEYS
