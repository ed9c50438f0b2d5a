"""REST API v1, the club's tab (issue #34): balances with the transfers that clear them,
payments (record, confirm, reverse), and the tab's history (cursor pages, and a CSV of
its own).

Money is written by ``ledger.postings.tab`` only; who may do what is the Tab page's rule
(``games.clubs.tab``): every member reads; a scorekeeper records any payment, a member one
they made or received (recorded by the payee it is confirmed at once); the payee's member
or a scorekeeper confirms or reverses, the payer too reverses while it is unconfirmed.
Recording a payment with an ``Idempotency-Key`` (``games.api.idempotency``, as for hands)
records it once however often a phone retries.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.renderers import BaseRenderer
from rest_framework.response import Response

from games import timezones
from games.access import club_for
from games.api.base import (
    CURSOR_PARAMETERS,
    READ_PROBLEMS,
    WRITE_PROBLEMS,
    ApiView,
    CursorPage,
    attachment_header,
    page_of,
    problems,
    valid,
)
from games.api.serializers import (
    MAX_ID,
    CurrencySerializer,
    PlayerRefSerializer,
    StrictInputSerializer,
)
from games.clubs import tab as club_tab
from games.http import AuthedRequest
from games.models import Club, Player
from ledger import exports, postings
from ledger.models import Account, Leg, TabPayment
from ledger.postings.tab import payment_reversed
from ledger.tab import TabLine, clearing_transfers, history, open_payments, tab_balances

# --- serializers -------------------------------------------------------------------------


class TabBalanceSerializer(serializers.Serializer):
    player = PlayerRefSerializer()
    balance = serializers.IntegerField(
        help_text=gettext_lazy("Minor units; + the player is owed, − the player owes.")
    )


class TabTransferSerializer(serializers.Serializer):
    payer = PlayerRefSerializer()
    payee = PlayerRefSerializer()
    amount = serializers.IntegerField(help_text=gettext_lazy("Minor units, > 0."))
    explanation = serializers.CharField()


class PaymentOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    payer = PlayerRefSerializer()
    payee = PlayerRefSerializer()
    amount = serializers.IntegerField(help_text=gettext_lazy("Minor units, > 0."))
    method = serializers.ChoiceField(choices=TabPayment.Method.choices)
    status = serializers.ChoiceField(
        choices=["reported", "confirmed", "reversed"],
        help_text=gettext_lazy(
            "Reported: the tab has moved, the payee has not confirmed yet. Reversed: the "
            "tab moved back."
        ),
    )
    posting = serializers.IntegerField(help_text=gettext_lazy("The ledger posting."))
    reported_at = serializers.DateTimeField()
    confirmed_at = serializers.DateTimeField(allow_null=True)


class TabOutputSerializer(serializers.Serializer):
    club = serializers.IntegerField()
    currency = CurrencySerializer()
    balances = TabBalanceSerializer(
        many=True, help_text=gettext_lazy("Every player whose tab is not zero; they sum to 0.")
    )
    transfers = TabTransferSerializer(
        many=True,
        help_text=gettext_lazy("The fewest transfers that bring every balance to zero at once."),
    )
    reported = PaymentOutputSerializer(
        many=True, help_text=gettext_lazy("Payments waiting for the payee to confirm them.")
    )


class PaymentInputSerializer(StrictInputSerializer):
    payer = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    payee = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    amount = serializers.IntegerField(help_text=gettext_lazy("Minor units, > 0."))
    method = serializers.ChoiceField(choices=TabPayment.Method.choices, default="cash")


class TabLineSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text=gettext_lazy("The leg's id (the cursor's order)."))
    posting = serializers.IntegerField()
    at = serializers.DateTimeField()
    kind = serializers.CharField(help_text=gettext_lazy("tab, tab_payment or reversal."))
    player = PlayerRefSerializer()
    amount = serializers.IntegerField(
        help_text=gettext_lazy("Minor units: + the player is owed more, − owes more.")
    )
    memo = serializers.CharField()
    session = serializers.IntegerField(allow_null=True)
    payment = serializers.IntegerField(allow_null=True)
    status = serializers.CharField(allow_blank=True)


class HistoryFilterSerializer(serializers.Serializer):
    player = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)


def _payment_data(payment: TabPayment, reversed_: bool) -> dict[str, Any]:
    state = "reversed" if reversed_ else "confirmed" if payment.confirmed else "reported"
    return {
        "id": payment.pk,
        "payer": {"id": payment.payer_id, "name": payment.payer.name},
        "payee": {"id": payment.payee_id, "name": payment.payee.name},
        "amount": payment.amount,
        "method": payment.method,
        "status": state,
        "posting": payment.posting_id,
        "reported_at": payment.reported_at,
        "confirmed_at": payment.confirmed_at,
    }


def _line_data(line: TabLine) -> dict[str, Any]:
    return {
        "id": line.leg_id,
        "posting": line.posting_id,
        "at": line.at,
        "kind": line.kind,
        "player": {"id": line.player_id, "name": line.player},
        "amount": line.amount,
        "memo": line.memo,
        "session": line.session_id,
        "payment": line.payment_id,
        "status": line.status,
    }


def tab_data(club: Club) -> dict[str, Any]:
    names = dict(Player.objects.filter(club=club).values_list("pk", "name"))
    balances = tab_balances(club.pk)
    return {
        "club": club.pk,
        "currency": club.currency,
        "balances": [
            {"player": {"id": pid, "name": names[pid]}, "balance": x}
            for pid, x in sorted(balances.items())
            if x
        ],
        "transfers": [
            {
                "payer": {"id": t.payer, "name": names[int(t.payer)]},
                "payee": {"id": t.payee, "name": names[int(t.payee)]},
                "amount": t.amount,
                "explanation": t.explanation,
            }
            for t in clearing_transfers(balances, names=names)
        ],
        "reported": [_payment_data(p, False) for p in open_payments(club.pk)],
    }


# --- views -------------------------------------------------------------------------------


class TabApi(ApiView):
    @extend_schema(
        operation_id="clubs_tab",
        summary="The club's tab: balances, the transfers that clear them, reported payments",
        responses={200: TabOutputSerializer, **problems(*READ_PROBLEMS)},
        tags=["tab"],
    )
    def get(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id)
        return Response(TabOutputSerializer(tab_data(club)).data)


def _tab_legs(club: Club, player: int | None) -> Any:
    legs = Leg.objects.filter(account__club=club, account__kind=Account.Kind.TAB)
    if player is not None:
        if not Player.objects.filter(pk=player, club=club).exists():
            raise exceptions.NotFound()
        legs = legs.filter(account__player_id=player)
    return legs


class TabHistoryApi(ApiView):
    cursor_ordering = "id"  # oldest first: a client replays the tab

    @extend_schema(
        operation_id="clubs_tab_history",
        summary="The tab's history, one row per player and posting, oldest first",
        parameters=[
            OpenApiParameter("player", int, description="Only this player's tab."),
            *CURSOR_PARAMETERS,
        ],
        responses={200: page_of(TabLineSerializer), **problems(400, *READ_PROBLEMS)},
        tags=["tab"],
    )
    def get(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id)
        filters = valid(HistoryFilterSerializer, request.query_params.dict())
        legs = _tab_legs(club, filters.get("player")).values("id")
        paginator = CursorPage()
        page = paginator.paginate_queryset(legs, request, view=self)
        assert page is not None  # CursorPage always has a page size
        lines = history(club.pk, ids=[row["id"] for row in page])
        return paginator.get_paginated_response([_line_data(line) for line in lines])


class TabHistoryCSVRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"
    COLUMNS = (
        "id",
        "posting",
        "at",
        "player_id",
        "player",
        "kind",
        "amount_minor",
        "currency",
        "memo",
        "session",
        "payment",
        "status",
    )

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        out = io.StringIO()
        writer = exports.writer(out, lineterminator="\r\n")
        if isinstance(data, dict) and "rows" in data:
            writer.writerow(self.COLUMNS)
            writer.writerows(data["rows"])
        else:  # a problem: its title
            writer.writerow([str(data)])
        return out.getvalue().encode("utf-8", errors="backslashreplace")


class TabHistoryCsvApi(ApiView):
    # CSV only, its own operation (as the settlement's CSV): generated clients save it.
    renderer_classes = [TabHistoryCSVRenderer]

    @extend_schema(
        operation_id="clubs_tab_history_csv",
        summary="The tab's history as a CSV file (its amounts sum to zero)",
        description="Columns: " + ", ".join(TabHistoryCSVRenderer.COLUMNS) + " (amount_minor: "
        "minor units; at: ISO 8601 with the club's offset; RFC 4180, UTF-8).",
        parameters=[
            OpenApiParameter("player", int, description="Only this player's tab."),
            attachment_header("tab-club-<id>.csv"),
        ],
        responses={
            (200, "text/csv"): OpenApiResponse(
                response={"type": "string"}, description="The CSV file."
            ),
            **problems(400, 401, 403, 404),
        },
        tags=["tab"],
    )
    def get(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id)
        filters = valid(HistoryFilterSerializer, request.query_params.dict())
        _tab_legs(club, filters.get("player"))  # 404 for another club's player
        rows = [
            [
                line.leg_id,
                line.posting_id,
                timezones.iso(line.at, name=club.time_zone),
                line.player_id,
                line.player,
                line.kind,
                line.amount,
                club.currency.code,
                line.memo,
                line.session_id or "",
                line.payment_id or "",
                line.status,
            ]
            for line in history(club.pk, player_id=filters.get("player"))
        ]
        return Response(
            {"rows": rows},
            headers={"Content-Disposition": f'attachment; filename="tab-club-{club.pk}.csv"'},
        )


class PaymentListApi(ApiView):
    cursor_ordering = "-id"

    @extend_schema(
        operation_id="clubs_tab_payments_list",
        summary="The club's tab payments, newest first",
        parameters=[*CURSOR_PARAMETERS],
        responses={200: page_of(PaymentOutputSerializer), **problems(400, *READ_PROBLEMS)},
        tags=["tab"],
    )
    def get(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id)
        qs = TabPayment.objects.filter(club=club).select_related(
            "payer", "payee", "posting__reversed_by"
        )
        paginator = CursorPage()
        page = paginator.paginate_queryset(qs, request, view=self)
        assert page is not None
        return paginator.get_paginated_response([_payment_of(p) for p in page])

    @extend_schema(
        operation_id="clubs_tab_payments_create",
        summary="Record a payment between two players (it moves the tab; reported until confirmed)",
        description=(
            "Whole or part of a debt. A scorekeeper records any payment, a member one they "
            "made or received; recorded by the payee's member it is confirmed at once. Send "
            "an `Idempotency-Key` so that a retry records it once. Webhook events "
            "`payment.reported` (and `payment.confirmed`)."
        ),
        request=PaymentInputSerializer,
        responses={201: PaymentOutputSerializer, **problems(*WRITE_PROBLEMS, 409, 422)},
        examples=[
            OpenApiExample(
                "ben paid ann $14",
                value={"payer": 13, "payee": 12, "amount": 1400, "method": "venmo"},
                request_only=True,
            )
        ],
        tags=["tab"],
    )
    def post(self, request: AuthedRequest, club_id: int) -> Response:
        club, membership = club_for(request.user, club_id)
        data = valid(PaymentInputSerializer, request.data)
        players = {
            p.pk: p for p in Player.objects.filter(club=club, pk__in=[data["payer"], data["payee"]])
        }
        payer, payee = players.get(data["payer"]), players.get(data["payee"])
        if (
            payer is not None
            and payee is not None
            and not club_tab.may_record(membership, payer, payee)
        ):
            raise exceptions.PermissionDenied()
        payment = postings.report_payment(
            club_id=club.pk,
            payer_id=data["payer"],
            payee_id=data["payee"],
            amount=data["amount"],
            method=data["method"],
            user=request.user,
            confirmed=payee is not None and payee.user_id == request.user.pk,
        )
        return Response(_payment_of(payment), status=status.HTTP_201_CREATED)


def _payment_of(payment: TabPayment) -> dict[str, Any]:
    payment = TabPayment.objects.select_related("payer", "payee").get(pk=payment.pk)
    return PaymentOutputSerializer(_payment_data(payment, payment_reversed(payment))).data


class PaymentActionApi(ApiView):
    action = ""

    def post(self, request: AuthedRequest, payment_id: int) -> Response:
        payment = get_object_or_404(
            TabPayment.objects.select_related("payer", "payee"), pk=payment_id
        )
        club, membership = club_for(request.user, payment.club_id)  # a stranger: 404
        allowed = (
            club_tab.may_confirm(payment, membership)
            if self.action == "confirm"
            else club_tab.may_reverse(payment, membership)
        )
        if not allowed:
            raise exceptions.PermissionDenied()
        if self.action == "confirm":
            postings.confirm_payment(payment_id=payment.pk, user=request.user)
        else:
            postings.reverse_payment(payment_id=payment.pk, user=request.user)
        return Response(_payment_of(payment))


class PaymentConfirmApi(PaymentActionApi):
    action = "confirm"

    @extend_schema(
        operation_id="tab_payments_confirm",
        summary="Confirm a payment was received (the payee, or a scorekeeper)",
        request=None,
        responses={200: PaymentOutputSerializer, **problems(*WRITE_PROBLEMS, 409)},
        tags=["tab"],
    )
    def post(self, request: AuthedRequest, payment_id: int) -> Response:
        return super().post(request, payment_id)


class PaymentReverseApi(PaymentActionApi):
    action = "reverse"

    @extend_schema(
        operation_id="tab_payments_reverse",
        summary="Reverse a payment: a reversal posting, the debt is back (never an edit)",
        request=None,
        responses={200: PaymentOutputSerializer, **problems(*WRITE_PROBLEMS, 409)},
        tags=["tab"],
    )
    def post(self, request: AuthedRequest, payment_id: int) -> Response:
        return super().post(request, payment_id)


__all__ = [
    "PaymentConfirmApi",
    "PaymentListApi",
    "PaymentReverseApi",
    "TabApi",
    "TabHistoryApi",
    "TabHistoryCsvApi",
    "tab_data",
]
