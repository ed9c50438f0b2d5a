"""Bourré rules engine: pure Python, standard library only (never imports Django).

RULES.md is the rules reference and HAND_RECORD.md the JSON contract; rule numbers in
names, messages and tests (``R21``) refer to RULES.md.

- :class:`HandState` (``state.py``) plays a digital hand: ``HandState.new(players, dealer,
  rules, rng)``, ``apply(action)``, ``view_for(player)``, ``outcome()``, ``to_record()``;
  :func:`replay` rebuilds one from its seed and action log. Beside it: ``actions.py`` (the
  phases, how declarations and the action log are stored, :class:`IllegalAction`),
  ``deck.py`` (the shuffled deal and the draw, also used by :func:`verify`) and
  ``hand_view.py`` (the seat and spectator views, the record and the verdict it gives out).
- :func:`verify` (``verify.py``) checks a reported hand record and settles it; pass 1,
  parsing the record's fields, is ``record_parse.py``; pass 2, the checks of passes,
  discards, hands and card places, is ``record_checks.py``.
- ``contracts.py`` types the JSON the engine takes and gives (TypedDicts, plain dicts at
  run time): :class:`~.contracts.HandRecord`, :class:`~.contracts.Verdict` and its
  :class:`~.contracts.HandResult`, the digital :data:`~.contracts.Action` and the
  :class:`~.contracts.PublicView` / :class:`~.contracts.SeatView`. Import it directly.
- ``record.py`` names the two parts of a hand record: ``SESSION_KEYS`` (what the session
  knows before the deal) and ``TABLE_KEYS`` (what happened at the table). Import it
  directly (``games.engine.record``).
- ``rulebook.py`` holds the rule wording, keyed by rule number: the engine's refusals,
  the digital board's "why" sentences and which rule each error code breaks.
- :func:`settle` is the payout arithmetic alone; :class:`Rules` the house-rule switches.
- :class:`RandomBot`, :class:`HeuristicBot` and :class:`CarefulBot` (the heuristic's
  card play, declaring only hands its measured table ``careful_table.py`` says gain over
  passing) act from a seat's view; so does
  :class:`ExpertBot` (``expert.py``, a determinized Monte Carlo search), and
  :func:`make_bot` picks one by seat level (easy, normal, careful, expert). ``botmatch.py`` runs
  the bot matches of ``python -m games.engine botmatch`` and ``bench/bots.py``.
- :class:`BourreError` (``errors.py``) is the one error base: every refusal (a bad
  card, a rule value, an illegal action) carries a ``code``, a ``field`` and an HTTP
  ``status``.
- ``games/engine/tournament.py`` is the pure tournament logic: table sizes, seat draws,
  balancing plans, rankings, places and prizes. It is not re-exported here; import
  ``games.engine.tournament``.
"""

from .actions import IllegalAction
from .bots import CarefulBot, HeuristicBot, RandomBot
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
from .expert import BOT_LEVELS, ExpertBot, make_bot
from .legal import illegal_reasons, legal_mask, sure_tricks
from .payout import settle, worst_next_carry
from .rules import (
    MAX_AMOUNT,
    MAX_BALANCE,
    MAX_POT,
    MAX_STAKE,
    RULE_FIELDS,
    RULE_HELP,
    RuleError,
    RuleField,
    Rules,
)
from .state import HandError, HandState, replay
from .verify import verify

__all__ = [
    "BOT_LEVELS",
    "BourreError",
    "CARD_NAMES",
    "MAX_AMOUNT",
    "MAX_BALANCE",
    "MAX_POT",
    "MAX_STAKE",
    "RULE_FIELDS",
    "RULE_HELP",
    "Card",
    "CardError",
    "CarefulBot",
    "ExpertBot",
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
    "make_bot",
    "mask_of",
    "parse_card",
    "parse_cards",
    "parse_suit",
    "replay",
    "settle",
    "sure_tricks",
    "worst_next_carry",
    "verify",
]
