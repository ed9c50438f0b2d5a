"""A read-only link to one session's scoreboard, for phones without an account.

The token in the link is two random parts: a *selector* that finds the row (an indexed
lookup) and a *verifier* of 144 bits compared in constant time (``hmac.compare_digest``),
so the time a wrong token takes says nothing about the right one. Both are kept so the
host can show the same link and QR code again all evening; revoking a link (or creating
a new one, which revokes the old) makes it answer 404 for good.
"""

import hmac
import secrets

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models
from django.utils import timezone

from .session import GameSession

SELECTOR_LENGTH = 12  # secrets.token_urlsafe(9)
VERIFIER_LENGTH = 24  # secrets.token_urlsafe(18): 144 bits


class ShareLink(models.Model):
    session = models.ForeignKey(GameSession, on_delete=models.CASCADE, related_name="share_links")
    selector = models.CharField(max_length=SELECTOR_LENGTH, unique=True)
    verifier = models.CharField(max_length=VERIFIER_LENGTH)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"share link of {self.session} ({'revoked' if self.revoked_at else 'live'})"

    @classmethod
    def new(cls, session: GameSession, user: User | None = None) -> "ShareLink":
        return cls(
            session=session,
            selector=secrets.token_urlsafe(9),
            verifier=secrets.token_urlsafe(18),
            created_by=user,
        )

    @property
    def token(self) -> str:
        return self.selector + self.verifier

    @classmethod
    def live(cls, token: str) -> "ShareLink | None":
        """The live link this token opens, or None (wrong, truncated or revoked)."""
        if len(token) != SELECTOR_LENGTH + VERIFIER_LENGTH:
            return None
        link = (
            cls.objects.select_related("session")
            .filter(selector=token[:SELECTOR_LENGTH], revoked_at__isnull=True)
            .first()
        )
        if link is None or not hmac.compare_digest(
            link.verifier.encode(), token[SELECTOR_LENGTH:].encode()
        ):
            return None
        return link
