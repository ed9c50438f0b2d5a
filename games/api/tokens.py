"""REST API v1, onboarding: personal API tokens by username and password.

`POST /api/v1/auth/tokens/` is how a program starts without a browser: it sends the
user's username and password (sign-up itself stays on the web site) and gets a named
token, shown this once. Attempts go through the login form's own throttle
(`games.ratelimit.login_begin`: per address and username, per address, and per username
across all addresses), so the API is no way around it.
A token may expire (`expires_in_days`); it stops working when revoked and when its
user's password changes (games.api.auth). A token made with `scope: "read"` reads only:
every write with it is 403 `read_only_token` (games.api.base.ApiView.initial).
"""

from datetime import timedelta

from django.contrib.auth import authenticate
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import AllowAny, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from games import ratelimit
from games.api.base import (
    CURSOR_PARAMETERS,
    READ_PROBLEMS,
    ApiView,
    absolute,
    page_of,
    paginate,
    problems,
    valid,
)
from games.api.errors import Problem
from games.api.serializers import StrictInputSerializer
from games.http import AuthedRequest
from games.models import ApiToken

TOKEN_STATUSES = ("active", "revoked", "expired", "password_changed")


class TokenCreateInputSerializer(StrictInputSerializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False)
    name = serializers.CharField(max_length=60, help_text=_("Where you will use it."))
    expires_in_days = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=3650,
        help_text=_("The token stops working after this many days; omit for no expiry."),
    )
    scope = serializers.ChoiceField(
        choices=ApiToken.Scope.choices,
        default=ApiToken.Scope.WRITE,
        help_text=_(
            "`read`: the token reads only; every write with it is 403 `read_only_token`. "
            "`write` (the default): everything your account may do."
        ),
    )


class TokenOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    hint = serializers.CharField(help_text=_("The key's first characters."))
    scope = serializers.ChoiceField(
        choices=ApiToken.Scope.choices,
        help_text=_("`read`: reads only (writes are 403); `write`: reads and writes."),
    )
    status = serializers.ChoiceField(
        choices=TOKEN_STATUSES,
        help_text=_("`password_changed`: the password changed after the token was made."),
    )
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)


class TokenCreatedOutputSerializer(TokenOutputSerializer):
    token = serializers.CharField(help_text=_("The key: shown only in this response."))


def _status(token: ApiToken) -> str:
    if token.revoked_at is not None:
        return "revoked"
    if token.expires_at is not None and token.expires_at <= timezone.now():
        return "expired"
    if not token.is_active:
        return "password_changed"
    return "active"


def _out(token: ApiToken) -> ApiToken:
    token.status = _status(token)  # type: ignore[attr-defined]
    return token


