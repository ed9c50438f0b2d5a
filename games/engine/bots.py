"""Bot policies that act from a seat's view (``HandState.view_for``) only: no peeking.

``bot.act(view) -> action dict`` for the seat the view belongs to, whenever that seat is
among ``view["awaiting"]``.

- :class:`RandomBot` picks uniformly among the legal actions (every discard set counts
  as one action).
- :class:`HeuristicBot` plays or passes on an estimate of its tricks (trump length and
  rank, aces, kings) against the opponents it expects (those in, a share of those still
  to declare) and the pot, discards what cannot take a trick,
  and in play takes tricks with cards nobody can beat, cheaply when it can, and
  throws its lowest card otherwise; without a trick yet it fights for one (bourré).
- :class:`CarefulBot` plays cards as the HeuristicBot does but declares PLAY only when
  its hand class (``botmatch.hand_class``), in its position (opponents already in,
  players still to declare), wins more than it is bourréd, by the rates measured in
  ``careful_table.py`` (``python -m games.engine botmatch --mode careful``): the
  expected gain over passing, ``p_win`` × what winning takes − ``p_bourre`` × what a
  bourré costs, must be above nothing.
"""

from __future__ import annotations

import random
from itertools import combinations

from .cards import ABOVE, CARD_NAMES, SUIT_MASKS, parse_card, parse_suit
from .careful_table import CAREFUL_RATES, Cell
from .contracts import Action, DeclareChoice, SeatView
from .legal import trick_winner
from .rules import Rules

__all__ = ["CarefulBot", "HeuristicBot", "RandomBot"]


def _mask(names: list[str]) -> int:
    mask = 0
    for name in names:
        mask |= 1 << parse_card(name)
    return mask


def _cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _check_turn(view: SeatView) -> None:
    if view["seat"] not in view["awaiting"]:
        raise ValueError(f"it is not {view['seat']}'s turn to act")


def _declare_choice(view: SeatView) -> DeclareChoice:
    """The seat's declaring choices: always there while an awaited seat declares."""
    declare = view["declare"]
    assert declare is not None, "a seat awaited while declaring has its choices"
    return declare


