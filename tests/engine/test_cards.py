"""Cards: parsing every accepted spelling, canonical output, bitmask helpers (R1)."""

from __future__ import annotations

import pytest

from games.engine import Card, CardError, Rank, Suit, card_names, parse_card, parse_suit
from games.engine.cards import (
    ABOVE,
    ALL_CARDS,
    BELOW,
    CARD_NAMES,
    SUIT_MASKS,
    card_or_none,
    cards_in,
    highest,
    highest_in_suit,
    lowest,
    lowest_in_suit,
    mask_of,
    popcount,
)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("AS", "AS"),
        ("as", "AS"),
        ("aS", "AS"),
        ("TH", "TH"),
        ("th", "TH"),
        ("10H", "TH"),
        ("10h", "TH"),
        ("Q♥", "QH"),
        ("q♥", "QH"),
        ("9♣", "9C"),
        ("K♦", "KD"),
        ("2♠", "2S"),
        ("J♡", "JH"),
        ("10♦️", "TD"),
        (" 7c ", "7C"),
    ],
)
def test_parse_card_spellings(text: str, canonical: str) -> None:
    assert CARD_NAMES[parse_card(text)] == canonical
    assert str(Card.parse(text)) == canonical


@pytest.mark.parametrize(
    "text", ["", "A", "1S", "11H", "AX", "ASS", "♥Q", "AS,", None, 12, ["AS"], "x" * 100]
)
def test_parse_card_rejects(text: object) -> None:
    with pytest.raises(CardError):
        parse_card(text)
    assert card_or_none(text) is None


def test_card_index_is_suit_times_13_plus_rank() -> None:
    assert parse_card("2S") == 0 and parse_card("AS") == 12
    assert parse_card("2H") == 13 and parse_card("AC") == 51
    card = Card.parse("QH")
    assert card.suit is Suit.H and card.rank is Rank.QUEEN and card.index == 23
    assert card.symbol == "Q♥" and repr(card) == "Card.parse('QH')"
    assert Card.of(Rank.TEN, Suit.D) == Card.parse("TD")
    assert len(ALL_CARDS) == 52 and len(set(CARD_NAMES)) == 52
    with pytest.raises(CardError):
        Card(52)


@pytest.mark.parametrize(("text", "suit"), [("S", 0), ("h", 1), ("♦", 2), ("clubs", 3), ("♤", 0)])
def test_parse_suit(text: str, suit: int) -> None:
    assert parse_suit(text) == suit and Suit.parse(text) == suit


@pytest.mark.parametrize("text", ["X", "", None, 1, "SH"])
def test_parse_suit_rejects(text: object) -> None:
    with pytest.raises(CardError):
        parse_suit(text)


def test_bitmask_helpers() -> None:
    mask = mask_of(parse_card(t) for t in ("2S", "KS", "5H", "AC"))
    assert popcount(mask) == 4
    assert card_names(mask) == ["2S", "KS", "5H", "AC"]
    assert list(cards_in(mask)) == [0, 11, 16, 51]
    assert highest(mask) == 51 and lowest(mask) == 0
    assert highest(0) == -1 and lowest(0) == -1
    assert highest_in_suit(mask, 0) == 11 and lowest_in_suit(mask, 0) == 0
    assert highest_in_suit(mask, 2) == -1
    assert SUIT_MASKS[1] == mask_of(range(13, 26))
    assert ABOVE[parse_card("QH")] == mask_of(parse_card(t) for t in ("KH", "AH"))
    assert BELOW[parse_card("4D")] == mask_of(parse_card(t) for t in ("2D", "3D"))
    assert ABOVE[parse_card("AS")] == 0 and BELOW[parse_card("2C")] == 0
