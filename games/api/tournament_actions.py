"""Running a tournament through the API (mounted under /api/v1/), with the conventions of
games.api.base: membership to read, the scorekeeper role to change anything (another
club's tournament is 404), problem+json errors (a ``TournamentError`` is 400 for bad
input, 409 when the moment is wrong: registration closed, a pot still to be won…).

- ``POST tournaments/`` — create (``Idempotency-Key``: a retry by the same token is the
  first answer replayed, ``Idempotent-Replayed: true`` (games.api.idempotency); from
  another token, 200 with the tournament already created). The seed is made here; its SHA-256 ``seed_commitment``
  is in the answer, the seed itself only after the first draw.
- ``GET|POST tournaments/{id}/entries/`` — the entries; register players by id or by
  name (new names join the club's roster), optionally checked in. With an
  ``Idempotency-Key``, a retry is replayed (see above), and players already entered
  are answered as they are (200), not refused, so a retried request is harmless.
- ``POST tournaments/{id}/entries/{entry}/{action}/`` — ``check-in``, ``withdraw``,
  ``re-enter``, ``rebuy``, ``add-on``.
- ``POST tournaments/{id}/start/`` (draw round one, reveal the seed), ``…/next-round/``,
  ``…/balance/`` (bring the tables up to date: eliminations, balancing),
  ``…/end-round/`` (``{"now": true}``: at once), ``…/clock/``
  (``{"action": "start|pause|resume|adjust", "seconds": n}``).
- ``POST tournaments/{id}/tables/{number}/hands/`` — record a hand at a table of the
  current round: exactly ``POST sessions/{session}/hands/`` (same body, Idempotency-Key
  and If-Match with the table session's ETag).
- ``GET|POST tournaments/{id}/deal/`` — the terms of a final-table deal (with
  ``rounding``: the rule that rounds the shares, ``deals.CHIP_CHOP_RULE``); make one.
- ``GET tournaments/{id}/payouts/`` — the payout table: places, shares, amounts.

Every write answers an object with the tournament's new ``version`` and its ETag
(``selectors.etag``, documented on each operation): the tournament itself (create, start,
next-round, balance, end-round, deal), or what the write made with ``version`` beside it
(entries: ``{"entries": [...], "version"}``; an entry's action: the entry; the clock: the
clock). A hand at a table answers as the session's own hands endpoint does (the session's
version and ETag). The payout table's ``deal`` is the ``DealOutput`` component.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from django.db import transaction
from django.http import Http404, HttpResponseBase
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from games.access import club_for, tournament_for
from games.api import views as session_api
from games.api.base import (
    CURSOR_PARAMETERS,
    READ_PROBLEMS,
    WRITE_PROBLEMS,
    ApiView,
    page_of,
    paginate,
    problems,
    role_for,
    valid,
)
from games.api.errors import INVALID_DETAIL, INVALID_TITLE, TYPE_VALIDATION, Problem
from games.api.serializers import (
    MAX_ID,
    AmountsByIdField,
    ExactOutputSerializer,
    RulesField,
    StrictInputSerializer,
)
from games.api.tournaments import (
    PlayerRefOutputSerializer,
    TournamentListApi,
    TournamentOutputSerializer,
)
from games.engine import tournament_levels as levels
from games.engine import tournament_payouts as pay
from games.http import AuthedRequest
from games.models import Entry, Role, Tournament, TournamentTable
from games.tournaments import clock, deals, payouts, selectors
from games.tournaments import entries as late
from games.tournaments import service as svc
from ledger import books

# -- serializers ----------------------------------------------------------------------------


class TournamentCreateInputSerializer(StrictInputSerializer):
    club = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    name = serializers.CharField(max_length=100)
    format = serializers.ChoiceField(choices=Tournament.Format.choices, default="rounds")
    table_mode = serializers.ChoiceField(
        choices=[("reported", "reported"), ("digital", "digital")], default="reported"
    )
    buy_in = serializers.IntegerField(
        min_value=0, default=0, help_text=gettext_lazy("Minor units.")
    )
    fee = serializers.IntegerField(min_value=0, default=0, help_text=gettext_lazy("Minor units."))
    starting_chips = serializers.IntegerField(min_value=1, default=100)
    structure_preset = serializers.ChoiceField(
        choices=[("", "custom"), *[(k, p.label) for k, p in levels.PRESETS.items()]],
        required=False,
    )
    antes = serializers.ListField(
        child=serializers.IntegerField(min_value=1), required=False, max_length=100
    )
    level_minutes = serializers.IntegerField(min_value=0, max_value=240, required=False)
    hands_per_level = serializers.IntegerField(min_value=0, max_value=1000, required=False)
    break_every = serializers.IntegerField(min_value=0, max_value=50, required=False)
    break_minutes = serializers.IntegerField(min_value=0, max_value=120, required=False)
    min_table = serializers.IntegerField(min_value=2, max_value=8, required=False)
    max_table = serializers.IntegerField(min_value=2, max_value=8, required=False)
    hands_per_round = serializers.IntegerField(min_value=1, max_value=1000, required=False)
    final_hands = serializers.IntegerField(min_value=0, max_value=10000, required=False)
    advance_per_table = serializers.IntegerField(min_value=1, max_value=7, required=False)
    tiebreak = serializers.ChoiceField(choices=Tournament.Tiebreak.choices, required=False)
    carry_stacks = serializers.BooleanField(required=False)
    break_pot = serializers.ChoiceField(
        choices=Tournament.BreakPot.choices,
        required=False,
        help_text=gettext_lazy(
            "Freeze-out, a table below the minimum (RULES.md T1): move (default: it breaks "
            "before its next deal, its pot shared among the tables its players join) or "
            "play_out (it plays until its pot is won, then breaks)."
        ),
    )
    payout_percentages = serializers.ListField(
        child=serializers.IntegerField(min_value=1), required=False, max_length=100
    )
    payout_preset = serializers.ChoiceField(
        choices=[("", "custom"), *pay.PAYOUT_PRESETS], required=False
    )
    payout_unit = serializers.IntegerField(
        min_value=1,
        required=False,
        help_text=gettext_lazy(
            "Prizes are multiples of it, in minor units; default one whole unit of "
            "the club's currency (100 for $: whole dollars)."
        ),
    )
    late_until_level = serializers.IntegerField(min_value=0, max_value=100, required=False)
    max_entries = serializers.IntegerField(min_value=0, required=False)
    max_reentries = serializers.IntegerField(min_value=0, max_value=100, required=False)
    max_rebuys = serializers.IntegerField(min_value=0, max_value=100, required=False)
    addon_chips = serializers.IntegerField(min_value=0, required=False)
    addon_price = serializers.IntegerField(min_value=0, required=False)
    rules = RulesField(required=False, help_text=gettext_lazy("House rules of every table."))

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        _refuse_zero_levels(attrs)
        return attrs


class TournamentCreatedOutputSerializer(TournamentOutputSerializer):
    seed_commitment = serializers.CharField(
        help_text=gettext_lazy("SHA-256 of the draw's seed (hex).")
    )
    seed = serializers.CharField(
        allow_null=True, help_text=gettext_lazy("Revealed at the first draw.")
    )
    level_minutes = serializers.IntegerField()
    break_every = serializers.IntegerField()
    break_minutes = serializers.IntegerField()
    late_until_level = serializers.IntegerField()
    max_entries = serializers.IntegerField()
    max_reentries = serializers.IntegerField()
    max_rebuys = serializers.IntegerField()
    addon_chips = serializers.IntegerField()
    addon_price = serializers.IntegerField()
    payout_preset = serializers.CharField()
    payout_unit = serializers.IntegerField()
    public_url = serializers.CharField()
    verify_url = serializers.CharField(
        help_text=gettext_lazy("Public page that redoes every draw.")
    )


class EntryCreateInputSerializer(StrictInputSerializer):
    players = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID), required=False
    )
    names = serializers.ListField(
        child=serializers.CharField(max_length=40), required=False, max_length=500
    )
    check_in = serializers.BooleanField(default=False)
    bots = serializers.BooleanField(default=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs.get("players") and not attrs.get("names"):
            raise serializers.ValidationError(
                gettext_lazy("Send players (ids) or names."), code="empty"
            )
        return attrs


class EntryOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    player = PlayerRefOutputSerializer()
    status = serializers.CharField()
    reentries = serializers.IntegerField()
    rebuys = serializers.IntegerField()
    addons = serializers.IntegerField()
    place = serializers.IntegerField(allow_null=True)
    prize = serializers.IntegerField()


def _tournament_version_field() -> serializers.IntegerField:
    return serializers.IntegerField(
        help_text=gettext_lazy(
            "The tournament's version after this write (it rises with every change)."
        )
    )


class EntriesCreatedOutputSerializer(serializers.Serializer):
    entries = EntryOutputSerializer(
        many=True, help_text=gettext_lazy("The entries made (or found, on a retry).")
    )
    version = _tournament_version_field()


class EntryChangedOutputSerializer(EntryOutputSerializer):
    version = _tournament_version_field()


def _refuse_zero_levels(attrs: dict[str, Any]) -> None:
    """A freezeout's `hands_per_level: 0` is refused, never replaced by the default
    (issue 36): without `level_minutes` or a structure preset it has no levels at all."""
    if (
        attrs.get("format") == Tournament.Format.FREEZEOUT
        and attrs.get("hands_per_level") == 0
        and not attrs.get("level_minutes")
        and not attrs.get("structure_preset")
    ):
        raise serializers.ValidationError(
            {
                "hands_per_level": [
                    serializers.ErrorDetail(
                        gettext(
                            "A freezeout raises the ante every so many hands: send 1 or "
                            "more, or level_minutes instead."
                        ),
                        "zero_hands_per_level",
                    )
                ]
            }
        )


class EndRoundInputSerializer(StrictInputSerializer):
    now = serializers.BooleanField(default=False)


class ClockInputSerializer(StrictInputSerializer):
    action = serializers.ChoiceField(choices=[(a, a) for a in clock.ACTIONS])
    seconds = serializers.IntegerField(default=0, min_value=-86400, max_value=86400)


class ClockOutputSerializer(ExactOutputSerializer):
    level = serializers.IntegerField(help_text=gettext_lazy("1-based."))
    ante = serializers.IntegerField()
    next_ante = serializers.IntegerField()
    timed = serializers.BooleanField()
    running = serializers.BooleanField()
    paused = serializers.BooleanField()
    on_break = serializers.BooleanField()
    seconds_left = serializers.IntegerField(allow_null=True)
    server_time = serializers.IntegerField(help_text=gettext_lazy("Milliseconds since the epoch."))


class ClockChangedOutputSerializer(ClockOutputSerializer):
    version = _tournament_version_field()


class DealInputSerializer(StrictInputSerializer):
    kind = serializers.ChoiceField(choices=[(k, k) for k in pay.DEAL_KINDS])
    agreed = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        help_text=gettext_lazy("Player ids: every player still in."),
    )
    amounts = AmountsByIdField(
        child=serializers.IntegerField(min_value=0),
        required=False,
        help_text=gettext_lazy("custom: player id → amount (minor units)."),
    )


class PayoutRowSerializer(serializers.Serializer):
    place = serializers.IntegerField()
    share = serializers.CharField(help_text=gettext_lazy("Percent of the pool, two decimals."))
    amount = serializers.IntegerField(
        help_text=gettext_lazy(
            "What the table gives this place from the whole pool (paid out or not); minor units."
        )
    )
    paid = serializers.IntegerField(
        help_text=gettext_lazy("Paid to the entrants who finished in this place; minor units.")
    )
    due = serializers.IntegerField(
        help_text=gettext_lazy(
            "Still to pay at this place: `amount` while the tournament runs, 0 once paid."
        )
    )


class DealOutputSerializer(serializers.Serializer):
    """A final-table deal every remaining player agreed to (it ended the tournament)."""

    kind = serializers.ChoiceField(choices=[(k, k) for k in pay.DEAL_KINDS])
    amounts = AmountsByIdField(
        child=serializers.IntegerField(),
        help_text=gettext_lazy("Player id → the share paid (minor units)."),
    )
    chips = AmountsByIdField(
        child=serializers.IntegerField(),
        help_text=gettext_lazy("Player id → chips when the deal was made."),
    )
    agreed = serializers.ListField(
        child=serializers.CharField(), help_text=gettext_lazy("Who agreed, by name.")
    )
    at = serializers.DateTimeField()
    by = serializers.CharField(help_text=gettext_lazy("The username that recorded it."))


class PayoutsOutputSerializer(serializers.Serializer):
    pool = serializers.IntegerField(
        help_text=gettext_lazy(
            "The prize pool: as it stands while running; after the end, what was paid out."
        )
    )
    entrants = serializers.IntegerField()
    preset = serializers.CharField()
    unit = serializers.IntegerField()
    remainder_rule = serializers.CharField()
    places = PayoutRowSerializer(many=True)
    deal = DealOutputSerializer(
        allow_null=True, help_text=gettext_lazy("The final-table deal, if one was made.")
    )


# -- helpers ----------------------------------------------------------------------------------


def _director(request: AuthedRequest, tournament_id: int) -> Tournament:
    t, _ = tournament_for(request.user, tournament_id, role_for(request))
    return t


def _valid(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    return dict(valid(serializer_class, data))


def _answer(request: Request, t: Tournament, status: int = 200) -> Response:
    t.refresh_from_db()
    data = dict(TournamentOutputSerializer(t).data)
    data.update(
        {name: getattr(t, name) for name in CREATED_FIELDS},
        seed_commitment=t.seed_commitment,
        seed=t.seed if t.seed_revealed_at else None,
        public_url=request.build_absolute_uri(reverse("tournament_public", args=[t.public_token])),
        verify_url=request.build_absolute_uri(reverse("tournament_verify", args=[t.public_token])),
    )
    return Response(
        data,
        status=status,
        headers={
            "ETag": selectors.etag(t),
            "Location": reverse("api_tournament_detail", args=[t.pk]),
        },
    )


CREATED_FIELDS = (*svc.OPTIONAL_NUMBERS, "payout_preset")


def tournament_etag(*codes: int) -> OpenApiParameter:
    return session_api.s.etag_header(
        *codes,
        description="Changes with the tournament and its tables (the `ETag` of "
        "`GET tournaments/{id}/`).",
    )


def _changed(
    t: Tournament,
    serializer_class: type[serializers.Serializer],
    data: dict[str, Any],
    status: int = 200,
) -> Response:
    """A write's answer that is not the tournament itself (entries, an entry, the clock):
    `data` with the tournament's new `version`, and its ETag."""
    t.refresh_from_db(fields=["version"])
    return Response(
        serializer_class({**data, "version": t.version}).data,
        status=status,
        headers={"ETag": selectors.etag(t)},
    )


