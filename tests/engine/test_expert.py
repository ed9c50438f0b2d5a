"""ExpertBot: decides from the seat's view only (cannot peek), plays legal moves, and
the seat levels (easy, normal, expert) of digital hands."""

from __future__ import annotations

import copy
import random

import pytest

from games.engine import (
    BOT_LEVELS,
    CarefulBot,
    ExpertBot,
    HandState,
    HeuristicBot,
    Rules,
    make_bot,
    verify,
)
from games.engine.botmatch import HAND_CLASSES, hand_class, table_match

from .helpers import NAMES, m, rigged_deal

P4 = ("ann", "ben", "cal", "dee")
ANN = "AH 9H KS 4D 7C"
UP = "3H"  # dee deals; 3H is dee's last card


def _deal(others: list[str]) -> HandState:
    """ann holds ANN and dee the up-card 3H; ``others`` fill the hidden rest."""
    hands = {"ann": ANN, "ben": others[0], "cal": others[1], "dee": others[2] + " " + UP}
    return rigged_deal(P4, 3, hands, seed=5)


WORLD_A = ["2S 3S 4S 5S 6S", "2D 3D 5D 6D 8D", "2C 3C 4C 5C"]
WORLD_B = ["QH JH TH 8H 7H", "AS QS JS TS 9S", "AD KD QD JD"]


def test_expert_cannot_peek_mid_hand() -> None:
    # the same public play in two worlds whose hidden cards differ completely
    worlds = (
        ["2S 3S 4S 5S 6S", "2D 3D 5D 6D 8D", "2C 3C 4C 5C"],
        ["2S AS QS JS TS", "2D AD KD QD JD", "2C 9S 8S 7S"],
    )
    seen = []
    for world in worlds:
        state = _deal(world)
        for p in P4:
            state.apply({"type": "play", "player": p, "discard": []})
        for p, card in (("ann", "7C"), ("ben", "2S"), ("cal", "2D"), ("dee", "2C")):
            state.apply({"type": "card", "player": p, "card": card})
        assert state.to_act == "ann"  # the 7C won
        view = state.view_for("ann")
        seen.append((view, state.hands, ExpertBot(random.Random(8)).act(copy.deepcopy(view))))
    (view_a, hands_a, act_a), (view_b, hands_b, act_b) = seen
    assert view_a == view_b and hands_a != hands_b
    assert act_a == act_b


def test_expert_declaration_is_the_same_whatever_the_hidden_cards() -> None:
    views = [_deal(w).view_for("ann") for w in (WORLD_A, WORLD_B)]
    assert views[0] == views[1]
    choices = [ExpertBot(random.Random(9)).act(copy.deepcopy(v)) for v in views]
    assert choices[0] == choices[1]


def test_expert_lead_is_the_same_whatever_the_hidden_cards() -> None:
    leads = []
    for world in (WORLD_A, WORLD_B):
        state = _deal(world)
        for p in P4:
            state.apply({"type": "play", "player": p, "discard": []})
        assert state.to_act == "ann"
        view = state.view_for("ann")
        leads.append((view, ExpertBot(random.Random(4)).act(copy.deepcopy(view))))
    assert leads[0][0] == leads[1][0]
    assert leads[0][1] == leads[1][1]
    assert leads[0][1]["card"] in leads[0][0]["legal"]


@pytest.mark.parametrize("players", [3, 4, 7])
def test_expert_plays_whole_hands_legally_and_the_record_verifies(players: int) -> None:
    for seed in range(3):
        state = HandState.new(NAMES[:players], seed % players, Rules(), random.Random(seed))
        bots = {p: ExpertBot(random.Random(f"{seed}{p}"), declare_samples=16, play_samples=24)
                for p in NAMES[:players]}  # fmt: skip
        while state.phase != "done":
            who = state.awaiting[0]
            state.apply(bots[who].act(state.view_for(who)))
        assert verify(state.to_record())["valid"] if state.tp else state.outcome()


