"""The pages around digital hands: access, live updates (ETag/304), the scorekeeper's
table, watching and the replay."""

from __future__ import annotations

import random

import pytest
from django.test import Client
from django.urls import reverse

from games.digital import selectors as digital_reads
from games.engine import HandState, HeuristicBot
from games.models import Hand, HandAction, Seat
from ledger import postings

from .test_digital_support import (
    deal,
    make_bots,
    make_session,
    play_out,
    seat_url,
    seats_of,
    state_url,
)


@pytest.fixture
def session(club, players, bob):
    return make_session(club, players, bob)


@pytest.fixture
def seats(session):
    return seats_of(session)


def _finished_hand(session) -> Hand:
    make_bots(session, "ann", "ben", "cal", "dee")
    hand = deal(session)
    hand.refresh_from_db()
    assert hand.status == Hand.Status.RECORDED
    return hand


# -- access ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["digital_table", "digital_watch"])
def test_stranger_gets_404(mallory_client, session, name):
    assert mallory_client.get(reverse(name, args=[session.pk])).status_code == 404


def test_table_page_is_for_scorekeepers(carol_client, bob_client, alice_client, session):
    url = reverse("digital_table", args=[session.pk])
    assert carol_client.get(url).status_code == 403  # seat links are keys: not for members
    assert bob_client.get(url).status_code == 200
    assert alice_client.get(url).status_code == 200


