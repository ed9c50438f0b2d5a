"""The refusals Django answers before or instead of a view (404, 403, CSRF, 400, 500) are
our pages, in the reader's language, each with a way on (games/error_pages.py)."""

from __future__ import annotations

import pytest
from django.core.exceptions import SuspiciousOperation
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from django.views import defaults

from games.models import Role

pytestmark = pytest.mark.django_db


def _words(language: str, *texts: str) -> list[str]:
    with translation.override(language):
        said = [gettext(t) for t in texts]
    assert said != list(texts) or language == "en"  # the catalogue has them
    return said


@pytest.mark.parametrize("language", ["en", "fi", "ko"])
def test_a_missing_page_says_so_in_the_readers_language_with_a_way_home(carol_client, language):
    page = carol_client.get("/no/such/page/", HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 404
    body = page.content.decode()
    title, way = _words(language, "Not found", "Go to your clubs")
    assert f"<h1>{title}</h1>" in body and way in body and reverse("home") in body
    assert "The requested resource was not found" not in body  # Django's own page


@pytest.mark.parametrize("language", ["fi", "ko"])
def test_a_role_refusal_shows_its_sentence_in_the_readers_language(
    carol_client, club, players, language
):
    page = carol_client.get(reverse("session_new", args=[club.pk]), HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 403
    body = page.content.decode()
    with translation.override(language):
        role = str(Role(Role.SCOREKEEPER).label).lower()
        sentence = gettext("This needs the %(role)s role in %(club)s.") % {
            "role": role,
            "club": club,
        }
    (title,) = _words(language, "Not allowed")
    assert title in body and sentence in body
    assert "403 Forbidden" not in body


@pytest.mark.parametrize("language", ["en", "fi"])
def test_a_form_refused_by_the_csrf_check_says_nothing_changed(alice, language):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    page = client.post(reverse("club_create"), {"name": "X"}, HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 403
    body = page.content.decode()
    (said,) = _words(
        language,
        "This page was open too long, or you signed in or out in another tab, so it could "
        "not be sent safely. Nothing was changed.",
    )
    assert said in body and "CSRF verification failed" not in body


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_bad_request_and_a_server_error_have_our_pages(language):
    request = RequestFactory().get("/")
    with translation.override(language):
        bad = defaults.bad_request(request, SuspiciousOperation("bad host"))
        broken = defaults.server_error(request)
    (wrong,) = _words(language, "Something was wrong with that request")
    (went,) = _words(language, "Something went wrong")
    assert bad.status_code == 400 and wrong in bad.content.decode()
    # No request context (the database may be what failed): a page that needs none.
    assert broken.status_code == 500 and went in broken.content.decode()
    assert f'lang="{language}"' in broken.content.decode()
