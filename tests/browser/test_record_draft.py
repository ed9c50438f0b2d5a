"""The record form keeps the host's taps in the tab: a reload (or the phone dropping the
tab) brings them back with a line saying so; once the hand is saved, the next hand's
form starts blank; another login on the same phone never gets them."""

import re

import pytest

from games.models import Hand
from ledger import postings
from tests.browser.tables import six_handed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = __import__("os").environ.get("HA_SHOTS")  # a folder for screenshots while working


def trick(page, name: str, n: int):
    return page.locator(f'[data-row][data-name="{name}"] .trick-opt:has(input[value="{n}"])')


def checked(page, name: str, n: int) -> bool:
    return page.locator(
        f'[data-row][data-name="{name}"] input[name^="tricks_"][value="{n}"]'
    ).is_checked()


def log_out(page) -> None:
    with page.expect_navigation():
        page.evaluate("document.querySelector('form[data-logout]').submit()")


def kept(page) -> list[str]:
    return page.evaluate(
        "Object.keys(sessionStorage).filter(k => k.startsWith('bourre.recordDraft'))"
    )


def test_a_reload_brings_the_taps_back_until_the_hand_is_saved(
    live_server, phone, login, club, players, bob, password
):
    session = six_handed(club, players, bob, rules={})
    page = phone
    login(page, "bob", password)
    url = f"{live_server.url}/sessions/{session.pk}/record/"
    page.goto(url)
    notice = page.get_by_text("Your taps are back from before the reload")
    assert not notice.is_visible()
    page.locator("label.suit-H").click()
    trick(page, "ann", 3).click()
    trick(page, "ben", 2).click()
    page.locator('[data-row][data-name="cal"] label.who').click()
    page.locator("details.more > summary").click()
    page.locator("#id_up_card").fill("QH")
    assert checked(page, "cal", 0)  # filled in: the rest of the tricks

    page.reload()
    page.locator(".record-form").wait_for()
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/record_reloaded.png")
    notice.wait_for()
    assert page.locator('input[name="trump"][value="H"]').is_checked()
    assert checked(page, "ann", 3) and checked(page, "ben", 2) and checked(page, "cal", 0)
    assert page.locator('[data-row][data-name="cal"] [data-played]').is_checked()
    assert not page.locator('[data-row][data-name="dee"] [data-played]').is_checked()
    assert page.locator("#id_up_card").input_value() == "QH"
    assert page.locator("[data-counted]").inner_text() == "5"
    box = notice.bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= 844
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/record_restored.png")

    # Still the host's taps: a change after the restore is kept too.
    trick(page, "ben", 1).click()
    trick(page, "cal", 1).click()
    page.reload()
    notice.wait_for()
    assert checked(page, "ben", 1) and checked(page, "cal", 1)

    page.get_by_role("button", name="Save hand").click()
    page.locator("section.result").get_by_text("saved").wait_for()
    assert Hand.objects.get(session=session, number=1).record["up_card"] == "QH"
    assert kept(page) == []  # the saved hand's taps are gone with it
    page.goto(url)
    page.get_by_role("heading", name=re.compile("Record hand 2")).wait_for()
    assert not notice.is_visible()
    assert not page.locator('input[name="trump"]:checked').count()
    assert not page.locator('input[name^="tricks_"]:checked').count()


def test_another_version_or_another_login_starts_blank(
    live_server, phone, login, club, players, alice, bob, password
):
    session = six_handed(club, players, bob, rules={})
    page = phone
    login(page, "bob", password)
    url = f"{live_server.url}/sessions/{session.pk}/record/"
    page.goto(url)
    page.locator("label.suit-S").click()
    trick(page, "ann", 4).click()
    assert len(kept(page)) == 1

    # Another login in the same tab: bob's taps are not theirs.
    log_out(page)
    login(page, "alice", password)
    page.goto(url)
    page.locator(".record-form").wait_for()
    assert not page.locator('input[name="trump"]:checked').count()
    assert not page.get_by_text("Your taps are back from before the reload").is_visible()

    # The table moved on (a hand recorded elsewhere): bob's form is for another version.
    postings.record_hand(
        session_id=session.pk, entry={"trump": "H", "tricks": {"ann": 3, "ben": 2}},
        idempotency_key="elsewhere", expected_version=None, user=bob,
    )  # fmt: skip
    log_out(page)
    login(page, "bob", password)
    page.goto(url)
    page.get_by_role("heading", name=re.compile("Record hand 2")).wait_for()
    assert not page.locator('input[name="trump"]:checked').count()
    assert not page.locator('input[name^="tricks_"]:checked').count()
    assert kept(page) == []  # the old hand's taps are dropped
