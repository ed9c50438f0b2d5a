"""Legal plays, R18–R31: one table row per rule, each citing its rule number."""

from __future__ import annotations

import pytest

from games.engine import Rules, illegal_reasons, legal_mask, sure_tricks
from games.engine.cards import SUIT_MASKS
from games.engine.legal import TrickPlay, trick_winner

from .helpers import cards, legal, m, names, reasons

NO_CINCH = Rules(cinch="off")


# -- RULES.md worked examples (trump H) ---------------------------------------------------

WORKED = [
    pytest.param("KS", "AS 3S 5H 9C", {}, "AS", id="R19-R21-KS-led"),
    pytest.param("AS", "KS 3S 5H 9C", {}, "KS 3S", id="R19-AS-led"),
    pytest.param("KC", "2H 9H AS QD", {}, "2H 9H", id="R20-KC-led"),
    pytest.param("5C 8H", "6H JH KS", {}, "JH", id="R21-overtrump"),
    pytest.param("5C QH", "6H JH KS", {}, "6H JH", id="R22-undertrump"),
    pytest.param("", "AH KH QH 4S 7C", {}, "AH KH QH", id="R27-R30-cinch-lead"),
]


@pytest.mark.parametrize(("trick", "hand", "kw", "expected"), WORKED)
def test_worked_examples(trick: str, hand: str, kw: dict, expected: str) -> None:
    assert legal(hand, trick, **kw) == set(expected.split())


def test_worked_examples_explain_every_illegal_card() -> None:
    assert reasons("AS 3S 5H 9C", "KS") == {"3S": "R21", "5H": "R19", "9C": "R19"}
    assert reasons("KS 3S 5H 9C", "AS") == {"5H": "R19", "9C": "R19"}
    assert reasons("2H 9H AS QD", "KC") == {"AS": "R20", "QD": "R20"}
    assert reasons("6H JH KS", "5C 8H") == {"6H": "R21", "KS": "R20"}
    assert reasons("6H JH KS", "5C QH") == {"KS": "R22"}
    assert reasons("AH KH QH 4S 7C") == {"4S": "R27", "7C": "R27"}


# -- R18 who wins a trick -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("trick", "trump", "winner"),
    [
        pytest.param("5C 9C 2C", "H", 1, id="R18-highest-of-led-suit"),
        pytest.param("5C AS 2C", "H", 0, id="R18-other-suit-never-wins"),
        pytest.param("AC 2H KC", "H", 1, id="R18-any-trump-beats"),
        pytest.param("AC 2H 5H 3H", "H", 2, id="R18-highest-trump"),
        pytest.param("4H AS 5H", "H", 2, id="R18-trump-led"),
    ],
)
def test_R18_trick_winner(trick: str, trump: str, winner: int) -> None:
    assert trick_winner(cards(trick), "SHDC".index(trump)) == winner


# -- R19–R23 following --------------------------------------------------------------------

FOLLOW = [
    # (trick, hand, rules, legal)
    pytest.param("5C 8H", "2C KC 3H", None, "2C KC", id="R19-follow-even-when-trumped"),
    pytest.param("5C", "2C 3H", None, "2C", id="R19-never-trump-holding-led-suit"),
    pytest.param("5C 8H", "9H 2H AS", None, "9H", id="R20-R21-void-must-overtrump"),
    pytest.param("5C", "9H 2H AS", None, "9H 2H", id="R20-void-any-trump-untrumped"),
    pytest.param("9S", "TS 2S 3H", None, "TS", id="R21-beat-led-suit"),
    pytest.param("9S JS", "TS QS", None, "QS", id="R21-beat-current-winner"),
    pytest.param("9S JS", "TS 2S", None, "TS 2S", id="R21-cannot-beat-any-of-suit"),
    pytest.param("9H", "2H KH AS", NO_CINCH, "KH", id="R21-trump-lead-higher-trump"),
    pytest.param("9H", "2H 3H AS", None, "2H 3H", id="R21-trump-lead-cannot-beat"),
    pytest.param(
        "5C 9C 8H",
        "2C KC 3H",
        Rules(head_led_suit_after_trump=True),
        "KC",
        id="R21-head_led_suit_after_trump-on",
    ),
    pytest.param(
        "5C 9C 8H",
        "2C 3C 3H",
        Rules(head_led_suit_after_trump=True),
        "2C 3C",
        id="R21-head_led_suit_after_trump-cannot",
    ),
    pytest.param("5C 9C 8H", "2C KC 3H", None, "2C KC", id="R21-head_led_suit_after_trump-off"),
    pytest.param("5C QH", "6H JH KS", None, "6H JH", id="R22-undertrump_required-on"),
    pytest.param(
        "5C QH",
        "6H JH KS",
        Rules(undertrump_required=False),
        "6H JH KS",
        id="R22-undertrump_required-off",
    ),
    pytest.param(
        "5C 8H",
        "9H 2H AS",
        Rules(undertrump_required=False),
        "9H",
        id="R22-off-still-overtrump-when-able",
    ),
    pytest.param("5C", "AS KD", None, "AS KD", id="R23-neither-suit-any-card"),
    pytest.param("5H", "AS KD", None, "AS KD", id="R23-void-in-trump-lead"),
]


