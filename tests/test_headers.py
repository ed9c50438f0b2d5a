"""Security headers on every URL of the URL conf (issue 17, item 4).

The walk takes every named route from the resolver (so routes added later are walked
too), fills its arguments with the demo club's real objects where it can, and checks as
the signed-in owner and as a stranger without a login: a strict Content-Security-Policy,
a Permissions-Policy, `Cache-Control: private, no-store` on everything a signed-in user
gets and on every export, and never a 5xx. The HTML that comes back has no inline
script, style attribute or on* handler (the CSP would block them), and neither does any
template.
"""

import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import get_resolver, reverse

from bourre_site.middleware import CONTENT_SECURITY_POLICY
from games.models import GameSession, Hand, Membership
from games.models.session import Seat
from tests.test_urls import URLS

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.django_db

INLINE = [
    (re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I), "inline <script>"),
    (re.compile(r"<style[\s>]", re.I), "<style> element"),
    (re.compile(r"\sstyle\s*=", re.I), "style= attribute"),
    (re.compile(r"\son[a-z]+\s*=", re.I), "on*= handler"),
]


def _inline(html: str) -> list[str]:
    # SVG presentation attributes (fill=, stroke=) are not styles; <svg style=> would be.
    return [what for pattern, what in INLINE if pattern.search(html)]


def _routes():
    resolver = get_resolver()
    for name in resolver.reverse_dict:
        if isinstance(name, str):
            params = resolver.reverse_dict.getlist(name)[0][0][0][1]
            yield name, params


@pytest.fixture
def world(db):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    session = GameSession.objects.get(name="Demo night")
    membership = Membership.objects.get(club=session.club)
    return {
        "club_id": session.club_id,
        "session_id": session.pk,
        "hand_id": Hand.objects.filter(session=session).first().pk,
        "player_id": session.club.players.first().pk,
        "membership_id": membership.pk,
        "seat_id": Seat.objects.filter(session=session).first().pk,
        "secret": Seat.objects.filter(session=session).first().secret,
        "user": membership.user,
    }


def _paths(world):
    for name, params in _routes():
        kwargs = {
            p: world.get(p, "abc" if p in ("secret", "token", "action") else 7) for p in params
        }
        yield name, reverse(name, kwargs=kwargs)
    yield "admin:index", reverse("admin:index")
    yield "admin:login", reverse("admin:login")


def _assert_headers(response, path, signed_in):
    assert response.status_code < 500, (path, response.status_code)
    csp = response["Content-Security-Policy"]
    script_src = re.search(r"script-src ([^;]*)", csp).group(1)
    assert "'unsafe-inline'" not in script_src and "'unsafe-eval'" not in script_src, path
    assert "frame-ancestors 'none'" in csp and "object-src 'none'" in csp, path
    if not path.startswith(("/admin/", "/api/v1/docs/")):
        assert csp == CONTENT_SECURITY_POLICY, path
    assert "camera=()" in response["Permissions-Policy"], path
    export = response.get("Content-Disposition", "").startswith("attachment") or response.get(
        "Content-Type", ""
    ).startswith("text/csv")
    # The public verifier does not authenticate at all (DRF sets an anonymous user).
    signed_in = signed_in and response.wsgi_request.user.is_authenticated
    if signed_in or export or path.startswith("/seat/"):
        assert response["Cache-Control"] == "private, no-store", path


def test_every_url_as_the_signed_in_owner(world):
    client = Client()
    client.force_login(world["user"])
    walked = 0
    for name, path in _paths(world):
        response = client.get(path)
        _assert_headers(response, path, signed_in=True)
        if response.get("Content-Type", "").startswith("text/html") and not path.startswith(
            ("/admin/", "/api/v1/docs/")
        ):
            assert _inline(response.content.decode()) == [], (name, path)
        walked += 1
    assert walked >= len(URLS)  # the whole URL conf, not a sample


def test_every_url_as_a_stranger_without_login(world):
    client = Client()
    for _, path in _paths(world):
        _assert_headers(client.get(path), path, signed_in=False)


def test_exports_are_never_cached(world):
    client = Client()
    client.force_login(world["user"])
    for name in ("ledger_csv", "settlement_csv"):
        response = client.get(reverse(name, args=[world["session_id"]]))
        assert response.status_code == 200
        assert response["Cache-Control"] == "private, no-store"


def test_htmx_partials_carry_the_headers_too(world):
    client = Client()
    client.force_login(world["user"])
    response = client.get(
        reverse("session_detail", args=[world["session_id"]]), HTTP_HX_REQUEST="true"
    )
    assert response["Cache-Control"] == "private, no-store"
    assert response["Content-Security-Policy"] == CONTENT_SECURITY_POLICY


@pytest.mark.parametrize(
    "template", sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "templates").rglob("*.html"))
)
def test_no_template_has_inline_script_or_style(template):
    assert _inline((ROOT / template).read_text()) == []


def test_api_answers_to_a_token_are_never_cached(world):
    from tests.api.conftest import token_client

    api = token_client(world["user"])
    for path in ("/api/v1/clubs/", f"/api/v1/sessions/{world['session_id']}/"):
        response = api.get(path)
        assert response.status_code == 200
        assert response["Cache-Control"] == "private, no-store", path
    anonymous = Client().get("/api/v1/clubs/")
    assert anonymous.status_code == 401
    assert anonymous["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
