"""REST API v1 (mounted at /api/v1/): clubs, players, sessions, hands and the public verifier.

It follows the conventions of ``games.api.base`` (authentication, access, problem+json
errors, cursor pages), shared with ``games.api.ledger`` and ``games.api.tournaments``.
Money is never written here: views call ledger.postings, exactly as the web pages do.
"""

import re
from typing import TypeVar

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from games.access import club_for, hand_for, player_for, session_for
from games.api import serializers as s
from games.api.base import (
    CURSOR_PARAMETERS,
    IDEMPOTENCY_KEY_PARAMETER,
    RATE_LIMIT_HEADERS,
    READ_PROBLEMS,
    WRITE_PROBLEMS,
    ApiView,
    VerifyThrottle,
    absolute,
    form_errors,
    page_of,
    paginate,
    problems,
    role_for,
    valid,
)
from games.api.errors import (
    PROBLEM_MEDIA_TYPE,
    TYPE_INVALID_RECORD,
    Problem,
    invalid,
    translated_errors,
)
from games.api.idempotency import check_key
from games.api.schema import ref
from games.clubs.forms import ClubForm, PlayerForm
from games.clubs.service import archive_player, create_club
from games.engine import verify
from games.http import AuthedRequest
from games.models import GameSession, Hand, Membership, Player, Role
from games.money import DEFAULT_CURRENCY
from games.tournaments.clock import refuse_during_break
from ledger import postings

_T = TypeVar("_T")


def _with(obj: _T, **computed: object) -> _T:
    """``obj`` with the ``computed`` values set as attributes, so that one output
    serializer describes its fields and the computed parts alike."""
    for name, value in computed.items():
        setattr(obj, name, value)
    return obj


def _ids(value: object) -> list[int]:
    return [int(v) for v in value] if isinstance(value, list) else []


# --- clubs and players -------------------------------------------------------------------


class ClubListApi(ApiView):
    cursor_ordering = ("club_name", "club_id")

    @extend_schema(
        operation_id="clubs_list",
        summary="Your clubs, by name",
        parameters=CURSOR_PARAMETERS,
        responses={200: page_of(s.ClubOutputSerializer), **problems(400, 401, 406)},
        tags=["clubs"],
    )
    def get(self, request: AuthedRequest) -> Response:
        memberships = (
            Membership.objects.filter(user=request.user)
            .select_related("club")
            .annotate(club_name=F("club__name"))
        )
        return paginate(
            self,
            request,
            memberships,
            s.ClubOutputSerializer,
            rows=lambda page: [_with(m.club, role=m.role) for m in page],
        )

    @extend_schema(
        operation_id="clubs_create",
        summary="Create a club; you become its owner",
        request=s.ClubInputSerializer,
        responses={201: s.ClubOutputSerializer, **problems(*WRITE_PROBLEMS)},
        parameters=[s.LOCATION_HEADER],
        examples=[
            OpenApiExample(
                "A club", value={"name": "Thursday Bourré", "currency": "USD"}, request_only=True
            )
        ],
        tags=["clubs"],
    )
    def post(self, request: AuthedRequest) -> Response:
        data = valid(s.ClubInputSerializer, request.data)
        currency = data.get("currency") or DEFAULT_CURRENCY
        form = ClubForm(data={"name": data["name"], "currency": currency.code})
        if not form.is_valid():
            raise invalid(form_errors(form))
        club = create_club(form.save(commit=False), request.user)
        return Response(
            s.ClubOutputSerializer(_with(club, role=Role.OWNER)).data,
            status=201,
            headers={"Location": absolute(request, "api_club_detail", club.pk)},
        )


class ClubDetailApi(ApiView):
    @extend_schema(
        operation_id="clubs_retrieve",
        summary="One club",
        responses={200: s.ClubOutputSerializer, **problems(*READ_PROBLEMS)},
        tags=["clubs"],
    )
    def get(self, request: AuthedRequest, club_id: int) -> Response:
        club, membership = club_for(request.user, club_id)
        return Response(s.ClubOutputSerializer(_with(club, role=membership.role)).data)

    @extend_schema(
        operation_id="clubs_update",
        summary="Rename a club or change its currency (owner)",
        request=s.ClubUpdateInputSerializer,
        responses={200: s.ClubOutputSerializer, **problems(*WRITE_PROBLEMS)},
        examples=[OpenApiExample("Rename", value={"name": "Friday Bourré"}, request_only=True)],
        tags=["clubs"],
    )
    def patch(self, request: AuthedRequest, club_id: int) -> Response:
        club, membership = club_for(request.user, club_id, Role.OWNER)
        data = valid(s.ClubUpdateInputSerializer, request.data)
        # The club settings page's own form.
        form = ClubForm(
            data={
                "name": data.get("name", club.name),
                # A code of the list, or the club's own symbol (a currency off the list).
                "currency": data["currency"].code if data.get("currency") else club.currency.symbol,
            },
            instance=club,
        )
        if not form.is_valid():
            raise invalid(form_errors(form))
        club = form.save()
        return Response(s.ClubOutputSerializer(_with(club, role=membership.role)).data)


