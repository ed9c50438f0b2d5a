"""Digital seats, round 2 (issue 12): a seat link is held by the first phone that opens
it, the host releases or reissues it, any seated player deals the next hand from their
seat, the seat page shows the scoreboard and the player's net, the reveal never holds
back the player's own action form, and the host who plays can hide the seat links.

Phones are anonymous ``Client``s (a seat link needs no account); each keeps its own
cookies, so two clients are two phones.
"""

from __future__ import annotations

import random

import pytest
from django.test import Client
from django.urls import reverse

from games.digital import selectors as digital_reads
from games.models import Hand, Seat
from ledger import postings

from .test_digital_support import (
    Leakcheck,
    deal,
    make_bots,
    make_session,
    play_out,
    seat_url,
    seats_of,
    state_url,
)

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def session(club, players, bob):
    return make_session(club, players, bob)


@pytest.fixture
def seats(session):
    return seats_of(session)


def _link_action(client, session, seat, action):
    url = reverse("digital_seat_link", args=[session.pk, seat.pk])
    return client.post(url, {"action": action})


# -- one phone per seat ----------------------------------------------------------------------


def test_the_first_phone_holds_the_seat_and_a_second_is_told_so(seats):
    first, second = Client(), Client()
    assert first.get(seat_url(seats["ann"])).status_code == 200
    refused = second.get(seat_url(seats["ann"]))
    assert refused.status_code == 403
    assert "open on another phone" in refused.content.decode()
    # Every way into the seat is refused to the second phone: moves, JSON, dealing.
    assert second.get(state_url(seats["ann"])).status_code == 403
    assert second.post(seat_url(seats["ann"]), {"type": "pass"}).status_code == 403
    deal_url = reverse("digital_seat_deal", args=[seats["ann"].secret])
    assert second.post(deal_url).status_code == 403
    assert not Hand.objects.exists()
    # The first phone still plays; its cookie is the claim.
    assert first.get(seat_url(seats["ann"])).status_code == 200
    assert Seat.objects.get(pk=seats["ann"].pk).claimed_by


def test_the_device_cookie_is_http_only_and_follows_the_cookie_security_setting(seats, settings):
    settings.SESSION_COOKIE_SECURE = False
    cookie = Client().get(seat_url(seats["ann"])).cookies["bourre_device"]
    assert cookie["httponly"] and not cookie["secure"] and cookie["samesite"] == "Lax"
    settings.SESSION_COOKIE_SECURE = True
    cookie = Client().get(seat_url(seats["ben"])).cookies["bourre_device"]
    assert cookie["secure"]


def test_the_host_releases_a_seat_for_a_new_phone(bob_client, session, seats):
    first, second = Client(), Client()
    first.get(seat_url(seats["ann"]))
    table = bob_client.get(reverse("digital_table", args=[session.pk])).content.decode()
    assert "opened on a phone" in table and "Release from its phone" in table
    assert _link_action(bob_client, session, seats["ann"], "release").status_code == 302
    assert second.get(seat_url(seats["ann"])).status_code == 200
    assert first.get(seat_url(seats["ann"])).status_code == 403  # the new phone holds it


def test_a_reissued_link_answers_404_and_the_new_one_opens(bob_client, session, seats):
    phone = Client()
    old = seat_url(seats["ann"])
    assert phone.get(old).status_code == 200
    assert _link_action(bob_client, session, seats["ann"], "reissue").status_code == 302
    fresh = Seat.objects.get(pk=seats["ann"].pk)
    assert fresh.secret != seats["ann"].secret and not fresh.claimed_by
    assert phone.get(old).status_code == 404
    assert Client().get(seat_url(fresh)).status_code == 200
    table = bob_client.get(reverse("digital_table", args=[session.pk])).content.decode()
    assert fresh.secret in table and seats["ann"].secret not in table


def test_only_scorekeepers_manage_links(carol_client, mallory_client, session, seats):
    for client, status in ((carol_client, 403), (mallory_client, 404)):
        assert _link_action(client, session, seats["ann"], "reissue").status_code == status
    assert Seat.objects.get(pk=seats["ann"].pk).secret == seats["ann"].secret


def test_a_seat_of_another_table_cannot_be_reissued(bob_client, session, club, players, bob):
    other = seats_of(make_session(club, players, bob))
    _link_action(bob_client, session, other["ann"], "reissue")
    assert Seat.objects.get(pk=other["ann"].pk).secret == other["ann"].secret


