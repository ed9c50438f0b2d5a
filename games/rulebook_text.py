"""The rule book (``games.engine.rulebook``) in the reader's language.

The engine keeps the English as the source text, each one marked with its own no-op
``gettext_noop`` so that ``makemessages`` extracts it without the engine importing Django;
this module translates when a page renders. Rule numbers and anchors (``/rules/#R29``)
never change with the language, nor do section anchors (the English title's slug), nor
the house-rule switch names in backticks, so every "why?" link lands on the same rule.
"""

from __future__ import annotations

from typing import Any

from django.utils.text import slugify
from django.utils.translation import gettext

from games.engine import rulebook


def tr(text: str) -> str:
    """The text in the active language ("" stays "": gettext("") is the catalogue header)."""
    return gettext(text) if text else ""


def source_text(source: rulebook.Source) -> str:
    return f"{tr(source.name)}: {tr(source.says)}"


def sections() -> list[dict[str, Any]]:
    """The rule book's sections for /rules/, each entry with its rule's sources."""
    out = []
    for section in rulebook.BOOK:
        entries = []
        for e in section.entries:
            rule = rulebook.RULES.get(e.number)
            entries.append(
                {
                    "number": e.number,
                    "title": tr(e.title),
                    "text": tr(e.text),
                    "note": tr(rule.note) if rule else "",
                    "sources": [source_text(s) for s in (rule.sources if rule else ())],
                }
            )
        out.append({"slug": slugify(section.title), "title": tr(section.title), "entries": entries})
    return out


def why(rule: str, *, led: str, trump: str, win: str) -> str:
    """``rulebook.why`` in the active language: why a card may not be played."""
    known = rulebook.RULES.get(rule)
    if known is not None and known.why:
        return tr(known.why).format(led=led, trump=trump, win=win)
    short = tr(known.short) if known else gettext("not allowed now")
    return f"{rule}: {short}."
