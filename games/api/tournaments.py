"""Tournament API (mounted under /api/v1/), with the conventions of games.api: token or
session authentication, membership to read (another club's tournament is 404),
problem+json errors, cursor pagination for the list, explicit output serializers.

- ``GET tournaments/`` — your clubs' tournaments, newest first (``?club=``, ``?status=``)
- ``GET tournaments/{id}/`` — settings, status, rounds and tables with live chips
- ``GET tournaments/{id}/standings/`` — finishing places (provisional while running);
  while it runs, ``prize_due`` is what a knocked-out player's place pays at the end
  (``selectors.standings``), as the standings page shows it
- ``GET tournaments/{id}/prizes/`` — the prize ledger: postings with legs and balances;
  one response, not paged: it has about two postings per entrant. Postings are numbered
  per tournament (``number``). ``prizes/csv/`` is the same as a CSV file.
- ``GET tournaments/{id}/standings/csv/`` — the standings as a CSV file, with
  ``prize_minor`` and ``prize_due_minor`` last. One content type per operation (issue
  36): a generated client decodes each answer by its one documented type.
- Writes (create, entries, start, tables, clock, deal, payouts): ``tournament_actions``.
"""

import io
from collections.abc import Iterable, Mapping
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.renderers import BaseRenderer
from rest_framework.response import Response

from games.access import membership_for, tournament_for
from games.api.base import (
    CURSOR_PARAMETERS,
    READ_PROBLEMS,
    ApiView,
    attachment_header,
    for_member,
    page_of,
    paginate,
    problems,
)
from games.api.serializers import MAX_ID, CurrencySerializer
from games.http import AuthedRequest
from games.models import Tournament
from games.tournaments import payouts, selectors
from games.tournaments import service as svc
from ledger import books, exports
from ledger.models import PrizeAccount

# -- output serializers ---------------------------------------------------------------------


class PlayerRefOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class TournamentOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    club = serializers.IntegerField(source="club_id")
    name = serializers.CharField()
    format = serializers.ChoiceField(choices=Tournament.Format.choices)
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    currency = CurrencySerializer()
    buy_in = serializers.IntegerField(help_text=gettext_lazy("Minor units."))
    fee = serializers.IntegerField(help_text=gettext_lazy("Minor units, on top of the buy-in."))
    starting_chips = serializers.IntegerField()
    antes = serializers.ListField(child=serializers.IntegerField())
    hands_per_level = serializers.IntegerField(
        help_text=gettext_lazy("0: the ante rises each round.")
    )
    min_table = serializers.IntegerField()
    max_table = serializers.IntegerField()
    hands_per_round = serializers.IntegerField()
    final_hands = serializers.IntegerField(
        help_text=gettext_lazy("0: until one player holds every chip.")
    )
    advance_per_table = serializers.IntegerField()
    tiebreak = serializers.ChoiceField(choices=Tournament.Tiebreak.choices)
    carry_stacks = serializers.BooleanField()
    break_pot = serializers.ChoiceField(choices=Tournament.BreakPot.choices)
    payout_percentages = serializers.ListField(
        child=serializers.IntegerField(),
        help_text=gettext_lazy("Empty: the default for the field size."),
    )
    table_mode = serializers.CharField()
    version = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class TablePlayerOutputSerializer(serializers.Serializer):
    player = PlayerRefOutputSerializer()
    chips = serializers.IntegerField(allow_null=True)
    out = serializers.BooleanField()
    advanced = serializers.BooleanField()
    moved = serializers.BooleanField()


class TableOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    status = serializers.CharField()
    session = serializers.IntegerField(source="session_id")
    hands = serializers.IntegerField()
    hand_limit = serializers.IntegerField(source="limit", help_text=gettext_lazy("0: no limit."))
    pot = serializers.IntegerField()
    ante = serializers.IntegerField(allow_null=True)
    players = TablePlayerOutputSerializer(many=True)


class RoundOutputSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    seed = serializers.CharField(
        help_text=gettext_lazy("The stored seed: the draw can be redone from it.")
    )
    status = serializers.CharField()
    is_final = serializers.BooleanField()
    byes = PlayerRefOutputSerializer(many=True)
    tables = TableOutputSerializer(many=True)


