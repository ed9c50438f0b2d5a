"""Two phones play a digital hand with two bots, each seeing the other's moves live."""

import re
import time

import pytest

from games.models import Hand
from tests.browser.tables import digital_table
from tests.factories import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _table():
    keeper, session = digital_table()
    session.seats.filter(player__name__in=["cal", "dee"]).update(is_bot=True)
    return keeper, session, {s.player.name: s for s in session.seats.select_related("player")}


def _move(page) -> bool:
    """Make this phone's move if it is its turn (the controls show once revealed)."""
    form = page.locator("form[data-digital]")
    if not form.count() or not form.first.is_visible():
        return False
    seq = page.locator("#board").get_attribute("data-seq")
    legal = page.locator("form[data-digital] button.pc-legal")
    if legal.count():
        legal.first.click()
    else:
        page.locator("form[data-digital] [data-play-label]").click()
    page.wait_for_function("s => document.getElementById('board').dataset.seq !== s", arg=seq)
    return True


def test_two_phones_play_a_hand_with_bots_to_the_same_result(live_server, new_phone, login):
    keeper, session, seats = _table()
    desk = new_phone()
    login(desk, "keeper", PASSWORD)
    desk.goto(f"{live_server.url}/sessions/{session.pk}/digital/")
    desk.get_by_role("button", name="Deal a digital hand").click()
    desk.get_by_role("button", name="Cancel this hand").wait_for()

    phones = {}
    for name in ("ann", "ben"):
        page = new_phone()
        page.goto(f"{live_server.url}/seat/{seats[name].secret}/")
        page.get_by_role("heading", name=re.compile(name)).wait_for()
        phones[name] = page

    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        if all(p.locator(".dg-result").is_visible() for p in phones.values()):
            break
        if not any(_move(p) for p in phones.values()):
            time.sleep(0.25)  # waiting for the other phone: its move arrives by polling
    else:
        pytest.fail("the hand did not finish on both phones")

    hand = Hand.objects.get(session=session)
    assert hand.status == Hand.Status.RECORDED
    # The phone that played the last card shows the result at once; the other phone's
    # next poll brings the same, recorded result (with its replay link): wait for it.
    settle = time.monotonic() + 10
    while True:
        texts = [p.locator(".dg-result").inner_text() for p in phones.values()]
        if texts[0] == texts[1] or time.monotonic() > settle:
            break
        time.sleep(0.25)
    assert texts[0] == texts[1]
    winner = hand.verdict["result"].get("winner")
    if winner:
        assert f"{winner} wins the pot" in texts[0]
    for page in phones.values():
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    phones["ann"].screenshot(path="/tmp/digital_ann_end.png", full_page=True)