@pytest.mark.parametrize(("trick", "hand", "rules", "expected"), FOLLOW)
def test_following(trick: str, hand: str, rules: Rules | None, expected: str) -> None:
    assert legal(hand, trick, rules=rules) == set(expected.split())


@pytest.mark.parametrize(
    ("trick", "hand", "rules", "expected"),
    [
        pytest.param("5C 8H", "2C KC 3H", None, {"3H": "R19"}, id="R19"),
        pytest.param("5C", "9H 2H AS", None, {"AS": "R20"}, id="R20"),
        pytest.param("5C 8H", "9H 2H AS", None, {"AS": "R20", "2H": "R21"}, id="R21-overtrump"),
        pytest.param("9S JS", "TS QS", None, {"TS": "R21"}, id="R21"),
        pytest.param("5C QH", "6H JH KS", None, {"KS": "R22"}, id="R22"),
        pytest.param(
            "5C 9C 8H",
            "2C KC 3H",
            Rules(head_led_suit_after_trump=True),
            {"2C": "R21", "3H": "R19"},
            id="R21-head_led_suit_after_trump",
        ),
    ],
)
def test_following_reasons(
    trick: str, hand: str, rules: Rules | None, expected: dict[str, str]
) -> None:
    assert reasons(hand, trick, rules=rules) == expected


# -- R25/R26 leading ----------------------------------------------------------------------


def test_R25_any_card_may_be_led() -> None:
    assert legal("2H 5S 9D JC", others_void=False) == {"2H", "5S", "9D", "JC"}


def test_R26_lead_trump_when_others_known_void() -> None:
    assert legal("2H 5S 9D JC", others_void=True) == {"2H"}
    assert reasons("2H 5S 9D JC", others_void=True) == {"5S": "R26", "9D": "R26", "JC": "R26"}


def test_R26_switch_off() -> None:
    rules = Rules(lead_trump_when_others_void=False)
    assert legal("2H 5S 9D JC", others_void=True, rules=rules) == {"2H", "5S", "9D", "JC"}


def test_R26_no_trump_unseen_from_leaders_view() -> None:
    # every other heart is dead: nobody else can hold one
    dead = "3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"
    assert legal("2H 5S 9D", dead=dead) == {"2H"}
    # one heart unaccounted for: no obligation
    assert legal("2H 5S 9D", dead=dead.replace(" AH", "")) == {"2H", "5S", "9D"}


def test_R26_leader_without_trump_is_free() -> None:
    assert legal("5S 9D", others_void=True) == {"5S", "9D"}


def _table(hands: dict[int, str], trump: str = "H", rules: Rules | None = None) -> TrickPlay:
    order = sorted(hands)
    return TrickPlay(
        len(order), order, [m(hands[s]) for s in order], "SHDC".index(trump), rules or Rules()
    )


