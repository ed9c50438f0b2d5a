"""A new user's findings on the account pages (issue #33 item 6), in all six languages:
the login's wrong-password error and the sign-up page's help texts are the project's own
words (Django's said "usted" in Spanish and "사용자 이름와/과" in Korean), the delete page
says what a problem means, and the webhook refusal of 169.254.169.254 reads plainly."""

import re

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from games.models import ApiToken

pytestmark = pytest.mark.django_db

LANGUAGES = [code for code, _ in settings.LANGUAGES]
# Django's own words, as its catalogues say them in each language.
DJANGO_WORDS = [
    "Please enter a correct %(username)s and password. Note that both fields may be "
    "case-sensitive.",
    "Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.",
    "Enter the same password as before, for verification.",
    "Your password can’t be entirely numeric.",
    "A user with that username already exists.",
]


def _text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]*>", " ", response.content.decode()))


def _django_words(lang: str) -> list[str]:
    with translation.override(lang):
        words = [gettext(w) for w in DJANGO_WORDS]
    # The part before a placeholder (Korean's "올바른 사용자 이름와/과" included).
    return [w.split("%(")[0].strip() or w for w in words]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_login_error_says_what_happened_in_the_projects_words(lang, alice):
    client = Client(headers={"Accept-Language": lang})
    response = client.post(
        reverse("login"), {"username": "alice", "password": "wrong"}, REMOTE_ADDR="192.0.2.5"
    )
    assert response.status_code == 422
    with translation.override(lang):
        own = gettext("That username and password do not match. Check both and try again.")
    assert own in _text(response)
    assert lang == "en" or own != (
        "That username and password do not match. Check both and try again."
    )
    for words in _django_words(lang):
        assert words not in _text(response), words
    assert "와/과" not in _text(response)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_sign_up_page_helps_in_the_projects_words(lang, alice):
    client = Client(headers={"Accept-Language": lang})
    page = _text(client.get(reverse("signup")))
    refused = _text(
        client.post(
            reverse("signup"),
            {"username": "alice", "password1": "a-long-pass-42", "password2": "a-long-pass-42"},
            REMOTE_ADDR="198.51.100.5",
        )
    )
    with translation.override(lang):
        own = [
            gettext("Up to 150 characters: letters, digits and @ . + - _ (no spaces)."),
            gettext(
                "At least 8 characters, not only digits, not a common password, and not "
                "like your username or email."
            ),
            gettext("The same password again, to be sure of it."),
        ]
        taken = gettext("That username is taken: choose another one.")
    for text in own:
        assert text in page, text
    assert taken in refused
    for words in _django_words(lang):
        assert words not in page and words not in refused, words


def test_spanish_says_user_account_where_the_account_is_meant(client):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    page = _text(client.get(reverse("login")))
    assert "Crea una cuenta de usuario" in page
    with translation.override("es"):
        assert translation.pgettext("user account", "Account") == "Cuenta de usuario"
        assert gettext("Delete my account") == "Borrar mi cuenta de usuario"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_metadata_address_refusal_reads_plainly(lang, alice, club, settings):
    settings.WEBHOOK_ALLOW_HTTP = False
    settings.WEBHOOK_ALLOW_PRIVATE = False
    _, key = ApiToken.issue(alice, "hooks")
    response = Client(headers={"Authorization": f"Bearer {key}"}).post(
        f"/api/v1/clubs/{club.pk}/webhooks/",
        {"url": "https://169.254.169.254/latest/meta-data/"},
        content_type="application/json",
        headers={"Accept-Language": lang},
    )
    assert response.status_code == 400
    with translation.override(lang):
        plain = gettext(
            "This address is inside a private network, and a private network cannot "
            "receive webhooks. Use an address anyone on the internet can reach."
        )
    assert response.json()["errors"][0]["message"] == plain
    assert lang == "en" or "private network" not in plain
