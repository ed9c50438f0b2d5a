"""A club's season: a date range over which its finished tournaments earn points and its
home sessions' nets add up (games.seasons). The points formula's parameters live on the
row (``games.seasons.points``: a published default, editable per season); the standings
are computed when read, never stored.

``public_token``: empty while the season is not public; set, it opens the public
standings page (``/season/<token>/``, names and points only). Revoking empties it; making
it public again draws a new token, so a revoked link never opens again.
"""

import secrets
from decimal import Decimal

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .club import Club


def new_season_token() -> str:
    # 144 bits, as the tournaments' public links.
    return secrets.token_urlsafe(18)


class Season(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="seasons")
    name = models.CharField(_("name"), max_length=100)
    starts_on = models.DateField(_("first day"))
    ends_on = models.DateField(_("last day"))
    # points = round_half_up(points_scale * field ** field_exponent / place ** place_exponent)
    #          + points_for_playing   (games.seasons.points)
    points_scale = models.PositiveIntegerField(_("points scale"), default=10)
    field_exponent = models.DecimalField(
        _("field exponent"), max_digits=3, decimal_places=2, default=Decimal("0.50")
    )
    place_exponent = models.DecimalField(
        _("place exponent"), max_digits=3, decimal_places=2, default=Decimal("0.50")
    )
    points_for_playing = models.PositiveIntegerField(_("points for playing"), default=0)
    public_token = models.CharField(max_length=40, null=True, blank=True, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-starts_on", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(ends_on__gte=models.F("starts_on")), name="season_dates_in_order"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("season_standings", args=[self.pk])
