"""Pass 1 of :func:`~games.engine.verify.verify`: a hand record's fields, parsed.

:class:`RecordParser` turns the JSON of a record (HAND_RECORD.md) into seats and card
indices, and reports every field of the wrong JSON type, every card or name that does not
parse and every unknown field, all at once. It is separate from ``verify.py`` because it
judges each field on its own (a JSON type, a card, a name, a number in range; only the
trump suit is read together with the up-card); how the fields agree with each other and
with the rules of play is for passes 2 and 3 (``verify.py``), run on what it parsed. The
choices it makes where HAND_RECORD.md is silent (``null`` as missing, unknown fields as
errors, the renege entry's optional keys) are listed with the others in ``verify.py``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import reduce
from operator import or_
from typing import TypedDict, TypeGuard, Unpack, cast

from .cards import CARD_LOOKUP, CARD_NAMES, CardError, card_or_none, parse_suit
from .contracts import ErrorWhere, RecordError
from .record import SESSION_KEYS, TABLE_KEYS
from .rules import MAX_AMOUNT, RuleError, Rules, rule_errors

__all__ = ["RecordParser"]


_FIELDS = frozenset(SESSION_KEYS) | frozenset(TABLE_KEYS)
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


class _Renege(TypedDict):
    """A renege the record reports (``reneges``), parsed: seats and card indices."""

    seat: int
    corrected: bool
    trick: int | None
    card: int | None
    rule: str | None


class RecordParser:
    """Pass 1 of one record: :meth:`parse` fills in the fields below and the errors.

    Every error found so far is in ``errors`` (:meth:`add`); the later passes of the
    verifier (a subclass) add theirs to the same list.
    """

    # the record's fields, parsed
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

    def __init__(self, record: object) -> None:
        self.record = record
        self.errors: list[RecordError] = []

    def add(self, code: str, message: str, **where: Unpack[ErrorWhere]) -> None:
        # keys in the caller's order, as the API has always shown them; None is left out
        found = {key: value for key, value in where.items() if value is not None}
        self.errors.append(cast(RecordError, {"code": code, "message": message, **found}))

    def parse(self) -> bool:
        """Parse every field; True when all parsed, else the errors say what did not."""
        record = self.record
        if not isinstance(record, dict):
            self.add("bad_record", "a hand record must be a JSON object")
            return False
        add = self.add
        if not record.keys() <= _FIELDS:
            for key in record:
                if key not in _FIELDS:
                    add("unknown_field", f"unknown field {_show(key)}", field=_name(key))

        rules = self.parse_rules(record.get("rules"))
        players = record.get("players")
        if not self.check_players(players):
            return False
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
            add(
                "bad_carry",
                f"carry must be a whole number from 0 to {MAX_AMOUNT}",
                field="carry",
            )
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
            return False
        self.rules = rules
        return True

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
