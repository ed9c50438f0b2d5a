"""A seat page in the phone's language (issue 19): Korean and Finnish (long words) at
390×844, with the board's labels, the declaring buttons and the scoreboard translated and
no horizontal scroll. The host's language plays no part: only the phone's Accept-Language."""

import pytest
from django.utils.translation import gettext, override, pgettext

from games.digital import service as digital
from tests.browser.tables import digital_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _dealt_table():
    keeper, session = digital_table()
    session.seats.exclude(player__name="ann").update(is_bot=True)
    digital.start_hand(session_id=session.pk, user=keeper)
    return session.seats.get(player__name="ann")


@pytest.mark.parametrize("code", ["ko", "fi"])
def test_a_seat_page_speaks_the_phones_language_and_fits_it(live_server, phone, code):
    seat = _dealt_table()
    phone.set_extra_http_headers({"Accept-Language": code})
    phone.goto(f"{live_server.url}/seat/{seat.secret}/")
    assert phone.evaluate("document.documentElement.lang") == code
    with override(code):
        pot, trump, scoreboard = gettext("Pot"), gettext("Trump"), gettext("Scoreboard")
        passing = pgettext("declare button", "Pass")
    assert pot != "Pot" and trump != "Trump" and passing != "Pass"
    labels = phone.locator(".dg-top .dg-label").all_text_contents()
    assert pot in labels and trump in labels
    assert phone.locator("h2.dg-label").last.text_content() == scoreboard
    # ann sits left of the dealer: the first to declare, so her buttons are on screen.
    buttons = phone.locator("form[data-digital] button").all_text_contents()
    assert passing in [b.strip() for b in buttons]
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
