"""REST API v1, the club export: a club's whole history as JSON Lines, streamed.

Served as `application/octet-stream` (issue 36): openapi-python-client reads that type
as bytes (a `File`), where `application/jsonl` and `application/x-ndjson` are
"Unsupported content_type" and the operation is dropped from the generated client. The
body is JSON Lines all the same (the file name says `.jsonl`), and it stays streamed: the
server sends it in chunks, and a client reads it line by line through the generated
client's own httpx client (`client.get_httpx_client().stream(**clubs_export._get_kwargs(
club_id))`, as tests/api/test_generated_client.py does and the operation's description
says). The operation has this one type whatever `Accept` says (`ExportNegotiation`).

One JSON object per line, each with a `type`: `club`, then `player`s, `session`s (with
seats), `hand`s (record and verdict, in session and playing order) and `posting`s (with
legs, in the order they were written). Rows are read in keyset batches of `BATCH`, so
the server's memory stays flat however big the club is (bench/api.py measures it).
"""

import datetime
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request

from games.access import club_for
from games.api import serializers as s
from games.api.base import (
    READ_PROBLEMS,
    ApiContentNegotiation,
    ApiView,
    attachment_header,
    problems,
)
from games.api.ledger import posting_rows, posting_values
from games.http import AuthedRequest
from games.models import Club, GameSession, Hand, Seat
from ledger.models import Posting

BATCH = 500
MEDIA_TYPE = "application/octet-stream"


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
    """The export's one content type. The view streams the lines itself and errors render
    as problems, so what reaches this renderer is DRF's own answer to `OPTIONS` (the
    view's metadata): one JSON line, never a 500."""

    media_type = MEDIA_TYPE
    format = "jsonl"

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if data is None:
            return b""
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


class ExportNegotiation(ApiContentNegotiation):
    """One representation: `Accept: application/jsonl` (as documented before issue 36) or
    anything else gets the stream, rather than a 406."""

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderers = list(renderers)
        super().select_renderer(request, [*renderers, _AnyRenderer()], format_suffix)
        return renderers[0], renderers[0].media_type


class _AnyRenderer(BaseRenderer):
    media_type = "*/*"
    format = "jsonl"


class ClubExportApi(ApiView):
    renderer_classes = [JsonLinesRenderer]
    content_negotiation_class = ExportNegotiation

    @extend_schema(
        operation_id="clubs_export",
        summary="A club's whole history as JSON Lines (streamed)",
        description=(
            "JSON Lines (sent as `application/octet-stream`, which generated clients read "
            "as bytes): one JSON object per line, each with `type`: `club`, `player`, "
            "`session`, `hand` (with record and verdict), `posting` (with legs). Streamed: "
            "start reading at once; the size of the club does not matter. A generated "
            "client's `sync` reads the body whole; to read it line by line, send the "
            "operation's own request through the client's HTTP client, e.g. with "
            "openapi-python-client: `with client.get_httpx_client().stream("
            "**clubs_export._get_kwargs(club_id)) as r: for line in r.iter_lines(): …`."
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
