"""REST API v1, ledger part: postings with their legs, balances, settlement, statistics.

Read-only: money is only ever written by ledger.postings. Conventions (auth, access,
problems, cursor pages) come from games.api. One content type per operation (issue 36):
the postings list answers JSON pages, `postings/csv/` streams the whole filtered ledger
as CSV, one row per leg from plain column values (``ledger.exports``), for exports of any
size; the settlement has `settlement/` (JSON) and `settlement/csv/`. Statistics come in
cursor pages like every other list.
"""

import io
import json
from collections import defaultdict
from collections.abc import Mapping
from functools import partial
from typing import Any

from django.db.models import F, QuerySet, Sum
from django.db.models.functions import Coalesce
from django.http import StreamingHttpResponse
from django.utils import translation
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.renderers import BaseRenderer
from rest_framework.response import Response

from games import timezones
from games.access import club_for, session_for
from games.api.base import (
    CURSOR_PARAMETERS,
    ID_SCHEMA,
    READ_PROBLEMS,
    ApiView,
    CursorPage,
    attachment_header,
    page_of,
    paginate,
    problems,
    valid,
)
from games.api.serializers import MAX_ID, CurrencySerializer, PlayerRefSerializer
from games.http import AuthedRequest
from games.models import Club, GameSession, Player
from games.money import PLAIN
from games.sessions.selectors import KITTY, earlier_marks, settlement_rows
from ledger import exports, postings
from ledger.exports import CLUB_LEDGER_COLUMNS, club_ledger_rows, stream_csv
from ledger.models import Account, Leg, Posting
from ledger.stats import club_player_stats

# --- serializers -------------------------------------------------------------------------


class LegOutputSerializer(serializers.Serializer):
    account = serializers.IntegerField(source="account_id")
    kind = serializers.ChoiceField(
        choices=Account.Kind.choices,
        source="account.kind",
        help_text=gettext_lazy("The account's kind."),
    )
    player = PlayerRefSerializer(source="account.player", allow_null=True)
    session = serializers.IntegerField(source="account.session_id", allow_null=True)
    amount = serializers.IntegerField(
        help_text=gettext_lazy("Minor units; + into the account, − out of it.")
    )


class PostingOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Posting.Kind.choices)
    memo = serializers.CharField(allow_blank=True)
    session = serializers.IntegerField(source="session_id", allow_null=True)
    hand = serializers.IntegerField(source="hand_id", allow_null=True)
    hand_number = serializers.IntegerField(allow_null=True)
    reverses = serializers.IntegerField(source="reverses_id", allow_null=True)
    created_by = serializers.CharField(source="created_by_name", allow_null=True)
    created_at = serializers.DateTimeField()
    legs = LegOutputSerializer(many=True, help_text=gettext_lazy("They sum to zero."))


class PostingFilterSerializer(serializers.Serializer):
    session = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    player = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    kind = serializers.ChoiceField(choices=Posting.Kind.choices, required=False)


class SessionHeadSerializer(serializers.Serializer):
    session = serializers.IntegerField()
    currency = CurrencySerializer()
    status = serializers.CharField()
    version = serializers.IntegerField()


class NetSerializer(serializers.Serializer):
    player = PlayerRefSerializer()
    net = serializers.IntegerField(
        help_text=gettext_lazy("Won (+) or lost (−) at the table; minor units.")
    )


class SessionBalancesOutputSerializer(SessionHeadSerializer):
    """players' nets + pot + kitty == 0."""

    players = NetSerializer(
        many=True, help_text=gettext_lazy("Every seated player; buy-ins excluded.")
    )
    pot = serializers.IntegerField(help_text=gettext_lazy("What the pot holds now."))
    kitty = serializers.IntegerField(
        help_text=gettext_lazy(
            "What the club's carried pot gained from this session (leftover sent to "
            "the club minus the carried pot pulled in)."
        )
    )


class PartySerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=["player", "kitty"],
        help_text=gettext_lazy(
            "A player, or the money held by the pot (open session) or the club's "
            "kitty (closed session)."
        ),
    )
    id = serializers.IntegerField(allow_null=True, help_text=gettext_lazy("The player's id."))
    name = serializers.CharField()


