"""A digital seat on a 390×844 phone: on your turn the cards already led are in view
together with your hand, at a full table of seven; a move another phone beat is answered
on screen (the server's sentence, on the board as it is now) and stays said over the
polls that follow, until dismissed."""

import time

import pytest

from games.digital import service as digital
from games.models import Hand, Player
from ledger import postings
from tests.browser.tables import digital_table
from tests.factories import ClubFactory, MembershipFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HEIGHT = 844
SHOTS = __import__("os").environ.get(
    "HA_SHOTS"
)  # a folder to save screenshots to while working on this screen


def _shot(page, name):
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/{name}.png")


def _seven():
    """ann … gus at one digital table, gus dealing and playing on the phone; bots for the
    rest."""
    keeper = UserFactory(username="keeper")
    club = ClubFactory(name="Full Table")
    MembershipFactory(club=club, user=keeper, role="scorekeeper")
    names = ("ann", "ben", "cal", "dee", "eve", "fay", "gus")
    players = [Player.objects.create(club=club, name=n) for n in names]
    session = postings.start_session(
        club=club, name="Seven", players=players, dealer=players[-1], rules={},
        currency=club.currency, user=keeper, mode="digital",
    )  # fmt: skip
    session.seats.exclude(player__name="gus").update(is_bot=True)
    return keeper, session, session.seats.get(player__name="gus")


def _in_view(page, selector: str) -> list[str]:
    """Each element matching `selector` that is not wholly on screen, or is covered."""
    return page.evaluate(
        """([sel, h]) => [...document.querySelectorAll(sel)].flatMap(el => {
            const r = el.getBoundingClientRect();
            if (r.top < 0 || r.bottom > h || r.left < 0 || r.right > window.innerWidth)
                return [`${el.textContent.trim()} at ${r.top}-${r.bottom}`];
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return el.contains(hit) ? [] : [`${el.textContent.trim()} covered`];
        })""",
        [selector, HEIGHT],
    )


def _dismiss_layout(page) -> list[str]:
    """What is wrong with the refusal's Dismiss button: under 44 px tall, not at the
    right end of the message, or sharing a line with the second or later line of a
    message that wraps (it reads as part of the sentence)."""
    return page.evaluate(
        """() => {
            const error = document.querySelector("#board .dg-error");
            const button = error.querySelector(".dg-dismiss");
            const b = button.getBoundingClientRect();
            const style = getComputedStyle(error);
            const end = error.getBoundingClientRect().right - parseFloat(style.paddingRight);
            const lines = [];
            const walk = document.createTreeWalker(error, NodeFilter.SHOW_TEXT);
            for (let node = walk.nextNode(); node; node = walk.nextNode()) {
                if (button.contains(node) || !node.textContent.trim()) continue;
                const range = document.createRange();
                range.selectNodeContents(node);
                for (const r of range.getClientRects()) lines.push(r);
            }
            const tops = new Set(lines.map(r => Math.round(r.top)));
            const wrong = [];
            if (b.height < 44) wrong.push(`button ${b.height}px tall`);
            if (Math.abs(b.right - end) > 1) wrong.push(`button ends at ${b.right}, not ${end}`);
            const beside = lines.filter(r => r.bottom > b.top + 1 && r.top < b.bottom - 1);
            if (beside.length && tops.size > 1) wrong.push(`button beside line ${beside[0].top} of ${tops.size}`);
            if (document.documentElement.scrollWidth > innerWidth) wrong.push("sideways scroll");
            return wrong;
        }"""
    )