def _deal(t: Tournament) -> dict[str, Any] | None:
    """The stored deal (games.tournaments.deals.make_deal) with its time as a datetime,
    so that it is written in UTC like every timestamp."""
    if not t.deal:
        return None
    return {**t.deal, "at": datetime.datetime.fromisoformat(t.deal["at"])}


def _entry_rows(t: Tournament, entries: Iterable[Entry]) -> list[dict[str, Any]]:
    return [
        {
            "id": e.pk,
            "player": {"id": e.player_id, "name": e.player.name},
            "status": e.status,
            "reentries": e.reentries,
            "rebuys": e.rebuys,
            "addons": e.addons,
            "place": e.place,
            "prize": e.prize,
        }
        for e in entries
    ]


IDEMPOTENCY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    description="Up to 80 printable ASCII characters; a retry with the same key is answered "
    "with what the first request did (200) instead of doing it twice.",
)

# -- views ------------------------------------------------------------------------------------


class TournamentListCreateApi(TournamentListApi):
    # GET: TournamentListApi's list; POST: create.
    @extend_schema(
        operation_id="tournaments_create",
        summary="Create a tournament (scorekeeper); the draw's seed is committed now",
        parameters=[IDEMPOTENCY, tournament_etag(200, 201)],
        request=TournamentCreateInputSerializer,
        examples=[
            OpenApiExample(
                "A freeze-out with the standard structure",
                value={
                    "club": 1,
                    "name": "Mardi Gras freeze-out",
                    "format": "freezeout",
                    "buy_in": 20,
                    "fee": 2,
                    "starting_chips": 100,
                    "structure_preset": "standard",
                    "payout_preset": "top15",
                    "late_until_level": 3,
                    "max_reentries": 1,
                },
                request_only=True,
            )
        ],
        responses={
            201: TournamentCreatedOutputSerializer,
            200: TournamentCreatedOutputSerializer,
            **problems(*WRITE_PROBLEMS),
        },
        tags=["tournaments"],
    )
    def post(self, request: AuthedRequest) -> Response:
        data = _valid(TournamentCreateInputSerializer, request.data)
        club, _ = club_for(request.user, data.pop("club"), Role.SCOREKEEPER)
        key = session_api._idempotency_key(request)
        t, created = svc.create_tournament_once(
            club=club, user=request.user, idempotency_key=key, **data
        )
        return _answer(request, t, 201 if created else 200)


