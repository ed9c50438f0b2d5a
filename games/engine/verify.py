"""verify(record) → verdict, exactly as HAND_RECORD.md describes.

A record is checked in three passes, each only when the previous found nothing wrong
(later checks would otherwise report the same mistake again in confusing words):

1. shapes: every field has the right JSON type, every card and name parses;
2. consistency: passes, discards, hands, the up-card, tricks and reneges agree;
3. the card log, replayed through the same :class:`~games.engine.legal.TrickPlay` as
   the digital game: turn order, cards in hand, and legality (an illegal card is a
   renege, not an error: it stays played and the offender pays, R39).

Pass 1 is ``record_parse.py``, pass 2 ``record_checks.py``; pass 3 and the verdict are here.

No input makes :func:`verify` raise; anything that is not a hand gives
``valid: false`` with a list of errors ``{code, message, field?, player?, card?,
trick?, key?}``.

Error codes beyond HAND_RECORD.md: ``bad_record`` (not an object, or a field of the
wrong JSON type), ``unknown_field``, ``bad_carry``, ``missing_trump``, ``bad_suit``,
``duplicate_player``, ``bad_passed`` (everybody passed under sequential declaration),
``too_many_discards``, ``up_card_misplaced``, ``bad_tricks``, ``bad_renege``.

Choices where HAND_RECORD.md is silent:

- Unknown top-level fields are errors (a typo such as ``"pased"`` must not silently
  change the verdict). ``forfeits`` lists players who owe a forfeited deal (R16
  out-of-turn declarations called by the table at this hand, corrected reneges of earlier
  hands); the result says ``forfeits_next``, what is still owed after this hand's deal
  passes (see ``payout.py``).
- A dealer's discarded up-card found in another player's hand is one mistake, reported
  once as ``up_card_misplaced`` (not also as a ``duplicate_card`` discard).
- Under ``folded_then_discards`` a passing dealer's up-card goes back into the stock with
  the folded hands (``state.py``): from the player being served then, a hand may hold it.
- A player known trump-void (R26) after a renege is not void while visibly holding the
  up-card trump (the dealer who kept it), and stops being void by playing a trump.
- ``null`` is the same as a missing optional field. A valid verdict always has every
  key: ``next`` is null once the hand is complete, ``result`` null until it is.
- A passed player may have no discards, no hand, no plays and no reneges
  (``passed_player_played``, ``bad_renege``).
- Under sequential declaration all players cannot pass: once all but the dealer have
  passed the dealer wins uncontested (R14) and never declares. Such a record is an
  error (``dealer_must_play`` with an Ace up, else ``bad_passed``).
- R12 is checked as a record error, not as a renege: a dealer listed in ``passed``
  with an Ace up is ``dealer_must_play`` (a typo guard), except when everybody passed
  under simultaneous declaration, where R40 deems the dealer to play and win, and except
  when the record also lists the dealer's renege ``{"player": dealer, "rule": "R12",
  "corrected": false}`` (R38): the table confirms the dealer really folded. The dealer
  then pays like any uncorrected renege (R39) and is excused from the next ante. A
  corrected R12 renege (the pass taken back, so the dealer played) costs the dealer the
  pot and the next deal like any corrected renege. An R12 entry for anyone else, without
  an Ace up, or contradicting ``passed`` is ``bad_renege``.
- A passed player may appear in ``tricks`` only with 0 (forms send every row).
- Uncontested and all-passed hands have no card log and no reneges; their ``tricks``,
  if given, must be all zero or give the winner every trick.
- A record with neither ``plays`` nor ``tricks`` is a hand not yet played:
  ``complete: false`` and ``next`` names the leader (``legal`` is null without hands).
  A non-empty partial card log needs every active player's hand (``hands_required``).
- A summary may come with a partial card log: the log is checked, tricks counted so far
  must not exceed the summary, and the summary settles the hand.
- Renege entries may also give ``trick``, ``card`` and ``rule``; a table-called
  uncorrected renege that repeats one the engine found in the log is reported once.
- ``carry`` is at most ``MAX_POT`` = 10**15 minor units (``bad_carry``), and a hand whose
  next pot (``next_carry``) would pass it is invalid (``pot_over_cap``): its message names
  the pot and asks for a pot limit (R37), so a session never reaches a pot its next hand
  cannot carry (see ``rules``: every bound on an amount).
- A card in someone's hand that another player discarded is possible only when that
  discard pile was reshuffled into the stock before this player was served (R15);
  otherwise it is a ``duplicate_card``.
"""

from __future__ import annotations

from .cards import CARD_NAMES, card_names
from .contracts import ErrorWhere, HandResult, RecordError, Renege, Verdict
from .legal import TrickPlay
from .payout import _settle
from .record_checks import RecordChecks
from .rules import MAX_POT