class PlayerListApi(ApiView):
    cursor_ordering = ("name", "id")

    @extend_schema(
        operation_id="players_list",
        summary="A club's roster, by name",
        parameters=CURSOR_PARAMETERS,
        responses={200: page_of(s.PlayerOutputSerializer), **problems(400, *READ_PROBLEMS)},
        tags=["players"],
    )
    def get(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id)
        return paginate(
            self, request, club.players.select_related("user"), s.PlayerOutputSerializer
        )

    @extend_schema(
        operation_id="players_create",
        summary="Add a player to the roster (scorekeeper)",
        request=s.PlayerCreateInputSerializer,
        responses={201: s.PlayerOutputSerializer, **problems(*WRITE_PROBLEMS)},
        parameters=[s.LOCATION_HEADER],
        examples=[OpenApiExample("A new player", value={"name": "Ann"}, request_only=True)],
        tags=["players"],
    )
    def post(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id, role_for(request))
        data = valid(s.PlayerCreateInputSerializer, request.data)
        # The roster page's own form: same name clean-up and duplicate check.
        player = _save_player(PlayerForm(data={"name": data["name"]}, club=club), data["name"])
        return Response(
            s.PlayerOutputSerializer(player).data,
            status=201,
            headers={"Location": absolute(request, "api_player_detail", player.pk)},
        )


class PlayerDetailApi(ApiView):
    @extend_schema(
        operation_id="players_retrieve",
        summary="One player",
        responses={200: s.PlayerOutputSerializer, **problems(*READ_PROBLEMS)},
        tags=["players"],
    )
    def get(self, request: AuthedRequest, player_id: int) -> Response:
        player, _ = player_for(request.user, player_id)
        return Response(s.PlayerOutputSerializer(player).data)

    @extend_schema(
        operation_id="players_update",
        summary="Rename, archive or restore a player (scorekeeper)",
        description=(
            "Past hands keep the name they were recorded with. An archived player is off the "
            "roster pickers (new sessions, seats, tournaments) with every hand and statistic "
            "kept; archiving is refused (409 `player_seated`) while they hold a seat in an "
            "open session."
        ),
        request=s.PlayerUpdateInputSerializer,
        responses={200: s.PlayerOutputSerializer, **problems(*WRITE_PROBLEMS, 409)},
        examples=[
            OpenApiExample("Rename", value={"name": "Annie"}, request_only=True),
            OpenApiExample("Archive", value={"archived": True}, request_only=True),
        ],
        tags=["players"],
    )
    def patch(self, request: AuthedRequest, player_id: int) -> Response:
        player, _ = player_for(request.user, player_id, Role.SCOREKEEPER)
        data = valid(s.PlayerUpdateInputSerializer, request.data)
        if "name" in data:
            form = PlayerForm(data={"name": data["name"]}, instance=player, club=player.club)
            player = _save_player(form, data["name"])
        if "archived" in data:
            player = archive_player(player, data["archived"])
        return Response(s.PlayerOutputSerializer(player).data)


def _save_player(form: PlayerForm, name: str) -> Player:
    """The roster form's clean-up and duplicate check, then save (one error code for a
    duplicate name, whether the form or the database constraint finds it)."""
    if not form.is_valid():
        raise invalid(form_errors(form))
    try:
        with transaction.atomic():
            return form.save()
    except IntegrityError:  # a concurrent request took the same name
        raise invalid(
            [
                _field_error(
                    "name",
                    "duplicate_name",
                    gettext("%(name)s is already on the roster.") % {"name": name},
                )
            ]
        ) from None


# --- sessions ----------------------------------------------------------------------------


class SessionFilterSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=GameSession.Status.choices, required=False)


