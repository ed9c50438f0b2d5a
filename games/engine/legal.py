"""Legal plays (R19–R31) and the trick-by-trick bookkeeping they depend on.

Legal sets are 52-bit masks (see cards.py). The filters of RULES.md are applied in
order, each narrowing what the previous one left:

follower: R19 follow suit → R20 void: trump → R21 head the trick → R22 undertrump →
R23 anything → R29 cinch (not last to play) with R30 equivalents;
leader: R25 anything → R26 trump when the others are known void → R27 cinch.

:class:`TrickPlay` tracks one hand's trick play (turns, the trick, dead cards, known
voids, tricks won) for both the digital game and the verifier, so that both use the
very same legality code: :meth:`TrickPlay.legal` is the fast path,
:meth:`TrickPlay.reasons` applies the same filters one at a time to say which rule
removed each card (for the UI and for renege reports). :func:`legal_mask` and
:func:`illegal_reasons` ask the same questions about a situation described directly.

Choices where RULES.md is silent:

- "Last to play" (R29/R31) means the last of the active players in the trick.
- R29 (as RULES.md now words it) applies only when the highest trump left by R19–R23
  would win the trick as it stands: with an Ace of trump led, or a trump above all of the
  holder's already played, the holder keeps the top trump and plays any card R19–R23
  allow. "Win as it stands" means beating the card winning now; a later player may still
  overtrump, which the sure-trick count (R28) has already allowed for.
- Dead cards (R28) also include the up-card when the dealer passed: it was seen face up
  and left the hand with the dealer's folded cards, and it is never dealt again.
- A player's known trump-void status (R26) is inferred from the cards actually played,
  reneges included: the table cannot know better at that moment. Two exceptions, where the
  table does know better: a player who still visibly holds a trump (the dealer's up-card,
  kept and not yet played: ``shown``) is never counted void, and a player counted void
  who then plays a trump (possible only after a renege) is no longer counted void.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from operator import or_

from .cards import ABOVE, SUIT_MASKS
from .rules import Rules

__all__ = [
    "EQUIV_ADJACENT",
    "EQUIV_NONE",
    "EQUIV_SEQUENCE",
    "TrickPlay",
    "illegal_reasons",
    "legal_mask",
    "sure_tricks",
    "trick_winner",
]

EQUIV_SEQUENCE = 0
EQUIV_ADJACENT = 1
EQUIV_NONE = 2
_EQUIV = {"sequence": EQUIV_SEQUENCE, "adjacent": EQUIV_ADJACENT, "none": EQUIV_NONE}


def sure_tricks(trumps: int, unseen: int) -> int:
    """R28: the player's trumps minus the unseen trumps that can kill one of them.

    Both arguments are masks of one suit (any shift). Greedy matching: take the player's
    trumps from the lowest up and pair each with the lowest unused higher unseen trump;
    for nested "higher than" relations this greedy gives a maximum matching.
    """
    kills = 0
    mine = trumps
    while mine and unseen:
        low = mine & -mine
        mine ^= low
        higher = unseen & ~((low << 1) - 1)
        if higher:
            unseen ^= higher & -higher
            kills += 1
    return trumps.bit_count() - kills


def _has_cinch(
    trumps: int, trump_mask: int, majority: int, won: int, known: int, void: bool
) -> bool:
    """R28: tricks won plus sure trump tricks reach a majority."""
    need = majority - won
    if need <= 0:
        return True
    if trumps.bit_count() < need:
        return False
    if void:
        return True
    return sure_tricks(trumps, trump_mask & ~known) >= need


def _top_trumps(allowed: int, known: int, equiv: int) -> int:
    """R27/R29/R30: the highest trump of ``allowed`` plus the ones equivalent to it.

    ``allowed`` holds trumps only; ``known`` is the player's hand plus dead cards.
    """
    top = 1 << (allowed.bit_length() - 1)
    if equiv == EQUIV_NONE:
        return top
    below = top >> 1
    if equiv == EQUIV_ADJACENT:
        # the ace of the next suit is not "one rank below" the deuce: masks are per suit
        return top | (allowed & below)
    result = top
    while below and known & below:
        result |= allowed & below
        below >>= 1
    return result


def _trick_state(trick: Sequence[int], trump: int) -> tuple[int, int, bool, int]:
    """(led suit, winning card, trumped, highest led-suit card) of a trick in progress."""
    if not trick:
        return -1, -1, False, -1
    led = trick[0] // 13
    win = high = trick[0]
    trumped = False
    for card in trick[1:]:
        suit = card // 13
        if suit == led:
            if card > high:
                high = card
            if not trumped and card > win:
                win = card
        elif suit == trump and (not trumped or card > win):
            win = card
            trumped = True
    return led, win, trumped, high


def trick_winner(trick: Sequence[int], trump: int) -> int:
    """R18: position in ``trick`` of the winning card."""
    return list(trick).index(_trick_state(trick, trump)[1])


def legal_mask(
    hand: int,
    trump: int,
    rules: Rules,
    trick: Sequence[int] = (),
    *,
    last: bool = False,
    won: int = 0,
    dead: int = 0,
    others_void: bool = False,
) -> int:
    """Legal cards of ``hand`` (mask) for a player facing ``trick`` (card indices in
    play order; empty for a lead).

    ``last``: the player is last to play to the trick (R31). ``won``: tricks already won.
    ``dead``: cards dead to this player besides the trick (played earlier, own discards,
    an up-card set aside). ``others_void``: every other active player is known to hold
    no trump (R26).
    """
    return TrickPlay.situation(hand, trump, rules, trick, last, won, dead, others_void).legal()


def illegal_reasons(
    hand: int,
    trump: int,
    rules: Rules,
    trick: Sequence[int] = (),
    *,
    last: bool = False,
    won: int = 0,
    dead: int = 0,
    others_void: bool = False,
) -> dict[int, str]:
    """For every card of ``hand`` that may not be played, the rule that forbids it.

    Same arguments as :func:`legal_mask`.
    """
    return TrickPlay.situation(hand, trump, rules, trick, last, won, dead, others_void).reasons()


class TrickPlay:
    """Trick play of one hand: whose turn, the trick on the table, what is dead, who is
    known trump-void, tricks won.

    Seats are ints. ``active`` lists the seats still in the hand clockwise from the
    dealer's left, so ``active[0]`` leads trick 1 (R17). ``hands`` are the masks when
    play starts; ``private_dead[seat]`` is what is dead to that seat alone (its own
    discards); ``public_dead`` is dead to all (an up-card set aside). :meth:`play` does
    not check legality: the caller decides what an illegal card means (an error in the
    digital game, a renege in a reported hand).
    """

    __slots__ = (
        "active",
        "active_bits",
        "beaters",
        "completed",
        "cinch",
        "initial",
        "equiv",
        "hand_size",
        "hands",
        "head_after",
        "high_led",
        "known_void",
        "lead_trump",
        "led",
        "led_mask",
        "majority",
        "n_active",
        "next_seat",
        "private_dead",
        "public_dead",
        "shown",
        "to_act",
        "trick",
        "trick_leader",
        "trick_no",
        "tricks_won",
        "trump",
        "trump_mask",
        "trumped",
        "undertrump",
        "win",
        "win_seat",
    )

    def __init__(
        self,
        n_seats: int,
        active: Sequence[int],
        hands: Sequence[int],
        trump: int,
        rules: Rules,
        private_dead: Sequence[int] | None = None,
        public_dead: int = 0,
    ) -> None:
        # the switches, unpacked once: legal() runs for every card
        self.undertrump = rules.undertrump_required
        self.head_after = rules.head_led_suit_after_trump
        self.lead_trump = rules.lead_trump_when_others_void
        self.cinch = rules.cinch != "off"
        self.equiv = _EQUIV[rules.cinch_equivalence]
        self.majority = rules.majority
        self.hand_size = rules.hand_size
        self.trump = trump
        self.trump_mask = SUIT_MASKS[trump]
        self.beaters = _BEATERS[trump]
        self.active = tuple(active)
        self.n_active = len(self.active)
        self.active_bits = 0
        for seat in self.active:
            self.active_bits |= 1 << seat
        self.next_seat = [-1] * n_seats
        for i, seat in enumerate(self.active):
            self.next_seat[seat] = self.active[(i + 1) % self.n_active]
        self.hands = list(hands)
        self.private_dead = list(private_dead) if private_dead is not None else [0] * n_seats
        self.public_dead = public_dead
        self.initial = reduce(or_, self.hands, 0)
        self.tricks_won = [0] * n_seats
        self.known_void = 0
        # cards every player knows a seat holds (the dealer's kept up-card), by seat
        self.shown = [0] * n_seats
        self.to_act = self.trick_leader = self.active[0]
        self.trick: list[tuple[int, int]] = []
        self.led = -1
        self.led_mask = 0
        self.win = -1
        self.win_seat = -1
        self.trumped = False
        self.high_led = -1
        self.trick_no = 0
        # (leader, [(seat, card), ...], winner) for every finished trick
        self.completed: list[tuple[int, list[tuple[int, int]], int]] = []

    @classmethod
    def situation(
        cls,
        hand: int,
        trump: int,
        rules: Rules,
        trick: Sequence[int] = (),
        last: bool = False,
        won: int = 0,
        dead: int = 0,
        others_void: bool = False,
    ) -> TrickPlay:
        """A tracker positioned at one player's turn, for questions asked out of a game:
        the trick's cards are played by seats 0..k-1, the player is seat k, and when
        the player is not last one more seat follows."""
        k = len(trick)
        n = k + 1 if last or not trick else k + 2
        if not trick and not last:
            n = 4  # a lead: the others' number does not matter to legality
        hands = [0] * n
        for seat, card in enumerate(trick):
            hands[seat] = 1 << card
        hands[k] = hand
        order = list(range(n))
        tp = cls(n, order[k:] + order[:k], hands, trump, rules)
        tp.to_act = tp.trick_leader = 0 if trick else k
        for card in trick:
            tp.play(card)
        tp.known_void = tp.active_bits if others_void else 0
        tp.tricks_won[k] = won
        tp.private_dead[k] = dead
        return tp

    def copy(self) -> TrickPlay:
        """An independent tracker in the same position (for search bots' playouts)."""
        new = TrickPlay.__new__(TrickPlay)
        for name in _SHARED:
            setattr(new, name, getattr(self, name))
        new.led = self.led
        new.led_mask = self.led_mask
        new.win = self.win
        new.win_seat = self.win_seat
        new.trumped = self.trumped
        new.high_led = self.high_led
        new.trick_no = self.trick_no
        new.to_act = self.to_act
        new.trick_leader = self.trick_leader
        new.known_void = self.known_void
        new.hands = list(self.hands)
        new.tricks_won = list(self.tricks_won)
        new.trick = list(self.trick)
        new.completed = list(self.completed)
        new.private_dead = list(self.private_dead)
        new.shown = list(self.shown)
        return new

    @property
    def done(self) -> bool:
        return self.trick_no >= self.hand_size

    @property
    def dead(self) -> int:
        """Cards dead to everyone: every card played so far and an up-card set aside.
        Worked out when asked (lead and cinch questions only), not on every card."""
        return self.public_dead | self.initial & ~reduce(or_, self.hands, 0)

    @property
    def plays(self) -> list[tuple[int, int]]:
        """Every card played so far as (seat, card), in order."""
        out = [play for _, cards, _ in self.completed for play in cards]
        out.extend(self.trick)
        return out

    def others_void(self, seat: int) -> bool:
        """R26: every other active player is known to hold no trump."""
        bits = self.active_bits
        return (self.known_void | (1 << seat)) & bits == bits

    def legal(self) -> int:
        """Legal mask of the seat to act (R19–R31)."""
        p = self.to_act
        hand = self.hands[p]
        if not self.trick:
            trumps = hand & self.trump_mask
            if not trumps:
                return hand
            return self._lead(p, hand, trumps)
        follow = hand & self.led_mask
        if follow:
            if self.trumped:
                # Following suit to a trumped trick: nothing of the led suit can win.
                head = self.head_after
                allowed = (follow & ABOVE[self.high_led] or follow) if head else follow
            else:
                allowed = follow & ABOVE[self.win] or follow
            # a trump can be among them only when trump was led
            if not self.cinch or not allowed & self.trump_mask:
                return allowed
        else:
            trumps = hand & self.trump_mask
            if not trumps:
                return hand
            if self.trumped:
                allowed = trumps & ABOVE[self.win] or (trumps if self.undertrump else hand)
            else:
                allowed = trumps
            if not self.cinch:
                return allowed
        if len(self.trick) == self.n_active - 1:
            return allowed  # R31: last to play has no highest-trump duty
        return self._cinch_follow(p, hand, allowed)

    def is_legal(self, card: int) -> bool:
        """May the seat to act play ``card``? Same answer as ``legal() >> card & 1``,
        with the cases where no trump is involved (so no cinch either) decided directly."""
        p = self.to_act
        hand = self.hands[p]
        bit = 1 << card
        if not hand & bit:
            return False
        if not self.trick:
            if not hand & self.trump_mask:
                return True  # R25: no trump, so no R26/R27 duty
        elif self.led != self.trump:
            led_mask = self.led_mask
            follow = hand & led_mask
            if follow:
                if not bit & led_mask:
                    return False  # R19
                if self.trumped:
                    if not self.head_after:
                        return True  # nothing of the led suit can win
                    above = ABOVE[self.high_led]
                else:
                    above = ABOVE[self.win]
                return bool(bit & above) or not follow & above  # R21
            if not hand & self.trump_mask:
                return True  # R23
        return bool(self.legal() & bit)

    def _known(self, p: int, hand: int) -> tuple[int, bool]:
        """Cards the player knows the place of, and whether all others are trump-void."""
        known = hand | self.dead | self.private_dead[p]
        bits = self.active_bits
        void = (self.known_void | (1 << p)) & bits == bits or not self.trump_mask & ~known
        return known, void

    def _has_cinch(self, p: int, trumps: int, known: int, void: bool) -> bool:
        return _has_cinch(trumps, self.trump_mask, self.majority, self.tricks_won[p], known, void)

    def _lead(self, p: int, hand: int, trumps: int) -> int:
        known, void = self._known(p, hand)
        allowed = hand
        if self.lead_trump and void:
            allowed = trumps  # R26
        if self.cinch and self._has_cinch(p, trumps, known, void):
            allowed = _top_trumps(trumps, known, self.equiv)  # R27
        return allowed

    def _cinch_follow(self, p: int, hand: int, allowed: int) -> int:
        allowed_trumps = allowed & self.trump_mask
        if not allowed_trumps:
            return allowed
        if not self.beaters[self.win] >> (allowed_trumps.bit_length() - 1) & 1:
            return allowed  # R29: no allowed trump can win the trick, so no duty
        known, void = self._known(p, hand)
        if self._has_cinch(p, hand & self.trump_mask, known, void):
            return _top_trumps(allowed_trumps, known, self.equiv)  # R29, R30
        return allowed

    def reasons(self) -> dict[int, str]:  # radon D: legal()'s filters in order, kept side by side
        """For each card of the seat to act that it may not play, the forbidding rule.

        The filters of :meth:`legal`, one at a time; the first to remove a card names it.
        """
        p = self.to_act
        hand = self.hands[p]
        tm = self.trump_mask
        trumps = hand & tm
        known, void = self._known(p, hand)
        stages: list[tuple[str, int]] = []
        allowed = hand
        if not self.trick:
            cinch_rule = "R27"
            if trumps and self.lead_trump and void:
                allowed = trumps
                stages.append(("R26", allowed))
        else:
            cinch_rule = "R29"
            follow = hand & self.led_mask
            win = self.win
            if follow:
                allowed = follow
                stages.append(("R19", allowed))
                if self.trumped:
                    if self.head_after and follow & ABOVE[self.high_led]:
                        allowed = follow & ABOVE[self.high_led]
                        stages.append(("R21", allowed))
                elif follow & ABOVE[win]:
                    allowed = follow & ABOVE[win]
                    stages.append(("R21", allowed))
            elif trumps:
                if not self.trumped:
                    allowed = trumps
                    stages.append(("R20", allowed))
                elif trumps & ABOVE[win]:
                    stages.append(("R20", trumps))
                    allowed = trumps & ABOVE[win]
                    stages.append(("R21", allowed))
                elif self.undertrump:
                    allowed = trumps
                    stages.append(("R22", allowed))
        last = bool(self.trick) and len(self.trick) == self.n_active - 1
        if (
            self.cinch
            and allowed & tm
            and not last
            # R29: only when the highest allowed trump would win the trick as it stands
            and (not self.trick or self.beaters[self.win] >> ((allowed & tm).bit_length() - 1) & 1)
            and self._has_cinch(p, trumps, known, void)
        ):
            allowed = _top_trumps(allowed & tm, known, self.equiv)
            stages.append((cinch_rule, allowed))
        reasons: dict[int, str] = {}
        rest = hand
        for rule, kept in stages:
            removed = rest & ~kept
            while removed:
                low = removed & -removed
                reasons[low.bit_length() - 1] = rule
                removed ^= low
            rest &= kept
        return reasons

    def play(self, card: int) -> int:
        """The seat to act plays ``card``, which must be in its hand; returns the
        trick's winner when this card completes a trick, else -1."""
        p = self.to_act
        bit = 1 << card
        self.hands[p] ^= bit  # callers check the card is in the hand
        if self.known_void and bit & self.trump_mask:
            self.known_void &= ~(1 << p)  # void was wrong: only after a renege
        trick = self.trick
        if not trick:
            self.led = led = card // 13
            self.led_mask = SUIT_MASKS[led]
            self.win = self.high_led = card
            self.win_seat = self.trick_leader = p
            self.trumped = False
        else:
            if not bit & self.led_mask:
                # R26 known voids: a non-trump to a trump lead, or neither suit where a
                # trump would have been forced (always when undertrumping is required,
                # otherwise only while the trick is still untrumped).
                if (
                    self.led == self.trump
                    or (not bit & self.trump_mask and (self.undertrump or not self.trumped))
                ) and not self.hands[p] & self.shown[p]:
                    self.known_void |= 1 << p
            elif card > self.high_led:
                self.high_led = card
            if bit & self.beaters[self.win]:
                if not bit & self.led_mask:
                    self.trumped = True
                self.win = card
                self.win_seat = p
        trick.append((p, card))
        if len(trick) < self.n_active:
            self.to_act = self.next_seat[p]
            return -1
        winner = self.win_seat
        self.tricks_won[winner] += 1
        self.completed.append((self.trick_leader, trick, winner))
        self.trick = []
        self.trick_no += 1
        self.to_act = winner
        return winner


# What copy() shares between trackers: set once in __init__, never changed by play().
_SHARED = tuple(
    name
    for name in TrickPlay.__slots__
    if name
    not in {
        "led", "led_mask", "win", "win_seat", "trumped", "high_led", "trick_no", "to_act",
        "trick_leader", "known_void", "hands", "tricks_won", "trick", "completed",
        "private_dead", "shown",
    }
)  # fmt: skip

# _BEATERS[trump][c]: every card that beats c when it is winning a trick (R18).
_BEATERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(ABOVE[c] | (0 if c // 13 == t else SUIT_MASKS[t]) for c in range(52)) for t in range(4)
)
