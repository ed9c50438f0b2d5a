"""The house-rule switches of RULES.md as one frozen value, plus what a form needs to edit it.

Names and defaults are exactly the table of RULES.md. Choices made where RULES.md is
silent:

- Every bound on an amount is here, on the stored integer (the currency's minor unit; the
  engine never knows which, games.money does: in cents ``MAX_STAKE`` is $10 billion):
  ``MAX_POT`` (10**15) is the largest pot the books keep and ``MAX_STAKE`` (10**12) the
  largest ``ante`` and ``pot_limit``. A pot is at most ``MAX_POT`` plus one hand's antes
  (16 x ``MAX_STAKE`` at most, with ``double_ante`` and eight players), a payout at most a
  pot, so every amount fits a 64-bit column with room to spare. The pot does not grow
  past ``MAX_POT``: the verifier refuses a ``carry`` above it (``bad_carry``) and a hand
  whose next pot would pass it (``pot_over_cap``, naming the pot and asking for a pot
  limit); a digital table is refused a deal whose worst case could pass it
  (``payout.worst_next_carry``), since a digital hand cannot be re-entered once played.
  Without a pot limit every bourré pays the whole pot, so the pot can grow eightfold a
  hand and a table reaches the cap after some twenty all-bourré hands even at ante 1;
  with a limit it grows by at most 8 x (ante + limit) a hand, so a limited table never
  meets the cap in practice. A player's running total in a session stops at
  ``MAX_BALANCE`` (10**18; the ledger refuses the hand, ``balance_over_cap``: start a new
  session), so sums of legs stay 64-bit integers. ``MAX_AMOUNT`` is the old name of
  ``MAX_POT``.
- ``max_discard`` may be 0..5 whatever ``hand_size`` is; with four-card hands a player
  can of course discard at most four (``Rules.discard_limit``).
- ``double_ante`` and ``dealer_antes_for_all`` may both be on: the dealer antes for
  everybody and every player who plays adds a second ante of their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, TypedDict, cast

from .contracts import RulesDict
from .errors import BourreError
from .rulebook import gettext_noop

__all__ = [
    "MAX_AMOUNT",
    "MAX_POT",
    "MAX_STAKE",
    "RULE_FIELDS",
    "RULE_HELP",
    "RuleError",
    "RuleField",
    "Rules",
]

MAX_POT = 10**15
MAX_STAKE = MAX_POT // 1000
MAX_BALANCE = 10**18  # one account's running total in a session (a 64-bit column holds 9.2e18)
MAX_AMOUNT = MAX_POT


class RuleError(BourreError):
    """A rules object names an unknown switch or gives one a bad value.

    ``code`` is ``"unknown_rule"`` or ``"bad_rule_value"``; ``key`` (the ``field``) names
    the switch.
    """

    def __init__(
        self,
        code: str,
        key: str | None,
        message: str,
        *,
        params: Mapping[str, object] | None = None,
        message_id: str | None = None,
    ) -> None:
        super().__init__(
            message,
            code=code,
            field=key,
            params={"key": key, **(params or {})},
            message_id=message_id,
        )
        self.key = key


class RuleFieldDict(TypedDict):
    """:meth:`RuleField.to_dict`: how a switch is edited, as JSON."""

    key: str
    type: str
    default: object
    label: str
    help: str
    choices: list[object] | None
    min: int | None
    max: int | None


@dataclass(frozen=True, slots=True)
class RuleField:
    """How one switch is edited: ``type`` is "int", "optional_int", "bool" or "choice".

    ``choices`` lists the allowed values when they are a closed set (strings for
    "choice", ints for ``hand_size``); ``min``/``max`` bound the numbers.
    """

    key: str
    type: str
    default: Any
    label: str
    help: str
    choices: tuple[Any, ...] | None = None
    min: int | None = None
    max: int | None = None

    def to_dict(self) -> RuleFieldDict:
        return {
            "key": self.key,
            "type": self.type,
            "default": self.default,
            "label": self.label,
            "help": self.help,
            "choices": list(self.choices) if self.choices is not None else None,
            "min": self.min,
            "max": self.max,
        }


# Labels and help are English source texts marked for the catalogues (rulebook.gettext_noop,
# a no-op); the web layer translates them (games.sessions.rule_fields).
RULE_FIELDS: tuple[RuleField, ...] = (
    RuleField(
        "ante",
        "int",
        1,
        gettext_noop("Ante"),
        gettext_noop("What each player antes per hand (R5)."),
        min=1,
        max=MAX_STAKE,
    ),
    RuleField(
        "hand_size",
        "int",
        5,
        gettext_noop("Cards per hand"),
        gettext_noop("5 cards, or 4 for four-card Bourré (majority 3) (R7)."),
        choices=(5, 4),
    ),
    RuleField(
        "max_discard",
        "int",
        5,
        gettext_noop("Most cards a player may discard"),
        gettext_noop("How many cards a player who plays may exchange (R9)."),
        min=0,
        max=5,
    ),
    RuleField(
        "pot_limit",
        "optional_int",
        None,
        gettext_noop("Pot limit"),
        gettext_noop("Caps what a bourré or renege costs; empty for no limit (R37)."),
        min=1,
        max=MAX_STAKE,
    ),
    RuleField(
        "limit_caps_winner",
        "bool",
        False,
        gettext_noop("Limit caps the winner"),
        gettext_noop("The winner takes at most the pot limit; the rest carries (R37)."),
    ),
    RuleField(
        "double_ante",
        "bool",
        False,
        gettext_noop("Double ante"),
        gettext_noop("Every player who plays adds a second ante; nobody is ever excused."),
    ),
    RuleField(
        "dealer_antes_for_all",
        "bool",
        False,
        gettext_noop("Dealer antes for all"),
        gettext_noop("Only the dealer antes, ante × players; nobody is excused."),
    ),
    RuleField(
        "declaration",
        "choice",
        "sequential",
        gettext_noop("Declaring"),
        gettext_noop("Declare in turn from the dealer's left, or all at once (R9, R40)."),
        choices=("sequential", "simultaneous"),
    ),
    RuleField(
        "undertrump_required",
        "bool",
        True,
        gettext_noop("Must undertrump"),
        gettext_noop("Void in the led suit and unable to overtrump: still play a trump (R22)."),
    ),
    RuleField(
        "head_led_suit_after_trump",
        "bool",
        False,
        gettext_noop("Head the led suit after a trump"),
        gettext_noop(
            "Following suit to a trumped trick must still beat the led suit's best card (R21)."
        ),
    ),
    RuleField(
        "lead_trump_when_others_void",
        "bool",
        True,
        gettext_noop("Lead trump when others are void"),
        gettext_noop("Lead trump when every other player is known to hold none (R26)."),
    ),
    RuleField(
        "cinch",
        "choice",
        "sure_tricks",
        gettext_noop("Cinch"),
        gettext_noop(
            "A player sure of a majority must lead the highest trump, and play it when it "
            "would win the trick (R27–R31)."
        ),
        choices=("sure_tricks", "off"),
    ),
    RuleField(
        "cinch_equivalence",
        "choice",
        "sequence",
        gettext_noop("Cinch equivalents"),
        gettext_noop("Which trumps count as equal to the highest under the cinch (R30)."),
        choices=("sequence", "adjacent", "none"),
    ),
    RuleField(
        "split_pot",
        "choice",
        "carry",
        gettext_noop("Split pot"),
        gettext_noop(
            "On a tie for most tricks the pot carries over, or is shared by the tied (R34)."
        ),
        choices=("carry", "divide"),
    ),
    RuleField(
        "tied_excused",
        "bool",
        True,
        gettext_noop("Tied players skip the ante"),
        gettext_noop("Players tied for most tricks skip the next ante when the pot carried (R35)."),
    ),
    RuleField(
        "ineligible_winner",
        "choice",
        "carry",
        gettext_noop("When a reneger has most tricks"),
        gettext_noop("The pot carries, or goes to the best eligible player (R39)."),
        choices=("carry", "next_best"),
    ),
    RuleField(
        "stock_refill",
        "choice",
        "discards_except_current",
        gettext_noop("When the stock runs out"),
        gettext_noop("Which cards are reshuffled into a new stock during the draw (R15)."),
        choices=("discards_except_current", "discards_all", "folded_then_discards"),
    ),
    RuleField(
        "dealer_may_discard_upcard",
        "bool",
        True,
        gettext_noop("Dealer may discard the up-card"),
        gettext_noop("The dealer may exchange the face-up trump card (R13)."),
    ),
)

RULE_HELP: dict[str, str] = {f.key: f.help for f in RULE_FIELDS}
_FIELDS_BY_KEY: dict[str, RuleField] = {f.key: f for f in RULE_FIELDS}


def _value_error(spec: RuleField, value: object) -> str | None:
    """Why ``value`` is not allowed for ``spec``, or None when it is."""
    kind = spec.type
    if kind == "bool":
        return None if type(value) is bool else "must be true or false"
    if kind == "choice":
        choices = spec.choices or ()  # every "choice" field lists its choices
        if type(value) is str and value in choices:
            return None
        return "must be one of " + ", ".join(choices)
    if kind == "optional_int" and value is None:
        return None
    # bool is an int subclass in Python; JSON true is never a number here.
    if type(value) is not int:
        return "must be a whole number" + (" or null" if kind == "optional_int" else "")
    if spec.choices is not None and value not in spec.choices:
        return "must be one of " + ", ".join(str(c) for c in spec.choices)
    if spec.min is not None and value < spec.min:
        return f"must be at least {spec.min}"
    if spec.max is not None and value > spec.max:
        return f"must be at most {spec.max}"
    return None


def rule_errors(data: object) -> tuple[dict[str, Any], list[RuleError]]:
    """Check a rules mapping; return the accepted values and every problem found."""
    if data is None:
        return {}, []
    if not isinstance(data, Mapping):
        return {}, [
            RuleError(
                "bad_rule_value",
                None,
                "rules must be an object of switches",
                message_id="rules_not_object",
            )
        ]
    values: dict[str, Any] = {}
    errors: list[RuleError] = []
    for key, value in data.items():
        spec = _FIELDS_BY_KEY.get(key) if type(key) is str else None
        if spec is None:
            shown = key if type(key) is str and len(key) <= 40 else "?"
            errors.append(RuleError("unknown_rule", shown, f"unknown rule {shown!r}"))
            continue
        problem = _value_error(spec, value)
        if problem is None:
            values[key] = value
        else:
            errors.append(RuleError("bad_rule_value", key, f"rule {key!r} {problem}"))
    return values, errors


@dataclass(frozen=True, slots=True)
class Rules:
    """Every house-rule switch of RULES.md with its default."""

    ante: int = 1
    hand_size: int = 5
    max_discard: int = 5
    pot_limit: int | None = None
    limit_caps_winner: bool = False
    double_ante: bool = False
    dealer_antes_for_all: bool = False
    declaration: str = "sequential"
    undertrump_required: bool = True
    head_led_suit_after_trump: bool = False
    lead_trump_when_others_void: bool = True
    cinch: str = "sure_tricks"
    cinch_equivalence: str = "sequence"
    split_pot: str = "carry"
    tied_excused: bool = True
    ineligible_winner: str = "carry"
    stock_refill: str = "discards_except_current"
    dealer_may_discard_upcard: bool = True

    def __post_init__(self) -> None:
        for f in fields(self):
            problem = _value_error(_FIELDS_BY_KEY[f.name], getattr(self, f.name))
            if problem is not None:
                raise RuleError("bad_rule_value", f.name, f"rule {f.name!r} {problem}")

    @property
    def majority(self) -> int:
        """Tricks that make a cinch (R28): 3 of 5, 3 of 4."""
        return self.hand_size // 2 + 1

    @property
    def discard_limit(self) -> int:
        return min(self.max_discard, self.hand_size)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Rules:
        """Rules from a JSON object; missing keys take defaults.

        Raises :class:`RuleError` for the first unknown key or bad value.
        """
        cache_key: tuple[Any, ...] | None = None
        if type(data) is dict:
            try:
                cache_key = tuple(data.items())
                hit = _FROM_DICT_CACHE.get(cache_key)
            except TypeError:  # an unhashable value: certainly not a valid rules object
                cache_key = hit = None
            # True == 1 as dict keys, so the value types must match the cached ones too
            if hit is not None and hit[1] == tuple(map(type, data.values())):
                return hit[0]
        values, errors = rule_errors(data)
        if errors:
            raise errors[0]
        rules = DEFAULT_RULES if not values else cls(**values)
        if cache_key is not None and len(_FROM_DICT_CACHE) < 256:
            assert data is not None  # cache_key is made from a dict only
            _FROM_DICT_CACHE[cache_key] = (rules, tuple(map(type, data.values())))
        return rules

    def to_dict(self) -> RulesDict:
        # the keys are this dataclass's fields, which RulesDict declares one by one (held
        # together by tests/engine/test_contract_types.py)
        return cast(RulesDict, {f.name: getattr(self, f.name) for f in fields(self)})

    def replace(self, **changes: Any) -> Rules:
        return Rules(**{**self.to_dict(), **changes})


# Rules.from_dict runs on every verify() call; records of one session repeat one rules
# object, so a small cache of validated results is worth it.
_FROM_DICT_CACHE: dict[tuple[Any, ...], tuple[Rules, tuple[type, ...]]] = {}
DEFAULT_RULES = Rules()
