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


def test_the_tab_pages_clearing_transfers_offer_the_payees_pay_links(
    alice_client, evening, club, players
):
    """Each clearing transfer carries its payee's hand-off with the amount (issue #34)."""
    from games.models import PaymentHandles

    ann, ben = players[0], players[1]
    PaymentHandles.objects.create(player=ann, venmo="ann-smith")
    PaymentHandles.objects.create(player=ben, other="IBAN DE89 3704")
    _close(alice_client, evening, "tab")
    postings.check_invariants(evening)
    page = alice_client.get(reverse("club_tab", args=[club.pk])).content.decode()
    assert "Pay $17 with Venmo" in page  # dee → ann
    assert "https://venmo.com/u/ann-smith?txn=pay&amp;amount=17&amp;note=" in page
    assert 'data-copy="IBAN DE89 3704"' in page  # ben's free text, to copy
    assert "never moves money" in page
    # cal owes ben only: ben saved no app, so no link names ben's transfer's amount.
    assert "Pay $6 with" not in page


def test_the_me_statement_does_not_ask_to_pay_tonight_what_is_on_the_tab(
    alice_client, client, evening, players
):
    """dee owes ann 17 and ben 1; ann's transfer goes on the tab, ben's stays tonight's:
    "To pay" lists ben's only (the tab line stands for ann's, with the tab's balance)."""
    from games.models import PaymentHandles
    from games.sessions.share import create_link

    ann, ben, dee = players[0], players[1], players[3]
    PaymentHandles.objects.create(player=ann, venmo="ann-smith")
    PaymentHandles.objects.create(player=ben, venmo="ben-jones")
    _close(alice_client, evening)
    alice_client.post(
        reverse("settlement_tab", args=[evening.pk]),
        {"action": "put", "payer": dee.pk, "payee": ann.pk, "amount": 17},
    )
    postings.check_invariants(evening)
    assert list(session_tab(evening.pk)) == [(dee.pk, ann.pk)]
    token = create_link(evening).token
    response = client.get(reverse("share_me", args=[token]), {"name": "dee"})
    assert [(r["transfer"].payee, r["amount"]) for r in response.context["owed"]] == [(ben.pk, 1)]
    # The settlement page offers no "Pay" for it either: the tab page does.
    settlement = alice_client.get(reverse("session_settlement", args=[evening.pk]))
    assert "venmo.com/u/ben-jones" in settlement.content.decode()
    assert "venmo.com/u/ann-smith" not in settlement.content.decode()
    page = response.content.decode()
    assert "venmo.com/u/ben-jones" in page and "venmo.com/u/ann-smith" not in page
    assert 'you owe <span class="money">$17</span>' in page  # the tab line
    # Taken off the tab, it is tonight's to pay again.
    alice_client.post(
        reverse("settlement_tab", args=[evening.pk]),
        {"action": "off", "payer": dee.pk, "payee": ann.pk, "amount": 17},
    )
    postings.check_invariants(evening)
    response = client.get(reverse("share_me", args=[token]), {"name": "dee"})
    assert {r["transfer"].payee for r in response.context["owed"]} == {ann.pk, ben.pk}


def test_a_double_tap_on_paid_in_full_records_one_payment(alice_client, evening, club, players):
    """The same form posted twice (a double tap, a resent POST) records one payment; the
    second post says what the first recorded. Each form drawn has its own token."""
    import re

    _close(alice_client, evening, "tab")
    page = alice_client.get(reverse("club_tab", args=[club.pk])).content.decode()
    tokens = re.findall(r'name="once" value="([0-9a-f]{32})"', page)
    # One per "Paid in full" (three clearing transfers) and the record form's: all fresh.
    assert len(tokens) == 4 and len(set(tokens)) == 4
    dee, ann = players[3], players[0]
    post = {"payer": dee.pk, "payee": ann.pk, "amount": "17", "method": "cash", "once": tokens[0]}
    first = alice_client.post(reverse("tab_pay", args=[club.pk]), post, follow=True)
    postings.check_invariants(evening)
    second = alice_client.post(reverse("tab_pay", args=[club.pk]), post, follow=True)
    postings.check_invariants(evening)
    assert TabPayment.objects.count() == 1
    assert Posting.objects.filter(kind=Posting.Kind.TAB_PAYMENT).count() == 1
    assert tab_balances(club.pk)[dee.pk] == -1  # owed 18, paid 17 once
    for response in (first, second):
        assert "Dee paid ann $17: reported" in response.content.decode()
    # Another form's token is another payment.
    post["once"], post["amount"] = tokens[3], "1"
    alice_client.post(reverse("tab_pay", args=[club.pk]), post)
    postings.check_invariants(evening)
    assert TabPayment.objects.count() == 2 and tab_balances(club.pk)[dee.pk] == 0
    # Without a token (an old page) each post records, as before.
    del post["once"]
    alice_client.post(reverse("tab_pay", args=[club.pk]), post)
    postings.check_invariants(evening)
    assert TabPayment.objects.count() == 3


def test_the_same_form_token_in_another_club_is_another_payment(club, players, alice):
    """The token is the club's: the ledger looks it up under the club's lock."""
    from tests.factories import ClubFactory, PlayerFactory

    other = ClubFactory()
    x, y = PlayerFactory(club=other), PlayerFactory(club=other)
    here = postings.report_payment(
        club_id=club.pk,
        payer_id=players[0].pk,
        payee_id=players[1].pk,
        amount=5,
        method="cash",
        user=alice,
        form_token="a" * 32,
    )
    there = postings.report_payment(
        club_id=other.pk,
        payer_id=x.pk,
        payee_id=y.pk,
        amount=5,
        method="cash",
        user=alice,
        form_token="a" * 32,
    )
    assert here.pk != there.pk
    again = postings.report_payment(
        club_id=club.pk,
        payer_id=players[0].pk,
        payee_id=players[1].pk,
        amount=5,
        method="cash",
        user=alice,
        form_token="a" * 32,
    )
    assert again.pk == here.pk and TabPayment.objects.count() == 2
