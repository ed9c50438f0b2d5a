"""Names people type: players, clubs, sessions, tournaments (pages and API alike).

``clean_name`` is the one validator every place a name is entered calls. It

- normalises to Unicode NFC (a name typed on two phones is one name) and collapses every
  run of white space to one space;
- drops the invisible characters that have no place in a name (zero-width space,
  word joiner, byte-order mark) and keeps the zero-width joiners that emoji and some
  scripts need;
- refuses control characters (tabs and line breaks included: a name is one line) and the
  bidirectional overrides, embeddings and isolates (U+202A–202E, U+2066–2069), with
  which a name renders reversed in a settlement ("ben pays ann" read backwards);
- refuses a name with nothing visible left (a lone zero-width space) and one longer than
  the field allows.

It raises ``django.core.exceptions.ValidationError`` with a sentence a player
understands; forms show it beside the field, DRF serializers turn it into a 400.
"""

from __future__ import annotations

import unicodedata

from django.core.exceptions import ValidationError

__all__ = ["PLAYER_NAME_MAX", "TITLE_MAX", "clean_name"]

PLAYER_NAME_MAX = 40  # Player.name
TITLE_MAX = 100  # Club.name, GameSession.name, Tournament.name

_DROPPED = {"\u200b", "\u2060", "\ufeff"}  # zero-width space, word joiner, BOM
_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}
_JOINERS = {"\u200c", "\u200d", "\u200e", "\u200f", "\u061c"}  # ZWNJ, ZWJ, marks: invisible


def _visible(ch: str) -> bool:
    return not ch.isspace() and ch not in _JOINERS and unicodedata.category(ch) not in ("Mn", "Cf")


def clean_name(value: object, *, max_length: int = PLAYER_NAME_MAX, what: str = "name") -> str:
    text = unicodedata.normalize("NFC", str(value if value is not None else ""))
    for ch in text:
        if ch in _BIDI:
            raise ValidationError(
                f"This {what} contains a text-direction control character (U+{ord(ch):04X}), "
                "which would show it reversed; type it again without it.",
                code="bidi_control",
            )
        if unicodedata.category(ch) == "Cc" and not ch.isspace():  # white space: collapsed
            raise ValidationError(
                f"This {what} contains an invisible control character (U+{ord(ch):04X}); "
                "type it again without it.",
                code="control_character",
            )
    text = "".join(ch for ch in text if ch not in _DROPPED)
    text = " ".join(text.split())
    if not any(_visible(ch) for ch in text):
        raise ValidationError(
            f"The {what} needs at least one visible letter, digit or sign.", code="blank"
        )
    if len(text) > max_length:
        raise ValidationError(
            f"The {what} is {len(text)} characters long; at most {max_length} fit.",
            code="max_length",
        )
    return text
