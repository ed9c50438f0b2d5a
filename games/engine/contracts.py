"""The engine's JSON contracts, typed: the hand record, the verdict, the digital action
and the seat views.

These are the shapes HAND_RECORD.md describes and the digital board shows, as
:class:`~typing.TypedDict` classes (python-chess types its moves and outcomes the same
way). A TypedDict is a plain ``dict`` at run time, so what the engine returns is still the
JSON the API serves, the database stores and the templates read, byte for byte: the types
only let mypy check every reader of a key. Key order in each class is the order the
engine writes the keys in.

- :class:`HandRecord` is a record (input of :func:`~games.engine.verify`, output of
  ``HandState.to_record()``): the session's part (:class:`SessionRecord`) and the
  table's (:class:`TableRecord`); ``record.py`` names their keys from these classes.
- :class:`Verdict` is what :func:`~games.engine.verify` answers, with
  :class:`RecordError`, :class:`Renege`, :class:`NextTurn` and :class:`HandResult`
  (the settled money, from ``payout.py``).
- :data:`Action` is a digital action (:class:`PassAction`, :class:`PlayAction`,
  :class:`CardAction`); ``HandState.apply`` still takes any mapping, since actions
  arrive as untrusted JSON and are checked there.
- :class:`PublicView` is what a spectator sees, :class:`SeatView` what one seat sees.
- :class:`RulesDict` is :meth:`Rules.to_dict() <games.engine.rules.Rules.to_dict>`.

tests/engine/test_contract_types.py holds each class to real engine output: every key a
real value has is declared, every required key is present.
"""

# No ``from __future__ import annotations`` here: TypedDict reads NotRequired[...] from
# the evaluated annotations, so __required_keys__ (which the contract tests check) would
# otherwise call every key required.
from collections.abc import Mapping
from typing import Literal, NotRequired, TypeAlias, TypedDict

__all__ = [
    "Action",
    "CardAction",
    "DeclareChoice",
    "ErrorWhere",
    "HandRecord",
    "HandResult",
    "NextTurn",
    "PassAction",
    "PlayAction",
    "PlayedTrick",
    "PublicView",
    "RecordError",
    "Renege",
    "RulesDict",
    "SeatView",
    "SessionRecord",
    "TableRecord",
    "TableRenege",
    "TrickCard",
    "Verdict",
]


class RulesDict(TypedDict):
    """Every house-rule switch (RULES.md), as :meth:`Rules.to_dict` writes them."""

    ante: int
    hand_size: int
    max_discard: int
    pot_limit: int | None
    limit_caps_winner: bool
    double_ante: bool
    dealer_antes_for_all: bool
    declaration: str
    undertrump_required: bool
    head_led_suit_after_trump: bool
    lead_trump_when_others_void: bool
    cinch: str
    cinch_equivalence: str
    split_pot: str
    tied_excused: bool
    ineligible_winner: str
    stock_refill: str
    dealer_may_discard_upcard: bool


# -- the hand record (input) ---------------------------------------------------------------


class TableRenege(TypedDict):
    """A renege the table called, as a record lists it (``reneges``)."""

    player: str
    corrected: bool
    rule: NotRequired[str | None]
    trick: NotRequired[int | None]
    card: NotRequired[str | None]


class SessionRecord(TypedDict, total=False):
    """What the session knows before the deal (``record.SESSION_KEYS``)."""

    players: list[str]
    dealer: str
    carry: int
    excused: list[str]
    # partial in a reported record (missing switches take defaults), whole from the engine
    rules: Mapping[str, object]
    forfeits: list[str]


class TableRecord(TypedDict, total=False):
    """What happened at the table (``record.TABLE_KEYS``)."""

    up_card: str
    trump: str
    passed: list[str]
    discards: dict[str, list[str]]
    hands: dict[str, list[str]]
    plays: list[list[str]]  # [player, card] pairs, JSON arrays
    tricks: dict[str, int]
    reneges: list[TableRenege]


