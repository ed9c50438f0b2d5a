"""Property tests: seeded random hands at 2–8 players under random house rules."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import HandState, Rules, replay, verify
from games.engine.cards import CARD_NAMES, parse_card

from .helpers import NAMES, conserved, random_hand

rules_st = st.builds(
    Rules,
    ante=st.integers(1, 5),
    hand_size=st.sampled_from([5, 4]),
    max_discard=st.integers(0, 5),
    pot_limit=st.none() | st.integers(1, 20),
    limit_caps_winner=st.booleans(),
    double_ante=st.booleans(),
    dealer_antes_for_all=st.booleans(),
    declaration=st.sampled_from(["sequential", "simultaneous"]),
    undertrump_required=st.booleans(),
    head_led_suit_after_trump=st.booleans(),
    lead_trump_when_others_void=st.booleans(),
    cinch=st.sampled_from(["sure_tricks", "off"]),
    cinch_equivalence=st.sampled_from(["sequence", "adjacent", "none"]),
    split_pot=st.sampled_from(["carry", "divide"]),
    tied_excused=st.booleans(),
    ineligible_winner=st.sampled_from(["carry", "next_best"]),
    stock_refill=st.sampled_from(
        ["discards_except_current", "discards_all", "folded_then_discards"]
    ),
    dealer_may_discard_upcard=st.booleans(),
)
seeds = st.integers(0, 2**32)
players = st.integers(2, 8)
SETTINGS = settings(max_examples=50, deadline=None)


@SETTINGS
@given(seed=seeds, n=players, rules=rules_st, carry=st.integers(0, 30))
def test_random_hands_finish_consistently_and_conserve_money(
    seed: int, n: int, rules: Rules, carry: int
) -> None:
    excused = tuple(p for p in NAMES[:n] if random.Random(seed).random() < 0.2)
    state = random_hand(seed, n, rules, carry=carry, excused=excused)
    assert state.phase == "done"
    result = state.outcome()
    assert result is not None and conserved(result, carry)
    tricks = state.tricks()
    if result["outcome"] != "all_passed":
        assert sum(tricks.values()) == rules.hand_size
    if state.tp is not None:
        played = [c for _, c in state.tp.plays]
        assert len(played) == len(set(played)) == rules.hand_size * len(state.active)
        seen = 0
        for seat in state.active:
            assert state.hands[seat].bit_count() == rules.hand_size
            assert not seen & state.hands[seat]
            seen |= state.hands[seat]
    if rules.double_ante or rules.dealer_antes_for_all:
        assert result["excused_next"] == []

    # the record verifies to the very same verdict, through JSON
    record = json.loads(json.dumps(state.to_record()))
    assert verify(record) == state.verdict()

    # replay from the seed and the action log rebuilds the same hand
    again = replay(state.players, state.dealer, rules, seed, state.actions, carry, excused)
    assert again.to_record() == state.to_record()
    assert again.outcome() == result


@SETTINGS
@given(seed=seeds, n=players, rules=rules_st, data=st.data())
def test_an_illegal_card_in_the_log_is_a_renege_citing_the_right_rule(
    seed: int, n: int, rules: Rules, data: st.DataObject
) -> None:
    state = random_hand(seed, n, rules)
    if state.tp is None:
        return
    # replay the hand and note every moment someone held a card they could not play
    again = HandState.new(state.players, state.dealer, rules, random.Random(seed))
    moments = []
    card_index = 0
    for action in state.actions:
        if action["type"] == "card":
            reasons = again.illegal_reasons(action["player"])
            for card, rule in reasons.items():
                legal = again.legal_cards(action["player"])
                moments.append((card_index, again.tp.trick_no + 1, card, rule, legal))
            card_index += 1
        again.apply(action)
    if not moments:
        return
    index, trick, card, rule, legal = data.draw(st.sampled_from(moments))
    record = state.to_record()
    player = record["plays"][index][0]
    record["plays"] = record["plays"][:index] + [[player, card]]
    verdict = verify(record)
    assert verdict["valid"], verdict
    assert verdict["reneges"] == [
        {
            "player": player,
            "trick": trick,
            "card": card,
            "rule": rule,
            "legal": sorted(legal, key=parse_card),
            "corrected": False,
        }
    ]


@SETTINGS
@given(seed=seeds, n=players, rules=rules_st, stop=st.integers(0, 60))
def test_view_for_never_shows_another_seats_hidden_cards(
    seed: int, n: int, rules: Rules, stop: int
) -> None:
    full = random_hand(seed, n, rules)
    state = HandState.new(full.players, full.dealer, rules, random.Random(seed))
    for action in full.actions[:stop]:
        state.apply(action)
    # hidden cards: what active players still hold, and the passers' folded hands
    hands = list(state.hands)
    if state.tp is not None:
        for seat in state.active:
            hands[seat] = state.tp.hands[seat]
    for seat, player in enumerate(state.players):
        view = state.view_for(player)
        text = json.dumps(view)
        mine = set(view["hand"]) | set(view["own_discards"])
        for other, hand in enumerate(hands):
            if other == seat:
                continue
            for c in range(52):
                name = CARD_NAMES[c]
                if hand >> c & 1 and c != state.up_card and name not in mine:
                    assert f'"{name}"' not in text, (player, name)
        public = json.dumps(state.public_view())
        for hand in hands:
            for c in range(52):
                if hand >> c & 1 and c != state.up_card:
                    assert f'"{CARD_NAMES[c]}"' not in public


@SETTINGS
@given(seed=seeds, n=players, rules=rules_st)
def test_legal_cards_and_reasons_partition_the_hand(seed: int, n: int, rules: Rules) -> None:
    full = random_hand(seed, n, rules)
    state = HandState.new(full.players, full.dealer, rules, random.Random(seed))
    for action in full.actions:
        if state.phase == "play":
            player = state.to_act
            hand = set(state.view_for(player)["hand"])
            legal = set(state.legal_cards(player))
            assert legal and legal <= hand
            assert set(state.illegal_reasons(player)) == hand - legal
            tp = state.tp
            for c in range(52):
                assert tp.is_legal(c) == bool(tp.legal() >> c & 1)
        state.apply(action)
