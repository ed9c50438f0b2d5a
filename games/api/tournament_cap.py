"""The field cap through the API (issue #35): ``POST tournaments/{id}/cap/`` with
``{"max_entries": n}`` changes the cap before the start or while late registration is
open (0: no cap; never below the places taken), as the dashboard's "Change the cap"
does (``games.tournaments.waiting.set_cap``). The waiting entries that now fit move up,
first in line first: the answer names them (``moved_up``: check them in to seat them)
and who still waits, in order. A cap that cannot change now is 409 ``cap_fixed``; one
below the places taken is 400 ``cap_below``. A module of its own beside
``tournament_actions`` so that the director's other operations stay as they are."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from games.access import tournament_for
from games.api.base import WRITE_PROBLEMS, ApiView, problems, role_for, valid
from games.api.serializers import MAX_ID, StrictInputSerializer
from games.api.tournament_actions import EntryOutputSerializer, _entry_rows
from games.http import AuthedRequest
from games.tournaments import selectors, waiting


class CapInputSerializer(StrictInputSerializer):
    max_entries = serializers.IntegerField(
        min_value=0,
        max_value=MAX_ID,
        help_text=gettext_lazy("The most entries that hold a place; 0: no cap."),
    )


class CapOutputSerializer(serializers.Serializer):
    max_entries = serializers.IntegerField()
    places_taken = serializers.IntegerField()
    moved_up = EntryOutputSerializer(
        many=True,
        help_text=gettext_lazy(
            "Waiting entries that got a place now (status registered): check them in to seat them."
        ),
    )
    waiting = EntryOutputSerializer(
        many=True, help_text=gettext_lazy("Who still waits, first in line first.")
    )


class CapApi(ApiView):
    @extend_schema(
        operation_id="tournaments_cap",
        summary="Change the field cap; the waiting list moves up (scorekeeper)",
        description=(
            "Before the start, or while a freeze-out's late registration is open (409 "
            "`cap_fixed` otherwise). Never below the places already taken (400 "
            "`cap_below`). The waiting entries that now fit move up in order and are named "
            "in `moved_up`."
        ),
        request=CapInputSerializer,
        examples=[OpenApiExample("Two more places", value={"max_entries": 26}, request_only=True)],
        responses={200: CapOutputSerializer, **problems(*WRITE_PROBLEMS, 409)},
        tags=["tournaments"],
    )
    def post(self, request: AuthedRequest, tournament_id: int) -> Response:
        t, _ = tournament_for(request.user, tournament_id, role_for(request))
        data: dict[str, Any] = dict(valid(CapInputSerializer, request.data))
        moved = waiting.set_cap(
            tournament_id=t.pk, max_entries=data["max_entries"], user=request.user
        )
        t.refresh_from_db()
        body = {
            "max_entries": t.max_entries,
            "places_taken": waiting.places_taken(t),
            "moved_up": _entry_rows(t, moved),
            "waiting": _entry_rows(t, waiting.waiting_entries(t)),
        }
        return Response(CapOutputSerializer(body).data, headers={"ETag": selectors.etag(t)})
