"""The engine's fast paths give what the plain ones gave (issue #37, a faster engine).

A digital hand is stored as its seed and its actions and replayed from them, so the deal,
the draw and every shuffle must keep giving the same cards from the same seed: the
fingerprint below was taken from the engine before these paths existed. The shortcuts
for the web (apply() with a card dict, legal_cards(), to_act, card names from tables)
must answer exactly what the long way answers, errors included.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import UserDict

import pytest

from games.engine import HandState, IllegalAction, Rules
from games.engine.cards import CARD_NAMES, card_bits, card_names, cards_in
from games.engine.deck import run_draw, shuffler

from .helpers import NAMES


def _fingerprint() -> str:
    digest = hashlib.sha256()
    for seed in range(240):
        rules = [{}, {"stock_refill": "discards_all"}, {"stock_refill": "folded_then_discards"}]
        n = 5 + seed % 4
        players = NAMES[:n]
        state = HandState.new(players, seed % n, rules[seed % 3], random.Random(seed))
        pick = random.Random(-seed)
        for seat in state.order:
            if state.phase != "declare":
                break
            hand = [CARD_NAMES[c] for c in range(52) if state.hands[seat] >> c & 1]
            if seat != state.dealer and pick.random() < 0.25:
                state.apply({"type": "pass", "player": players[seat]})
            else:
                discard = pick.sample(hand, pick.randint(0, 5))
                state.apply({"type": "play", "player": players[seat], "discard": discard})
        while state.phase == "play":
            cards = state.legal_cards(state.to_act)  # type: ignore[arg-type]
            card = cards[pick.randrange(len(cards))]
            state.apply({"type": "card", "player": state.to_act, "card": card})
        record = json.dumps([state.to_record(), state.outcome()], sort_keys=True)
        digest.update(record.encode())
    return digest.hexdigest()


def test_the_same_seeds_still_deal_draw_and_play_the_same_hands() -> None:
    # 240 hands of 5 to 8 players, a quarter of them passing, 0..5 cards changed, under
    # each stock_refill rule: many draws run the stock dry and reshuffle discards (R15)
    # or folded hands. Taken on main before the fast paths (ca8b88b).
    assert _fingerprint() == "556d2e40079d8a565255e1ee6701e78d529c3f7970355ebcf87cfcedfb9c4fd9"


@pytest.mark.parametrize("length", [0, 1, 2, 3, 7, 17, 31, 52])
def test_shuffler_is_rng_shuffle_card_for_card_and_leaves_the_rng_where_it_does(
    length: int,
) -> None:
    for seed in range(300):
        ours, theirs = random.Random(seed), random.Random(seed)
        mine, reference = list(range(length)), list(range(length))
        shuffle = shuffler(ours)
        shuffle(mine)
        shuffle(mine)
        theirs.shuffle(reference)
        theirs.shuffle(reference)
        assert mine == reference
        assert ours.getstate() == theirs.getstate()


def test_a_random_subclass_keeps_its_own_shuffle() -> None:
    class Dice(random.Random):
        pass

    dice = Dice(3)
    assert shuffler(dice) == dice.shuffle


def test_card_names_and_card_bits_list_the_cards_lowest_first() -> None:
    rng = random.Random(11)
    for _ in range(2000):
        mask = rng.getrandbits(52) & rng.getrandbits(52)
        assert card_names(mask) == [CARD_NAMES[c] for c in cards_in(mask)]
        assert card_bits(mask) == [1 << c for c in cards_in(mask)]
    assert card_names(0) == [] and card_bits(0) == []
    assert card_names((1 << 52) - 1) == list(CARD_NAMES)


def test_card_names_refuses_a_set_beyond_the_deck() -> None:
    with pytest.raises(IndexError):
        card_names(1 << 52)


def _to_act_worked_out(state: HandState) -> str | None:
    """What to_act was when it was worked out on every read."""
    if state.phase == "play" and state.tp is not None:
        return state.players[state.tp.to_act]
    if state.phase == "declare" and not state.simultaneous:
        return state.players[state.order[state.decl_pos]]
    return None


@pytest.mark.parametrize("declaration", ["sequential", "simultaneous"])
def test_to_act_is_kept_up_to_date_by_every_action(declaration: str) -> None:
    rules = Rules(declaration=declaration)
    for seed in range(60):
        n = 2 + seed % 7
        state = HandState.new(NAMES[:n], seed % n, rules, random.Random(seed))
        pick = random.Random(seed)
        assert state.to_act == _to_act_worked_out(state)
        while state.phase != "done":
            player = pick.choice(state.awaiting)
            actions = state.legal_actions(player)
            state.apply(actions[pick.randrange(len(actions))])
            assert state.to_act == _to_act_worked_out(state)
        assert state.to_act is None


def _in_play(seed: int = 4) -> HandState:
    state = HandState.new(NAMES[:4], 0, Rules(), random.Random(seed))
    for seat in state.order:
        state.apply({"type": "play", "player": state.players[seat], "discard": []})
    return state


class _Text(str):
    """A str subclass: the engine accepts only plain strings for names and cards."""


def test_a_card_dict_the_long_way_and_the_short_way_give_the_same_hand() -> None:
    short, long_way = _in_play(), _in_play()
    while short.phase == "play":
        player = short.to_act
        assert player is not None
        card = short.legal_cards(player)[-1]
        short.apply({"type": "card", "player": player, "card": card})
        # a Mapping that is not a dict, and a lowercase spelling: the long way
        long_way.apply(UserDict({"type": "card", "player": player, "card": card.lower()}))
        assert short.view_for(player) == long_way.view_for(player)
    assert short.to_record() == long_way.to_record()
    assert short.outcome() == long_way.outcome()


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "card", "player": _Text("?"), "card": "AS"}, "unknown_player"),
        ({"type": "card", "player": "zed", "card": "AS"}, "unknown_player"),
        ({"type": "card", "card": "AS"}, "unknown_player"),
        ({"type": "card", "player": None, "card": "AS"}, "unknown_player"),
        ({"type": "crd", "player": "?", "card": "AS"}, "bad_action"),
        ({"type": "card", "player": "?", "card": "XX"}, "bad_card"),
        ({"type": "card", "player": "?", "card": ["AS"]}, "bad_card"),
        ({"type": "card", "player": "?"}, "bad_card"),
    ],
)
def test_a_card_dict_that_is_not_a_plain_legal_card_gets_the_long_ways_error(
    action: dict[str, object], code: str
) -> None:
    state = _in_play()
    player = state.to_act
    assert player is not None
    filled = {k: (player if v == "?" else v) for k, v in action.items()}
    if isinstance(action.get("player"), _Text):
        filled["player"] = _Text(player)
    with pytest.raises(IllegalAction) as caught:
        state.apply(filled)
    assert caught.value.code == code
    assert state.to_act == player and len(state.log) == 4  # nothing happened


def test_a_card_named_by_a_str_subclass_is_refused_as_before() -> None:
    state = _in_play()
    player = state.to_act
    assert player is not None
    card = state.legal_cards(player)[0]
    with pytest.raises(IllegalAction) as caught:
        state.apply({"type": "card", "player": player, "card": _Text(card)})
    assert caught.value.code == "bad_card"


def test_an_illegal_or_absent_card_by_the_short_way_names_the_rule_or_the_hand() -> None:
    state = _in_play()
    player = state.to_act
    assert player is not None
    tp = state.tp
    assert tp is not None
    held = tp.hands[tp.to_act]
    illegal = held & ~state.legal_mask()
    absent = next(c for c in range(52) if not held >> c & 1)
    with pytest.raises(IllegalAction) as caught:
        state.apply({"type": "card", "player": player, "card": CARD_NAMES[absent]})
    assert caught.value.code == "card_not_in_hand"
    if illegal:
        bad = CARD_NAMES[(illegal & -illegal).bit_length() - 1]
        with pytest.raises(IllegalAction) as caught:
            state.apply({"type": "card", "player": player, "card": bad})
        assert caught.value.code == "illegal_card"


def _declaring(seed: int = 8) -> tuple[HandState, str, list[str]]:
    state = HandState.new(NAMES[:4], 3, Rules(), random.Random(seed))
    player = state.to_act
    assert player is not None
    return state, player, card_names(state.hands[state.seat_of[player]])


def test_discards_in_any_accepted_form_name_the_same_cards() -> None:
    masks = set()
    for form in (
        lambda cards: cards,
        lambda cards: tuple(cards),
        lambda cards: [c.lower() for c in cards],
        lambda cards: [c + "\ufe0f" for c in cards],
    ):
        state, player, hand = _declaring()
        state.apply({"type": "play", "player": player, "discard": form([hand[3], hand[0]])})
        masks.add(state.decl[state.seat_of[player]])
    assert len(masks) == 1


@pytest.mark.parametrize(
    ("discard", "code"),
    [
        ("2S", "bad_action"),
        (["ZZ"], "bad_card"),
        ([7], "bad_card"),
        (["<0>", "<0>"], "duplicate_card"),
        (["<0>", _Text("<1>")], "bad_card"),
    ],
)
def test_discards_that_are_not_distinct_cards_in_hand_get_the_long_ways_error(
    discard: object, code: str
) -> None:
    state, player, hand = _declaring()
    if isinstance(discard, list):
        discard = [
            type(c)(hand[int(c[1])]) if isinstance(c, str) and c.startswith("<") else c
            for c in discard
        ]
    with pytest.raises(IllegalAction) as caught:
        state.apply({"type": "play", "player": player, "discard": discard})
    assert caught.value.code == code


def test_a_discard_not_in_hand_is_named_first_in_the_order_given() -> None:
    state, player, hand = _declaring()
    other = next(name for name in CARD_NAMES if name not in hand)
    with pytest.raises(IllegalAction) as caught:
        state.apply({"type": "play", "player": player, "discard": [hand[0], other, hand[0]]})
    assert caught.value.code == "card_not_in_hand"
    assert caught.value.params["card"] == other


def test_run_draw_asks_only_for_the_discards_it_reshuffles() -> None:
    asked: list[int] = []

    def pile(seat: int) -> list[str]:
        asked.append(seat)
        return [f"{seat}{i}" for i in range(3)]

    drawn, reshuffled = run_draw(
        [0, 1, 2, 3],
        {0: 3, 1: 3, 2: 3, 3: 3},
        pile,
        list("abcdefg"),
        [],
        "discards_all",
        list.reverse,
    )
    assert drawn[0] == list("abc") and drawn[1] == list("def")
    assert asked == [0, 1, 2]  # the stock ran dry serving seat 2; seat 3 had not discarded yet
    assert reshuffled == {0: 2, 1: 2, 2: 2}