class SessionListApi(ApiView):
    cursor_ordering = "-id"

    @extend_schema(
        operation_id="sessions_list",
        summary="A club's sessions, newest first",
        parameters=[
            OpenApiParameter("status", str, enum=[c for c, _ in GameSession.Status.choices]),
            *CURSOR_PARAMETERS,
        ],
        responses={200: page_of(s.SessionOutputSerializer), **problems(400, *READ_PROBLEMS)},
        tags=["sessions"],
    )
    def get(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id)
        filters = valid(SessionFilterSerializer, request.query_params.dict())
        sessions = GameSession.objects.filter(club=club)
        if "status" in filters:
            sessions = sessions.filter(status=filters["status"])
        return paginate(self, request, sessions, s.SessionOutputSerializer)

    @extend_schema(
        operation_id="sessions_create",
        summary="Start a session (scorekeeper)",
        request=s.SessionCreateInputSerializer,
        responses={201: s.SessionDetailOutputSerializer, **problems(*WRITE_PROBLEMS)},
        parameters=[s.LOCATION_HEADER, s.etag_header(201)],
        examples=[
            OpenApiExample(
                "Four players, the last one deals, ante 2",
                value={
                    "name": "Thursday night",
                    "players": [12, 13, 14, 15],
                    "dealer": 15,
                    "rules": {"ante": 2},
                    "leftover_policy": "carry_to_club",
                },
                request_only=True,
            )
        ],
        tags=["sessions"],
    )
    def post(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id, role_for(request))
        data = valid(s.SessionCreateInputSerializer, request.data)
        ids = data["players"]
        errors = []
        if len(set(ids)) != len(ids):
            errors.append(
                _field_error("players", "duplicate_player", gettext("A player is listed twice."))
            )
        by_id = club.players.in_bulk(ids)
        unknown = [i for i in ids if i not in by_id]
        if unknown:
            errors.append(
                _field_error(
                    "players",
                    "unknown_player",
                    gettext("No player with id %(ids)s in this club.")
                    % {"ids": ", ".join(map(str, unknown))},
                )
            )
        if data["dealer"] not in ids:
            errors.append(
                _field_error(
                    "dealer", "bad_dealer", gettext("The dealer must be one of the players.")
                )
            )
        if errors:
            raise invalid(errors)
        # Bad rules (RuleError) and other setup errors (SetupError) become 400 problems.
        session = postings.start_session(
            club=club,
            name=data["name"],
            players=[by_id[i] for i in ids],
            dealer=by_id[data["dealer"]],
            rules=data["rules"],
            currency=data.get("currency") or club.currency,
            user=request.user,
            mode=data["mode"],
            leftover_policy=data["leftover_policy"],
        )
        return Response(
            session_detail(session),
            status=201,
            headers={
                "Location": absolute(request, "api_session_detail", session.pk),
                "ETag": _etag(session),
            },
        )


class SessionDetailApi(ApiView):
    @extend_schema(
        operation_id="sessions_retrieve",
        summary="A session: pot, dealer, excused players, seats and balances",
        description=(
            "The ETag is the session's version: poll with `If-None-Match` and get a 304 "
            "(no body, two queries) until something changes; send it as `If-Match` when "
            "recording a hand."
        ),
        parameters=[
            OpenApiParameter(
                "If-None-Match", str, OpenApiParameter.HEADER, description="A previous ETag."
            ),
            s.etag_header(200, 304),
        ],
        responses={
            200: s.SessionDetailOutputSerializer,
            304: OpenApiResponse(description="Not modified since that ETag."),
            **problems(*READ_PROBLEMS),
        },
        tags=["sessions"],
    )
    def get(self, request: AuthedRequest, session_id: int) -> Response:
        session, _ = session_for(request.user, session_id)
        etag = _etag(session)
        if etag in _etags(request.headers.get("If-None-Match", "")):
            return Response(status=304, headers={"ETag": etag})
        return Response(session_detail(session), headers={"ETag": etag})


def _etags(header: str) -> set[str]:
    """The ETags of an If-None-Match header, weak ones compared as strong (RFC 9110)."""
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


def _etag(session: GameSession) -> str:
    return f'"{session.version}"'


