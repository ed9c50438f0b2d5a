"""Saving payment handles and the hand-off on the pages (issue #34 item 3): the Account
page (a person's own), a player's page (owner or scorekeeper, for a player without an
account), the settlement and the share link's "Me" statement of a closed session."""

import datetime as dt

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import translation

from games.clubs import handles
from games.models import PaymentHandles
from games.sessions import share
from ledger import postings

from .test_session_views import WIN_ANN, record_direct, start_table

pytestmark = pytest.mark.django_db

# Saturday 5 December 2026, 21:00 in Chicago: already Sunday in UTC.
GAME_NIGHT = dt.datetime(2026, 12, 6, 3, 0, tzinfo=dt.UTC)
NOTE_Q = "Bourr%C3%A9%20%E2%80%94%20Saturday%205%20December"


@pytest.fixture
def played(club, players, bob):
    """ben, cal and dee each owe ann $1 (tests/games/test_settlement_views.py says why)."""
    club.time_zone = "America/Chicago"
    club.save()
    table = start_table(club, players, bob)
    record_direct(table, user=bob, **WIN_ANN)
    postings.check_invariants(table)
    postings.close_session(session_id=table.pk, user=bob, leftover_policy="share_equally")
    postings.check_invariants(table)
    table.created_at = GAME_NIGHT
    table.save(update_fields=["created_at"])
    table.refresh_from_db()
    return table


def _handles_post(prefix="", **values):
    fields = ("venmo", "paypal", "cashtag", "revolut", "other")
    return {f"{prefix}{f}": values.get(f, "") for f in fields}


# -- saving --------------------------------------------------------------------------------


def test_a_person_saves_their_own_handles(carol_client, carol):
    response = carol_client.post(
        reverse("account_handles"), _handles_post(venmo="@carol-b", cashtag="$Carol7")
    )
    assert response.status_code == 302
    row = PaymentHandles.objects.get(user=carol)
    assert (row.venmo, row.cashtag, row.updated_by) == ("carol-b", "Carol7", carol)
    page = carol_client.get(reverse("account")).content.decode()
    assert 'value="carol-b"' in page and "never moves money" in page


