"""Webhooks: the outbox (events written in the transaction of the change) and its
delivery (signed POSTs with retries), run by `manage.py deliver_webhooks`.

`emit` asks for the club's active endpoints. (A club flag that saved that query was
removed in issue #31: about 1 % of the request, within the machine's noise.)

Events: `hand.recorded`, `hand.voided`, `session.closed`, `settlement.marked`,
`tournament.finished`, `payment.reported` and `payment.confirmed` (the club's tab, issue
#34). The ledger tells `on_ledger_change` of each change inside its transaction, and
`on_tab_change` of each change of the tab (both registered in games.apps); other code calls `emit(club, type, payload)`
inside its own transaction (the tournament service, when a tournament finishes).

Delivery (`deliver_due`):
- one POST per event and endpoint, body `{"id", "type", "created_at", "club", "data"}`,
  headers `Bourre-Event`, `Bourre-Delivery` and `Bourre-Signature: t=<unix>,v1=<hex>`
  where `<hex>` is HMAC-SHA256 of `"<t>.<body>"` keyed with the endpoint's secret;
- the request goes through games.api.egress: the URL and every address its host
  resolves to are checked again at each attempt (no loopback, private, link-local,
  metadata… address unless settings.WEBHOOK_ALLOW_PRIVATE), and the socket connects to
  the address that was checked;
- a 2xx answer delivers it; anything else (a 3xx too: redirects are never followed; or
  no answer within `TIMEOUT`) is retried after `BACKOFF * 2**(attempts-1)` (at most
  `MAX_BACKOFF`), `MAX_ATTEMPTS` times in all, then the delivery is `failed`;
- `last_error` keeps the failure's category (WebhookDelivery.Error: timeout, refused,
  TLS, address not allowed, redirect, HTTP status, DNS, connection), never the network's
  own words, which would tell a club owner what answers inside the server's network;
- per endpoint, events go out in the order they happened: a later one waits while an
  earlier one is pending.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.db.models import Min
from django.utils import timezone

from games.api import egress
from games.models import Club, GameSession, Hand, WebhookDelivery, WebhookEndpoint, WebhookEvent

EVENT_TYPES = (
    "hand.recorded",
    "hand.voided",
    "session.closed",
    "settlement.marked",
    "tournament.finished",
    "payment.reported",
    "payment.confirmed",
)
SIGNATURE_HEADER = "Bourre-Signature"
TIMEOUT = 5.0  # seconds per attempt
MAX_ATTEMPTS = 8
BACKOFF = timedelta(seconds=30)
MAX_BACKOFF = timedelta(hours=6)


def emit(club: Club | int, event_type: str, payload: dict[str, Any]) -> WebhookEvent | None:
    """Put an event in the outbox, in the caller's transaction; None when no endpoint of
    the club wants it (nothing is written then)."""
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown webhook event {event_type!r}")
    club_id = club if isinstance(club, int) else club.pk
    endpoints = [
        e
        for e in WebhookEndpoint.objects.filter(club_id=club_id, active=True)
        if not e.events or event_type in e.events
    ]
    if not endpoints:
        return None
    event = WebhookEvent.objects.create(
        club_id=club_id,
        type=event_type,
        payload=json.loads(json.dumps(payload, cls=DjangoJSONEncoder)),
    )
    WebhookDelivery.objects.bulk_create(
        [
            WebhookDelivery(endpoint=e, event=event, next_attempt_at=event.created_at)
            for e in endpoints
        ]
    )
    return event


def _hand_payload(hand: Hand) -> dict[str, Any]:
    result = hand.result
    return {
        "hand": hand.pk,
        "session": hand.session_id,
        "number": hand.number,
        "status": hand.status,
        "outcome": result.get("outcome"),
        "winner": result.get("winner"),
        "pot": result.get("pot"),
    }


def on_ledger_change(session: GameSession, kind: str, data: dict[str, Any]) -> None:
    """ledger.postings.on_change listener: the ledger's changes as webhook events."""
    if kind == "hand_recorded":
        emit(session.club_id, "hand.recorded", _hand_payload(data["hand"]))
    elif kind == "hand_voided":
        emit(
            session.club_id,
            "hand.voided",
            {
                "hand": data["hand"],
                "session": session.pk,
                "number": data.get("number"),
                "reason": data.get("reason", ""),
            },
        )
    elif kind == "closed":
        emit(
            session.club_id,
            "session.closed",
            {"session": session.pk, "leftover": data.get("leftover"), "policy": data.get("policy")},
        )
    elif kind == "settlement_marked":
        emit(session.club_id, "settlement.marked", {"session": session.pk, **data})