__all__ = ["verify"]


def _invalid(errors: list[RecordError]) -> Verdict:
    return {"valid": False, "errors": errors}


def verify(record: object) -> Verdict:
    """Check a hand record and settle it; see HAND_RECORD.md. Never raises."""
    try:
        return _Verifier(record).run()
    except Exception:  # pragma: no cover - a bug; still never let input crash a caller
        return _invalid(
            [{"code": "internal_error", "message": "the verifier failed on this record"}]
        )


def _within_cap(verdict: Verdict) -> Verdict:
    result = verdict.get("result")
    if not verdict.get("valid") or not result or result["next_carry"] <= MAX_POT:
        return verdict
    return _invalid(
        [
            {
                "code": "pot_over_cap",
                "field": "carry",
                "message": f"this hand would bring the next pot to {result['next_carry']}, "
                f"more than the largest pot these books keep ({MAX_POT}): set a pot "
                "limit (R37) so that a bourré costs less, then record the hand again",
            }
        ]
    )


class _Verifier(RecordChecks):
    """One record being checked: pass 1 (:class:`~.record_parse.RecordParser`), pass 2
    (:class:`~.record_checks.RecordChecks`), then pass 3, the card log, here."""

    def run(self) -> Verdict:
        if not self.parse():
            return _invalid(self.errors)
        return _within_cap(self.check())

    def check(self) -> Verdict:
        """Passes 2 and 3, on a record whose every field parsed: the consistency checks
        all report, then the card log is replayed only if they found nothing wrong."""
        self.seat_facts()
        self.check_passed()
        disc, all_disc = self.check_discards()
        dealer = self.dealer_seat
        self.up_dead = bool(dealer in self.passed_set or disc[dealer] & self.up_bit)
        self.up_back_at = self.folded_back_at(disc) if all_disc and self.up_bit else None
        hand, known = self.check_hands()
        self.check_who_played()
        if self.errors:
            return _invalid(self.errors)

        if self.no_play:
            return self.finish_without_play(self.active, self.deemed, self.tricks)

        complete_log = len(self.plays) == self.hand_size * len(self.active)
        if not self.complete_hands(hand, known, complete_log):
            return _invalid(self.errors)
        self.check_card_places(hand, known, complete_log)
        reshuffled_at = self.check_reused_discards(hand, disc, all_disc) if all_disc else {}
        if self.errors:
            return _invalid(self.errors)

        private_dead = (
            [0 if s in reshuffled_at else disc[s] for s in range(self.n)] if all_disc else None
        )
        return self.play_log(hand, known, private_dead, complete_log)

    # -- pass 3: the card log, and the verdict -------------------------------------------

    def play_log(
        self,
        hand: list[int],
        known: list[bool],
        private_dead: list[int] | None,
        complete_log: bool,
    ) -> Verdict:
        """Pass 3: replay the card log, check the tricks, and give the verdict."""
        players = self.players
        active = self.active
        trump = self.trump
        assert trump is not None  # parse() stops without a trump suit
        tp = TrickPlay(
            self.n,
            active,
            hand,
            trump,
            self.rules,
            private_dead,
            self.up_bit if self.up_dead and self.up_back_at is None else 0,
        )
        if not self.up_dead and self.up_bit:
            # R26: the dealer visibly holds the up-card trump until playing it
            tp.shown[self.dealer_seat] = self.up_bit
        reneges = self.replay(tp)
        if reneges is None:
            return _invalid(self.errors)

        so_far = {players[s]: tp.tricks_won[s] for s in active}
        final = self.final_tricks(so_far, complete_log)
        if self.errors:
            return _invalid(self.errors)

        reneges.extend(self.table_reneges(reneges))
        verdict: Verdict = {
            "valid": True,
            "errors": [],
            "complete": final is not None,
            "tricks": final if final is not None else so_far,
            "reneges": reneges,
            "next": None,
            "result": None,
        }
        if final is None:
            legal_next: list[str] | None = None
            if known[tp.to_act] or complete_log:
                legal_next = card_names(tp.legal())
            verdict["next"] = {"player": players[tp.to_act], "legal": legal_next}
            return verdict
        verdict["result"] = self.settle(active, final, reneges, deemed=False)
        return verdict

    def replay(self, tp: TrickPlay) -> list[Renege] | None:
        """Play the card log through ``tp``: the reneges it shows (an illegal card stays
        played, R39), or None after an error (out of turn, a card not in the hand)."""
        players = self.players
        reneges: list[Renege] = []
        tp_hands = tp.hands
        tp_is_legal = tp.is_legal
        tp_play = tp.play
        for seat, card in self.plays:
            if seat != tp.to_act:
                self.play_error(tp, seat, card)
                return None
            if not tp_is_legal(card):
                if not tp_hands[seat] >> card & 1:
                    self.play_error(tp, seat, card)
                    return None
                legal = tp.legal()
                reneges.append(
                    {
                        "player": players[seat],
                        "trick": tp.trick_no + 1,
                        "card": CARD_NAMES[card],
                        "rule": tp.reasons().get(card, "R19"),
                        "legal": card_names(legal),
                        "corrected": False,
                    }
                )
            tp_play(card)
        return reneges

    def final_tricks(self, so_far: dict[str, int], complete_log: bool) -> dict[str, int] | None:
        """The tricks that settle the hand, or None while it is not finished.

        A summary (``tricks``) must match a complete card log, or with a partial log add
        up to the hand size and give nobody fewer tricks than the log already does.
        """
        tricks = self.tricks
        if tricks is None:
            return so_far if complete_log else None
        hs = self.hand_size
        given = {self.players[s]: tricks.get(s, 0) for s in self.active}
        if complete_log:
            if given != so_far:
                self.add(
                    "tricks_mismatch",
                    "the tricks do not match the card log: the log gives "
                    + ", ".join(f"{p} {t}" for p, t in so_far.items()),
                    field="tricks",
                )
        else:
            total = sum(given.values())
            if total != hs:
                self.add(
                    "tricks_total",
                    f"tricks add up to {total}; a hand has {hs} tricks",
                    field="tricks",
                )
            elif any(so_far[p] > given[p] for p in given):
                self.add(
                    "tricks_mismatch",
                    "the card log already gives some players more tricks than the summary",
                    field="tricks",
                )
        return given

    def play_error(self, tp: TrickPlay, seat: int, card: int) -> None:
        players = self.players
        name = players[seat]
        trick_no = tp.trick_no + 1
        where: ErrorWhere = {
            "field": "plays",
            "player": name,
            "card": CARD_NAMES[card],
            "trick": trick_no,
        }
        if seat != tp.to_act:
            self.add(
                "out_of_turn",
                f"trick {trick_no}: {name} played {CARD_NAMES[card]} but it was "
                f"{players[tp.to_act]}'s turn (R17)",
                **where,
            )
        elif tp.dead >> card & 1:
            self.add(
                "duplicate_card",
                f"trick {trick_no}: {CARD_NAMES[card]} was already played",
                **where,
            )
        else:
            self.add(
                "card_not_in_hand",
                f"trick {trick_no}: {name} played {CARD_NAMES[card]}, not in their hand",
                **where,
            )

    def table_reneges(self, found: list[Renege]) -> list[Renege]:
        out: list[Renege] = []
        players = self.players
        for r in self.reneges:
            name = players[r["seat"]]
            if not r["corrected"] and any(
                f["player"] == name and (r["trick"] is None or r["trick"] == f["trick"])
                for f in found
            ):
                continue
            out.append(
                {
                    "player": name,
                    "trick": r["trick"],
                    "card": CARD_NAMES[r["card"]] if r["card"] is not None else None,
                    "rule": r["rule"],
                    "legal": None,
                    "corrected": r["corrected"],
                }
            )
        return out

    def finish_without_play(
        self, active: list[int], deemed: bool, tricks: dict[int, int] | None
    ) -> Verdict:
        players = self.players
        hs = self.rules.hand_size
        winner = active[0] if active else (self.dealer_seat if deemed else None)
        if (
            tricks is not None
            and any(tricks.values())
            and (winner is None or tricks.get(winner) != hs)
        ):
            self.add(
                "tricks_mismatch",
                "nobody plays a trick here: "
                + (
                    f"{players[winner]} takes all {hs} uncontested (R14)"
                    if winner is not None
                    else "everybody passed (R40)"
                ),
                field="tricks",
            )
            return _invalid(self.errors)
        final = {players[winner]: hs} if winner is not None else {}
        # only a dealer's R12 renege (R38) is possible without a card played
        reneges = self.table_reneges([])
        return {
            "valid": True,
            "errors": [],
            "complete": True,
            "tricks": final,
            "reneges": reneges,
            "next": None,
            "result": self.settle(active, final, reneges, deemed=deemed),
        }

    def settle(
        self,
        active: list[int],
        tricks: dict[str, int],
        reneges: list[Renege],
        *,
        deemed: bool,
    ) -> HandResult:
        players = self.players
        return _settle(
            players,
            players[self.dealer_seat],
            self.rules,
            tricks if len(active) > 1 else None,
            {players[s] for s in self.passed},
            self.carry,
            {players[s] for s in self.excused},
            [(r["player"], r["corrected"]) for r in reneges],
            {players[s] for s in self.forfeits},
            deemed,
        )
