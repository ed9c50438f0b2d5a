"""The expert bot: determinized Monte Carlo search from one seat's view (PIMC).

:class:`ExpertBot` acts, like every bot, on ``HandState.view_for(seat)`` alone, so it
cannot peek. For each decision it samples *determinizations*: the cards it cannot see
dealt to the other players consistently with what the seat knows —

- its own hand and discards, every card played, an up-card set aside, and the up-card
  still in the dealer's hand (everybody saw it);
- voids shown in play: a player who did not follow suit holds none of the led suit; one
  who neither followed nor trumped where a trump was forced holds no trump (R19–R22,
  R26);
- how many cards each player holds, and for players who already declared PLAY a hand
  that the field's own declaring rule would play (a little rejection sampling);
- the seats' levels, as the table shows them (``field``: player → level; a person or an
  unnamed seat is taken for the heuristic): a careful seat (:class:`CarefulBot`) that
  declared holds a hand class its table plays (PLAY) or does not (PASS) from the
  position it declared in, and is re-dealt until it does (a few tries); in trick play
  its cards and those it played must still make a class it plays.

Each option is then played out in every sample with the engine's own legality
(:class:`~games.engine.legal.TrickPlay`) and a fast playout policy for everyone, the same
samples for every option (common random numbers); the option with the best mean gain
over passing wins. While declaring, the options are PASS (gain 0) and PLAY with the
field's discard or every side card; the players still to declare follow their level's
rule, and the draw is dealt from the sampled stock. Declaring samples 48 worlds, then 32
more at a time while PLAY against PASS is a close call (within 2.5 standard errors), up
to ``declare_samples`` playouts (× 4 / players at a bigger table): a clear hand costs
little, a close one gets the samples. (More samples did not help: 4,096 playouts per
declaration gave no larger edge over careful players than 256; the playout policy and
the field model limit the expert, not the sampling. Split by decision, against careful
players at four: the expert's declarations with the careful bot's card play gained
+0.02 ± 0.02 chips/hand over the careful bot, its card play with careful declarations
+0.06 ± 0.02, over 2,400 duplicate deals each.) In trick play the options are the legal cards.

Gain over passing, per playout: the pot when the seat takes most tricks alone (R33), a
share of it under ``split_pot: "divide"``, minus what a bourré costs (R36, R37), minus a
second ante under ``double_ante``. Sample counts depend on the samples alone, never on
the clock, so the same view and seed give the same decision on any machine; they are
sized for a p95 ≤ 50 ms CPU per decision (bench/bots.py).

:meth:`ExpertBot.appraise` returns every option with its mean gain (an :class:`Appraisal`,
best first); ``act`` plays the first. A coach reads the same appraisal, so a hint is what
the expert would do from the same view, never from hidden cards.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from .bots import (
    _BASE_NEED,
    _DRAW_GAIN,
    _NEED_PER_OPPONENT,
    _PLAY_RATE,
    CarefulBot,
    HeuristicBot,
    _check_turn,
    _declare_choice,
    _mask,
    careful_plays,
    class_index,
)
from .bots import (
    _cards as _bits,
)
from .cards import ABOVE, CARD_LOOKUP, CARD_NAMES, SUIT_MASKS, parse_suit
from .careful_table import CAREFUL_RATES
from .contracts import Action, SeatView
from .legal import TrickPlay
from .rules import Rules

__all__ = ["BOT_LEVELS", "Appraisal", "ExpertBot", "Option", "make_bot"]

_FULL = (1 << 52) - 1


def _cheapest(mask: int, trump_mask: int) -> int:
    """The card we miss least: the lowest side card, else the lowest trump."""
    side = mask & ~trump_mask or mask
    best, best_rank = -1, 13
    for base in (0, 13, 26, 39):
        suit = side >> base & 0x1FFF
        if suit:
            rank = (suit & -suit).bit_length() - 1
            if rank < best_rank:
                best, best_rank = base + rank, rank
    return best


def _playout_card(tp: TrickPlay) -> int:
    """The field's policy (HeuristicBot.choose_card) on masks, for every seat in a
    playout, each knowing its own hand, its own discards and the cards played."""
    legal = tp.legal()
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    p = tp.to_act
    tm = tp.trump_mask
    unknown = ~(tp.dead | tp.private_dead[p] | tp.hands[p])  # what this seat cannot see
    if not tp.trick:
        trumps = legal & tm
        top = 0
        for c in _bits(trumps):
            if not ABOVE[c] & unknown:
                top |= 1 << c
        if top and trumps & (trumps - 1):
            return top.bit_length() - 1
        side_tops = [c for c in _bits(legal & ~tm) if not ABOVE[c] & unknown]
        if side_tops:
            return max(side_tops, key=lambda c: c % 13)
        if top:
            return top.bit_length() - 1
        return _cheapest(legal, tm)
    winners = legal & tp.beaters[tp.win]
    if not winners:
        return _cheapest(legal, tm)
    if len(tp.trick) == tp.n_active - 1:
        return _cheapest(winners, tm)
    sure = 0
    for c in _bits(winners):
        threats = ABOVE[c] if (1 << c) & tm else ABOVE[c] | tm
        if not threats & unknown:
            sure |= 1 << c
    if sure:
        return _cheapest(sure, tm)
    if not tp.tricks_won[p]:
        trumps = winners & tm
        if trumps:
            return trumps.bit_length() - 1
        return max(_bits(winners), key=lambda c: c % 13)
    return _cheapest(winners, tm)


def _finish(tp: TrickPlay) -> None:
    while tp.trick_no < tp.hand_size:
        tp.play(_playout_card(tp))


class Option(NamedTuple):
    """One thing the seat may do, and what it is worth: ``gain`` is the mean over
    ``samples`` sampled deals of the chips it wins over passing (negative: it loses)."""

    action: Action
    gain: float
    samples: int


class Appraisal(NamedTuple):
    """The seat's options, best first, and the table's ante (gains in antes = gain / ante)."""

    options: tuple[Option, ...]
    ante: int


class _Seat:
    """What the seat knows, parsed once from its view."""

    def __init__(self, view: SeatView, field: Mapping[str, str] | None = None) -> None:
        self.players: list[str] = list(view["players"])
        # how each seat declares: its level (careful, easy, else the heuristic's rule)
        self.kinds = [(field or {}).get(p, "normal") for p in self.players]
        self.n = len(self.players)
        self.seat_of = {p: i for i, p in enumerate(self.players)}
        self.me = self.seat_of[view["seat"]]
        self.dealer = self.seat_of[view["dealer"]]
        self.rules = Rules.from_dict(view.get("rules") or {})
        self.trump = parse_suit(view["trump"])
        self.tm = SUIT_MASKS[self.trump]
        self.hand = _mask(view["hand"])
        self.own_discards = _mask(view.get("own_discards") or [])
        self.up = CARD_LOOKUP[view["up_card"]]
        self.up_dead = bool(view.get("up_card_dead"))
        self.pot = int(view.get("pot") or 0)
        self.ante = self.rules.ante
        self._careful: dict[tuple[int, int, int], bool] = {}
        self.plays: list[tuple[int, int]] = []
        for trick in view.get("tricks_played") or []:
            self.plays.extend(
                (self.seat_of[x["player"]], CARD_LOOKUP[x["card"]]) for x in trick["cards"]
            )
        self.plays.extend(
            (self.seat_of[x["player"]], CARD_LOOKUP[x["card"]]) for x in view.get("trick") or []
        )
        self.played = 0
        self.played_by = [0] * self.n
        for s, card in self.plays:
            self.played |= 1 << card
            self.played_by[s] |= 1 << card
        # what the field (HeuristicBot.discards) keeps: trumps and side aces
        self.good = self.tm | sum(1 << (suit * 13 + 12) for suit in range(4))

    def careful_plays(self, s: int, hand: int, playing: int, left: int) -> bool:
        """Would the careful seat ``s`` PLAY ``hand`` with ``playing`` opponents in and
        ``left`` players still to declare?"""
        if s == self.dealer and self.up % 13 == 12:
            return True  # the dealer with an Ace up must play (R9)
        key = (class_index(hand, self.trump), playing, left)
        plays = self._careful.get(key)
        if plays is None:
            pot = self.pot or self.n * self.ante
            plays = careful_plays(CAREFUL_RATES, self.n, *key, pot, self.rules)
            self._careful[key] = plays
        return plays

    def field_plays(self, s: int, hand: int, playing: int, left: int) -> bool:
        """Would seat ``s``, by its level, PLAY ``hand`` in that position?"""
        if self.kinds[s] == "careful":
            return self.careful_plays(s, hand, playing, left)
        if s == self.dealer and self.up % 13 == 12:
            return True
        expected = playing + _PLAY_RATE * left
        boldness = 0.45 if self.kinds[s] == "easy" else 0.0
        rules = self.rules
        discard = HeuristicBot.discards(hand, self.trump, 0, rules.discard_limit, expected)
        rest = hand
        for c in discard:
            rest &= ~(1 << c)
        value = HeuristicBot.estimate(rest, self.trump, expected) + _DRAW_GAIN * len(discard)
        return value >= _BASE_NEED + _NEED_PER_OPPONENT * expected - boldness

    def declared_positions(self, view: SeatView) -> dict[int, tuple[int, int]]:
        """Each seat that declared: (opponents playing, players still to declare) when it
        did, from the public order of declarations."""
        declarations = view.get("declarations") or {}
        order = [(self.dealer + 1 + i) % self.n for i in range(self.n)]
        out: dict[int, tuple[int, int]] = {}
        playing = 0
        for pos, s in enumerate(order):
            said = declarations.get(self.players[s])
            if said is None:
                continue
            out[s] = (playing, self.n - 1 - pos)
            if said == "play":
                playing += 1
        return out

    def gain(self, tricks: Sequence[int], active: Sequence[int]) -> float:
        """Gain over passing when the hand ends with ``tricks`` (by seat)."""
        rules = self.rules
        mine = tricks[self.me]
        cost = self.pot if rules.pot_limit is None else min(self.pot, rules.pot_limit)
        if not mine:
            return -cost
        best = max(tricks[s] for s in active)
        if mine < best:
            return 0.0
        tied = sum(1 for s in active if tricks[s] == best)
        take = cost if rules.limit_caps_winner else self.pot
        if tied == 1:
            return take
        return take / tied if rules.split_pot == "divide" else 0.0

    def voids(self, n_active: int) -> list[int]:
        """Suits (bit per suit) each seat is known to hold none of, from the play."""
        void = [0] * self.n
        trump = self.trump
        undertrump = self.rules.undertrump_required
        i = 0
        plays = self.plays
        while i < len(plays):
            trick = plays[i : i + n_active]
            led = trick[0][1] // 13
            trumped = False
            for seat, card in trick[1:]:
                suit = card // 13
                if suit != led:
                    void[seat] |= 1 << led
                    if suit != trump and (led == trump or undertrump or not trumped):
                        void[seat] |= 1 << trump
                    if suit == trump:
                        trumped = True
            i += n_active
        return void


class _Want(NamedTuple):
    """What a sampled hand must look like: ``size`` cards with ``fixed`` among them, none
    of the ``void`` suits (bit per suit), ``n_good`` of them from ``good`` (the cards the
    field keeps when it discards: trumps and side aces) and the rest from ``rest``."""

    seat: int
    size: int
    fixed: int = 0
    void: int = 0
    good: int = 0
    n_good: int = 0
    rest: int = _FULL


def _deal(rng: random.Random, pool: list[int], wants: Sequence[_Want]) -> dict[int, int] | None:
    """Deal ``pool`` cards as ``wants`` say; None when this shuffle cannot meet them."""
    total = sum(w.size - w.fixed.bit_count() for w in wants)
    plain = all(not w.void and not w.n_good and w.rest == _FULL for w in wants)
    # a random order of just enough cards (all of them when constraints may skip some)
    order = rng.sample(pool, min(total, len(pool)) if plain else len(pool))
    taken = 0
    out: dict[int, int] = {}
    for w in sorted(wants, key=lambda w: (-w.n_good, -w.void.bit_count())):
        hand = w.fixed
        left = w.size - w.fixed.bit_count()
        for allowed, need in ((w.good, min(w.n_good, left)), (w.rest, None)):
            if need is None:
                need = w.size - hand.bit_count()
            for card in order:
                if need <= 0:
                    break
                bit = 1 << card
                if taken & bit or not allowed & bit or w.void >> (card // 13) & 1:
                    continue
                hand |= bit
                taken |= bit
                need -= 1
            if need > 0:
                return None
        out[w.seat] = hand
    return out


class ExpertBot:
    """Determinized Monte Carlo search from the seat's view (see the module docstring).

    ``samples`` scales the work: ``declare_samples`` determinizations per declaration,
    ``play_samples`` playouts per decision spread over the legal cards.
    """

    def __init__(
        self,
        rng: random.Random | None = None,
        *,
        declare_samples: int = 512,
        play_samples: int = 256,
        field: Mapping[str, str] | None = None,
    ) -> None:
        self.rng = rng if rng is not None else random.Random()
        self.declare_samples = declare_samples
        self.play_samples = play_samples
        # the other seats' levels, as the table shows them (a person: "normal")
        self.field = dict(field or {})

    def act(self, view: SeatView) -> Action:
        return self.appraise(view).options[0].action

    def appraise(self, view: SeatView) -> Appraisal:
        """Every option the seat has, with its estimated gain over passing, best first:
        ``options[0]`` is what :meth:`act` plays. What a coach shows (games/digital
        hints): the same view and seed give the same appraisal."""
        _check_turn(view)
        # the bot's own randomness, drawn afresh per decision from its rng
        rng = random.Random(self.rng.getrandbits(64))
        seat = _Seat(view, self.field)
        if view["phase"] == "play":
            return self.appraise_cards(view, seat, rng)
        return self.declare(view, seat, rng)

    # -- trick play ----------------------------------------------------------------------

    def appraise_cards(self, view: SeatView, seat: _Seat, rng: random.Random) -> Appraisal:
        """The legal cards by their gain over sampled deals of the unseen cards: each
        sample gives the field cards that fit what the seat knows (:func:`_field_model`),
        and every option is played out from the same sample."""
        player = view["seat"]
        options = _bits(_mask(view["legal"]))
        if len(options) == 1:
            only: Action = {"type": "card", "player": player, "card": CARD_NAMES[options[0]]}
            return Appraisal((Option(only, 0.0, 0),), seat.ante)
        active = [seat.seat_of[p] for p in view["active"]]
        pool, wants = _field_model(view, seat, active)
        checks = _played_checks(view, seat, wants)
        seen = _FULL
        for c in pool:
            seen &= ~(1 << c)
        template = _play_so_far(seat, active)
        rounds = max(self.play_samples // len(options), 8)
        totals = dict.fromkeys(options, 0.0)
        for _ in range(rounds):
            hands = self._field_hands(rng, pool, wants, seen, checks)
            hands[seat.me] = seat.hand
            now = [hands.get(s, 0) for s in range(seat.n)]
            for card in options:
                branch = template.copy()
                branch.hands = list(now)
                branch.play(card)
                _finish(branch)
                totals[card] += seat.gain(branch.tricks_won, active)
        ranked = sorted(options, key=lambda c: (-totals[c], c))
        return Appraisal(
            tuple(
                Option(
                    {"type": "card", "player": player, "card": CARD_NAMES[c]},
                    totals[c] / rounds,
                    rounds,
                )
                for c in ranked
            ),
            seat.ante,
        )

    def _field_hands(
        self,
        rng: random.Random,
        pool: list[int],
        wants: list[_Want],
        seen: int,
        checks: list[tuple[_Want, Callable[[int], bool]]],
    ) -> dict[int, int]:
        """One sample of the other active players' cards in trick play (a method so that
        bench/bots.py's all-seeing yardstick can deal the true ones instead)."""
        hands = _sample_hands(rng, pool, wants)
        if checks:
            _redeal_checked(rng, seen, hands, checks)
        return hands

    # -- declaring -----------------------------------------------------------------------

    def declare(self, view: SeatView, seat: _Seat, rng: random.Random) -> Appraisal:
        """PASS (gain 0, when the seat may pass) and PLAY with each candidate discard,
        best first; PASS ranks first unless some PLAY gains more than nothing."""
        player = view["seat"]
        declare = _declare_choice(view)
        keep = _mask(declare["keep"])
        limit = declare["max_discard"]
        expected = HeuristicBot.expected_opponents(view)
        hand = seat.hand
        tm = seat.tm
        candidates: list[list[int]] = []
        for discard in (
            HeuristicBot.discards(hand, seat.trump, keep, limit, expected),
            sorted(_bits(hand & ~tm & ~keep), key=lambda c: c % 13)[:limit],
        ):
            if discard not in candidates:
                candidates.append(discard)
        totals = [0.0] * len(candidates)
        squares = [0.0] * len(candidates)
        # a bigger table costs more per world: the same budget as four players
        most = max(self.declare_samples * 4 // max(seat.n, 4) // len(candidates), 8)
        rounds = 0
        while rounds < most:
            # a first batch, then more only while PLAY against PASS is a close call
            batch = min(_FIRST_WORLDS if not rounds else _MORE_WORLDS, most - rounds)
            for _ in range(batch):
                world = self._world(view, seat, rng)
                for i, discard in enumerate(candidates):
                    g = self._play_declared(view, seat, world, discard)
                    totals[i] += g
                    squares[i] += g * g
            rounds += batch
            if not declare["can_pass"] or _clear(totals, squares, rounds):
                break
        # stable: among equal gains the first candidate (the field's own discard) leads
        ranked = sorted(range(len(candidates)), key=lambda i: -totals[i])
        plays = [
            Option(
                {
                    "type": "play",
                    "player": player,
                    "discard": [CARD_NAMES[c] for c in candidates[i]],
                },
                totals[i] / rounds,
                rounds,
            )
            for i in ranked
        ]
        if not declare["can_pass"]:
            return Appraisal(tuple(plays), seat.ante)
        passing = Option({"type": "pass", "player": player}, 0.0, rounds)
        # by gain; PASS before a PLAY that gains no more (nothing risked for nothing)
        ranked_all = sorted([passing, *plays], key=lambda o: (-o.gain, o is not passing))
        return Appraisal(tuple(ranked_all), seat.ante)

    def _world(
        self, view: SeatView, seat: _Seat, rng: random.Random
    ) -> tuple[dict[int, int], list[int]]:
        """Sampled hands of the other players (as dealt) and the stock, in order."""
        hs = seat.rules.hand_size
        declarations = view.get("declarations") or {}
        up_bit = 1 << seat.up
        known = seat.hand | up_bit
        pool = _bits(_FULL & ~known)
        counts = view.get("discard_counts") or {}
        good = seat.good
        wants = []
        checks: list[tuple[_Want, Callable[[int], bool]]] = []
        positions = seat.declared_positions(view)
        for s in range(seat.n):
            if s == seat.me:
                continue
            fixed = up_bit if s == seat.dealer else 0
            name = seat.players[s]
            said = declarations.get(name)
            if said == "play" and name in counts:
                # the field discarded exactly its side cards other than aces
                k = counts[name]
                wants.append(_Want(s, hs, fixed, 0, good, hs - k, ~good & _FULL | fixed))
            else:
                wants.append(_Want(s, hs, fixed))
            if said is not None and seat.kinds[s] == "careful":
                # a careful seat's declaration says which hand classes it can hold
                checks.append((wants[-1], _declared_check(seat, s, said == "play", positions)))
        dealt = None
        for _try in range(6):
            dealt = _deal(rng, pool, wants)
            if dealt is not None:
                break
        if dealt is None:
            dealt = _deal(rng, pool, [_Want(w.seat, w.size, w.fixed) for w in wants])
            assert dealt is not None  # no constraints: always enough cards
        hands = dealt
        if checks:
            _redeal_checked(rng, known, hands, checks)
        used = known
        for mask in hands.values():
            used |= mask
        stock = _bits(_FULL & ~used)
        # the top of the shuffled stock: at most every player's whole hand is drawn
        return hands, rng.sample(stock, min(len(stock), hs * seat.n))

    def _play_declared(
        self,
        view: SeatView,
        seat: _Seat,
        world: tuple[dict[int, int], list[int]],
        discard: list[int],
    ) -> float:
        """Gain over passing of PLAY with ``discard`` in one sampled world."""
        # radon D: one simulated hand, declare → draw → play, read top to bottom like state.py
        hands0, stock0 = world
        rules = seat.rules
        declarations = view.get("declarations") or {}
        order = [(seat.dealer + 1 + i) % seat.n for i in range(seat.n)]
        ace_up = seat.up % 13 == 12
        hands = dict(hands0)
        hands[seat.me] = seat.hand
        playing: list[int] = []
        discards: dict[int, int] = {}
        for pos, s in enumerate(order):
            name = seat.players[s]
            if s == seat.me:
                playing.append(s)
                discards[s] = _mask([CARD_NAMES[c] for c in discard])
                continue
            said = declarations.get(name)
            if said == "pass":
                continue
            left = sum(1 for t in order[pos + 1 :] if seat.players[t] not in declarations)
            expected = len(playing) + _PLAY_RATE * left
            if said == "play" or (s == seat.dealer and ace_up):
                plays = True
            else:
                plays = seat.field_plays(s, hands[s], len(playing), left)
            if plays:
                playing.append(s)
                keep = (
                    1 << seat.up if s == seat.dealer and not rules.dealer_may_discard_upcard else 0
                )
                cards = HeuristicBot.discards(
                    hands[s], seat.trump, keep, rules.discard_limit, expected
                )
                discards[s] = _mask([CARD_NAMES[c] for c in cards])
        if len(playing) == 1:
            return self._uncontested(seat)
        stock = list(stock0)
        spare: list[int] = []
        for s in playing:
            d = discards[s]
            k = d.bit_count()
            hands[s] &= ~d
            if len(stock) < k:
                stock.extend(spare)
                spare = []
            drawn = stock[:k]
            del stock[:k]
            for c in drawn:
                hands[s] |= 1 << c
            spare.extend(_bits(d & ~(1 << seat.up)))
        up_dead = seat.dealer not in playing or bool(discards.get(seat.dealer, 0) >> seat.up & 1)
        private = [discards.get(s, 0) for s in range(seat.n)]
        start = [hands.get(s, 0) if s in playing else 0 for s in range(seat.n)]
        tp = TrickPlay(
            seat.n, playing, start, seat.trump, rules, private, 1 << seat.up if up_dead else 0
        )
        if not up_dead:
            tp.shown[seat.dealer] = 1 << seat.up
        _finish(tp)
        extra = rules.ante if rules.double_ante else 0
        return seat.gain(tp.tricks_won, playing) - extra

    @staticmethod
    def _uncontested(seat: _Seat) -> float:
        rules = seat.rules
        cost = seat.pot if rules.pot_limit is None else min(seat.pot, rules.pot_limit)
        return float(cost if rules.limit_caps_winner else seat.pot)


# Declaring: worlds sampled first, then per batch while the call is close (PLAY's best
# mean gain within 2.5 standard errors of passing), up to ``declare_samples`` playouts.
_FIRST_WORLDS = 48
_MORE_WORLDS = 32
_CLEAR = 2.5


def _clear(totals: list[float], squares: list[float], rounds: int) -> bool:
    """Is the best PLAY clearly better or clearly worse than passing (gain 0)?"""
    best = max(range(len(totals)), key=lambda i: totals[i])
    mean = totals[best] / rounds
    var = max(squares[best] / rounds - mean * mean, 0.0)
    return abs(mean) * math.sqrt(rounds) > _CLEAR * math.sqrt(var) + 1e-9


def _declared_check(
    seat: _Seat, s: int, played: bool, positions: dict[int, tuple[int, int]]
) -> Callable[[int], bool]:
    """Does a sampled hand fit careful seat ``s``'s declaration (PLAY or PASS) in the
    position it declared from? By hand class, worked out once per class."""
    playing, left = positions.get(s, (0, seat.n - 1))
    fits = [False] * 10
    for cls, example in enumerate(_CLASS_EXAMPLES):
        hand = _example_hand(example, seat.trump)
        fits[cls] = seat.careful_plays(s, hand, playing, left) == played
    trump = seat.trump
    return lambda hand: fits[class_index(hand, trump)]


# One hand of each class (botmatch.HAND_CLASSES, in order): trumps by rank, then a side
# ace or a low side card; ``_example_hand`` puts them in the trump suit and another.
_CLASS_EXAMPLES: tuple[tuple[tuple[int, ...], bool], ...] = (
    ((), False),
    ((), True),
    ((3,), False),
    ((3,), True),
    ((10,), False),
    ((10,), True),
    ((12,), False),
    ((1, 3), False),
    ((12, 1), False),
    ((1, 3, 5), False),
)


def _example_hand(example: tuple[tuple[int, ...], bool], trump: int) -> int:
    ranks, side_ace = example
    hand = 0
    for r in ranks:
        hand |= 1 << (trump * 13 + r)
    other = (trump + 1) % 4
    if side_ace:
        hand |= 1 << (other * 13 + 12)
    return hand


def _played_checks(
    view: SeatView, seat: _Seat, wants: list[_Want]
) -> list[tuple[_Want, Callable[[int], bool]]]:
    """In trick play, a careful seat that played was dealt a class its table plays: its
    cards now and those it played (drawn ones among them) must make such a class."""
    declarations = view.get("declarations") or {}
    positions = seat.declared_positions(view)
    checks: list[tuple[_Want, Callable[[int], bool]]] = []
    for want in wants:
        s = want.seat
        if seat.kinds[s] != "careful" or declarations.get(seat.players[s]) != "play":
            continue
        checks.append((want, _with_played(_declared_check(seat, s, True, positions), seat, s)))
    return checks


def _with_played(fits: Callable[[int], bool], seat: _Seat, s: int) -> Callable[[int], bool]:
    played = seat.played_by[s]
    return lambda hand: fits(hand | played)


def _redeal_checked(
    rng: random.Random,
    known: int,
    hands: dict[int, int],
    checks: list[tuple[_Want, Callable[[int], bool]]],
) -> None:
    """Re-deal, one at a time, the hands that do not fit their seat's declaration, from
    their own cards and those nobody holds (a few tries each, the others kept): careful
    seats that played hold strong hands, those that passed weak ones."""
    for want, fits in checks:
        s = want.seat
        if fits(hands[s]):
            continue
        held = known
        for t, mask in hands.items():
            if t != s:
                held |= mask
        free = _bits(_FULL & ~held)
        for _try in range(12):
            hand = _deal(rng, free, [want])
            if hand is not None and fits(hand[s]):
                hands[s] = hand[s]
                break


def _field_model(view: SeatView, seat: _Seat, active: list[int]) -> tuple[list[int], list[_Want]]:
    """What trick play may sample: the unseen cards, and what each other active player
    must hold (its cards left, the up-card the dealer still shows, its known voids, and
    the good cards it kept, since the field discards all but trumps and side aces)."""
    counts = {seat.seat_of[p]: c for p, c in (view.get("hand_counts") or {}).items()}
    voids = seat.voids(len(active))
    dealer_holds_up = (
        seat.dealer in active
        and not seat.up_dead
        and not seat.played >> seat.up & 1
        and seat.dealer != seat.me
    )
    known = seat.hand | seat.own_discards | seat.played
    if seat.up_dead or dealer_holds_up:
        known |= 1 << seat.up
    pool = _bits(_FULL & ~known)
    discarded = {seat.seat_of[p]: k for p, k in (view.get("discard_counts") or {}).items()}
    good = seat.good
    hs = seat.rules.hand_size
    wants = []
    for s in active:
        if s == seat.me:
            continue
        fixed = 1 << seat.up if s == seat.dealer and dealer_holds_up else 0
        # the field keeps its trumps and side aces: what it did not discard was good
        kept_good = hs - discarded.get(s, hs) - ((seat.played_by[s] | fixed) & good).bit_count()
        wants.append(_Want(s, counts.get(s, 0), fixed, voids[s], good, max(kept_good, 0)))
    return pool, wants


def _play_so_far(seat: _Seat, active: list[int]) -> TrickPlay:
    """The play so far, replayed once: each sample copies this tracker and gives the
    players their sampled cards (what is dead, voids and tricks stay as they were)."""
    private = [0] * seat.n
    private[seat.me] = seat.own_discards
    public = 1 << seat.up if seat.up_dead else 0
    up_held = seat.dealer in active and not seat.up_dead and not seat.played >> seat.up & 1
    start = list(seat.played_by)
    if up_held:
        start[seat.dealer] |= 1 << seat.up
    template = TrickPlay(seat.n, active, start, seat.trump, seat.rules, private, public)
    if up_held:
        template.shown[seat.dealer] = 1 << seat.up
    for _s, card in seat.plays:
        template.play(card)
    return template


def _sample_hands(rng: random.Random, pool: list[int], wants: list[_Want]) -> dict[int, int]:
    """One deal of ``pool`` to the field as ``wants`` asks; when the field's model does
    not fit after a few tries, keep the hard facts only (sizes, the up-card, voids), then
    the sizes and the up-card alone."""
    for _try in range(8):
        hands = _deal(rng, pool, wants)
        if hands is not None:
            return hands
    hands = _deal(rng, pool, [_Want(w.seat, w.size, w.fixed, w.void) for w in wants])
    if hands is None:
        hands = _deal(rng, pool, [_Want(w.seat, w.size, w.fixed) for w in wants])
        assert hands is not None  # enough unseen cards without voids
    return hands


BOT_LEVELS = ("easy", "normal", "careful", "expert")


def make_bot(
    level: str, rng: random.Random, field: Mapping[str, str] | None = None
) -> HeuristicBot | ExpertBot:
    """The bot of a seat's level: ``easy`` a bold HeuristicBot (plays too many hands, as a
    beginner does), ``normal`` the HeuristicBot, ``careful`` the :class:`CarefulBot`
    (only hands that gain over passing), ``expert`` the :class:`ExpertBot`, which models
    the other seats by ``field`` (player → level; a person or a missing seat plays as
    ``normal``). An unknown level plays as ``normal``."""
    if level == "expert":
        return ExpertBot(rng, field=field)
    if level == "careful":
        return CarefulBot(rng)
    if level == "easy":
        return HeuristicBot(rng, boldness=0.45)
    return HeuristicBot(rng)
