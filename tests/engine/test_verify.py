"""verify(record): the HAND_RECORD.md contract, every error code, reneges, partial logs."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from games.engine import Rules, verify

from .helpers import conserved, random_hand

EXAMPLE = {
    "players": ["ann", "ben", "cal", "dee"],
    "dealer": "dee",
    "carry": 0,
    "up_card": "QH",
    "passed": ["ben"],
    "tricks": {"ann": 3, "cal": 2, "dee": 0},
}

# A hand played legally (trump hearts, cal deals, ann leads):
#   1: ann AS ben 2S cal 5S      → ann
#   2: ann KS ben 3S cal 6S      → ann
#   3: ann QS ben 4S cal 9H      → cal (void in spades: must trump, R20)
#   4: cal 7C ann 2C ben 5C      → cal
#   5: cal 8C ann 3C ben 6C      → cal
HANDS = {
    "ann": ["AS", "KS", "QS", "2C", "3C"],
    "ben": ["2S", "3S", "4S", "5C", "6C"],
    "cal": ["9H", "5S", "6S", "7C", "8C"],
}
PLAYS = [
    ["ann", "AS"], ["ben", "2S"], ["cal", "5S"],
    ["ann", "KS"], ["ben", "3S"], ["cal", "6S"],
    ["ann", "QS"], ["ben", "4S"], ["cal", "9H"],
    ["cal", "7C"], ["ann", "2C"], ["ben", "5C"],
    ["cal", "8C"], ["ann", "3C"], ["ben", "6C"],
]  # fmt: skip
# The same deal where cal throws a club instead of trumping trick 3 (a renege, R20).
RENEGE_PLAYS = [
    ["ann", "AS"], ["ben", "2S"], ["cal", "5S"],
    ["ann", "KS"], ["ben", "3S"], ["cal", "6S"],
    ["ann", "QS"], ["ben", "4S"], ["cal", "7C"],
    ["ann", "2C"], ["ben", "5C"], ["cal", "8C"],
    ["cal", "9H"], ["ann", "3C"], ["ben", "6C"],
]  # fmt: skip


def log(plays: list[list[str]] = PLAYS, **extra: Any) -> dict[str, Any]:
    record = {
        "players": ["ann", "ben", "cal"],
        "dealer": "cal",
        "up_card": "9H",
        "hands": copy.deepcopy(HANDS),
        "plays": copy.deepcopy(plays),
    }
    record.update(extra)
    return record


def codes(verdict: dict[str, Any]) -> list[str]:
    assert verdict["valid"] is False, verdict
    assert isinstance(verdict["errors"], list) and verdict["errors"]
    return [e["code"] for e in verdict["errors"]]


def valid(record: dict[str, Any]) -> dict[str, Any]:
    verdict = verify(record)
    assert verdict["valid"], verdict
    if verdict["complete"]:
        assert conserved(verdict["result"], record.get("carry") or 0)
    return verdict


# -- the HAND_RECORD.md example -----------------------------------------------------------------


def test_hand_record_example() -> None:
    v = valid(EXAMPLE)
    assert v["complete"] and v["tricks"] == {"ann": 3, "cal": 2, "dee": 0}
    r = v["result"]
    assert r["outcome"] == "win" and r["winner"] == "ann"
    assert r["pot"] == 4 and r["payouts"] == {"ann": 4}
    assert r["bourre"] == ["dee"] and r["penalties"] == {"dee": 4}
    assert r["next_carry"] == 4 and r["excused_next"] == ["dee"]
    assert r["next_dealer"] == "ann"
    assert v["reneges"] == [] and v["errors"] == []


# -- card logs --------------------------------------------------------------------------------


def test_complete_card_log() -> None:
    v = valid(log())
    assert v["complete"] and v["tricks"] == {"ann": 2, "ben": 0, "cal": 3}
    assert v["result"]["winner"] == "cal" and v["result"]["bourre"] == ["ben"]


def test_complete_card_log_without_hands() -> None:
    record = log()
    del record["hands"]
    assert valid(record)["tricks"] == {"ann": 2, "ben": 0, "cal": 3}


def test_plays_as_objects_and_loose_card_spellings() -> None:
    record = log()
    record["plays"] = [{"player": p, "card": c.lower().replace("T", "10")} for p, c in PLAYS]
    record["plays"][8]["card"] = "9♥"
    assert valid(record)["result"]["winner"] == "cal"


def test_R38_R39_renege_found_in_the_log() -> None:
    v = valid(log(RENEGE_PLAYS))
    assert v["reneges"] == [
        {
            "player": "cal",
            "trick": 3,
            "card": "7C",
            "rule": "R20",
            "legal": ["9H"],
            "corrected": False,
        }
    ]
    assert v["tricks"] == {"ann": 3, "ben": 0, "cal": 2}  # the card stays played
    r = v["result"]
    assert r["winner"] == "ann" and r["penalties"] == {"ben": 3, "cal": 3}
    assert r["excused_next"] == ["ben", "cal"]


def test_R19_renege_cites_follow_suit() -> None:
    # cal throws a club on trick 1 while holding spades (R19)
    plays = [
        ["ann", "AS"], ["ben", "2S"], ["cal", "7C"],
        ["ann", "KS"], ["ben", "3S"], ["cal", "5S"],
        ["ann", "QS"], ["ben", "4S"], ["cal", "6S"],
        ["ann", "2C"], ["ben", "5C"], ["cal", "8C"],
        ["cal", "9H"], ["ann", "3C"], ["ben", "6C"],
    ]  # fmt: skip
    v = valid(log(plays))
    assert [(r["player"], r["trick"], r["rule"]) for r in v["reneges"]] == [("cal", 1, "R19")]
    assert v["tricks"] == {"ann": 3, "ben": 0, "cal": 2}
    assert v["result"]["winner"] == "ann"


def test_table_called_reneges() -> None:
    v = valid(log(reneges=[{"player": "cal", "corrected": True}]))
    assert v["reneges"] == [
        {
            "player": "cal",
            "trick": None,
            "card": None,
            "rule": None,
            "legal": None,
            "corrected": True,
        }
    ]
    r = v["result"]
    assert r["outcome"] == "ineligible"
    # cal dealt; the forfeited deal is skipped when it next comes round to cal (R8)
    assert r["next_dealer"] == "ann" and r["forfeits_next"] == ["cal"]
    assert r["penalties"] == {"ben": 3}


def test_table_called_renege_that_the_log_also_shows_is_reported_once() -> None:
    v = valid(log(RENEGE_PLAYS, reneges=[{"player": "cal", "corrected": False, "trick": 3}]))
    assert len(v["reneges"]) == 1


def test_summary_with_table_called_renege() -> None:
    record = dict(EXAMPLE, reneges=[{"player": "ann", "corrected": False, "rule": "R19"}])
    r = valid(record)["result"]
    assert r["outcome"] == "ineligible" and r["penalties"] == {"ann": 4, "dee": 4}


def test_partial_log_gives_next_player_and_legal_cards() -> None:
    v = valid(log(PLAYS[:8]))
    assert not v["complete"] and v["result"] is None
    assert v["next"] == {"player": "cal", "legal": ["9H"]}
    assert v["tricks"] == {"ann": 2, "ben": 0, "cal": 0}


def test_partial_log_with_a_renege() -> None:
    v = valid(log(RENEGE_PLAYS[:9]))
    assert v["reneges"][0]["rule"] == "R20" and not v["complete"]


def test_nothing_played_yet() -> None:
    v = valid({"players": ["ann", "ben"], "dealer": "ben", "trump": "S"})
    assert not v["complete"] and v["next"] == {"player": "ann", "legal": None}


def test_summary_with_a_partial_log() -> None:
    v = valid(log(PLAYS[:6], tricks={"ann": 2, "cal": 3}))
    assert v["complete"] and v["result"]["winner"] == "cal"
    assert codes(verify(log(PLAYS[:6], tricks={"ann": 1, "cal": 4}))) == ["tricks_mismatch"]


def test_plays_and_tricks_must_agree() -> None:
    valid(log(tricks={"ann": 2, "ben": 0, "cal": 3}))
    assert codes(verify(log(tricks={"ann": 3, "cal": 2}))) == ["tricks_mismatch"]


def test_digital_hand_record_with_draws_verifies() -> None:
    state = random_hand(8, n_players=7)
    assert verify(state.to_record()) == state.verdict()


# -- uncontested, all passed --------------------------------------------------------------------


def test_R14_uncontested_record() -> None:
    v = valid({"players": ["a", "b", "c"], "dealer": "c", "up_card": "2S", "passed": ["a", "b"]})
    assert v["complete"] and v["tricks"] == {"c": 5}
    assert v["result"]["outcome"] == "uncontested" and v["result"]["payouts"] == {"c": 3}
    valid(
        {
            "players": ["a", "b"],
            "dealer": "a",
            "trump": "S",
            "passed": ["b"],
            "tricks": {"a": 5, "b": 0},
        }
    )


def test_R40_all_passed_simultaneous() -> None:
    rules = {"declaration": "simultaneous"}
    base = {"players": ["a", "b", "c"], "dealer": "c", "passed": ["a", "b", "c"], "rules": rules}
    v = valid(dict(base, up_card="KS", carry=2))
    assert v["result"]["outcome"] == "all_passed" and v["result"]["next_carry"] == 5
    v = valid(dict(base, up_card="AS"))
    assert v["result"]["outcome"] == "uncontested" and v["result"]["winner"] == "c"


def test_all_passed_is_impossible_under_sequential_declaration() -> None:
    base = {"players": ["a", "b", "c"], "dealer": "c", "passed": ["a", "b", "c"]}
    assert codes(verify(dict(base, up_card="KS"))) == ["bad_passed"]
    assert codes(verify(dict(base, up_card="AS"))) == ["dealer_must_play"]


def test_uncontested_hand_has_no_card_log() -> None:
    record = {
        "players": ["a", "b"],
        "dealer": "a",
        "trump": "S",
        "passed": ["b"],
        "plays": [["a", "AS"]],
    }
    assert "too_many_plays" in codes(verify(record))
    record = {
        "players": ["a", "b"],
        "dealer": "a",
        "trump": "S",
        "passed": ["b"],
        "tricks": {"a": 3},
    }
    assert codes(verify(record)) == ["tricks_mismatch"]


# -- every error code ------------------------------------------------------------------------

ERRORS = [
    ("bad_card", lambda r: r["plays"][0].__setitem__(1, "ZZ")),
    ("bad_card", lambda r: r.__setitem__("up_card", "1X")),
    ("duplicate_card", lambda r: r["hands"]["ben"].__setitem__(0, "AS")),
    ("duplicate_card", lambda r: r["hands"]["ann"].__setitem__(1, "AS")),
    ("bad_players", lambda r: r.__setitem__("players", ["ann"])),
    ("bad_players", lambda r: r.__setitem__("players", ["ann", "ann", "cal"])),
    ("bad_players", lambda r: r.__setitem__("players", "ann ben")),
    ("bad_players", lambda r: r.__setitem__("players", [f"p{i}" for i in range(9)])),
    ("unknown_player", lambda r: r["plays"][0].__setitem__(0, "zed")),
    ("unknown_player", lambda r: r.__setitem__("passed", ["zed"])),
    ("bad_dealer", lambda r: r.__setitem__("dealer", "zed")),
    ("unknown_rule", lambda r: r.__setitem__("rules", {"jokers": True})),
    ("bad_rule_value", lambda r: r.__setitem__("rules", {"ante": 0})),
    ("bad_rule_value", lambda r: r.__setitem__("rules", {"cinch": "maybe"})),
    ("trump_mismatch", lambda r: r.__setitem__("trump", "S")),
    ("hand_size", lambda r: r["hands"]["ben"].pop()),
    ("card_not_in_hand", lambda r: r["plays"][0].__setitem__(1, "KD")),
    ("out_of_turn", lambda r: r["plays"].__setitem__(0, ["ben", "2S"])),
    ("passed_player_played", lambda r: r.__setitem__("passed", ["ben"])),
    ("too_many_plays", lambda r: r["plays"].append(["ann", "AS"])),
    ("hands_required", lambda r: (r.__delitem__("hands"), r["plays"].pop())),
    ("tricks_total", lambda r: (r.__delitem__("plays"), r.__setitem__("tricks", {"ann": 4}))),
    ("tricks_mismatch", lambda r: r.__setitem__("tricks", {"ann": 5})),
    ("bad_record", lambda r: r.__setitem__("plays", "AS")),
    ("bad_record", lambda r: r.__setitem__("hands", [])),
    ("unknown_field", lambda r: r.__setitem__("pased", ["ben"])),
    ("bad_carry", lambda r: r.__setitem__("carry", -1)),
    ("bad_carry", lambda r: r.__setitem__("carry", True)),
    ("missing_trump", lambda r: r.__delitem__("up_card")),
    ("bad_suit", lambda r: (r.__delitem__("up_card"), r.__setitem__("trump", "X"))),
    ("duplicate_player", lambda r: r.__setitem__("excused", ["ann", "ann"])),
    (
        "too_many_discards",
        lambda r: (
            r.__setitem__("rules", {"max_discard": 1})
            or r.__setitem__("discards", {"ann": ["4D", "5D"]})
        ),
    ),
    ("up_card_misplaced", lambda r: r.__setitem__("discards", {"ann": ["9H"]})),
    ("up_card_misplaced", lambda r: r.__setitem__("discards", {"cal": ["9H"]})),
    ("bad_tricks", lambda r: r.__setitem__("tricks", {"ann": -1})),
    ("bad_renege", lambda r: r.__setitem__("reneges", [{"player": "ann"}])),
    ("bad_renege", lambda r: r.__setitem__("reneges", ["ann"])),
]


@pytest.mark.parametrize(
    ("code", "mutate"), ERRORS, ids=[f"{code}-{i}" for i, (code, _) in enumerate(ERRORS)]
)
def test_error_codes(code: str, mutate) -> None:
    record = log()
    mutate(record)
    verdict = verify(record)
    assert code in codes(verdict), verdict
    assert set(verdict) == {"valid", "errors"}
    for error in verdict["errors"]:
        assert isinstance(error["message"], str) and error["message"]


def test_R12_dealer_must_play_error() -> None:
    record = {"players": ["a", "b", "c"], "dealer": "c", "up_card": "AH", "passed": ["c"]}
    assert codes(verify(record)) == ["dealer_must_play"]


def test_error_details_name_player_card_and_trick() -> None:
    record = log()
    record["plays"][3] = ["ann", "KD"]
    error = verify(record)["errors"][0]
    assert error == {
        "code": "card_not_in_hand",
        "message": error["message"],
        "field": "plays",
        "player": "ann",
        "card": "KD",
        "trick": 2,
    }


def test_rule_errors_name_the_key() -> None:
    errors = verify(log(rules={"ante": "1", "colour": 1}))["errors"]
    assert {(e["code"], e["key"]) for e in errors} == {
        ("bad_rule_value", "ante"),
        ("unknown_rule", "colour"),
    }


def test_R13_up_card_set_aside_is_dead_to_everyone() -> None:
    # cal discards the up-card: it may not show up in any hand or play
    record = log(discards={"cal": ["9H"]})
    record["hands"]["cal"][0] = "TH"
    record["plays"] = [[p, "TH" if c == "9H" else c] for p, c in record["plays"]]
    assert valid(record)["complete"]
    record["hands"]["cal"][0] = "9H"
    record["plays"] = copy.deepcopy(PLAYS)
    assert "up_card_misplaced" in codes(verify(record))


def test_discarded_card_cannot_reappear_without_a_reshuffle() -> None:
    record = log(discards={"ann": ["9S"], "ben": ["AS"]})
    assert "duplicate_card" in codes(verify(record))  # ben's discard is in ann's hand


def test_rules_defaults_and_four_card_hands() -> None:
    record = {
        "players": ["a", "b"],
        "dealer": "b",
        "trump": "C",
        "tricks": {"a": 3, "b": 1},
        "rules": Rules(hand_size=4).to_dict(),
    }
    assert valid(record)["result"]["winner"] == "a"
    record["tricks"] = {"a": 3, "b": 2}
    assert codes(verify(record)) == ["tricks_total"]


def test_forfeits_extension() -> None:
    v = valid(dict(EXAMPLE, forfeits=["ann"]))
    assert v["result"]["next_dealer"] == "ben" and v["result"]["forfeits_next"] == []


@pytest.mark.parametrize(
    "junk",
    [None, [], "x", 3, 2.5, True, {"players": None}, {"players": [1, 2]}, {"players": ["a", "b"]}],
)
def test_junk_gives_clean_errors(junk: Any) -> None:
    verdict = verify(junk)
    assert verdict["valid"] is False and verdict["errors"]


def test_R27_lead_renege_in_a_log() -> None:
    record = {
        "players": ["ann", "ben"],
        "dealer": "ben",
        "up_card": "2H",
        "hands": {"ann": ["AH", "KH", "QH", "4S", "7C"], "ben": ["2H", "5S", "6D", "7D", "8D"]},
        "plays": [["ann", "4S"]],
    }
    v = valid(record)
    assert v["reneges"] == [
        {
            "player": "ann",
            "trick": 1,
            "card": "4S",
            "rule": "R27",
            "legal": ["QH", "KH", "AH"],
            "corrected": False,
        }
    ]


def test_R26_lead_renege_in_a_log() -> None:
    # cal set the up-card aside; ben and cal show out of trump on trick 1, so ann
    # must lead her last trump on trick 2.
    record = {
        "players": ["ann", "ben", "cal"],
        "dealer": "cal",
        "up_card": "QH",
        "discards": {"cal": ["QH"]},
        "hands": {
            "ann": ["AH", "2H", "3S", "4S", "5S"],
            "ben": ["6S", "7S", "8S", "9S", "TS"],
            "cal": ["6D", "7D", "8D", "9D", "TD"],
        },
        "plays": [["ann", "AH"], ["ben", "6S"], ["cal", "6D"], ["ann", "3S"]],
    }
    v = valid(record)
    assert [(r["rule"], r["trick"], r["legal"]) for r in v["reneges"]] == [("R26", 2, ["2H"])]
    assert v["next"]["player"] == "ben"