class EntryListApi(ApiView):
    cursor_ordering = "id"

    @extend_schema(
        operation_id="tournaments_entries_list",
        summary="A tournament's entries, in the order they were made",
        parameters=CURSOR_PARAMETERS,
        responses={200: page_of(EntryOutputSerializer), **problems(400, *READ_PROBLEMS)},
        tags=["tournaments"],
    )
    def get(self, request: AuthedRequest, tournament_id: int) -> Response:
        t, _ = tournament_for(request.user, tournament_id)
        entries = t.entries.select_related("player")
        return paginate(
            self, request, entries, EntryOutputSerializer, rows=lambda page: _entry_rows(t, page)
        )

    @extend_schema(
        operation_id="tournaments_entries_create",
        summary="Register players (by id or name), optionally checked in (scorekeeper)",
        description="All or nothing: if one player cannot be entered (already entered, "
        "the field full) nothing is written, new names are not added to the roster. A "
        "player named twice (an id and a name, or two spellings of one name) is entered "
        "once.",
        parameters=[IDEMPOTENCY, tournament_etag(200, 201)],
        request=EntryCreateInputSerializer,
        examples=[
            OpenApiExample(
                "Two roster players and a newcomer, checked in",
                value={"players": [3, 7], "names": ["Renée"], "check_in": True},
                request_only=True,
            )
        ],
        responses={
            201: EntriesCreatedOutputSerializer,
            200: EntriesCreatedOutputSerializer,
            **problems(*WRITE_PROBLEMS, 409),
        },
        tags=["tournaments"],
    )
    def post(self, request: AuthedRequest, tournament_id: int) -> Response:
        t = _director(request, tournament_id)
        data = _valid(EntryCreateInputSerializer, request.data)
        key = session_api._idempotency_key(request)
        ids = data.get("players") or []
        by_id = t.club.players.in_bulk(ids)
        unknown = [i for i in ids if i not in by_id]
        if unknown:
            raise Problem(
                400,
                INVALID_DETAIL,
                title=INVALID_TITLE,
                type=TYPE_VALIDATION,
                errors=[
                    {
                        "field": "players",
                        "code": "unknown_player",
                        "message": gettext("No player with id %(ids)s in this club.")
                        % {"ids": ", ".join(map(str, unknown))},
                    }
                ],
            )
        done, created = [], False
        # All or nothing: a refused name (already entered, the tournament full) leaves
        # no entry and no new roster player behind (they were kept, under a 409).
        with transaction.atomic():
            players = [by_id[i] for i in ids] + late.roster_players(t, data.get("names") or [])
            # The same player twice in one request ("Dee" and "dee", an id and a name)
            # is one entry.
            players = list({player.pk: player for player in players}.values())
            entered = {
                e.player_id: e
                for e in t.entries.exclude(status=Entry.Status.WITHDRAWN).select_related("player")
            }
            for player in players:
                if key and player.pk in entered:
                    done.append(entered[player.pk])  # a retry: already entered
                    continue
                entry = svc.register(
                    tournament_id=t.pk, player=player, user=request.user, is_bot=data["bots"]
                )
                if data["check_in"] and entry.status == Entry.Status.REGISTERED:
                    entry = svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=request.user)
                done.append(entry)
                created = True
        return _changed(
            t,
            EntriesCreatedOutputSerializer,
            {"entries": _entry_rows(t, done)},
            status=201 if created else 200,
        )


