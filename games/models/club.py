import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .currency import DEFAULT_CURRENCY, Currency, as_currency


class Role(models.TextChoices):
    OWNER = "owner", _("Owner")
    SCOREKEEPER = "scorekeeper", _("Scorekeeper")
    MEMBER = "member", _("Member")


# Higher rank may do everything a lower rank may.
ROLE_RANK = {Role.MEMBER: 1, Role.SCOREKEEPER: 2, Role.OWNER: 3}


class HasCurrency(models.Model):
    """The currency every amount of the row is counted in (games.money): its ISO 4217
    code, its exponent (amounts are integers of 10**-exponent units: cents for exponent 2)
    and the symbol shown with them. ``currency`` reads and writes the three as one
    ``Currency``; a club's is copied onto each session and tournament when it starts.
    """

    currency_code = models.CharField(
        max_length=8, default=DEFAULT_CURRENCY.code, help_text=_("ISO 4217; XXX for chips.")
    )
    currency_exponent = models.PositiveSmallIntegerField(
        default=DEFAULT_CURRENCY.exponent,
        help_text=_("Decimal places of the minor unit amounts are stored in (2: cents)."),
    )
    currency_symbol = models.CharField(
        max_length=8,
        default=DEFAULT_CURRENCY.symbol,
        help_text=_("Shown with amounts: $, €, chips."),
    )

    class Meta:
        abstract = True

    @property
    def currency(self) -> Currency:
        return Currency(self.currency_code, self.currency_exponent, self.currency_symbol)

    @currency.setter
    def currency(self, value: Currency | dict | str) -> None:
        cur = as_currency(value)
        self.currency_code, self.currency_exponent, self.currency_symbol = (
            cur.code,
            cur.exponent,
            cur.symbol,
        )


class Club(HasCurrency):
    name = models.CharField(_("name"), max_length=100)
    # An IANA zone name ("America/Chicago"); empty means the server's (DJANGO_TIME_ZONE).
    # The club's pages show times in it, with the zone, and its CSVs use its offset.
    time_zone = models.CharField(max_length=64, blank=True, default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    # Set when the club's last owner deleted their account and the club with it, but its
    # books could not go (ledger rows are append-only): the club then has no members, its
    # name and players are anonymised, and nobody can open it (games.clubs.account_service).
    archived_at = models.DateTimeField(null=True, blank=True, editable=False)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="clubs"
    )

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("club_detail", args=[self.pk])


class Membership(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.MEMBER)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "user"], name="unique_membership"),
        ]
        ordering = ["club", "user__username"]

    def __str__(self) -> str:
        return f"{self.user} in {self.club} ({self.role})"

    def has_role(self, role: str) -> bool:
        return ROLE_RANK[Role(self.role)] >= ROLE_RANK[Role(role)]


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Invite(models.Model):
    """A single-use invitation link. Only the token's hash is stored."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="invites")
    token_hash = models.CharField(max_length=64, unique=True)
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.MEMBER)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    used_at = models.DateTimeField(null=True, blank=True)

    VALID_FOR = timedelta(days=7)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"invite to {self.club} as {self.role}"

    @classmethod
    def issue(cls, club: Club, role: str, created_by: User) -> tuple["Invite", str]:
        token = secrets.token_urlsafe(24)
        invite = cls.objects.create(
            club=club,
            role=role,
            created_by=created_by,
            token_hash=hash_token(token),
            expires_at=timezone.now() + cls.VALID_FOR,
        )
        return invite, token

    @property
    def is_usable(self) -> bool:
        return self.used_at is None and self.expires_at > timezone.now()


class Player(models.Model):
    """Someone on a club's roster. Needs no account; may later be linked to a member."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="players")
    name = models.CharField(_("name"), max_length=40)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="players",
    )
    created_at = models.DateTimeField(default=timezone.now)
    # Archived players leave the roster pickers (new sessions, seats, tournaments) but keep
    # their name, history and statistics; the name stays taken so books never get two "Ann"s.
    archived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(Lower("name"), "club", name="unique_player_name_per_club"),
            models.UniqueConstraint(
                fields=["club", "user"],
                condition=models.Q(user__isnull=False),
                name="one_player_per_member_per_club",
            ),
        ]

    def __str__(self) -> str:
        return self.name
