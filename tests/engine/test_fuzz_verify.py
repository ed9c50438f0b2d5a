"""verify() never raises: arbitrary JSON values, record-shaped junk, mutated records."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import verify

from .helpers import random_hand

FIELDS = [
    "rules",
    "players",
    "dealer",
    "carry",
    "excused",
    "up_card",
    "trump",
    "passed",
    "discards",
    "hands",
    "plays",
    "tricks",
    "reneges",
    "forfeits",
]

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([2**63, -1, 0, 5, 13])
    # past Python's 4300-digit int→str limit: messages must not try to print them
    | st.integers(4300, 5000).map(lambda digits: (-1) ** digits * 10**digits)
    | st.floats(allow_nan=True)
    | st.text(max_size=12)
    | st.sampled_from(["AS", "10H", "q♥", "ann", "ben", "S", "H", "", " AS ", "♠"])
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=6)
        | st.dictionaries(st.text(max_size=8) | st.sampled_from(FIELDS), children, max_size=6)
    ),
    max_leaves=30,
)
SETTINGS = settings(max_examples=50, deadline=None)


def check(verdict: dict[str, Any]) -> None:
    assert isinstance(verdict, dict)
    assert verdict["valid"] in (True, False)
    assert isinstance(verdict["errors"], list)
    if verdict["valid"]:
        assert verdict["errors"] == []
    else:
        assert verdict["errors"]
        for error in verdict["errors"]:
            assert error["code"] != "internal_error", error
            assert isinstance(error["message"], str)
    json.dumps(verdict)


@SETTINGS
@given(json_values)
def test_any_json_value(value: Any) -> None:
    check(verify(value))


@SETTINGS
@given(st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=10))
def test_record_shaped_junk(record: dict[str, Any]) -> None:
    check(verify(record))


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_paths(v, (*prefix, i)))
    return out


@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(2, 8), data=st.data())
def test_mutated_valid_records(seed: int, n: int, data: st.DataObject) -> None:
    record = random_hand(seed, n).to_record()
    for _ in range(data.draw(st.integers(1, 3))):
        paths = [p for p in _paths(record) if p]
        path = data.draw(st.sampled_from(paths))
        target = record
        for key in path[:-1]:
            target = target[key]
        action = data.draw(st.sampled_from(["replace", "delete", "duplicate"]))
        if action == "replace":
            target[path[-1]] = data.draw(json_values)
        elif action == "delete":
            del target[path[-1]]
        elif isinstance(target, list):
            target.append(copy.deepcopy(target[path[-1]]))
    check(verify(record))


def test_deep_nesting_and_huge_values() -> None:
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    for value in (deep, {"players": deep}, {"plays": deep, "players": ["a", "b"]}):
        check(verify(value))
    huge = {"players": ["a", "b"], "dealer": "a", "trump": "S", "carry": 10**5000}
    check(verify(huge))
    many = {"players": ["a", "b"], "dealer": "a", "trump": "S", "plays": [["a", "AS"]] * 10**5}
    check(verify(many))
    check(
        verify(
            {"players": ["a" * 10**5, "b"], "dealer": "b", "trump": "S", "tricks": {"x" * 10**5: 1}}
        )
    )
