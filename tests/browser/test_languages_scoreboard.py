"""The scoreboard, the share pages and the settlement in Korean and in Finnish (long
words) on a 390×844 phone (issue 19): translated, and still no horizontal scroll."""

import pytest
from django.urls import reverse
from django.utils.translation import gettext, override

from games.sessions import share
from tests.games.test_session_views import WIN_ANN, record_direct, start_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _fits_and_says(page, words: list[str]) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    text = page.locator("body").inner_text()
    for said in words:
        assert said in text, said


@pytest.mark.parametrize("code", ["ko", "fi"])
def test_scoreboard_share_board_and_settlement_in_a_language_fit_a_phone(
    live_server, phone, login, speak, club, players, bob, password, code
):
    session = start_table(club, players, bob)
    record_direct(session, bob, **WIN_ANN)
    link = share.create_link(session, bob)
    with override(code):
        last_hands, settlement, every_hand = (
            gettext("Last hands"),
            gettext("Settlement"),
            gettext("Every hand"),
        )
        record = gettext("Record hand")
    assert last_hands != "Last hands" and settlement != "Settlement"

    page = phone
    login(page, "bob", password)  # in English: the login form is Django's own
    speak(page, code)
    # The scorekeeper's scoreboard and settlement.
    page.goto(f"{live_server.url}{session.get_absolute_url()}")
    page.wait_for_selector(f'html[lang="{code}"]')
    _fits_and_says(page, [last_hands, record])
    page.goto(f"{live_server.url}{reverse('session_settlement', args=[session.pk])}")
    page.get_by_role("heading", name=settlement).wait_for()
    _fits_and_says(page, [settlement])

    # The board the share link opens (it needs no account).
    page.goto(f"{live_server.url}{reverse('share_board', args=[link.token])}")
    page.wait_for_selector(f'html[lang="{code}"]')
    _fits_and_says(page, [last_hands, every_hand])
