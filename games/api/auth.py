"""Personal API tokens: `Authorization: Bearer brt_…` (or `Token brt_…`).

A token stops working when it is revoked, when it expires (`expires_at`) and when its
user's password changes (`ApiToken.password_fingerprint`: this covers the password change
form, a reset link, the admin and any `set_password()`, with no signal to forget)."""

from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from games.models import ApiToken
from games.models.club import hash_token


class TokenAuthentication(authentication.BaseAuthentication):
    keywords = ("bearer", "token")

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].decode(errors="replace").lower() not in self.keywords:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(_("Malformed Authorization header."))
        key = header[1].decode(errors="replace")
        token = (
            ApiToken.objects.select_related("user")
            .filter(key_hash=hash_token(key), revoked_at__isnull=True)
            .first()
        )
        if token is None or not token.user.is_active or not token.is_active:
            # One message for all: a caller learns nothing about which tokens exist.
            raise exceptions.AuthenticationFailed(_("Invalid, expired or revoked token."))
        now = timezone.now()
        # Write at most once a minute so every API call is not also a write.
        if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'