ENTRY_ACTIONS = {
    "check-in": svc.check_in,
    "withdraw": svc.withdraw,
    "re-enter": late.reenter,
    "rebuy": late.rebuy,
    "add-on": late.addon,
}


class EntryActionApi(ApiView):
    @extend_schema(
        operation_id="tournaments_entry_action",
        summary="check-in, withdraw, re-enter, rebuy or add-on (scorekeeper)",
        request=None,
        parameters=[tournament_etag(200)],
        responses={200: EntryChangedOutputSerializer, **problems(*WRITE_PROBLEMS, 409)},
        tags=["tournaments"],
    )
    def post(
        self, request: AuthedRequest, tournament_id: int, entry_id: int, action: str
    ) -> Response:
        t = _director(request, tournament_id)
        if action not in ENTRY_ACTIONS:
            raise Problem(
                404,
                gettext("No entry action %(action)s: use one of %(actions)s.")
                % {"action": repr(action), "actions": ", ".join(ENTRY_ACTIONS)},
            )
        # Through the tournament: another tournament's entry, or none, is a 404.
        if not t.entries.filter(pk=entry_id).exists():
            raise Http404("No such entry")
        ENTRY_ACTIONS[action](tournament_id=t.pk, entry_id=entry_id, user=request.user)
        entry = Entry.objects.select_related("player").get(pk=entry_id, tournament=t)
        return _changed(t, EntryChangedOutputSerializer, _entry_rows(t, [entry])[0])


