"""Webhooks: the outbox is written in the change's transaction; deliveries are signed,
retried with backoff after a failure, in order per endpoint; the owner sees the log.

A real local HTTP receiver (a thread) answers what each test scripts."""

import hashlib
import hmac
import json
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from django.core.management import call_command
from django.utils import timezone

from games.api import outbox
from games.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from ledger import postings

from .conftest import FIRST_HAND, SECOND_HAND, record


class Receiver:
    """Records every POST; answers with the next scripted status (default 200)."""

    def __init__(self):
        self.calls: list[dict] = []
        self.script: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.calls.append({"headers": dict(self.headers), "body": body})
                status = receiver.script.pop(0) if receiver.script else 200
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def events(self) -> list[str]:
        return [json.loads(c["body"])["type"] for c in self.calls]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver(settings):
    # A local receiver: plain http on 127.0.0.1 and a port of its own (games.api.egress).
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOW_PRIVATE = True
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def endpoint(club, receiver):
    return WebhookEndpoint.objects.create(club=club, url=receiver.url)


def _due_now():
    WebhookDelivery.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))


def test_a_delivery_is_signed_with_the_endpoints_secret(game, bob, endpoint, receiver):
    hand = record(game, FIRST_HAND, bob)
    assert outbox.deliver_due() == 1
    (call,) = receiver.calls
    header = call["headers"]["Bourre-Signature"]
    t, v1 = (part.split("=", 1)[1] for part in header.split(","))
    expected = hmac.new(
        endpoint.secret.encode(), f"{t}.".encode() + call["body"], hashlib.sha256
    ).hexdigest()
    assert hmac.compare_digest(v1, expected)
    body = json.loads(call["body"])
    assert body["type"] == "hand.recorded" and call["headers"]["Bourre-Event"] == "hand.recorded"
    assert body["data"]["hand"] == hand.pk and body["data"]["outcome"] == "win"
    assert body["created_at"].endswith("Z")
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("delivered", 1, 200)


def test_a_failed_delivery_is_retried_with_backoff(game, bob, endpoint, receiver):
    receiver.script = [500]
    record(game, FIRST_HAND, bob)
    outbox.deliver_due()
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("pending", 1, 500)
    wait = delivery.next_attempt_at - timezone.now()
    assert timedelta(seconds=25) < wait <= outbox.BACKOFF
    assert outbox.deliver_due() == 0  # not due yet
    _due_now()
    assert outbox.deliver_due() == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("delivered", 2)
    assert len(receiver.calls) == 2
    assert receiver.calls[0]["body"] == receiver.calls[1]["body"]  # the same event


def test_backoff_doubles_up_to_a_cap():
    assert [outbox.backoff(n).total_seconds() for n in (1, 2, 3)] == [30, 60, 120]
    assert outbox.backoff(30) == outbox.MAX_BACKOFF


def test_a_delivery_gives_up_after_the_last_attempt(game, bob, endpoint, receiver):
    receiver.script = [503] * outbox.MAX_ATTEMPTS
    record(game, FIRST_HAND, bob)
    for _ in range(outbox.MAX_ATTEMPTS):
        _due_now()
        outbox.deliver_due()
    assert WebhookDelivery.objects.get().status == "failed"


def test_events_of_an_endpoint_arrive_in_order_even_after_a_retry(game, bob, endpoint, receiver):
    receiver.script = [500]  # the first event fails once
    first = record(game, FIRST_HAND, bob)
    record(game, SECOND_HAND, bob)
    postings.void_hand(session_id=game.pk, hand_id=game.hands.last().pk, user=bob)
    postings.close_session(session_id=game.pk, user=bob)
    outbox.deliver_due()  # the first fails; the later ones must wait behind it
    assert len(receiver.calls) == 1
    _due_now()
    call_command("deliver_webhooks")
    assert receiver.events() == [
        "hand.recorded",  # the failed attempt
        "hand.recorded",
        "hand.recorded",
        "hand.voided",
        "session.closed",
    ]
    hands = [json.loads(c["body"])["data"].get("hand") for c in receiver.calls[1:3]]
    assert hands[0] == first.pk and hands[1] > first.pk