def test_expert_passes_a_hopeless_hand_and_plays_a_strong_one() -> None:
    weak = _deal(WORLD_A)
    base = weak.view_for("ann")
    # low side cards and no draw allowed: a sure bourré risk for nothing
    weak_view = dict(
        base,
        hand=["2S", "3D", "4C", "5D", "7S"],
        declare=dict(base["declare"], max_discard=0),
    )
    bot = ExpertBot(random.Random(1))
    assert bot.act(weak_view)["type"] == "pass"
    strong_view = dict(weak.view_for("ann"), hand=["AH", "KH", "QH", "JH", "AS"])
    assert bot.act(strong_view)["type"] == "play"


def test_appraisal_ranks_what_the_expert_plays_first_and_prices_passing_at_nothing() -> None:
    weak = _deal(WORLD_A)
    base = weak.view_for("ann")
    weak_view = dict(
        base, hand=["2S", "3D", "4C", "5D", "7S"], declare=dict(base["declare"], max_discard=0)
    )
    strong_view = dict(base, hand=["AH", "KH", "QH", "JH", "AS"])
    for view, best in ((weak_view, "pass"), (strong_view, "play")):
        appraisal = ExpertBot(random.Random(1)).appraise(view)
        assert appraisal.options[0].action == ExpertBot(random.Random(1)).act(view)
        assert appraisal.options[0].action["type"] == best
        assert appraisal.ante == base["rules"]["ante"]
        (passing,) = [o for o in appraisal.options if o.action["type"] == "pass"]
        assert passing.gain == 0.0
        gains = [o.gain for o in appraisal.options]
        assert gains == sorted(gains, reverse=True)
        assert (gains[0] > 0) == (best == "play")  # PLAY only when it beats passing


def test_appraisal_of_cards_covers_every_legal_card_best_first() -> None:
    state = _deal(WORLD_A)
    for p in P4:
        state.apply({"type": "play", "player": p, "discard": []})
    view = state.view_for("ann")
    appraisal = ExpertBot(random.Random(4)).appraise(copy.deepcopy(view))
    assert sorted(o.action["card"] for o in appraisal.options) == sorted(view["legal"])
    gains = [o.gain for o in appraisal.options]
    assert gains == sorted(gains, reverse=True)
    assert appraisal.options[0].action == ExpertBot(random.Random(4)).act(copy.deepcopy(view))
    # the same view gives the same appraisal, whatever the hidden cards (a coach's hint)
    other = _deal(WORLD_B)
    for p in P4:
        other.apply({"type": "play", "player": p, "discard": []})
    assert ExpertBot(random.Random(4)).appraise(other.view_for("ann")) == appraisal


def test_make_bot_levels() -> None:
    assert BOT_LEVELS == ("easy", "normal", "careful", "expert")
    assert isinstance(make_bot("expert", random.Random(1)), ExpertBot)
    assert isinstance(make_bot("careful", random.Random(1)), CarefulBot)
    normal = make_bot("normal", random.Random(1))
    easy = make_bot("easy", random.Random(1))
    assert isinstance(normal, HeuristicBot) and isinstance(easy, HeuristicBot)
    assert easy.boldness > normal.boldness == 0
    assert isinstance(make_bot("unknown", random.Random(1)), HeuristicBot)


def test_hand_classes() -> None:
    assert hand_class(m("2S 3S 4D 5C 9C"), 1) == "no trump"
    assert hand_class(m("AS 3S 4D 5C 9C"), 1) == "no trump + side ace"
    assert hand_class(m("7H 3S 4D 5C 9C"), 1) == "one low trump (2-10)"
    assert hand_class(m("AH 3S 4D 5C 9C"), 1) == "trump ace alone"
    assert hand_class(m("KH 2H 4D 5C 9C"), 1) == "two trumps with A or K"
    assert hand_class(m("KH 2H 3H 5C 9C"), 1) == "three or more trumps"


def test_table_match_heuristic_bots_play_no_class_below_passing() -> None:
    # a small run of the botmatch --mode heuristic table: every class the bot plays
    # often enough to count nets more than passing (-1 ante)
    figures = table_match(300, 4, 2, Rules(), lambda key: HeuristicBot(random.Random(key)))
    assert [row["class"] for row in figures["classes"]] == list(HAND_CLASSES)
    assert sum(row["dealt"] for row in figures["classes"]) == 1200
    strong = {row["class"]: row for row in figures["classes"]}["three or more trumps"]
    assert strong["play_rate"] > 0.9 and strong["net_played"] > 0
    hopeless = {row["class"]: row for row in figures["classes"]}["no trump"]
    assert hopeless["play_rate"] < 0.05


