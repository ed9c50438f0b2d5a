"""The API's problems in the client's language (issue 19): title, detail and each error's
message follow Accept-Language, Content-Language says which; codes, types and fields never
change. Unknown languages get English."""

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