class HandRecord(SessionRecord, TableRecord, total=False):
    """A whole hand record (HAND_RECORD.md, "Record (input)")."""


# -- the verdict (output) ------------------------------------------------------------------


class ErrorWhere(TypedDict, total=False):
    """Where a record error points; a None value is left out of the error."""

    field: str | None
    player: str | None
    card: str | None
    trick: int | None
    key: str | None


class RecordError(TypedDict):
    """One reason a record is invalid: a ``code``, a ``message`` and where it points."""

    code: str
    message: str
    field: NotRequired[str]
    player: NotRequired[str]
    card: NotRequired[str]
    trick: NotRequired[int]
    key: NotRequired[str]


class Renege(TypedDict):
    """A renege in a verdict: found in the card log, or called by the table."""

    player: str
    trick: int | None
    card: str | None
    rule: str | None  # the broken rule, R19…R29 (R12 for a dealer's fold, R38)
    legal: list[str] | None  # what the player could have played (None when called)
    corrected: bool


class NextTurn(TypedDict):
    """Who acts next in an unfinished hand, and the cards they may play (None unknown)."""

    player: str | None
    legal: list[str] | None


class HandResult(TypedDict):
    """The ``result`` of a finished hand: who takes the pot and who pays what."""

    outcome: str  # uncontested, all_passed, win, split or ineligible
    winner: str | None
    pot: int
    antes: dict[str, int]
    payouts: dict[str, int]
    bourre: list[str]
    penalties: dict[str, int]
    next_carry: int
    excused_next: list[str]
    next_dealer: str
    forfeits_next: list[str]


class Verdict(TypedDict):
    """What :func:`~games.engine.verify` answers. An invalid verdict has ``valid`` and
    ``errors`` only; a valid one has every key (``next`` and ``result`` may be None)."""

    valid: bool
    errors: list[RecordError]
    complete: NotRequired[bool]
    tricks: NotRequired[dict[str, int]]
    reneges: NotRequired[list[Renege]]
    next: NotRequired[NextTurn | None]
    result: NotRequired[HandResult | None]


# -- the digital hand ----------------------------------------------------------------------


class PassAction(TypedDict):
    type: Literal["pass"]
    player: str


class PlayAction(TypedDict):
    type: Literal["play"]
    player: str
    discard: list[str]


class CardAction(TypedDict):
    type: Literal["card"]
    player: str
    card: str


Action: TypeAlias = PassAction | PlayAction | CardAction


class TrickCard(TypedDict):
    player: str
    card: str


class PlayedTrick(TypedDict):
    leader: str
    cards: list[TrickCard]
    winner: str


class PublicView(TypedDict):
    """What a spectator may see of a digital hand: no hidden card."""

    players: list[str]
    dealer: str
    phase: str  # declare, play or done
    to_act: str | None
    awaiting: list[str]
    up_card: str
    up_card_dead: bool
    trump: str
    rules: RulesDict
    carry: int
    pot: int
    excused: list[str]
    declared: list[str]
    declarations: dict[str, str]  # player → "pass" or "play", once revealed
    discard_counts: dict[str, int]
    passed: list[str]
    active: list[str]
    hand_counts: dict[str, int]
    trick_number: int
    trick: list[TrickCard]
    trick_leader: str | None
    tricks_played: list[PlayedTrick]
    tricks: dict[str, int]
    result: HandResult | None


class DeclareChoice(TypedDict):
    """A seat's choices while it declares."""

    can_pass: bool
    pass_rule: str | None  # R12 when the dealer may not pass
    max_discard: int
    keep: list[str]  # cards that may not be discarded


class SeatView(PublicView):
    """What one seat may see: the public view plus its own cards and choices."""

    seat: str
    hand: list[str]
    folded: bool
    own_discards: list[str]
    legal: list[str]
    illegal: dict[str, str]  # card → the rule forbidding it
    declare: DeclareChoice | None