# -- the careful level, and the expert against careful players -------------------------

CAREFUL = dict.fromkeys(P4, "careful")


def _deal_after_dee(others: list[str]) -> HandState:
    """cal deals (so dee declares first, then ann); ann holds ANN, cal the up-card 3H;
    ``others`` fill ben, cal and dee's hidden cards."""
    hands = {"ann": ANN, "ben": others[0], "cal": others[1] + " " + UP, "dee": others[2]}
    return rigged_deal(P4, 2, hands, seed=5)


WORLD_C = ["2S 3S 4S 5S 6S", "2D 3D 5D 6D", "2C 3C 4C 5C 8D"]
WORLD_D = ["QH JH TH 8H 7H", "AS QS JS TS", "AD KD QD JD 9S"]


@pytest.mark.parametrize("said", ["play", "pass"])
def test_expert_against_careful_players_decides_from_the_view_alone(said: str) -> None:
    # dee (careful) declares first; what dee's declaration says about dee's cards is
    # the same in both worlds, whose hidden cards differ completely
    seen = []
    for world in (WORLD_C, WORLD_D):
        state = _deal_after_dee(world)
        if said == "play":
            state.apply({"type": "play", "player": "dee", "discard": []})
        else:
            state.apply({"type": "pass", "player": "dee"})
        view = state.view_for("ann")
        bot = ExpertBot(random.Random(11), field=CAREFUL)
        seen.append((view, bot.appraise(copy.deepcopy(view))))
    assert seen[0][0] == seen[1][0]
    assert seen[0][1] == seen[1][1]


def test_expert_in_a_careful_field_plays_cards_from_the_view_alone() -> None:
    seen = []
    for world in (WORLD_A, WORLD_B):
        state = _deal(world)
        for p in P4:
            state.apply({"type": "play", "player": p, "discard": []})
        view = state.view_for("ann")
        bot = make_bot("expert", random.Random(4), CAREFUL)
        seen.append((view, bot.act(copy.deepcopy(view))))
    assert seen[0][0] == seen[1][0]
    assert seen[0][1] == seen[1][1]


def test_careful_bot_decides_from_the_view_alone() -> None:
    declared, led = [], []
    for world in (WORLD_A, WORLD_B):
        state = _deal(world)
        view = state.view_for("ann")
        declared.append((view, CarefulBot(random.Random(3)).act(copy.deepcopy(view))))
        for p in P4:
            state.apply({"type": "play", "player": p, "discard": []})
        view = state.view_for("ann")
        led.append((view, CarefulBot(random.Random(3)).act(copy.deepcopy(view))))
    for (view_a, act_a), (view_b, act_b) in (declared, led):
        assert view_a == view_b and act_a == act_b


def test_the_expert_models_careful_seats_by_their_level() -> None:
    # a careful seat that played, early at four, holds a hand the table says gains
    # over passing; one that passed, a hand it does not: the sampled worlds say so
    from games.engine.expert import _Seat

    for said in ("play", "pass"):
        state = _deal_after_dee(WORLD_C)
        if said == "play":
            state.apply({"type": "play", "player": "dee", "discard": []})
        else:
            state.apply({"type": "pass", "player": "dee"})
        view = state.view_for("ann")
        seat = _Seat(view, CAREFUL)
        bot = ExpertBot(random.Random(2), field=CAREFUL)
        dee = seat.seat_of["dee"]
        fits = [
            seat.careful_plays(dee, hands[dee], 0, 3) == (said == "play")
            for hands, _stock in (bot._world(view, seat, random.Random(i)) for i in range(40))
        ]
        assert sum(fits) >= 36, (said, sum(fits))
        # a seat the table does not name is taken for the heuristic
        assert _Seat(view, {}).kinds[dee] == "normal"
