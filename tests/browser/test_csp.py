"""The Content-Security-Policy in a real browser (issue 17, item 4): the pages people use
raise no CSP violation in Chromium, htmx runs without its injected style or eval, and the
scoreboard still polls (304) while visible."""

import io

import pytest
from django.core.management import call_command

from games.management.commands.seed_demo import DEMO_PASSWORD, DEMO_USERNAME
from games.models import GameSession, Hand

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