class TransferOutputSerializer(serializers.Serializer):
    payer = PartySerializer()
    payee = PartySerializer()
    amount = serializers.IntegerField(help_text=gettext_lazy("Minor units, > 0."))
    explanation = serializers.CharField()
    paid = serializers.BooleanField(help_text=gettext_lazy("Marked as paid (for this amount)."))
    paid_at = serializers.DateTimeField(
        allow_null=True, help_text=gettext_lazy("When it was marked paid.")
    )


class EarlierMarkOutputSerializer(serializers.Serializer):
    payer = PartySerializer()
    payee = PartySerializer()
    amount = serializers.IntegerField(help_text=gettext_lazy("The amount marked; minor units."))
    paid_at = serializers.DateTimeField(help_text=gettext_lazy("When it was marked paid."))


class SettlementOutputSerializer(SessionHeadSerializer):
    transfers = TransferOutputSerializer(many=True)
    earlier_marks = EarlierMarkOutputSerializer(
        many=True,
        help_text=gettext_lazy(
            "Paid marks set before the books changed: the transfers no longer count them "
            "(show them, or somebody may pay twice). Clear one through the marks endpoint "
            "with `paid: false`."
        ),
    )


class PlayerStatsOutputSerializer(serializers.Serializer):
    player = PlayerRefSerializer()
    sessions = serializers.IntegerField(help_text=gettext_lazy("Sessions seated in."))
    hands_played = serializers.IntegerField(help_text=gettext_lazy("Hands dealt in."))
    hands_passed = serializers.IntegerField()
    pots_won = serializers.IntegerField(
        help_text=gettext_lazy("Pots taken alone (wins, uncontested).")
    )
    bourres = serializers.IntegerField()
    reneges = serializers.IntegerField()
    net = serializers.IntegerField(
        help_text=gettext_lazy(
            "Won − lost at the table, all sessions; minor units of the club's currency."
        )
    )
    biggest_pot = serializers.IntegerField(help_text=gettext_lazy("Minor units."))


class PlayerBalanceSerializer(serializers.Serializer):
    player = PlayerRefSerializer()
    balance = serializers.IntegerField(help_text=gettext_lazy("Minor units."))


class ClubBalancesOutputSerializer(serializers.Serializer):
    club = serializers.IntegerField()
    currency = CurrencySerializer()
    players = PlayerBalanceSerializer(
        many=True, help_text=gettext_lazy("All-time, buy-ins included.")
    )
    pots = serializers.IntegerField(help_text=gettext_lazy("In the pots of sessions."))
    carry = serializers.IntegerField(help_text=gettext_lazy("The club's carried-over pot."))
    bank = serializers.IntegerField(
        help_text=gettext_lazy("The other side of buy-ins and cash-outs.")
    )


class SettlementCSVRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"
    # The settlement page's CSV columns, but the amount in minor units (named so); the
    # times in ISO 8601 with the club's offset, as every CSV writes them (settlement_data).
    COLUMNS = ("payer", "payee", "amount_minor", "currency", "paid", "paid_at", "explanation")

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        out = io.StringIO()
        writer = exports.writer(out, lineterminator="\r\n")
        writer.writerow(self.COLUMNS)
        for t in data.get("transfers", []):
            writer.writerow(
                [
                    t["payer"]["name"],
                    t["payee"]["name"],
                    t["amount"],
                    data["currency"]["code"],
                    "yes" if t["paid"] else "no",
                    t["paid_at"] or "",
                    t["explanation"],
                ]
            )
        return out.getvalue().encode("utf-8", errors="backslashreplace")


# --- views -------------------------------------------------------------------------------


