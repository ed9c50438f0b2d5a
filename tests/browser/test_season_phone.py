"""A season at phone size (issue #35 item 6): a scorekeeper creates it from the club's
page, the standings of a finished tournament and two closed home sessions read at
390×844 without sideways scrolling, and the public link opens on a phone without an
account (no money on it) until it is revoked."""

import datetime
import re

import pytest
from django.utils import timezone

from games.models import Player, Season
from tests.games.test_seasons import _session, _tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = "/tmp/i35-season"


def test_a_season_on_the_phone(live_server, new_phone, login, club, players, alice, bob, password):
    ann, ben, cal, dee = players
    Player.objects.filter(pk=ann.pk).update(name="Annabelle Thibodeaux")
    ann.refresh_from_db()
    _tournament(club, alice, [ann, ben, cal, dee], "phone")
    _session(club, bob, [ann, ben, cal], ["Annabelle Thibodeaux", "cal"])
    _session(club, bob, [ben, cal, dee], ["dee"])

    phone = new_phone()
    login(phone, "bob", password)
    phone.goto(f"{live_server.url}/clubs/{club.pk}/")
    phone.get_by_role("link", name="Seasons").click()
    phone.get_by_role("link", name="New season").click()
    today = timezone.localdate()
    phone.get_by_label("Name").fill("Spring league")
    phone.get_by_label("First day").fill((today - datetime.timedelta(days=7)).isoformat())
    phone.get_by_label("Last day").fill((today + datetime.timedelta(days=60)).isoformat())
    phone.screenshot(path=f"{SHOTS}-form.png", full_page=True)
    phone.get_by_role("button", name="Create season").click()
    phone.wait_for_url(re.compile(r"/seasons/\d+/$"))
    season = Season.objects.get()
    rows = phone.locator("table.season-standings tbody tr")
    assert rows.count() == 4
    assert "Annabelle Thibodeaux" in phone.locator("table.season-standings").inner_text()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    # Every column in view, the home net included: nothing hides in the table's scroll.
    for cell in rows.first.locator("td, th").all():
        box = cell.bounding_box()
        assert box is not None and box["x"] + box["width"] <= 390, cell.inner_text()
    phone.screenshot(path=f"{SHOTS}-standings.png", full_page=True)

    phone.get_by_role("button", name="Make a public link").click()
    phone.wait_for_url(re.compile(r"/seasons/\d+/$"))
    season.refresh_from_db()
    url = phone.locator("#season-public-url").input_value()
    assert season.public_token and url.endswith(f"/season/{season.public_token}/")

    stranger = new_phone()
    stranger.goto(url)
    text = stranger.locator("main").inner_text()
    assert "Annabelle Thibodeaux" in text and "$" not in text
    assert stranger.evaluate("document.documentElement.scrollWidth") <= 390
    stranger.screenshot(path=f"{SHOTS}-public.png", full_page=True)

    phone.get_by_role("button", name="Revoke").click()
    phone.wait_for_url(re.compile(r"/seasons/\d+/$"))
    assert stranger.goto(url).status == 404
