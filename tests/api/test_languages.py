"""The API's problems in the client's language (issue 19): title, detail and each error's
message follow Accept-Language, Content-Language says which; codes, types and fields never
change. Unknown languages get English. The same for a serializer's field errors (DRF's
sentences and the API's own: a Finnish and a Korean client), the verifier's refusal and a
login refusal; and the OpenAPI document stays English when generated in English."""

from __future__ import annotations

import pytest
from django.utils.translation import gettext, override

from games.messages import MESSAGES

from .conftest import FIRST_HAND

pytestmark = pytest.mark.django_db


def _spanish(text: str) -> str:
    with override("es"):
        said = gettext(text)
    assert said != text, f"the Spanish catalogue lacks {text!r}"
    return said


def test_a_404_problem_is_in_the_clients_language(api_carol, club):
    response = api_carol.get("/api/v1/sessions/999999/", headers={"accept-language": "es"})
    assert response.status_code == 404
    assert response["Content-Language"] == "es"
    body = response.json()
    assert body["title"] == _spanish("Not found")
    assert body["detail"] == _spanish("Not found, or not yours.")
    assert body["errors"][0]["code"] == "not_found"


def test_a_rejected_hand_speaks_the_engines_error_in_spanish(api_bob, game):
    bad = {**FIRST_HAND, "tricks": {"ann": 3, "cal": 3, "dee": 0}}  # 6 tricks of 5
    response = api_bob.post(
        f"/api/v1/sessions/{game.pk}/hands/",
        bad,
        content_type="application/json",
        headers={"accept-language": "es-MX,es;q=0.9"},
    )
    assert response.status_code == 400
    assert response["Content-Language"] == "es"
    body = response.json()
    assert body["type"] == "urn:bourre:problem:hand-rejected"
    assert body["title"] == _spanish("Hand rejected")
    error = body["errors"][0]
    assert error["code"] == "tricks_total"  # codes never change with the language
    with override("en"):  # the sentence's msgid
        sentence = str(MESSAGES["tricks_total"])
    assert error["message"] == _spanish(sentence)
    assert body["detail"] == error["message"]
    assert game.hands.count() == 0


def test_english_and_unknown_languages_keep_the_engines_own_sentence(api_bob, game):
    bad = {**FIRST_HAND, "tricks": {"ann": 3, "cal": 3, "dee": 0}}
    answers = [
        api_bob.post(
            f"/api/v1/sessions/{game.pk}/hands/",
            bad,
            content_type="application/json",
            headers={"accept-language": language},
        )
        for language in ("en", "xx-YY", "tlh")
    ]
    for response in answers:
        assert response["Content-Language"] == "en"
        body = response.json()
        assert body["title"] == "Hand rejected"
        assert body["errors"][0]["message"] == "tricks add up to 6; a hand has 5 tricks"


# --- serializer validation messages (issue 19, G-api) ----------------------------------------
#
# A field error's `message` is DRF's sentence (games/api/drf_words.py puts DRF's msgids in
# the project's catalogues) or the API's own; either way it speaks the client's language
# and its `code` and `field` stay the same.


def _in(language: str, msgid: str, **params) -> str:
    """The sentence a reader of `language` should get; it must differ from the English."""
    with override(language):
        said = gettext(msgid)
    assert said != msgid, f"the {language} catalogue lacks {msgid!r}"
    return said.format(**params) if params else said


def _errors(response) -> dict[str, dict]:
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["type"] == "urn:bourre:problem:validation"
    return {e.get("field", ""): e for e in body["errors"]}


def test_a_finnish_client_reads_the_serializers_field_errors_in_finnish(api_bob, club, players):
    response = api_bob.post(
        f"/api/v1/clubs/{club.pk}/sessions/",
        {"rules": {}},
        content_type="application/json",
        headers={"accept-language": "fi"},
    )
    assert response["Content-Language"] == "fi"
    assert response.json()["title"] == _in("fi", "Invalid input")
    errors = _errors(response)
    assert set(errors) == {"name", "players", "dealer"}
    for error in errors.values():
        assert error["code"] == "required"
        assert error["message"] == _in("fi", "This field is required.")

    # DRF's own Finnish catalogue has no sentence for this one: the project's does.
    player = players[0]
    response = api_bob.patch(
        f"/api/v1/players/{player.pk}/",
        {"archived": "maybe"},
        content_type="application/json",
        headers={"accept-language": "fi-FI,fi;q=0.9"},
    )
    error = _errors(response)["archived"]
    assert error["code"] == "invalid"
    assert error["message"] == _in("fi", "Must be a valid boolean.")

    # The API's own messages too: an unknown field, a currency with its parameters.
    response = api_bob.post(
        "/api/v1/clubs/",
        {"name": "Uusi kerho", "currency": "BTC", "colour": "red"},
        content_type="application/json",
        headers={"accept-language": "fi"},
    )
    assert _errors(response)["colour"]["message"] == _in("fi", "Unknown field.")
    response = api_bob.post(
        "/api/v1/clubs/",
        {"name": "Uusi kerho", "currency": "BTC"},
        content_type="application/json",
        headers={"accept-language": "fi"},
    )
    error = _errors(response)["currency"]
    assert error["code"] == "unknown"
    assert error["message"].startswith(
        _in("fi", "Unknown currency {value}: use one of {codes}.").split("{")[0]
    )
    assert "'BTC'" in error["message"] and "USD" in error["message"]


