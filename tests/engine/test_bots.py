"""Bots act from a seat's view only and always choose legal actions."""

from __future__ import annotations

import random

import pytest

from games.engine import CarefulBot, HandState, HeuristicBot, RandomBot, Rules
from games.engine.__main__ import botmatch
from games.engine.careful_table import CAREFUL_RATES

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


def test_careful_bot_plays_legal_hands() -> None:
    for seed in range(30):
        n = 2 + seed % 7
        state = HandState.new(NAMES[:n], seed % n, Rules(), random.Random(seed))
        bot = CarefulBot(random.Random(seed))
        while state.phase != "done":
            player = state.awaiting[-1]
            action = bot.act(state.view_for(player))
            assert _key(action) in {_key(a) for a in state.legal_actions(player)}
            state.apply(action)


def _declare_view(hand: list[str], seat: str = "ann", **extra: object) -> dict:
    players = ["ann", "ben", "cal", "dee", "eve", "fay", "gus"]
    view = {
        "seat": seat,
        "phase": "declare",
        "awaiting": [seat],
        "trump": "H",
        "dealer": "gus",
        "up_card": "5H",
        "players": players,
        "passed": [],
        "declarations": {},
        "pot": 7,
        "rules": Rules().to_dict(),
        "hand": hand,
        "declare": {"can_pass": True, "max_discard": 5, "keep": []},
    }
    view.update(extra)
    return view


def test_careful_bot_passes_what_loses_and_plays_what_wins_at_seven() -> None:
    bot = CarefulBot(random.Random(1))
    # first of seven to declare: one low trump loses more than it wins
    assert bot.act(_declare_view(["4H", "2S", "7D", "8C", "9C"]))["type"] == "pass"
    assert bot.act(_declare_view(["AH", "KH", "QH", "AS", "2C"]))["type"] == "play"
    # the last to declare when everybody passed takes the pot whatever it holds
    everyone_passed = {p: "pass" for p in ("ann", "ben", "cal", "dee", "eve", "fay")}
    last = _declare_view(["2S", "3S", "7D", "8C", "5H"], seat="gus", declarations=everyone_passed)
    assert bot.act(last)["type"] == "play"


def test_careful_table_covers_every_table_size_and_class() -> None:
    # every class at every size has at least its any-position rates (rare classes at
    # two players excepted), and the strongest class wins more than it is bourréd
    for n in range(2, 9):
        for cls in range(10):
            cell = CAREFUL_RATES.get((n, cls, -1, -1))
            if cell is None:
                assert n == 2 or cls in (5, 6), (n, cls)
                continue
            assert 0 <= cell[0] <= 1 and 0 <= cell[1] <= 1 and cell[2] >= 150
        strong = CAREFUL_RATES[(n, 9, -1, -1)]
        assert strong[0] > strong[1]
