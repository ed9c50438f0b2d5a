"""The offline queue and the record form's table (FINDINGS, "Sessions and the record
flow"), in real Chromium at 390×844:

- while hands wait on the phone, the next form marks no dealer ("D") and nobody excused:
  those were the server's before the waiting hands; once they are sent, the marks are
  the server's new ones, also in a form the host has started typing;
- a Save that meets the server away (502/503 while it restarts) is kept like an offline
  hand and sent, once, when the server answers again; a banner, when one shows, covers
  neither the form's heading nor its pot/dealer line.
"""

import time

import pytest

from games.models import GameSession, Hand
from ledger import postings
from ledger.invariants import check_invariants

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def kitchen(phone, login, club, players, bob, password) -> GameSession:
    """ann, ben, cal and dee (dee deals); hand 1 bourrés dee, so dee is excused next and
    ann deals; the scorekeeper bob logged in on the phone."""
    login(phone, "bob", password)
    session = postings.start_session(
        club=club, name="Kitchen", players=players, dealer=players[3], rules={},
        currency=club.currency, user=bob,
    )  # fmt: skip
    postings.record_hand(
        session_id=session.pk,
        entry={"trump": "H", "tricks": {"ann": 3, "ben": 1, "cal": 1, "dee": 0}},
        idempotency_key="hand-1",
        expected_version=None,
        user=bob,
    )
    return session


def _open(page, live_server, session):
    page.goto(f"{live_server.url}/sessions/{session.pk}/record/")
    page.locator(".record-form").wait_for()
    page.wait_for_function("() => window.bourre && window.bourre.queue")


def _type(page, trump, winner, other):
    page.locator(f".suit-btn.suit-{trump}").click()
    page.locator(f'[data-row][data-name="{winner}"] .trick-opt:has(input[value="3"])').click()
    page.locator(f'[data-row][data-name="{other}"] .trick-opt:has(input[value="2"])').click()


def _marks(page):
    """Who the form shows as dealer and as excused (what a host glancing at it reads)."""
    return page.evaluate(
        """() => {
          const shown = el => el && el.offsetParent !== null;
          const rows = [...document.querySelectorAll('[data-row]')];
          return {
            dealer: rows.filter(r => shown(r.querySelector('.chip-dealer'))).map(r => r.dataset.name),
            excused: rows.filter(r => shown(r.querySelector('.who-excused'))).map(r => r.dataset.name),
          };
        }"""
    )


def _hands(session, n, timeout=15.0):
    deadline = time.monotonic() + timeout
    while True:
        hands = list(Hand.objects.filter(session=session).order_by("number"))
        if len(hands) >= n or time.monotonic() > deadline:
            assert len(hands) == n, hands
            return hands
        time.sleep(0.05)


def test_waiting_hands_hide_the_dealer_and_excused_marks_until_they_are_sent(
    live_server, phone, kitchen
):
    session = kitchen
    _open(phone, live_server, session)
    assert _marks(phone) == {"dealer": ["ann"], "excused": ["dee"]}  # the server's, after hand 1
    phone.context.set_offline(True)
    _type(phone, "S", "ben", "cal")  # hand 2: ann deals, dee excused
    phone.get_by_role("button", name="Save hand").click()
    phone.locator("[data-queue-status]").get_by_text("Waiting to send (1)").wait_for()
    phone.get_by_role("heading", name="Record hand 3").wait_for()
    # The form is for hand 3: nobody is marked as its dealer or excused, since the
    # server has not said yet (ann dealt hand 2; dee is no longer excused).
    assert _marks(phone) == {"dealer": [], "excused": []}
    assert "follow once the waiting hand is sent" in phone.locator(".record-context").inner_text()
    phone.screenshot(path="/tmp/i34-findings-queued-marks.png")
    # The host starts typing hand 3 before the connection returns: the taps stay, and
    # the marks and the context line become the server's after hand 2.
    phone.locator(".suit-btn.suit-D").click()
    phone.context.set_offline(False)
    phone.evaluate("() => window.bourre.queue.flush()")
    phone.wait_for_function("() => !window.bourre.queue.entries().length", timeout=20_000)
    phone.wait_for_function("() => !document.querySelector('#record[data-ahead]')")
    _hands(session, 2)
    assert _marks(phone) == {"dealer": ["ben"], "excused": []}  # R8: the deal passes left
    assert "ben" in phone.locator(".record-context").inner_text()
    assert phone.locator(".suit-btn.suit-D input").is_checked()  # the host's tap stayed
    phone.screenshot(path="/tmp/i34-findings-sent-marks.png")
    check_invariants(GameSession.objects.get(pk=session.pk))