class TokenListApi(ApiView):
    cursor_ordering = "id"

    def get_authenticators(self) -> list[BaseAuthentication]:
        # Creating a token is the way in: it authenticates by the body's password, and
        # a browser's session cookie must not make it a CSRF target.
        if self.request is not None and self.request.method == "POST":
            return []
        return super().get_authenticators()

    def get_permissions(self) -> list[BasePermission]:
        if self.request.method == "POST":
            return [AllowAny()]
        return [IsAuthenticated()]

    @extend_schema(
        operation_id="tokens_list",
        summary="Your API tokens (never their keys)",
        parameters=CURSOR_PARAMETERS,
        responses={200: page_of(TokenOutputSerializer), **problems(400, 401, 406)},
        tags=["auth"],
    )
    def get(self, request: AuthedRequest) -> Response:
        tokens = ApiToken.objects.filter(user=request.user).select_related("user")
        return paginate(
            self, request, tokens, TokenOutputSerializer, rows=lambda page: map(_out, page)
        )

    @extend_schema(
        operation_id="tokens_create",
        summary="Get a token with a username and password (no token needed)",
        description=(
            "Sign-up is web-only; a user who has an account gets a named token here. "
            "The key is in this response only. Failed attempts count like failed logins "
            "on the web site (per client address and username, per address, and per "
            "username across all addresses, with delays that double): while a wait runs "
            "the answer is 429 with Retry-After, even with the right password. At most "
            f"{ApiToken.MAX_ACTIVE} active tokens per user (409 `too_many_tokens`)."
        ),
        auth=[],
        request=TokenCreateInputSerializer,
        responses={
            201: TokenCreatedOutputSerializer,
            **problems(400, 401, 406, 409, 413, 415, 429),
        },
        parameters=[
            OpenApiParameter(
                "Location", str, OpenApiParameter.HEADER, response=[201], description="The token."
            ),
            OpenApiParameter(
                "Retry-After",
                int,
                OpenApiParameter.HEADER,
                response=[429],
                description="Seconds to wait.",
            ),
        ],
        examples=[
            OpenApiExample(
                "A token for a spreadsheet, valid 90 days",
                value={
                    "username": "alice",
                    "password": "correct horse battery staple",
                    "name": "club spreadsheet",
                    "expires_in_days": 90,
                },
                request_only=True,
            ),
            OpenApiExample(
                "A read-only token for a league website",
                value={
                    "username": "alice",
                    "password": "correct horse battery staple",
                    "name": "league website",
                    "scope": "read",
                },
                request_only=True,
            ),
        ],
        tags=["auth"],
    )
    def post(self, request: Request) -> Response:
        data = valid(TokenCreateInputSerializer, request.data)
        # The login form's own throttle (games.ratelimit), the account's count included: the
        # API is no way around it. No device cookie here: a program sends no cookies.
        attempt = ratelimit.login_begin(ratelimit.client_ip(request), data["username"])
        if attempt.wait:
            raise Problem(
                429,
                attempt.message(),
                type="urn:bourre:problem:throttled",
                errors=[{"code": "throttled", "message": gettext("Too many failed logins.")}],
                headers={"Retry-After": str(attempt.wait)},
            )
        try:
            user = authenticate(request, username=data["username"], password=data["password"])
            if user is None:
                attempt.failed()
                raise Problem(
                    401,
                    gettext("Wrong username or password."),
                    errors=[
                        {
                            "code": "invalid_credentials",
                            "message": gettext("Wrong username or password."),
                        }
                    ],
                    headers={"WWW-Authenticate": 'Bearer realm="api"'},
                )
            attempt.succeeded()
        finally:
            attempt.release()  # an exception on the way: the place is given back
        active = ApiToken.objects.filter(user=user, revoked_at__isnull=True).count()
        if active >= ApiToken.MAX_ACTIVE:
            raise Problem(
                409,
                gettext("You have %(count)s active tokens; revoke one you no longer use first.")
                % {"count": active},
                errors=[{"code": "too_many_tokens", "message": gettext("Revoke a token first.")}],
            )
        days = data.get("expires_in_days")
        expires = timezone.now() + timedelta(days=days) if days else None
        token, key = ApiToken.issue(user, data["name"], expires_at=expires, scope=data["scope"])
        token.token = key  # type: ignore[attr-defined]  # in this response only
        body = TokenCreatedOutputSerializer(_out(token)).data
        response = Response(
            body,
            status=201,
            headers={"Location": absolute(request, "api_token_detail", token.pk)},
        )
        response["Cache-Control"] = "no-store"
        return response


class TokenDetailApi(ApiView):
    @extend_schema(
        operation_id="tokens_retrieve",
        summary="One of your tokens",
        responses={200: TokenOutputSerializer, **problems(*READ_PROBLEMS)},
        tags=["auth"],
    )
    def get(self, request: AuthedRequest, token_id: int) -> Response:
        return Response(TokenOutputSerializer(_out(self._token(request, token_id))).data)

    @extend_schema(
        operation_id="tokens_revoke",
        summary="Revoke one of your tokens (it stops working at once)",
        request=None,
        responses={204: None, **problems(401, 404)},
        tags=["auth"],
    )
    def delete(self, request: AuthedRequest, token_id: int) -> Response:
        token = self._token(request, token_id)
        if token.revoked_at is None:
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
        return Response(status=204)

    def _token(self, request: AuthedRequest, token_id: int) -> ApiToken:
        # Someone else's token is the same 404 as a missing one.
        token = ApiToken.objects.select_related("user").filter(pk=token_id, user=request.user)
        found = token.first()
        if found is None:
            raise exceptions.NotFound()
        return found
