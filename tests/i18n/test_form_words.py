"""Form words Django would otherwise write in English: labels made from a field's name
("Name", "Currency") and the engine's preset names ("Turbo (10 min / 8 hands)")."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from games.engine import tournament_levels as levels
from games.engine import tournament_payouts as pay
from games.tournaments.forms import payout_words, structure_words

pytestmark = pytest.mark.django_db


def test_the_presets_read_as_the_engine_names_them_in_english():
    with translation.override("en"):
        assert [w for _k, w in structure_words()] == [p.label for p in levels.PRESETS.values()]
        assert [w for _k, w in payout_words()] == [w for w, _s in pay.PAYOUT_PRESETS.values()]


@pytest.mark.parametrize("language", ["fi", "ko"])
def test_the_tournament_form_names_its_presets_in_the_readers_language(
    alice_client, club, language
):
    page = alice_client.get(
        reverse("tournament_create", args=[club.pk]), HTTP_ACCEPT_LANGUAGE=language
    )
    body = html.unescape(page.content.decode())
    with translation.override(language):
        words = [w for _k, w in structure_words()] + [w for _k, w in payout_words()]
    for english in [p.label for p in levels.PRESETS.values()]:
        assert english not in body
    for word in words:
        assert word in body, word


@pytest.mark.parametrize("language", ["fi", "ko"])
def test_the_new_session_form_labels_its_name_and_currency(alice_client, club, language):
    page = alice_client.get(reverse("session_new", args=[club.pk]), HTTP_ACCEPT_LANGUAGE=language)
    body = page.content.decode()
    with translation.override(language):
        name, currency = gettext("Name"), gettext("Currency")
    assert (name, currency) != ("Name", "Currency")
    assert f'for="id_name">{name}' in body and f'for="id_currency">{currency}' in body