def test_R26_known_void_from_a_trump_lead() -> None:
    # seat 0 leads a trump; seats 1 and 2 show out of trump; seat 0 wins and must
    # lead trump again though it holds spades.
    tp = _table({0: "AH 2H 3S 4S 5S", 1: "2S 6D 7D 8D 9D", 2: "TS JD QD KD AD"})
    for card in ("AH", "2S", "TS"):
        tp.play(cards(card)[0])
    assert tp.to_act == 0
    assert tp.known_void == 0b110
    assert names(tp.legal()) == {"2H"}
    assert {k: v for k, v in tp.reasons().items()} == {c: "R26" for c in cards("3S 4S 5S")}


def test_R26_known_void_from_a_side_lead_needs_the_trump_duty() -> None:
    # seat 1 is void in the led clubs and plays a diamond while the trick is
    # untrumped: had it held a trump it would have had to play one (R20).
    tp = _table({0: "2C 3C 4S", 1: "5D 6D 7D", 2: "8C 9C TC"})
    tp.play(cards("2C")[0])
    tp.play(cards("5D")[0])
    assert tp.known_void == 0b010


@pytest.mark.parametrize(
    ("undertrump", "known"),
    [
        pytest.param(True, True, id="R26-R22-undertrump_required-on-void-known"),
        pytest.param(False, False, id="R26-R22-undertrump_required-off-not-known"),
    ],
)
def test_R26_known_void_after_the_trick_was_trumped(undertrump: bool, known: bool) -> None:
    # clubs led, seat 1 trumps, seat 2 (void in clubs) throws a diamond
    rules = Rules(undertrump_required=undertrump)
    tp = _table({0: "2C 3C", 1: "5H 6D", 2: "7D 8D"}, rules=rules)
    for card in ("2C", "5H", "7D"):
        tp.play(cards(card)[0])
    assert bool(tp.known_void & 0b100) is known


# -- R28 the cinch: sure trump tricks -----------------------------------------------------


def _sure(hand: str, dead: str = "") -> int:
    tm = SUIT_MASKS[1]
    mine = m(hand) & tm
    return sure_tricks(mine, tm & ~mine & ~m(dead))


@pytest.mark.parametrize(
    ("hand", "dead", "sure"),
    [
        pytest.param("AH KH QH", "", 3, id="R28-AKQ-sure-3"),
        pytest.param("AH KH", "", 2, id="R28-AK-sure-2"),
        pytest.param("AH QH JH", "", 2, id="R28-AQJ-K-unseen-sure-2"),
        pytest.param("AH QH JH", "KH", 3, id="R28-AQJ-K-dead-sure-3"),
        pytest.param("KH QH", "", 1, id="R28-KQ-A-unseen"),
        pytest.param("2H 3H", "", 0, id="R28-low-trumps-all-killable"),
        pytest.param("AS AD AC 2H", "", 0, id="R28-side-aces-never-count"),
    ],
)
def test_R28_sure_tricks(hand: str, dead: str, sure: int) -> None:
    assert _sure(hand, dead) == sure


@pytest.mark.parametrize(
    ("hand", "won", "dead", "expected"),
    [
        pytest.param("AH KH 4S 7C 9D", 1, "", "AH KH", id="R28-one-won-and-AK-cinch"),
        pytest.param("AH 4S 7C 9D", 2, "", "AH", id="R28-two-won-and-A-cinch"),
        pytest.param("AH QH JH 4S", 1, "", "AH", id="R28-one-won-AQJ-K-unseen-cinch"),
        pytest.param("AH KH 4S 7C 9D", 0, "", "AH KH 4S 7C 9D", id="R28-AK-alone-no-cinch"),
        pytest.param("KH 4S 7C", 2, "", "KH 4S 7C", id="R28-K-with-A-unseen-no-cinch"),
        pytest.param("KH 4S 7C", 2, "AH", "KH", id="R28-K-with-A-dead-cinch"),
        pytest.param("2H 4S", 3, "", "2H", id="R28-majority-already-won"),
    ],
)
def test_R27_R28_cinch_lead(hand: str, won: int, dead: str, expected: str) -> None:
    assert legal(hand, won=won, dead=dead) == set(expected.split())


