"""REST API v1, a session's writes between and after hands: house rules, seats, buy-ins
and cash-outs, voiding a hand, closing, and settlement marks (ticking a transfer paid, or
clearing a mark the books no longer count, as the settlement page does).

Each view checks access (scorekeeper) and calls the same `ledger.postings` function as
the web page, and answers the session's new `version` with its `ETag` (issue 36: a
client chains `If-Match` from any write's answer); refusals (`SetupError`, `SessionClosed`, `StaleState`, `VoidRefused`,
`RuleError`) become problems in games.api.errors. A seat is looked up through its
session: a player without a seat there is a 404. No money is computed here.
"""

from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.http import Http404
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from games.access import hand_for, session_for
from games.api import serializers as s
from games.api.base import WRITE_PROBLEMS, ApiView, problems, valid
from games.api.errors import INVALID_DETAIL, INVALID_TITLE, TYPE_VALIDATION, Problem
from games.api.ledger import SettlementOutputSerializer, settlement_data
from games.api.serializers import MAX_ID, StrictInputSerializer
from games.api.views import session_detail
from games.converters import parse_id
from games.http import AuthedRequest
from games.models import GameSession, Hand, Player, Role
from games.sessions.selectors import mark_target
from ledger import postings
from ledger.models import Posting


def _id(help_text: str = "") -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text=help_text)


_CONFLICTS = (*WRITE_PROBLEMS, 409)

_VERSION_HELP = gettext_lazy(
    "The session's version after this write (also the ETag): send it as "
    "`session_version` or `If-Match` with the next write."
)


def _version_field() -> serializers.IntegerField:
    return serializers.IntegerField(help_text=_VERSION_HELP)


def session_version(session_id: int) -> int:
    """The session's version now, read after the write committed."""
    return GameSession.objects.values_list("version", flat=True).get(pk=session_id)


def versioned(data: Any, session_id: int, status: int = 200, **headers: str) -> Response:
    """A write's answer: `data` (a dict) with the session's new `version`, and its ETag
    (issue 36: a client chains `If-Match` from any write's answer)."""
    version = session_version(session_id)
    return Response(
        {**data, "version": version}, status=status, headers={**headers, "ETag": f'"{version}"'}
    )


class RulesInputSerializer(StrictInputSerializer):
    rules = s.RulesField(
        help_text=gettext_lazy("The whole set of switches; missing ones take defaults.")
    )


class SeatAddInputSerializer(StrictInputSerializer):
    player = _id("A player of the club.")
    position = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=7,
        help_text=gettext_lazy("Seat index; default: the end."),
    )


class SeatUpdateInputSerializer(StrictInputSerializer):
    active = serializers.BooleanField(
        help_text=gettext_lazy("false: leaves the table; true: comes back.")
    )


class SeatStateOutputSerializer(serializers.Serializer):
    player = serializers.IntegerField(source="player_id")
    position = serializers.IntegerField()
    active = serializers.BooleanField()
    version = _version_field()


class BankMoveInputSerializer(StrictInputSerializer):
    player = _id()
    amount = s.StrictIntegerField(
        code="bad_amount",
        min_value=1,
        max_value=10**15,
        help_text=gettext_lazy("Minor units, > 0."),
    )


class PostingRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    amount = serializers.IntegerField()
    session = serializers.IntegerField(source="session_id")
    version = _version_field()


class CloseInputSerializer(StrictInputSerializer):
    leftover_policy = serializers.ChoiceField(
        choices=GameSession.LeftoverPolicy.choices,
        required=False,
        help_text=gettext_lazy("What happens to the pot left over; default: the session's policy."),
    )
    settle = serializers.ChoiceField(
        choices=[("tonight", "tonight"), ("tab", "tab")],
        default="tonight",
        help_text=gettext_lazy(
            "`tonight` (default): the transfers are paid tonight and ticked on the settlement; "
            "`tab`: every transfer goes on the club's tab in the same step as the close."
        ),
    )


class VoidInputSerializer(StrictInputSerializer):
    reason = serializers.CharField(max_length=200, required=False, allow_blank=True)
    session_version = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)


class MarkInputSerializer(StrictInputSerializer):
    payer = _id("The paying player's id.")
    payee = _id("The receiving player's id.")
    paid = serializers.BooleanField(default=True)


def _scorekeeper_session(request: AuthedRequest, session_id: int) -> GameSession:
    session, _ = session_for(request.user, session_id, Role.SCOREKEEPER)
    return session


