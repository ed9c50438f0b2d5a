"""Every phone at the table (issue 12), against a server started the way `make run`
starts it (gunicorn, LAN mode, DEBUG off, its own SQLite with the demo data) on
127.0.0.1 (a free port): the host on their phone, a watcher with the share link and no account,
and a player on their seat link. Screenshots go to $BOURRE_SHOTS (default: a temporary
folder) for people to look at.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from tests import lan_server

pytestmark = pytest.mark.browser

DEMO_LOGIN = ("demo", "bourre-demo-2026")  # games/management/commands/seed_demo.py


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    started = lan_server.start(tmp_path_factory.mktemp("lan-phones"))
    yield started
    started.stop()


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("BOURRE_SHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _fits(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, page.url


def _play_until_the_hand_ends(seat, shots: Path) -> None:
    """Ann's phone plays her hand against three bots: Play at the declaration (the button
    says what it will do), then any legal card, until the result shows."""
    deadline = time.monotonic() + 120
    saw_turn_title = False
    while time.monotonic() < deadline:
        if seat.locator(".dg-result").count():
            return
        form = seat.locator("#board form[data-digital]")
        if not form.count():
            seat.wait_for_timeout(300)
            continue
        saw_turn_title = saw_turn_title or seat.title().startswith("Your turn")
        seq = seat.locator("#board").get_attribute("data-seq")
        play = seat.locator("[data-play-label]")
        legal = seat.locator("#board button.pc-legal")
        if play.count():
            assert play.inner_text() == "Play, draw 0"
            seat.screenshot(path=str(shots / "3-seat-declare.png"), full_page=True)
            play.click()
        elif legal.count():
            legal.first.click()
        else:
            seat.wait_for_timeout(300)
            continue
        seat.wait_for_function(
            "s => document.getElementById('board').dataset.seq !== s", arg=seq, timeout=15_000
        )
    else:
        raise AssertionError("the hand did not end")
    assert saw_turn_title, "the title never said it was Ann's turn"


def test_host_watcher_and_player_follow_one_game_on_the_wifi(server, new_phone, shots):
    base = server.url
    violations: list[str] = []
    opened = new_phone

    def new_phone():  # every phone reports Content-Security-Policy violations
        page = opened()
        page.on(
            "console",
            lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
        )
        return page

    session_path = re.search(r"at (/sessions/\d+/)", server.log()).group(1)

    # The host logs in on their phone and makes a share link from the scoreboard.
    host = new_phone()
    host.goto(base + "/accounts/login/")
    host.get_by_label("Username").fill(DEMO_LOGIN[0])
    host.get_by_label("Password").fill(DEMO_LOGIN[1])
    host.get_by_role("button", name="Log in").click()
    host.wait_for_url(base + "/")
    host.goto(base + session_path)
    host.get_by_role("link", name="Share link").click()
    host.get_by_role("button", name="Create a share link").click()
    share_url = host.locator("#share-url").input_value()
    assert re.fullmatch(re.escape(base) + r"/share/[A-Za-z0-9_-]{36}/", share_url)
    host.screenshot(path=str(shots / "1-host-share.png"), full_page=True)
    _fits(host)

    # A watcher without an account opens it: the scoreboard, no buttons to change it.
    watcher = new_phone()
    watcher.goto(share_url)
    watcher.get_by_role("heading", name="Demo night").wait_for()
    board = watcher.locator("#board")
    for name in ("Ann", "Ben", "Cal", "Dee", "Eve"):
        assert board.get_by_text(name, exact=True).count()
    assert not watcher.get_by_role("link", name="Record hand").count()
    hands_before = watcher.locator("#board .hand-list li").first.inner_text()
    watcher.screenshot(path=str(shots / "2-watcher-board.png"), full_page=True)
    _fits(watcher)

    # The host hands three seats to bots and gives Ann her seat link.
    host.goto(base + session_path + "digital/")
    for name in ("Ben", "Cal", "Dee", "Eve"):
        row = host.locator(".dg-links > li", has=host.get_by_text(name, exact=True))
        row.get_by_role("button", name="Bot plays").click()
        host.wait_for_load_state()
    seat_url = host.get_by_label("Ann's seat link", exact=True).input_value()

    # Ann deals from her own phone and plays the hand out.
    seat = new_phone()
    seat.goto(seat_url)
    seat.get_by_role("heading", name=re.compile("Ann")).wait_for()
    assert seat.locator(".dg-score").get_by_text("Ann").count()  # the scoreboard
    seat.get_by_role("button", name="Deal the next hand").click()
    _play_until_the_hand_ends(seat, shots)
    # The review (issue 37) may arrive and scroll the page, putting the board's corner under
    # the sticky top bar: tap the corner with the page at its top.
    seat.evaluate("window.scrollTo(0, 0)")
    seat.locator("#board").click(position={"x": 5, "y": 5})  # a tap skips the reveal
    assert seat.locator("#board.dg-skip").count()
    assert (
        seat.evaluate("getComputedStyle(document.querySelector('.dg-result')).animationName")
        == "none"
    )
    seat.locator(".dg-result").wait_for(state="visible", timeout=3_000)
    seat.screenshot(path=str(shots / "4-seat-result.png"), full_page=True)
    _fits(seat)
    assert seat.get_by_text("Your net").count()

    # The watcher's scoreboard catches up by itself (3 s polls, 304 in between).
    watcher.wait_for_function(
        "before => document.querySelector('#board .hand-list li').innerText !== before",
        arg=hands_before,
        timeout=20_000,
    )
    watcher.screenshot(path=str(shots / "5-watcher-after.png"), full_page=True)

    # Ann's statement, picked by name from the share link.
    watcher.get_by_role("link", name="Me: my own money").click()
    watcher.get_by_role("link", name="Ann").click()
    watcher.get_by_role("heading", name="Ann's money").wait_for()
    assert watcher.get_by_text("ante").count()
    watcher.screenshot(path=str(shots / "6-watcher-me.png"), full_page=True)
    _fits(watcher)

    # The host sees the hand's money on its result screen: each player's change and net.
    host.goto(base + session_path)
    host.locator("#board .hand-list a").first.click()
    host.get_by_role("table", name="Money this hand and the standings after it").wait_for()
    host.screenshot(path=str(shots / "8-host-hand-result.png"), full_page=True)
    _fits(host)

    # The host, who plays too, hides the seat links now that they are handed out.
    host.goto(base + session_path + "digital/")
    host.get_by_role("button", name=re.compile("Hide the seat links")).click()
    host.get_by_role("button", name="Show the seat links").wait_for()
    assert not host.locator("input[aria-label$='seat link']").count()
    assert not host.locator(".dg-qr-code").count()
    host.screenshot(path=str(shots / "9-host-links-hidden.png"), full_page=True)
    host.get_by_role("button", name="Show the seat links").click()

    # A second device (the host's phone) cannot take Ann's seat.
    host.goto(seat_url)
    host.get_by_role("heading", name="This seat is open on another phone").wait_for()
    host.screenshot(path=str(shots / "7-seat-claimed.png"), full_page=True)

    # The host reissues Ann's link: the old one answers 404 on Ann's phone.
    host.goto(base + session_path + "digital/")
    row = host.locator(".dg-links > li", has=host.get_by_text("Ann", exact=True))
    row.get_by_role("button", name="New link (old one stops)").click()
    host.wait_for_load_state()
    assert host.get_by_label("Ann's seat link", exact=True).input_value() != seat_url
    # Ann's phone polls every second: the 404 makes it reload onto the plain 404 page.
    seat.locator("#board").wait_for(state="detached", timeout=15_000)
    assert seat.request.get(seat_url).status == 404

    # The host revokes the share link: the watcher's link answers 404.
    host.goto(base + session_path + "share/")
    host.get_by_role("button", name="Revoke").click()
    host.get_by_text("The share link is revoked").wait_for()
    assert watcher.goto(share_url).status == 404
    assert violations == []
