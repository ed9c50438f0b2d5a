import hmac
import secrets
from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .club import hash_token


class ApiToken(models.Model):
    """A personal API token. Shown once on creation; only its hash is kept.

    Its ``scope`` says what it may do: ``write`` (the default) everything its user may,
    ``read`` only reads: every write through the API answers 403 ``read_only_token``
    (games.api.base.ApiView), so a key kept in a league website's server or a
    spreadsheet cannot change the books."""

    class Scope(models.TextChoices):
        WRITE = "write", _("Read and write")
        READ = "read", _("Read only")

    PREFIX = "brt_"
    # Enough for every script and spreadsheet a host might run; stops a runaway loop.
    MAX_ACTIVE = 20

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=60)
    key_hash = models.CharField(max_length=64, unique=True)
    hint = models.CharField(max_length=12, help_text=_("First characters, to tell tokens apart."))
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    # The user's password as it was when the token was made (an HMAC of its hash, like
    # Django's session auth hash): any change of password, by the change form, a reset
    # link, the admin or set_password() anywhere, makes every older token stop working.
    password_fingerprint = models.CharField(max_length=64, blank=True, default="")
    scope = models.CharField(max_length=5, choices=Scope.choices, default=Scope.WRITE)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…)"

    @classmethod
    def issue(
        cls,
        user: User,
        name: str,
        expires_at: datetime | None = None,
        scope: str = Scope.WRITE,
    ) -> tuple["ApiToken", str]:
        key = cls.PREFIX + secrets.token_urlsafe(30)
        token = cls.objects.create(
            user=user,
            name=name,
            key_hash=hash_token(key),
            hint=key[:8],
            expires_at=expires_at,
            password_fingerprint=password_fingerprint(user),
            scope=scope,
        )
        return token, key

    @property
    def is_active(self) -> bool:
        return (
            self.revoked_at is None
            and (self.expires_at is None or self.expires_at > timezone.now())
            and hmac.compare_digest(self.password_fingerprint, password_fingerprint(self.user))
        )


def password_fingerprint(user: User) -> str:
    """A fingerprint of the user's current password hash (not the hash itself).

    Keyed by SECRET_KEY, so every app server must share the key, and rotating it stops
    every token (as it signs everyone out): the README says so."""
    return hmac.new(
        settings.SECRET_KEY.encode(), f"api-token:{user.password}".encode(), "sha256"
    ).hexdigest()
