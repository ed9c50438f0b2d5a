"""The words of a digital hand: its phases, how it stores declarations and actions,
:class:`IllegalAction`; the rule texts its messages quote (:data:`RULE_TEXT`) come from
the rule book (``rulebook.py``).

:class:`~games.engine.state.HandState` keeps a declaration as :data:`PASSED` or the mask of
the cards to discard, and its action log as ``(kind, seat, value)`` triples that
:func:`action_dicts` turns back into the action dicts that :meth:`HandState.apply` takes.
These live apart from ``state.py`` so that ``hand_view.py`` (what each seat may see) can
read a hand without importing the module that imports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from .cards import CARD_NAMES, card_names
from .contracts import Action
from .errors import BourreError
from .rulebook import RULE_TEXT

__all__ = [
    "CARD_ACTION",
    "DECLARE",
    "DONE",
    "PASSED",
    "PASS_ACTION",
    "PLAY",
    "PLAY_ACTION",
    "RULE_TEXT",
    "IllegalAction",
    "action_dicts",
]

# HandState.phase
DECLARE = "declare"
PLAY = "play"
DONE = "done"
PASS_ACTION, PLAY_ACTION, CARD_ACTION = 0, 1, 2  # kinds in HandState.log
PASSED = -1  # in HandState.decl: passed; a mask (≥ 0) means "plays, discarding these"


class IllegalAction(BourreError):
    """An action that the rules (or the turn order) forbid.

    ``code`` says what kind of problem it is (``out_of_turn``, ``illegal_card``,
    ``card_not_in_hand``, ``dealer_must_play``, ...); ``rule`` the rule broken, like
    ``"R21"``, or None; ``legal`` what the player may do instead (card names, or
    action types during the declaration).
    """

    def __init__(
        self,
        message: str,
        *,
        code: str,
        rule: str | None = None,
        legal: Iterable[str] = (),
        params: Mapping[str, object] | None = None,
        message_id: str | None = None,
    ) -> None:
        facts = {"rule": rule, **(params or {})} if rule else params
        super().__init__(message, code=code, params=facts, message_id=message_id)
        self.rule = rule
        self.legal = list(legal)


def action_dicts(players: Sequence[str], log: Iterable[tuple[int, int, int]]) -> list[Action]:
    """Every action of a HandState log, as normalised action dicts (for replay())."""
    out: list[Action] = []
    for kind, seat, value in log:
        if kind == CARD_ACTION:
            out.append({"type": "card", "player": players[seat], "card": CARD_NAMES[value]})
        elif kind == PASS_ACTION:
            out.append({"type": "pass", "player": players[seat]})
        else:
            out.append({"type": "play", "player": players[seat], "discard": card_names(value)})
    return out
