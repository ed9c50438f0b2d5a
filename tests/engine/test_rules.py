"""Rules: every switch of RULES.md with its default, from_dict errors, form metadata."""

from __future__ import annotations

import dataclasses

import pytest

from games.engine import RULE_FIELDS, RULE_HELP, RuleError, Rules

DEFAULTS = {
    "ante": 1,
    "hand_size": 5,
    "max_discard": 5,
    "pot_limit": None,
    "limit_caps_winner": False,
    "double_ante": False,
    "dealer_antes_for_all": False,
    "declaration": "sequential",
    "undertrump_required": True,
    "head_led_suit_after_trump": False,
    "lead_trump_when_others_void": True,
    "cinch": "sure_tricks",
    "cinch_equivalence": "sequence",
    "split_pot": "carry",
    "tied_excused": True,
    "ineligible_winner": "carry",
    "stock_refill": "discards_except_current",
    "dealer_may_discard_upcard": True,
}


def test_every_switch_with_its_default() -> None:
    assert Rules().to_dict() == DEFAULTS
    assert Rules.from_dict({}) == Rules() == Rules.from_dict(None)
    assert [f.key for f in RULE_FIELDS] == list(DEFAULTS)
    assert {f.key: f.default for f in RULE_FIELDS} == DEFAULTS
    assert set(RULE_HELP) == set(DEFAULTS)
    assert all(RULE_HELP[k] and "\n" not in RULE_HELP[k] for k in DEFAULTS)


def test_rules_are_frozen_and_round_trip() -> None:
    rules = Rules.from_dict({"ante": 5, "pot_limit": 20, "split_pot": "divide"})
    assert Rules.from_dict(rules.to_dict()) == rules
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.ante = 2  # type: ignore[misc]
    assert rules.replace(ante=2).ante == 2


@pytest.mark.parametrize(
    ("data", "code", "key"),
    [
        ({"jokers": True}, "unknown_rule", "jokers"),
        ({"ante": 0}, "bad_rule_value", "ante"),
        ({"ante": True}, "bad_rule_value", "ante"),
        ({"ante": 1.5}, "bad_rule_value", "ante"),
        ({"ante": "1"}, "bad_rule_value", "ante"),
        ({"ante": 10**16}, "bad_rule_value", "ante"),
        ({"hand_size": 3}, "bad_rule_value", "hand_size"),
        ({"max_discard": 6}, "bad_rule_value", "max_discard"),
        ({"max_discard": -1}, "bad_rule_value", "max_discard"),
        ({"pot_limit": 0}, "bad_rule_value", "pot_limit"),
        ({"limit_caps_winner": 1}, "bad_rule_value", "limit_caps_winner"),
        ({"declaration": "shouted"}, "bad_rule_value", "declaration"),
        ({"cinch": True}, "bad_rule_value", "cinch"),
        ({"cinch_equivalence": "any"}, "bad_rule_value", "cinch_equivalence"),
        ({"split_pot": "share"}, "bad_rule_value", "split_pot"),
        ({"ineligible_winner": None}, "bad_rule_value", "ineligible_winner"),
        ({"stock_refill": []}, "bad_rule_value", "stock_refill"),
        ({"tied_excused": "yes"}, "bad_rule_value", "tied_excused"),
    ],
)
def test_from_dict_errors(data: dict, code: str, key: str) -> None:
    with pytest.raises(RuleError) as exc:
        Rules.from_dict(data)
    assert exc.value.code == code and exc.value.key == key
    assert isinstance(exc.value, ValueError) and key in str(exc.value)


def test_from_dict_rejects_non_objects_and_checks_types_despite_the_cache() -> None:
    with pytest.raises(RuleError):
        Rules.from_dict(["ante"])  # type: ignore[arg-type]
    assert Rules.from_dict({"ante": 1}).ante == 1
    with pytest.raises(RuleError):
        Rules.from_dict({"ante": True})  # True == 1 must not hit the cached entry


def test_constructor_validates_too() -> None:
    with pytest.raises(RuleError):
        Rules(cinch="sometimes")


@pytest.mark.parametrize("field", RULE_FIELDS, ids=lambda f: f.key)
def test_rule_fields_describe_a_form(field) -> None:
    assert field.type in {"int", "optional_int", "bool", "choice"}
    assert field.label and field.help
    if field.type == "choice":
        assert field.default in field.choices
    d = field.to_dict()
    assert d["key"] == field.key and d["default"] == field.default
    # every choice and the bounds are accepted
    for value in field.choices or ():
        Rules.from_dict({field.key: value})
    for value in (field.min, field.max):
        if value is not None:
            Rules.from_dict({field.key: value})


def test_derived_values() -> None:
    assert Rules().majority == 3 and Rules(hand_size=4).majority == 3
    assert Rules(hand_size=4).discard_limit == 4 and Rules(max_discard=3).discard_limit == 3