def _seat_state(seat: Any) -> dict[str, Any]:
    return {"player": seat.player_id, "position": seat.position, "active": seat.active}


def detail_answer(session: GameSession) -> Response:
    """A session detail after a write, with its ETag (its `version`)."""
    data = session_detail(session)
    return Response(data, headers={"ETag": f'"{data["version"]}"'})


def _club_player(session: GameSession, player_id: int) -> Player:
    player = Player.objects.filter(pk=player_id, club_id=session.club_id).first()
    if player is None:
        raise Problem(
            400,
            INVALID_DETAIL,
            title=INVALID_TITLE,
            type=TYPE_VALIDATION,
            errors=[
                {
                    "field": "player",
                    "code": "unknown_player",
                    "message": gettext("No such player here."),
                }
            ],
        )
    return player


class SessionRulesApi(ApiView):
    @extend_schema(
        operation_id="sessions_rules_update",
        summary="Change the house rules from the next hand on (scorekeeper)",
        request=RulesInputSerializer,
        responses={200: s.SessionDetailOutputSerializer, **problems(*_CONFLICTS)},
        parameters=[s.etag_header(200)],
        examples=[
            OpenApiExample(
                "Ante 2, pot limit 10",
                value={"rules": {"ante": 2, "pot_limit": 10}},
                request_only=True,
            )
        ],
        tags=["sessions"],
    )
    def put(self, request: AuthedRequest, session_id: int) -> Response:
        session = _scorekeeper_session(request, session_id)
        data = valid(RulesInputSerializer, request.data)
        session = postings.change_rules(
            session_id=session.pk, rules=data["rules"], user=request.user
        )
        return detail_answer(session)


class SeatListApi(ApiView):
    @extend_schema(
        operation_id="sessions_seats_create",
        summary="Seat a player between hands (scorekeeper)",
        request=SeatAddInputSerializer,
        responses={201: SeatStateOutputSerializer, **problems(*_CONFLICTS)},
        parameters=[s.etag_header(201)],
        examples=[OpenApiExample("Seat a player", value={"player": 12}, request_only=True)],
        tags=["sessions"],
    )
    def post(self, request: AuthedRequest, session_id: int) -> Response:
        session = _scorekeeper_session(request, session_id)
        data = valid(SeatAddInputSerializer, request.data)
        seat = postings.add_seat(
            session_id=session.pk,
            player=_club_player(session, data["player"]),
            user=request.user,
            position=data.get("position"),
        )
        return versioned(_seat_state(seat), session.pk, status=201)


class SeatDetailApi(ApiView):
    @extend_schema(
        operation_id="sessions_seats_update",
        summary="A player leaves the table or comes back (scorekeeper)",
        request=SeatUpdateInputSerializer,
        responses={200: SeatStateOutputSerializer, **problems(*_CONFLICTS)},
        parameters=[s.etag_header(200)],
        examples=[OpenApiExample("Leave the table", value={"active": False}, request_only=True)],
        tags=["sessions"],
    )
    def patch(self, request: AuthedRequest, session_id: int, player_id: int) -> Response:
        session = _scorekeeper_session(request, session_id)
        # The seat is the session's child, named by its player: another club's player,
        # or one without a seat here, is the same 404 as a missing session.
        if not session.seats.filter(player_id=player_id).exists():
            raise Http404("No such seat")
        data = valid(SeatUpdateInputSerializer, request.data)
        seat = postings.set_seat_active(
            session_id=session.pk, player_id=player_id, active=data["active"], user=request.user
        )
        return versioned(_seat_state(seat), session.pk)


def _bank_view(
    kind: str, operation_id: str, summary: str, move: Callable[..., Posting]
) -> type[ApiView]:
    class BankMoveApi(ApiView):
        @extend_schema(
            operation_id=operation_id,
            summary=summary,
            request=BankMoveInputSerializer,
            responses={201: PostingRefSerializer, **problems(*_CONFLICTS)},
            parameters=[s.etag_header(201)],
            examples=[
                OpenApiExample("20 to ann", value={"player": 12, "amount": 2000}, request_only=True)
            ],
            tags=["ledger"],
        )
        def post(self, request: AuthedRequest, session_id: int) -> Response:
            session = _scorekeeper_session(request, session_id)
            data = valid(BankMoveInputSerializer, request.data)
            player = _club_player(session, data["player"])
            posting = move(
                session_id=session.pk, player_id=player.pk, amount=data["amount"], user=request.user
            )
            ref = {
                "id": posting.pk,
                "kind": posting.kind,
                "amount": data["amount"],
                "session": posting.session_id,
            }
            return versioned(ref, session.pk, status=201)

    BankMoveApi.__name__ = BankMoveApi.__qualname__ = f"{kind}Api"
    return BankMoveApi


