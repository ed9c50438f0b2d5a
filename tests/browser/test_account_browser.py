"""Deleting an account on a phone (issue #33 item 6): from the user menu to the goodbye
page at 390 px, with the club handed over, nothing wider than the screen, the targets a
thumb can hit; afterwards the phone is signed out and the login is refused."""

import pytest

from games.models import Membership, Role

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = "/tmp/shots/i33-accounts"


@pytest.mark.parametrize("lang", ["en", "fi"])
def test_delete_my_account_at_phone_size(
    live_server, phone, login, speak, club, players, alice, bob, password, lang
):
    login(phone, "alice", password)
    speak(phone, lang)
    phone.goto(f"{live_server.url}/")
    phone.locator("details.menu summary").click()
    phone.locator("details.menu a[href='/settings/account/']").click()
    phone.wait_for_url("**/settings/account/")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=f"{SHOTS}/account-{lang}.png", full_page=True)
    phone.locator("a[href='/settings/account/delete/']").click()
    phone.wait_for_url("**/settings/account/delete/")

    heir = Membership.objects.get(club=club, user=bob)
    phone.locator(f"input[name=club_{club.pk}][value=hand_over]").check()
    phone.locator(f"select[name=heir_{club.pk}]").select_option(str(heir.pk))
    phone.locator("input[name=password]").fill(password)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    button = phone.locator("form button[type=submit].danger")
    assert button.bounding_box()["height"] >= 44
    assert phone.locator("input[name=password]").bounding_box()["height"] >= 44
    phone.screenshot(path=f"{SHOTS}/delete-{lang}.png", full_page=True)
    button.click()

    phone.wait_for_selector("main [role=status]")
    heading = phone.locator("h1").inner_text()
    assert heading == {"en": "Account deleted", "fi": "Tili poistettu"}[lang]
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=f"{SHOTS}/deleted-{lang}.png", full_page=True)
    heir.refresh_from_db()
    assert heir.role == Role.OWNER
    # Signed out: the account page sends the phone to the login form, which refuses alice.
    phone.goto(f"{live_server.url}/settings/account/")
    assert "/accounts/login/" in phone.url
    phone.fill("input[name=username]", "alice")
    phone.fill("input[name=password]", password)
    phone.locator("form button[type=submit]").click()
    phone.wait_for_selector(".errorlist")
    assert "/accounts/login/" in phone.url
