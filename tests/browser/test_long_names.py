"""Long player names never push a page wider than the phone, and short ones stay whole.

A table with 38–40 character names (one of them without a space to break at) is taken
through the record form, the result of a saved hand, the seats page, a correction's
confirmation and the settlement, at 390 px and at 360 px: on each page the document is no
wider than the viewport. At 360 px "Ann" is shown whole (not cut to "A…") on the record
form and in the correction's table, and so is every name of a six-handed table of short
names on the record form.

Run: .venv/bin/python -m pytest tests/browser/test_long_names.py -m browser
"""

import pytest

from games.models import Hand
from ledger import postings
from tests.browser.tables import six_handed
from tests.factories import PlayerFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MAXI = "Maximiliana Evangelina Rodríguez-Smith"  # 38 characters
BART = "Bartholomew Featherstonehaugh-Wolfington"  # 40, the longest a name may be
ONEWORD = "Wolfeschlegelsteinhausenbergerdorffvoral"  # 40, nowhere to break
NAMES = ("Ann", MAXI, BART, ONEWORD, "Bo")

# What sticks out past the right edge, for the failure message.
OVERFLOW = """
(w) => {
  const out = [];
  document.querySelectorAll('body *').forEach((el) => {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > w + 0.5) {
      const cls = typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '';
      out.push(`${el.tagName.toLowerCase()}${cls} right=${Math.round(r.right)}`);
    }
  });
  return {width: document.documentElement.scrollWidth, inner: w, out: out.slice(0, 8)};
}
"""


def _fits(page, label: str, problems: list[str]) -> None:
    # A mobile browser widens its layout viewport to the content, so innerWidth grows with
    # the page: the page is measured against the phone's width as well.
    width = page.viewport_size["width"]
    m = page.evaluate(OVERFLOW, width)
    print(f"{label} at {width}: {m['width']} px")
    if m["width"] > min(m["inner"], width):
        problems.append(f"{label}: page is {m['width']} px wide at {width}: {m['out']}")


def _on_screen(locator, label: str, problems: list[str]) -> bool:
    """A tap target at least 44 px square that ends inside the phone's width."""
    box = locator.bounding_box()
    assert box and box["width"] >= 44 and box["height"] >= 44, (label, box)
    if box["x"] + box["width"] > locator.page.viewport_size["width"]:
        problems.append(f"{label}: a button ends at {box['x'] + box['width']:.0f} px")
        return False
    return True


def _tap(locator, label: str, problems: list[str]) -> None:
    """Tap a button; one off the right edge is a problem, and is clicked by script so that
    the pages after it are measured too."""
    if _on_screen(locator, label, problems):
        locator.click()
    else:
        locator.dispatch_event("click")


WHOLE = """
(el) => {
  const range = document.createRange();
  range.selectNodeContents(el);
  const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
  return [el.scrollWidth, el.clientWidth, lines.size, el.textContent.trim()];
}
"""


def _whole(locator, label: str, problems: list[str]) -> None:
    """The name is not cut ("A…") nor broken over two lines ("An / n")."""
    scroll, client, lines, text = locator.evaluate(WHOLE)
    if scroll > client or lines != 1:
        problems.append(f"{label}: {text!r} is cut ({scroll} px in {client}, {lines} lines)")


def _trick(page, name: str, n: int):
    return page.locator(f'[data-row][data-name="{name}"] .trick-opt:has(input[value="{n}"])')


@pytest.mark.parametrize("width", [390, 360])
def test_long_names_fit_the_phone_and_short_names_stay_whole(
    live_server, phone, login, club, bob, password, width
):
    players = [PlayerFactory(club=club, name=name) for name in NAMES]
    session = postings.start_session(
        club=club, name="Long names", players=players, dealer=players[3], rules={},
        currency=club.currency, user=bob,
    )  # fmt: skip
    page = phone
    page.set_viewport_size({"width": width, "height": 844})
    login(page, "bob", password)
    base = live_server.url
    problems: list[str] = []

    # The record form: every seat's name; ONEWORD deals, so it is in the context line too.
    page.goto(f"{base}/sessions/{session.pk}/record/")
    page.locator(".record-form").wait_for()
    _fits(page, "record form", problems)
    _whole(page.locator('[data-row][data-name="Ann"] .who-name'), "record form", problems)
    _on_screen(_trick(page, ONEWORD, 5), "record form", problems)
    more = page.locator("details.more > summary")
    more.click()  # the renege and out-of-turn chips: one per name
    _fits(page, "record form, More open", problems)
    more.click()

    # A hand: MAXI wins with 3, BART takes 2, Ann played and took none (bourré).
    page.locator("label.suit-H").click()
    _tap(_trick(page, MAXI, 3), "record form", problems)
    _trick(page, BART, 2).click()
    _trick(page, "Ann", 0).click()
    _tap(page.get_by_role("button", name="Save hand"), "record form", problems)
    page.locator("section.result").get_by_text("saved").wait_for()
    _fits(page, "hand result", problems)
    hand = Hand.objects.get(session=session)
    assert hand.result["outcome"] == "win"

    page.goto(f"{base}/sessions/{session.pk}/seats/")
    page.locator("#seats").wait_for()
    _fits(page, "seats", problems)

    # Correct it: BART took 3 and MAXI 2; the confirmation lists what changes for whom.
    page.goto(f"{base}/hands/{hand.pk}/correct/")
    page.locator(".record-form").wait_for()
    _fits(page, "correction form", problems)
    _trick(page, MAXI, 2).click()
    _trick(page, BART, 3).click()
    _tap(page.get_by_role("button", name="Check what changes"), "correction form", problems)
    page.locator("table.changes").wait_for()
    _fits(page, "correction confirmation", problems)
    _whole(
        page.locator("table.changes td", has_text="Ann").first, "correction confirmation", problems
    )

    page.goto(f"{base}/sessions/{session.pk}/settlement/")
    page.locator("#transfers").wait_for()
    _fits(page, "settlement", problems)
    assert not problems, "\n".join(problems)


def test_short_names_are_whole_on_the_record_form_at_360(
    live_server, phone, login, club, players, bob, password
):
    session = six_handed(club, players, bob, rules={})
    phone.set_viewport_size({"width": 360, "height": 844})
    login(phone, "bob", password)
    phone.goto(f"{live_server.url}/sessions/{session.pk}/record/")
    phone.locator(".record-form").wait_for()
    problems: list[str] = []
    _fits(phone, "record form", problems)
    for name in ("ann", "ben", "cal", "dee", "eve", "fay"):
        _whole(phone.locator(f'[data-row][data-name="{name}"] .who-name'), "record form", problems)
        _on_screen(_trick(phone, name, 5), "record form", problems)
    assert not problems, "\n".join(problems)