BuyInApi = _bank_view(
    "BuyIn", "sessions_buy_in", "Chips from the bank to a seated player", postings.buy_in
)
CashOutApi = _bank_view(
    "CashOut", "sessions_cash_out", "Chips from a player back to the bank", postings.cash_out
)


class SessionCloseApi(ApiView):
    @extend_schema(
        operation_id="sessions_close",
        summary="Close the session; the pot left over goes by the leftover policy",
        description=(
            "Closing a closed session returns it unchanged (and puts nothing on the tab). "
            "With `settle: tab` the whole settlement goes on the club's tab."
        ),
        request=CloseInputSerializer,
        responses={200: s.SessionDetailOutputSerializer, **problems(*_CONFLICTS)},
        parameters=[s.etag_header(200)],
        examples=[
            OpenApiExample(
                "Share the leftover", value={"leftover_policy": "share_equally"}, request_only=True
            )
        ],
        tags=["sessions"],
    )
    def post(self, request: AuthedRequest, session_id: int) -> Response:
        session = _scorekeeper_session(request, session_id)
        data = valid(CloseInputSerializer, request.data)
        was_open = session.is_open
        with transaction.atomic():  # closed and on the tab, or neither (as the close page)
            session = postings.close_session(
                session_id=session.pk,
                user=request.user,
                leftover_policy=data.get("leftover_policy"),
            )
            if data["settle"] == "tab" and was_open:
                postings.put_on_tab(session_id=session.pk, user=request.user)
        return detail_answer(session)


class HandVoidApi(ApiView):
    @extend_schema(
        operation_id="hands_void",
        summary="Void (undo) the latest recorded hand: its postings are reversed",
        description=(
            "Only the session's latest recorded hand can be voided (409 `void-refused` "
            "`not_latest` otherwise); voiding a voided hand returns it unchanged."
        ),
        request=VoidInputSerializer,
        responses={200: s.HandWriteOutputSerializer, **problems(*_CONFLICTS)},
        parameters=[s.etag_header(200)],
        examples=[
            OpenApiExample("Wrong winner", value={"reason": "wrong winner"}, request_only=True)
        ],
        tags=["hands"],
    )
    def post(self, request: AuthedRequest, hand_id: int) -> Response:
        hand, _ = hand_for(request.user, hand_id, Role.SCOREKEEPER)
        data = valid(VoidInputSerializer, request.data)
        hand = postings.void_hand(
            session_id=hand.session_id,
            hand_id=hand.pk,
            user=request.user,
            reason=data.get("reason", ""),
            expected_version=data.get("session_version"),
        )
        return versioned(s.HandDetailOutputSerializer(hand).data, hand.session_id)


class CorrectInputSerializer(s.HandCreateInputSerializer):
    """The hand's corrected table record, plus fixes for later hands it would break."""

    fixes = s.CorrectionFixesField(
        child=serializers.DictField(),
        required=False,
        help_text=gettext_lazy(
            "Later hand number → its corrected table record (after a 409 "
            "`chain-broken` named that hand)."
        ),
    )
    reason = serializers.CharField(max_length=200, required=False, allow_blank=True)
    dry_run = serializers.BooleanField(
        default=False, help_text=gettext_lazy("Only say what would change; write nothing.")
    )


class HandChangeSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    hand = serializers.IntegerField(source="hand_id")
    corrected = serializers.BooleanField(help_text=gettext_lazy("false: re-settled by the chain."))
    money_changed = serializers.BooleanField()
    old_result = s.HandResultField()
    new_result = s.HandResultField()


class CorrectionOutputSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    applied = serializers.BooleanField(help_text=gettext_lazy("false for a dry run."))
    version = serializers.IntegerField(
        help_text=gettext_lazy(
            "The session's version after this call (also the ETag). For a dry run, the "
            "version it was checked against: send it as `session_version` to apply the "
            "correction only if nothing changed since."
        )
    )
    changes = s.AmountsByPlayerField(
        child=serializers.IntegerField(), help_text=gettext_lazy("Player → change of net.")
    )
    nets_after = s.AmountsByPlayerField(child=serializers.IntegerField())
    hands = HandChangeSerializer(many=True)


