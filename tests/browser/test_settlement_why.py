"""The settlement on a phone (FINDINGS): each transfer is its sentence and a "why?"; the
explanation ("…; $1.50 of Ann's $6.50 win (2 of 4).") opens under it on a tap."""

import pytest

from ledger import postings
from ledger.invariants import check_invariants

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_each_transfer_keeps_its_explanation_behind_why(
    live_server, phone, login, club, players, bob, password
):
    session = postings.start_session(
        club=club, name="Friday", players=players, dealer=players[3], rules={},
        currency=club.currency, user=bob,
    )  # fmt: skip
    for key, tricks in (("1", {"ann": 3, "ben": 1, "cal": 1, "dee": 0}),
                        ("2", {"ann": 1, "ben": 3, "cal": 1, "dee": 0})):  # fmt: skip
        postings.record_hand(
            session_id=session.pk, entry={"trump": "H", "tricks": tricks},
            idempotency_key=key, expected_version=None, user=bob,
        )  # fmt: skip
    postings.close_session(session_id=session.pk, user=bob, leftover_policy="share_equally")
    check_invariants(session)
    login(phone, "bob", password)
    phone.goto(f"{live_server.url}/sessions/{session.pk}/settlement/")
    transfers = phone.locator("li.transfer")
    transfers.first.wait_for()
    n = transfers.count()
    assert n >= 2
    explanations = phone.locator("li.transfer .transfer-why .row-sub")
    assert explanations.count() == n and not any(explanations.nth(i).is_visible() for i in range(n))
    phone.screenshot(path="/tmp/i34-findings-settlement-closed.png")
    why = transfers.first.locator(".transfer-why > summary")
    box = why.bounding_box()
    assert box and box["height"] >= 44 and box["y"] + box["height"] <= 844
    why.click()
    assert explanations.first.is_visible() and explanations.first.inner_text().strip()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path="/tmp/i34-findings-settlement-why.png")


def test_the_put_everything_on_the_tab_button_stands_apart_from_the_transfers(
    live_server, phone, login, club, players, bob, password
):
    """A new user's finding: "Put every unpaid transfer on the tab" touched the transfers'
    card above it. It keeps the page's usual 12 px between them."""
    session = postings.start_session(
        club=club, name="Friday", players=players, dealer=players[3], rules={},
        currency=club.currency, user=bob,
    )  # fmt: skip
    postings.record_hand(
        session_id=session.pk, entry={"trump": "H", "tricks": {"ann": 3, "ben": 1, "cal": 1, "dee": 0}},
        idempotency_key="1", expected_version=None, user=bob,
    )  # fmt: skip
    postings.close_session(session_id=session.pk, user=bob, leftover_policy="share_equally")
    login(phone, "bob", password)
    phone.goto(f"{live_server.url}/sessions/{session.pk}/settlement/")
    button = phone.locator("form.tab-all button")
    button.wait_for()
    card = phone.locator("ul.transfers").bounding_box()
    box = button.bounding_box()
    assert card and box
    assert box["y"] - (card["y"] + card["height"]) >= 12, (card, box)
    phone.screenshot(path="/tmp/polish-settlement-tab-all.png", full_page=True)