class TournamentActionApi(ApiView):
    # start, next-round, balance, end-round: one subclass each (action_view). A comment,
    # not a docstring: drf-spectacular would show it as each operation's description.

    action = ""

    def post(self, request: AuthedRequest, tournament_id: int) -> Response:
        t = _director(request, tournament_id)
        if self.action == "start":
            svc.start(tournament_id=t.pk, user=request.user)
        elif self.action == "next-round":
            svc.draw_next_round(tournament_id=t.pk, user=request.user)
        elif self.action == "balance":
            svc.sync(tournament_id=t.pk, user=request.user)
        else:
            # No body is {}; a body that is not a JSON object ([] too) is a 400.
            data = _valid(EndRoundInputSerializer, request.data)
            svc.end_round(tournament_id=t.pk, user=request.user, now=data["now"])
        return _answer(request, t)


ACTION_SUMMARIES = {
    "start": "Close registration and draw round one from the committed seed (revealed now)",
    "next-round": "Table rounds: draw the next round from those who advanced",
    "balance": "Bring the tables up to date: eliminations, tables that end, balancing",
    "end-round": "End the round at every table once its pot is won (now: at once)",
}


# What each one does and when to call it, for the docs (the state machine: games.api.guide).
ACTION_DESCRIPTIONS = {
    "start": "Registration → running. Needs at least 2 checked-in players; a freeze-out's "
    "late registration stays open through `late_until_level`.",
    "next-round": "Table rounds only, once every table of the round has ended (refused "
    "while one still plays).",
    "balance": "Each hand recorded at a table already runs this update after it is saved; "
    "call it when the bracket has not moved after a hand that should have moved it, or "
    "to be sure. When nothing is due it changes nothing (the same `version`).",
    "end-round": "Each table ends after its current pot is won (a hand that leaves it "
    'empty); `{"now": true}` ends them at once and the pot stays dead.',
}


