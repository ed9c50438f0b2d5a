"""A second phone on a claimed seat link (issue #36, API FINDINGS): the 403 page says only
that the seat is taken, in the phone's language, and names nobody: not the seat's player,
not the other players, not the table. Whoever holds a forwarded or overheard link learns
nothing from it.

Phones are anonymous ``Client``s with their own cookies: two clients are two phones.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from games.models import Player

from .test_digital_support import make_session, seat_url, seats_of

pytestmark = pytest.mark.django_db

HEADING = "This seat is open on another phone"


@pytest.fixture
def seats(club, players, bob):
    # Names no page text could hold by chance.
    for player, name in zip(players, ("Zephyrine", "Quillon", "Marvolo", "Ottilie"), strict=True):
        Player.objects.filter(pk=player.pk).update(name=name)
    session = make_session(club, players, bob)
    session.name = "Vaultnight"
    session.save(update_fields=["name"])
    return seats_of(session)


def _taken(seats, language: str | None = None):
    seat = seats["Zephyrine"]
    first = Client()
    assert first.get(seat_url(seat)).status_code == 200  # the first phone holds it
    headers = {"HTTP_ACCEPT_LANGUAGE": language} if language else {}
    return Client().get(seat_url(seat), **headers)


def test_the_taken_seat_page_names_nobody(seats):
    refused = _taken(seats)
    assert refused.status_code == 403
    page = refused.content.decode()
    assert HEADING in page
    for name in ("Zephyrine", "Quillon", "Marvolo", "Ottilie", "Vaultnight", "Bayou"):
        assert name not in page, name
    assert "no-store" in refused["Cache-Control"]


@pytest.mark.parametrize("language", [code for code, _ in settings.LANGUAGES])
def test_the_taken_seat_page_speaks_the_phones_language(seats, language):
    refused = _taken(seats, language)
    assert refused.status_code == 403
    with translation.override(language):
        heading = translation.gettext(HEADING)
        why = translation.gettext(
            "A seat link works on the first phone that opens it, so nobody else can see "
            "its cards or play for it."
        )
    if language != "en":
        assert heading != HEADING, language  # translated, not the English fallback
    page = refused.content.decode()
    assert heading in page and why in page
    assert "Zephyrine" not in page
