"""The payment hand-off on a phone (issue #34 item 3), at 390×844: ann saves her handles
on her Account page, the session closes, and on the settlement ben's transfer offers
"Pay $1 with Venmo" (the amount and the game's day in the link, opening in a new tab) and
the copy button for ann's IBAN answers "Copied"; the share link's "Me" shows the same."""

import pytest

from games.models import PaymentHandles
from games.sessions import share
from ledger import postings
from tests.games.test_session_views import WIN_ANN, record_direct, start_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = "/tmp/i34-pay"


def test_pay_links_at_phone_size(live_server, phone, login, club, players, alice, bob, password):
    ann = players[0]
    ann.user = alice
    ann.save()
    login(phone, "alice", password)
    phone.goto(f"{live_server.url}/settings/account/")
    phone.fill("input[name=venmo]", "@ann-smith")
    phone.fill("input[name=cashtag]", "12345")  # refused: a $cashtag needs a letter
    phone.fill("input[name=other]", "IBAN DE89 3704 0044 0532 0130 00")
    phone.locator("form[action='/settings/account/handles/'] button[type=submit]").click()
    phone.wait_for_selector(".errorlist")
    assert "needs at least one letter" in phone.locator(".errorlist").inner_text()
    phone.screenshot(path=f"{SHOTS}/account-refused.png", full_page=True)
    phone.fill("input[name=cashtag]", "$Ann7")
    phone.locator("form[action='/settings/account/handles/'] button[type=submit]").click()
    phone.wait_for_url("**/settings/account/")
    assert PaymentHandles.objects.get(user=alice).cashtag == "Ann7"
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390

    table = start_table(club, players, bob)
    record_direct(table, user=bob, **WIN_ANN)
    postings.check_invariants(table)
    postings.close_session(session_id=table.pk, user=bob, leftover_policy="share_equally")
    postings.check_invariants(table)

    phone.goto(f"{live_server.url}/sessions/{table.pk}/settlement/")
    venmo = phone.locator("a[data-app=venmo]").first
    assert venmo.inner_text() == "Pay $1 with Venmo"
    href = venmo.get_attribute("href")
    assert href.startswith("https://venmo.com/u/ann-smith?txn=pay&amount=1&note=Bourr%C3%A9")
    assert venmo.get_attribute("target") == "_blank"
    assert "noopener" in venmo.get_attribute("rel")
    assert venmo.bounding_box()["height"] >= 44
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    copy = phone.locator(".pay-copy button").first
    copy.click()
    # The live server is plain http on 127.0.0.1 (a secure context) or falls back: either
    # way the button says what happened.
    phone.wait_for_function(
        "b => b.textContent === 'Copied' || b.textContent === 'Selected: copy it'",
        arg=copy.element_handle(),
    )
    phone.screenshot(path=f"{SHOTS}/settlement.png", full_page=True)

    link = share.create_link(table, bob)
    phone.goto(f"{live_server.url}/share/{link.token}/me/?name=ben")
    assert phone.locator("a[data-app=cashtag]").get_attribute("href") == "https://cash.app/$Ann7/1"
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=f"{SHOTS}/me.png", full_page=True)
