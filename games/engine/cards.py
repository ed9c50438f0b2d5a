"""Cards, suits and ranks, their text forms, and 52-bit card sets.

A card is an index ``suit * 13 + rank`` (rank 0 is the deuce, 12 the ace), so a set of
cards is a plain ``int`` with one bit per card. The hot paths of the engine only ever
handle such ints; :class:`Card`, :class:`Suit` and :class:`Rank` are the friendly value
types for everything else (tests, views, error messages).

Text forms: rank then suit, ``AS``, ``TH``, ``10H``, ``9♣``, lowercase accepted.
Canonical output is always two characters, ``T`` for ten (``TH``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import IntEnum

from .errors import BourreError

__all__ = [
    "ABOVE",
    "ALL_CARDS",
    "BELOW",
    "CARD_BIT_LOOKUP",
    "CARD_LOOKUP",
    "CARD_NAMES",
    "Card",
    "CardError",
    "DECK",
    "FULL_DECK",
    "RANK_CHARS",
    "Rank",
    "SUIT_CHARS",
    "SUIT_MASKS",
    "Suit",
    "card_name",
    "card_bits",
    "card_or_none",
    "card_names",
    "cards_in",
    "highest",
    "highest_in_suit",
    "lowest",
    "lowest_in_suit",
    "mask_of",
    "parse_card",
    "parse_cards",
    "parse_suit",
    "popcount",
    "rank_of",
    "suit_of",
]


class CardError(BourreError):
    """A card or suit could not be parsed."""

    code = "bad_card"


class Suit(IntEnum):
    S = 0
    H = 1
    D = 2
    C = 3

    @property
    def symbol(self) -> str:
        return "♠♥♦♣"[self]

    @property
    def mask(self) -> int:
        return SUIT_MASKS[self]

    def __str__(self) -> str:
        return self.name

    @classmethod
    def parse(cls, text: str) -> Suit:
        return cls(parse_suit(text))


class Rank(IntEnum):
    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12

    def __str__(self) -> str:
        return RANK_CHARS[self]


RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "SHDC"
FULL_DECK = (1 << 52) - 1
SUIT_MASKS: tuple[int, ...] = tuple(0x1FFF << (13 * s) for s in range(4))
CARD_NAMES: tuple[str, ...] = tuple(RANK_CHARS[i % 13] + SUIT_CHARS[i // 13] for i in range(52))

# ABOVE[c]: the cards of c's suit ranked higher than c; BELOW[c]: ranked lower.
# Heading a trick is "play a card in ABOVE[winner]", so these are the hot tables.
ABOVE: tuple[int, ...] = tuple(SUIT_MASKS[c // 13] & ~((2 << c) - 1) for c in range(52))
BELOW: tuple[int, ...] = tuple(SUIT_MASKS[c // 13] & ((1 << c) - 1) for c in range(52))

_SUIT_ALIASES = {
    "S": 0,
    "♠": 0,
    "♤": 0,
    "SPADE": 0,
    "SPADES": 0,
    "H": 1,
    "♥": 1,
    "♡": 1,
    "HEART": 1,
    "HEARTS": 1,
    "D": 2,
    "♦": 2,
    "♢": 2,
    "DIAMOND": 2,
    "DIAMONDS": 2,
    "C": 3,
    "♣": 3,
    "♧": 3,
    "CLUB": 3,
    "CLUBS": 3,
}
_RANK_ALIASES = {ch: i for i, ch in enumerate(RANK_CHARS)} | {"10": 8}

# Every spelling we accept, precomputed, so parsing a well-formed card is one dict lookup
# (verify() parses every card of a record; this keeps it off the profile).
CARD_LOOKUP: dict[str, int] = {}
for _rank_text, _rank in _RANK_ALIASES.items():
    for _suit_text, _suit in _SUIT_ALIASES.items():
        if len(_suit_text) > 1 and _suit_text.isalpha():
            continue
        for _r in {_rank_text, _rank_text.lower()}:
            for _s in {_suit_text, _suit_text.lower()}:
                CARD_LOOKUP[_r + _s] = _suit * 13 + _rank
del _rank_text, _rank, _suit_text, _suit, _r, _s
# The same spellings → the card's one-card mask (1 << index), for sets named in one go.
CARD_BIT_LOOKUP: dict[str, int] = {text: 1 << index for text, index in CARD_LOOKUP.items()}

_VARIATION_SELECTORS = str.maketrans("", "", "\ufe0e\ufe0f")


def parse_card(text: object) -> int:
    """The index of the card spelled ``text`` (``AS``, ``th``, ``10H``, ``Q♥``).

    Raises :class:`CardError` for anything else, including non-strings.
    """
    if type(text) is str:
        index = CARD_LOOKUP.get(text)
        if index is not None:
            return index
        if len(text) <= 12:
            cleaned = text.translate(_VARIATION_SELECTORS).strip().upper()
            index = CARD_LOOKUP.get(cleaned)
            if index is not None:
                return index
        raise CardError(
            f"not a card: {_short(text)} (write rank then suit, like AS, TH, 10H)",
            params={"text": _short(text)},
            message_id="not_a_card",
        )
    raise CardError(
        f"not a card: expected text like 'AS', got {type(text).__name__}",
        message_id="card_not_text",
    )


def card_or_none(text: object) -> int | None:
    """Like :func:`parse_card` but returns None instead of raising (for the verifier)."""
    if type(text) is str:
        index = CARD_LOOKUP.get(text)
        if index is None and len(text) <= 12:
            index = CARD_LOOKUP.get(text.translate(_VARIATION_SELECTORS).strip().upper())
        return index
    return None


def parse_cards(texts: Iterable[object]) -> list[int]:
    return [parse_card(t) for t in texts]


def parse_suit(text: object) -> int:
    """The index of the suit spelled ``text`` (``H``, ``h``, ``♥``, ``hearts``)."""
    if type(text) is str and len(text) <= 12:
        suit = _SUIT_ALIASES.get(text.translate(_VARIATION_SELECTORS).strip().upper())
        if suit is not None:
            return suit
        raise CardError(
            f"not a suit: {_short(text)} (use S, H, D or C)",
            params={"text": _short(text)},
            message_id="not_a_suit",
        )
    raise CardError("not a suit: expected one of S, H, D, C", message_id="suit_not_text")


def card_name(index: int) -> str:
    return CARD_NAMES[index]


def suit_of(index: int) -> int:
    return index // 13


def rank_of(index: int) -> int:
    return index % 13


def mask_of(indices: Iterable[int]) -> int:
    mask = 0
    for i in indices:
        mask |= 1 << i
    return mask


def cards_in(mask: int) -> Iterator[int]:
    """Card indices in ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _subsets_of(items: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """Entry ``bits`` holds the items at the positions of the 1 bits, lowest first."""
    table: list[tuple[str, ...]] = [()]
    for item in items:
        table += [subset + (item,) for subset in table]
    return tuple(table)


# _NAMES_s[bits]: the names of the cards of suit s in its 13 bits. card_names() is on the web's
# hot path (every legal set, every hand shown): four table lookups instead of a loop over
# the cards. 4 × 8,192 tuples, about 3 MB, built in a few milliseconds at import.
_NAMES_0, _NAMES_1, _NAMES_2, _NAMES_3 = (
    _subsets_of(CARD_NAMES[13 * s : 13 * s + 13]) for s in range(4)
)


def card_names(mask: int) -> list[str]:
    """Canonical names of the cards in ``mask``, sorted by suit then rank (deuce first)."""
    return [
        *_NAMES_0[mask & 0x1FFF],
        *_NAMES_1[mask >> 13 & 0x1FFF],
        *_NAMES_2[mask >> 26 & 0x1FFF],
        *_NAMES_3[mask >> 39],
    ]


def card_bits(mask: int) -> list[int]:
    """The cards of ``mask`` one by one, each as its own one-card mask, lowest first.

    The draw deals such masks: dealing k of them to a hand is then ``hand |= sum(...)``
    (distinct bits add up to their union), one call instead of a loop over the cards.
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def popcount(mask: int) -> int:
    return mask.bit_count()


def highest(mask: int) -> int:
    """Highest index in ``mask``, or -1 when empty."""
    return mask.bit_length() - 1


def lowest(mask: int) -> int:
    """Lowest index in ``mask``, or -1 when empty."""
    return (mask & -mask).bit_length() - 1


def highest_in_suit(mask: int, suit: int) -> int:
    return highest(mask & SUIT_MASKS[suit])


def lowest_in_suit(mask: int, suit: int) -> int:
    return lowest(mask & SUIT_MASKS[suit])


def _short(text: str) -> str:
    return repr(text if len(text) <= 16 else text[:16] + "…")


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card; orders by suit then rank, like its index."""

    index: int

    def __post_init__(self) -> None:
        if type(self.index) is not int or not 0 <= self.index < 52:
            raise CardError(f"card index out of range: {self.index!r}", message_id="card_index")

    @classmethod
    def parse(cls, text: str) -> Card:
        return ALL_CARDS[parse_card(text)]

    @classmethod
    def of(cls, rank: Rank | int, suit: Suit | int) -> Card:
        return ALL_CARDS[int(suit) * 13 + int(rank)]

    @property
    def suit(self) -> Suit:
        return Suit(self.index // 13)

    @property
    def rank(self) -> Rank:
        return Rank(self.index % 13)

    @property
    def bit(self) -> int:
        return 1 << self.index

    @property
    def symbol(self) -> str:
        """Display form with a suit symbol, ``Q♥``."""
        return RANK_CHARS[self.index % 13] + "♠♥♦♣"[self.index // 13]

    def __str__(self) -> str:
        return CARD_NAMES[self.index]

    def __repr__(self) -> str:
        return f"Card.parse({CARD_NAMES[self.index]!r})"


ALL_CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(52))
DECK = ALL_CARDS
