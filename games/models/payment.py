"""Where a player wants to be paid (issue #34 item 3): the handles the payment hand-off
(games.clubs.payment_links) builds its links from.

A row belongs either to an account (``user``: the person keeps their own, on the Account
page, and they count in every club that links a player to them) or to a roster player
without an account (``player``: set by the club's owner or a scorekeeper). A player
linked to an account is paid through the account's handles only: what the person saved,
never what someone else typed for them. Formats are checked by the form and again before
any link is built.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .club import Player


class PaymentHandles(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="payment_handles",
    )
    player = models.OneToOneField(
        Player, null=True, blank=True, on_delete=models.CASCADE, related_name="payment_handles"
    )
    venmo = models.CharField(_("Venmo username"), max_length=30, blank=True, default="")
    paypal = models.CharField(_("PayPal.Me name"), max_length=20, blank=True, default="")
    cashtag = models.CharField(_("Cash App $cashtag"), max_length=20, blank=True, default="")
    revolut = models.CharField(_("Revolut username"), max_length=32, blank=True, default="")
    other = models.CharField(_("Other (e.g. IBAN)"), max_length=140, blank=True, default="")
    updated_at = models.DateTimeField(default=timezone.now)
    # Who saved them last: the person themself, or the scorekeeper for a player without
    # an account (kept for a dispute over where money went).
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(user__isnull=False, player__isnull=True)
                | models.Q(user__isnull=True, player__isnull=False),
                name="payment_handles_one_owner",
            ),
        ]

    def __str__(self) -> str:
        return f"handles of {'user ' + str(self.user_id) if self.user_id else self.player_id}"
