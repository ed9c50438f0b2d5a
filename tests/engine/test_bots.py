"""Bots act from a seat's view only and always choose legal actions."""

from __future__ import annotations

import random

import pytest

from games.engine import HandState, HeuristicBot, RandomBot, Rules
from games.engine.__main__ import botmatch

from .helpers import NAMES


@pytest.mark.parametrize("bot_class", [RandomBot, HeuristicBot])
@pytest.mark.parametrize(
    "rules",
    [Rules(), Rules(declaration="simultaneous", max_discard=3, dealer_may_discard_upcard=False)],
    ids=["default", "simultaneous"],
)
def test_bots_play_legal_hands(bot_class, rules: Rules) -> None:
    for seed in range(30):
        n = 2 + seed % 7
        state = HandState.new(NAMES[:n], seed % n, rules, random.Random(seed))
        bot = bot_class(random.Random(seed))
        while state.phase != "done":
            player = state.awaiting[-1]
            action = bot.act(state.view_for(player))
            assert _key(action) in {_key(a) for a in state.legal_actions(player)}
            state.apply(action)


def _key(action: dict) -> tuple:
    return (
        action["type"],
        action["player"],
        action.get("card"),
        frozenset(action.get("discard", ())),
    )


def test_bots_act_only_on_their_turn() -> None:
    state = HandState.new(NAMES[:4], 0, Rules(), random.Random(3))
    for bot in (RandomBot(random.Random(1)), HeuristicBot(random.Random(1))):
        assert bot.act(state.view_for(state.to_act))["player"] == state.to_act
        with pytest.raises(ValueError):
            bot.act(state.view_for("ann"))  # the dealer declares last


def test_heuristic_bot_plays_a_strong_hand_and_passes_a_hopeless_one() -> None:
    bot = HeuristicBot(random.Random(1))
    base = {
        "seat": "ann",
        "phase": "declare",
        "awaiting": ["ann"],
        "trump": "H",
        "players": ["ann", "ben", "cal", "dee"],
        "passed": [],
        "declare": {"can_pass": True, "max_discard": 5, "keep": []},
    }
    strong = bot.act(dict(base, hand=["AH", "KH", "QH", "AS", "2C"]))
    assert strong["type"] == "play" and strong["discard"] == ["2C"]
    weak = bot.act(
        dict(
            base, hand=["2S", "4S", "7D", "8C", "9C"], declare=dict(base["declare"], max_discard=0)
        )
    )
    assert weak["type"] == "pass"


def test_heuristic_beats_random() -> None:
    figures = botmatch(200, 4, 5, Rules())
    assert figures["difference"]["mean"] > 0
