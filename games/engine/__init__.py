"""Bourré rules engine: pure Python, standard library only (never imports Django).

RULES.md is the rules reference and HAND_RECORD.md the JSON contract; rule numbers in
names, messages and tests (``R21``) refer to RULES.md.

- :class:`HandState` plays a digital hand: ``HandState.new(players, dealer, rules, rng)``,
  ``apply(action)``, ``view_for(player)``, ``outcome()``, ``to_record()``; :func:`replay`
  rebuilds one from its seed and action log.
- :func:`verify` checks a reported hand record and settles it.
- :func:`settle` is the payout arithmetic alone; :class:`Rules` the house-rule switches.
- :class:`RandomBot` and :class:`HeuristicBot` act from a seat's view.
- :class:`BourreError` (``errors.py``) is the one error base: every refusal (a bad
  card, a rule value, an illegal action) carries a ``code``, a ``field`` and an HTTP
  ``status``.
- ``games/engine/tournament.py`` is the pure tournament logic: table sizes, seat draws,
  balancing plans, rankings, places and prizes. It is not re-exported here; import
  ``games.engine.tournament``.
"""

from .bots import HeuristicBot, RandomBot
from .cards import (
    CARD_NAMES,
    Card,
    CardError,
    Rank,
    Suit,
    card_name,
    card_names,
    mask_of,
    parse_card,
    parse_cards,
    parse_suit,
)
from .errors import BourreError
from .legal import illegal_reasons, legal_mask, sure_tricks
from .payout import settle
from .rules import MAX_AMOUNT, RULE_FIELDS, RULE_HELP, RuleError, RuleField, Rules
from .state import HandError, HandState, IllegalAction, replay
from .verify import verify

__all__ = [
    "BourreError",
    "CARD_NAMES",
    "MAX_AMOUNT",
    "RULE_FIELDS",
    "RULE_HELP",
    "Card",
    "CardError",
    "HandError",
    "HandState",
    "HeuristicBot",
    "IllegalAction",
    "RandomBot",
    "Rank",
    "RuleError",
    "RuleField",
    "Rules",
    "Suit",
    "card_name",
    "card_names",
    "illegal_reasons",
    "legal_mask",
    "mask_of",
    "parse_card",
    "parse_cards",
    "parse_suit",
    "replay",
    "settle",
    "sure_tricks",
    "verify",
]