def test_the_host_who_plays_hides_the_other_seats_links(bob_client, bob, session, seats):
    seats["dee"].player.user = bob
    seats["dee"].player.save()
    url = reverse("digital_table", args=[session.pk])
    assert seats["ann"].secret in bob_client.get(url).content.decode()
    visibility = reverse("digital_links_visibility", args=[session.pk])
    assert bob_client.post(visibility, {"hide": "1"}).status_code == 302
    page = bob_client.get(url).content.decode()
    for name in ("ann", "ben", "cal"):
        assert seats[name].secret not in page
    assert "<svg" not in page
    assert "Open my seat" in page and seats["dee"].secret in page
    bob_client.post(visibility, {"hide": "0"})
    assert seats["ann"].secret in bob_client.get(url).content.decode()


# -- dealing and following the session from a seat -------------------------------------------


def test_a_seated_player_deals_the_next_hand_from_their_seat(session, seats):
    make_bots(session, "ben", "cal", "dee")
    phone = Client()
    page = phone.get(seat_url(seats["ann"])).content.decode()
    assert "Deal the next hand" in page
    deal_url = reverse("digital_seat_deal", args=[seats["ann"].secret])
    response = phone.post(deal_url, **HTMX)
    assert response.status_code == 200
    hand = digital_reads.hand_in_progress(session.pk)
    assert hand is not None
    assert "Deal the next hand" not in response.content.decode()
    again = phone.post(deal_url, **HTMX)
    assert again.status_code == 409 and "already being played" in again.content.decode()
    finished = play_out({"ann": phone}, {"ann": seats["ann"]}, random.Random(12))
    assert finished.status == Hand.Status.RECORDED
    session.refresh_from_db()
    postings.check_invariants(session)
    # The hand is over: the next deal is one tap away again, without a form post.
    assert "Deal the next hand" in phone.get(seat_url(seats["ann"])).content.decode()
    assert phone.post(deal_url).status_code == 302  # plain form: post/redirect/get
    # a second hand was dealt: still in play, or over at once when the three bots before
    # the dealer ann all passed (R14)
    second = Hand.objects.filter(session=session).exclude(pk=finished.pk).get()
    assert second.status in (Hand.Status.IN_PROGRESS, Hand.Status.RECORDED)


def test_a_seat_sitting_out_cannot_deal(session, seats):
    Seat.objects.filter(pk=seats["ann"].pk).update(active=False)
    response = Client().post(reverse("digital_seat_deal", args=[seats["ann"].secret]), **HTMX)
    assert response.status_code == 403 and "sitting out" in response.content.decode()
    assert not Hand.objects.exists()


def test_seat_page_shows_the_scoreboard_and_the_players_net(session, seats):
    make_bots(session, "ann", "ben", "cal", "dee")
    deal(session)  # bots play it out and the ledger settles it
    session.refresh_from_db()
    nets = session.net_by_player()
    assert any(nets.values())
    Seat.objects.filter(session=session).update(is_bot=False)
    for name, seat in seats.items():
        phone = Leakcheck(Client(), session, name)
        body = phone.get(seat_url(seat)).content.decode()
        assert "Scoreboard" in body and "Your net" in body
        from games.money import format_money

        assert format_money(nets[seat.player_id], session.currency, signed=True) in body


# -- the reveal, the turn cue, the Play button -------------------------------------------------


def _to_declare(session, seats) -> tuple[Client, Hand]:
    """ann's phone with ann to declare first (bots ahead of her have acted)."""
    make_bots(session, "ben", "cal", "dee")
    hand = deal(session)
    phone = Client()
    return phone, hand


def test_your_own_action_form_is_never_held_back_by_the_reveal(session, seats):
    phone, hand = _to_declare(session, seats)
    # A phone that had seen nothing of the hand: every move so far is new and revealed
    # one by one, but ann's own choices show at once.
    body = phone.get(seat_url(seats["ann"]), {"seen": 0, "hand": hand.pk}).content.decode()
    assert 'data-your-turn="1"' in body
    assert 'class="dg-after" data-digital' not in body
    assert f'<form method="post" action="{seat_url(seats["ann"])}" data-digital>' in body
    assert 'class="dg-turn dg-yours"' in body


def test_the_title_says_your_turn_and_play_says_what_it_will_do(session, seats):
    phone, _ = _to_declare(session, seats)
    body = phone.get(seat_url(seats["ann"])).content.decode()
    assert "<title>Your turn · ann's seat" in body
    assert ">Play, draw 0</button>" in body


def test_digital_hand_in_progress_page_goes_to_the_live_table(carol_client, session, seats):
    hand = deal(session)
    response = carol_client.get(reverse("hand_detail", args=[hand.pk]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("digital_watch", args=[session.pk])
    body = response.content.decode()
    assert "Hand None" not in body and "still being played" in body
