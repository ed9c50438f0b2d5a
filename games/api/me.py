"""REST API v1, the caller's own account: `GET me/export/`, everything the app keeps
about the account as one JSON document (games.clubs.account_data), streamed.

Deleting the account is on the web site only (Account → Delete my account): it asks for
the password again and for a decision about every club the user alone owns, after
showing what will happen. A bearer token alone must not be able to erase an account (a
leaked token would be enough), and the decisions are a conversation, not one request.
"""

from django.http import StreamingHttpResponse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers

from games.api import serializers as s
from games.api.base import ApiView, attachment_header, problems
from games.api.ledger import PostingOutputSerializer
from games.api.tokens import TOKEN_STATUSES
from games.clubs.account_data import export_chunks, filename
from games.http import AuthedRequest
from games.models import Role


class ClubRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class ProfileSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.CharField(allow_blank=True)
    first_name = serializers.CharField(allow_blank=True)
    last_name = serializers.CharField(allow_blank=True)
    date_joined = serializers.DateTimeField()
    last_login = serializers.DateTimeField(allow_null=True)
    language = serializers.CharField(
        allow_null=True, help_text=_("The language chosen on the site; null: the browser's.")
    )


class MembershipExportSerializer(serializers.Serializer):
    club = ClubRefSerializer()
    role = serializers.ChoiceField(choices=Role.choices)
    since = serializers.DateTimeField()


class WebhookExportSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField()
    events = serializers.ListField(child=serializers.CharField())
    active = serializers.BooleanField()
    created_at = serializers.DateTimeField()


class ClubOwnedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    currency = s.CurrencySerializer()
    time_zone = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    members = serializers.IntegerField()
    webhooks = WebhookExportSerializer(
        many=True, help_text=_("Addresses and events; never the signing secret.")
    )


class TokenExportSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=TOKEN_STATUSES)
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)


class PaymentHandlesExportSerializer(serializers.Serializer):
    venmo = serializers.CharField(allow_blank=True)
    paypal = serializers.CharField(allow_blank=True)
    cashtag = serializers.CharField(allow_blank=True)
    revolut = serializers.CharField(allow_blank=True)
    other = serializers.CharField(allow_blank=True)
    updated_at = serializers.DateTimeField()


class PlayerExportSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    club = ClubRefSerializer()
    name = serializers.CharField()
    created_at = serializers.DateTimeField()
    archived = serializers.BooleanField()
    payment_handles = PaymentHandlesExportSerializer(
        allow_null=True,
        help_text=_("Payment handles the club saved for this player; null: none."),
    )


class SeatExportSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    position = serializers.IntegerField()
    active = serializers.BooleanField()


class SessionExportSerializer(s.SessionOutputSerializer):
    seat = SeatExportSerializer(help_text=_("The seat your player had."))


class AccountExportSerializer(serializers.Serializer):
    # A plain string, not a one-value enum: the schema's enums are named after their
    # meaning (tests/api/test_schema_typing.py), and "format" means many things.
    format = serializers.CharField(help_text=_("Always bourre-account-export."))
    version = serializers.IntegerField()
    exported_at = serializers.DateTimeField()
    profile = ProfileSerializer()
    payment_handles = PaymentHandlesExportSerializer(
        allow_null=True, help_text=_("Where you are paid (your saved handles); null: none.")
    )
    memberships = MembershipExportSerializer(many=True)
    clubs_owned = ClubOwnedSerializer(many=True)
    api_tokens = TokenExportSerializer(
        many=True, help_text=_("Names, status and dates; never the key.")
    )
    players = PlayerExportSerializer(many=True, help_text=_("Roster entries linked to you."))
    sessions = SessionExportSerializer(many=True)
    hands = s.HandDetailOutputSerializer(many=True, help_text=_("Hands your players were dealt."))
    postings = PostingOutputSerializer(
        many=True, help_text=_("Postings with a leg on your players' accounts.")
    )


class AccountExportApi(ApiView):
    @extend_schema(
        operation_id="me_export",
        summary="Everything the app keeps about your account, as one JSON document",
        description=(
            "Your profile, memberships and roles, the clubs you own with their webhook "
            "addresses, your API tokens (names and dates), the players linked to you and "
            "their sessions, hands and postings as the books show them. Never a secret: no "
            "password hash, token key or webhook secret. Streamed. Deleting the account is "
            "on the web site only (it asks for the password again)."
        ),
        responses={200: AccountExportSerializer, **problems(401, 406)},
        parameters=[attachment_header("bourre-account-<id>.json")],
        tags=["account"],
    )
    def get(self, request: AuthedRequest) -> StreamingHttpResponse:
        response = StreamingHttpResponse(
            export_chunks(request.user), content_type="application/json"
        )
        response["Content-Disposition"] = f'attachment; filename="{filename(request.user)}"'
        response["Cache-Control"] = "no-store"
        return response
