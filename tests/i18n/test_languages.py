"""Which language a page is in (issue 19): the signed-in user's saved choice, then the
switcher's cookie, then Accept-Language; unknown codes are English; a share link or a
seat page is in the viewer's language, never the host's."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils.translation import get_language_info, gettext, override

from games.language import SESSION_LANGUAGE
from games.models import LanguagePreference
from games.sessions import share
from tests.games.test_session_views import start_table

pytestmark = pytest.mark.django_db


def _lang(response) -> str:
    """The page's <html lang> and the Content-Language header, which must agree."""
    body = response.content.decode()
    start = body.index('<html lang="') + len('<html lang="')
    code = body[start : body.index('"', start)]
    assert response["Content-Language"] == code
    return code


def test_the_six_languages_are_offered_and_sundanese_has_its_own_name():
    assert [code for code, _ in settings.LANGUAGES] == ["en", "es", "fi", "sq", "ko", "su"]
    info = get_language_info("su")
    assert (info["name"], info["name_local"], info["bidi"]) == ("Sundanese", "Basa Sunda", False)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("es-MX,es;q=0.9,en;q=0.5", "es"),
        ("fi", "fi"),
        ("sq-AL", "sq"),
        ("ko-KR,ko;q=0.8", "ko"),
        ("su", "su"),
        ("de-DE,fr;q=0.8", "en"),  # nothing offered: English
        ("x-klingon", "en"),
        ("", "en"),
    ],
)
def test_accept_language_picks_an_offered_language_or_english(client, header, expected):
    response = client.get(reverse("rule_book"), headers={"accept-language": header})
    assert response.status_code == 200
    assert _lang(response) == expected


def test_the_switcher_works_without_javascript_and_remembers_a_guest_in_a_cookie(client):
    page = client.get(reverse("rule_book")).content.decode()
    assert f'action="{reverse("set_language")}"' in page and 'name="language"' in page
    for code, _ in settings.LANGUAGES:  # every language named in its own words
        assert f'value="{code}" lang="{code}"' in page
    assert "Basa Sunda" in page and "한국어" in page and "Suomi" in page

    response = client.post(reverse("set_language"), {"language": "fi", "next": "/rules/#R29"})
    assert response.status_code == 302 and response["Location"] == "/rules/#R29"
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "fi"
    # The cookie beats the browser's Accept-Language.
    again = client.get(reverse("rule_book"), headers={"accept-language": "es"})
    assert _lang(again) == "fi"
    with override("fi"):
        title = gettext("The rules")
    assert title != "The rules" and title in again.content.decode()


@pytest.mark.parametrize("code", [code for code, _ in settings.LANGUAGES])
def test_the_switcher_names_each_language_in_its_own_name_whatever_the_page(client, code):
    """FINDINGS: each language is named as its speakers name it, as a menu entry starts
    (Django's own names are lower case: "español", "suomi", "shqip"), on a page in any
    of the six languages."""
    page = client.get(reverse("rule_book"), headers={"accept-language": code}).content.decode()
    select = page[page.index('id="language-select"') : page.index("</select>")]
    names = re.findall(r'<option value="[a-z]+" lang="[a-z]+"[^>]*>([^<]+)</option>', select)
    assert names == ["English", "Español", "Suomi", "Shqip", "한국어", "Basa Sunda"]


def test_the_switcher_refuses_unknown_codes_and_foreign_redirects(client):
    response = client.post(
        reverse("set_language"), {"language": "tlh", "next": "https://evil.example/"}
    )
    assert response["Location"] == "/"
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert client.get(reverse("set_language")).status_code == 405  # POST only


def test_a_signed_in_players_saved_choice_beats_accept_language_on_every_device(
    bob, password, bob_client
):
    response = bob_client.post(reverse("set_language"), {"language": "ko", "next": "/rules/"})
    assert response.status_code == 302
    assert LanguagePreference.objects.get(user=bob).language == "ko"

    # Another phone: no cookie, a Spanish browser; the saved choice wins after login.
    phone = Client()
    assert phone.login(username="bob", password=password)
    page = phone.get(reverse("rule_book"), headers={"accept-language": "es"})
    assert _lang(page) == "ko"
    assert phone.session[SESSION_LANGUAGE] == [str(bob.pk), "ko"]


def test_the_saved_choice_is_put_in_the_session_at_login_and_costs_no_query_later(
    bob, password, django_assert_num_queries
):
    LanguagePreference.objects.create(user=bob, language="sq")
    phone = Client()
    assert phone.login(username="bob", password=password)
    assert phone.session[SESSION_LANGUAGE] == [str(bob.pk), "sq"]
    from games.language import saved_language

    class Request:
        session = phone.session

    assert Request.session.get(SESSION_LANGUAGE)  # loads the session
    with django_assert_num_queries(0):
        assert saved_language(Request()) == "sq"  # type: ignore[arg-type]
    assert _lang(phone.get(reverse("rule_book"))) == "sq"


def test_a_login_session_from_before_the_preference_existed_reads_it_once(bob, bob_client):
    session = bob_client.session
    session.pop(SESSION_LANGUAGE, None)  # a session made before this feature
    session.save()
    LanguagePreference.objects.create(user=bob, language="ko")
    assert _lang(bob_client.get(reverse("rule_book"))) == "ko"
    assert bob_client.session[SESSION_LANGUAGE] == [str(bob.pk), "ko"]


def test_a_saved_code_no_longer_offered_falls_back_to_accept_language(bob, bob_client):
    LanguagePreference.objects.create(user=bob, language="xx")
    page = bob_client.get(reverse("rule_book"), headers={"accept-language": "fi"})
    assert _lang(page) == "fi"