class HandCorrectApi(ApiView):
    @extend_schema(
        operation_id="hands_correct",
        summary="Correct any recorded hand; the later hands are re-settled (scorekeeper)",
        description=(
            "The body is the hand's corrected table record (as for recording). Every "
            "later hand is replayed on top; money that changes is reversed and posted "
            "again, in one transaction (ledger.postings.correct_hand, as the web page). "
            "409 `chain-broken` names a later hand the correction makes impossible: send "
            "its own corrected record in `fixes` and try again. `dry_run` answers what "
            "would change and writes nothing."
        ),
        request=CorrectInputSerializer,
        responses={200: CorrectionOutputSerializer, **problems(*_CONFLICTS)},
        parameters=[s.etag_header(200)],
        examples=[
            OpenApiExample(
                "ann, not cal, took the third trick",
                value={
                    "up_card": "QH",
                    "passed": ["ben"],
                    "tricks": {"ann": 3, "cal": 2, "dee": 0},
                    "reason": "tricks miscounted",
                },
                request_only=True,
            )
        ],
        tags=["hands"],
    )
    def post(self, request: AuthedRequest, hand_id: int) -> Response:
        hand, _ = hand_for(request.user, hand_id, Role.SCOREKEEPER)
        entry = dict(valid(CorrectInputSerializer, request.data))
        fixes = {
            n: e for k, e in entry.pop("fixes", {}).items() if (n := parse_id(str(k))) is not None
        }
        correction = postings.correct_hand(
            session_id=hand.session_id,
            number=int(hand.number or 0),
            entry={
                k: v for k, v in entry.items() if k not in ("reason", "dry_run", "session_version")
            },
            fixes=fixes,
            expected_version=entry.get("session_version"),
            user=request.user,
            apply=not entry.get("dry_run"),
            reason=entry.get("reason", ""),
        )
        # The version after the write: the locked session the correction bumped (issue
        # 36: `Correction.version` is the version it was checked against).
        done = correction.session
        if correction.applied and done is not None:
            correction.version = done.version
        return Response(
            CorrectionOutputSerializer(correction).data,
            headers={"ETag": f'"{correction.version}"'},
        )


class SettlementMarkApi(ApiView):
    @extend_schema(
        operation_id="sessions_settlement_mark",
        summary="Mark a settlement transfer as paid, or not (scorekeeper)",
        description=(
            "The transfer is named by payer and payee (player ids) as the settlement lists "
            "it; the amount marked is the transfer's amount now. Transfers to or from the "
            "pot or kitty cannot be marked (409 `not_markable`). `paid: false` also clears "
            "one of the settlement's `earlier_marks` (named by its payer and payee); such a "
            "mark cannot be set again (409 `no_such_transfer`)."
        ),
        request=MarkInputSerializer,
        responses={200: SettlementOutputSerializer, **problems(*_CONFLICTS)},
        parameters=[s.etag_header(200)],
        examples=[
            OpenApiExample(
                "ben paid ann", value={"payer": 13, "payee": 12, "paid": True}, request_only=True
            )
        ],
        tags=["ledger"],
    )
    def post(self, request: AuthedRequest, session_id: int) -> Response:
        session = _scorekeeper_session(request, session_id)
        data = valid(MarkInputSerializer, request.data)
        target = mark_target(session, str(data["payer"]), str(data["payee"]), data["paid"])
        if target is None or not target.markable:
            code = "no_such_transfer" if target is None else "not_markable"
            message = (
                gettext("That transfer is not part of the settlement.")
                if target is None
                else gettext("A transfer with the pot or kitty cannot be marked.")
            )
            raise Problem(409, message, errors=[{"code": code, "message": message}])
        postings.mark_transfer_paid(
            session_id=session.pk,
            payer_id=target.payer_id,
            payee_id=target.payee_id,
            amount=target.amount,
            paid=data["paid"],
            user=request.user,
        )
        # A mark is a note, not money: it leaves the session's version as it was. The
        # answer still carries that version and its ETag, so a client chains If-Match.
        fresh = GameSession.objects.get(pk=session.pk)
        return Response(settlement_data(fresh), headers={"ETag": f'"{fresh.version}"'})


__all__ = [
    "BuyInApi",
    "CashOutApi",
    "Hand",
    "HandVoidApi",
    "SeatDetailApi",
    "SeatListApi",
    "SessionCloseApi",
    "SessionRulesApi",
    "SettlementMarkApi",
]
