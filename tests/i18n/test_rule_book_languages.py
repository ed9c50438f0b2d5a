"""The rule book in every language from one source (issue 19, item 4): the same numbered
rules, the same anchors (/rules/#R29, the sections' too), each text in the reader's
language, the switch names and rule links untouched."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils.translation import override

from games import rulebook_text
from games.engine import rulebook

pytestmark = pytest.mark.django_db

ANCHOR = re.compile(r'<div class="rule" id="(R\d+)">')
SECTION = re.compile(r'<section class="rule-section" id="([^"]+)">')
LINK = re.compile(r'href="#(R\d+)"')


def _page(client, code: str) -> str:
    response = client.get(reverse("rule_book"), headers={"accept-language": code})
    assert response["Content-Language"] == code
    return response.content.decode()


@pytest.mark.parametrize("code", [c for c, _ in settings.LANGUAGES if c != "en"])
def test_every_language_has_the_same_rules_anchors_and_links(client, code):
    english, other = _page(client, "en"), _page(client, code)
    assert ANCHOR.findall(other) == ANCHOR.findall(english)
    assert SECTION.findall(other) == SECTION.findall(english)
    assert sorted(LINK.findall(other)) == sorted(LINK.findall(english))
    # Same switches shown as code: `split_pot` is a name, never translated.
    assert re.findall(r"<code>([^<]+)</code>", other) == re.findall(
        r"<code>([^<]+)</code>", english
    )


@pytest.mark.parametrize("code", [c for c, _ in settings.LANGUAGES if c != "en"])
def test_every_rule_and_section_is_in_the_readers_language(code):
    with override(code):
        sections = rulebook_text.sections()
    for source, shown in zip(rulebook.BOOK, sections, strict=True):
        assert shown["title"] != source.title, (code, source.title)
        for entry, row in zip(source.entries, shown["entries"], strict=True):
            assert row["number"] == entry.number
            if entry.text != "Bourré":
                assert row["text"] != entry.text, (code, entry.number)


def test_the_cards_why_sentence_fills_the_translated_template():
    with override("es"):
        said = rulebook_text.why("R19", led="♥", trump="♠", win="Q♥")
    assert said == "Asiste al palo (R19): se salió de ♥ y tienes ♥."
    with override("en"):
        assert rulebook_text.why("R19", led="♥", trump="♠", win="Q♥") == rulebook.why(
            "R19", led="♥", trump="♠", win="Q♥"
        )