class RandomBot:
    """Uniform over legal actions; the rng is injected so matches are reproducible."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random()

    def act(self, view: SeatView) -> Action:
        _check_turn(view)
        player = view["seat"]
        if view["phase"] == "play":
            return {"type": "card", "player": player, "card": self.rng.choice(view["legal"])}
        declare = _declare_choice(view)
        keep = set(declare["keep"])
        cards = [c for c in view["hand"] if c not in keep]
        options: list[Action] = []
        if declare["can_pass"]:
            options.append({"type": "pass", "player": player})
        for k in range(declare["max_discard"] + 1):
            for subset in combinations(cards, k):
                options.append({"type": "play", "player": player, "discard": list(subset)})
        return self.rng.choice(options)


# Rough chance that a trump of each rank (deuce .. ace) takes a trick, and an off-suit
# ace or king. Tuned by `python -m games.engine botmatch --mode heuristic`, not by theory.
_TRUMP_VALUE = (0.3, 0.3, 0.3, 0.32, 0.34, 0.36, 0.38, 0.42, 0.48, 0.55, 0.68, 0.82, 1.0)
_SIDE_ACE = 0.6
_SIDE_KING = 0.25
_DRAW_GAIN = 0.12  # what a fresh card from the stock adds, on average
# How likely a player still to declare is to play (the dealer with an Ace up always does).
_PLAY_RATE = 0.45
# Estimated tricks needed to play, by the number of opponents expected in the hand: a
# player who plays wins the pot with most tricks and pays it when bourréd, so it plays
# when winning is likelier than taking nothing — which takes more against more players.
_BASE_NEED = 0.85
_NEED_PER_OPPONENT = 0.3
_LENGTH_BONUS = 0.2  # each trump beyond the second: length draws the others' trumps
_NO_TRUMP = 0.2


class HeuristicBot:
    """Plays for the pot when its hand is worth it and never gives tricks away.

    Declaring (R9) weighs the hand — trump length and rank, side aces (worth less the
    more opponents may trump them), what a draw adds — against the opponents it expects:
    those already in plus a share of those still to declare (position: the dealer sees
    every declaration, the first player none). A pot that a limit caps for bourrés but
    not for the winner (R37) lowers the bar; a carried pot changes nothing, as winning
    and bourré both scale with it.
    """

    def __init__(self, rng: random.Random | None = None, boldness: float = 0.0) -> None:
        self.rng = rng if rng is not None else random.Random()
        self.boldness = boldness

    def act(self, view: SeatView) -> Action:
        _check_turn(view)
        if view["phase"] == "play":
            card = self.choose_card(view)
            return {"type": "card", "player": view["seat"], "card": CARD_NAMES[card]}
        return self.declare(view)

    # -- declaring -----------------------------------------------------------------------

    def declare(self, view: SeatView) -> Action:
        player = view["seat"]
        trump = parse_suit(view["trump"])
        hand = _mask(view["hand"])
        declare = _declare_choice(view)
        keep = _mask(declare["keep"])
        limit = declare["max_discard"]
        expected = self.expected_opponents(view)
        discard = self.discards(hand, trump, keep, limit, expected)
        value = self.estimate(hand & ~_mask([CARD_NAMES[c] for c in discard]), trump, expected)
        value += _DRAW_GAIN * len(discard)
        if declare["can_pass"] and value < self.need(view, expected):
            return {"type": "pass", "player": player}
        return {"type": "play", "player": player, "discard": [CARD_NAMES[c] for c in discard]}

    @staticmethod
    def discards(hand: int, trump: int, keep: int, limit: int, expected: float) -> list[int]:
        """Every side card but an ace (kings of a guarded suit too, heads-up), lowest
        first, at most ``limit``."""
        tm = SUIT_MASKS[trump]
        junk = []
        for c in _cards(hand & ~tm & ~keep):
            rank = c % 13
            if rank == 12:
                continue
            if rank == 11 and expected <= 1.0 and (hand & SUIT_MASKS[c // 13]).bit_count() > 1:
                continue
            junk.append(c)
        junk.sort(key=lambda c: c % 13)
        return junk[:limit]

    def need(self, view: SeatView, expected: float) -> float:
        """Estimated tricks needed to play (see the class docstring)."""
        need = _BASE_NEED + _NEED_PER_OPPONENT * expected - self.boldness
        limit = (view.get("rules") or {}).get("pot_limit")
        pot = view.get("pot", 0)
        if limit and pot > limit:
            need -= 0.15 * min(pot / limit - 1, 2)  # winning pays more than bourré costs
        return need

    @staticmethod
    def expected_opponents(view: SeatView) -> float:
        """Opponents already playing plus a share of those still to declare."""
        me = view["seat"]
        declarations = view.get("declarations") or {}
        dealer = view.get("dealer")
        ace_up = str(view.get("up_card", ""))[:1] == "A"
        expected = 0.0
        for p in view["players"]:
            if p == me:
                continue
            said = declarations.get(p)
            if said == "play":
                expected += 1
            elif said is None:
                expected += 1.0 if p == dealer and ace_up else _PLAY_RATE
        return expected

    @staticmethod
    def estimate(hand: int, trump: int, expected: float = 1.0) -> float:
        """Tricks the hand may take: trumps by rank and length, side aces (less the more
        opponents may trump them), guarded side kings."""
        tm = SUIT_MASKS[trump]
        value = 0.0
        trumps = _cards(hand & tm)
        for c in trumps:
            value += _TRUMP_VALUE[c % 13]
        value += _LENGTH_BONUS * max(len(trumps) - 2, 0)
        if not trumps:
            value -= _NO_TRUMP  # nothing to stop the others' trumps or to win a trick with
        side_ace = _SIDE_ACE / (1 + 0.4 * max(expected - 1, 0))
        for c in _cards(hand & ~tm):
            if c % 13 == 12:
                value += side_ace
            elif c % 13 == 11 and (hand & SUIT_MASKS[c // 13]).bit_count() > 1:
                value += _SIDE_KING
        return value

    @staticmethod
    def opponents(view: SeatView) -> int:
        """Players who may still play against us: all who have not passed (R10)."""
        passed = set(view["passed"])
        return sum(1 for p in view["players"] if p != view["seat"] and p not in passed)

    # -- trick play ----------------------------------------------------------------------

    def choose_card(self, view: SeatView) -> int:
        legal = _mask(view["legal"])
        if legal & (legal - 1) == 0:
            return legal.bit_length() - 1  # forced
        trump = parse_suit(view["trump"])
        trick = [parse_card(p["card"]) for p in view["trick"]]
        known = _known_cards(view)
        if not trick:
            return self.lead(legal, trump, known)
        winning = trick[trick_winner(trick, trump)]
        beat = ABOVE[winning] | (SUIT_MASKS[trump] if winning // 13 != trump else 0)
        winners = _cards(legal & beat)
        if not winners:
            return _cheapest(_cards(legal), trump)
        if len(trick) == len(view["active"]) - 1:
            return _cheapest(winners, trump)  # last to play: win as cheaply as possible
        sure = [c for c in winners if _unbeatable(c, trump, known)]
        if sure:
            return _cheapest(sure, trump)
        if not view["tricks"].get(view["seat"], 0):
            # no trick yet: bourré looms, so give this one the best chance
            return max(winners, key=lambda c: (c // 13 == trump, c % 13))
        return _cheapest(winners, trump)

    @staticmethod
    def lead(legal: int, trump: int, known: int) -> int:
        tm = SUIT_MASKS[trump]
        trumps = _cards(legal & tm)
        top_trumps = [c for c in trumps if _unbeatable(c, trump, known)]
        if top_trumps and len(trumps) >= 2:
            return max(top_trumps)  # draw the others' trumps
        side_tops = [c for c in _cards(legal & ~tm) if not ABOVE[c] & ~known]
        if side_tops:
            return max(side_tops, key=lambda c: c % 13)
        if top_trumps:
            return max(top_trumps)
        return _cheapest(_cards(legal), trump)


def _known_cards(view: SeatView) -> int:
    """Cards whose whereabouts the seat knows: its hand and everything seen dead."""
    known = _mask(view["hand"]) | _mask(view["own_discards"])
    if view["up_card_dead"]:
        known |= 1 << parse_card(view["up_card"])
    for trick in view["tricks_played"]:
        known |= _mask([p["card"] for p in trick["cards"]])
    return known | _mask([p["card"] for p in view["trick"]])


def _unbeatable(card: int, trump: int, known: int) -> bool:
    """No card that could beat ``card`` is unaccounted for (a side card also fears any
    trump still out: the bot cannot see who is void)."""
    threats = ABOVE[card] if card // 13 == trump else ABOVE[card] | SUIT_MASKS[trump]
    return not threats & ~known


def _cheapest(cards: list[int], trump: int) -> int:
    """The card we miss least: low side cards first, trumps last."""
    return min(cards, key=lambda c: (c // 13 == trump, c % 13))


# -- the careful bot -----------------------------------------------------------------------

_CLASS_ORDER = (
    "no trump",
    "no trump + side ace",
    "one low trump (2-10)",
    "one low trump + side ace",
    "one high trump (J-K)",
    "one high trump + side ace",
    "trump ace alone",
    "two low trumps",
    "two trumps with A or K",
    "three or more trumps",
)


def class_index(hand: int, trump: int) -> int:
    """The hand's class as dealt (an index into ``botmatch.HAND_CLASSES``): trump length
    and rank, a side ace. Here because the careful bot declares by it."""
    trumps = hand & SUIT_MASKS[trump]
    count = trumps.bit_count()
    side_ace = any(hand >> (s * 13 + 12) & 1 for s in range(4) if s != trump)
    if count == 0:
        return 1 if side_ace else 0
    top = (trumps.bit_length() - 1) % 13
    if count == 1:
        if top == 12:
            return 6
        if top >= 9:
            return 5 if side_ace else 4
        return 3 if side_ace else 2
    if count == 2:
        return 8 if top >= 11 else 7
    return 9


def declaring_position(view: SeatView) -> tuple[int, int]:
    """(opponents already playing, players still to declare after this seat): what the
    careful table is keyed by besides the players and the hand class."""
    players = view["players"]
    n = len(players)
    me = players.index(view["seat"])
    dealer = players.index(view["dealer"])
    declarations = view.get("declarations") or {}
    playing = sum(1 for p, said in declarations.items() if said == "play" and p != view["seat"])
    pos = (me - dealer - 1) % n  # the dealer declares last
    left = sum(1 for i in range(pos + 1, n) if players[(dealer + 1 + i) % n] not in declarations)
    return playing, left


def careful_cell(
    rates: dict[tuple[int, int, int, int], Cell], n: int, cls: int, playing: int, left: int
) -> Cell | None:
    """The measured rates for this situation: the exact cell (playing and left capped at
    3), else the class at that many players in whatever position, else None."""
    key = (n, cls, min(playing, 3), min(left, 3))
    cell = rates.get(key)
    if cell is None:
        cell = rates.get((n, cls, -1, -1))
    return cell


def careful_gain(cell: Cell | None, pot: int, rules: Rules) -> float:
    """Expected chips over passing of playing a hand with ``cell``'s rates (R33, R36,
    R37: a limit caps a bourré, and the winner's take when ``limit_caps_winner``)."""
    if cell is None:
        return -1.0  # never measured: a careful player does not gamble
    p_win, p_bourre = cell[0], cell[1]
    cost = pot if rules.pot_limit is None else min(pot, rules.pot_limit)
    take = cost if rules.limit_caps_winner else pot
    extra = rules.ante if rules.double_ante else 0
    return p_win * take - p_bourre * cost - extra


