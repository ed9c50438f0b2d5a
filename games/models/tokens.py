import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

from .club import hash_token


class ApiToken(models.Model):
    """A personal API token. Shown once on creation; only its hash is kept."""

    PREFIX = "brt_"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=60)
    key_hash = models.CharField(max_length=64, unique=True)
    hint = models.CharField(max_length=12, help_text="First characters, to tell tokens apart.")
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…)"

    @classmethod
    def issue(cls, user, name: str) -> tuple["ApiToken", str]:
        key = cls.PREFIX + secrets.token_urlsafe(30)
        token = cls.objects.create(user=user, name=name, key_hash=hash_token(key), hint=key[:8])
        return token, key

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