@pytest.mark.parametrize("status", [502, 503])
def test_a_save_meeting_the_server_away_waits_and_is_sent_once_when_it_answers(
    live_server, phone, kitchen, status
):
    session = kitchen
    _open(phone, live_server, session)
    away = {"on": True, "posts": 0}

    def restarting(route):
        if route.request.method == "POST" and away["on"]:
            away["posts"] += 1
            route.fulfill(status=status, body="Bad gateway", headers={"Retry-After": "5"})
        else:
            route.continue_()

    phone.route("**/record/", restarting)
    _type(phone, "S", "ben", "cal")
    phone.get_by_role("button", name="Save hand").click()
    status_line = phone.locator("[data-queue-status]")
    status_line.get_by_text("Waiting to send (1)").wait_for()
    phone.get_by_text("The server did not answer (it may be restarting)").wait_for()
    assert not phone.locator(".net-banner:visible").count()  # the queue took it: no Retry
    assert Hand.objects.filter(session=session).count() == 1  # nothing recorded
    # Nothing covers the heading or the pot/dealer line.
    _uncovered(phone, phone.get_by_role("heading", name="Record hand 3"))
    _uncovered(phone, phone.locator("#record .record-context"))
    phone.screenshot(path=f"/tmp/i34-findings-server-away-{status}.png")
    # A send while the server is still away keeps it waiting.
    phone.evaluate("() => window.bourre.queue.flush()")
    phone.wait_for_function("() => window.bourre.queue.entries().length === 1")
    assert away["posts"] >= 2
    away["on"] = False  # the server is back
    phone.evaluate("() => window.bourre.queue.flush()")
    phone.wait_for_function("() => !window.bourre.queue.entries().length", timeout=20_000)
    hands = _hands(session, 2)
    assert (hands[1].record["trump"], hands[1].result["winner"]) == ("S", "ben")
    check_invariants(GameSession.objects.get(pk=session.pk))


def test_the_failure_banner_covers_neither_the_heading_nor_the_pot_line(
    live_server, phone, kitchen
):
    """A 500 on Save (the app's own failure) still shows the banner with Retry; it sits
    in the page's flow above the form, not over it."""
    session = kitchen
    _open(phone, live_server, session)
    failed = []

    def first_fails(route):
        if route.request.method == "POST" and not failed:
            failed.append(1)
            route.fulfill(status=500, body="boom")
        else:
            route.continue_()

    phone.route("**/record/", first_fails)
    _type(phone, "S", "ben", "cal")
    phone.get_by_role("button", name="Save hand").click()
    banner = phone.locator(".net-banner")
    banner.get_by_text("went wrong on the server (500)").wait_for()
    phone.evaluate("window.scrollTo(0, 0)")
    _uncovered(phone, phone.get_by_role("heading", name="Record hand 2"))
    _uncovered(phone, phone.locator("#record .record-context"))
    phone.screenshot(path="/tmp/i34-findings-banner.png")
    banner.get_by_role("button", name="Retry").click()
    phone.locator("section.result").get_by_text("saved").wait_for()
    _hands(session, 2)
    check_invariants(GameSession.objects.get(pk=session.pk))


def _uncovered(page, locator):
    """Every corner and the middle of the element are the element's own on screen."""
    box = locator.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844, box
    points = [
        (box["x"] + 2, box["y"] + 2),
        (box["x"] + box["width"] - 2, box["y"] + 2),
        (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2),
        (box["x"] + 2, box["y"] + box["height"] - 2),
    ]
    for x, y in points:
        assert locator.evaluate(
            "(el, [x, y]) => { const at = document.elementFromPoint(x, y);"
            " return !!at && (el.contains(at) || at.contains(el)); }",
            [x, y],
        ), f"covered at {x},{y}"
