"""Pass 2 of :func:`~games.engine.verify.verify`: do the record's parts agree?

:class:`RecordChecks` runs on a record whose every field parsed (pass 1,
``record_parse.py``) and reports, all at once, what cannot be true of one hand: who may
pass (R12, R40), the discards (R9, R13), the hands (R7), who played, every card in one
place only, discards back in play only through a reshuffled stock (R15). It is separate
from ``verify.py`` because these checks look at the record as a whole, never card by card
through the tricks: the card log is replayed (pass 3, ``verify.py``) only once they found
nothing wrong, so that one mistake is not reported again in the play's words.
"""

from __future__ import annotations

from .cards import CARD_NAMES
from .deck import FOLDED, run_draw
from .record_parse import RecordParser

__all__ = ["RecordChecks"]


def _first_card(mask: int) -> str:
    return CARD_NAMES[(mask & -mask).bit_length() - 1]


def _repeats(cards: list[int], taken: int) -> list[int]:
    """Cards of ``cards`` that repeat, or that ``taken`` already holds."""
    out, seen = [], taken
    for c in cards:
        if seen >> c & 1 and c not in out:
            out.append(c)
        seen |= 1 << c
    return out


class RecordChecks(RecordParser):
    """Pass 2 of one record: :meth:`seat_facts` first, then the checks; each reports
    through :meth:`~RecordParser.add`. The verifier (a subclass) calls them in order."""

    # pass 2 (seat_facts): what every later check needs
    dealer_seat: int
    hand_size: int
    up_bit: int
    up_name: str
    ace_up: bool
    passed_set: set[int]
    order: list[int]
    active: list[int]
    deemed: bool
    no_play: bool
    up_dead: bool  # set by the verifier once the discards are known (check())
    # folded_then_discards with a passing dealer: the seat served when the folded hands,
    # up-card included, became the stock (it may hold the up-card from then on), else None
    up_back_at: int | None

    def seat_facts(self) -> None:
        """What every later step needs: who plays in which order, and the up-card."""
        dealer = self.dealer
        assert dealer is not None  # parse() stops at a bad dealer
        n = self.n
        up_card = self.up_card
        self.dealer_seat = dealer
        self.hand_size = self.rules.hand_size
        self.up_bit = 1 << up_card if up_card is not None else 0
        # named in messages only when there is an up-card (up_bit is set)
        self.up_name = CARD_NAMES[up_card] if up_card is not None else ""
        self.ace_up = up_card is not None and up_card % 13 == 12
        self.passed_set = set(self.passed)
        self.order = [(dealer + 1 + i) % n for i in range(n)]
        self.active = [s for s in self.order if s not in self.passed_set]
        self.deemed = not self.active and self.ace_up  # R40: the dealer is deemed to play
        self.no_play = len(self.active) <= 1
        if self.ace_up and dealer in self.passed_set:
            # R38: an uncorrected renege of the dealer who passed with an Ace up can only
            # be the R12 breach (a passer plays no card), so a form's plain renege says it
            for r in self.reneges:
                if r["seat"] == dealer and r["rule"] is None and not r["corrected"]:
                    r["rule"] = "R12"

    def check_passed(self) -> None:
        """Who may pass: not the dealer with an Ace up (R12), and everybody only under
        simultaneous declaration (R40)."""
        dealer_name = self.players[self.dealer_seat]
        if not self.active:
            if self.rules.declaration != "simultaneous":
                if self.ace_up:
                    self.add(
                        "dealer_must_play",
                        f"with an Ace up the dealer {dealer_name} must play (R12)",
                        player=dealer_name,
                    )
                else:
                    self.add(
                        "bad_passed",
                        "everybody passed: possible only with simultaneous declaration (R40);"
                        " otherwise the dealer wins uncontested once the others pass (R14)",
                        field="passed",
                    )
        elif self.dealer_seat in self.passed_set and self.ace_up and not self.dealer_folded():
            self.add(
                "dealer_must_play",
                f"with an Ace up the dealer {dealer_name} must play (R12). If {dealer_name} "
                "really folded, record it as their renege, not corrected",
                player=dealer_name,
            )

    def dealer_folded(self) -> bool:
        """R38: the table records that the dealer really passed with an Ace up, as the
        dealer's uncorrected R12 renege."""
        dealer = self.dealer_seat
        return any(
            r["rule"] == "R12" and r["seat"] == dealer and not r["corrected"] for r in self.reneges
        )

    def check_r12_renege(self, seat: int, corrected: bool) -> None:
        """An R12 renege (R38): the dealer, with an Ace up, passed (not corrected) or
        passed and took it back, so played (corrected)."""
        name = self.players[seat]
        dealer_name = self.players[self.dealer_seat]
        passed = seat in self.passed_set
        if seat != self.dealer_seat:
            problem = f"only the dealer ({dealer_name}) can break the Ace-up rule, not {name}"
        elif not self.ace_up:
            problem = "the dealer must play only when the up-card is an Ace" + (
                f"; {self.up_name} is up" if self.up_bit else "; record the up-card"
            )
        elif passed and corrected:
            problem = (
                f"{name} is listed as passing, so the pass was not taken back: "
                "record the renege as not corrected"
            )
        elif not passed and not corrected:
            problem = (
                f"{name} played this hand; a dealer who folded with an Ace up must be "
                "listed among the players who passed"
            )
        elif not self.active:
            if self.rules.declaration != "simultaneous":
                return  # check_passed has said that everybody cannot pass
            problem = "everybody passed, so the dealer is deemed to play and wins (R40)"
        else:
            return
        self.add("bad_renege", problem, field="reneges", player=name)

    def check_discards(self) -> tuple[list[int], int]:
        """Discards by seat (masks) and all of them together: only by players who
        played, no card twice, at most ``discard_limit`` each (R9), the up-card only
        by the dealer (R13)."""
        add = self.add
        players = self.players
        passed = self.passed_set
        up_bit = self.up_bit
        disc = [0] * self.n
        all_disc = 0
        limit = self.rules.discard_limit
        for seat, (cards, mask) in self.discards.items():
            name = players[seat]
            if seat in passed:
                if cards:
                    add(
                        "passed_player_played",
                        f"{name} passed and discarded nothing (R10)",
                        field="discards",
                        player=name,
                    )
                continue
            if mask.bit_count() != len(cards) or mask & all_disc:
                for c in _repeats(cards, all_disc):
                    add(
                        "duplicate_card",
                        f"{CARD_NAMES[c]} is discarded twice",
                        field="discards",
                        player=name,
                        card=CARD_NAMES[c],
                    )
            if len(cards) > limit:
                add(
                    "too_many_discards",
                    f"{name} discarded {len(cards)} cards; at most {limit} (R9)",
                    field="discards",
                    player=name,
                )
            if mask & up_bit:
                self.check_up_card_discard(seat, name)
            disc[seat] = mask
            all_disc |= mask
        return disc, all_disc

    def check_up_card_discard(self, seat: int, name: str) -> None:
        """``name`` discarded the up-card: only the dealer may, if the rules allow (R13)."""
        if seat != self.dealer_seat:
            self.add(
                "up_card_misplaced",
                f"{name} cannot discard the up-card {self.up_name}: "
                f"it is in the dealer's hand (R13)",
                field="discards",
                player=name,
                card=self.up_name,
            )
        elif not self.rules.dealer_may_discard_upcard:
            self.add(
                "up_card_misplaced",
                "the dealer may not discard the up-card under these house rules (R13)",
                field="discards",
                player=name,
                card=self.up_name,
            )

    def check_hands(self) -> tuple[list[int], list[bool]]:
        """Hands by seat (masks), and whose hand the record gives: only for players who
        played, no card twice, ``hand_size`` cards each (R7)."""
        add = self.add
        players = self.players
        passed = self.passed_set
        hs = self.hand_size
        hand = [0] * self.n
        known = [False] * self.n
        for seat, (cards, mask) in self.hands.items():
            name = players[seat]
            if seat in passed:
                add(
                    "passed_player_played",
                    f"{name} passed; give hands only for players who played",
                    field="hands",
                    player=name,
                )
                continue
            if mask.bit_count() != len(cards):
                for c in _repeats(cards, 0):
                    add(
                        "duplicate_card",
                        f"{CARD_NAMES[c]} is twice in {name}'s hand",
                        field="hands",
                        player=name,
                        card=CARD_NAMES[c],
                    )
            if len(cards) != hs:
                add(
                    "hand_size",
                    f"{name}'s hand has {len(cards)} cards; a hand has {hs} (R7)",
                    field="hands",
                    player=name,
                )
            hand[seat] = mask
            known[seat] = True
        return hand, known

    def check_who_played(self) -> None:
        """Plays, reneges and tricks only for players who played (R10), no play at all
        when at most one player is left (R14), no more cards than the players hold."""
        add = self.add
        players = self.players
        passed = self.passed_set
        active = self.active
        no_play = self.no_play
        plays = self.plays
        hs = self.hand_size
        if no_play and plays:
            add(
                "too_many_plays",
                "nobody plays a card when all but one have passed (R14)",
                field="plays",
            )
        for seat in {s for s, _ in plays if s in passed} if passed else ():
            add(
                "passed_player_played",
                f"{players[seat]} passed and cannot play a card (R10)",
                field="plays",
                player=players[seat],
            )
        if not no_play and len(plays) > hs * len(active):
            add(
                "too_many_plays",
                f"{len(plays)} cards played; {len(active)} players hold {hs * len(active)}",
                field="plays",
            )
        for r in self.reneges:
            name = players[r["seat"]]
            if r["rule"] == "R12":
                self.check_r12_renege(r["seat"], r["corrected"])
            elif r["seat"] in passed:
                add(
                    "bad_renege",
                    f"{name} passed, so cannot have reneged",
                    field="reneges",
                    player=name,
                )
            elif no_play:
                add("bad_renege", "no card was played in this hand", field="reneges", player=name)
        tricks = self.tricks
        if tricks is not None:
            for seat, t in tricks.items():
                if seat in passed and t:
                    add(
                        "passed_player_played",
                        f"{players[seat]} passed and cannot win tricks (R10)",
                        field="tricks",
                        player=players[seat],
                    )

    def complete_hands(self, hand: list[int], known: list[bool], complete_log: bool) -> bool:
        """Fill in the hands a complete card log shows; a partial log needs every active
        player's hand. False (with ``hands_required`` errors) when some are missing."""
        players = self.players
        active = self.active
        plays = self.plays
        if complete_log and not all(known[s] for s in active):
            for seat, card in plays:
                if not known[seat]:
                    hand[seat] |= 1 << card
        elif plays:
            missing = [players[s] for s in active if not known[s]]
            if missing:
                for name in missing:
                    self.add(
                        "hands_required",
                        f"a partial card log needs {name}'s hand",
                        field="hands",
                        player=name,
                    )
                return False
        return True

    def check_card_places(self, hand: list[int], known: list[bool], complete_log: bool) -> None:
        """Every card in one hand only, and the up-card where it may be (R13)."""
        add = self.add
        players = self.players
        dealer = self.dealer_seat
        up_bit = self.up_bit
        up_dead = self.up_dead
        back = self.up_back_at
        # from this position on, a hand may hold the up-card again (folded_then_discards)
        back_from = self.order.index(back) if back is not None else len(self.order)
        position = {s: i for i, s in enumerate(self.order)} if back is not None else {}
        seen = 0
        for seat in self.active:
            mask = hand[seat]
            name = players[seat]
            if mask & seen:
                card = _first_card(mask & seen)
                add(
                    "duplicate_card",
                    f"{card} is in two hands",
                    field="hands" if known[seat] else "plays",
                    player=name,
                    card=card,
                )
            seen |= mask
            if back is not None and back_from <= position[seat]:
                continue  # the up-card went back into the stock with the folded hands
            if mask & up_bit and (seat != dealer or up_dead):
                add(
                    "up_card_misplaced",
                    f"{name} cannot hold the up-card {self.up_name}: "
                    + (
                        "it went back into the stock with the folded hands only when "
                        f"{players[back]} was served (R15)"
                        if back is not None
                        else "it was set aside (R13)"
                        if up_dead
                        else "it is in the dealer's hand"
                    ),
                    player=name,
                    card=self.up_name,
                )
        if up_bit and not up_dead and (known[dealer] or complete_log) and not hand[dealer] & up_bit:
            add(
                "up_card_misplaced",
                f"the up-card {self.up_name} belongs to the dealer's hand (R13)",
                player=players[dealer],
                card=self.up_name,
            )

    def check_reused_discards(
        self, hand: list[int], disc: list[int], all_disc: int
    ) -> dict[int, int]:
        """Discards come back into play only through a reshuffled stock (R15).

        Returns :meth:`reshuffles`: the seats whose discards went into a new stock.
        """
        players = self.players
        active = self.active
        order = self.order
        position = {s: i for i, s in enumerate(order)}
        wants = {s: disc[s].bit_count() for s in active if disc[s]}
        reshuffled_at = self.reshuffles(
            order, wants, disc, self.passed_set, self.up_bit, self.dealer_seat
        )
        for seat in active:
            # the dealer's discarded up-card in another hand is up_card_misplaced already
            overlap = hand[seat] & all_disc & ~self.up_bit
            while overlap:
                low = overlap & -overlap
                overlap ^= low
                owner = next(s for s in active if disc[s] & low)
                at = reshuffled_at.get(owner)
                if at is None or position[at] > position[seat]:
                    card = CARD_NAMES[low.bit_length() - 1]
                    self.add(
                        "duplicate_card",
                        f"{card} was discarded by {players[owner]}",
                        player=players[seat],
                        card=card,
                    )
        return reshuffled_at

    def folded_back_at(self, disc: list[int]) -> int | None:
        """Under ``folded_then_discards`` with a passing dealer: the seat being served
        when the folded hands (the up-card among them) became the stock, or None."""
        if self.dealer_seat not in self.passed_set or self.rules.stock_refill != (
            "folded_then_discards"
        ):
            return None
        wants = {s: disc[s].bit_count() for s in self.active if disc[s]}
        at = self.reshuffles(
            self.order, wants, disc, self.passed_set, self.up_bit, self.dealer_seat
        )
        return at.get(FOLDED)

    def reshuffles(
        self,
        order: list[int],
        wants: dict[int, int],
        disc: list[int],
        passed: set[int],
        up_bit: int,
        dealer: int,
    ) -> dict[int, int]:
        """Seats whose discards went into a new stock → the seat being served then."""
        if not wants:
            return {}
        hs = self.rules.hand_size
        stock_size = 52 - self.n * hs
        if sum(wants.values()) <= stock_size:
            return {}  # the common case: the stock suffices
        # Placeholders stand for the cards: only who discarded how many matters here.
        # A discarded up-card never goes back into a stock (R13); a passing dealer's goes
        # back with the folded hands only under folded_then_discards (state.py).
        up_folded = dealer in passed and self.rules.stock_refill == "folded_then_discards"
        folded = [None] * (hs * len(passed) - (1 if dealer in passed and not up_folded else 0))
        _, at = run_draw(
            order,
            wants,
            lambda s: [s] * (disc[s] & ~up_bit).bit_count(),
            [None] * stock_size,
            folded,
            self.rules.stock_refill,
            lambda cards: None,
        )
        return at
