"""The language switcher on a phone (issue 19): a guest picks Korean, then Finnish (long
words), from the menu with a plain form post; the rule book follows, at 390×844 with no
horizontal scroll, and the rule anchors still land on the rule. The scoreboard, record,
settlement and seat pages get the same check once their templates are translated."""

import pytest
from django.utils.translation import gettext, override

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _switch(page, code: str) -> None:
    page.locator("summary[aria-label]").first.click()
    page.locator("#language-select").select_option(code)
    page.locator(".language-form button").click()
    page.wait_for_selector(f'html[lang="{code}"]')


@pytest.mark.parametrize("code", ["ko", "fi"])
def test_a_guest_switches_language_and_the_rule_book_fits_a_phone(live_server, phone, code):
    page = phone
    page.goto(f"{live_server.url}/rules/")
    _switch(page, code)
    with override(code):
        title = gettext("The rules")
    assert title != "The rules"
    page.get_by_role("heading", name=title).wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # The anchors are the same in every language: a "why?" link lands on R29.
    page.goto(f"{live_server.url}/rules/#R29")
    assert page.locator("#R29").is_visible()
    assert page.evaluate("document.documentElement.lang") == code  # the cookie keeps it