def test_R28_unseen_trumps_empty_when_others_known_void() -> None:
    # K-Q with the A unseen is one sure trick, unless nobody else can hold a trump
    assert legal("KH QH 4S", won=1) == {"KH", "QH", "4S"}
    assert legal("KH QH 4S", won=1, others_void=True) == {"KH", "QH"}


def test_R28_four_card_hands_majority_three() -> None:
    rules = Rules(hand_size=4)
    assert rules.majority == 3
    assert legal("AH KH 4S 7C", won=1, rules=rules) == {"AH", "KH"}
    assert legal("AH 4S 7C", won=1, rules=rules) == {"AH", "4S", "7C"}


# -- R30 equivalence, R29 following, R31 last to play ------------------------------------

EQUIV = [
    pytest.param("sequence", "KH", "AH QH", id="R30-sequence-gap-dead"),
    pytest.param("sequence", "", "AH", id="R30-sequence-gap-unseen"),
    pytest.param("adjacent", "KH", "AH", id="R30-adjacent-only-one-below"),
    pytest.param("none", "KH", "AH", id="R30-none-highest-only"),
]


@pytest.mark.parametrize(("mode", "dead", "expected"), EQUIV)
def test_R30_equivalence_on_lead(mode: str, dead: str, expected: str) -> None:
    rules = Rules(cinch_equivalence=mode)
    assert legal("AH QH 4S", won=2, dead=dead, rules=rules) == set(expected.split())


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        pytest.param("sequence", "AH KH QH", id="R30-sequence-in-hand"),
        pytest.param("adjacent", "AH KH", id="R30-adjacent-in-hand"),
        pytest.param("none", "AH", id="R30-none-in-hand"),
    ],
)
def test_R30_equivalence_cards_in_hand(mode: str, expected: str) -> None:
    rules = Rules(cinch_equivalence=mode)
    assert legal("AH KH QH 4S 7C", rules=rules) == set(expected.split())


def test_R29_cinch_follower_not_last_plays_highest() -> None:
    # trump led; A-Q-7 with the K dead and one trick won: cinch (1 + A, Q)
    assert legal("AH QH 7H 3S", "5H", won=1, dead="KH") == {"AH", "QH"}
    assert reasons("AH QH 7H 3S", "5H", won=1, dead="KH") == {"7H": "R29", "3S": "R19"}


def test_R29_void_cinch_follower_trumps_with_the_highest() -> None:
    assert legal("AH KH 7H", "5C", won=1) == {"AH", "KH"}
    assert reasons("AH KH 7H", "5C", won=1) == {"7H": "R29"}


def test_R29_not_when_no_trump_is_legal() -> None:
    assert legal("AH KH 2C 3C", "5C", won=2) == {"2C", "3C"}


def test_R31_last_to_play_only_has_to_win() -> None:
    assert legal("AH QH 7H 3S", "5H 2S 3D", won=1, dead="KH", last=True) == {"AH", "QH", "7H"}


def test_R30_must_head_first_so_an_equivalent_that_cannot_win_stays_illegal() -> None:
    # clubs led and trumped with the 9; K Q J T of hearts are dead, so the 8 would be
    # "equivalent" to the A, but it cannot beat the 9: R21 removes it first.
    dead = "KH QH JH TH"
    assert legal("AH 8H", "5C 9H", won=2, dead=dead) == {"AH"}
    assert reasons("AH 8H", "5C 9H", won=2, dead=dead) == {"8H": "R21"}


def test_cinch_off_switch() -> None:
    assert legal("AH KH QH 4S 7C", rules=NO_CINCH) == {"AH", "KH", "QH", "4S", "7C"}
    assert legal("AH QH 7H 3S", "5H", won=1, dead="KH", rules=NO_CINCH) == {"AH", "QH", "7H"}


# -- the public helpers agree with the tracker -------------------------------------------


def test_legal_mask_and_illegal_reasons_helpers() -> None:
    hand = m("AS 3S 5H 9C")
    assert names(legal_mask(hand, 1, Rules(), cards("KS"))) == {"AS"}
    assert illegal_reasons(hand, 1, Rules(), cards("KS")) == {
        cards("3S")[0]: "R21",
        cards("5H")[0]: "R19",
        cards("9C")[0]: "R19",
    }
