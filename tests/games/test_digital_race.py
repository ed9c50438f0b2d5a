"""Two phones act at the same moment at a digital table: the one that loses the race is
answered 409 with a sentence it can read, on the board as it is now (the fresh panel,
with the controls to act again), inside the group that stays in view on a phone."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from games.models import HandAction
from ledger import postings

from .test_digital_support import current_state, deal, form_data, make_bots, seat_url, seats_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def session(club, players, bob):
    ann, ben, cal, dee = players
    return postings.start_session(
        club=club, name="Race night", players=players, dealer=dee,
        rules={"declaration": "simultaneous"}, currency=club.currency, user=bob, mode="digital",
    )  # fmt: skip


def _board(html: str) -> str:
    return html[html.index('<div id="board"') :]


def _play_group(html: str) -> str:
    start = html.index('<div class="dg-play')
    return html[start : html.index('<section class="dg-felt"', start)]


def test_the_losing_declaration_gets_the_fresh_board_and_a_readable_409(session, client):
    make_bots(session, "cal", "dee")
    seats = seats_of(session)
    hand = deal(session)
    state = current_state(hand)
    assert {"ann", "ben"} <= set(state.awaiting)  # both phones may declare now
    seen = HandAction.objects.filter(hand=hand).count()
    won = client.post(
        seat_url(seats["ann"]), form_data(hand.pk, seen, {"type": "play", "discard": []})
    )
    assert won.status_code == 302
    now = HandAction.objects.filter(hand=hand).count()
    assert now > seen

    # ben's phone tapped Play on the same board: its request arrives second.
    lost = client.post(
        seat_url(seats["ben"]),
        form_data(hand.pk, seen, {"type": "play", "discard": []}),
        headers={"HX-Request": "true"},
    )
    assert lost.status_code == 409
    board = _board(lost.content.decode())
    # The fresh panel: the table as it is now, and ben's controls to declare again on it.
    assert f'data-seq="{now}"' in board
    assert re.search(rf'name="seq" value="{now}"', board)
    assert 'value="play" data-play-label' in board
    # The sentence, first in the group that sticks to the bottom on ben's turn.
    group = _play_group(board)
    assert "dg-play-now" in group  # ben still holds his cards
    assert 'class="errorlist nonfield dg-error" role="alert" data-code="stale"' in group
    assert "The table moved on; here is where it stands now." in group
    assert HandAction.objects.filter(hand=hand).count() == now  # nothing written for ben


def test_the_409_sentence_is_in_the_phones_language(session, client, settings):
    make_bots(session, "cal", "dee")
    seats = seats_of(session)
    hand = deal(session)
    seen = HandAction.objects.filter(hand=hand).count()
    client.post(seat_url(seats["ann"]), form_data(hand.pk, seen, {"type": "pass"}))
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    lost = client.post(
        seat_url(seats["ben"]),
        form_data(hand.pk, seen, {"type": "pass"}),
        headers={"HX-Request": "true"},
    )
    assert lost.status_code == 409
    with translation.override("es"):
        expected = translation.gettext("The table moved on; here is where it stands now.")
    assert expected != "The table moved on; here is where it stands now."
    assert expected in _play_group(_board(lost.content.decode()))