def careful_plays(
    rates: dict[tuple[int, int, int, int], Cell],
    n: int,
    cls: int,
    playing: int,
    left: int,
    pot: int,
    rules: Rules,
) -> bool:
    """The careful declaring rule: PLAY when nobody else can, or when the measured
    rates of this class in this position gain over passing. (The expert's model of a
    careful seat calls this too.)"""
    if not playing and not left:
        return True  # nobody else can play: the pot is ours
    return careful_gain(careful_cell(rates, n, cls, playing, left), pot, rules) > 0


class CarefulBot(HeuristicBot):
    """Plays only hands that win more than they cost (see the module docstring);
    ``rates`` defaults to the committed table (``careful_table.CAREFUL_RATES``), the
    measurement passes another to refine it."""

    def __init__(
        self,
        rng: random.Random | None = None,
        rates: dict[tuple[int, int, int, int], Cell] | None = None,
    ) -> None:
        super().__init__(rng)
        self.rates = CAREFUL_RATES if rates is None else rates

    def wants_to_play(self, view: SeatView) -> bool:
        """Does the table say this hand, here, gains over passing?"""
        hand = _mask(view["hand"])
        cls = class_index(hand, parse_suit(view["trump"]))
        playing, left = declaring_position(view)
        rules = Rules.from_dict(view.get("rules") or {})
        pot = int(view.get("pot") or 0) or rules.ante * len(view["players"])
        return careful_plays(self.rates, len(view["players"]), cls, playing, left, pot, rules)

    def declare(self, view: SeatView) -> Action:
        declare = _declare_choice(view)
        if declare["can_pass"] and not self.wants_to_play(view):
            return {"type": "pass", "player": view["seat"]}
        return self.play_declared(view)

    def play_declared(self, view: SeatView) -> Action:
        """PLAY, discarding as the HeuristicBot does."""
        declare = _declare_choice(view)
        hand = _mask(view["hand"])
        expected = self.expected_opponents(view)
        discard = self.discards(
            hand,
            parse_suit(view["trump"]),
            _mask(declare["keep"]),
            declare["max_discard"],
            expected,
        )
        return {"type": "play", "player": view["seat"], "discard": [CARD_NAMES[c] for c in discard]}
