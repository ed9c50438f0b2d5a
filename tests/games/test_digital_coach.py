"""The coach at a digital seat (issue 37): the Hint button and its answer, the review
after a hand, the host's switch, and the match rate on the club's statistics."""

from __future__ import annotations

import random

import pytest
from django.test import Client
from django.urls import reverse

from games.digital import coach
from games.digital import selectors as digital_reads
from games.models import CoachReview, GameSession, Hand

from .test_digital_support import (
    Leakcheck,
    choose,
    deal,
    form_data,
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
def practice(session):
    """ann alone against three bots: a practice table."""
    make_bots(session, "ben", "cal", "dee")
    return session


def hint_url(seat) -> str:
    return reverse("digital_seat_hint", args=[seat.secret])


def review_url(seat, hand) -> str:
    return reverse("digital_seat_review", args=[seat.secret, hand.pk])


def _anns_turn(session) -> Hand:
    """Deal until it is ann's turn (the bots play the rest at once)."""
    for _ in range(20):
        hand = deal(session)
        table = digital_reads.load_table(hand)
        if table.in_progress and "ann" in table.state.awaiting:
            return hand
        if table.in_progress:
            raise AssertionError("a bot table waits for somebody other than ann")
    raise AssertionError("ann never got a turn")


def test_auto_is_on_at_a_practice_table_only(session, players):
    assert not coach.coach_on(session)  # four people: nobody gets advice
    make_bots(session, "ben", "cal", "dee")
    assert coach.coach_on(session)
    session.coach = GameSession.Coach.OFF
    assert not coach.coach_on(session)
    session.coach = GameSession.Coach.ON
    make_bots(session, "ann")  # the host may coach any table
    assert coach.coach_on(session)


def test_practice_seat_gets_a_hint_button_and_the_experts_hint(client, practice):
    seats = seats_of(practice)
    _anns_turn(practice)
    body = client.get(seat_url(seats["ann"])).content.decode()
    assert hint_url(seats["ann"]) in body and "dg-hint-button" in body
    response = client.get(hint_url(seats["ann"]), headers={"HX-Request": "true"})
    assert response.status_code == 200
    text = response.content.decode()
    assert "<html" not in text and 'id="dg-hint"' in text and "data-reason=" in text
    assert response["Cache-Control"] == "private, no-store"
    # A plain link (no script) gets a whole page with the way back.
    page = client.get(hint_url(seats["ann"])).content.decode()
    assert "<html" in page and seat_url(seats["ann"]) in page


def test_the_hint_is_the_experts_appraisal_of_the_seats_own_view(client, practice):
    seats = seats_of(practice)
    hand = _anns_turn(practice)
    table = digital_reads.load_table(hand)
    expected = coach.hint_for(hand, table.seq, table.state.view_for("ann"))
    assert expected is not None
    text = client.get(hint_url(seats["ann"]), headers={"HX-Request": "true"}).content.decode()
    assert f'data-reason="{expected.reason}"' in text
    # asked again: the same hint (seeded by the hand and the move count, never the deal)
    again = client.get(hint_url(seats["ann"]), headers={"HX-Request": "true"}).content.decode()
    assert again == text


def test_the_hint_is_for_the_phone_that_holds_the_seat(client, practice):
    seats = seats_of(practice)
    _anns_turn(practice)
    assert client.get(seat_url(seats["ann"])).status_code == 200  # this phone holds it
    other = Client()
    response = other.get(hint_url(seats["ann"]))
    assert response.status_code == 403
    assert "data-reason" not in response.content.decode()


def test_no_hint_when_it_is_not_your_turn(client, session):
    session.coach = GameSession.Coach.ON
    session.save(update_fields=["coach"])
    seats = seats_of(session)
    hand = deal(session)
    first = digital_reads.load_table(hand).state.awaiting[0]
    waiting = next(p for p in ("ann", "ben", "cal", "dee") if p != first)
    assert hint_url(seats[waiting]) not in client.get(seat_url(seats[waiting])).content.decode()
    response = client.get(hint_url(seats[waiting]), headers={"HX-Request": "true"})
    assert response.status_code == 409
    assert 'data-coach="nothing"' in response.content.decode()


def test_hints_are_refused_where_the_host_turned_them_off(client, practice):
    coach.set_coach(practice.pk, "off")
    seats = seats_of(practice)
    _anns_turn(practice)
    body = client.get(seat_url(seats["ann"])).content.decode()
    assert "dg-hint-button" not in body
    response = client.get(hint_url(seats["ann"]), headers={"Accept-Language": "es"})
    assert response.status_code == 403
    text = response.content.decode()
    assert 'data-coach="off"' in text
    assert "El anfitrión desactivó las pistas en esta mesa." in text  # the reader's language


def test_only_the_host_switches_the_coach(bob_client, carol_client, session):
    url = reverse("digital_coach", args=[session.pk])
    version = session.version
    assert carol_client.post(url, {"coach": "on"}).status_code == 403
    response = bob_client.post(url, {"coach": "on"})
    assert response.status_code == 302
    session.refresh_from_db()
    # the version moves on, so every seat's board is drawn again (the button appears)
    assert session.coach == "on" and session.version == version + 1
    bob_client.post(url, {"coach": "sometimes"})
    session.refresh_from_db()
    assert session.coach == "on"
    page = bob_client.get(reverse("digital_table", args=[session.pk])).content.decode()
    assert 'data-coach-now="on"' in page and 'name="coach" value="off"' in page


def _played_hand(client, practice) -> Hand:
    seats = seats_of(practice)
    _anns_turn(practice)
    return play_out({"ann": client}, seats, random.Random(3))


def test_after_the_hand_the_review_lists_where_the_expert_differed(client, practice):
    seats = seats_of(practice)
    hand = _played_hand(client, practice)
    assert hand.status == Hand.Status.RECORDED
    # the last move's request computed nothing: the board asks for the review itself
    assert not CoachReview.objects.exists()
    board = client.get(seat_url(seats["ann"])).content.decode()
    assert review_url(seats["ann"], hand) in board
    response = client.get(review_url(seats["ann"], hand))
    assert response.status_code == 200
    review = CoachReview.objects.get(hand=hand, player__name="ann")
    assert review.decisions >= 1 and 0 <= review.matched <= review.decisions
    assert len(review.items) == review.decisions
    differed = [i for i in review.items if not i["matched"]]
    assert review.cost == round(sum(i["cost"] for i in differed) * 100)
    text = response.content.decode()
    assert text.count('<li data-kind="') == len(differed)
    assert reverse("digital_seat_replay", args=[seats["ann"].secret, hand.pk]) in text


def test_the_review_is_computed_once_and_read_after(
    client, practice, django_assert_max_num_queries
):
    seats = seats_of(practice)
    hand = _played_hand(client, practice)
    client.get(review_url(seats["ann"], hand))
    # the seat, the practice-table test, the hand, the kept review: no appraisal
    with django_assert_max_num_queries(4):
        assert client.get(review_url(seats["ann"], hand)).status_code == 200
    assert CoachReview.objects.count() == 1


def test_hint_queries_stay_flat_as_the_session_grows(client, practice, django_assert_num_queries):
    seats = seats_of(practice)
    _anns_turn(practice)
    client.get(hint_url(seats["ann"]))  # the phone takes the seat
    # the seat with its session and player, the practice-table test (the seats), the hand
    # in progress, its moves, the bots' levels (the expert models careful bots as careful)
    with django_assert_num_queries(5):
        client.get(hint_url(seats["ann"]))
    play_out({"ann": client}, seats, random.Random(3))
    for _ in range(2):
        _played_hand(client, practice)
    _anns_turn(practice)
    with django_assert_num_queries(5):
        client.get(hint_url(seats["ann"]))


def test_club_stats_show_how_often_a_player_matched_the_expert(client, practice, bob_client):
    seats = seats_of(practice)
    hand = _played_hand(client, practice)
    client.get(review_url(seats["ann"], hand))
    review = CoachReview.objects.get()
    page = bob_client.get(reverse("club_stats", args=[practice.club_id])).content.decode()
    assert 'id="coach"' in page
    rate = round(review.matched * 100 / review.decisions)
    assert f'<td class="num">{review.decisions}</td>' in page
    assert f'<td class="num">{rate}&nbsp;%</td>' in page


def test_tournament_tables_are_off_in_auto(practice):
    practice.chip_limited = True
    assert not coach.coach_on(practice)
    practice.coach = GameSession.Coach.ON
    assert coach.coach_on(practice)


def test_hints_and_the_review_name_no_card_the_seat_cannot_see(client, practice):
    seats = seats_of(practice)
    checked = Leakcheck(client, practice, "ann")
    _anns_turn(practice)
    rng = random.Random(5)
    hints = 0
    for _ in range(40):
        data = client.get(state_url(seats["ann"])).json()
        if data["status"] != "in_progress":
            break
        move = choose(data["view"], rng)
        if move is None:
            continue
        assert (
            checked.get(hint_url(seats["ann"]), headers={"HX-Request": "true"}).status_code == 200
        )
        hints += 1
        checked.post(seat_url(seats["ann"]), form_data(data["hand"], data["seq"], move))
    hand = Hand.objects.get(session=practice)
    assert hand.status == Hand.Status.RECORDED and hints >= 1
    assert checked.get(review_url(seats["ann"], hand)).status_code == 200