class PoolOutputSerializer(serializers.Serializer):
    pool = serializers.IntegerField()
    house = serializers.IntegerField()


class TournamentDetailOutputSerializer(TournamentOutputSerializer):
    entrants = serializers.IntegerField()
    public_url = serializers.URLField(help_text=gettext_lazy("Read-only bracket, no login needed."))
    prize_pool = PoolOutputSerializer()
    rounds = RoundOutputSerializer(many=True)


class StandingOutputSerializer(serializers.Serializer):
    place = serializers.IntegerField(
        allow_null=True, help_text=gettext_lazy("Null: still playing.")
    )
    player = PlayerRefOutputSerializer()
    status = serializers.CharField()
    chips = serializers.IntegerField(
        allow_null=True, help_text=gettext_lazy("Now, or when they went out.")
    )
    out_round = serializers.IntegerField(allow_null=True)
    out_table = serializers.IntegerField(allow_null=True)
    out_at = serializers.DateTimeField(allow_null=True)
    prize = serializers.IntegerField()
    prize_due = serializers.IntegerField(
        help_text=gettext_lazy(
            "Minor units. While the tournament runs: what the place of a player who went "
            "out pays from the pool as it stands (players sharing a place share its "
            "prizes), paid when the tournament ends; 0 for players still in, unpaid "
            "places and once the tournament has finished (see prize)."
        )
    )
    busted = serializers.BooleanField(help_text=gettext_lazy("Knocked out (chips: none left)."))
    out_chips = serializers.IntegerField(
        allow_null=True, help_text=gettext_lazy("Busted: the stack the last hand took.")
    )
    reentries = serializers.IntegerField()


class StandingsOutputSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    status = serializers.CharField()
    currency = CurrencySerializer()
    final = serializers.BooleanField()
    standings = StandingOutputSerializer(many=True)


class PrizeLegOutputSerializer(serializers.Serializer):
    account = serializers.ChoiceField(choices=PrizeAccount.Kind.choices)
    player = PlayerRefOutputSerializer(allow_null=True)
    amount = serializers.IntegerField(help_text=gettext_lazy("Minor units; + into the account."))


class PrizePostingOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField(
        help_text=gettext_lazy("Its place in this tournament's ledger: 1, 2, …")
    )
    kind = serializers.CharField()
    player = PlayerRefOutputSerializer(allow_null=True)
    memo = serializers.CharField()
    created_at = serializers.DateTimeField()
    legs = PrizeLegOutputSerializer(many=True)


class EntrantBalanceOutputSerializer(serializers.Serializer):
    player = PlayerRefOutputSerializer()
    balance = serializers.IntegerField(help_text=gettext_lazy("Prizes won − buy-in and fee paid."))


class PrizeBalancesOutputSerializer(serializers.Serializer):
    pool = serializers.IntegerField()
    house = serializers.IntegerField()
    entrants = EntrantBalanceOutputSerializer(many=True)


class PrizeLedgerOutputSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    currency = CurrencySerializer()
    remainder_rule = serializers.CharField()
    balances = PrizeBalancesOutputSerializer()
    postings = PrizePostingOutputSerializer(many=True)


class TournamentFilterSerializer(serializers.Serializer):
    club = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    status = serializers.ChoiceField(choices=Tournament.Status.choices, required=False)


REMAINDER_RULE = payouts.REMAINDER_RULE


# -- views --------------------------------------------------------------------------------


class TournamentListApi(ApiView):
    cursor_ordering = "-id"

    @extend_schema(
        operation_id="tournaments_list",
        summary="Tournaments of your clubs, newest first",
        parameters=[
            OpenApiParameter("club", int, description="Only this club's tournaments."),
            OpenApiParameter("status", str, enum=Tournament.Status.values),
            *CURSOR_PARAMETERS,
        ],
        responses={200: page_of(TournamentOutputSerializer), **problems(400, *READ_PROBLEMS)},
        tags=["tournaments"],
    )
    def get(self, request: AuthedRequest) -> Response:
        filters = TournamentFilterSerializer(data=request.query_params.dict())
        filters.is_valid(raise_exception=True)
        filters = filters.validated_data
        qs = for_member(Tournament.objects.all(), request.user)
        if "club" in filters:
            membership_for(request.user, filters["club"])  # another club: 404
            qs = qs.filter(club_id=filters["club"])
        if "status" in filters:
            qs = qs.filter(status=filters["status"])
        return paginate(self, request, qs, TournamentOutputSerializer)


