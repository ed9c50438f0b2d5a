"""The club page and its roster at phone size: the roster's add form keeps its button on
one line, and the sticky "New session" bar leaves room to scroll the page's end above it."""

import pytest

from tests.factories import PlayerFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = "/tmp/shots/hG"


@pytest.mark.parametrize("lang", ["en", "fi"])
def test_the_rosters_add_button_stays_on_one_line(
    live_server, phone, login, speak, club, players, alice, password, lang
):
    login(phone, "alice", password)
    speak(phone, lang)
    phone.goto(f"{live_server.url}/clubs/{club.pk}/players/")
    button = phone.locator("#roster form.inline-form button[type=submit]")
    name = phone.locator("#roster form.inline-form input[name=name]")
    for width in (360, 390):
        phone.set_viewport_size({"width": width, "height": 844})
        box = button.evaluate(
            """(b) => { const r = b.getBoundingClientRect();
                 const text = document.createRange(); text.selectNodeContents(b);
                 const tops = new Set([...text.getClientRects()].map((x) => Math.round(x.top)));
                 return {h: r.height, lines: tops.size, right: r.right,
                         vw: document.documentElement.clientWidth}; }"""
        )
        assert box["lines"] == 1, (lang, width, box)
        assert 44 <= box["h"] < 50, (lang, width, box)
        assert box["right"] <= box["vw"], (lang, width, box)
        assert name.bounding_box()["height"] >= 44
        assert phone.evaluate("document.documentElement.scrollWidth") <= width
        phone.screenshot(path=f"{SHOTS}/roster-add-{lang}-{width}.png")


@pytest.mark.parametrize("lang", ["en", "fi"])
def test_the_club_pages_end_scrolls_above_the_new_session_bar(
    live_server, phone, login, speak, club, alice, password, lang
):
    for i in range(14):
        PlayerFactory(club=club, name=f"Player {i:02}")
    login(phone, "alice", password)
    speak(phone, lang)
    phone.goto(f"{live_server.url}/clubs/{club.pk}/")
    phone.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    gap = phone.evaluate(
        """() => { const bar = document.querySelector('.sticky-action').getBoundingClientRect();
             const items = document.querySelectorAll('main ul.list > li');
             const last = items[items.length - 1].getBoundingClientRect();
             const actions = document.querySelector('main .actions').getBoundingClientRect();
             return {bar: bar.top, last: last.bottom, actions: actions.bottom}; }"""
    )
    assert gap["last"] <= gap["bar"] and gap["actions"] <= gap["bar"], gap
    phone.screenshot(path=f"{SHOTS}/club-bottom-{lang}.png")