def action_view(action: str) -> Callable[..., HttpResponseBase]:
    """The view of one director's action, with its own operation in the schema."""
    body = EndRoundInputSerializer if action == "end-round" else None

    @extend_schema(
        operation_id=f"tournaments_{action.replace('-', '_')}",
        summary=ACTION_SUMMARIES[action],
        description=ACTION_DESCRIPTIONS[action],
        request=body,
        examples=[OpenApiExample("End the round now", value={"now": True}, request_only=True)]
        if body
        else [],
        parameters=[tournament_etag(200)],
        responses={200: TournamentCreatedOutputSerializer, **problems(*WRITE_PROBLEMS, 409)},
        tags=["tournaments"],
    )
    def post(self: TournamentActionApi, request: AuthedRequest, tournament_id: int) -> Response:
        return TournamentActionApi.post(self, request, tournament_id)

    name = "".join(part.title() for part in action.split("-")) + "Api"
    view: type[TournamentActionApi] = type(
        name, (TournamentActionApi,), {"action": action, "post": post}
    )
    return view.as_view()


class ClockApi(ApiView):
    @extend_schema(
        operation_id="tournaments_clock",
        summary="The clock: level, ante, next ante, seconds left",
        responses={200: ClockOutputSerializer, **problems(*READ_PROBLEMS)},
        tags=["tournaments"],
    )
    def get(self, request: AuthedRequest, tournament_id: int) -> Response:
        t, _ = tournament_for(request.user, tournament_id)
        return Response(ClockOutputSerializer(clock.clock_state(t)).data)

    @extend_schema(
        operation_id="tournaments_clock_action",
        summary="Start, pause, resume or adjust the clock (scorekeeper)",
        request=ClockInputSerializer,
        examples=[
            OpenApiExample("Start the clock", value={"action": "start"}, request_only=True),
            OpenApiExample(
                "Add two minutes", value={"action": "adjust", "seconds": 120}, request_only=True
            ),
        ],
        parameters=[tournament_etag(200)],
        responses={200: ClockChangedOutputSerializer, **problems(*WRITE_PROBLEMS, 409)},
        tags=["tournaments"],
    )
    def post(self, request: AuthedRequest, tournament_id: int) -> Response:
        t = _director(request, tournament_id)
        data = _valid(ClockInputSerializer, request.data)
        t = clock.clock_action(
            tournament_id=t.pk, action=data["action"], seconds=data["seconds"], user=request.user
        )
        return _changed(t, ClockChangedOutputSerializer, dict(clock.clock_state(t)))


