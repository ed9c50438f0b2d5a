"""The typed contracts (games/engine/contracts.py) against what the engine really returns.

A TypedDict is only a promise to mypy: nothing checks at run time that the engine writes
the keys it declares. These tests do, on real records, verdicts, actions and views: every
key a value has is declared in its class, every required key is there, and the nested
values (errors, reneges, the result, trick cards, the declaring choices) are held to their
own classes. ``test_checker_fails_*`` shows the check can fail.
"""

from __future__ import annotations

import random
from dataclasses import fields
from typing import Any, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from games.engine import HandState, RandomBot, Rules, settle, verify
from games.engine.contracts import (
    CardAction,
    HandRecord,
    HandResult,
    PassAction,
    PlayAction,
    PublicView,
    RecordError,
    RulesDict,
    SeatView,
    SessionRecord,
    TableRecord,
    Verdict,
)
from games.engine.record import SESSION_KEYS, TABLE_KEYS


def problems(cls: Any, value: object, where: str = "") -> list[str]:
    """Why ``value`` does not fit TypedDict ``cls`` (recursing into nested TypedDicts,
    lists and dicts of them); empty when it fits."""
    if not isinstance(value, dict):
        return [f"{where or cls.__name__}: not a dict"]
    out = []
    declared = set(cls.__annotations__)
    for key in value.keys() - declared:
        out.append(f"{where or cls.__name__}: key {key!r} not declared")
    for key in cls.__required_keys__ - value.keys():
        out.append(f"{where or cls.__name__}: required key {key!r} missing")
    hints = get_type_hints(cls)
    for key in value.keys() & declared:
        out += _nested(hints[key], value[key], f"{where or cls.__name__}.{key}")
    return out


def _nested(hint: Any, value: object, where: str) -> list[str]:
    if is_typeddict(hint):
        return problems(hint, value, where)
    origin = get_origin(hint)
    args = get_args(hint)
    if value is None:
        return [] if type(None) in args or hint is type(None) else [f"{where}: None"]
    if origin is list and args and isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _nested(args[0], v, f"{where}[{i}]")]
    if origin is dict and len(args) == 2 and isinstance(value, dict):
        return [p for k, v in value.items() for p in _nested(args[1], v, f"{where}[{k!r}]")]
    typed = [a for a in args if is_typeddict(a)]
    if typed:  # X | None with X a TypedDict
        return problems(typed[0], value, where)
    return []


def fits(cls: Any, value: object) -> None:
    found = problems(cls, value)
    assert not found, found


# -- the checker itself ---------------------------------------------------------------------


def test_checker_fails_on_an_undeclared_key() -> None:
    verdict = verify({"players": ["ann", "ben"], "dealer": "ben", "up_card": "QH"})
    assert not problems(Verdict, verdict)
    assert problems(Verdict, {**verdict, "winner": "ann"}) == ["Verdict: key 'winner' not declared"]


def test_checker_fails_on_a_missing_required_key_and_inside_nested_values() -> None:
    assert problems(RecordError, {"code": "x"}) == ["RecordError: required key 'message' missing"]
    bad = {"valid": False, "errors": [{"code": "x", "message": "m", "seat": 1}]}
    assert problems(Verdict, bad) == ["Verdict.errors[0]: key 'seat' not declared"]


# -- records and verdicts ------------------------------------------------------------------

FINISHED = {
    "players": ["ann", "ben", "cal", "dee"],
    "dealer": "dee",
    "carry": 0,
    "up_card": "QH",
    "passed": ["ben"],
    "tricks": {"ann": 3, "cal": 2, "dee": 0},
}
PARTIAL_LOG = {
    "players": ["ann", "ben"],
    "dealer": "ben",
    "up_card": "2H",
    "hands": {"ann": ["AH", "KH", "QH", "JH", "TH"], "ben": ["AS", "KS", "QS", "JS", "2H"]},
    "plays": [["ann", "AH"], ["ben", "2H"]],
}
WITH_RENEGE = {
    **FINISHED,
    "reneges": [{"player": "cal", "corrected": False, "trick": 2, "rule": "R21"}],
}
INVALID = {
    "players": ["ann", "ann"],
    "dealer": "zed",
    "pased": [],
    "rules": {"ante": -1, "nope": 1},
}


