"""verify(record) → verdict, exactly as HAND_RECORD.md describes.

A record is checked in three passes, each only when the previous found nothing wrong
(later checks would otherwise report the same mistake again in confusing words):

1. shapes: every field has the right JSON type, every card and name parses;
2. consistency: passes, discards, hands, the up-card, tricks and reneges agree;
3. the card log, replayed through the same :class:`~games.engine.legal.TrickPlay` as
   the digital game: turn order, cards in hand, and legality (an illegal card is a
   renege, not an error: it stays played and the offender pays, R39).

No input makes :func:`verify` raise; anything that is not a hand gives
``valid: false`` with a list of errors ``{code, message, field?, player?, card?,
trick?, key?}``.

Error codes beyond HAND_RECORD.md: ``bad_record`` (not an object, or a field of the
wrong JSON type), ``unknown_field``, ``bad_carry``, ``missing_trump``, ``bad_suit``,
``duplicate_player``, ``bad_passed`` (everybody passed under sequential declaration),
``too_many_discards``, ``up_card_misplaced``, ``bad_tricks``, ``bad_renege``.

Choices where HAND_RECORD.md is silent:

- Unknown top-level fields are errors (a typo such as ``"pased"`` must not silently
  change the verdict). One field is added: ``forfeits``, players who owe a forfeited
  deal (R16 out-of-turn declarations called by the table, or earlier hands); the result
  then also says ``forfeits_next``.
- ``null`` is the same as a missing optional field. A valid verdict always has every
  key: ``next`` is null once the hand is complete, ``result`` null until it is.
- A passed player may have no discards, no hand, no plays and no reneges
  (``passed_player_played``, ``bad_renege``).
- Under sequential declaration all players cannot pass: once all but the dealer have
  passed the dealer wins uncontested (R14) and never declares. Such a record is an
  error (``dealer_must_play`` with an Ace up, else ``bad_passed``).
- R12 is checked as a record error, not as a renege: a dealer listed in ``passed``
  with an Ace up is ``dealer_must_play``, except when everybody passed under
  simultaneous declaration, where R40 deems the dealer to play and win.
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
- ``carry`` (like ``ante`` and ``pot_limit``) is at most ``MAX_AMOUNT`` = 10**15 minor
  units, so every amount fits a 64-bit column.
- A card in someone's hand that another player discarded is possible only when that
  discard pile was reshuffled into the stock before this player was served (R15);
  otherwise it is a ``duplicate_card``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import reduce
from operator import or_
from typing import Any, TypedDict, TypeGuard

from .cards import CARD_LOOKUP, CARD_NAMES, CardError, card_names, card_or_none, parse_suit
from .legal import TrickPlay
from .payout import _settle
from .rules import MAX_AMOUNT, RuleError, Rules, rule_errors
from .state import run_draw

__all__ = ["verify"]

_FIELDS = frozenset(
    {
        "rules",
        "players",
        "dealer",
        "carry",
        "excused",
        "up_card",
        "trump",
        "passed",
        "discards",
        "hands",
        "plays",
        "tricks",
        "reneges",
        "forfeits",
    }
)
_RENEGE_KEYS = frozenset({"player", "corrected", "trick", "card", "rule"})
_RULE_RE = re.compile(r"R[0-9]{1,2}")
_MAX_PLAYS = 8 * 5
_JUST_LISTS = frozenset({list})
_BIT = tuple(1 << c for c in range(52))


def _show(value: object) -> str:
    """A short, always printable description of any JSON value for messages."""
    if type(value) is str:
        return repr(value if len(value) <= 24 else value[:24] + "…")
    if value is None:
        return "null"
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is int:
        return str(value) if -(10**12) < value < 10**12 else "a very large number"
    if type(value) is float:
        return "a decimal number"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "a " + type(value).__name__


def _name(value: object) -> str | None:
    """A player name fit to echo back in an error (None if it is not a short string)."""
    if type(value) is str:
        return value if len(value) <= 40 else value[:40] + "…"
    return None


def _invalid(errors: list[dict[str, Any]]) -> dict[str, Any]:
    return {"valid": False, "errors": errors}


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


def verify(record: object) -> dict[str, Any]:
    """Check a hand record and settle it; see HAND_RECORD.md. Never raises."""
    try:
        return _Verifier(record).run()
    except Exception:  # pragma: no cover - a bug; still never let input crash a caller
        return _invalid(
            [{"code": "internal_error", "message": "the verifier failed on this record"}]
        )


class _Renege(TypedDict):
    """A renege the record reports (``reneges``), parsed: seats and card indices."""

    seat: int
    corrected: bool
    trick: int | None
    card: int | None
    rule: str | None


class _Verifier:
    """One record being checked: pass 1 in :meth:`run`, passes 2 and 3 in :meth:`check`."""

    # pass 1 (run): the record's fields, parsed
    players: list[str]
    n: int
    seat_of: dict[str, int]
    dealer: int | None
    carry: int
    excused: list[int]
    passed: list[int]
    forfeits: list[int]
    up_card: int | None
    trump: int | None
    discards: dict[int, tuple[list[int], int]]
    hands: dict[int, tuple[list[int], int]]
    plays: list[tuple[int, int]]
    tricks: dict[int, int] | None
    reneges: list[_Renege]
    rules: Rules
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
    up_dead: bool

    def __init__(self, record: object) -> None:
        self.record = record
        self.errors: list[dict[str, Any]] = []

    def add(self, code: str, message: str, **extra: Any) -> None:
        error = {"code": code, "message": message}
        for key, value in extra.items():
            if value is not None:
                error[key] = value
        self.errors.append(error)

    # -- pass 1: shapes ------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        record = self.record
        if not isinstance(record, dict):
            return _invalid(
                [{"code": "bad_record", "message": "a hand record must be a JSON object"}]
            )
        add = self.add
        if not record.keys() <= _FIELDS:
            for key in record:
                if key not in _FIELDS:
                    add("unknown_field", f"unknown field {_show(key)}", field=_name(key))

        rules = self.parse_rules(record.get("rules"))
        players = record.get("players")
        if not self.check_players(players):
            return _invalid(self.errors)
        self.players = players
        self.n = len(players)
        self.seat_of = {p: i for i, p in enumerate(players)}

        dealer = record.get("dealer")
        self.dealer = self.seat_of.get(dealer) if type(dealer) is str else None
        if self.dealer is None:
            add(
                "bad_dealer",
                f"the dealer {_show(dealer)} must be one of the players",
                field="dealer",
            )
        carry = record.get("carry")
        if carry is None:
            carry = 0
        elif type(carry) is not int or not 0 <= carry <= MAX_AMOUNT:
            add("bad_carry", "carry must be a whole number from 0 up", field="carry")
            carry = 0
        self.carry = carry
        self.excused = self.name_list("excused", record.get("excused"))
        self.passed = self.name_list("passed", record.get("passed"))
        self.forfeits = self.name_list("forfeits", record.get("forfeits"))
        self.parse_trump(record.get("up_card"), record.get("trump"))
        self.discards = self.card_map("discards", record.get("discards"))
        self.hands = self.card_map("hands", record.get("hands"))
        self.plays = self.parse_plays(record.get("plays"))
        self.tricks = self.parse_tricks(record.get("tricks"))
        self.reneges = self.parse_reneges(record.get("reneges"), rules.hand_size if rules else 5)
        if self.errors or rules is None:
            return _invalid(self.errors)
        self.rules = rules
        return self.check()

    def parse_rules(self, raw: object) -> Rules | None:
        if raw is None:
            return Rules.from_dict(None)
        if isinstance(raw, Mapping):
            try:
                return Rules.from_dict(raw)
            except RuleError:
                pass
        _, problems = rule_errors(raw)
        for e in problems:
            self.add(e.code, str(e), field="rules", key=e.key)
        return None

    def check_players(self, players: object) -> TypeGuard[list[str]]:
        if type(players) is not list:
            self.add("bad_players", "players must be a list of 2 to 8 names", field="players")
            return False
        if not 2 <= len(players) <= 8:
            self.add("bad_players", "a hand needs 2 to 8 players (R3)", field="players")
            return False
        if set(map(type, players)) != {str} or not all(players):
            self.add("bad_players", "every player must be a non-empty name", field="players")
            return False
        if len(set(players)) != len(players):
            self.add("bad_players", "player names must be distinct", field="players")
            return False
        return True

    def seat(self, value: object, field: str) -> int | None:
        seat = self.seat_of.get(value) if type(value) is str else None
        if seat is None:
            self.add(
                "unknown_player",
                f"{_show(value)} in {field} is not one of the players",
                field=field,
                player=_name(value),
            )
        return seat

    def name_list(self, field: str, raw: object) -> list[int]:
        if raw is None:
            return []
        if type(raw) is not list:
            self.add("bad_record", f"{field} must be a list of players", field=field)
            return []
        seats: list[int] = []
        for value in raw[:64]:
            seat = self.seat(value, field)
            if seat is None:
                continue
            if seat in seats:
                self.add(
                    "duplicate_player",
                    f"{value} is listed twice in {field}",
                    field=field,
                    player=value,
                )
                continue
            seats.append(seat)
        if len(raw) > 64:
            self.add("bad_record", f"{field} lists too many players", field=field)
        return seats

    def parse_trump(self, up: object, trump: object) -> None:
        self.up_card = None
        self.trump = None
        if up is not None:
            self.up_card = card_or_none(up)
            if self.up_card is None:
                self.add("bad_card", f"up_card {_show(up)} is not a card", field="up_card")
        if trump is not None:
            try:
                self.trump = parse_suit(trump)
            except CardError:
                self.add("bad_suit", f"trump {_show(trump)} is not a suit (S, H, D, C)")
        if up is None and trump is None:
            self.add("missing_trump", "give the up_card or the trump suit", field="up_card")
        if self.up_card is not None:
            if self.trump is not None and self.up_card // 13 != self.trump:
                self.add(
                    "trump_mismatch",
                    f"trump {_show(trump)} is not the suit of the up-card "
                    f"{CARD_NAMES[self.up_card]} (R2)",
                    field="trump",
                    card=CARD_NAMES[self.up_card],
                )
            self.trump = self.up_card // 13

    def card_map(self, field: str, raw: object) -> dict[int, tuple[list[int], int]]:
        """{seat: (cards, mask of the cards)}; the mask has fewer bits on a repeat."""
        if raw is None:
            return {}
        if type(raw) is not dict:
            self.add("bad_record", f"{field} must map players to lists of cards", field=field)
            return {}
        out: dict[int, tuple[list[int], int]] = {}
        lookup = CARD_LOOKUP
        for name, cards in raw.items():
            seat = self.seat(name, field)
            if seat is None:
                continue
            if type(cards) is not list:
                self.add("bad_record", f"{field} of {name} must be a list of cards", field=field)
                continue
            if len(cards) > 13:
                code = "hand_size" if field == "hands" else "too_many_discards"
                self.add(code, f"{name} has too many cards in {field}", field=field, player=name)
                continue
            try:
                parsed = [lookup[text] for text in cards]  # the usual, canonical case
            except (KeyError, TypeError):
                parsed = []
                for text in cards:
                    card = card_or_none(text)
                    if card is None:
                        self.add(
                            "bad_card",
                            f"{_show(text)} in {field} of {name} is not a card",
                            field=field,
                            player=name,
                        )
                    else:
                        parsed.append(card)
            out[seat] = (parsed, reduce(or_, map(_BIT.__getitem__, parsed), 0))
        return out

    def parse_plays(self, raw: object) -> list[tuple[int, int]]:
        if raw is None:
            return []
        if type(raw) is not list:
            self.add("bad_record", "plays must be a list of [player, card]", field="plays")
            return []
        if len(raw) > _MAX_PLAYS:
            self.add("too_many_plays", "more cards played than a hand holds", field="plays")
            return []
        seat_of = self.seat_of
        lookup = CARD_LOOKUP
        if set(map(type, raw)) <= _JUST_LISTS:
            try:
                # the usual case: [name, canonical card] pairs, two dict lookups each
                return [(seat_of[name], lookup[text]) for name, text in raw]
            except (KeyError, TypeError, ValueError):
                pass  # something unusual: the careful loop says what
        plays = []
        for i, entry in enumerate(raw):
            kind = type(entry)
            if (kind is list or kind is tuple) and len(entry) == 2:
                name, text = entry
            elif kind is dict and entry.keys() == {"player", "card"}:
                name, text = entry["player"], entry["card"]
            else:
                self.add(
                    "bad_record",
                    f"play {i + 1} must be [player, card]",
                    field="plays",
                    trick=None,
                )
                continue
            seat = seat_of.get(name) if type(name) is str else None
            if seat is None:
                self.seat(name, "plays")
                continue
            card = card_or_none(text)
            if card is None:
                self.add("bad_card", f"play {i + 1}: {_show(text)} is not a card", field="plays")
                continue
            plays.append((seat, card))
        return plays

    def parse_tricks(self, raw: object) -> dict[int, int] | None:
        if raw is None:
            return None
        if type(raw) is not dict:
            self.add("bad_record", "tricks must map players to numbers", field="tricks")
            return None
        tricks: dict[int, int] = {}
        for name, value in raw.items():
            seat = self.seat(name, "tricks")
            if seat is None:
                continue
            if type(value) is not int or not 0 <= value <= 13:
                self.add(
                    "bad_tricks",
                    f"tricks of {name} must be a whole number from 0 to the hand size",
                    field="tricks",
                    player=name,
                )
                continue
            tricks[seat] = value
        return tricks

    def parse_reneges(self, raw: object, hand_size: int) -> list[_Renege]:
        if raw is None:
            return []
        if type(raw) is not list:
            self.add("bad_record", "reneges must be a list", field="reneges")
            return []
        out: list[_Renege] = []
        for entry in raw[:64]:
            if type(entry) is not dict or not entry.keys() <= _RENEGE_KEYS:
                self.add(
                    "bad_renege",
                    "a renege is {player, corrected} (optionally trick, card, rule)",
                    field="reneges",
                )
                continue
            seat = self.seat(entry.get("player"), "reneges")
            corrected = entry.get("corrected")
            if type(corrected) is not bool:
                self.add(
                    "bad_renege", "a renege must say corrected: true or false", field="reneges"
                )
                continue
            trick = entry.get("trick")
            if trick is not None and (type(trick) is not int or not 1 <= trick <= hand_size):
                self.add("bad_renege", "renege trick must be a trick number", field="reneges")
                continue
            card_text = entry.get("card")
            card = None
            if card_text is not None:
                card = card_or_none(card_text)
                if card is None:
                    self.add(
                        "bad_card",
                        f"renege card {_show(card_text)} is not a card",
                        field="reneges",
                    )
                    continue
            rule = entry.get("rule")
            if rule is not None and (type(rule) is not str or not _RULE_RE.fullmatch(rule)):
                self.add("bad_renege", "renege rule must look like R21", field="reneges")
                continue
            if seat is not None:
                out.append(
                    {
                        "seat": seat,
                        "corrected": corrected,
                        "trick": trick,
                        "card": card,
                        "rule": rule,
                    }
                )
        if len(raw) > 64:
            self.add("bad_renege", "too many reneges", field="reneges")
        return out

    # -- pass 2 and 3: consistency and the card log --------------------------------------

    def check(self) -> dict[str, Any]:
        """Passes 2 and 3, on a record whose every field parsed: the consistency checks
        all report, then the card log is replayed only if they found nothing wrong."""
        self.seat_facts()
        self.check_passed()
        disc, all_disc = self.check_discards()
        dealer = self.dealer_seat
        self.up_dead = bool(dealer in self.passed_set or disc[dealer] & self.up_bit)
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

    def seat_facts(self) -> None:
        """What every later step needs: who plays in which order, and the up-card."""
        dealer = self.dealer
        assert dealer is not None  # run() stops at a bad dealer
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
        elif self.dealer_seat in self.passed_set and self.ace_up:
            self.add(
                "dealer_must_play",
                f"with an Ace up the dealer {dealer_name} must play (R12)",
                player=dealer_name,
            )

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
            if r["seat"] in passed:
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
            if mask & up_bit and (seat != dealer or up_dead):
                add(
                    "up_card_misplaced",
                    f"{name} cannot hold the up-card {self.up_name}: "
                    + ("it was set aside (R13)" if up_dead else "it is in the dealer's hand"),
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
            overlap = hand[seat] & all_disc
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

    def play_log(
        self,
        hand: list[int],
        known: list[bool],
        private_dead: list[int] | None,
        complete_log: bool,
    ) -> dict[str, Any]:
        """Pass 3: replay the card log, check the tricks, and give the verdict."""
        players = self.players
        active = self.active
        trump = self.trump
        assert trump is not None  # run() stops without a trump suit
        tp = TrickPlay(
            self.n,
            active,
            hand,
            trump,
            self.rules,
            private_dead,
            self.up_bit if self.up_dead else 0,
        )
        reneges = self.replay(tp)
        if reneges is None:
            return _invalid(self.errors)

        so_far = {players[s]: tp.tricks_won[s] for s in active}
        final = self.final_tricks(so_far, complete_log)
        if self.errors:
            return _invalid(self.errors)

        reneges.extend(self.table_reneges(reneges))
        verdict: dict[str, Any] = {
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

    def replay(self, tp: TrickPlay) -> list[dict[str, Any]] | None:
        """Play the card log through ``tp``: the reneges it shows (an illegal card stays
        played, R39), or None after an error (out of turn, a card not in the hand)."""
        players = self.players
        reneges: list[dict[str, Any]] = []
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
        where = {"field": "plays", "player": name, "card": CARD_NAMES[card], "trick": trick_no}
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
        # The up-card never goes back into a stock (R13), folded or discarded.
        pile = {s: [s] * (disc[s] & ~up_bit).bit_count() for s in wants}
        folded = [None] * (hs * len(passed) - (1 if dealer in passed else 0))
        _, at = run_draw(
            order,
            wants,
            pile,
            [None] * stock_size,
            folded,
            self.rules.stock_refill,
            lambda cards: None,
        )
        return at

    def table_reneges(self, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
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
    ) -> dict[str, Any]:
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
        return {
            "valid": True,
            "errors": [],
            "complete": True,
            "tricks": final,
            "reneges": [],
            "next": None,
            "result": self.settle(active, final, [], deemed=deemed),
        }

    def settle(
        self,
        active: list[int],
        tricks: dict[str, int],
        reneges: list[dict[str, Any]],
        *,
        deemed: bool,
    ) -> dict[str, Any]:
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