def test_the_trick_and_your_hand_are_in_view_together_on_your_turn(live_server, new_phone):
    keeper, session, seat = _seven()
    page = new_phone()
    checked = 0
    for _ in range(6):  # a hand the bots all pass, or that ends before gus leads: deal again
        digital.start_hand(session_id=session.pk, user=keeper)
        page.goto(f"{live_server.url}/seat/{seat.secret}/")
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline and not page.locator(".dg-result").count():
            page.locator("#board").evaluate("b => b.classList.add('dg-skip')")  # no reveal pacing
            form = page.locator("form[data-digital]")
            if not form.count():
                time.sleep(0.2)
                continue
            seq = page.locator("#board").get_attribute("data-seq")
            legal = page.locator("form[data-digital] button.pc-legal")
            led = page.locator(".dg-felt .dg-trick:not(.dg-small) li")
            if (
                legal.count()
                and led.count()
                and page.locator(".dg-felt .dg-trick.dg-small").count()
            ):
                # Trick 2 or later: the trick being played and the last one both show.
                page.evaluate("window.scrollTo(0, 0)")
                _shot(page, f"trick_390_{checked}")
                assert not _in_view(page, ".dg-felt .dg-trick:not(.dg-small) li"), _in_view(
                    page, ".dg-felt .dg-trick:not(.dg-small) li"
                )
                assert not _in_view(page, "form[data-digital] .pc-big")
                assert page.evaluate("window.scrollY") == 0
                assert page.evaluate("document.documentElement.scrollWidth") <= 390
                page.set_viewport_size({"width": 360, "height": 740})
                assert page.evaluate("document.documentElement.scrollWidth") <= 360
                assert not _in_view(page, "form[data-digital] .pc-big")
                _shot(page, f"trick_360_{checked}")
                page.set_viewport_size({"width": 390, "height": HEIGHT})
                checked += 1
            if legal.count():
                legal.first.click()
            else:
                page.locator("form[data-digital] [data-play-label]").click()
            page.wait_for_function(
                "s => document.getElementById('board').dataset.seq !== s", arg=seq
            )
        if checked >= 2:
            break
        hand = Hand.objects.filter(session=session, status=Hand.Status.IN_PROGRESS).first()
        if hand is not None:
            digital.cancel_hand(session_id=session.pk, user=keeper)
    assert checked, "gus never had a turn with cards on the table"


def test_a_move_another_phone_beat_says_so_on_the_fresh_board(live_server, new_phone):
    keeper, session = digital_table()
    session.seats.filter(player__name__in=["cal", "dee"]).update(is_bot=True)
    seats = {s.player.name: s for s in session.seats.select_related("player")}
    digital.start_hand(session_id=session.pk, user=keeper)
    page = new_phone()
    held = {"on": True}

    def polls(route):
        # ann's phone does not hear of the other move before its own tap goes out.
        if held["on"] and route.request.method == "GET" and route.request.headers.get("hx-request"):
            route.fulfill(status=304)
        else:
            route.continue_()

    page.route(f"**/seat/{seats['ann'].secret}/**", polls)
    page.goto(f"{live_server.url}/seat/{seats['ann'].secret}/")
    page.get_by_role("button", name="Pass").wait_for()
    seq = int(page.locator("#board").get_attribute("data-seq"))
    hand = Hand.objects.get(session=session, status=Hand.Status.IN_PROGRESS)
    # ann's seat declared from another phone a moment before this one taps Pass.
    digital.apply_action(
        seat=seats["ann"], hand_id=hand.pk, seen=seq, action={"type": "play", "discard": []}
    )
    page.get_by_role("button", name="Pass").click()

    error = page.locator("#board .dg-error")
    error.wait_for()
    assert "The table moved on; here is where it stands now." in error.inner_text()
    assert not _in_view(page, "#board .dg-error")
    # The board as it is now: ann played, and it is ben's turn.
    assert int(page.locator("#board").get_attribute("data-seq")) > seq
    page.get_by_text("Waiting for ben").wait_for()
    _shot(page, "refused_409")
    # The message and its Dismiss read cleanly on a small phone too.
    page.get_by_role("button", name="Dismiss").wait_for()
    for width in (390, 360):
        page.set_viewport_size({"width": width, "height": HEIGHT})
        assert not _dismiss_layout(page), (width, _dismiss_layout(page))
        _shot(page, f"refused_dismiss_{width}")
    page.set_viewport_size({"width": 390, "height": HEIGHT})

    # The table moves on again (ben declares): the poll's board keeps the sentence.
    held["on"] = False
    now = page.locator("#board").get_attribute("data-seq")
    ben_seen = Hand.objects.get(pk=hand.pk).actions.count()
    digital.apply_action(seat=seats["ben"], hand_id=hand.pk, seen=ben_seen, action={"type": "pass"})
    page.wait_for_function("s => document.getElementById('board').dataset.seq !== s", arg=now)
    assert "moved on" in error.inner_text()
    assert not _in_view(page, "#board .dg-error")
    page.get_by_role("button", name="Dismiss").click()
    assert not error.count()
