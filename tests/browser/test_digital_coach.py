"""The coach on a 390×844 phone (issue 37): a practice hand with hints on — take a hint,
finish the hand, read the review and open the replay from it — and a table where the
host turned hints off: no Hint button, and the hint's address refuses in words."""

import os
import re
import time

import pytest

from games.models import CoachReview, Hand
from tests.browser.tables import digital_table
from tests.factories import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("HA_SHOTS")  # a folder to save screenshots to


def _shot(page, name):
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/{name}.png", full_page=False)


def _practice():
    """ann alone against three bots."""
    keeper, session = digital_table()
    session.seats.exclude(player__name="ann").update(is_bot=True)
    return keeper, session, session.seats.get(player__name="ann")


def _size(locator) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box is not None
    return box["width"], box["height"]


def _no_sideways_scroll(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def _off_screen(page, selector: str) -> list[str]:
    """Each element matching ``selector`` that is not wholly on the 844 px screen."""
    return page.evaluate(
        """sel => [...document.querySelectorAll(sel)].flatMap(el => {
            const r = el.getBoundingClientRect();
            return r.top < 0 || r.bottom > window.innerHeight ? [el.textContent.trim()] : [];
        })""",
        selector,
    )


def _move(page) -> None:
    seq = page.locator("#board").get_attribute("data-seq")
    legal = page.locator("form[data-digital] button.pc-legal")
    if legal.count():
        legal.first.click()
    else:
        page.locator("form[data-digital] [data-play-label]").click()
    page.wait_for_function("s => document.getElementById('board').dataset.seq !== s", arg=seq)


def test_a_practice_hand_with_a_hint_and_the_review_after(live_server, phone):
    _, session, seat = _practice()
    phone.goto(f"{live_server.url}/seat/{seat.secret}/")
    phone.get_by_role("button", name="Deal the next hand").click()
    hinted: set[str] = set()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if phone.locator(".dg-result").is_visible():
            break
        form = phone.locator("form[data-digital]")
        if not form.count() or not form.first.is_visible():
            time.sleep(0.2)
            continue
        phase = "card" if phone.locator("form[data-digital] button.pc-legal").count() else "declare"
        if phase not in hinted:
            button = phone.get_by_role("link", name="Hint")
            assert _size(button)[1] >= 44
            button.click()
            hint = phone.locator("#dg-hint")
            hint.wait_for()
            text = hint.inner_text()
            # what to do, and why, in words; the estimate behind it
            assert re.search(r"^(Pass|Play)", text), text
            assert "antes" in text or "legal card" in text or "beat" in text, text
            assert phone.locator("#dg-hint .dg-hint-head").get_attribute("data-reason")
            _no_sideways_scroll(phone)
            hint.scroll_into_view_if_needed()
            # the hint, the choices and the trick all on one 844 px screen
            assert not _off_screen(phone, "#dg-hint, form[data-digital] button"), phase
            _shot(phone, f"coach-hint-{phase}")
            hinted.add(phase)
        _move(phone)
    else:
        pytest.fail("the practice hand did not finish")
    assert "declare" in hinted
    # The review arrives by itself once the hand is over.
    review = phone.locator("#dg-review")
    review.wait_for()
    assert re.search(
        r"\d+ of \d+ decisions? as the expert would|nothing to decide", review.inner_text()
    )
    review.scroll_into_view_if_needed()
    _no_sideways_scroll(phone)
    _shot(phone, "coach-review")
    hand = Hand.objects.get(session=session)
    assert CoachReview.objects.filter(hand=hand, player=seat.player).exists()
    # one way to the replay: the result's link (the review on the board adds none)
    assert review.get_by_role("link", name=re.compile("Replay hand")).count() == 0
    replay = phone.locator(".dg-result").get_by_role("link", name=re.compile("Replay hand"))
    replay.click()
    phone.get_by_role("heading", name=re.compile(r"Hand \d")).wait_for()


def test_hints_are_refused_where_the_host_turned_them_off(live_server, new_phone, login):
    keeper, session, seat = _practice()
    desk = new_phone()
    login(desk, "keeper", PASSWORD)
    desk.goto(f"{live_server.url}/sessions/{session.pk}/digital/")
    assert desk.locator("[data-coach-now]").get_attribute("data-coach-now") == "on"
    desk.get_by_role("radio", name=re.compile("Off: no hints")).check()
    desk.get_by_role("button", name="Save the coach setting").click()
    desk.locator('[data-coach-now="off"]').wait_for()

    phone = new_phone()
    phone.goto(f"{live_server.url}/seat/{seat.secret}/")
    phone.get_by_role("button", name="Deal the next hand").click()
    phone.locator("form[data-digital]").first.wait_for()
    assert phone.get_by_role("link", name="Hint").count() == 0
    response = phone.goto(f"{live_server.url}/seat/{seat.secret}/hint/")
    assert response is not None and response.status == 403
    assert phone.get_by_text("The host turned hints off at this table.").is_visible()
    _shot(phone, "coach-off")
