"""Data of the API's integrations: idempotency records and webhooks (endpoints, the
outbox of events, the log of delivery attempts). Data only; the writers are
games.api.idempotency and games.api.outbox."""

import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext, pgettext_lazy

from .club import Club


class IdempotencyRecord(models.Model):
    """A write request made with an `Idempotency-Key`, and the response it got.

    The key belongs to one user (and the token the request came with, when one was
    used); `fingerprint` binds it to the request (method, path and body), so a key
    reused for another request is refused. `status` is null while the first request is
    still being processed. Kept for at least `games.api.idempotency.KEEP`."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # "<user id>:<token id or ->": one column, so the unique constraint needs no NULL rule
    # (SQLite and older PostgreSQL treat NULLs as distinct).
    scope = models.CharField(max_length=48)
    key = models.CharField(max_length=80)
    fingerprint = models.CharField(max_length=64)
    status = models.PositiveSmallIntegerField(null=True, blank=True)
    body = models.JSONField(null=True, blank=True)
    headers = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "key"], name="unique_idempotency_key"),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.status})"


def new_webhook_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


class WebhookEndpoint(models.Model):
    """An HTTPS address a club's owner registered to hear of `events`."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="webhook_endpoints")
    url = models.URLField(max_length=500)
    events = models.JSONField(default=list, help_text=_("Event types; empty means all of them."))
    secret = models.CharField(max_length=80, default=new_webhook_secret)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.url


class WebhookEvent(models.Model):
    """The outbox: one row per change, written in the change's own transaction."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="webhook_events")
    type = models.CharField(max_length=40)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.type} #{self.pk}"


class WebhookDelivery(models.Model):
    """One event to one endpoint: pending until delivered or given up, with its attempts.

    Deliveries of one endpoint go out in event order: a later event waits while an
    earlier one is still being retried. `last_error` is the category of the last failed
    attempt (`Error`, empty after a success), never the network's own text (issue #33);
    `error_text` says it in the reader's language."""

    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("webhook delivery status", "Pending")
        DELIVERED = "delivered", pgettext_lazy("webhook delivery status", "Delivered")
        FAILED = "failed", pgettext_lazy("webhook delivery status", "Failed")

    class Error(models.TextChoices):
        NONE = "", pgettext_lazy("webhook delivery error", "none")
        TIMEOUT = "timeout", pgettext_lazy("webhook delivery error", "no answer in time")
        REFUSED = "refused", pgettext_lazy("webhook delivery error", "connection refused")
        TLS = "tls", pgettext_lazy("webhook delivery error", "TLS or certificate failure")
        ADDRESS = "address", pgettext_lazy("webhook delivery error", "address not allowed")
        REDIRECT = "redirect", pgettext_lazy("webhook delivery error", "redirect (not followed)")
        STATUS = "status", pgettext_lazy("webhook delivery error", "HTTP error status")
        DNS = "dns", pgettext_lazy("webhook delivery error", "host name not found")
        CONNECTION = "connection", pgettext_lazy("webhook delivery error", "connection failed")

    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    event = models.ForeignKey(WebhookEvent, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True, default="", choices=Error.choices)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="webhook_due")]

    def __str__(self) -> str:
        return f"{self.event} → {self.endpoint} ({self.status})"

    def error_text(self) -> str:
        """The last failure in words, in the active language; empty when there was none."""
        if not self.last_error:
            return ""
        try:
            error = self.Error(self.last_error)
        except ValueError:  # not a category: never shown as it is
            error = self.Error.CONNECTION
        if error == self.Error.STATUS and self.last_status_code:
            return pgettext("webhook delivery error", "HTTP status %(code)s") % {
                "code": self.last_status_code
            }
        return str(error.label)
