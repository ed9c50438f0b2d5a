"""Small helpers shared by the engine tests: cards as text, seeded random hands."""

from __future__ import annotations

import random
from typing import Any

from games.engine import HandState, RandomBot, Rules
from games.engine.cards import CARD_NAMES, mask_of, parse_card, parse_suit
from games.engine.legal import TrickPlay

NAMES = ("ann", "ben", "cal", "dee", "eve", "fay", "gus", "hal")


def m(text: str) -> int:
    """Mask of space-separated cards: m("AS 10H qc")."""
    return mask_of(parse_card(t) for t in text.split())


def names(mask: int) -> set[str]:
    return {CARD_NAMES[c] for c in range(52) if mask >> c & 1}


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def legal(
    hand: str, trick: str = "", trump: str = "H", rules: Rules | None = None, **kw: Any
) -> set[str]:
    """Legal cards of ``hand`` facing ``trick`` (cards in play order)."""
    tp = TrickPlay.situation(
        m(hand),
        parse_suit(trump),
        rules or Rules(),
        cards(trick),
        kw.get("last", False),
        kw.get("won", 0),
        m(kw.get("dead", "")),
        kw.get("others_void", False),
    )
    return names(tp.legal())


def reasons(
    hand: str, trick: str = "", trump: str = "H", rules: Rules | None = None, **kw: Any
) -> dict[str, str]:
    tp = TrickPlay.situation(
        m(hand),
        parse_suit(trump),
        rules or Rules(),
        cards(trick),
        kw.get("last", False),
        kw.get("won", 0),
        m(kw.get("dead", "")),
        kw.get("others_void", False),
    )
    return {CARD_NAMES[c]: r for c, r in tp.reasons().items()}


def random_hand(
    seed: int,
    n_players: int = 4,
    rules: Rules | None = None,
    *,
    dealer: int | None = None,
    carry: int = 0,
    excused: tuple[str, ...] = (),
) -> HandState:
    """A hand played to the end by random bots, all randomness from ``seed``."""
    chooser = random.Random(f"choose {seed}")
    players = NAMES[:n_players]
    d = chooser.randrange(n_players) if dealer is None else dealer
    # the hand's own rng serves the deal and the draw only, so replay(seed) can follow
    state = HandState.new(
        players, d, rules or Rules(), random.Random(seed), carry=carry, excused=excused
    )
    bot = RandomBot(random.Random(f"bot {seed}"))
    while state.phase != "done":
        player = chooser.choice(state.awaiting)
        state.apply(bot.act(state.view_for(player)))
    return state


def conserved(result: dict[str, Any], carry: int) -> bool:
    """The money identities of HAND_RECORD.md."""
    pot = result["pot"]
    kept = pot - sum(result["payouts"].values())
    return (
        carry + sum(result["antes"].values()) == pot
        and kept >= 0
        and result["next_carry"] == kept + sum(result["penalties"].values())
        and all(v > 0 for v in result["payouts"].values())
        and all(v > 0 for v in result["penalties"].values())
    )


class _RiggedRandom(random.Random):
    """A Random whose first getrandbits() is a chosen number: HandState.new draws the
    whole deal from that one number (deck._top_of_shuffled_deck); later draws (the stock)
    come from an ordinary seeded generator."""

    def __init__(self, first: int, seed: int = 0) -> None:
        super().__init__(seed)
        self._first: int | None = first

    def getrandbits(self, k: int) -> int:
        if self._first is not None:
            first, self._first = self._first, None
            return first
        return super().getrandbits(k)


def rigged_deal(
    players: tuple[str, ...] | list[str],
    dealer: int,
    hands: dict[str, str],
    rules: Rules | None = None,
    *,
    seed: int = 0,
    **kw: Any,
) -> HandState:
    """A digital hand dealt exactly ``hands`` (each player's cards in the order dealt;
    the dealer's last card is the up-card, R2)."""
    n = len(players)
    per_seat = [cards(hands[p]) for p in players]
    size = len(per_seat[0])
    deck = [per_seat[(dealer + 1 + k) % n][k // n] for k in range(n * size)]
    left = list(range(52))
    r, scale = 0, 1
    for i, card in enumerate(deck):
        j = left.index(card)
        left.pop(j)
        r += j * scale
        scale *= 52 - i
    return HandState.new(players, dealer, rules or Rules(), _RiggedRandom(r, seed), **kw)
