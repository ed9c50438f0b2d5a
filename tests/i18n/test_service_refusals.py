"""The services' refusals in the reader's language (issue 19, G-refusals).

A tournament director's request and a digital move that the services refuse reach a
Finnish or Korean reader in their language, with the facts (player names) filled in: on
the page (the flash message, the seat's board) and in what a program reads (problem+json;
the seat page's answer to its script). English stays the service's own sentence.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils.text import capfirst
from django.utils.translation import gettext, override

from games.digital import service as digital
from games.messages import MESSAGES, render
from games.models import ApiToken, Entry, HandAction
from games.tournaments import service as svc
from tests.games.test_digital_support import current_state, deal, make_session, seat_url, seats_of
from tests.games.test_tournament_service import make_tournament

pytestmark = pytest.mark.django_db

NOT_REGISTERED = "%(player)s is not registered."
DECLARE_OUT_OF_TURN = "It is %(expected)s's turn to declare, not %(player)s's."


def _said(language: str, msgid: str, params: dict) -> str:
    """The catalogue's sentence in ``language``, filled in; never the English one."""
    with override(language):
        sentence = gettext(msgid) % params
    assert sentence != msgid % params, f"the {language} catalogue lacks {msgid!r}"
    for value in params.values():
        assert str(value) in sentence
    return sentence


def _speaking(client: Client, language: str) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client


@pytest.fixture
def cup(club, alice):
    """A tournament still taking entries, with three players entered."""
    return make_tournament(club, alice, n=3, check_in=False)


@pytest.fixture
def withdrawn(cup, alice):
    """An entry that withdrew: checking it in is refused (it is no longer registered)."""
    entry = cup.entries.select_related("player").first()
    svc.withdraw(tournament_id=cup.pk, entry_id=entry.pk, user=alice)
    return entry


def test_the_tournament_sentences_are_the_services_own_ids():
    # The two sentences these tests read are the catalogue's entries for those refusals.
    assert str(MESSAGES["not_registered"]) == NOT_REGISTERED
    assert str(MESSAGES["declare_out_of_turn"]) == DECLARE_OUT_OF_TURN


@pytest.mark.parametrize("language", ["fi", "ko"])
def test_a_refused_check_in_is_shown_on_the_page_in_the_readers_language(
    cup, withdrawn, alice_client, language
):
    name = withdrawn.player.name
    response = _speaking(alice_client, language).post(
        reverse("tournament_entry_action", args=[cup.pk, withdrawn.pk, "checkin"]), follow=True
    )
    assert response.status_code == 200
    page = response.content.decode()
    # Flash messages start with a capital (games.templatetags.bourre.why).
    assert capfirst(_said(language, NOT_REGISTERED, {"player": name})) in page
    assert "is not registered" not in page
    withdrawn.refresh_from_db()
    assert withdrawn.status == Entry.Status.WITHDRAWN


@pytest.mark.parametrize("language", ["fi", "ko"])
def test_a_refused_check_in_is_answered_in_the_api_in_the_clients_language(
    cup, withdrawn, alice, language
):
    _, key = ApiToken.issue(alice, "tests")
    response = Client(headers={"Authorization": f"Bearer {key}"}).post(
        reverse("api_tournament_entry_action", args=[cup.pk, withdrawn.pk, "check-in"]),
        headers={"accept-language": language},
    )
    assert response.status_code == 400
    assert response["Content-Language"] == language
    error = response.json()["errors"][0]
    assert error["code"] == "not_registered"  # codes never change with the language
    assert error["message"] == _said(language, NOT_REGISTERED, {"player": withdrawn.player.name})


def test_english_keeps_the_services_sentence(cup, withdrawn, alice_client):
    response = alice_client.post(
        reverse("tournament_entry_action", args=[cup.pk, withdrawn.pk, "checkin"]), follow=True
    )
    said = capfirst(f"{withdrawn.player.name} is not registered.")
    assert said in response.content.decode()


# -- a digital move -------------------------------------------------------------------------


@pytest.fixture
def table(club, players, bob):
    session = make_session(club, players, bob)
    hand = deal(session)
    state = current_state(hand)
    who = state.awaiting[0]
    other = next(p for p in ("ann", "ben", "cal", "dee") if p != who)
    return hand, seats_of(session), who, other


def _declare_out_of_turn(client: Client, table, **kw):
    hand, seats, _, other = table
    seq = HandAction.objects.filter(hand=hand).count()
    data = {"hand": hand.pk, "seq": seq, "type": "pass"}
    return client.post(seat_url(seats[other]), data, **kw)


def test_a_refused_move_keeps_the_engines_sentence_and_facts(table):
    hand, seats, who, other = table
    with pytest.raises(digital.DigitalError) as caught:
        digital.apply_action(seat=seats[other], hand_id=hand.pk, seen=0, action={"type": "pass"})
    refused = caught.value
    assert refused.code == "out_of_turn" and refused.rule == "R16"
    assert refused.message_id == "declare_out_of_turn"
    assert refused.params["player"] == other and refused.params["expected"] == who
    with override("ko"):
        assert render(refused) == gettext(DECLARE_OUT_OF_TURN) % refused.params


@pytest.mark.parametrize("language", ["fi", "ko"])
@pytest.mark.parametrize("htmx", [False, True], ids=["page", "script"])
def test_a_move_out_of_turn_is_refused_on_the_seat_in_the_phones_language(
    table, client, language, htmx
):
    hand, _, who, other = table
    before = HandAction.objects.filter(hand=hand).count()
    headers = {"HX-Request": "true"} if htmx else {}
    response = _declare_out_of_turn(_speaking(client, language), table, headers=headers)
    assert response.status_code == 409
    assert response["Content-Language"] == language
    page = response.content.decode()
    said = _said(language, DECLARE_OUT_OF_TURN, {"player": other, "expected": who})
    assert capfirst(said) in page  # a refusal starts with a capital (bourre.why)
    assert "declaring out of turn forfeits your deal" not in page
    assert HandAction.objects.filter(hand=hand).count() == before


@pytest.mark.parametrize("language", ["fi", "ko"])
def test_a_stale_move_is_refused_in_the_phones_language(table, client, language):
    hand, seats, who, _ = table
    data = {"hand": hand.pk, "seq": 5, "type": "pass"}  # the phone claims moves it never saw
    response = _speaking(client, language).post(
        seat_url(seats[who]), data, headers={"HX-Request": "true"}
    )
    assert response.status_code == 409
    with override(language):
        said = gettext("The table moved on; here is where it stands now.")
    assert said != "The table moved on; here is where it stands now."
    assert said in response.content.decode()


def test_a_table_that_cannot_deal_says_why_in_the_readers_language():
    refused = digital.DigitalError(
        "This table cannot deal a hand: a hand needs 2 to 8 players",
        "bad_setup",
        params={"reason_id": "bad_players"},
    )
    with override("fi"):
        said = render(refused)
        head = gettext("This table cannot deal a hand.")
        why = gettext("A hand needs 2 to 8 players.")
    assert said == f"{head} {why}"
    assert head != "This table cannot deal a hand." and why != "A hand needs 2 to 8 players."
    assert render(refused) == str(refused)  # English: the service's own sentence