@pytest.mark.parametrize("record", [FINISHED, PARTIAL_LOG, WITH_RENEGE, INVALID])
def test_records_and_verdicts_fit(record: dict[str, Any]) -> None:
    valid = record is not INVALID
    if valid:
        fits(HandRecord, record)
    verdict = verify(record)
    assert verdict["valid"] is valid, verdict
    fits(Verdict, verdict)
    if valid:
        # a valid verdict has every key, so readers may index them all
        assert verdict.keys() == Verdict.__annotations__.keys()
    else:
        assert verdict.keys() == Verdict.__required_keys__
        assert {k for e in verdict["errors"] for k in e} > {"code", "message", "field"}


def test_the_partial_log_names_the_next_turn_and_the_renege_is_typed() -> None:
    nxt = verify(PARTIAL_LOG)["next"]
    assert nxt is not None and nxt["player"] == "ann" and nxt["legal"]
    reneges = verify(WITH_RENEGE)["reneges"]
    assert reneges and not problems(Verdict, {"valid": True, "errors": [], "reneges": reneges})


def test_settle_gives_a_hand_result() -> None:
    result = settle(["ann", "ben", "cal"], "cal", Rules(), tricks={"ann": 3, "cal": 2})
    fits(HandResult, result)
    assert result.keys() == HandResult.__annotations__.keys()


def test_record_keys_are_the_contracts() -> None:
    assert SESSION_KEYS == ("players", "dealer", "carry", "excused", "rules", "forfeits")
    assert TABLE_KEYS == (
        "up_card",
        "trump",
        "passed",
        "discards",
        "hands",
        "plays",
        "tricks",
        "reneges",
    )
    assert set(HandRecord.__annotations__) == set(SessionRecord.__annotations__) | set(
        TableRecord.__annotations__
    )


def test_rules_dict_declares_every_switch_in_order() -> None:
    assert list(RulesDict.__annotations__) == [f.name for f in fields(Rules)]
    fits(RulesDict, Rules(pot_limit=5, declaration="simultaneous").to_dict())


# -- digital hands: actions, views, records ------------------------------------------------

ACTIONS = {"pass": PassAction, "play": PlayAction, "card": CardAction}


@pytest.mark.parametrize(
    ("players", "rules"),
    [
        (["ann", "ben", "cal", "dee"], Rules()),
        (["ann", "ben", "cal"], Rules(declaration="simultaneous", double_ante=True)),
        (["ann", "ben"], Rules(hand_size=4, dealer_may_discard_upcard=False)),
    ],
)
def test_digital_hands_fit_their_contracts(players: list[str], rules: Rules) -> None:
    seen_declare = seen_play = False
    for seed in range(6):
        state = HandState.new(players, seed % len(players), rules, random.Random(seed))
        bots = {p: RandomBot(random.Random(f"{seed}:{p}")) for p in players}
        while state.phase != "done":
            fits(PublicView, state.public_view())
            for p in players:
                view = state.view_for(p)
                fits(SeatView, view)
                assert view.keys() == SeatView.__annotations__.keys()
            player = state.awaiting[0]
            seat_view = state.view_for(player)
            seen_declare |= seat_view["declare"] is not None
            seen_play |= bool(seat_view["legal"])
            for action in state.legal_actions(player)[:3]:
                fits(ACTIONS[action["type"]], action)
            state.apply(bots[player].act(seat_view))
        public = state.public_view()
        fits(PublicView, public)
        assert public.keys() == PublicView.__annotations__.keys()
        for action in state.actions:
            fits(ACTIONS[action["type"]], action)
        record = state.to_record()
        fits(HandRecord, record)
        verdict = state.verdict()
        fits(Verdict, verdict)
        assert verify(record) == verdict
        fits(HandResult, state.outcome())
    assert seen_declare and seen_play
