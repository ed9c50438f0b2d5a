"""The rarer calls a table makes, a renege caught in time (R39) and a declaration out of
turn (R16), recorded at 6 and 8 players on a 390×844 phone: every tap and every scroll they
need is counted (FINDINGS: they sat under "More", 6–7 taps and 2 scrolls, against no
scroll for every other kind of hand). They must need no scroll at all now.

Run: .venv/bin/python -m pytest tests/browser/test_record_rare_calls.py -m browser -s
"""

import pytest

from games.models import Hand
from ledger import postings
from tests.factories import PlayerFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HEIGHT = 844
CALLS = "details.more > summary"


class Reach:
    """Taps a target, first scrolling it into view when it is not (each scroll counted)."""

    def __init__(self, page):
        self.page = page
        self.taps = 0
        self.scrolls = 0

    def __call__(self, locator) -> None:
        locator.wait_for(state="visible")
        box = locator.bounding_box()
        assert box is not None, "not visible"
        # What the Save bar (fixed at the bottom) covers is off screen, except the bar's own.
        in_bar = locator.evaluate("el => !!el.closest('.record-bar')")
        bar = (
            HEIGHT
            if in_bar
            else self.page.evaluate(
                "(() => { const b = document.querySelector('.record-bar');"
                " return b ? b.getBoundingClientRect().top : innerHeight; })()"
            )
        )
        top = self.page.evaluate("document.querySelector('.topbar').getBoundingClientRect().bottom")
        if box["y"] < top or box["y"] + box["height"] > min(HEIGHT, bar):
            locator.evaluate("el => el.scrollIntoView({block: 'center'})")
            self.scrolls += 1
            box = locator.bounding_box()
        assert box["height"] >= 44 and box["width"] >= 44, f"tap target too small: {box}"
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        assert locator.evaluate(
            "(el, [x, y]) => el.contains(document.elementFromPoint(x, y))", [x, y]
        ), f"covered at {x},{y}"
        locator.click()
        self.taps += 1


def trick(page, name: str, n: int):
    return page.locator(f'[data-row][data-name="{name}"] .trick-opt:has(input[value="{n}"])')


@pytest.mark.parametrize("seats", [6, 8])
def test_a_renege_caught_in_time_and_a_call_out_of_turn_need_no_scroll(
    live_server, phone, login, club, players, bob, password, seats
):
    extra = ["eve", "fay", "gus", "hal"][: seats - 4]
    seated = [*players, *(PlayerFactory(club=club, name=n) for n in extra)]
    session = postings.start_session(
        club=club, name="Full table", players=seated, dealer=seated[-1], rules={},
        currency=club.currency, user=bob,
    )  # fmt: skip
    page = phone
    login(page, "bob", password)
    record_url = f"{live_server.url}/sessions/{session.pk}/record/"
    counts = {}

    def hand(label, steps, check):
        page.goto(record_url)
        page.locator(".record-form").wait_for()
        reach = Reach(page)
        before = Hand.objects.count()
        steps(reach)
        page.screenshot(path=f"/tmp/i34-findings-rare-{label}-{seats}.png")
        reach(page.get_by_role("button", name="Save hand"))
        page.locator("section.result").get_by_text("saved").wait_for()
        assert Hand.objects.count() == before + 1
        check(Hand.objects.order_by("-number").first())
        postings.check_invariants(session)
        counts[label] = (reach.taps, reach.scrolls)

    def caught(reach):
        reach(page.locator("label.suit-H"))
        reach(trick(page, "ann", 3))
        reach(trick(page, "ben", 2))
        reach(page.locator(CALLS))
        reach(page.locator('label.chip:has(input[name="renege_who"][value="cal"])'))
        reach(page.locator('label.chip:has(input[name="renege_kind"][value="corrected"])'))

    def caught_check(saved):
        assert saved.verdict["reneges"][0]["player"] == "cal"
        assert saved.verdict["reneges"][0]["corrected"] is True  # R39: forfeits a deal

    hand("caught", caught, caught_check)

    def out_of_turn(reach):
        reach(page.locator("label.suit-H"))
        reach(trick(page, "ann", 3))
        reach(trick(page, "ben", 2))
        reach(page.locator(CALLS))
        reach(page.locator('label.chip:has(input[name="out_of_turn_2"])'))

    hand("out_of_turn", out_of_turn, lambda saved: "cal" in saved.record["forfeits"])  # R16
    print(f"{seats} seats, (taps, scrolls):", counts)
    assert all(scrolls == 0 for _, scrolls in counts.values()), counts