class TableHandApi(ApiView):
    @extend_schema(
        operation_id="tournaments_table_hand",
        summary="Record a hand at a table of the current round (= sessions/{session}/hands/)",
        request=session_api.s.HandCreateInputSerializer,
        examples=[
            OpenApiExample(
                "Summary of a hand at table 2",
                value={"up_card": "QH", "passed": ["ben"], "tricks": {"ann": 3, "cal": 2}},
                request_only=True,
            )
        ],
        parameters=[
            session_api.IDEMPOTENCY_PARAMETER,
            session_api.IF_MATCH_PARAMETER,
            session_api.s.etag_header(200, 201),
        ],
        responses={
            201: session_api.s.HandWriteOutputSerializer,
            200: session_api.s.HandWriteOutputSerializer,
            **problems(*WRITE_PROBLEMS, 409),
        },
        tags=["tournaments"],
    )
    def post(self, request: AuthedRequest, tournament_id: int, number: int) -> Response:
        t = _director(request, tournament_id)
        rnd = t.rounds.order_by("-number").first()
        table = TournamentTable.objects.filter(round=rnd, number=number).first() if rnd else None
        if table is None:
            raise Problem(
                404, gettext("No table %(number)s in the current round.") % {"number": number}
            )
        # The session's own endpoint does the rest: verification, idempotency, If-Match.
        return session_api.HandListApi().post(request, table.session_id)


# The deal terms' rounding rule, by name (games.engine.tournament_payouts.chip_chop).
DEAL_ROUNDING = "largest_remainder"


class DealTermsOutputSerializer(serializers.Serializer):
    total = serializers.IntegerField(
        help_text=gettext_lazy("What the remaining places pay together.")
    )
    floor = serializers.IntegerField(help_text=gettext_lazy("The smallest of those prizes."))
    chips = AmountsByIdField(child=serializers.IntegerField(), help_text=gettext_lazy("id → chips"))
    even = AmountsByIdField(child=serializers.IntegerField(), help_text=gettext_lazy("id → share"))
    chips_chop = AmountsByIdField(
        child=serializers.IntegerField(), help_text=gettext_lazy("id → share")
    )
    icm = serializers.DictField(
        child=serializers.IntegerField(),
        help_text=gettext_lazy("id → share (Malmuth–Harville, from the stacks and prizes)"),
    )
    prizes = serializers.ListField(
        child=serializers.IntegerField(),
        help_text=gettext_lazy("What 1st, 2nd, … of the players still in would be paid."),
    )
    unit = serializers.IntegerField(
        help_text=gettext_lazy("The prize unit (minor units): every share is a multiple.")
    )
    rounding = serializers.ChoiceField(
        choices=[DEAL_ROUNDING],
        help_text=gettext_lazy(
            "How the shares are rounded. largest_remainder: a chip chop gives each player "
            "floor + (total − floor × players) × chips ÷ all chips, an ICM deal each "
            "player's Malmuth–Harville equity, an even chop total ÷ players; each rounded "
            "down to unit; the units left over go one each to the largest remainders "
            "(ties: the bigger stack, then the lower seat), anything below one unit to the "
            "biggest stack. The shares always add up to total."
        ),
    )


