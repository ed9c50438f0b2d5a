"""The record form's sentences that are built, not just translated: a message that names
its rule once ("… (R10)."), and what an unfinished card log still lacks. The words are in
the reader's language (the rule numbers stay: the page turns them into "why?" links).
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext as _

RULE_IN_TEXT = re.compile(r"\(R\d{1,2}\)")


def _sentence(text: str, capitalize: bool = True) -> str:
    text = text.strip()
    if not text:
        return text
    if capitalize:
        text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def with_rule(message: str, rule: str | None, capitalize: bool = False) -> str:
    """A message that names its rule once: "… (R10)."; player names keep their case."""
    message = message.strip().rstrip(".")
    if rule and not RULE_IN_TEXT.search(message):
        # A question keeps its mark last ("… the other 1 (R7)?"), so the page, which
        # turns "(R7)" into a "why?" link, never shows "1?.".
        if message.endswith(("?", "!")):
            message = f"{message[:-1]} ({rule}){message[-1]}"
        else:
            message = f"{message} ({rule})"
    return _sentence(message, capitalize)


def incomplete_message(verdict: dict[str, Any]) -> str:
    nxt = verdict.get("next") or {}
    who = nxt.get("player")
    if who:
        legal = nxt.get("legal")
        if legal:
            return _(
                "The card log stops before the hand is over: %(player)s plays next (they may "
                "play %(cards)s). Add the remaining cards, or enter the tricks with the steppers."
            ) % {"player": who, "cards": ", ".join(legal)}
        return _(
            "The card log stops before the hand is over: %(player)s plays next. "
            "Add the remaining cards, or enter the tricks with the steppers."
        ) % {"player": who}
    return _("The hand is not over yet: enter the tricks, or the whole card log.")