def _tournament(request: AuthedRequest, tournament_id: int) -> Tournament:
    t, _ = tournament_for(request.user, tournament_id)
    return t


class TournamentDetailApi(ApiView):
    @extend_schema(
        operation_id="tournaments_retrieve",
        summary="A tournament: settings, rounds, tables and chips",
        responses={200: TournamentDetailOutputSerializer, **problems(*READ_PROBLEMS)},
        tags=["tournaments"],
    )
    def get(self, request: AuthedRequest, tournament_id: int) -> Response:
        t = _tournament(request, tournament_id)
        data = selectors.bracket(t)
        rounds = []
        for rnd in data["rounds"]:
            tables = []
            for box in rnd["tables"]:
                players = [
                    {
                        "player": {"id": p["id"], "name": p["name"]},
                        "chips": p["chips"],
                        "out": p["out"],
                        "advanced": p["advanced"],
                        "moved": p["moved"],
                    }
                    for p in box["players"]
                ]
                tables.append({**box, "players": players})
            rounds.append({**rnd, "tables": tables})
        pool = books.prize_balances(t)
        out = dict(TournamentOutputSerializer(t).data)
        out["entrants"] = t.entries.filter(status__in=svc.IN_EVENT).count()
        out["public_url"] = request.build_absolute_uri(
            reverse("tournament_public", args=[t.public_token])
        )
        out["prize_pool"] = PoolOutputSerializer(pool).data
        out["rounds"] = RoundOutputSerializer(rounds, many=True).data
        return Response(out, headers={"ETag": selectors.etag(t)})


