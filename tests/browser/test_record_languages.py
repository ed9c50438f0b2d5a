"""The record flow in Korean and in Finnish (long words) on a 390×844 phone (issue 19):
six seats, a hand recorded through the page, and neither the record form nor the result
scrolls sideways. The scripts' words come translated from the page (templates/_js_text.html)
without an inline script: app.js reads them, so the failure banner speaks the language too."""

import pytest
from django.utils.translation import gettext, override, pgettext

from games.models import Hand
from ledger import postings
from tests.browser.tables import six_handed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("code", ["ko", "fi"])
def test_the_record_form_and_result_fit_a_phone_in_korean_and_finnish(
    live_server, phone, login, speak, club, players, bob, password, code
):
    session = six_handed(club, players, bob, rules={})
    page = phone
    login(page, "bob", password)
    speak(page, code)
    with override(code):
        heading = gettext("Record hand %(n)s") % {"n": 1}
        save = gettext("Save hand")
        saved = gettext("Hand %(n)s saved") % {"n": 1}
        retry = gettext("Retry")
        more = gettext("More: renege, up-card, card log")
    assert heading != "Record hand 1" and retry != "Retry"

    page.goto(f"{live_server.url}/sessions/{session.pk}/record/")
    page.wait_for_selector(f'html[lang="{code}"]')
    page.get_by_role("heading", name=heading).wait_for()
    page.get_by_text(more).click()  # the rarely needed parts open: they must fit too
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.get_by_text(more).click()  # and close again (open, they are a sheet over the seats)
    assert page.evaluate("window.bourre.text.retry") == retry

    page.locator("label.suit-H").click()
    page.locator('[data-row][data-name="ann"] .trick-opt:has(input[value="3"])').click()
    page.locator('[data-row][data-name="ben"] .trick-opt:has(input[value="2"])').click()
    page.get_by_role("button", name=save).click()
    page.locator("section.result").get_by_text(saved).wait_for()
    assert Hand.objects.count() == 1
    postings.check_invariants(session)
    with override(code):
        assert page.get_by_text(pgettext("hand status", "undone")).count() == 0
        page.get_by_role("link", name=gettext("Record next hand")).wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