def test_a_korean_client_reads_the_serializers_field_errors_in_korean(api_bob, club, players):
    response = api_bob.post(
        f"/api/v1/clubs/{club.pk}/sessions/",
        {"name": "금요일", "players": [players[0].pk], "dealer": "ann", "mode": "online"},
        content_type="application/json",
        headers={"accept-language": "ko-KR,ko;q=0.9,en;q=0.5"},
    )
    assert response["Content-Language"] == "ko"
    errors = _errors(response)
    assert errors["players"]["code"] == "min_length"
    assert errors["players"]["message"] == _in(
        "ko", "Ensure this field has at least {min_length} elements.", min_length=2
    )
    assert errors["dealer"]["message"] == _in("ko", "A valid integer is required.")
    assert errors["mode"]["message"] == _in(
        "ko", '"{input}" is not a valid choice.', input="online"
    )
    assert response.json()["detail"] == _in("ko", "The request has invalid fields; see errors.")


def test_a_korean_scorekeeper_reads_a_hand_bodys_errors_in_korean(api_bob, game):
    response = api_bob.post(
        f"/api/v1/sessions/{game.pk}/hands/",
        {**FIRST_HAND, "tricks": {"ann": "3", "cal": 2, "dee": 0}},
        content_type="application/json",
        headers={"accept-language": "ko"},
    )
    error = _errors(response)["tricks.ann"]
    assert error["code"] == "bad_tricks"  # the engine's code, whatever the language
    assert error["message"] == _in("ko", "Must be a whole number (a JSON number, not a string).")
    assert game.hands.count() == 0


def test_an_english_client_keeps_drfs_own_sentences(api_bob, club):
    response = api_bob.post(
        f"/api/v1/clubs/{club.pk}/sessions/",
        {"rules": {}},
        content_type="application/json",
        headers={"accept-language": "en"},
    )
    assert _errors(response)["name"]["message"] == "This field is required."


def _api_serializer_fields():
    """Every field (nested ones too) of every serializer the API modules define."""
    import importlib
    import pkgutil

    from rest_framework import serializers

    import games.api

    def walk(field, where):
        yield where, field
        child = getattr(field, "child", None)
        if child is not None:
            yield from walk(child, f"{where}[]")
        if isinstance(field, serializers.Serializer):
            for name, sub in field.fields.items():
                yield from walk(sub, f"{where}.{name}")

    for info in pkgutil.iter_modules(games.api.__path__):
        module = importlib.import_module(f"games.api.{info.name}")
        for name, value in vars(module).items():
            if (
                isinstance(value, type)
                and issubclass(value, serializers.Serializer)
                and value.__module__ == module.__name__
            ):
                yield from walk(value(), name)


@pytest.mark.parametrize("language", ["es", "fi", "sq", "ko", "su"])
def test_every_error_message_of_every_api_field_is_translated(language):
    """A DRF upgrade that rewords a message (drf_words.py no longer names it), or a new
    field kind whose messages nobody translated, shows here."""
    untranslated = set()
    seen = 0
    for where, field in _api_serializer_fields():
        for key, message in field.error_messages.items():
            with override("en"):
                english = str(message)
            with override(language):
                said = str(message)
            seen += 1
            if said == english:
                untranslated.add(f"{where} {key}: {english}")
    assert seen > 500
    assert not untranslated, sorted(untranslated)[:5]


def test_the_schema_stays_english_when_generated_in_english(db):
    from drf_spectacular.generators import SchemaGenerator

    def problem_error_field():
        schema = SchemaGenerator().get_schema(request=None, public=True)
        return schema["components"]["schemas"]["ProblemError"]["properties"]["field"]

    with override("en"):
        assert problem_error_field()["description"] == "Dotted path of the input field."
    # Lazy texts: the document follows the language it is generated in (the docs page
    # for a Finnish reader), and English again afterwards (nothing is cached in Finnish).
    with override("fi"):
        assert problem_error_field()["description"] == _in("fi", "Dotted path of the input field.")
    with override("en"):
        assert problem_error_field()["description"] == "Dotted path of the input field."


def test_the_verifiers_refusal_speaks_the_engines_errors_in_finnish(db):
    from django.test import Client

    record = {
        "players": ["ann", "ben", "cal", "dee"],
        "dealer": "dee",
        "carry": 0,
        "up_card": "QH",
        "passed": ["ben"],
        "tricks": {"ann": 3, "cal": 3, "dee": 0},  # 6 tricks of 5
    }
    response = Client().post(
        "/api/v1/hands/verify/",
        record,
        content_type="application/json",
        headers={"accept-language": "fi"},
    )
    assert response.status_code == 400
    body = response.json()
    assert body["title"] == _in("fi", "Invalid hand record")
    error = body["errors"][0]
    assert error["code"] == "tricks_total"
    with override("en"):
        sentence = str(MESSAGES["tricks_total"])
    assert error["message"] == _in("fi", sentence)


def test_a_wrong_password_is_refused_in_korean(api_anon, bob):
    response = api_anon.post(
        "/api/v1/auth/tokens/",
        {"username": "bob", "password": "wrong", "name": "laptop"},
        content_type="application/json",
        headers={"accept-language": "ko"},
    )
    assert response.status_code == 401
    body = response.json()
    assert body["detail"] == _in("ko", "Wrong username or password.")
    assert body["errors"][0] == {
        "code": "invalid_credentials",
        "message": _in("ko", "Wrong username or password."),
    }


def test_a_role_refusal_is_in_korean(api_carol, club):
    from games.models import Role

    response = api_carol.post(
        f"/api/v1/clubs/{club.pk}/players/",
        {"name": "eve"},
        content_type="application/json",
        headers={"accept-language": "ko"},
    )
    assert response.status_code == 403
    with override("ko"):
        role = str(Role.SCOREKEEPER.label).lower()
    expected = _in("ko", "This needs the %(role)s role in %(club)s.") % {
        "role": role,
        "club": club.name,
    }
    assert response.json()["detail"] == expected
    assert response.json()["errors"][0]["message"] == expected