def session_detail(session: GameSession) -> dict:
    session = GameSession.objects.select_related("next_dealer").get(pk=session.pk)
    seats = list(session.seats.select_related("player").order_by("position", "id"))
    players = {seat.player_id: seat.player for seat in seats}
    balances = session.net_by_player()
    excused_ids = _ids(session.excused)
    missing = [i for i in excused_ids if i not in players]
    if missing:
        players.update(Player.objects.in_bulk(missing))
    dealer = session.next_dealer
    # Computed parts go on the instance, so one output serializer describes it all.
    _with(
        session,
        pot=postings.pot_balance(session),
        dealer={"id": dealer.pk, "name": dealer.name} if dealer else None,
        excused_players=[{"id": i, "name": players[i].name} for i in excused_ids if i in players],
        seat_list=[
            {
                "player": {"id": seat.player_id, "name": seat.player.name},
                "position": seat.position,
                "active": seat.active,
            }
            for seat in seats
        ],
        balances=[
            {
                "player": {"id": seat.player_id, "name": seat.player.name},
                "net": balances.get(seat.player_id, 0),
            }
            for seat in seats
        ],
        next_hand=postings.session_state(session),
    )
    return s.SessionDetailOutputSerializer(session).data


# --- hands -------------------------------------------------------------------------------

_ETAG_RE = re.compile(r'(?:W/)?"?(\d{1,19})"?')

# Every write documents Idempotency-Key already (games.api.base.ApiAutoSchema); this name
# stays for modules that list it explicitly (games.api.tournament_actions).
IDEMPOTENCY_PARAMETER = IDEMPOTENCY_KEY_PARAMETER
IF_MATCH_PARAMETER = OpenApiParameter(
    "If-Match",
    str,
    OpenApiParameter.HEADER,
    description='The session ETag (`"<version>"`) the record was made against; 409 if stale. '
    "Same as `session_version` in the body.",
)


class HandFilterSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Hand.Status.choices, required=False)


class HandListApi(ApiView):
    # Not "number": a digital hand still being played has none yet.
    cursor_ordering = "id"

    @extend_schema(
        operation_id="hands_list",
        summary="A session's hands, in playing order",
        parameters=[
            OpenApiParameter("status", str, enum=[c for c, _ in Hand.Status.choices]),
            *CURSOR_PARAMETERS,
        ],
        responses={200: page_of(s.HandOutputSerializer), **problems(400, *READ_PROBLEMS)},
        tags=["hands"],
    )
    def get(self, request: AuthedRequest, session_id: int) -> Response:
        session, _ = session_for(request.user, session_id)
        filters = valid(HandFilterSerializer, request.query_params.dict())
        hands = Hand.objects.filter(session=session).defer("record", "before", "shortfalls")
        if "status" in filters:
            hands = hands.filter(status=filters["status"])
        return paginate(self, request, hands, s.HandOutputSerializer)

    @extend_schema(
        operation_id="hands_create",
        summary="Record a hand from the table's record (scorekeeper)",
        description=(
            "The body is the table's part of a hand record (HAND_RECORD.md); the session "
            "supplies players, dealer, carry, excused and rules (if you send them they must "
            "agree with the session). The hand is verified and settled exactly as the web "
            "form does it. 201: recorded; 200: replay of an `Idempotency-Key` already used "
            "in this session by the web's offline queue (nothing written); 400 `hand-rejected`: the engine's errors; "
            "409: `session_version`/`If-Match` is stale or the session is closed; 409 "
            "`during_break`: a tournament table's event is on a scheduled break (send the "
            'hand again with `"during_break": true` if it was played before the break).'
        ),
        parameters=[IF_MATCH_PARAMETER, s.LOCATION_HEADER, s.etag_header(200, 201)],
        request=s.HandCreateInputSerializer,
        responses={
            201: s.HandWriteOutputSerializer,
            200: s.HandWriteOutputSerializer,
            **problems(*WRITE_PROBLEMS, 409),
            (400, PROBLEM_MEDIA_TYPE): s.BadRequestProblemSerializer,
        },
        examples=[
            OpenApiExample(
                "Summary of a hand",
                value={
                    "up_card": "QH",
                    "passed": ["ben"],
                    "tricks": {"ann": 3, "cal": 2, "dee": 0},
                },
                request_only=True,
            )
        ],
        tags=["hands"],
    )
    def post(self, request: AuthedRequest, session_id: int) -> Response:
        session, _ = session_for(request.user, session_id, role_for(request))
        key = _idempotency_key(request)
        entry = dict(valid(s.HandCreateInputSerializer, request.data))
        _confirm_break(session, entry.pop("during_break", False))
        expected = _expected_version(request, entry.pop("session_version", None))
        # record_hand replays a known key, rejects session fields that disagree with the
        # session (session_mismatch) and raises HandRejected / StaleState / SessionClosed,
        # which games.api_errors turns into problems.
        hand, created = postings.record_hand(
            session_id=session.pk,
            entry=entry,
            idempotency_key=key,
            expected_version=expected,
            user=request.user,
        )
        # The session's version now (issue 36): the next write's If-Match.
        version = GameSession.objects.values_list("version", flat=True).get(pk=session.pk)
        return Response(
            {**s.HandDetailOutputSerializer(hand).data, "version": version},
            status=201 if created else 200,
            headers={
                "Location": absolute(request, "api_hand_detail", hand.pk),
                "ETag": f'"{version}"',
            },
        )


