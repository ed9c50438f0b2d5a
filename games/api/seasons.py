"""Season API (mounted under /api/v1/), with the conventions of games.api: members read
(another club's season is 404), problem+json errors, cursor pages.

- ``GET clubs/{id}/seasons/`` — the club's seasons with their points formula, newest
  first (a cursor page over the rows).
- ``GET seasons/{id}/standings/`` — the season's standings (games.seasons.standings), in
  rank order, as a cursor page of the same shape as every list (``next`` and
  ``previous`` cursors, ``results``, the ``Link`` header; ``?page_size=``), with the
  club's ``currency``. The standings are computed when read, so the cursor is a
  position in the ranking: a page read after a tournament finished or a session closed
  reads the new ranking from that position. ``net_won`` is in the currency's minor unit.
  The public page's standings (by link) are not here: the public API is
  ``/api/v1/public/``'s.
"""

from typing import Any

from django.utils.translation import gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.response import Response

from games.access import club_for, season_for
from games.api.base import (
    CURSOR_PARAMETERS,
    READ_PROBLEMS,
    ApiView,
    ListPage,
    page_of,
    paginate,
    problems,
)
from games.api.serializers import CurrencySerializer, ExactOutputSerializer
from games.http import AuthedRequest
from games.seasons.standings import Tie, standings


class SeasonFormulaOutputSerializer(ExactOutputSerializer):
    """points = round_half_up(points_scale × field^field_exponent ÷
    place^place_exponent) + points_for_playing (the default: 10, 0.50, 0.50, 0)."""

    points_scale = serializers.IntegerField()
    # Decimals written as text ("0.50"), as DRF writes a DecimalField, without its input
    # refusals in the schema (this is output only).
    field_exponent = serializers.CharField(help_text=gettext_lazy("0.00 to 2.00"))
    place_exponent = serializers.CharField(help_text=gettext_lazy("0.00 to 2.00"))
    points_for_playing = serializers.IntegerField()


class SeasonOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    club = serializers.IntegerField(source="club_id")
    name = serializers.CharField()
    # ISO dates written by the methods below: an output-only DateField would put its
    # input refusals (which no request can meet) among the API's texts to translate.
    starts_on = serializers.SerializerMethodField(
        help_text=gettext_lazy("First day, in the club's zone.")
    )
    ends_on = serializers.SerializerMethodField(
        help_text=gettext_lazy("Last day, in the club's zone.")
    )
    formula = SeasonFormulaOutputSerializer(source="*")
    public = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.DATE)
    def get_starts_on(self, season: Any) -> str:
        return str(season.starts_on.isoformat())

    @extend_schema_field(OpenApiTypes.DATE)
    def get_ends_on(self, season: Any) -> str:
        return str(season.ends_on.isoformat())

    def get_public(self, season: Any) -> bool:
        return bool(season.public_token)


class SeasonPlayerOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="player_id")
    name = serializers.CharField()


class SeasonStandingOutputSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = SeasonPlayerOutputSerializer(source="*")
    points = serializers.IntegerField()
    tournaments = serializers.IntegerField()
    sessions = serializers.IntegerField()
    events = serializers.IntegerField(help_text=gettext_lazy("tournaments + sessions"))
    best_place = serializers.IntegerField(allow_null=True)
    net_won = serializers.IntegerField(
        source="net", help_text=gettext_lazy("Minor units, over the season's closed home sessions.")
    )
    tie = serializers.ChoiceField(
        choices=[t.value for t in Tie],
        help_text=gettext_lazy(
            "Why this row is below one with the same points: best_finish, net, or shared "
            "(level on every count, same rank); empty otherwise."
        ),
    )
    above = serializers.CharField(help_text=gettext_lazy("The player that tie is with."))


class SeasonStandingsPageSerializer(page_of(SeasonStandingOutputSerializer)):  # type: ignore[misc]
    currency = CurrencySerializer()


class SeasonListApi(ApiView):
    cursor_ordering = ("-starts_on", "-id")

    @extend_schema(
        operation_id="seasons_list",
        summary="A club's seasons and their points formulas",
        parameters=CURSOR_PARAMETERS,
        responses={200: page_of(SeasonOutputSerializer), **problems(*READ_PROBLEMS, 400)},
        tags=["seasons"],
    )
    def get(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id)
        return paginate(self, request, club.seasons.all(), SeasonOutputSerializer)


class SeasonStandingsApi(ApiView):
    @extend_schema(
        operation_id="seasons_standings",
        summary="A season's standings: points, events, home-session net won",
        parameters=CURSOR_PARAMETERS,
        responses={200: SeasonStandingsPageSerializer, **problems(*READ_PROBLEMS, 400)},
        tags=["seasons"],
    )
    def get(self, request: AuthedRequest, season_id: int) -> Response:
        season, _ = season_for(request.user, season_id)
        pager = ListPage()
        rows = pager.rows_page(request, standings(season))
        response = pager.get_paginated_response(
            SeasonStandingOutputSerializer(rows, many=True).data
        )
        response.data["currency"] = CurrencySerializer(season.club.currency).data
        return response