def test_an_endpoint_hears_only_its_events(club, game, bob, receiver):
    WebhookEndpoint.objects.create(club=club, url=receiver.url, events=["session.closed"])
    record(game, FIRST_HAND, bob)
    postings.close_session(session_id=game.pk, user=bob)
    call_command("deliver_webhooks")
    assert receiver.events() == ["session.closed"]


def test_the_outbox_rolls_back_with_the_change(game, bob, endpoint):
    with pytest.raises(postings.HandRejected):
        postings.record_hand(
            session_id=game.pk,
            entry={"up_card": "QH", "tricks": {"ann": 9}},
            idempotency_key="bad",
            expected_version=None,
            user=bob,
        )
    assert not WebhookEvent.objects.exists()
    record(game, FIRST_HAND, bob)
    assert WebhookEvent.objects.count() == 1


def test_no_endpoint_no_event(game, bob):
    record(game, FIRST_HAND, bob)
    assert not WebhookEvent.objects.exists()


def test_settlement_marks_and_tournament_events_are_emitted(club, played, bob, endpoint):
    postings.mark_transfer_paid(
        session_id=played.pk,
        payer_id=played.seats.all()[3].player_id,
        payee_id=played.seats.all()[0].player_id,
        amount=1,
        paid=True,
        user=bob,
    )
    outbox.emit(club, "tournament.finished", {"tournament": 7})
    assert list(WebhookEvent.objects.values_list("type", flat=True)) == [
        "settlement.marked",
        "tournament.finished",
    ]
    with pytest.raises(ValueError):
        outbox.emit(club, "hand.eaten", {})


# --- the API and the owner's page ----------------------------------------------------------


def test_the_owner_registers_an_https_endpoint(api_alice, api_bob, club, settings):
    settings.WEBHOOK_ALLOW_HTTP = False
    url = f"/api/v1/clubs/{club.pk}/webhooks/"
    body = {"url": "https://example.com/hook", "events": ["hand.recorded"]}
    assert api_bob.post(url, body, content_type="application/json").status_code == 403
    created = api_alice.post(url, body, content_type="application/json")
    assert created.status_code == 201
    assert created.json()["secret"].startswith("whsec_")
    plain = api_alice.post(url, {"url": "http://example.com/"}, content_type="application/json")
    assert plain.status_code == 400
    assert plain.json()["errors"][0]["code"] == "https_required"
    listed = api_alice.get(url).json()["results"]
    assert [e["url"] for e in listed] == ["https://example.com/hook"]
    assert "secret" not in listed[0]


def test_the_delivery_log_is_the_owners(api_alice, api_bob, api_mallory, game, bob, endpoint):
    record(game, FIRST_HAND, bob)
    outbox.deliver_due()
    url = f"/api/v1/webhooks/{endpoint.pk}/deliveries/"
    assert api_mallory.get(url).status_code == 404
    assert api_bob.get(url).status_code == 403
    (row,) = api_alice.get(url).json()["results"]
    assert (row["type"], row["status"], row["attempts"]) == ("hand.recorded", "delivered", 1)


def test_the_owner_sees_the_log_on_a_web_page(alice_client, bob_client, club, game, bob, endpoint):
    record(game, FIRST_HAND, bob)
    outbox.deliver_due()
    page = alice_client.get(f"/clubs/{club.pk}/webhooks/")
    assert page.status_code == 200
    html = page.content.decode()
    assert endpoint.url in html and "hand.recorded" in html
    # The status is the model's label (translated for other readers), not its code.
    assert '<span class="badge">Delivered</span>' in html
    assert bob_client.get(f"/clubs/{club.pk}/webhooks/").status_code == 403