def test_share_link_and_seat_pages_are_in_the_viewers_language_not_the_hosts(
    club, players, bob, bob_client
):
    table = start_table(club, players, bob)
    bob_client.post(reverse("set_language"), {"language": "fi"})
    link = share.create_link(table, bob)
    url = reverse("share_board", args=[link.token])

    spanish_phone = Client(headers={"accept-language": "es"})
    korean_phone = Client(headers={"accept-language": "ko"})
    assert _lang(spanish_phone.get(url)) == "es"
    assert _lang(korean_phone.get(url)) == "ko"
    assert _lang(bob_client.get(url)) == "fi"  # the host sees it in his own

    seat = table.seats.select_related("player").first()
    seat_url = reverse("digital_seat", args=[seat.secret])
    assert _lang(Client(headers={"accept-language": "sq"}).get(seat_url)) == "sq"


def test_dates_and_numbers_follow_the_language_sundanese_included():
    import datetime

    from django.utils import formats
    from django.utils.timesince import timesince

    day = datetime.date(2026, 11, 30)
    with override("su"):
        assert formats.date_format(day, "DATE_FORMAT") == "30 Nop. 2026"
        assert formats.date_format(day, "l") == "Senén"
        assert formats.number_format(1234.5, 1, force_grouping=True) == "1.234,5"
        assert timesince(day - datetime.timedelta(days=3), day) == "3\xa0poé"
    with override("fi"):
        assert formats.number_format(1234.5, 1) == "1234,5"
    with override("ko"):
        assert formats.date_format(day, "DATE_FORMAT") == "2026년 11월 30일"
    with override("en"):
        assert formats.date_format(day, "DATE_FORMAT") == "Nov. 30, 2026"


@pytest.mark.django_db
def test_the_account_forms_speak_sundanese_where_django_has_no_catalogue(client, bob_client):
    """Django ships no Sundanese: its account forms' labels, help texts and password rules
    were English on the sign-up, log-in and password pages of a Sundanese phone."""
    english = client.get(reverse("signup")).content.decode()
    # The sign-up page's own help texts (issue #33), not the validators' list.
    assert "Password confirmation" in english and "not only digits" in english
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "su"
    signup = client.get(reverse("signup")).content.decode()
    login = client.get(reverse("login")).content.decode()
    bob_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "su"
    password = bob_client.get(reverse("password_change")).content.decode()
    assert "Kecap akses deui" in signup and "lain ngan angka" in signup
    assert "Ngaran pamaké" in login and "Kecap akses" in login
    assert "Kecap akses heubeul" in password and "Kecap akses anyar deui" in password
    for page in (signup, login, password):
        text = re.sub(r"<[^>]*>", " ", page)  # what the phone shows, not attribute names
        for english_words in ("Username", "Password", "password", "Required. 150"):
            assert english_words not in text, english_words


# -- the language cookie as the browser's copy of the saved choice (issue #31) ----------------


def _language_of(cookie: str | None, session) -> tuple[str, bool]:
    """What the language middleware answers a request with this cookie and this login
    session, and whether it read the session to do so."""
    from django.test import RequestFactory
    from django.utils import translation

    from games.language import PreferredLanguageMiddleware

    request = RequestFactory().get("/rules/", headers={"accept-language": "fi"})
    if cookie is not None:
        request.COOKIES[settings.LANGUAGE_COOKIE_NAME] = cookie
    request.session = session
    with override("en"):
        PreferredLanguageMiddleware(lambda r: None).process_request(request)
        return translation.get_language(), session.accessed


def _fresh(session):
    """The login session as a new request would find it: not read yet."""
    from importlib import import_module

    store = import_module(settings.SESSION_ENGINE).SessionStore
    return store(session_key=session.session_key)


def test_a_signed_in_page_copies_the_saved_choice_into_the_cookie(bob, password):
    LanguagePreference.objects.create(user=bob, language="ko")
    bob_client = Client()
    assert bob_client.login(username="bob", password=password)
    page = bob_client.get(reverse("rule_book"), headers={"accept-language": "es"})
    assert _lang(page) == "ko"
    assert page.cookies[settings.LANGUAGE_COOKIE_NAME].value == "ko"
    # With the cookie, the next request knows its language without reading the session.
    assert _language_of("ko", _fresh(bob_client.session)) == ("ko", False)
    # Without it (an older browser), the session is read, as before.
    assert _language_of(None, _fresh(bob_client.session)) == ("ko", True)
    # Set once: the following page sends no cookie again.
    again = bob_client.get(reverse("rule_book"))
    assert _lang(again) == "ko" and settings.LANGUAGE_COOKIE_NAME not in again.cookies


def test_no_saved_choice_leaves_the_browser_to_decide_without_a_session_read(bob, bob_client):
    from games.language import NO_CHOICE

    page = bob_client.get(reverse("rule_book"), headers={"accept-language": "sq"})
    assert _lang(page) == "sq"
    assert page.cookies[settings.LANGUAGE_COOKIE_NAME].value == NO_CHOICE
    assert _language_of(NO_CHOICE, _fresh(bob_client.session)) == ("fi", False)
    assert _lang(bob_client.get(reverse("rule_book"), headers={"accept-language": "es"})) == "es"


def test_a_guests_choice_survives_login_unless_the_account_saved_one(bob, carol, password):
    LanguagePreference.objects.create(user=bob, language="ko")
    for user, expected in ((carol, "fi"), (bob, "ko")):
        phone = Client()
        phone.post(reverse("set_language"), {"language": "fi"})
        response = phone.post(reverse("login"), {"username": user.username, "password": password})
        assert response.status_code == 302, response.content
        assert phone.cookies[settings.LANGUAGE_COOKIE_NAME].value == expected
        assert _lang(phone.get(reverse("rule_book"), headers={"accept-language": "es"})) == expected
