"""REST API v1, the club export: a club's whole history as JSON Lines, streamed.

One JSON object per line, each with a `type`: `club`, then `player`s, `session`s (with
seats), `hand`s (record and verdict, in session and playing order) and `posting`s (with
legs, in the order they were written). Rows are read in keyset batches of `BATCH`, so
the server's memory stays flat however big the club is (bench/api.py measures it).
"""

import datetime
import json
from collections.abc import Iterator
from typing import Any

from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.renderers import BaseRenderer

from games.access import club_for
from games.api import serializers as s
from games.api.base import API_RENDERERS, READ_PROBLEMS, ApiView, attachment_header, problems
from games.api.ledger import posting_rows, posting_values
from games.http import AuthedRequest
from games.models import Club, GameSession, Hand, Seat
from ledger.models import Posting

BATCH = 500
MEDIA_TYPE = "application/jsonl"


def _line(kind: str, data: dict) -> bytes:
    return (
        json.dumps({"type": kind, **data}, ensure_ascii=False, separators=(",", ":")).encode()
        + b"\n"
    )


def _batches(queryset: QuerySet[Any, Any]) -> Iterator[list[Any]]:
    """Rows of `queryset` by ascending id, BATCH at a time (keyset: no OFFSET)."""
    last, batch = 0, BATCH
    while True:
        rows = list(queryset.filter(pk__gt=last).order_by("pk")[:batch])
        if not rows:
            return
        yield rows
        last = rows[-1]["id"] if isinstance(rows[-1], dict) else rows[-1].pk


def export_lines(club: Club) -> Iterator[bytes]:
    # The generator runs after the view returned: timestamps in UTC here too.
    with timezone.override(datetime.UTC):
        yield _line("club", {"id": club.pk, "name": club.name, "currency": club.currency.as_dict()})
        for players in _batches(club.players.select_related("user")):
            for p in s.PlayerOutputSerializer(players, many=True).data:
                yield _line("player", p)
        sessions = GameSession.objects.filter(club=club)
        for batch in _batches(sessions):
            seats: dict[int, list] = {}
            for seat in Seat.objects.filter(session__in=batch).order_by("session_id", "position"):
                seats.setdefault(seat.session_id, []).append(
                    {"player": seat.player_id, "position": seat.position, "active": seat.active}
                )
            for session in batch:
                data = dict(s.SessionOutputSerializer(session).data)
                data |= {"rules": session.rules, "leftover_policy": session.leftover_policy}
                yield _line("session", data | {"seats": seats.get(session.pk, [])})
        hands = Hand.objects.filter(session__club=club).defer("before")
        for batch in _batches(hands):
            for h in s.HandDetailOutputSerializer(batch, many=True).data:
                yield _line("hand", h)
        for batch in _batches(posting_values(Posting.objects.filter(club=club))):
            for p in posting_rows(batch):
                yield _line("posting", p)


class JsonLinesRenderer(BaseRenderer):
    """Lets `Accept: application/jsonl` through content negotiation (the view streams)."""

    media_type = MEDIA_TYPE
    format = "jsonl"


class ClubExportApi(ApiView):
    renderer_classes = [*API_RENDERERS, JsonLinesRenderer]

    @extend_schema(
        operation_id="clubs_export",
        summary="A club's whole history as JSON Lines (streamed)",
        description=(
            "One JSON object per line, each with `type`: `club`, `player`, `session`, "
            "`hand` (with record and verdict), `posting` (with legs). Streamed: start "
            "reading at once; the size of the club does not matter."
        ),
        responses={
            (200, MEDIA_TYPE): OpenApiResponse(
                response={"type": "string", "format": "binary"}, description="JSON Lines."
            ),
            **problems(*READ_PROBLEMS),
        },
        parameters=[attachment_header("club-<id>.jsonl")],
        tags=["clubs"],
    )
    def get(self, request: AuthedRequest, club_id: int) -> StreamingHttpResponse:
        club, _ = club_for(request.user, club_id)
        response = StreamingHttpResponse(export_lines(club), content_type=MEDIA_TYPE)
        response["Content-Disposition"] = f'attachment; filename="club-{club.pk}.jsonl"'
        return response
