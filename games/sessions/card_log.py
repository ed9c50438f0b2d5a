"""The record form's card log: "ann AS, ben KS, …" or a JSON piece of a hand record,
parsed into the table's part of the record (and written back for a prefilled form)."""

from __future__ import annotations

import json
import re
from typing import Any

from django import forms

from games.engine import CARD_NAMES, CardError, parse_card
from games.engine.record import SESSION_KEYS, TABLE_KEYS

__all__ = ["ENTRY_KEYS", "parse_card_log", "plays_text"]

# What a card log written as JSON may hold: the table's part of a hand record.
ENTRY_KEYS = frozenset(TABLE_KEYS)


def parse_card_log(text: str, players: list[str]) -> dict[str, Any]:
    """The optional card log: `ann AS, ben KS, …` or a JSON fragment of a hand record.

    Raises `forms.ValidationError` in table words; returns the record fields it gives.
    """
    text = (text or "").strip()
    if not text:
        return {}
    if text[0] in "{[":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise forms.ValidationError(
                f"The card log looks like JSON but does not read: {error.msg} "
                f"(line {error.lineno}, column {error.colno})."
            ) from None
        if isinstance(data, list):
            return {"plays": data}
        if not isinstance(data, dict):
            raise forms.ValidationError("A JSON card log must be an object or a list of plays.")
        given_by_session = sorted(set(SESSION_KEYS) & data.keys())
        if given_by_session:
            raise forms.ValidationError(
                f"The session supplies {', '.join(given_by_session)}; leave "
                f"{'it' if len(given_by_session) == 1 else 'them'} out of the card log."
            )
        unknown = sorted(str(k) for k in data.keys() - ENTRY_KEYS)
        if unknown:
            raise forms.ValidationError(
                f"The card log has fields a hand record does not know: {', '.join(unknown)}. "
                f"Use {', '.join(sorted(ENTRY_KEYS))}."
            )
        return data
    by_name = {p.lower(): p for p in players}
    plays = []
    for item in re.split(r"[,;\n]+", text):
        parts = item.replace(":", " ").split()
        if not parts:
            continue
        if len(parts) < 2:
            raise forms.ValidationError(
                f"“{item.strip()}” should be a player and a card, like “{players[0]} AS”."
            )
        name, card = " ".join(parts[:-1]), parts[-1]
        player = by_name.get(name.lower())
        if player is None:
            raise forms.ValidationError(
                f"“{name}” is not in this hand; the players are {', '.join(players)}."
            )
        try:
            card_name = CARD_NAMES[parse_card(card)]
        except CardError:
            raise forms.ValidationError(
                f"“{card}” ({player}) is not a card: write rank then suit, like QH, 10♥ or TS."
            ) from None
        plays.append([player, card_name])
    return {"plays": plays}


def plays_text(plays: list) -> str:
    return ", ".join(f"{p} {c}" for p, c in plays)
