"""No request a page makes fails: the browser asks for what a page links (styles,
scripts) and for its icon, the one a `<link rel="icon">` names or else /favicon.ico.
Headless Chromium fetches no icon, so the test asks for the one each page resolves to.
Over the pages people use, signed in and on the public tournament links."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from games.management.commands.seed_demo import DEMO_PASSWORD, DEMO_USERNAME
from games.models import GameSession
from games.tournaments import service as svc
from tests.games.test_tournament_service import make_tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_no_page_makes_a_request_that_fails(live_server, phone, login):
    call_command("seed_demo", stdout=io.StringIO())
    session = GameSession.objects.get(name="Demo night")
    user = get_user_model().objects.get(username=DEMO_USERNAME)
    t = make_tournament(session.club, user, n=6, name="Icon Cup", starting_chips=30)
    svc.start(tournament_id=t.pk, user=user)
    failed: list[str] = []
    phone.on(
        "response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None
    )
    login(phone, DEMO_USERNAME, DEMO_PASSWORD)
    paths = [
        "/",
        "/api/v1/docs/",
        f"/clubs/{session.club_id}/",
        f"/sessions/{session.pk}/",
        f"/sessions/{session.pk}/record/",
        f"/sessions/{session.pk}/settlement/",
        f"/tournaments/{t.pk}/",
        f"/tournaments/{t.pk}/bracket/",
        f"/tournaments/{t.pk}/standings/",
        f"/t/{t.public_token}/",
        f"/t/{t.public_token}/tv/",
        f"/t/{t.public_token}/print/",
        f"/t/{t.public_token}/verify/",
    ]
    for path in paths:
        response = phone.goto(live_server.url + path)
        assert response is not None and response.status == 200, path
        phone.wait_for_load_state("load")
        icon = phone.evaluate(ICON)
        assert icon["status"] == 200 and icon["type"].startswith("image/"), (path, icon)
    assert failed == []


# What a browser's tab asks for: the page's icon link, or /favicon.ico without one.
ICON = """async () => {
  const link = document.querySelector('link[rel~="icon"]');
  const url = link ? link.href : new URL('/favicon.ico', location.href).href;
  const r = await fetch(url);
  return {url, status: r.status, type: r.headers.get('content-type') || ''};
}"""
