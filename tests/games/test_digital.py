"""Digital hands through the service and the seat pages: deal, moves, bots, settlement."""

from __future__ import annotations

import html
import random

import pytest
from django.test import Client
from django.utils import translation
from django.utils.translation import gettext

from games.digital import selectors as digital_reads
from games.digital import service as digital
from games.engine import CARD_NAMES, HandState, HeuristicBot, replay, verify
from games.models import Hand, HandAction, Seat
from ledger import postings
from ledger.models import Posting

from .test_digital_support import (
    choose,
    current_state,
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
def seats(session):
    return seats_of(session)


def _turn(hand: Hand) -> tuple[HandState, str]:
    state = current_state(hand)
    return state, state.awaiting[0]


def _post(client: Client, seat: Seat, hand: Hand, move: dict, seq: int | None = None, **kw):
    if seq is None:
        seq = HandAction.objects.filter(hand=hand).count()
    return client.post(seat_url(seat), form_data(hand.pk, seq, move), **kw)


# -- dealing --------------------------------------------------------------------------------


def test_deal_creates_an_in_progress_hand_with_a_secret_seed(session, bob):
    hand = deal(session, bob)
    assert hand.kind == Hand.Kind.DIGITAL
    assert hand.status == Hand.Status.IN_PROGRESS
    assert hand.number is None
    assert hand.seed.isdigit() and int(hand.seed) < 2**64
    assert hand.before["players"] == ["ann", "ben", "cal", "dee"]
    assert hand.before["dealer"] == "dee"
    # No money moves until the hand is over.
    assert not Posting.objects.filter(hand=hand).exists()
    assert postings.pot_balance(session) == session.carry


def test_two_deals_get_different_seeds(session, seats):
    first = deal(session)
    digital.cancel_hand(session_id=session.pk)
    second = deal(session)
    assert first.seed != second.seed


def test_only_one_digital_hand_at_a_time(session):
    deal(session)
    with pytest.raises(digital.DigitalError) as exc:
        deal(session)
    assert exc.value.code == "hand_in_progress"
    assert Hand.objects.filter(session=session).count() == 1


def test_state_is_the_replay_of_seed_and_log(session, seats, client):
    """A restart loses nothing: the page is rebuilt from the seed and the stored moves."""
    hand = deal(session)
    rng = random.Random(1)
    for _ in range(6):
        state, who = _turn(hand)
        move = choose(state.view_for(who), rng)
        assert _post(client, seats[who], hand, move).status_code == 302
    hand.refresh_from_db()
    log = list(HandAction.objects.filter(hand=hand).values_list("seq", "action"))
    assert [s for s, _ in log] == list(range(1, len(log) + 1))
    b = hand.before
    fresh = replay(
        b["players"], b["dealer"], b["rules"], int(hand.seed), [a for _, a in log],
        carry=b["carry"], excused=b["excused"],
    )  # fmt: skip
    for name in ("ann", "ben"):
        shown = client.get(state_url(seats[name])).json()["view"]
        assert shown == fresh.view_for(name)


# -- playing through the pages ----------------------------------------------------------------


def test_full_hand_through_the_views_settles_in_the_ledger(session, seats):
    make_bots(session, "cal", "dee")
    deal(session)
    phones = {"ann": Client(), "ben": Client()}
    hand = play_out(phones, seats_of(session), random.Random(7))
    assert hand.status == Hand.Status.RECORDED
    assert hand.number == 1
    assert hand.kind == Hand.Kind.DIGITAL
    # The record the ledger kept verifies to the same verdict, with every card played.
    again = verify(hand.record)
    assert again["valid"] and again["complete"]
    assert again["result"] == hand.verdict["result"]
    session.refresh_from_db()
    assert session.hands_count == 1
    assert session.carry == hand.verdict["result"]["next_carry"]
    assert Posting.objects.filter(hand=hand, kind=Posting.Kind.ANTE).exists()
    postings.check_invariants(session)
    # Both phones see the same result.
    a = phones["ann"].get(state_url(seats["ann"])).json()
    b = phones["ben"].get(state_url(seats["ben"])).json()
    assert a["status"] == b["status"] == "recorded"
    assert a["view"]["result"] == b["view"]["result"] == hand.verdict["result"]


@pytest.mark.slow
def test_several_hands_in_a_row_keep_the_books_balanced(session, seats, bob):
    make_bots(session, "dee")
    phones = {n: Client() for n in ("ann", "ben", "cal")}
    rng = random.Random(3)
    for number in range(1, 6):
        digital.start_hand(session_id=session.pk, user=bob)
        hand = play_out(phones, seats, rng)
        assert hand.number == number
        postings.check_invariants(session)
    session.refresh_from_db()
    assert session.hands_count == 5


def test_bot_only_table_plays_the_whole_hand_when_dealt(session):
    make_bots(session, "ann", "ben", "cal", "dee")
    table = digital.start_hand(session_id=session.pk)
    hand = Hand.objects.get(pk=table.hand.pk)
    assert hand.status == Hand.Status.RECORDED
    assert hand.number == 1
    assert verify(hand.record)["result"] == hand.verdict["result"]
    assert HandAction.objects.filter(hand=hand).count() == len(table.state.actions)
    postings.check_invariants(session)


def _seed_reaching_the_dealer(session, monkeypatch, ace_up: bool = False) -> None:
    """Deal a seed where the bots at ann, ben and cal (whose declarations use no
    randomness) leave the dealer dee a declaration instead of all passing (R14)."""
    b = postings.session_state(session)

    def reaches(seed: int) -> bool:
        state = HandState.new(b["players"], b["dealer"], b["rules"], seed)
        if ace_up and state.up_card % 13 != 12:
            return False
        while state.to_act in ("ann", "ben", "cal"):
            state.apply(HeuristicBot().act(state.view_for(state.to_act)))
        return state.to_act == "dee"

    seed = next(s for s in range(10_000) if reaches(s))
    monkeypatch.setattr(digital.secrets, "randbits", lambda bits: seed)


def test_bots_reply_in_the_same_request(session, seats, client, monkeypatch):
    _seed_reaching_the_dealer(session, monkeypatch)
    make_bots(session, "ann", "ben", "cal")
    hand = deal(session)  # ann, ben, cal declare; dee (human, dealer) is next
    state, who = _turn(hand)
    assert who == "dee"
    assert len(state.actions) == 3
    response = _post(client, seats["dee"], hand, {"type": "play", "discard": []})
    assert response.status_code == 302
    state = current_state(hand)
    # After dee's declaration the bots lead and follow until it is dee's turn again
    # (or the hand is over).
    assert state.awaiting == ["dee"] or state.phase == "done"


# -- refusals: nothing is written -------------------------------------------------------------


def _deal_until(session, seats, client, want, tries: int = 40):
    """Deal and play (humans ann and ben) until want(state, who) holds at a human turn."""
    rng = random.Random(11)
    make_bots(session, "cal", "dee")
    for _ in range(tries):
        hand = digital_reads.hand_in_progress(session.pk) or deal(session)
        while True:
            hand.refresh_from_db()
            if hand.status != Hand.Status.IN_PROGRESS:
                break
            state, who = _turn(hand)
            if want(state, who):
                return hand, state, who
            assert _post(
                client, seats[who], hand, choose(state.view_for(who), rng)
            ).status_code in (302,)
    pytest.fail("no such situation came up")


def test_illegal_card_is_refused_with_its_rule_R19_to_R29_and_nothing_written(
    session, seats, client
):
    hand, state, who = _deal_until(
        session, seats, client, lambda s, w: bool(s.view_for(w)["illegal"])
    )
    card, rule = next(iter(state.view_for(who)["illegal"].items()))
    before = HandAction.objects.filter(hand=hand).count()
    response = _post(client, seats[who], hand, {"type": "card", "card": card})
    assert response.status_code == 400
    body = response.content.decode()
    assert rule in body
    assert 'data-code="illegal_card"' in body
    assert HandAction.objects.filter(hand=hand).count() == before
    # The page offers the card dimmed, with the rule that forbids it.
    page = client.get(seat_url(seats[who])).content.decode()
    assert f'data-rule="{rule}"' in page
    assert f'name="card" value="{card}"' not in page


def test_out_of_turn_move_is_refused_R16_and_nothing_written(session, seats, client):
    hand = deal(session)
    state, who = _turn(hand)
    other = next(p for p in ("ann", "ben", "cal", "dee") if p != who)
    before = HandAction.objects.filter(hand=hand).count()
    response = _post(client, seats[other], hand, {"type": "pass"}, headers={"HX-Request": "1"})
    assert response.status_code == 409
    html = response.content.decode()
    assert f"it is {who}" in html.lower()
    assert "(declaring out of turn forfeits your deal)" in html and "#R16" in html
    assert HandAction.objects.filter(hand=hand).count() == before


def test_dealer_cannot_pass_with_an_ace_up_R12(session, seats, client, monkeypatch):
    _seed_reaching_the_dealer(session, monkeypatch, ace_up=True)
    make_bots(session, "ann", "ben", "cal")
    hand = deal(session)
    state, who = _turn(hand)
    assert who == "dee"
    page = client.get(seat_url(seats["dee"])).content.decode()
    assert "R12" in page and 'value="pass"' not in page
    response = _post(client, seats["dee"], hand, {"type": "pass"})
    assert response.status_code == 400
    assert "R12" in response.content.decode()


def test_a_repeated_move_is_applied_once(session, seats, client):
    hand = deal(session)
    state, who = _turn(hand)
    seq = len(state.actions)
    first = _post(client, seats[who], hand, {"type": "play", "discard": []}, seq=seq)
    count = HandAction.objects.filter(hand=hand).count()
    again = _post(client, seats[who], hand, {"type": "play", "discard": []}, seq=seq)
    assert first.status_code == again.status_code == 302
    assert HandAction.objects.filter(hand=hand).count() == count


def test_a_different_move_on_an_old_view_is_stale(session, seats, client):
    hand = deal(session)
    state, who = _turn(hand)
    seq = len(state.actions)
    _post(client, seats[who], hand, {"type": "play", "discard": []}, seq=seq)
    count = HandAction.objects.filter(hand=hand).count()
    response = _post(client, seats[who], hand, {"type": "pass"}, seq=seq)
    assert response.status_code == 409
    assert "moved on" in response.content.decode()
    assert HandAction.objects.filter(hand=hand).count() == count


def test_a_seat_link_cannot_act_for_another_seat(session, seats, client):
    hand = deal(session)
    state, who = _turn(hand)
    other = next(p for p in ("ann", "ben", "cal", "dee") if p != who)
    before = HandAction.objects.filter(hand=hand).count()
    # Naming the player whose turn it is from another seat's link: refused.
    data = form_data(hand.pk, before, {"type": "pass"}) | {"player": who}
    response = client.post(seat_url(seats[other]), data)
    assert response.status_code == 403
    assert 'data-code="wrong_seat"' in response.content.decode()
    assert HandAction.objects.filter(hand=hand).count() == before


def test_a_seat_link_of_one_session_is_useless_in_another(session, seats, club, players, client):
    other = postings.start_session(
        club=club, name="Other table", players=players, dealer=players[3], rules={},
        currency=club.currency, user=None,
    )  # fmt: skip
    theirs = deal(other)
    deal(session)
    state, who = _turn(theirs)
    before = HandAction.objects.filter(hand=theirs).count()
    # This session's link for the very player whose turn it is at the other table.
    response = _post(client, seats[who], theirs, {"type": "pass"})
    assert response.status_code == 404
    assert HandAction.objects.filter(hand=theirs).count() == before
    shown = client.get(state_url(seats[who])).json()
    assert shown["hand"] != theirs.pk


def test_an_unknown_seat_link_is_404(client, session):
    assert client.get("/seat/not-a-real-secret/").status_code == 404
    assert client.post("/seat/not-a-real-secret/", {"type": "pass"}).status_code == 404


def test_a_card_not_in_hand_gets_the_same_answer_wherever_that_card_is(session, seats, client):
    """No oracle: naming a card you do not hold says nothing about who holds it."""
    hand, state, who = _deal_until(session, seats, client, lambda s, w: bool(s.legal_cards(w)))
    mine = set(state.view_for(who)["hand"])
    others = {c for p in state.players if p != who for c in state.view_for(p)["hand"]}
    stock_card = next(
        c for c in CARD_NAMES if c not in mine | others and c != state.public_view()["up_card"]
    )
    held_card = next(iter(others - mine))
    answers = []
    for c in (stock_card, held_card):
        r = _post(
            client, seats[who], hand, {"type": "card", "card": c}, headers={"HX-Request": "1"}
        )
        assert r.status_code == 400
        text = r.content.decode().replace(c, "XX")
        answers.append(text.split('role="alert"')[1].split("</p>")[0])
    assert answers[0] == answers[1]


# -- seats handed to bots, cancelled and changed hands ---------------------------------------


def test_handing_a_seat_to_the_bot_mid_hand_lets_it_move_at_once(session, seats):
    hand = deal(session)
    state, who = _turn(hand)
    before = len(state.actions)
    digital.set_bot(session_id=session.pk, seat_id=seats[who].pk, is_bot=True)
    assert Seat.objects.get(pk=seats[who].pk).is_bot
    after = current_state(hand)
    assert len(after.actions) > before
    assert after.actions[before]["player"] == who  # the bot took the waiting turn
    assert who not in after.awaiting


def test_cancelling_a_hand_moves_no_money(session, bob):
    hand = deal(session)
    digital.cancel_hand(session_id=session.pk, user=bob)
    hand.refresh_from_db()
    assert hand.status == Hand.Status.VOIDED
    assert hand.number is None
    assert not Posting.objects.filter(hand=hand).exists()
    session.refresh_from_db()
    assert session.hands_count == 0
    deal(session)  # the table can deal again


def test_a_reported_hand_is_refused_while_a_digital_hand_is_in_progress(session, seats, bob):
    hand = deal(session)
    with pytest.raises(postings.HandRejected) as info:
        postings.record_hand(
            session_id=session.pk,
            entry={"up_card": "QH", "passed": ["ben"], "tricks": {"ann": 3, "cal": 2, "dee": 0}},
            idempotency_key="paper-1",
            expected_version=None,
            user=bob,
        )
    assert info.value.errors[0]["code"] == "digital_hand_in_progress"
    hand.refresh_from_db()
    assert hand.status == Hand.Status.IN_PROGRESS


def test_a_rules_change_meanwhile_cancels_the_digital_hand(session, seats, client, bob):
    hand = deal(session)
    state, who = _turn(hand)
    postings.change_rules(session_id=session.pk, rules={**session.rules, "ante": 2}, user=bob)
    response = _post(client, seats[who], hand, {"type": "pass"})
    assert response.status_code == 409
    hand.refresh_from_db()
    assert hand.status == Hand.Status.VOIDED
    assert "changed" in hand.void_reason
    assert not Posting.objects.filter(hand=hand).exists()
    # Stored in English; each phone reads it in its own language.
    with translation.override("fi"):
        finnish = gettext(hand.void_reason)
    assert finnish != hand.void_reason
    page = client.get(seat_url(seats[who]), HTTP_ACCEPT_LANGUAGE="fi").content.decode()
    assert html.escape(finnish, quote=False) in page
    assert html.escape(hand.void_reason, quote=False) not in page


def test_a_closed_session_cannot_deal(session, bob):
    postings.close_session(session_id=session.pk, user=bob)
    with pytest.raises(digital.DigitalError) as exc:
        deal(session)
    assert exc.value.code == "session_closed"