def test_anonymous_is_sent_to_log_in(client, session):
    response = client.get(reverse("digital_watch", args=[session.pk]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


@pytest.mark.parametrize("name", ["digital_deal", "digital_cancel"])
def test_members_cannot_deal_or_cancel(carol_client, mallory_client, session, name):
    url = reverse(name, args=[session.pk])
    assert carol_client.post(url).status_code == 403
    assert mallory_client.post(url).status_code == 404
    assert not Hand.objects.filter(session=session).exists()


def test_member_cannot_hand_a_seat_to_the_bot(carol_client, session, seats):
    url = reverse("digital_seat_bot", args=[session.pk, seats["ann"].pk])
    assert carol_client.post(url, {"is_bot": "1"}).status_code == 403
    assert not Seat.objects.get(pk=seats["ann"].pk).is_bot


def test_seat_of_another_session_cannot_be_toggled(bob_client, session, club, players):
    other = postings.start_session(
        club=club,
        name="B",
        players=players,
        dealer=players[0],
        rules={},
        currency=club.currency,
        user=None,
    )
    seat = other.seats.first()
    bob_client.post(reverse("digital_seat_bot", args=[session.pk, seat.pk]), {"is_bot": "1"})
    assert not Seat.objects.get(pk=seat.pk).is_bot


def test_replay_is_for_club_members_only(mallory_client, carol_client, session):
    hand = _finished_hand(session)
    url = reverse("hand_replay", args=[hand.pk])
    assert mallory_client.get(url).status_code == 404
    assert carol_client.get(url).status_code == 200


# -- the scorekeeper's table --------------------------------------------------------------------


def test_table_page_shows_each_seat_link_and_qr_code(bob_client, session, seats):
    make_bots(session, "dee")
    body = bob_client.get(reverse("digital_table", args=[session.pk])).content.decode()
    for name in ("ann", "ben", "cal"):
        assert f"http://testserver/seat/{seats[name].secret}/" in body
    assert body.count("<svg") == 3  # no QR code for the bot's seat
    assert seats["dee"].secret not in body or "Played by a bot" in body
    assert "Deal a digital hand" in body


def test_deal_and_cancel_from_the_table_page(bob_client, session):
    response = bob_client.post(reverse("digital_deal", args=[session.pk]))
    assert response.status_code == 302
    hand = Hand.objects.get(session=session)
    assert hand.status == Hand.Status.IN_PROGRESS
    body = bob_client.get(reverse("digital_table", args=[session.pk])).content.decode()
    assert "Cancel this hand" in body and "Deal a digital hand" not in body
    bob_client.post(reverse("digital_cancel", args=[session.pk]))
    hand.refresh_from_db()
    assert hand.status == Hand.Status.VOIDED


def test_toggling_a_seat_to_bot_and_back(bob_client, session, seats):
    url = reverse("digital_seat_bot", args=[session.pk, seats["cal"].pk])
    bob_client.post(url, {"is_bot": "1"})
    assert Seat.objects.get(pk=seats["cal"].pk).is_bot
    bob_client.post(url, {"is_bot": "0"})
    assert not Seat.objects.get(pk=seats["cal"].pk).is_bot


# -- the seat page --------------------------------------------------------------------------


def test_seat_page_before_any_hand(client, seats):
    response = client.get(seat_url(seats["ann"]))
    assert response.status_code == 200
    assert "No digital hand yet" in response.content.decode()
    assert response["Cache-Control"] == "private, no-store"


def test_seat_page_shows_own_cards_and_the_choices_in_turn(client, session, seats):
    hand = deal(session)
    state = digital_reads.load_table(hand).state
    first = state.awaiting[0]
    body = client.get(seat_url(seats[first])).content.decode()
    for code in state.view_for(first)["hand"]:
        assert f'name="discard" value="{code}"' in body
    assert 'value="pass"' in body and 'value="play"' in body
    waiting = next(p for p in ("ann", "ben", "cal", "dee") if p != first)
    body = client.get(seat_url(seats[waiting])).content.decode()
    assert 'name="discard"' not in body
    assert f"Waiting for {first}" in body
    for code in state.view_for(waiting)["hand"]:
        assert f'data-card="{code}"' in body


def test_htmx_poll_gets_the_board_partial(client, session, seats):
    deal(session)
    response = client.get(seat_url(seats["ann"]), headers={"HX-Request": "true"})
    body = response.content.decode()
    assert body.lstrip().startswith('<span class="pc') or body.lstrip().startswith(
        '<div id="board"'
    )
    assert "<html" not in body


def test_poll_is_304_until_something_changes(client, session, seats, django_assert_num_queries):
    hand = deal(session)
    url = seat_url(seats["ann"])
    first = client.get(url, headers={"HX-Request": "true"})
    etag = first["ETag"]
    # Cheap: the seat (with its session) and the hand with its move count.
    with django_assert_num_queries(2):
        again = client.get(url, headers={"HX-Request": "true", "If-None-Match": etag})
    assert again.status_code == 304
    state = digital_reads.load_table(hand).state
    who = state.awaiting[0]
    client.post(
        seat_url(seats[who]),
        {"hand": hand.pk, "seq": len(state.actions), "type": "play"},
    )
    changed = client.get(url, headers={"HX-Request": "true", "If-None-Match": etag})
    assert changed.status_code == 200
    assert changed["ETag"] != etag


def test_poll_stays_flat_as_the_session_grows(client, session, seats, django_assert_num_queries):
    make_bots(session, "ann", "ben", "cal", "dee")
    for _ in range(3):
        deal(session)
    url = seat_url(seats["ann"])
    etag = client.get(url)["ETag"]
    with django_assert_num_queries(2):
        assert client.get(url, headers={"If-None-Match": etag}).status_code == 304


def test_new_moves_are_revealed_one_by_one(client, session, seats):
    make_bots(session, "ann", "ben", "cal")  # they declare before dee, the dealer
    hand = deal(session)
    body = client.get(seat_url(seats["dee"]) + "?seen=0").content.decode()
    n = HandAction.objects.filter(hand=hand).count()
    assert n >= 1
    for i in range(n):
        assert f"dg-new dg-i-{i}" in body
    assert f"dg dg-n-{n}" in body
    # A fresh page load animates nothing.
    assert "dg-i-" not in client.get(seat_url(seats["dee"])).content.decode()


def test_plain_form_post_redirects_back_to_the_seat(client, session, seats):
    hand = deal(session)
    state = digital_reads.load_table(hand).state
    who = state.awaiting[0]
    response = client.post(
        seat_url(seats[who]), {"hand": hand.pk, "seq": len(state.actions), "type": "play"}
    )
    assert response.status_code == 302
    assert response["Location"].startswith(seat_url(seats[who]) + "?seen=")


def test_state_json_is_the_seats_own_view(client, session, seats):
    hand = deal(session)
    data = client.get(state_url(seats["ben"])).json()
    assert data["hand"] == hand.pk and data["seat"] == "ben"
    assert data["view"]["seat"] == "ben"
    assert data["view"]["hand"] == digital_reads.load_table(hand).state.view_for("ben")["hand"]


def test_seat_sitting_out_sees_the_public_board(client, session, seats):
    Seat.objects.filter(pk=seats["dee"].pk).update(active=False)
    session.next_dealer = seats["cal"].player
    session.save(update_fields=["next_dealer"])
    deal(session)
    body = client.get(seat_url(seats["dee"])).content.decode()
    assert "You are not dealt into this hand" in body
    data = client.get(state_url(seats["dee"])).json()
    assert "hand" not in data["view"]


# -- watching and replay ----------------------------------------------------------------------


def test_member_watches_the_public_board(carol_client, session, seats):
    hand = deal(session)
    response = carol_client.get(reverse("digital_watch", args=[session.pk]))
    assert response.status_code == 200
    body = response.content.decode()
    assert 'id="board"' in body
    assert 'name="discard"' not in body
    state = digital_reads.load_table(hand).state
    for code in state.view_for("ann")["hand"]:
        if code != state.public_view()["up_card"]:
            assert f'data-card="{code}"' not in body


def test_watcher_with_a_seat_gets_a_link_to_it(client, session, seats, carol):
    player = seats["ann"].player
    player.user = carol
    player.save()
    client.force_login(carol)
    body = client.get(reverse("digital_watch", args=[session.pk])).content.decode()
    assert seat_url(seats["ann"]) in body


def test_replay_shows_every_card_trick_by_trick(carol_client, session):
    hand = _finished_hand(session)
    body = carol_client.get(reverse("hand_replay", args=[hand.pk])).content.decode()
    plays = hand.record.get("plays") or []
    for _, code in plays:
        assert f'data-card="{code}"' in body
    if plays:
        assert "Trick 1" in body and "takes it" in body


def test_replay_of_a_hand_in_progress_shows_no_card(carol_client, session):
    hand = deal(session)
    body = carol_client.get(reverse("hand_replay", args=[hand.pk])).content.decode()
    assert "still being played" in body
    assert "data-card" not in body


@pytest.mark.slow
def test_two_phones_and_a_watcher_end_on_the_same_result(session, seats, carol_client):
    make_bots(session, "cal", "dee")
    deal(session)
    phones = {"ann": Client(), "ben": Client()}
    hand = play_out(phones, seats_of(session), random.Random(5))
    result = hand.verdict["result"]
    watch = carol_client.get(reverse("digital_watch", args=[session.pk])).content.decode()
    if result.get("winner"):
        assert f"{result['winner']} wins the pot" in watch
    for name in phones:
        page = phones[name].get(seat_url(seats[name])).content.decode()
        assert 'Next pot opens at <span class="money">$' in page


def _record_reported(session, user, with_log: bool) -> Hand:
    """A reported hand: the engine plays it with bots, the table reports its record."""
    state_now = postings.session_state(session)
    state = HandState.new(
        state_now["players"], state_now["dealer"], state_now["rules"], random.Random(9),
        carry=state_now["carry"], excused=state_now["excused"],
    )  # fmt: skip
    bots = {p: HeuristicBot(random.Random(i)) for i, p in enumerate(state.players)}
    while state.phase != "done":
        who = state.awaiting[0]
        state.apply(bots[who].act(state.view_for(who)))
    record = state.to_record()
    entry = {
        k: record[k] for k in ("up_card", "passed", "discards", "hands", "plays") if k in record
    }
    if not with_log:
        entry = {"up_card": record["up_card"], "passed": record["passed"], "tricks": state.tricks()}
    hand, _ = postings.record_hand(
        session_id=session.pk, entry=entry, idempotency_key=f"paper-{with_log}",
        expected_version=None, user=user,
    )  # fmt: skip
    return hand


def test_replay_of_a_reported_hand_with_a_card_log(carol_client, session, bob):
    hand = _record_reported(session, bob, with_log=True)
    body = carol_client.get(reverse("hand_replay", args=[hand.pk])).content.decode()
    for _, code in hand.record.get("plays") or []:
        assert f'data-card="{code}"' in body
    assert f"Hand {hand.number}" in body


def test_replay_of_a_reported_summary_says_there_is_no_card_log(carol_client, session, bob):
    hand = _record_reported(session, bob, with_log=False)
    body = carol_client.get(reverse("hand_replay", args=[hand.pk])).content.decode()
    assert "Trick 1" not in body
    assert "Result" in body


def test_a_seat_link_opens_the_replay_of_its_own_tables_hands_only(
    client, session, seats, club, players
):
    hand = _finished_hand(session)
    url = reverse("digital_seat_replay", args=[seats["ann"].secret, hand.pk])
    body = client.get(url).content.decode()  # no account needed
    for _, code in hand.record.get("plays") or []:
        assert f'data-card="{code}"' in body
    assert url in client.get(seat_url(seats["ann"])).content.decode()
    other = postings.start_session(
        club=club,
        name="B",
        players=players,
        dealer=players[0],
        rules={},
        currency=club.currency,
        user=None,
    )
    theirs = deal(other)
    foreign = reverse("digital_seat_replay", args=[seats["ann"].secret, theirs.pk])
    assert client.get(foreign).status_code == 404
    Seat.objects.filter(session=session).update(is_bot=False)
    in_play = deal(session)
    live = reverse("digital_seat_replay", args=[seats["ann"].secret, in_play.pk])
    page = client.get(live).content.decode()
    assert "still being played" in page and "data-card" not in page


def test_a_phone_still_showing_the_last_hand_sees_the_new_deal_unfold(client, session, seats):
    make_bots(session, "ann", "ben", "cal", "dee")
    first = deal(session)
    Seat.objects.filter(pk=seats["dee"].pk).update(is_bot=False)
    second = deal(session)
    n = HandAction.objects.filter(hand=second).count()
    assert n >= 1  # ann deals the second hand: ben and cal (bots) declare before dee
    url = seat_url(seats["dee"]) + f"?seen=40&hand={first.pk}"
    body = client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert f"dg dg-n-{n}" in body


def test_host_picks_each_bot_seats_level_and_expert_bots_play_a_hand(bob_client, session, seats):
    page = bob_client.get(reverse("digital_table", args=[session.pk])).content.decode()
    assert 'name="level"' in page and ">Expert<" in page
    for name, level in (("ann", "expert"), ("ben", "easy"), ("cal", "expert"), ("dee", "normal")):
        url = reverse("digital_seat_bot", args=[session.pk, seats[name].pk])
        assert bob_client.post(url, {"is_bot": "1", "level": level}).status_code == 302
    levels = digital_reads.bot_levels(session.pk)
    assert levels == {"ann": "expert", "ben": "easy", "cal": "expert", "dee": "normal"}
    page = bob_client.get(reverse("digital_table", args=[session.pk])).content.decode()
    assert "Played by a bot (expert)" in page
    # a bot-only table plays the whole hand in the request that deals it
    bob_client.post(reverse("digital_deal", args=[session.pk]))
    hand = Hand.objects.get(session=session)
    assert hand.status == Hand.Status.RECORDED
    postings.check_invariants(session)


def test_an_unknown_bot_level_is_refused_with_a_message(bob_client, session, seats):
    url = reverse("digital_seat_bot", args=[session.pk, seats["ann"].pk])
    response = bob_client.post(url, {"is_bot": "1", "level": "godlike"}, follow=True)
    assert "easy, normal, careful or expert" in response.content.decode()
    seat = Seat.objects.get(pk=seats["ann"].pk)
    assert not seat.is_bot and seat.bot_level == "normal"