def test_refused_handles_say_why_and_keep_what_was_typed(carol_client, carol):
    response = carol_client.post(
        reverse("account_handles"), _handles_post(venmo="ann", paypal="ann.smith")
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "A Venmo username is 5 to 30 letters" in html
    assert "A PayPal.Me name is up to 20 letters and digits" in html
    assert 'value="ann.smith"' in html
    assert not PaymentHandles.objects.filter(user=carol).exists()


def test_refusals_in_the_readers_language(carol_client):
    carol_client.cookies["django_language"] = "es"
    with translation.override("es"):
        response = carol_client.post(
            reverse("account_handles"), _handles_post(cashtag="12345"), HTTP_ACCEPT_LANGUAGE="es"
        )
    assert response.status_code == 422
    assert "Un $cashtag necesita al menos una letra" in response.content.decode()


def test_a_scorekeeper_saves_handles_for_a_player_without_an_account(bob_client, bob, players):
    ann = players[0]
    data = {"p-name": "ann", "l-member": ""} | _handles_post("h-", revolut="@ann.s")
    response = bob_client.post(reverse("player_edit", args=[ann.pk]), data)
    assert response.status_code == 302
    row = PaymentHandles.objects.get(player=ann)
    assert (row.revolut, row.updated_by) == ("ann.s", bob)


def test_a_refused_handle_on_a_players_page_saves_nothing(bob_client, players):
    ann = players[0]
    data = {"p-name": "ann renamed", "l-member": ""} | _handles_post("h-", venmo="a b")
    response = bob_client.post(reverse("player_edit", args=[ann.pk]), data)
    assert response.status_code == 422
    ann.refresh_from_db()
    assert ann.name == "ann" and not PaymentHandles.objects.exists()


def test_a_linked_players_handles_are_their_own(bob_client, players, carol, club):
    ann = players[0]
    ann.user = carol
    ann.save()
    html = bob_client.get(reverse("player_edit", args=[ann.pk])).content.decode()
    assert 'name="h-venmo"' not in html and "keeps their own payment handles" in html
    # What someone else typed for the player before the link is not used.
    PaymentHandles.objects.create(player=ann, venmo="someone-else")
    assert handles.for_players([ann.pk]) == {}
    PaymentHandles.objects.create(user=carol, venmo="carol-b")
    assert handles.for_players([ann.pk])[ann.pk].venmo == "carol-b"


def test_members_and_strangers_cannot_set_a_players_handles(carol_client, mallory_client, players):
    url = reverse("player_edit", args=[players[0].pk])
    data = {"p-name": "ann", "l-member": ""} | _handles_post("h-", venmo="mallory-x")
    assert carol_client.post(url, data).status_code == 403
    assert mallory_client.post(url, data).status_code == 404
    assert not PaymentHandles.objects.exists()


def test_one_owner_only(players, carol):
    with pytest.raises(IntegrityError), transaction.atomic():
        PaymentHandles.objects.create(user=carol, player=players[0])
    with pytest.raises(IntegrityError), transaction.atomic():
        PaymentHandles.objects.create()


# -- the hand-off on the pages -----------------------------------------------------------


def test_settlement_offers_pay_links_for_each_transfer_to_pay(carol_client, played, players):
    ann = players[0]
    PaymentHandles.objects.create(player=ann, venmo="ann-smith", other="IBAN DE89 3704")
    html = carol_client.get(reverse("session_settlement", args=[played.pk])).content.decode()
    # The note is the game's day in the club's zone (Saturday in Chicago, Sunday in UTC).
    url = f"https://venmo.com/u/ann-smith?txn=pay&amp;amount=1&amp;note={NOTE_Q}"
    assert html.count(f'href="{url}" target="_blank" rel="noopener noreferrer"') == 3
    assert html.count("Pay $1 with Venmo") == 3
    assert html.count('data-copy="IBAN DE89 3704"') == 3
    assert html.count("never moves money") == 1


def test_no_links_for_a_paid_transfer_an_open_session_or_a_payee_without_handles(
    bob_client, played, players, club, bob
):
    ann, ben = players[0], players[1]
    url = reverse("session_settlement", args=[played.pk])
    assert "Pay $1 with" not in bob_client.get(url).content.decode()  # ann saved nothing
    PaymentHandles.objects.create(player=ann, cashtag="Ann7")
    bob_client.post(
        reverse("settlement_mark", args=[played.pk]),
        {"payer": ben.pk, "payee": ann.pk, "paid": "1"},
    )
    assert bob_client.get(url).content.decode().count("Pay $1 with Cash App") == 2
    still_open = start_table(club, players, bob)
    record_direct(still_open, user=bob, **WIN_ANN)
    postings.check_invariants(still_open)
    html = bob_client.get(reverse("session_settlement", args=[still_open.pk])).content.decode()
    assert "with Cash App" not in html


def test_a_euro_club_says_venmo_is_usd_only(carol_client, played, players):
    played.currency = "EUR"
    played.save()
    PaymentHandles.objects.create(player=players[0], venmo="ann-smith", paypal="AnnS")
    html = carol_client.get(reverse("session_settlement", args=[played.pk])).content.decode()
    assert "https://paypal.me/AnnS/0.01EUR" in html  # the session's amounts are cents now
    assert "venmo.com" not in html
    assert "Venmo takes US dollars only, so it is not offered here." in html


def test_the_share_links_me_statement_lists_what_to_pay(played, players, bob, client):
    PaymentHandles.objects.create(player=players[0], paypal="AnnSmith")
    link = share.create_link(played, bob)
    me = reverse("share_me", args=[link.token])
    html = client.get(me, {"name": "ben"}).content.decode()
    assert "To pay" in html
    assert html.count('href="https://paypal.me/AnnSmith/1USD"') == 1
    # ann is owed, not owing: nothing to pay.
    html = client.get(me, {"name": "ann"}).content.decode()
    assert "To pay" not in html and "paypal.me" not in html


def test_pay_note_in_other_languages():
    with translation.override("es"):
        assert handles.pay_note(GAME_NIGHT, "America/Chicago") == "Bourré — sábado 5 de diciembre"
    with translation.override("ko"):
        assert handles.pay_note(GAME_NIGHT, "Asia/Seoul") == "부레 — 12월 6일 일요일"


def test_deleting_an_account_deletes_where_it_was_paid(carol, players, password):
    from games.clubs import account_service

    ann = players[0]
    PaymentHandles.objects.create(player=ann, venmo="typed-by-bob")  # before the link
    ann.user = carol
    ann.save()
    PaymentHandles.objects.create(user=carol, venmo="carol-b")
    other = PaymentHandles.objects.create(player=players[1], venmo="ben-b")
    account_service.delete_account(carol, {})
    assert list(PaymentHandles.objects.all()) == [other]
