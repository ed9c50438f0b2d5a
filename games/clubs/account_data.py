"""Everything the app keeps about one account, as one JSON document (issue #33 item 6).

``export_chunks(user)`` yields the document in pieces, so the page ("Download my data")
and the API (``GET /api/v1/me/export/``) can stream it: hands and postings are read in
keyset batches of ``BATCH`` rows, so memory stays flat however long a player's history.

The document, top-level keys in this order:

- ``format`` ("bourre-account-export"), ``version`` (1), ``exported_at``;
- ``profile``: username, e-mail, names, when joined and last signed in, language;
- ``payment_handles``: the account's saved payment handles (Venmo, PayPal.Me, Cash App,
  Revolut, free text such as an IBAN; issue #34), or null;
- ``memberships``: every club the user is in, with the role and since when;
- ``clubs_owned``: the clubs the user owns, with their webhook endpoints (address, events,
  active; never the signing secret);
- ``api_tokens``: names, status and dates (never the key, its hash or its first
  characters);
- ``players``: the roster entries linked to the user, in any club, each with the
  payment handles the club saved for it (``payment_handles``, null when none; not used
  while the entry is linked to the account, but kept);
- ``sessions``: the sessions those players had a seat in (with the seat);
- ``hands``: the hands those players were dealt into, record and verdict, as the API
  shows them (``HandDetailOutputSerializer``);
- ``postings``: every posting with a leg on those players' accounts, with all its legs,
  as the API's ledger shows them (``games.api.ledger.posting_rows``).

Timestamps are UTC, as in the API. Other people's names appear where the books put them
next to the user's (a hand's players, a posting's other legs): that is the user's history
as their club sees it, and only clubs whose roster links a player to them are read.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable, Iterator
from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils import timezone

from games.api import serializers as s
from games.api.ledger import posting_rows, posting_values
from games.models import (
    ApiToken,
    Club,
    GameSession,
    Hand,
    LanguagePreference,
    Membership,
    PaymentHandles,
    Player,
    Role,
    Seat,
    WebhookEndpoint,
)
from ledger.models import Posting

__all__ = ["FORMAT", "export_chunks", "filename"]

FORMAT = "bourre-account-export"
VERSION = 1
BATCH = 500


def filename(user: User) -> str:
    return f"bourre-account-{user.pk}.json"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _when(value: datetime.datetime | None) -> str | None:
    return value.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z") if value else None


def _array(items: Iterable[Any]) -> Iterator[str]:
    yield "["
    first = True
    for item in items:
        yield ("" if first else ",") + _json(item)
        first = False
    yield "]"


def _batches(queryset: QuerySet[Any, Any]) -> Iterator[list[Any]]:
    """Rows by ascending id, BATCH at a time (keyset: no OFFSET)."""
    last = 0
    while True:
        rows = list(queryset.filter(pk__gt=last).order_by("pk")[:BATCH])
        if not rows:
            return
        yield rows
        last = rows[-1]["id"] if isinstance(rows[-1], dict) else rows[-1].pk


def _profile(user: User) -> dict[str, Any]:
    language = LanguagePreference.objects.filter(user=user).values_list("language", flat=True)
    return {
        "id": user.pk,
        "username": user.get_username(),
        "email": user.email,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "date_joined": _when(user.date_joined),
        "last_login": _when(user.last_login),
        "language": language.first(),
    }


def _handles(row: PaymentHandles | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {
        "venmo": row.venmo,
        "paypal": row.paypal,
        "cashtag": row.cashtag,
        "revolut": row.revolut,
        "other": row.other,
        "updated_at": _when(row.updated_at),
    }


def _memberships(user: User) -> Iterator[dict[str, Any]]:
    for m in Membership.objects.filter(user=user).select_related("club").order_by("club_id"):
        yield {
            "club": {"id": m.club_id, "name": m.club.name},
            "role": m.role,
            "since": _when(m.created_at),
        }


def _clubs_owned(user: User) -> Iterator[dict[str, Any]]:
    clubs = Club.objects.filter(memberships__user=user, memberships__role=Role.OWNER)
    for club in clubs.order_by("id"):
        hooks = WebhookEndpoint.objects.filter(club=club).order_by("id")
        yield {
            "id": club.pk,
            "name": club.name,
            "currency": club.currency.as_dict(),
            "time_zone": club.time_zone,
            "created_at": _when(club.created_at),
            "members": club.memberships.count(),
            "webhooks": [
                {
                    "id": h.pk,
                    "url": h.url,
                    "events": h.events,
                    "active": h.active,
                    "created_at": _when(h.created_at),
                }
                for h in hooks
            ],
        }


def _token_status(token: ApiToken) -> str:
    if token.revoked_at is not None:
        return "revoked"
    if token.expires_at is not None and token.expires_at <= timezone.now():
        return "expired"
    return "active" if token.is_active else "password_changed"


def _tokens(user: User) -> Iterator[dict[str, Any]]:
    for t in ApiToken.objects.filter(user=user).order_by("id"):
        yield {
            "id": t.pk,
            "name": t.name,
            "status": _token_status(t),
            "created_at": _when(t.created_at),
            "last_used_at": _when(t.last_used_at),
            "expires_at": _when(t.expires_at),
            "revoked_at": _when(t.revoked_at),
        }


def _players(players: list[Player]) -> Iterator[dict[str, Any]]:
    saved = {h.player_id: h for h in PaymentHandles.objects.filter(player__in=players)}
    for p in players:
        yield {
            "id": p.pk,
            "club": {"id": p.club_id, "name": p.club.name},
            "name": p.name,
            "created_at": _when(p.created_at),
            "archived": p.archived_at is not None,
            "payment_handles": _handles(saved.get(p.pk)),
        }


def _sessions(player_ids: list[int]) -> Iterator[dict[str, Any]]:
    seats = Seat.objects.filter(player_id__in=player_ids).select_related("session")
    for batch in _batches(seats):
        for seat in batch:
            data = dict(s.SessionOutputSerializer(seat.session).data)
            yield data | {
                "seat": {"player": seat.player_id, "position": seat.position, "active": seat.active}
            }


def _dealt_in(hand: Hand, player_ids: set[int]) -> bool:
    """Whether one of the players was dealt into the hand (``before["seats"]``: name →
    player id); a hand without that record is counted in (its session seated them)."""
    seats = (hand.before or {}).get("seats") if isinstance(hand.before, dict) else None
    return not seats or bool(player_ids & set(seats.values()))


def _hands(player_ids: list[int]) -> Iterator[dict[str, Any]]:
    ids = set(player_ids)
    session_ids = GameSession.objects.filter(seats__player_id__in=player_ids).values("pk")
    hands = Hand.objects.filter(session_id__in=session_ids, number__isnull=False)
    for batch in _batches(hands):
        mine = [h for h in batch if _dealt_in(h, ids)]
        yield from s.HandDetailOutputSerializer(mine, many=True).data


def _postings(player_ids: list[int]) -> Iterator[dict[str, Any]]:
    postings = Posting.objects.filter(legs__account__player_id__in=player_ids).distinct()
    for batch in _batches(posting_values(postings)):
        yield from posting_rows(batch)


def export_chunks(user: User) -> Iterator[bytes]:
    """The account's data as one JSON object, in pieces (UTF-8)."""
    # A generator runs after the view returned: the API's UTC rendering, here too.
    with timezone.override(datetime.UTC):
        # Only clubs the user still belongs to: a member who was removed keeps the roster
        # link (the club's history names them), not a view of what the club does later.
        players = list(
            Player.objects.filter(user=user, club__memberships__user=user)
            .select_related("club")
            .order_by("id")
            .distinct()
        )
        player_ids = [p.pk for p in players]
        head = {"format": FORMAT, "version": VERSION, "exported_at": _when(timezone.now())}
        parts: list[tuple[str, Iterable[Any]]] = [
            ("memberships", _memberships(user)),
            ("clubs_owned", _clubs_owned(user)),
            ("api_tokens", _tokens(user)),
            ("players", _players(players)),
            ("sessions", _sessions(player_ids)),
            ("hands", _hands(player_ids)),
            ("postings", _postings(player_ids)),
        ]
        own = _handles(PaymentHandles.objects.filter(user=user).first())
        yield (
            _json(head)[:-1]
            + ',"profile":'
            + _json(_profile(user))
            + ',"payment_handles":'
            + _json(own)
        ).encode()
        for key, items in parts:
            yield f",{_json(key)}:".encode()
            for piece in _array(items):
                yield piece.encode()
        yield b"}\n"