class DealApi(ApiView):
    @extend_schema(
        operation_id="tournaments_deal_terms",
        summary="What a final-table deal would share now",
        responses={200: DealTermsOutputSerializer, **problems(*READ_PROBLEMS, 409)},
        tags=["tournaments"],
    )
    def get(self, request: AuthedRequest, tournament_id: int) -> Response:
        t, _ = tournament_for(request.user, tournament_id)
        terms = deals.deal_terms(t)
        return Response(
            {
                "total": terms["total"],
                "floor": terms["floor"],
                "chips": {str(p): c for p, c in terms["chips"].items()},
                # From the same read of the table, so the shares agree with "chips".
                "even": {str(p): x for p, x in deals.propose(t, "even", terms=terms).items()},
                "chips_chop": {
                    str(p): x for p, x in deals.propose(t, "chips", terms=terms).items()
                },
                "icm": {str(p): x for p, x in deals.propose(t, "icm", terms=terms).items()},
                "prizes": terms["prizes"],
                "unit": terms["unit"],
                "rounding": DEAL_ROUNDING,
            }
        )

    @extend_schema(
        operation_id="tournaments_deal",
        summary="Record a final-table deal every remaining player agreed to; it ends the event",
        request=DealInputSerializer,
        examples=[
            OpenApiExample(
                "Chip chop agreed by the last three",
                value={"kind": "chips", "agreed": [3, 7, 12]},
                request_only=True,
            )
        ],
        parameters=[tournament_etag(200)],
        responses={200: TournamentCreatedOutputSerializer, **problems(*WRITE_PROBLEMS, 409)},
        tags=["tournaments"],
    )
    def post(self, request: AuthedRequest, tournament_id: int) -> Response:
        t = _director(request, tournament_id)
        data = _valid(DealInputSerializer, request.data)
        amounts = None
        if data.get("amounts") is not None:
            try:
                amounts = {int(k): v for k, v in data["amounts"].items()}
            except ValueError:
                raise Problem(400, gettext("amounts: keys are player ids.")) from None
        t = deals.make_deal(
            tournament_id=t.pk,
            kind=data["kind"],
            agreed=data["agreed"],
            amounts=amounts,
            user=request.user,
        )
        return _answer(request, t)


class PayoutsApi(ApiView):
    @extend_schema(
        operation_id="tournaments_payouts",
        summary="The payout table: places, shares, amounts, what was paid and what is due",
        description="While the tournament runs, `amount` is from the pool as it stands and "
        "all of it is `due`; after the end, `pool` is the pool that was paid out and `paid` "
        "what each place received (a deal or shared places can pay other amounts than "
        "the table's).",
        responses={200: PayoutsOutputSerializer, **problems(*READ_PROBLEMS)},
        tags=["tournaments"],
    )
    def get(self, request: AuthedRequest, tournament_id: int) -> Response:
        t, _ = tournament_for(request.user, tournament_id)
        # After the end the pool account is empty (paid out): the table is computed from
        # the pool as it was, what is left plus what was paid (issue 36).
        paid_by_place: dict[int, int] = defaultdict(int)
        for place, prize in t.entries.filter(place__isnull=False).values_list("place", "prize"):
            if place is not None:  # filtered out already; for the type checker
                paid_by_place[place] += prize
        pool = books.prize_balances(t)["pool"] + sum(paid_by_place.values())
        entrants = payouts.entrants_count(t)
        places = [
            {
                **row,
                "paid": paid_by_place.get(row["place"], 0),
                "due": max(0, row["amount"] - paid_by_place.get(row["place"], 0))
                if t.status != Tournament.Status.FINISHED
                else 0,
            }
            for row in payouts.payout_rows(t, pool, entrants)
        ]
        return Response(
            PayoutsOutputSerializer(
                {
                    "pool": pool,
                    "entrants": entrants,
                    "preset": t.payout_preset,
                    "unit": t.payout_unit,
                    "remainder_rule": payouts.REMAINDER_RULE,
                    "places": places,
                    "deal": _deal(t),
                }
            ).data
        )
