"""The record form's card log: "ann AS, ben KS, …" or a JSON piece of a hand record,
parsed into the table's part of the record (and written back for a prefilled form)."""

from __future__ import annotations

import json
import re
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

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
                _(
                    "The card log looks like JSON but does not read: %(error)s "
                    "(line %(line)s, column %(column)s)."
                )
                % {"error": error.msg, "line": error.lineno, "column": error.colno}
            ) from None
        if isinstance(data, list):
            return {"plays": data}
        if not isinstance(data, dict):
            raise forms.ValidationError(_("A JSON card log must be an object or a list of plays."))
        given_by_session = sorted(set(SESSION_KEYS) & data.keys())
        if given_by_session:
            raise forms.ValidationError(
                ngettext(
                    "The session supplies %(fields)s; leave it out of the card log.",
                    "The session supplies %(fields)s; leave them out of the card log.",
                    len(given_by_session),
                )
                % {"fields": ", ".join(given_by_session)}
            )
        unknown = sorted(str(k) for k in data.keys() - ENTRY_KEYS)
        if unknown:
            raise forms.ValidationError(
                _(
                    "The card log has fields a hand record does not know: %(unknown)s. Use %(known)s."
                )
                % {"unknown": ", ".join(unknown), "known": ", ".join(sorted(ENTRY_KEYS))}
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
                _("“%(item)s” should be a player and a card, like “%(player)s AS”.")
                % {"item": item.strip(), "player": players[0]}
            )
        name, card = " ".join(parts[:-1]), parts[-1]
        player = by_name.get(name.lower())
        if player is None:
            raise forms.ValidationError(
                _("“%(name)s” is not in this hand; the players are %(players)s.")
                % {"name": name, "players": ", ".join(players)}
            )
        try:
            card_name = CARD_NAMES[parse_card(card)]
        except CardError:
            raise forms.ValidationError(
                _(
                    "“%(card)s” (%(player)s) is not a card: write rank then suit, like QH, 10♥ or TS."
                )
                % {"card": card, "player": player}
            ) from None
        plays.append([player, card_name])
    return {"plays": plays}


def plays_text(plays: list) -> str:
    return ", ".join(f"{p} {c}" for p, c in plays)