class LedgerCSVRenderer(BaseRenderer):
    """The postings CSV operation's one content type; the view streams the rows itself
    (``ledger.exports``), so only errors reach this renderer (rendered as problems)."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        return json.dumps(data).encode()


POSTING_FILTERS = [
    OpenApiParameter("session", ID_SCHEMA, description="Only this session's postings."),
    OpenApiParameter("player", ID_SCHEMA, description="Only postings with a leg of this player."),
    OpenApiParameter("kind", str, enum=Posting.Kind.values),
]


def _filtered_postings(request: AuthedRequest, club: Club) -> QuerySet[Posting]:
    filters = valid(PostingFilterSerializer, request.query_params.dict())
    qs = Posting.objects.filter(club=club)
    if "session" in filters:
        # Another club's session is 404, like any other object of another club.
        if not GameSession.objects.filter(pk=filters["session"], club=club).exists():
            raise exceptions.NotFound()
        qs = qs.filter(session_id=filters["session"])
    if "player" in filters:
        if not Player.objects.filter(pk=filters["player"], club=club).exists():
            raise exceptions.NotFound()
        legs = Leg.objects.filter(account__player_id=filters["player"])
        qs = qs.filter(pk__in=legs.values("posting_id"))
    if "kind" in filters:
        qs = qs.filter(kind=filters["kind"])
    return qs


class PostingListApi(ApiView):
    cursor_ordering = "id"  # the order they were written: an export replays history

    @extend_schema(
        operation_id="postings_list",
        summary="The club's ledger: postings with their legs, oldest first",
        description="In cursor pages; the whole filtered ledger as one CSV is `postings/csv/`.",
        parameters=[*POSTING_FILTERS, *CURSOR_PARAMETERS],
        responses={200: page_of(PostingOutputSerializer), **problems(400, *READ_PROBLEMS)},
        tags=["ledger"],
    )
    def get(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id)
        qs = _filtered_postings(request, club)
        # Two queries per page whatever its size: the postings, then all their legs. Rows
        # come straight from .values(): an export page of 500 postings would otherwise
        # build ~9,000 model instances and run a nested serializer over each (3x slower).
        # PostingOutputSerializer stays the documented contract; tests hold the rows to it.
        rows = posting_values(qs)
        paginator = CursorPage()
        page = paginator.paginate_queryset(rows, request, view=self)
        assert page is not None  # CursorPage always has a page size
        return paginator.get_paginated_response(posting_rows(page))


class PostingCsvApi(ApiView):
    # CSV only (issue 36): a generated client reads it as text, where one operation with
    # JSON and CSV would be decoded as JSON.
    renderer_classes = [LedgerCSVRenderer]

    @extend_schema(
        operation_id="postings_csv",
        summary="The club's ledger as one CSV file, streamed, oldest first",
        description="The whole filtered ledger (same filters as the postings list), one "
        "row per leg: " + ", ".join(CLUB_LEDGER_COLUMNS) + " (RFC 4180, UTF-8).",
        parameters=[*POSTING_FILTERS, attachment_header("ledger-club-<id>.csv")],
        responses={
            # A string, not format "binary": generators read text/* bodies as text.
            (200, "text/csv"): OpenApiResponse(
                response={"type": "string"}, description="One row per leg."
            ),
            **problems(400, 401, 403, 404),
        },
        tags=["ledger"],
    )
    def get(self, request: AuthedRequest, club_id: int) -> StreamingHttpResponse:
        club, _ = club_for(request.user, club_id)
        return _ledger_export(club, _filtered_postings(request, club))


def _ledger_export(club: Club, postings_qs: QuerySet[Posting]) -> StreamingHttpResponse:
    """The filtered ledger as one streamed CSV, one row per leg (``ledger.exports``)."""
    response = StreamingHttpResponse(
        stream_csv(
            CLUB_LEDGER_COLUMNS,
            club_ledger_rows(
                club.pk, postings_qs, club.currency, partial(timezones.iso, name=club.time_zone)
            ),
        ),
        content_type="text/csv; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="ledger-club-{club.pk}.csv"'
    return response


def posting_values(postings_qs: QuerySet[Posting]) -> QuerySet[Posting, Any]:
    """The posting columns ``posting_rows`` reads, as plain values (the ledger pages and
    the club export share them)."""
    return postings_qs.values(
        "id",
        "kind",
        "memo",
        "session_id",
        "hand_id",
        "reverses_id",
        "created_at",
        hand_number=F("hand__number"),
        created_by_name=F("created_by__username"),
    )


def posting_rows(postings_page: list[dict]) -> list[dict]:
    """Postings (dicts from .values()) with their legs, shaped as PostingOutputSerializer."""
    legs_of: dict[int, list[dict]] = defaultdict(list)
    legs = (
        Leg.objects.filter(posting_id__in=[p["id"] for p in postings_page])
        .order_by("posting_id", "id")
        .values_list(
            "posting_id",
            "account_id",
            "account__kind",
            "account__player_id",
            "account__player__name",
            "account__session_id",
            "amount",
        )
    )
    for posting_id, account_id, kind, player_id, name, session_id, amount in legs:
        legs_of[posting_id].append(
            {
                "account": account_id,
                "kind": kind,
                "player": {"id": player_id, "name": name} if player_id else None,
                "session": session_id,
                "amount": amount,
            }
        )
    when = serializers.DateTimeField()  # the same rendering as every other endpoint
    return [
        {
            "id": p["id"],
            "kind": p["kind"],
            "memo": p["memo"],
            "session": p["session_id"],
            "hand": p["hand_id"],
            "hand_number": p["hand_number"],
            "reverses": p["reverses_id"],
            "created_by": p["created_by_name"],
            "created_at": when.to_representation(p["created_at"]),
            "legs": legs_of[p["id"]],
        }
        for p in postings_page
    ]


class SessionBalancesApi(ApiView):
    @extend_schema(
        operation_id="sessions_balances",
        summary="A session's balances: each player's net, the pot and the club's kitty",
        responses={200: SessionBalancesOutputSerializer, **problems(*READ_PROBLEMS)},
        tags=["ledger"],
    )
    def get(self, request: AuthedRequest, session_id: int) -> Response:
        session, _ = session_for(request.user, session_id)
        nets = session.net_by_player()
        seats = session.seats.order_by("position", "id").values_list("player_id", "player__name")
        data = {
            **_session_head(session),
            "players": [
                {"player": {"id": pid, "name": name}, "net": nets.get(pid, 0)}
                for pid, name in seats
            ],
            "pot": postings.pot_balance(session),
            "kitty": postings.kitty_balance(session),
        }
        return Response(SessionBalancesOutputSerializer(data).data)


class SessionSettlementApi(ApiView):
    @extend_schema(
        operation_id="sessions_settlement",
        summary="Who pays whom: the fewest transfers, each explained",
        description=(
            "Computed from the ledger at the time of the request (for an open session: as "
            "if the game stopped now). The same as a CSV file: `settlement/csv/`."
        ),
        responses={200: SettlementOutputSerializer, **problems(*READ_PROBLEMS)},
        tags=["ledger"],
    )
    def get(self, request: AuthedRequest, session_id: int) -> Response:
        session, _ = session_for(request.user, session_id)
        return Response(settlement_data(session), headers={"ETag": f'"{session.version}"'})


def settlement_data(session: GameSession, *, csv: bool = False) -> dict:
    # The settlement page's own computation, so the API and the page always agree; the
    # explanations locale-free (games.money.PLAIN), whatever language the client asked.
    # JSON times are UTC like every API timestamp; the CSV writes them as the settlement
    # page's CSV and the ledger export do: ISO 8601 with the club's offset.
    with translation.override(PLAIN):
        rows, names = settlement_rows(session)
    data = {
        **_session_head(session),
        "transfers": [
            {
                "payer": _party(row["transfer"].payer, row["payer"]),
                "payee": _party(row["transfer"].payee, row["payee"]),
                "amount": row["amount"],
                "explanation": row["explanation"],
                "paid": row["paid"],
                "paid_at": row["mark"].paid_at if row["paid"] else None,
            }
            for row in rows
        ],
        "earlier_marks": [
            {
                "payer": _party(e["mark"].payer_id, e["payer"]),
                "payee": _party(e["mark"].payee_id, e["payee"]),
                "amount": e["mark"].amount,
                "paid_at": e["mark"].paid_at,
            }
            for e in earlier_marks(session, rows, names)
        ],
    }
    out = SettlementOutputSerializer(data).data
    if csv:
        zone = session.club.time_zone
        for transfer, row in zip(out["transfers"], rows, strict=True):
            transfer["paid_at"] = timezones.iso(row["mark"].paid_at, zone) if row["paid"] else None
    return out


def _csv_disposition(session: GameSession) -> str:
    return f'attachment; filename="settlement-session-{session.pk}.csv"'


class SessionSettlementCsvApi(ApiView):
    # CSV only: a generated client downloads it as a file (its own operation, one media
    # type), where the JSON endpoint's `?format=csv` would be parsed as JSON.
    renderer_classes = [SettlementCSVRenderer]

    @extend_schema(
        operation_id="sessions_settlement_csv",
        summary="The settlement as a CSV file",
        description="Columns: payer,payee,amount_minor (minor units),currency (ISO code),paid,paid_at "
        "(ISO 8601, club offset),explanation (RFC 4180, UTF-8).",
        responses={
            # A string, not format "binary": generators read text/* bodies as text.
            (200, "text/csv"): OpenApiResponse(
                response={"type": "string"}, description="The CSV file."
            ),
            **problems(401, 403, 404),
        },
        parameters=[attachment_header("settlement-session-<id>.csv")],
        tags=["ledger"],
    )
    def get(self, request: AuthedRequest, session_id: int) -> Response:
        session, _ = session_for(request.user, session_id)
        return Response(
            settlement_data(session, csv=True),
            headers={"Content-Disposition": _csv_disposition(session)},
        )


class ClubBalancesApi(ApiView):
    @extend_schema(
        operation_id="clubs_balances",
        summary="All-time balances of a club's players, pots, kitty and bank",
        responses={200: ClubBalancesOutputSerializer, **problems(*READ_PROBLEMS)},
        tags=["ledger"],
    )
    def get(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id)
        totals = {"pot": 0, "carry": 0, "bank": 0}
        by_player: dict[int, int] = {}
        rows = (
            # The club's tab has its own endpoint (games.api.tab): its legs are not here.
            Leg.objects.filter(account__club=club)
            .exclude(account__kind=Account.Kind.TAB)
            .values("account__kind", "account__player_id")
            .annotate(total=Sum("amount"))
            .order_by()
        )
        for row in rows:
            if row["account__kind"] == Account.Kind.PLAYER:
                by_player[row["account__player_id"]] = row["total"]
            else:
                totals[row["account__kind"]] += row["total"]
        players = [
            {"player": {"id": p.pk, "name": p.name}, "balance": by_player.get(p.pk, 0)}
            for p in club.players.order_by("name", "id")
        ]
        data = {
            "club": club.pk,
            "currency": club.currency,
            "players": players,
            "pots": totals["pot"],
            "carry": totals["carry"],
            "bank": totals["bank"],
        }
        return Response(ClubBalancesOutputSerializer(data).data)


class ClubStatsApi(ApiView):
    # Best net first (ties by id): the page is a page of the roster in that order, and
    # its rows come from ledger.stats.
    cursor_ordering = ("-stat_net", "id")

    @extend_schema(
        operation_id="clubs_stats",
        summary="Per-player statistics of a club, best net first",
        parameters=CURSOR_PARAMETERS,
        responses={200: page_of(PlayerStatsOutputSerializer), **problems(400, *READ_PROBLEMS)},
        tags=["ledger"],
    )
    def get(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id)
        roster = club.players.annotate(stat_net=Coalesce("totals__net", 0))

        def rows(page: list[Player]) -> list[dict[str, Any]]:
            stats = {row["player_id"]: row for row in club_player_stats(club)}
            return [
                {**stats[p.pk], "player": {"id": p.pk, "name": stats[p.pk]["name"]}} for p in page
            ]

        return paginate(self, request, roster, PlayerStatsOutputSerializer, rows=rows)


# --- helpers -----------------------------------------------------------------------------


def _party(key: int | str | None, name: str) -> dict[str, Any]:
    if key == KITTY:
        return {"kind": "kitty", "id": None, "name": name}
    return {"kind": "player", "id": key, "name": name}


def _session_head(session: GameSession) -> dict:
    return {
        "session": session.pk,
        "currency": session.currency,
        "status": session.status,
        "version": session.version,
    }
