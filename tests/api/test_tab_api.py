"""The tab's API (issue #34): balances and clearing transfers, payments recorded once
per Idempotency-Key, confirmed, reversed; the history's cursor pages and its CSV; who
may do what; the webhook events payment.reported and payment.confirmed."""

from __future__ import annotations

import csv
import io

import pytest

from games.models import WebhookEndpoint, WebhookEvent
from ledger import postings
from ledger.models import Posting, TabPayment
from ledger.tab import tab_balances
from tests.ledger.conftest import record as record_hand

pytestmark = pytest.mark.django_db

EVENING = (
    {"ann": 5, "ben": 0, "cal": 0, "dee": 0},
    {"ann": 0, "ben": 3, "cal": 2, "dee": 0},
    {"ann": 3, "ben": 1, "cal": 1, "dee": 0},
)  # dee owes ann 17 and ben 1; cal owes ben 6


@pytest.fixture
def on_tab(club, players, alice):
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
        record_hand(session, tricks=hand, trump="H")
    postings.close_session(session_id=session.pk, user=alice, leftover_policy="share_equally")
    postings.put_on_tab(session_id=session.pk, user=alice)
    postings.check_invariants(session)
    return session


def _pay(client, club, payer, payee, amount, key=None, method="cash"):
    headers = {"Idempotency-Key": key} if key else {}
    return client.post(
        f"/api/v1/clubs/{club.pk}/tab/payments/",
        {"payer": payer.pk, "payee": payee.pk, "amount": amount, "method": method},
        content_type="application/json",
        headers=headers,
    )


def test_the_tab_lists_balances_and_the_fewest_clearing_transfers(api_carol, club, on_tab):
    data = api_carol.get(f"/api/v1/clubs/{club.pk}/tab/").json()
    assert {b["player"]["id"]: b["balance"] for b in data["balances"]} == {
        k: v for k, v in tab_balances(club.pk).items() if v
    }
    assert sum(b["balance"] for b in data["balances"]) == 0
    # ann +17, ben +7, cal −6, dee −18: no two balances cancel, so 4 − 1 = 3 transfers.
    assert len(data["transfers"]) == 3
    assert data["reported"] == []


def test_a_payment_is_recorded_once_per_idempotency_key(api_bob, club, players, on_tab):
    ann, dee = players[0], players[3]
    first = _pay(api_bob, club, dee, ann, 5, key="pay-1")
    again = _pay(api_bob, club, dee, ann, 5, key="pay-1")
    postings.check_invariants(on_tab)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert first.json() == again.json()
    assert first.json()["status"] == "reported"
    assert TabPayment.objects.count() == 1
    assert tab_balances(club.pk)[dee.pk] == -13
    other = _pay(api_bob, club, dee, ann, 6, key="pay-1")
    assert other.status_code == 422


def test_confirm_and_reverse_through_the_api(api_alice, api_carol, club, players, on_tab, carol):
    ann, dee = players[0], players[3]
    paid = _pay(api_alice, club, dee, ann, 17).json()
    # carol is a plain member and neither side of it: she may not confirm.
    assert api_carol.post(f"/api/v1/tab/payments/{paid['id']}/confirm/").status_code == 403
    confirmed = api_alice.post(f"/api/v1/tab/payments/{paid['id']}/confirm/")
    postings.check_invariants(on_tab)
    assert confirmed.status_code == 200 and confirmed.json()["status"] == "confirmed"
    reversed_ = api_alice.post(f"/api/v1/tab/payments/{paid['id']}/reverse/")
    postings.check_invariants(on_tab)
    assert reversed_.json()["status"] == "reversed"
    assert tab_balances(club.pk)[dee.pk] == -18
    refused = api_alice.post(f"/api/v1/tab/payments/{paid['id']}/confirm/")
    assert refused.status_code == 409
    assert refused.json()["errors"][0]["code"] == "tab_payment_reversed"


def test_a_member_records_their_own_payment_not_others(api_carol, club, players, on_tab, carol):
    ann, ben, cal, dee = players
    assert _pay(api_carol, club, cal, ben, 6).status_code == 403
    dee.user = carol
    dee.save()
    assert _pay(api_carol, club, dee, ann, 3).status_code == 201
    postings.check_invariants(on_tab)


def test_strangers_get_404_and_bad_payments_a_problem(
    api_mallory, api_alice, club, players, on_tab
):
    ann, dee = players[0], players[3]
    assert api_mallory.get(f"/api/v1/clubs/{club.pk}/tab/").status_code == 404
    assert api_mallory.get(f"/api/v1/clubs/{club.pk}/tab/history/csv/").status_code == 404
    assert _pay(api_mallory, club, dee, ann, 3).status_code == 404
    payment = postings.report_payment(
        club_id=club.pk, payer_id=dee.pk, payee_id=ann.pk, amount=2, method="cash", user=None
    )
    assert api_mallory.post(f"/api/v1/tab/payments/{payment.pk}/confirm/").status_code == 404
    same = _pay(api_alice, club, dee, dee, 3)
    assert same.status_code == 400 and same.json()["errors"][0]["code"] == "tab_same_player"
    zero = _pay(api_alice, club, dee, ann, 0)
    assert zero.status_code == 400
    assert TabPayment.objects.count() == 1


def test_the_history_comes_in_cursor_pages_and_its_csv_sums_to_zero(
    api_alice, club, players, on_tab
):
    ann, dee = players[0], players[3]
    _pay(api_alice, club, dee, ann, 4)
    postings.check_invariants(on_tab)
    seen = []
    first = f"/api/v1/clubs/{club.pk}/tab/history/?page_size=3"
    url = first
    while url:
        page = api_alice.get(url).json()
        seen += page["results"]
        url = page["next"] and f"{first}&cursor={page['next']}"  # a cursor, not a URL
    assert len(seen) == 8  # three transfers and a payment, two legs each
    assert [row["id"] for row in seen] == sorted(row["id"] for row in seen)
    assert sum(row["amount"] for row in seen) == 0
    response = api_alice.get(f"/api/v1/clubs/{club.pk}/tab/history/csv/")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 8 and sum(int(r["amount_minor"]) for r in rows) == 0
    mine = api_alice.get(f"/api/v1/clubs/{club.pk}/tab/history/csv/?player={dee.pk}")
    dee_rows = list(csv.DictReader(io.StringIO(mine.content.decode())))
    assert sum(int(r["amount_minor"]) for r in dee_rows) == tab_balances(club.pk)[dee.pk]


def test_webhook_events_for_a_payment_reported_and_confirmed(api_alice, club, players, on_tab):
    ann, dee = players[0], players[3]
    WebhookEndpoint.objects.create(club=club, url="https://hooks.example.com/in")
    paid = _pay(api_alice, club, dee, ann, 5).json()
    api_alice.post(f"/api/v1/tab/payments/{paid['id']}/confirm/")
    events = list(WebhookEvent.objects.order_by("id").values_list("type", "payload"))
    assert [t for t, _ in events] == ["payment.reported", "payment.confirmed"]
    assert events[0][1]["amount"] == 5 and events[0][1]["payer"] == dee.pk
    assert Posting.objects.filter(kind=Posting.Kind.TAB_PAYMENT).count() == 1
