"""The Tab pages (issue #34): who reads, records, confirms and reverses; refusals in
words; the settlement page's "on the tab" and the close form's choice.
Personas: alice (owner), bob (scorekeeper), carol (member, plays as dee), mallory."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ledger import postings
from ledger.models import Posting, SettlementMark, TabPayment
from ledger.tab import session_tab, session_transfers, tab_balances
from tests.ledger.conftest import record

pytestmark = pytest.mark.django_db

EVENING = (
    {"ann": 5, "ben": 0, "cal": 0, "dee": 0},
    {"ann": 0, "ben": 3, "cal": 2, "dee": 0},
    {"ann": 3, "ben": 1, "cal": 1, "dee": 0},
)  # then dee owes ann 17 and ben 1, cal owes ben 6


@pytest.fixture
def evening(club, players, alice):
    session = postings.start_session(
        club=club,
        name="Thursday",
        players=players,
        dealer=players[-1],
        rules={},
        currency=club.currency,
        user=alice,
    )
    for hand in EVENING:
        record(session, tricks=hand)
    return session


@pytest.fixture
def dee_is_carol(players, carol):
    dee = players[3]
    dee.user = carol
    dee.save()
    return dee


def _close(client, session, settle="tonight"):
    return client.post(
        reverse("session_close", args=[session.pk]),
        {"leftover_policy": "share_equally", "settle": settle},
    )


def test_closing_to_the_tab_puts_every_transfer_on_it(alice_client, evening):
    response = _close(alice_client, evening, "tab")
    assert response.status_code == 302
    postings.check_invariants(evening)
    assert len(session_tab(evening.pk)) == 3
    page = alice_client.get(reverse("session_settlement", args=[evening.pk])).content.decode()
    assert page.count("On the tab") >= 3 and "Take off the tab" in page


def test_closing_tonight_leaves_the_choice_per_transfer(alice_client, evening, players):
    _close(alice_client, evening)
    postings.check_invariants(evening)
    assert session_tab(evening.pk) == {}
    page = alice_client.get(reverse("session_settlement", args=[evening.pk])).content.decode()
    assert "Put on the tab" in page and "Put every unpaid transfer on the tab" in page
    t = next(t for t in session_transfers(evening) if "kitty" not in (t.payer, t.payee))
    url = reverse("settlement_tab", args=[evening.pk])
    alice_client.post(
        url, {"action": "put", "payer": t.payer, "payee": t.payee, "amount": t.amount}
    )
    postings.check_invariants(evening)
    assert list(session_tab(evening.pk)) == [(t.payer, t.payee)]
    # Ticking it paid now is refused in words, nothing changes.
    response = alice_client.post(
        reverse("settlement_mark", args=[evening.pk]),
        {"payer": t.payer, "payee": t.payee, "paid": "1"},
        follow=True,
    )
    assert "take it off the tab first" in response.content.decode()
    assert not SettlementMark.objects.exists()
    alice_client.post(
        url, {"action": "off", "payer": t.payer, "payee": t.payee, "amount": t.amount}
    )
    postings.check_invariants(evening)
    assert session_tab(evening.pk) == {}
    response = alice_client.post(url, {"action": "all"}, follow=True)
    postings.check_invariants(evening)
    assert "3 transfers are on the club" in response.content.decode()


def test_an_open_session_is_refused_in_words(alice_client, evening):
    response = alice_client.post(
        reverse("settlement_tab", args=[evening.pk]), {"action": "all"}, follow=True
    )
    assert "Close the session first" in response.content.decode()
    assert not Posting.objects.filter(kind=Posting.Kind.TAB).exists()


def test_a_member_cannot_put_on_the_tab_and_a_stranger_sees_nothing(
    carol_client, mallory_client, evening, club
):
    assert (
        carol_client.post(
            reverse("settlement_tab", args=[evening.pk]), {"action": "all"}
        ).status_code
        == 403
    )
    assert mallory_client.get(reverse("club_tab", args=[club.pk])).status_code == 404
    assert mallory_client.post(reverse("tab_pay", args=[club.pk]), {}).status_code == 404


def test_the_tab_page_shows_balances_clearing_transfers_and_a_reminder(
    alice_client, evening, club, players
):
    _close(alice_client, evening, "tab")
    response = alice_client.get(reverse("club_tab", args=[club.pk]))
    assert response.status_code == 200
    view = response.context["tab"]
    assert {b.player_id: b.amount for b in view.balances} == {
        k: v for k, v in tab_balances(club.pk).items() if v
    }
    page = response.content.decode()
    assert "Reminder from Bayou Club: dee, you owe ann $17 on the club&#x27;s tab." in page
    assert "i34-pay" not in page  # the marked spot is a template comment


def test_a_member_reports_their_payment_and_the_payee_confirms(
    alice_client, carol_client, evening, club, players, dee_is_carol, alice
):
    ann = players[0]
    ann.user = alice
    ann.save()
    _close(alice_client, evening, "tab")
    response = carol_client.post(
        reverse("tab_pay", args=[club.pk]),
        {"payer": dee_is_carol.pk, "payee": ann.pk, "amount": "10", "method": "venmo"},
        follow=True,
    )
    postings.check_invariants(evening)
    assert "reported; ann confirms it" in response.content.decode()
    payment = TabPayment.objects.get()
    assert payment.amount == 10 and not payment.confirmed
    assert tab_balances(club.pk)[dee_is_carol.pk] == -8  # owed 18, paid 10
    # carol (the payer, a member) may not confirm it; ann's member (alice) does.
    confirm = reverse("tab_payment_confirm", args=[club.pk, payment.pk])
    assert carol_client.post(confirm).status_code == 403
    alice_client.post(confirm)
    postings.check_invariants(evening)
    payment.refresh_from_db()
    assert payment.confirmed
    history = alice_client.get(reverse("tab_player", args=[club.pk, dee_is_carol.pk]))
    assert "dee paid ann (Venmo)" in history.content.decode()


def test_a_member_cannot_record_a_payment_between_others(carol_client, evening, club, players):
    postings.close_session(session_id=evening.pk, user=None, leftover_policy="share_equally")
    response = carol_client.post(
        reverse("tab_pay", args=[club.pk]),
        {"payer": players[2].pk, "payee": players[1].pk, "amount": "6", "method": "cash"},
    )
    assert response.status_code == 403
    assert not TabPayment.objects.exists()


def test_a_bad_payment_form_says_why(alice_client, evening, club, players):
    response = alice_client.post(
        reverse("tab_pay", args=[club.pk]),
        {"payer": players[1].pk, "payee": players[1].pk, "amount": "0", "method": "cash"},
    )
    assert response.status_code == 422
    page = response.content.decode()
    assert "Choose two different players." in page
    assert not TabPayment.objects.exists()


def test_reversing_brings_the_debt_back(alice_client, evening, club, players):
    _close(alice_client, evening, "tab")
    dee, ann = players[3], players[0]
    alice_client.post(
        reverse("tab_pay", args=[club.pk]),
        {"payer": dee.pk, "payee": ann.pk, "amount": "17", "method": "cash"},
    )
    postings.check_invariants(evening)
    payment = TabPayment.objects.get()
    response = alice_client.post(
        reverse("tab_payment_reverse", args=[club.pk, payment.pk]), follow=True
    )
    postings.check_invariants(evening)
    assert "is reversed: the debt is back" in response.content.decode()
    assert tab_balances(club.pk)[dee.pk] == -18
    # Confirming it now is refused in words.
    response = alice_client.post(
        reverse("tab_payment_confirm", args=[club.pk, payment.pk]), follow=True
    )
    assert "That payment was reversed" in response.content.decode()


def test_reminder_settings_are_the_owners(alice_client, bob_client, club):
    url = reverse("tab_settings", args=[club.pk])
    assert bob_client.get(url).status_code == 403
    response = alice_client.post(url, {"reminders": "on", "threshold": "5", "days": "7"})
    assert response.status_code == 302
    assert club.tab_settings.threshold == 5 and club.tab_settings.days == 7
    response = alice_client.post(url, {"reminders": "on", "threshold": "5", "days": "0"})
    assert response.status_code == 422


def test_the_me_statement_and_the_members_board_show_the_players_tab(
    alice_client, carol_client, client, evening, club, dee_is_carol
):
    _close(alice_client, evening, "tab")
    me = carol_client.get(reverse("session_me", args=[evening.pk]), follow=True)
    assert 'On the club\'s tab you owe <span class="money">$18</span>' in me.content.decode()
    # The share link's "Me" says the same to a phone without an account.
    from games.sessions.share import create_link

    token = create_link(evening).token
    shared = client.get(reverse("share_me", args=[token]) + "?name=dee").content.decode()
    assert 'you owe <span class="money">$18</span>' in shared
    board = carol_client.get(reverse("session_detail", args=[evening.pk])).content.decode()
    assert "On the club's tab you owe" in board
    # A member without a player of their own sees no tab line.
    assert (
        "club's tab you"
        not in alice_client.get(reverse("session_detail", args=[evening.pk])).content.decode()
    )
