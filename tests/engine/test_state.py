"""The digital hand: deal, declaring, draw, trick play, views, records and replay."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from games.engine import HandError, HandState, IllegalAction, Rules, replay, verify
from games.engine.cards import CARD_NAMES, mask_of
from games.engine.deck import _top_of_shuffled_deck

from .helpers import NAMES, random_hand

P4 = NAMES[:4]


def new(seed: int, players=P4, dealer: int = 3, rules: Rules | None = None, **kw) -> HandState:
    return HandState.new(players, dealer, rules or Rules(), random.Random(seed), **kw)


def seed_where(check: Callable[[HandState], bool], **kw) -> int:
    for seed in range(5000):
        if check(new(seed, **kw)):
            return seed
    raise AssertionError("no such seed")  # pragma: no cover


def everyone_plays(state: HandState) -> None:
    for seat in state.order:
        state.apply({"type": "play", "player": state.players[seat], "discard": []})


def play_out(state: HandState) -> None:
    while state.phase == "play":
        player = state.to_act
        state.apply({"type": "card", "player": player, "card": state.legal_cards(player)[0]})


# -- R1 R2 R3 R7 the deal --------------------------------------------------------------------


def test_R7_deal_one_at_a_time_clockwise_from_dealers_left_R2_up_card_is_dealers_last() -> None:
    rng = random.Random(42)
    expected = _top_of_shuffled_deck(random.Random(42), 20)
    assert len(set(expected)) == 20
    state = HandState.new(P4, "dee", Rules(), rng)
    # dealer dee (seat 3): ann gets the 1st, 5th, ... card; dee the 4th, ..., 20th
    for seat in range(4):
        assert state.hands[seat] == mask_of(expected[seat::4])
    assert state.up_card == expected[19]
    assert state.hands[3] >> state.up_card & 1
    assert state.trump == expected[19] // 13


def test_R1_no_card_dealt_twice() -> None:
    state = new(3, players=NAMES, dealer=0)
    total = 0
    for hand in state.hands:
        assert hand.bit_count() == 5
        assert not total & hand
        total |= hand


@pytest.mark.parametrize("players", [["solo"], NAMES + ("ivy",), ["a", "a"], [], ["a", ""]])
def test_R3_two_to_eight_distinct_players(players: list[str]) -> None:
    with pytest.raises(HandError):
        HandState.new(players, 0, Rules(), random.Random(1))


def test_setup_errors() -> None:
    with pytest.raises(HandError):
        HandState.new(P4, "zed", Rules(), random.Random(1))
    with pytest.raises(HandError):
        HandState.new(P4, "ann", Rules(), random.Random(1), carry=-1)
    with pytest.raises(HandError):
        HandState.new(P4, "ann", Rules(), random.Random(1), excused=["zed"])


def test_hand_size_four() -> None:
    state = new(5, rules=Rules(hand_size=4))
    assert all(h.bit_count() == 4 for h in state.hands)
    everyone_plays(state)
    play_out(state)
    assert sum(state.tricks().values()) == 4


# -- R9 R12 R13 R14 R16 declaring ----------------------------------------------------------


def test_R9_declaring_clockwise_from_dealers_left_dealer_last() -> None:
    state = new(1, dealer=1)
    assert [state.to_act for _ in range(1)] == ["cal"]
    seen = []
    for _ in range(4):
        seen.append(state.to_act)
        state.apply({"type": "play", "player": state.to_act, "discard": []})
    assert seen == ["cal", "dee", "ann", "ben"]
    assert state.phase == "play"


def test_R16_declaring_out_of_turn_is_refused() -> None:
    state = new(1)
    with pytest.raises(IllegalAction) as exc:
        state.apply({"type": "pass", "player": "cal"})
    assert exc.value.code == "out_of_turn" and exc.value.rule == "R16"
    assert exc.value.legal == ["ann"]
    assert "R16" in str(exc.value)


def test_R9_max_discard() -> None:
    state = new(1, rules=Rules(max_discard=2))
    hand = [CARD_NAMES[c] for c in range(52) if state.hands[0] >> c & 1]
    with pytest.raises(IllegalAction) as exc:
        state.apply({"type": "play", "player": "ann", "discard": hand[:3]})
    assert exc.value.code == "too_many_discards" and exc.value.rule == "R9"
    state.apply({"type": "play", "player": "ann", "discard": hand[:2]})


def test_discard_must_be_own_distinct_cards() -> None:
    state = new(1)
    other = next(CARD_NAMES[c] for c in range(52) if state.hands[1] >> c & 1)
    own = next(CARD_NAMES[c] for c in range(52) if state.hands[0] >> c & 1)
    with pytest.raises(IllegalAction) as exc:
        state.apply({"type": "play", "player": "ann", "discard": [other]})
    assert exc.value.code == "card_not_in_hand"
    with pytest.raises(IllegalAction) as exc:
        state.apply({"type": "play", "player": "ann", "discard": [own, own.lower()]})
    assert exc.value.code == "duplicate_card"
    with pytest.raises(IllegalAction) as exc:
        state.apply({"type": "play", "player": "ann", "discard": "AS"})
    assert exc.value.code == "bad_action"
    with pytest.raises(IllegalAction) as exc:
        state.apply({"type": "play", "player": "ann", "discard": ["ZZ"]})
    assert exc.value.code == "bad_card"


def test_R12_dealer_must_play_with_an_ace_up() -> None:
    seed = seed_where(lambda s: s.up_card % 13 == 12)
    state = new(seed)
    for p in ("ann", "ben", "cal"):
        state.apply({"type": "play", "player": p, "discard": []})
    assert state.view_for("dee")["declare"]["can_pass"] is False
    assert {"type": "pass", "player": "dee"} not in state.legal_actions("dee")
    with pytest.raises(IllegalAction) as exc:
        state.apply({"type": "pass", "player": "dee"})
    assert exc.value.code == "dealer_must_play" and exc.value.rule == "R12"


def test_R13_dealer_discards_the_up_card_it_is_dead_to_all() -> None:
    state = new(7)
    up = CARD_NAMES[state.up_card]
    for p in ("ann", "ben", "cal"):
        state.apply({"type": "play", "player": p, "discard": []})
    state.apply({"type": "play", "player": "dee", "discard": [up]})
    assert state.upcard_dead and state.public_dead == 1 << state.up_card
    assert state.trump == state.up_card // 13  # trump does not change
    assert state.public_view()["up_card_dead"] is True
    assert up not in state.view_for("dee")["hand"]
    play_out(state)
    assert verify(state.to_record())["result"] == state.outcome()


def test_R13_dealer_may_not_discard_the_up_card_when_the_switch_is_off() -> None:
    state = new(7, rules=Rules(dealer_may_discard_upcard=False))
    up = CARD_NAMES[state.up_card]
    for p in ("ann", "ben", "cal"):
        state.apply({"type": "play", "player": p, "discard": []})
    assert state.view_for("dee")["declare"]["keep"] == [up]
    assert all(up not in a.get("discard", []) for a in state.legal_actions("dee"))
    with pytest.raises(IllegalAction) as exc:
        state.apply({"type": "play", "player": "dee", "discard": [up]})
    assert exc.value.rule == "R13"


def test_R14_uncontested_as_soon_as_all_but_one_passed() -> None:
    state = new(seed_where(lambda s: s.up_card % 13 != 12))
    state.apply({"type": "play", "player": "ann", "discard": state.view_for("ann")["hand"][:1]})
    state.apply({"type": "pass", "player": "ben"})
    state.apply({"type": "pass", "player": "cal"})
    assert state.phase == "declare" and state.to_act == "dee"
    state.apply({"type": "pass", "player": "dee"})
    assert state.phase == "done"
    result = state.outcome()
    assert result["outcome"] == "uncontested" and result["winner"] == "ann"
    assert result["bourre"] == [] and state.tricks() == {"ann": 5}
    record = state.to_record()
    assert "discards" not in record  # no draw took place
    assert verify(record)["result"] == result


def test_R14_dealer_wins_without_declaring() -> None:
    state = new(2)
    for p in ("ann", "ben", "cal"):
        state.apply({"type": "pass", "player": p})
    assert state.phase == "done" and state.outcome()["winner"] == "dee"
    record = state.to_record()
    assert record["passed"] == ["ann", "ben", "cal"] and "plays" not in record
    assert verify(record)["result"] == state.outcome()


def test_R10_a_passer_cannot_play() -> None:
    state = new(2)
    state.apply({"type": "pass", "player": "ann"})
    for p in ("ben", "cal", "dee"):
        state.apply({"type": "play", "player": p, "discard": []})
    assert state.to_act == "ben"  # R17: first active player left of the dealer
    with pytest.raises(IllegalAction) as exc:
        state.apply({"type": "card", "player": "ann", "card": "AS"})
    assert exc.value.code == "passed_player_played"
    assert state.legal_actions("ann") == []


# -- simultaneous declaration, R40 -----------------------------------------------------------

SIM = Rules(declaration="simultaneous")


def test_simultaneous_declarations_in_any_order_hidden_until_all_are_in() -> None:
    state = new(4, rules=SIM)
    assert state.to_act is None and state.awaiting == list(("ann", "ben", "cal", "dee"))
    state.apply({"type": "pass", "player": "cal"})
    state.apply({"type": "play", "player": "ann", "discard": []})
    view = state.view_for("ben")
    assert view["declared"] == ["ann", "cal"]
    assert view["declarations"] == {} and view["passed"] == []
    with pytest.raises(IllegalAction) as exc:
        state.apply({"type": "play", "player": "cal", "discard": []})
    assert exc.value.code == "already_declared"
    state.apply({"type": "play", "player": "dee", "discard": []})
    state.apply({"type": "play", "player": "ben", "discard": []})
    assert state.phase == "play"
    assert state.public_view()["declarations"] == {
        "ann": "play",
        "ben": "play",
        "cal": "pass",
        "dee": "play",
    }
    assert state.to_act == "ann"


def test_R40_simultaneous_all_pass_pot_carries() -> None:
    seed = seed_where(lambda s: s.up_card % 13 != 12, rules=SIM)
    state = new(seed, rules=SIM, carry=3)
    for p in ("dee", "ben", "ann", "cal"):
        state.apply({"type": "pass", "player": p})
    result = state.outcome()
    assert result["outcome"] == "all_passed" and result["next_carry"] == 7
    assert verify(state.to_record())["result"] == result


def test_simultaneous_double_ante_pot_hides_declarations() -> None:
    rules = Rules(declaration="simultaneous", double_ante=True)
    state = new(4, rules=rules)
    state.apply({"type": "play", "player": "ann", "discard": []})
    assert state.public_view()["pot"] == 4
    for p in ("ben", "cal", "dee"):
        state.apply({"type": "play", "player": p, "discard": []})
    assert state.public_view()["pot"] == 8


# -- R15 the draw ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mode",
    [
        pytest.param("discards_except_current", id="R15-discards_except_current"),
        pytest.param("discards_all", id="R15-discards_all"),
        pytest.param("folded_then_discards", id="R15-folded_then_discards"),
    ],
)
def test_R15_stock_refill(mode: str) -> None:
    rules = Rules(stock_refill=mode)
    for seed in range(20):
        state = new(seed, players=NAMES, dealer=7, rules=rules)
        if mode == "folded_then_discards":
            state.apply({"type": "pass", "player": "ann"})
        for seat in state.order[1 if mode == "folded_then_discards" else 0 :]:
            hand = [CARD_NAMES[c] for c in range(52) if state.hands[seat] >> c & 1]
            state.apply({"type": "play", "player": NAMES[seat], "discard": hand})
        assert state.phase == "play"
        seen = 0
        for seat in state.active:
            hand = state.hands[seat]
            assert hand.bit_count() == 5
            assert not seen & hand
            seen |= hand
            if mode != "discards_all":
                assert not hand & state.discards[seat]  # never your own discards back
        assert not seen & state.public_dead
        if mode == "folded_then_discards":
            assert state.hands[0] == 0  # ann's folded cards went into the new stock
        play_out(state)
        verdict = verify(state.to_record())
        assert verdict["valid"] and verdict["result"] == state.outcome(), verdict


def test_draw_deals_replacements_in_declaration_order() -> None:
    state = new(9)
    before = list(state.hands)
    hand = [CARD_NAMES[c] for c in range(52) if before[0] >> c & 1]
    state.apply({"type": "play", "player": "ann", "discard": hand[:2]})
    for p in ("ben", "cal", "dee"):
        state.apply({"type": "play", "player": p, "discard": []})
    assert (state.hands[0] & before[0]).bit_count() == 3
    assert state.hands[1:] == before[1:]
    assert state.view_for("ann")["own_discards"] == sorted(hand[:2], key=CARD_NAMES.index)
    assert state.view_for("ben")["discard_counts"] == {"ann": 2, "ben": 0, "cal": 0, "dee": 0}


# -- R17 R19.. trick play through the state -----------------------------------------------------


def test_R17_first_active_left_of_dealer_leads_and_winner_leads_next() -> None:
    state = new(11)
    state.apply({"type": "pass", "player": "ann"})
    for p in ("ben", "cal", "dee"):
        state.apply({"type": "play", "player": p, "discard": []})
    assert state.to_act == "ben"
    for _ in range(3):
        state.apply(
            {"type": "card", "player": state.to_act, "card": state.legal_cards(state.to_act)[0]}
        )
    winner = state.tp.completed[0][2]
    assert state.to_act == NAMES[winner]


def test_illegal_card_raises_with_rule_and_alternatives() -> None:
    for seed in range(200):
        state = new(seed)
        everyone_plays(state)
        while state.phase == "play":
            player = state.to_act
            reasons = state.illegal_reasons(player)
            if reasons:
                card, rule = next(iter(reasons.items()))
                with pytest.raises(IllegalAction) as exc:
                    state.apply({"type": "card", "player": player, "card": card})
                assert exc.value.code == "illegal_card"
                assert exc.value.rule == rule
                assert set(exc.value.legal) == set(state.legal_cards(player))
                assert rule in str(exc.value)
                return
            state.apply({"type": "card", "player": player, "card": state.legal_cards(player)[0]})
    raise AssertionError("no illegal card found")  # pragma: no cover


def test_card_errors() -> None:
    state = new(1)
    with pytest.raises(IllegalAction) as exc:
        state.apply({"type": "card", "player": "ann", "card": "AS"})
    assert exc.value.code == "wrong_phase"
    everyone_plays(state)
    with pytest.raises(IllegalAction) as exc:
        state.apply({"type": "card", "player": "ben", "card": "AS"})
    assert exc.value.code == "out_of_turn" and exc.value.rule == "R16"
    not_mine = next(CARD_NAMES[c] for c in range(52) if state.hands[1] >> c & 1)
    with pytest.raises(IllegalAction) as exc:
        state.apply({"type": "card", "player": "ann", "card": not_mine})
    assert exc.value.code == "card_not_in_hand"
    for bad in (None, [], {"type": "card"}, {"type": "dance", "player": "ann"}):
        with pytest.raises(IllegalAction):
            state.apply(bad)  # type: ignore[arg-type]
    with pytest.raises(IllegalAction) as exc:
        state.apply({"type": "pass", "player": "ann"})
    assert exc.value.code == "wrong_phase"
    play_out(state)
    with pytest.raises(IllegalAction) as exc:
        state.apply({"type": "card", "player": "ann", "card": "AS"})
    assert exc.value.code == "hand_over"


def test_illegal_action_is_a_value_error() -> None:
    assert issubclass(IllegalAction, ValueError) and issubclass(HandError, ValueError)


def test_legal_actions_while_declaring() -> None:
    state = new(1, rules=Rules(max_discard=2))
    actions = state.legal_actions("ann")
    assert actions[0] == {"type": "pass", "player": "ann"}
    assert len(actions) == 1 + 1 + 5 + 10
    assert state.legal_actions("ben") == []


# -- views ----------------------------------------------------------------------------------


def test_view_for_shows_own_cards_and_choices_only() -> None:
    state = new(13)
    everyone_plays(state)
    player = state.to_act
    view = state.view_for(player)
    json.dumps(view)
    seat = state.seat_of[player]
    assert set(view["hand"]) == {CARD_NAMES[c] for c in range(52) if state.hands[seat] >> c & 1}
    assert set(view["legal"]) | set(view["illegal"]) == set(view["hand"])
    assert view["to_act"] == player and view["trump"] == CARD_NAMES[state.up_card][1]
    others = 0
    for s, hand in enumerate(state.hands):
        if s != seat:
            others |= hand
    text = json.dumps(view)
    for c in range(52):
        if others >> c & 1 and c != state.up_card:
            assert f'"{CARD_NAMES[c]}"' not in text
    assert view["hand_counts"] == {p: 5 for p in P4}


def test_public_view_has_no_hidden_card() -> None:
    state = new(13)
    text = json.dumps(state.public_view())
    for c in range(52):
        if c != state.up_card:
            assert f'"{CARD_NAMES[c]}"' not in text


def test_view_when_done_has_the_result() -> None:
    state = random_hand(5)
    for p in state.players:
        assert state.view_for(p)["result"] == state.outcome()
    with pytest.raises(IllegalAction):
        state.view_for("zed")


# -- records, outcome, replay ---------------------------------------------------------------


def test_to_record_verifies_to_the_same_result() -> None:
    state = random_hand(21)
    record = json.loads(json.dumps(state.to_record()))
    verdict = verify(record)
    assert verdict["valid"] and verdict["complete"] and verdict["reneges"] == []
    assert verdict["result"] == state.outcome()
    assert verdict == state.verdict()


def test_partial_record_gives_next() -> None:
    state = new(3)
    everyone_plays(state)
    for _ in range(6):
        state.apply(
            {"type": "card", "player": state.to_act, "card": state.legal_cards(state.to_act)[-1]}
        )
    verdict = verify(state.to_record())
    assert verdict["valid"] and not verdict["complete"]
    assert verdict["next"] == {"player": state.to_act, "legal": state.legal_cards(state.to_act)}
    assert state.outcome() is None


def test_replay_rebuilds_the_same_hand() -> None:
    state = random_hand(33, n_players=6, rules=Rules(declaration="simultaneous"))
    again = replay(state.players, state.dealer, state.rules, 33, state.actions)
    assert again.to_record() == state.to_record()
    assert again.outcome() == state.outcome()


def test_replay_accepts_an_rng() -> None:
    rng = random.Random(8)
    state = HandState.new(P4, 0, Rules(), rng)
    everyone_plays(state)
    play_out(state)
    again = replay(P4, 0, Rules(), random.Random(8), state.actions)
    assert again.actions == state.actions and again.outcome() == state.outcome()


def test_carry_and_excused_flow_into_the_result() -> None:
    state = new(3, carry=10, excused=["ben"])
    everyone_plays(state)
    play_out(state)
    result = state.outcome()
    assert result["pot"] == 13 and "ben" not in result["antes"]
    assert verify(state.to_record())["result"] == result


def test_rules_may_be_given_as_a_dict() -> None:
    state = HandState.new(P4, "ann", {"hand_size": 4}, random.Random(1))
    assert state.rules.hand_size == 4


def test_the_deal_is_uniform() -> None:
    rng = random.Random(5)
    counts = [0] * 52
    for _ in range(26_000):
        first, second = _top_of_shuffled_deck(rng, 2)
        assert first != second
        counts[first] += 1
    # 500 expected per card, standard deviation about 22
    assert all(380 < c < 620 for c in counts), counts