def on_tab_change(club_id: int, kind: str, data: dict[str, Any]) -> None:
    """ledger.postings.on_tab_change listener: a tab payment reported or confirmed."""
    if kind in ("payment_reported", "payment_confirmed"):
        emit(club_id, "payment." + kind.removeprefix("payment_"), data)


# --- delivery ----------------------------------------------------------------------------


def sign(secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def body_of(event: WebhookEvent) -> bytes:
    return json.dumps(
        {
            "id": event.pk,
            "type": event.type,
            "created_at": event.created_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
            "club": event.club_id,
            "data": event.payload,
        },
        separators=(",", ":"),
        sort_keys=True,
    ).encode()


Sender = Callable[[str, bytes, dict[str, str]], int]


def http_post(url: str, body: bytes, headers: dict[str, str]) -> int:
    """POST through the guard (games.api.egress) and return the status code; raises
    egress.DeliveryFailed when there is no answer, or the address is not allowed."""
    return egress.post(url, body, headers, timeout=TIMEOUT)


def _failure(code: int) -> str:
    """The error category of an answer: none for 2xx; a redirect is never followed (a 302
    would turn the POST into a GET without its body), so it is a failure of its own."""
    if 200 <= code < 300:
        return WebhookDelivery.Error.NONE
    if 300 <= code < 400:
        return WebhookDelivery.Error.REDIRECT
    return WebhookDelivery.Error.STATUS


def _due(now: datetime, limit: int) -> list[WebhookDelivery]:
    """The first pending delivery of each endpoint, if it is due (order per endpoint)."""
    pending = WebhookDelivery.objects.filter(status=WebhookDelivery.Status.PENDING)
    firsts = pending.values("endpoint_id").order_by().annotate(first=Min("id")).values("first")
    due = (
        WebhookDelivery.objects.filter(pk__in=firsts, next_attempt_at__lte=now)
        .select_related("endpoint", "event")
        .order_by("id")
    )
    if connection.features.has_select_for_update_skip_locked:
        # Two workers never send the same delivery.
        due = due.select_for_update(skip_locked=True, of=("self",))
    return list(due[:limit])


def deliver_due(send: Sender = http_post, limit: int = 100) -> int:
    """Attempt due deliveries, at most `limit`; returns how many were attempted.

    Per endpoint: its first pending delivery, then (while they succeed and are due) the
    ones after it, in order; a failure leaves the rest of that endpoint for later."""
    attempted = 0
    now = timezone.now()
    with transaction.atomic():
        for first in _due(now, limit):
            if attempted >= limit:
                break
            attempted += 1
            if not _attempt(first, send):
                continue
            following = (
                WebhookDelivery.objects.filter(
                    endpoint_id=first.endpoint_id,
                    status=WebhookDelivery.Status.PENDING,
                    pk__gt=first.pk,
                    next_attempt_at__lte=now,
                )
                .select_related("endpoint", "event")
                .order_by("id")
            )
            for delivery in following[: limit - attempted]:
                attempted += 1
                if not _attempt(delivery, send):
                    break
    return attempted


def _attempt(delivery: WebhookDelivery, send: Sender) -> bool:
    event, endpoint = delivery.event, delivery.endpoint
    body = body_of(event)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Bourre-Webhooks/1",
        "Bourre-Event": event.type,
        "Bourre-Delivery": str(delivery.pk),
        SIGNATURE_HEADER: sign(endpoint.secret, int(time.time()), body),
    }
    delivery.attempts += 1
    code: int | None
    try:
        code = send(endpoint.url, body, headers)
        error = _failure(code)
    except (egress.DeliveryFailed, OSError) as exc:  # no answer: refused, timed out, DNS…
        code, error = None, egress.category(exc)  # a category, never the socket's text
    now = timezone.now()
    delivery.last_status_code = code
    delivery.last_error = error
    if not error:
        delivery.status = WebhookDelivery.Status.DELIVERED
        delivery.delivered_at = now
    elif delivery.attempts >= MAX_ATTEMPTS:
        delivery.status = WebhookDelivery.Status.FAILED
    else:
        delivery.next_attempt_at = now + backoff(delivery.attempts)
    delivery.save(
        update_fields=[
            "attempts",
            "last_status_code",
            "last_error",
            "status",
            "delivered_at",
            "next_attempt_at",
        ]
    )
    return not error


def backoff(attempts: int) -> timedelta:
    """The wait after the `attempts`-th failed attempt: 30 s, 1 min, 2 min… ≤ 6 h."""
    return min(BACKOFF * 2 ** (attempts - 1), MAX_BACKOFF)