class _CSVRenderer(BaseRenderer):
    """CSV of a JSON answer: ``columns`` then ``rows(data)``; an error is its detail."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"
    columns: tuple[str, ...] = ()
    key = ""

    def rows(self, data: Mapping[str, Any]) -> Iterable[list[Any]]:
        raise NotImplementedError

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        out = io.StringIO()
        writer = exports.writer(out, lineterminator="\r\n")
        if self.key not in (data or {}):  # an error answered as CSV: its detail
            writer.writerow(["detail"])
            writer.writerow([str((data or {}).get("detail", ""))])
        else:
            writer.writerow(self.columns)
            writer.writerows(self.rows(data))
        return out.getvalue().encode("utf-8", errors="backslashreplace")


def _csv_description(columns: Iterable[str], notes: str) -> str:
    return f"Columns: {','.join(columns)} ({notes}; RFC 4180, UTF-8)."


def _csv_responses() -> dict:
    # A string, not format "binary": generators read text/* bodies as text.
    return {
        (200, "text/csv"): OpenApiResponse(response={"type": "string"}, description="The file."),
        **problems(401, 403, 404),
    }


class StandingsCSVRenderer(_CSVRenderer):
    columns = selectors.API_STANDINGS_CSV_COLUMNS
    key = "standings"

    def rows(self, data: Mapping[str, Any]) -> Iterable[list[Any]]:
        return selectors.standings_csv_rows(data["standings"])


def _standings_data(t: Tournament) -> dict[str, Any]:
    data = {
        "tournament": t.pk,
        "status": t.status,
        "currency": t.currency,
        "final": t.status == Tournament.Status.FINISHED,
        "standings": selectors.standings(t),
    }
    return StandingsOutputSerializer(data).data


class TournamentStandingsApi(ApiView):
    @extend_schema(
        operation_id="tournaments_standings",
        summary="Finishing places (provisional while the tournament runs)",
        description="The same as a CSV file: `standings/csv/`.",
        responses={200: StandingsOutputSerializer, **problems(*READ_PROBLEMS)},
        tags=["tournaments"],
    )
    def get(self, request: AuthedRequest, tournament_id: int) -> Response:
        return Response(_standings_data(_tournament(request, tournament_id)))


class TournamentStandingsCsvApi(ApiView):
    renderer_classes = [StandingsCSVRenderer]

    @extend_schema(
        operation_id="tournaments_standings_csv",
        summary="The standings as a CSV file",
        description=_csv_description(
            selectors.API_STANDINGS_CSV_COLUMNS,
            "prize and prize due in minor units; prize_due_minor is what a knocked-out "
            "player's place pays at the end while the tournament runs; out_at ISO 8601 "
            "with the club's offset",
        ),
        parameters=[attachment_header("tournament-<id>-standings.csv")],
        responses=_csv_responses(),
        tags=["tournaments"],
    )
    def get(self, request: AuthedRequest, tournament_id: int) -> Response:
        t = _tournament(request, tournament_id)
        return Response(
            _standings_data(t),
            headers={
                "Content-Disposition": f'attachment; filename="tournament-{t.pk}-standings.csv"'
            },
        )


class PrizeCSVRenderer(_CSVRenderer):
    columns = selectors.API_PRIZE_CSV_COLUMNS
    key = "postings"

    def rows(self, data: Mapping[str, Any]) -> Iterable[list[Any]]:
        for posting in data["postings"]:
            owner = posting["player"]["name"] if posting["player"] else ""
            for leg in posting["legs"]:
                yield [
                    posting["number"],
                    posting["created_at"],
                    posting["kind"],
                    owner,
                    leg["player"]["name"] if leg["player"] else leg["account"],
                    leg["amount"],
                    data["currency"]["code"],
                    posting["memo"],
                ]


class TournamentPrizesApi(ApiView):
    @extend_schema(
        operation_id="tournaments_prizes",
        summary="The prize ledger: buy-ins in, fees out, prizes out",
        description="The same as a CSV file, one row per leg: `prizes/csv/`.",
        responses={200: PrizeLedgerOutputSerializer, **problems(*READ_PROBLEMS)},
        tags=["tournaments"],
    )
    def get(self, request: AuthedRequest, tournament_id: int) -> Response:
        return Response(_prize_data(_tournament(request, tournament_id)))


class TournamentPrizesCsvApi(ApiView):
    renderer_classes = [PrizeCSVRenderer]

    @extend_schema(
        operation_id="tournaments_prizes_csv",
        summary="The prize ledger as a CSV file",
        description=_csv_description(
            selectors.API_PRIZE_CSV_COLUMNS,
            "one row per leg; minor units; dates with the club's offset",
        ),
        parameters=[attachment_header("tournament-<id>-prizes.csv")],
        responses=_csv_responses(),
        tags=["tournaments"],
    )
    def get(self, request: AuthedRequest, tournament_id: int) -> Response:
        t = _tournament(request, tournament_id)
        return Response(
            _prize_data(t),
            headers={"Content-Disposition": f'attachment; filename="tournament-{t.pk}-prizes.csv"'},
        )


def _prize_data(t: Tournament) -> dict[str, Any]:
    names = dict(t.entries.values_list("player_id", "player__name"))

    def ref(player_id: int | None) -> dict[str, Any] | None:
        if player_id is None:
            return None
        return {"id": player_id, "name": names.get(player_id, "?")}

    balances = books.prize_balances(t)
    data = {
        "tournament": t.pk,
        "currency": t.currency,
        "remainder_rule": REMAINDER_RULE,
        "balances": {
            "pool": balances["pool"],
            "house": balances["house"],
            "entrants": [
                {"player": ref(p), "balance": b} for p, b in sorted(balances["entrants"].items())
            ],
        },
        "postings": [
            {
                "id": p.pk,
                "number": p.number,
                "kind": p.kind,
                "player": ref(p.player_id),
                "memo": p.memo,
                "created_at": p.created_at,
                "legs": [
                    {
                        "account": leg.account.kind,
                        "player": ref(leg.account.player_id),
                        "amount": leg.amount,
                    }
                    for leg in p.legs.all()
                ],
            }
            for p in books.prize_postings(t)
        ],
    }
    return PrizeLedgerOutputSerializer(data).data
