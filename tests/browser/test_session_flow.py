"""A whole evening on a 390x844 phone in real Chromium: start a session, record a bourré,
a split and an uncontested hand (one invalid try on the way), undo one, watch a second
phone's scoreboard follow by polling, close, and read (and tick) the settlement."""

import re

import pytest

from games.models import GameSession, Hand
from ledger import postings
from ledger.models import SettlementMark

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def no_sideways_scroll(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def add_tricks(page, name: str, count: int) -> None:
    """Tap the player's trick count (which also says the player played)."""
    page.locator(f'[data-row][data-name="{name}"] .trick-opt:has(input[value="{count}"])').click()


def test_evening_at_phone_size(live_server, phone, new_phone, login, club, players, password):
    page = phone
    login(page, "bob", password)
    page.goto(f"{live_server.url}/clubs/{club.pk}/")
    page.get_by_role("link", name="New session").click()

    # Start: the roster of four is seated in order; dee deals first.
    page.get_by_label("Name").fill("Friday night")
    page.get_by_label("First dealer").select_option(label="dee")
    no_sideways_scroll(page)
    page.get_by_role("button", name="Start session").click()
    page.get_by_role("heading", name="Friday night").wait_for()
    session = GameSession.objects.get()
    no_sideways_scroll(page)

    # A second phone (carol, a member) leaves the scoreboard open.
    watcher = new_phone()
    polls: list[int] = []
    watcher.on(
        "response",
        lambda r: polls.append(r.status) if r.request.headers.get("hx-request") else None,
    )
    login(watcher, "carol", password)
    watcher.goto(f"{live_server.url}/sessions/{session.pk}/")
    watcher.locator("#board").get_by_text("No hands yet.").wait_for()
    assert watcher.get_by_role("link", name="Record hand").count() == 0

    # Hand 1: a bourré. First a slip: only 4 of 5 tricks counted.
    page.get_by_role("link", name="Record hand").click()
    page.locator("label.suit-H").click()
    add_tricks(page, "ann", 3)
    add_tricks(page, "ben", 1)
    add_tricks(page, "cal", 0)
    add_tricks(page, "dee", 0)
    page.locator("[data-counter]").get_by_text("4 of 5 tricks counted").wait_for()
    page.get_by_role("button", name="Save hand").click()
    page.get_by_text("Only 4 of 5 tricks are counted — who took the other 1?").wait_for()
    assert Hand.objects.count() == 0
    add_tricks(page, "cal", 1)
    page.locator("[data-counter]").get_by_text("5 of 5 tricks counted").wait_for()
    page.get_by_role("button", name="Save hand").click()
    result = page.locator("section.result")
    result.get_by_text("Hand 1 saved").wait_for()
    assert "ann wins $4" in result.inner_text()
    assert "dee pays $4 into the next pot" in result.inner_text()
    no_sideways_scroll(page)

    # The watcher's board follows within a few seconds, by polling.
    watcher.locator("#board .hand-list").get_by_text("ann wins $4").wait_for(timeout=8000)
    assert watcher.locator("[data-pot]").inner_text() == "$4"

    # Hand 2: a split pot (ann deals; dee is excused from the ante).
    page.get_by_role("link", name="Record next hand").click()
    page.locator("label.suit-S").click()
    add_tricks(page, "ann", 2)
    add_tricks(page, "ben", 2)
    add_tricks(page, "cal", 1)
    add_tricks(page, "dee", 0)  # dee played too, and is bourré
    page.get_by_role("button", name="Save hand").click()
    page.locator("section.result").get_by_text("Hand 2 saved").wait_for()
    assert "Split pot (ann and ben)" in page.locator("section.result").inner_text()

    # Hand 3: uncontested — only dee plays.
    page.get_by_role("link", name="Record next hand").click()
    page.locator("label.suit-C").click()
    page.locator('[data-row][data-name="dee"] label.who').click()
    page.get_by_role("button", name="Save hand").click()
    page.locator("section.result").get_by_text("Hand 3 saved").wait_for()
    assert "dee takes" in page.locator("section.result").inner_text()
    assert "uncontested" in page.locator("section.result").inner_text()

    # Undo hand 3: the fresh form comes back and says what happened.
    page.get_by_role("button", name="Undo").click()
    page.get_by_text("Hand 3 undone").wait_for()
    assert Hand.objects.get(number=3).status == Hand.Status.VOIDED
    postings.check_invariants(session)

    # The idle watcher keeps its board: 304s leave the DOM alone.
    watcher.locator("#board .hand-list").get_by_text("Split pot").wait_for(timeout=8000)
    # Chromium slows timers of a page in the background; a phone on the table is in front.
    watcher.bring_to_front()
    for _ in range(24):  # wait_for_timeout, unlike sleep, lets Playwright deliver events
        if 304 in polls:
            break
        watcher.wait_for_timeout(500)
    assert 304 in polls  # the unchanged board was answered "Not Modified"...
    assert watcher.locator("#board .seat-name").count() == 4  # ...and left in place

    # Close, sharing what is left in the pot.
    page.goto(f"{live_server.url}/sessions/{session.pk}/")
    page.get_by_role("link", name="Close session").click()
    page.get_by_label("Share equally among those who paid into it").check()
    page.get_by_role("button", name="Close session").click()
    page.get_by_role("heading", name="Settlement").wait_for()
    no_sideways_scroll(page)
    sentences = page.locator(".transfer .sentence").all_inner_texts()
    assert sentences and all(
        re.fullmatch(r"\w+ pays ([\w ']+ \$\d+|\$\d+ into the club kitty)", s) for s in sentences
    )
    # The explanation line waits behind "why?" (FINDINGS): hidden until tapped.
    assert not page.locator(".transfer .row-sub").first.is_visible()
    page.locator(".transfer .transfer-why > summary").first.click()
    assert page.locator(".transfer .row-sub").first.inner_text()

    # Tick one transfer as paid; it is remembered.
    first = page.locator(".transfer").first
    first.get_by_label("paid").check()
    page.locator(".transfer.is-paid").first.wait_for()
    page.reload()
    assert page.locator(".transfer").first.get_by_label("paid").is_checked()
    assert SettlementMark.objects.filter(session=session).count() == 1

    # The watcher sees the session closed; the scoreboard says so.
    watcher.get_by_text("This session is closed").wait_for(timeout=8000)
    page.goto(f"{live_server.url}/sessions/{session.pk}/")
    assert page.get_by_role("link", name="Record hand").count() == 0
