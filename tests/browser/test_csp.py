"""The Content-Security-Policy in a real browser (issue 17, item 4): the pages people use
raise no CSP violation in Chromium, htmx runs without its injected style or eval, and the
scoreboard still polls (304) while visible. Forms refused with 422 (the record form,
the house rules, the final table's deal) come back without a violation, and the shared
scoreboard polls without an hx-trigger filter (htmx:evalDisallowedError)."""

import io

import pytest
from django.core.management import call_command

from games.management.commands.seed_demo import DEMO_PASSWORD, DEMO_USERNAME
from games.models import GameSession, Hand
from games.sessions import share
from games.tournaments import service as svc
from tests.games.test_tournament_service import make_tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_pages_raise_no_csp_violation(live_server, phone, login):
    call_command("seed_demo", stdout=io.StringIO())
    session = GameSession.objects.get(name="Demo night")
    hand = Hand.objects.filter(session=session).first()
    violations: list[str] = []
    statuses: list[int] = []
    phone.on(
        "console",
        lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
    )
    phone.on(
        "response",
        lambda r: statuses.append(r.status) if r.url.endswith(f"/sessions/{session.pk}/") else None,
    )
    login(phone, DEMO_USERNAME, DEMO_PASSWORD)
    paths = [
        "/",
        f"/clubs/{session.club_id}/",
        f"/clubs/{session.club_id}/members/",
        f"/clubs/{session.club_id}/stats/",
        f"/sessions/{session.pk}/record/",
        f"/sessions/{session.pk}/settlement/",
        f"/sessions/{session.pk}/history/",
        f"/hands/{hand.pk}/",
        "/settings/tokens/",
        "/api/v1/docs/",
        f"/sessions/{session.pk}/",
    ]
    for path in paths:
        phone.goto(live_server.url + path)
        phone.wait_for_load_state("load")
    # On the scoreboard: htmx is configured for the CSP and injected no <style>.
    assert phone.evaluate("window.htmx.config.includeIndicatorStyles") is False
    assert phone.evaluate("window.htmx.config.allowEval") is False
    assert phone.evaluate("document.querySelectorAll('style').length") == 0
    # The poll still runs (answered 304 while nothing changed).
    phone.wait_for_timeout(3500)
    assert 304 in statuses
    assert violations == []
    # The policy is enforced (and this test would see a breach): an inline style refused.
    phone.evaluate("document.body.insertAdjacentHTML('beforeend', '<p style=\"color:red\">x</p>')")
    phone.wait_for_timeout(300)
    assert violations and "style-src" in violations[0]


def _csp_listener(page) -> list[str]:
    violations: list[str] = []
    page.on(
        "console",
        lambda m: (
            violations.append(m.text)
            if "Content Security Policy" in m.text or "evalDisallowed" in m.text
            else None
        ),
    )
    # htmx reports a refused eval as an event (and only logs it when logging is on).
    page.add_init_script(
        "document.addEventListener('htmx:evalDisallowedError', function (e) {"
        " console.error('htmx:evalDisallowedError'); });"
    )
    return violations


def test_refused_forms_come_back_without_a_csp_violation(
    live_server, phone, login, club, players, alice, password
):
    """A 422 answer shows the form again with its errors: nothing in it may be
    refused by the policy (an inline style, a handler)."""
    from ledger import postings

    session = postings.start_session(
        club=club, name="Kitchen", players=players[:3], dealer=players[2], rules={},
        currency=club.currency, user=alice,
    )  # fmt: skip
    violations = _csp_listener(phone)
    login(phone, "alice", password)
    refused: list[str] = []
    phone.on(
        "response",
        lambda r: (
            refused.append(f"{r.status} {r.url}")
            if r.request.method == "POST" and r.status >= 400
            else None
        ),
    )
    # The record form: 4 of 5 tricks.
    phone.goto(f"{live_server.url}/sessions/{session.pk}/record/")
    phone.locator(".record-form").wait_for()
    phone.locator(".suit-btn.suit-H").click()
    phone.locator('[data-row][data-name="ann"] .trick-opt:has(input[value="3"])').click()
    phone.locator('[data-row][data-name="ben"] .trick-opt:has(input[value="1"])').click()
    phone.get_by_role("button", name="Save hand").click()
    phone.locator("[data-error-summary]").wait_for()
    # The session's house rules: a pot limit below zero.
    phone.goto(f"{live_server.url}/sessions/{session.pk}/rules/")
    phone.locator("#id_pot_limit").fill("-5")
    phone.locator("form button[type=submit], form button:not([type])").last.click()
    phone.wait_for_load_state()
    # The final table's deal: custom amounts that do not add up.
    t = make_tournament(club, alice, n=3, format="freezeout", buy_in=100, starting_chips=30)
    svc.start(tournament_id=t.pk, user=alice)
    phone.goto(f"{live_server.url}/tournaments/{t.pk}/")
    phone.get_by_text("Make a deal").click()
    phone.locator('input[name="kind"][value="custom"]').check()
    phone.locator('.deal-form input[type="checkbox"]').first.check()
    phone.get_by_role("button", name="Record the deal and end the tournament").click()
    phone.wait_for_load_state()
    phone.wait_for_timeout(300)
    assert [r.split()[0] for r in refused] == ["422", "422", "422"], refused
    # The shared scoreboard polls under the policy too (no trigger filter needing eval).
    link = share.create_link(session, alice)
    board = f"{live_server.url}/share/{link.token}/"
    polls: list[int] = []
    phone.on("response", lambda r: polls.append(r.status) if r.url == board else None)
    phone.goto(board)
    phone.wait_for_timeout(3500)
    assert len(polls) >= 2 and set(polls) <= {200, 304}, polls  # the page, then its polls
    assert violations == []
