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
understands, in the reader's language (one whole sentence per kind of name: "club name",
"session name", "tournament name", else "name"); forms show it beside the field, DRF
serializers turn it into a 400.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

from django.core.exceptions import ValidationError
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

__all__ = ["PLAYER_NAME_MAX", "TITLE_MAX", "clean_name"]

PLAYER_NAME_MAX = 40  # Player.name
TITLE_MAX = 100  # Club.name, GameSession.name, Tournament.name

_DROPPED = {"\u200b", "\u2060", "\ufeff"}  # zero-width space, word joiner, BOM
_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}
_JOINERS = {"\u200c", "\u200d", "\u200e", "\u200f", "\u061c"}  # ZWNJ, ZWJ, marks: invisible


def _visible(ch: str) -> bool:
    return not ch.isspace() and ch not in _JOINERS and unicodedata.category(ch) not in ("Mn", "Cf")


# Each sentence whole, per kind of name, so that a translation can bend "club name" as its
# language needs (issue 19); ``what`` picks the row, "name" when it is not one of these.
_BIDI_TEXT = {
    "name": gettext_lazy(
        "This name contains a text-direction control character (U+%(code)s), which would "
        "show it reversed; type it again without it."
    ),
    "club name": gettext_lazy(
        "This club name contains a text-direction control character (U+%(code)s), which "
        "would show it reversed; type it again without it."
    ),
    "session name": gettext_lazy(
        "This session name contains a text-direction control character (U+%(code)s), which "
        "would show it reversed; type it again without it."
    ),
    "tournament name": gettext_lazy(
        "This tournament name contains a text-direction control character (U+%(code)s), "
        "which would show it reversed; type it again without it."
    ),
}
_CONTROL_TEXT = {
    "name": gettext_lazy(
        "This name contains an invisible control character (U+%(code)s); type it again without it."
    ),
    "club name": gettext_lazy(
        "This club name contains an invisible control character (U+%(code)s); type it again "
        "without it."
    ),
    "session name": gettext_lazy(
        "This session name contains an invisible control character (U+%(code)s); type it "
        "again without it."
    ),
    "tournament name": gettext_lazy(
        "This tournament name contains an invisible control character (U+%(code)s); type it "
        "again without it."
    ),
}
_BLANK_TEXT = {
    "name": gettext_lazy("The name needs at least one visible letter, digit or sign."),
    "club name": gettext_lazy("The club name needs at least one visible letter, digit or sign."),
    "session name": gettext_lazy(
        "The session name needs at least one visible letter, digit or sign."
    ),
    "tournament name": gettext_lazy(
        "The tournament name needs at least one visible letter, digit or sign."
    ),
}
_LONG_TEXT = {
    "name": gettext_lazy("The name is %(length)s characters long; at most %(max)s fit."),
    "club name": gettext_lazy("The club name is %(length)s characters long; at most %(max)s fit."),
    "session name": gettext_lazy(
        "The session name is %(length)s characters long; at most %(max)s fit."
    ),
    "tournament name": gettext_lazy(
        "The tournament name is %(length)s characters long; at most %(max)s fit."
    ),
}


def _say(sentences: Mapping[str, Promise], what: str, **params: object) -> str:
    return str(sentences.get(what, sentences["name"])) % params


def clean_name(value: object, *, max_length: int = PLAYER_NAME_MAX, what: str = "name") -> str:
    text = unicodedata.normalize("NFC", str(value if value is not None else ""))
    for ch in text:
        if ch in _BIDI:
            raise ValidationError(
                _say(_BIDI_TEXT, what, code=f"{ord(ch):04X}"), code="bidi_control"
            )
        if unicodedata.category(ch) == "Cc" and not ch.isspace():  # white space: collapsed
            raise ValidationError(
                _say(_CONTROL_TEXT, what, code=f"{ord(ch):04X}"), code="control_character"
            )
    text = "".join(ch for ch in text if ch not in _DROPPED)
    text = " ".join(text.split())
    if not any(_visible(ch) for ch in text):
        raise ValidationError(_say(_BLANK_TEXT, what), code="blank")
    if len(text) > max_length:
        raise ValidationError(
            _say(_LONG_TEXT, what, length=len(text), max=max_length), code="max_length"
        )
    return text
