"""One digital hand: deal → declare → draw → play → done.

:class:`HandState` is driven by JSON-friendly action dicts::

    {"type": "pass", "player": "ann"}
    {"type": "play", "player": "ann", "discard": ["2C", "7D"]}
    {"type": "card", "player": "ann", "card": "AS"}

Illegal actions raise :class:`IllegalAction` (a ValueError) naming the rule, so a
renege cannot happen in digital play. The RNG is injected: :func:`replay` rebuilds the
same hand from the seed and the action log. Each seat's view (:meth:`HandState.view_for`)
holds only what that seat may see; :meth:`HandState.to_record` produces a HAND_RECORD.md
record that :func:`games.engine.verify` accepts with the same result.

This module holds the rules of play: whose turn it is, what is legal, what each action
does. ``actions.py`` holds its vocabulary (phases, stored declarations and actions,
:class:`IllegalAction`, rule texts), ``deck.py`` the deal and the draw (shared with the
verifier), ``hand_view.py`` all it shows outside: seat and spectator views, record, verdict.

Choices where RULES.md is silent:

- The draw is dealt seat by seat in declaration order (clockwise from the dealer's left,
  also under simultaneous declaration), each player discarding just before being
  served, so the discard pile holds the discards of the players served so far (R15).
  The up-card, once set aside (R13), never goes back into a stock. Folded with a passing
  dealer's hand it stays out too, except under ``folded_then_discards``: that house rule
  reshuffles the passers' hands first (the passing dealer's up-card with them, as the
  table gathers the folded cards), then the discards except those of the player being
  served. Once reshuffled the up-card is an unseen card like any other: no longer dead
  (R28), and it may be dealt to the player being served or a later one.
- The dealer forced to play by an Ace up-card (R12) may still discard that Ace when
  ``dealer_may_discard_upcard`` is on (the default): R12 obliges the dealer to play the
  hand, not to keep the card; the Ace is set aside face up (R13) and trump stays.
  With the switch off it may not be discarded, like any up-card.
- A player's own discards stop being dead to them (R28) once they have been reshuffled
  into a new stock: from then on they may be in anyone's hand.
- Under sequential declaration the hand ends uncontested the moment all but one have
  passed (R14), so the dealer may never declare; no draw takes place then.
- Under simultaneous declaration nobody sees who played or how many cards they asked
  for until everybody has declared; the pot shown does not include second antes
  (``double_ante``) until then either.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from . import hand_view
from .actions import (
    CARD_ACTION,
    DECLARE,
    DONE,
    PASS_ACTION,
    PASSED,
    PLAY,
    PLAY_ACTION,
    RULE_TEXT,
    IllegalAction,
    action_dicts,
)
from .cards import (
    _NAMES_0,
    _NAMES_1,
    _NAMES_2,
    _NAMES_3,
    CARD_BIT_LOOKUP,
    CARD_LOOKUP,
    CARD_NAMES,
    CardError,
    card_bits,
    card_names,
    cards_in,
    parse_card,
)
from .contracts import Action, HandRecord, HandResult, PublicView, SeatView, Verdict
from .deck import FOLDED, _deal, run_draw, shuffler
from .errors import BourreError
from .legal import TrickPlay
from .payout import _settle
from .rules import MAX_AMOUNT, Rules

__all__ = ["HandError", "HandState", "replay"]


class HandError(BourreError):
    """The hand cannot be set up: bad players, dealer, carry or excused list."""

    def __init__(
        self,
        message: str,
        code: str = "bad_setup",
        *,
        params: Mapping[str, object] | None = None,
        message_id: str | None = None,
    ) -> None:
        super().__init__(message, code=code, params=params, message_id=message_id)


def _coerce_rules(rules: Rules | Mapping[str, Any] | None) -> Rules:
    if rules is None:
        return Rules()
    if isinstance(rules, Rules):
        return rules
    return Rules.from_dict(rules)


def _check_setup(
    players: Sequence[str], dealer: str | int, carry: int, excused: Iterable[str]
) -> tuple[tuple[str, ...], int, frozenset[int]]:
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise HandError(
            "players must be a list of names", "bad_players", message_id="players_not_list"
        )
    names = tuple(players)
    if not all(type(p) is str and p for p in names):
        raise HandError(
            "player names must be non-empty strings", "bad_players", message_id="players_empty"
        )
    if len(set(names)) != len(names):
        raise HandError(
            "player names must be distinct", "bad_players", message_id="players_not_distinct"
        )
    if not 2 <= len(names) <= 8:
        raise HandError("a hand needs 2 to 8 players (R3)", "bad_players", params={"rule": "R3"})
    if type(dealer) is int and 0 <= dealer < len(names):
        d = dealer
    elif type(dealer) is str and dealer in names:
        d = names.index(dealer)
    else:
        raise HandError("the dealer must be one of the players", "bad_dealer")
    if type(carry) is not int or not 0 <= carry <= MAX_AMOUNT:
        raise HandError(
            f"carry must be a whole number from 0 to {MAX_AMOUNT}",
            "bad_carry",
            params={"max": MAX_AMOUNT},
        )
    ex = set()
    for p in excused:
        if p not in names:
            raise HandError(
                f"excused player {p!r} is not seated",
                "unknown_player",
                params={"player": p},
                message_id="excused_not_seated",
            )
        ex.add(names.index(p))
    return names, d, frozenset(ex)


class HandState:
    """A digital hand in progress. Create with :meth:`new`; drive with :meth:`apply`."""

    __slots__ = (
        "active",
        "carry",
        "dealer",
        "decl",
        "decl_pos",
        "discards",
        "excused",
        "hands",
        "log",
        "n",
        "order",
        "passes",
        "phase",
        "players",
        "private_dead",
        "public_dead",
        "result",
        "rng",
        "rules",
        "seat_of",
        "to_act",
        "tp",
        "trump",
        "up_card",
        "upcard_dead",
        "_legal",
        "_stock",
    )
    players: tuple[str, ...]
    seat_of: dict[str, int]
    n: int
    dealer: int
    rules: Rules
    carry: int
    excused: frozenset[int]
    rng: random.Random
    hands: list[int]  # by seat, as dealt, then as drawn (trick play keeps its own, tp.hands)
    up_card: int
    trump: int
    upcard_dead: bool
    order: tuple[int, ...]  # declaration order, from the dealer's left
    decl: list[int | None]  # by seat: None (not yet), PASSED, or the discard mask
    decl_pos: int
    passes: int
    discards: list[int]
    active: tuple[int, ...]
    private_dead: list[int]
    public_dead: int
    tp: TrickPlay | None
    result: HandResult | None
    log: list[tuple[int, int, int]]  # (kind, seat, card or discard mask)
    phase: str
    # The player to act, or None (hand over, or simultaneous declaring: see awaiting).
    # Kept up to date by every action rather than worked out when read: the web and the
    # bots read it after every card.
    to_act: str | None
    _legal: int  # legal_mask() cached, -1 when stale
    _stock: list[int]  # the undealt cards as one-card masks, lowest first, until the draw

    # -- setup ---------------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        players: Sequence[str],
        dealer: str | int,
        rules: Rules | Mapping[str, Any] | None = None,
        rng: random.Random | int | None = None,
        carry: int = 0,
        excused: Iterable[str] = (),
    ) -> HandState:
        """Shuffle with ``rng`` and deal ``hand_size`` cards one at a time clockwise from
        the dealer's left; the dealer's last card is the up-card (R2, R7).

        ``rng`` is a ``random.Random`` (or an int seed); the engine never draws
        randomness from anywhere else, so the same rng state gives the same hand.
        """
        rules = _coerce_rules(rules)
        names, d, ex = _check_setup(players, dealer, carry, excused)
        if rng is None:
            rng = random.Random()
        elif not isinstance(rng, random.Random):
            rng = random.Random(rng)
        self = cls.__new__(cls)
        n = len(names)
        dealt = n * rules.hand_size
        # The top of a shuffled deck: a uniformly random sequence of distinct cards. The
        # rest of the deck (the stock) is put in random order only if someone draws
        # (see _draw): together that is one uniform shuffle, at half the cost when
        # nobody draws.
        deck, self._stock = _deal(rng, dealt)
        hands = [0] * n
        for i in range(n):
            # one card at a time clockwise from the dealer's left: every n-th card of the
            # deal, one-card masks adding up to the hand
            hands[(d + 1 + i) % n] = sum(deck[i::n])
        self.players = names
        self.seat_of = {p: i for i, p in enumerate(names)}
        self.n = n
        self.dealer = d
        self.rules = rules
        self.carry = carry
        self.excused = ex
        self.rng = rng
        self.hands = hands
        self.up_card = deck[dealt - 1].bit_length() - 1
        self.trump = self.up_card // 13
        self.upcard_dead = False
        self.order = tuple((d + 1 + i) % n for i in range(n))
        self.decl = [None] * n
        self.decl_pos = 0
        self.passes = 0
        self.discards = [0] * n
        self.active = ()
        self.private_dead = [0] * n
        self.public_dead = 0
        self.tp = None
        self.result = None
        self.log = []
        self.phase = DECLARE
        self.to_act = None if rules.declaration == "simultaneous" else names[self.order[0]]
        self._legal = -1
        return self

    @property
    def actions(self) -> list[Action]:
        """Every action applied so far, as normalised action dicts (for replay())."""
        return action_dicts(self.players, self.log)

    # -- whose turn ----------------------------------------------------------------------

    @property
    def simultaneous(self) -> bool:
        return self.rules.declaration == "simultaneous"

    @property
    def awaiting(self) -> list[str]:
        """Every player who may act now."""
        if self.phase == DECLARE and self.simultaneous:
            return [self.players[s] for s in self.order if self.decl[s] is None]
        who = self.to_act
        return [who] if who is not None else []

    @property
    def ace_up(self) -> bool:
        return self.up_card % 13 == 12

    def _must_play(self, seat: int) -> bool:
        return seat == self.dealer and self.ace_up

    # -- legal moves ---------------------------------------------------------------------

    def legal_mask(self) -> int:
        """Legal cards (mask) of the player to act during trick play, else 0."""
        tp = self.tp
        if self.phase != PLAY or tp is None:
            return 0
        if self._legal < 0:
            self._legal = tp.legal()
        return self._legal

    def legal_cards(self, player: str) -> list[str]:
        """Cards ``player`` may play now (empty when it is not their turn to play)."""
        tp = self.tp
        if player != self.to_act or self.phase != PLAY or tp is None:
            return []
        legal = self._legal
        if legal < 0:
            legal = self._legal = tp.legal()
        if not legal & (legal - 1):  # one card (or none): half the legal sets of a hand
            return [CARD_NAMES[legal.bit_length() - 1]] if legal else []
        return [  # card_names(legal), inlined: this is the web's hot path
            *_NAMES_0[legal & 0x1FFF],
            *_NAMES_1[legal >> 13 & 0x1FFF],
            *_NAMES_2[legal >> 26 & 0x1FFF],
            *_NAMES_3[legal >> 39],
        ]

    def illegal_reasons(self, player: str) -> dict[str, str]:
        """For each card ``player`` holds but may not play now, the rule forbidding it."""
        tp = self.tp
        if self.phase != PLAY or tp is None or self.to_act != player:
            return {}
        reasons = tp.reasons()
        return {CARD_NAMES[c]: r for c, r in sorted(reasons.items())}

    def _discardable(self, seat: int) -> int:
        hand = self.hands[seat]
        if seat == self.dealer and not self.rules.dealer_may_discard_upcard:
            hand &= ~(1 << self.up_card)
        return hand

    def legal_actions(self, player: str) -> list[Action]:
        """Every action ``player`` may take now, as action dicts.

        While declaring that is a pass (unless R12 forbids it) and a play for every set
        of at most ``max_discard`` cards to discard.
        """
        seat = self.seat_of.get(player) if type(player) is str else None
        if seat is None or player not in self.awaiting:
            return []
        if self.phase == PLAY:
            return [
                {"type": "card", "player": player, "card": c} for c in card_names(self.legal_mask())
            ]
        actions: list[Action] = []
        if not self._must_play(seat):
            actions.append({"type": "pass", "player": player})
        cards = list(cards_in(self._discardable(seat)))
        limit = self.rules.discard_limit
        for subset in _subsets(cards, limit):
            actions.append(
                {"type": "play", "player": player, "discard": [CARD_NAMES[c] for c in subset]}
            )
        return actions

    # -- applying actions ----------------------------------------------------------------

    # radon D: one entry for every action, the hot card path first and then each check in
    # the order a refusal must name it; split, the order would live in two places
    def apply(self, action: Mapping[str, object]) -> None:
        """Apply one action (an :data:`~.contracts.Action`, or any JSON object, checked here); raise :class:`IllegalAction` when it is not allowed."""
        if self.phase == PLAY and type(action) is dict:
            # The web's hot path: a legal card, by its canonical name, from the player to
            # act, checked against the legal set legal_cards() (or the view) has just
            # worked out. Anything else goes the long way below, which names the problem.
            try:
                text = action["card"]
                player = action["player"]
                kind = action["type"]
            except KeyError:
                pass
            else:
                tp = self.tp
                if (
                    kind == "card"
                    and player == self.to_act
                    and type(text) is str is type(player)
                    and text in CARD_LOOKUP
                    and tp is not None
                ):
                    card = CARD_LOOKUP[text]
                    legal = self._legal
                    if legal < 0:
                        legal = tp.legal()
                    if legal >> card & 1:
                        self._legal = -1
                        turn = tp.to_act
                        tp.play(card)
                        self.log.append((CARD_ACTION, turn, card))
                        if tp.trick_no == tp.hand_size:
                            self._finish()
                        else:
                            self.to_act = self.players[tp.to_act]
                        return
        if type(action) is not dict and not isinstance(action, Mapping):
            raise IllegalAction("an action must be an object", code="bad_action")
        kind = action.get("type")
        player = action.get("player")
        seat = self.seat_of.get(player) if type(player) is str else None
        if seat is None:
            raise IllegalAction(
                f"unknown player {player!r}", code="unknown_player", params={"player": player}
            )
        if self.phase == DONE:
            raise IllegalAction("the hand is over", code="hand_over")
        if kind == "card":
            if self.phase != PLAY:
                raise IllegalAction(
                    "cards are played after everyone has declared",
                    code="wrong_phase",
                    message_id="cards_after_declaring",
                    legal=self._declare_choices(seat),
                )
            text = action.get("card")
            try:
                card = parse_card(text)
            except CardError as exc:
                raise IllegalAction(
                    str(exc), code="bad_card", params=exc.params, message_id=exc.message_id
                ) from None
            self._play_card(seat, card)
            return
        if kind == "pass" or kind == "play":
            if self.phase != DECLARE:
                raise IllegalAction(
                    "declaring is over; play a card",
                    code="wrong_phase",
                    message_id="declaring_over",
                )
            self._check_declarer(seat)
            if kind == "pass":
                self._pass(seat)
            else:
                discard = action.get("discard", [])
                self._play(seat, discard)
            return
        raise IllegalAction(
            f"unknown action type {kind!r}; use pass, play or card",
            code="bad_action",
            params={"kind": str(kind)},
            message_id="unknown_action",
        )

    def push_card(self, card: int) -> None:
        """Play card index ``card`` for the player to act (the fast path of apply())."""
        tp = self.tp
        if self.phase != PLAY or tp is None:
            raise IllegalAction(
                "no card can be played now", code="wrong_phase", message_id="no_card_now"
            )
        legal = self._legal
        if legal < 0:
            legal = tp.legal()
        if not legal >> card & 1:
            self._play_card(tp.to_act, card)  # raises the precise error
        self._legal = -1
        seat = tp.to_act
        tp.play(card)
        self.log.append((CARD_ACTION, seat, card))
        if tp.trick_no == tp.hand_size:
            self._finish()
        else:
            self.to_act = self.players[tp.to_act]

    def _check_declarer(self, seat: int) -> None:
        if self.simultaneous:
            if self.decl[seat] is not None:
                raise IllegalAction(
                    f"{self.players[seat]} has already declared",
                    code="already_declared",
                    rule="R16",
                    params={"player": self.players[seat]},
                )
            return
        expected = self.order[self.decl_pos]
        if seat != expected:
            raise IllegalAction(
                f"it is {self.players[expected]}'s turn to declare, not "
                f"{self.players[seat]}'s (R16: declaring out of turn forfeits your deal)",
                code="out_of_turn",
                rule="R16",
                legal=[self.players[expected]],
                params={"player": self.players[seat], "expected": self.players[expected]},
                message_id="declare_out_of_turn",
            )

    def _declare_choices(self, seat: int) -> list[str]:
        return ["play"] if self._must_play(seat) else ["pass", "play"]

    def _pass(self, seat: int) -> None:
        if self._must_play(seat):
            raise IllegalAction(
                f"R12: {RULE_TEXT['R12']} ({CARD_NAMES[self.up_card]} is up)",
                code="dealer_must_play",
                rule="R12",
                legal=["play"],
                params={"card": CARD_NAMES[self.up_card]},
            )
        self.decl[seat] = PASSED
        self.passes += 1
        self.log.append((PASS_ACTION, seat, 0))
        self._after_declaration()

    def _play(self, seat: int, discard: object) -> None:
        hand = self.hands[seat]
        mask = 0
        if type(discard) is list:
            # the usual spellings of distinct cards in hand (the draw's hot path); anything
            # else is checked again card by card below, to name the first problem
            lookup = CARD_BIT_LOOKUP
            for text in discard:
                if type(text) is not str:
                    mask = -1
                    break
                bit = lookup.get(text, 0)
                if not hand & bit or mask & bit:
                    mask = -1
                    break
                mask |= bit
        else:
            mask = -1
        if mask < 0:
            mask = self._discard_mask(seat, discard)
        limit = self.rules.discard_limit
        if mask.bit_count() > limit:
            raise IllegalAction(
                f"R9: discard at most {limit} cards",
                code="too_many_discards",
                rule="R9",
                params={"limit": limit},
            )
        if mask >> self.up_card & 1 and not self.rules.dealer_may_discard_upcard:
            raise IllegalAction(
                f"R13: {RULE_TEXT['R13']} under these house rules",
                code="cannot_discard_up_card",
                rule="R13",
                legal=card_names(self._discardable(seat)),
            )
        self.decl[seat] = mask
        self.log.append((PLAY_ACTION, seat, mask))
        self._after_declaration()

    def _discard_mask(self, seat: int, discard: object) -> int:
        """The cards ``discard`` names, each checked in turn: the first problem is the error."""
        if isinstance(discard, str) or not isinstance(discard, (list, tuple)):
            raise IllegalAction(
                "discard must be a list of cards", code="bad_action", message_id="discard_not_list"
            )
        hand = self.hands[seat]
        mask = 0
        for text in discard:
            try:
                card = parse_card(text)
            except CardError as exc:
                raise IllegalAction(
                    str(exc), code="bad_card", params=exc.params, message_id=exc.message_id
                ) from None
            bit = 1 << card
            if not hand & bit:
                raise IllegalAction(
                    f"{CARD_NAMES[card]} is not in {self.players[seat]}'s hand",
                    code="card_not_in_hand",
                    legal=card_names(hand),
                    params={"card": CARD_NAMES[card], "player": self.players[seat]},
                )
            if mask & bit:
                raise IllegalAction(
                    f"{CARD_NAMES[card]} is named twice",
                    code="duplicate_card",
                    params={"card": CARD_NAMES[card]},
                )
            mask |= bit
        return mask

    def _after_declaration(self) -> None:
        n = self.n
        if self.simultaneous:
            if any(x is None for x in self.decl):
                return
        elif self.passes < n - 1 and self.decl_pos < n - 1:
            self.decl_pos += 1
            self.to_act = self.players[self.order[self.decl_pos]]
            return
        players_in = [s for s in self.order if self.decl[s] is not None and self.decl[s] != PASSED]
        if self.passes >= n - 1:
            # R14/R40: at most one player left: no draw, no play.
            self.active = tuple(s for s in self.order if self.decl[s] != PASSED)
            if not self.active and self.ace_up:  # pragma: no cover - R12 prevents it
                self.active = (self.dealer,)
            self._finish()
            return
        self.active = tuple(players_in)
        self._draw()
        self.phase = PLAY
        in_play = set(self.active)
        self.tp = TrickPlay(
            n,
            self.active,
            [hand if s in in_play else 0 for s, hand in enumerate(self.hands)],
            self.trump,
            self.rules,
            self.private_dead,
            self.public_dead,
        )
        if not self.upcard_dead and self.decl[self.dealer] != PASSED:
            # R26: everyone sees the dealer still holds the up-card trump until it is played
            self.tp.shown[self.dealer] = 1 << self.up_card
        self.to_act = self.players[self.tp.to_act]
        self._legal = -1

    def _draw(self) -> None:
        # radon D: the draw in table order (R15 stock, refills, up-card), one sequence of events
        up_bit = 1 << self.up_card
        decl, hands, discards = self.decl, self.hands, self.discards
        wants: dict[int, int] = {}
        wanted = 0
        for s in self.active:
            mask = decl[s]
            if mask:
                wants[s] = k = mask.bit_count()
                wanted += k
                discards[s] = mask
                hands[s] &= ~mask
        if decl[self.dealer] == PASSED or discards[self.dealer] & up_bit:
            # R13: set aside face up (or folded with the dealer's hand): dead to everyone.
            self.upcard_dead = True
            self.public_dead = up_bit
        if not wants:
            return  # nobody draws: no stock to shuffle, nothing dead to anyone alone
        # The cards travel as one-card masks (card_bits), in the order of their indices, so
        # the shuffles put them in the same order as they would the indices; k cards
        # join a hand as hand |= sum(cards).
        stock, self._stock = self._stock, []
        shuffle = shuffler(self.rng)
        shuffle(stock)
        if wanted <= len(stock):
            # The stock serves everyone, each taking the next cards in turn (what
            # run_draw does when nothing has to be reshuffled), without its bookkeeping.
            pos = 0
            for s, k in wants.items():
                hands[s] |= sum(stock[pos : pos + k])
                pos += k
            self.private_dead = discards.copy()  # nothing reshuffled: each knows its own
            return
        private_dead = self.private_dead

        def pile_cards(seat: int) -> list[int]:
            return card_bits(discards[seat] & ~up_bit)

        folded: list[int] = []
        refill = self.rules.stock_refill
        if refill == "folded_then_discards" and self.passes:
            # the only house rule that reshuffles folded hands, the passing dealer's
            # up-card with them (see the module docstring)
            for s in self.order:
                if decl[s] == PASSED:
                    folded.extend(card_bits(hands[s]))
        drawn, reshuffled = run_draw(self.order, wants, pile_cards, stock, folded, refill, shuffle)
        for s, cards in drawn.items():
            hands[s] |= sum(cards)
        if FOLDED in reshuffled:
            # folded_then_discards made a stock of the passers' cards: they hold none now
            for s in self.order:
                if decl[s] == PASSED:
                    hands[s] = 0
            if decl[self.dealer] == PASSED:
                self.upcard_dead = False  # back in the stock with the dealer's hand
                self.public_dead = 0
        for s in self.active:
            if s not in reshuffled:
                private_dead[s] = discards[s]

    def _play_card(self, seat: int, card: int) -> None:
        tp = self.tp
        assert tp is not None
        if seat != tp.to_act:
            if self.decl[seat] == PASSED:
                raise IllegalAction(
                    f"{self.players[seat]} passed and is out of this hand (R10)",
                    code="passed_player_played",
                    rule="R10",
                    params={"player": self.players[seat]},
                )
            raise IllegalAction(
                f"it is {self.players[tp.to_act]}'s turn to play, not {self.players[seat]}'s",
                code="out_of_turn",
                rule="R16",
                legal=[self.players[tp.to_act]],
                params={"player": self.players[seat], "expected": self.players[tp.to_act]},
            )
        bit = 1 << card
        hand = tp.hands[seat]
        if not hand & bit:
            raise IllegalAction(
                f"{CARD_NAMES[card]} is not in {self.players[seat]}'s hand",
                code="card_not_in_hand",
                legal=card_names(self.legal_mask()),
                params={"card": CARD_NAMES[card], "player": self.players[seat]},
            )
        legal = self._legal
        if legal < 0:
            legal = tp.legal()
        if not legal & bit:
            rule = tp.reasons().get(card, "R19")
            alternatives = " ".join(card_names(legal))
            raise IllegalAction(
                f"{rule}: {RULE_TEXT.get(rule, 'not allowed')} — you may play {alternatives}",
                code="illegal_card",
                rule=rule,
                legal=card_names(legal),
                params={"card": CARD_NAMES[card], "legal": alternatives},
            )
        self._legal = -1
        tp.play(card)
        self.log.append((CARD_ACTION, seat, card))
        if tp.trick_no >= self.rules.hand_size:
            self._finish()
        else:
            self.to_act = self.players[tp.to_act]

    def _finish(self) -> None:
        self.phase = DONE
        self.to_act = None
        players = self.players
        tricks = None
        if self.tp is not None:
            tricks = {players[s]: self.tp.tricks_won[s] for s in self.active}
        self.result = _settle(
            players,
            players[self.dealer],
            self.rules,
            tricks,
            {players[s] for s in self.order if self.decl[s] == PASSED},
            self.carry,
            {players[s] for s in self.excused},
            [],
            set(),
            self.ace_up,
        )

    # -- results, views and records (the views and records are built in hand_view.py) ---

    def outcome(self) -> HandResult | None:
        """The verdict's ``result`` (HAND_RECORD.md) once the hand is over, else None."""
        return self.result

    def tricks(self) -> dict[str, int]:
        """Tricks won by every active player (all of them to an uncontested player)."""
        if self.tp is not None:
            return {self.players[s]: self.tp.tricks_won[s] for s in self.active}
        if self.phase == DONE and len(self.active) == 1:
            return {self.players[self.active[0]]: self.rules.hand_size}
        return {}

    def passed(self) -> list[str]:
        return [self.players[s] for s in self.order if self.decl[s] == PASSED]

    def public_view(self) -> PublicView:
        """What a spectator may see: no hidden card at all."""
        return hand_view.public_view(self)

    def view_for(self, player: str) -> SeatView:
        """What ``player`` may see: the public view plus their own hand, discards and
        choices. Never another seat's hidden cards, never the stock."""
        return hand_view.view_for(self, player)

    def verdict(self) -> Verdict:
        """The verdict verify() gives for :meth:`to_record` (no reneges are possible)."""
        return hand_view.verdict(self)

    def to_record(self) -> HandRecord:
        """This hand as a HAND_RECORD.md record (hands after the draw, full card log)."""
        return hand_view.to_record(self)


def _subsets(cards: list[int], limit: int) -> Iterable[tuple[int, ...]]:
    for k in range(limit + 1):
        yield from combinations(cards, k)


def replay(
    players: Sequence[str],
    dealer: str | int,
    rules: Rules | Mapping[str, Any] | None,
    seed: int | random.Random,
    actions: Iterable[Mapping[str, object]],
    carry: int = 0,
    excused: Iterable[str] = (),
) -> HandState:
    """Rebuild a hand from its seed (or a fresh rng in the same state) and action log."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    state = HandState.new(players, dealer, rules, rng, carry=carry, excused=excused)
    for action in actions:
        state.apply(action)
    return state
