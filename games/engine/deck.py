"""The deck: the shuffled deal and the draw with its reshuffles (R2, R7, R9, R15).

How cards leave the deck, whoever holds them: :func:`_deal` gives the top of a uniformly
shuffled deck from one random number (and the rest, the future stock), and
:func:`run_draw` serves the draw, refilling an empty stock from the discards (or first the
passers' folded hands) as the ``stock_refill`` house rule says. It is separate from
``state.py`` because the verifier needs the draw as well: it replays it with placeholder
cards to learn whose discards were reshuffled into a new stock (R15), and need not load the
digital hand to do so. :func:`shuffler` is ``rng.shuffle`` written out: a digital hand is
replayed from its seed, so the same seed must keep giving the same cards (a test pins a
fingerprint of whole hands).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["DECK", "FOLDED", "run_draw", "shuffler"]

DECK = range(52)  # every card index, in a fixed order
FOLDED = -1  # key of run_draw's reshuffled map: when the folded hands became the stock


def run_draw(
    order: Sequence[int],
    wants: Mapping[int, int],
    pile_cards: Callable[[int], Sequence[Any]],
    stock: Sequence[Any],
    folded: Sequence[Any],
    mode: str,
    shuffle: Callable[[list[Any]], None],
) -> tuple[dict[int, list[Any]], dict[int, int]]:
    """Serve the draw (R9, R15): each seat of ``order`` that ``wants`` k cards first puts
    its discards, ``pile_cards(seat)``, on the discard pile, then is dealt k cards from
    ``stock``; an empty stock is refilled from the pile (or first from ``folded`` hands)
    per ``mode``. ``pile_cards`` is asked only for the discards that are reshuffled.

    Returns the cards each seat drew, and for every seat whose discards were reshuffled
    into a new stock, the seat being served at that moment (those cards can reach that
    seat and the ones served after it). The verifier runs this with placeholder cards
    to learn the latter.
    """
    cards_left = stock if isinstance(stock, list) else list(stock)  # never changed here
    pos = 0
    pile: list[int] = []  # seats whose discards are on the pile, in the order put there
    drawn: dict[int, list[Any]] = {}
    reshuffled: dict[int, int] = {}
    for seat in order:
        k = wants.get(seat, 0)
        if not k:
            continue
        pile.append(seat)
        if pos + k <= len(cards_left):  # the stock serves the whole request
            drawn[seat] = cards_left[pos : pos + k]
            pos += k
            continue
        got: list[Any] = []
        while len(got) < k:
            if pos == len(cards_left):
                fresh: list[Any]
                if mode == "folded_then_discards" and folded:
                    fresh, folded = list(folded), ()
                    reshuffled[FOLDED] = seat
                else:
                    keep_own = mode != "discards_all"
                    fresh, rest = [], []
                    for owner in pile:
                        if owner == seat and keep_own:
                            rest.append(owner)
                        else:
                            cards = pile_cards(owner)
                            fresh.extend(cards)
                            if cards:
                                reshuffled[owner] = seat
                    pile = rest
                if not fresh:
                    # Cannot happen with 52 cards and at most 8 × 5 in hands, but never
                    # loop forever on a broken invariant.
                    raise RuntimeError("the stock and the discards are exhausted")
                shuffle(fresh)
                cards_left, pos = fresh, 0
            take = min(k - len(got), len(cards_left) - pos)
            got.extend(cards_left[pos : pos + take])
            pos += take
        drawn[seat] = got
    return drawn, reshuffled


def shuffler(rng: random.Random) -> Callable[[list[Any]], None]:
    """``rng.shuffle``: the very same permutation from the very same random bits, at about
    half the cost.

    It is Python 3.11's ``Random.shuffle`` written out (Fisher–Yates from the end, each
    index j ≤ i drawn by rejection on ``getrandbits((i + 1).bit_length())``) without its
    Python call per card. A digital hand is replayed from its seed, so the draw must keep
    giving the same cards: this also pins the algorithm, whatever a later Python does to
    ``random.shuffle``. A subclass of Random (which may draw otherwise) keeps its own.
    """
    if type(rng) is not random.Random:
        return rng.shuffle
    getrandbits = rng.getrandbits

    def shuffle(x: list[Any]) -> None:
        for i in range(len(x) - 1, 0, -1):
            k = _BIT_LENGTHS[i]
            j = getrandbits(k)
            while j > i:
                j = getrandbits(k)
            x[i], x[j] = x[j], x[i]

    return shuffle


_BIT_LENGTHS = tuple((i + 1).bit_length() for i in range(64))  # [i]: bits of a draw below i + 1


def _top_of_shuffled_deck(rng: random.Random, k: int) -> list[int]:
    """The first ``k`` cards of a uniformly shuffled deck (card indices); see :func:`_deal`."""
    return [bit.bit_length() - 1 for bit in _deal(rng, k)[0]]


def _deal(rng: random.Random, k: int) -> tuple[list[int], list[int]]:
    """The first ``k`` cards of a uniformly shuffled deck, and the rest of the deck in the
    order of the card indices, both as one-card masks (``1 << index``).

    One random number, drawn exactly uniformly below 52·51·…·(52-k+1) by rejection on
    getrandbits, read as mixed-radix digits: each digit picks one of the cards still in
    the deck. One rng call instead of k, and no float rounding anywhere. The rest is what
    a draw shuffles into the stock (HandState._draw).
    """
    span = _ORDERED_DEALS[k]
    bits = span.bit_length()
    r = rng.getrandbits(bits)
    while r >= span:
        r = rng.getrandbits(bits)
    deck = list(_CARD_BITS)
    out = []
    for left in range(52, 52 - k, -1):
        r, j = divmod(r, left)
        out.append(deck.pop(j))
    return out, deck


_CARD_BITS = tuple(1 << c for c in DECK)
# _ORDERED_DEALS[k]: how many ordered sequences of k distinct cards a deck holds
_ORDERED_DEALS = [1]
for _i in range(52):
    _ORDERED_DEALS.append(_ORDERED_DEALS[-1] * (52 - _i))
del _i