def _confirm_break(session: GameSession, confirmed: bool) -> None:
    """A hand at a tournament table during its scheduled break asks for one confirmation,
    as the record form's checkbox does (``clock.refuse_during_break``)."""
    if session.chip_limited and not confirmed:
        refuse_during_break(session.pk)


class HandDetailApi(ApiView):
    @extend_schema(
        operation_id="hands_retrieve",
        summary="One hand with its record and verdict",
        responses={200: s.HandDetailOutputSerializer, **problems(*READ_PROBLEMS)},
        tags=["hands"],
    )
    def get(self, request: AuthedRequest, hand_id: int) -> Response:
        hand, _ = hand_for(request.user, hand_id)
        return Response(s.HandDetailOutputSerializer(hand).data)


class HandVerifyApi(ApiView):
    """The stateless verifier of HAND_RECORD.md: no login, no CSRF, writes nothing."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [VerifyThrottle]
    throttle_scope = "verify"

    @extend_schema(
        operation_id="hands_verify",
        summary="Verify and settle a hand record (public, rate limited)",
        description=(
            "Checks a hand record (HAND_RECORD.md) and returns the verdict: 200 when the "
            "record is valid, 400 with the verdict's `errors` when it is not. No login is "
            "needed; requests are rate limited per client. Nothing is stored."
        ),
        auth=[],
        parameters=RATE_LIMIT_HEADERS,
        request={"application/json": ref("HandRecord")},
        responses={
            200: s.VerdictSerializer,
            (400, PROBLEM_MEDIA_TYPE): s.InvalidRecordProblemSerializer,
            **problems(406, 415, 429),
        },
        examples=[
            OpenApiExample(
                "A summary record",
                value={
                    "players": ["ann", "ben", "cal", "dee"],
                    "dealer": "dee",
                    "carry": 0,
                    "up_card": "QH",
                    "passed": ["ben"],
                    "tricks": {"ann": 3, "cal": 2, "dee": 0},
                },
                request_only=True,
            )
        ],
        tags=["hands"],
    )
    def post(self, request: Request) -> Response:
        try:
            record = request.data
        except exceptions.ParseError as exc:
            raise Problem(
                400,
                gettext("The body is not valid JSON."),
                title=gettext("Invalid hand record"),
                type=TYPE_INVALID_RECORD,
                errors=[{"code": "bad_json", "message": str(exc.detail)}],
                valid=False,
            ) from None
        verdict = verify(record)
        if verdict.get("valid"):
            return Response(verdict)
        # An invalid verdict is only {valid, errors} (HAND_RECORD.md): the problem carries both.
        raise Problem(
            400,
            gettext("The hand record is not valid; see errors."),
            title=gettext("Invalid hand record"),
            type=TYPE_INVALID_RECORD,
            errors=translated_errors(verdict.get("errors")),
            valid=False,
        )


# --- helpers -----------------------------------------------------------------------------


def _field_error(field: str, code: str, message: str) -> dict:
    return {"field": field, "code": code, "message": message}


def _idempotency_key(request: Request) -> str:
    key = request.headers.get("Idempotency-Key")
    # No key, no deduplication (record_hand ignores an empty key).
    return "" if key is None else check_key(key)


def _expected_version(request: Request, body_version: int | None) -> int | None:
    header = request.headers.get("If-Match")
    if header is None or header.strip() == "*":
        return body_version
    match = _ETAG_RE.fullmatch(header.strip())
    if not match:
        raise invalid(
            [_field_error("If-Match", "bad_if_match", gettext('Send the session ETag, e.g. "12".'))]
        )
    version = int(match.group(1))
    if body_version is not None and body_version != version:
        raise invalid(
            [
                _field_error(
                    "session_version",
                    "version_mismatch",
                    gettext("session_version and If-Match name different versions."),
                )
            ]
        )
    return version
