"""No response — page, partial, JSON, refusal — ever names a card its viewer cannot see.

Full hands are played through the pages by two phones (two bots fill the table) while a
member watches and the scorekeeper keeps the table page open. After every response the
body is searched for each hidden card, both as a code (``QH``) and as a face (``Q♥``):
hidden means not the viewer's own hand or discards, not played face up, not the up-card
— that is, other seats' hands and discards, passers' folded cards and the stock.
"""

from __future__ import annotations

import random

import pytest
from django.test import Client
from django.urls import reverse

from games.digital import selectors as digital_reads
from games.digital import service as digital
from games.engine import CARD_NAMES
from games.models import Hand
from ledger import postings

from .test_digital_support import (
    Leakcheck,
    choose,
    deal,
    face,
    form_data,
    leaked,
    make_bots,
    make_session,
    seat_url,
    seats_of,
    state_url,
    visible_to,
)


@pytest.fixture
def session(club, players, bob):
    return make_session(club, players, bob)


@pytest.fixture
def seats(session):
    return seats_of(session)


def test_the_leak_check_can_fail(session, seats):
    """The detector itself: another seat's card in a body is caught in both spellings."""
    hand = deal(session)
    state = digital_reads.load_table(hand).state
    ben_card = next(c for c in state.view_for("ben")["hand"] if c != state.public_view()["up_card"])
    hidden = set(CARD_NAMES) - visible_to(state, "ann")
    assert ben_card in hidden
    assert leaked(f'<span data-card="{ben_card}">', hidden, []) == [ben_card]
    assert leaked(f"<b>{face(ben_card)}</b>", hidden, []) == [ben_card]
    assert leaked("<p>PASS PLAY</p>", hidden, []) == []


def _play_hand_checking_every_response(session, seats, phones, watcher, keeper, rng):
    table_url = reverse("digital_table", args=[session.pk])
    watch_url = reverse("digital_watch", args=[session.pk])
    for _ in range(300):
        watcher.get(watch_url)
        watcher.get(watch_url + "?seen=0", headers={"HX-Request": "true"})
        keeper.get(table_url)
        moved = False
        for name, phone in phones.items():
            url = seat_url(seats[name])
            phone.get(url)
            phone.get(url + "?seen=0", headers={"HX-Request": "true"})
            data = phone.get(state_url(seats[name])).json()
            if data["status"] != "in_progress":
                return Hand.objects.get(pk=data["hand"])
            move = choose(data["view"], rng)
            if move is None:
                # Out of turn: refused, and the refusal shows no more than the page does.
                r = phone.post(url, form_data(data["hand"], data["seq"], {"type": "pass"}))
                assert r.status_code in (400, 409)
                continue
            if data["view"]["illegal"]:
                bad = next(iter(data["view"]["illegal"]))
                r = phone.post(
                    url,
                    form_data(data["hand"], data["seq"], {"type": "card", "card": bad}),
                    headers={"HX-Request": "true"},
                )
                assert r.status_code == 400
            r = phone.post(
                url, form_data(data["hand"], data["seq"], move), headers={"HX-Request": "true"}
            )
            assert r.status_code == 200
            moved = True
            phone.post(url, form_data(data["hand"], data["seq"], move))  # a repeat
        assert moved
    raise AssertionError("the hand did not end")


@pytest.mark.slow
def test_no_response_ever_shows_another_seats_hidden_cards(
    session, seats, carol_client, bob_client
):
    make_bots(session, "cal", "dee")
    phones = {
        "ann": Leakcheck(Client(), session, "ann"),
        "ben": Leakcheck(Client(), session, "ben"),
    }
    watcher = Leakcheck(carol_client, session)
    keeper = Leakcheck(bob_client, session)
    rng = random.Random(2024)
    for _ in range(2):
        deal(session)
        hand = _play_hand_checking_every_response(session, seats, phones, watcher, keeper, rng)
        assert hand.status == Hand.Status.RECORDED
        # The finished hand, too: still no passer's cards or stock on a seat page.
        for phone in phones.values():
            phone.get(seat_url(seats[phone.viewer]))
            phone.get(state_url(seats[phone.viewer]))
        watcher.get(reverse("digital_watch", args=[session.pk]))
    assert all(p.responses > 20 for p in phones.values())
    assert watcher.responses > 10


def test_an_all_bot_hand_shows_nothing_hidden_to_its_seats(session, seats, client):
    make_bots(session, "ann", "ben", "cal", "dee")
    deal(session)
    check = Leakcheck(client, session, "ann")
    check.get(seat_url(seats["ann"]) + "?seen=0")
    check.get(state_url(seats["ann"]))


def test_simultaneous_declarations_stay_hidden_until_all_have_declared_R9(club, players, bob):
    """declaration: "simultaneous" (R9): nobody sees who played, passed or how many
    cards they asked for until everybody has declared."""
    session = postings.start_session(
        club=club, name="Simultaneous", players=players, dealer=players[3],
        rules={"declaration": "simultaneous"}, currency=club.currency, user=bob,
    )  # fmt: skip
    seats = seats_of(session)
    table = digital.start_hand(session_id=session.pk)
    assert set(table.state.awaiting) == {"ann", "ben", "cal", "dee"}
    ann, ben = Client(), Client()
    hand_of_ann = table.state.view_for("ann")["hand"]
    r = ann.post(
        seat_url(seats["ann"]),
        {"hand": table.hand.pk, "seq": 0, "type": "play", "discard": hand_of_ann[:2]},
    )
    assert r.status_code == 302
    body = ben.get(seat_url(seats["ben"]) + "?seen=0").content.decode()
    assert "ann has declared" in body
    for word in ("draws 2", "drew 2", "ann passes", "ann plays"):
        assert word not in body
    view = ben.get(state_url(seats["ben"])).json()["view"]
    assert view["declarations"] == {} and view["discard_counts"] == {}
    assert "own_discards" in view and view["own_discards"] == []
