import re
import secrets
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from .club import Club, HasCurrency, Player

if TYPE_CHECKING:
    from ledger.models import Posting


# A tournament table's session is named when the table is made
# (games.tournaments.tables.open_table), in English: the name is stored, exported and
# sent by the API as it is. Pages show it in the reader's language (``display_name``).
ROUND_TABLE_NAME = gettext_noop("%(tournament)s · round %(round)s · table %(table)s")
TABLE_NAME = gettext_noop("%(tournament)s · table %(table)s")
_TABLE_NAMES = [
    (
        re.compile(r"(?P<tournament>.+) · round (?P<round>\d+) · table (?P<table>\d+)", re.S),
        ROUND_TABLE_NAME,
    ),
    (re.compile(r"(?P<tournament>.+) · table (?P<table>\d+)", re.S), TABLE_NAME),
]


class GameSession(HasCurrency):
    """One evening's game at one table.

    The fields under "state before the next hand" are derived from the last recorded hand's
    verdict; they are kept on the row (and updated under `select_for_update`) so every
    page can read them without replaying history. `version` rises with every change and is
    the ETag that lets idle phones poll for free.

    Pages name a session with ``display_name``: a tournament table's stored English name
    in the reader's language.
    """

    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("session status", "Open")
        CLOSED = "closed", pgettext_lazy("session status", "Closed")

    class Mode(models.TextChoices):
        REPORTED = "reported", _("Reported from the table")
        DIGITAL = "digital", _("Digital (cards on phones)")

    class Coach(models.TextChoices):
        AUTO = "auto", _("Automatic: on at a practice table (one player, the rest bots)")
        ON = "on", _("On: players may ask for hints")
        OFF = "off", _("Off: no hints, no reviews")

    class LeftoverPolicy(models.TextChoices):
        CARRY_TO_CLUB = "carry_to_club", _("Carry into the club's next session")
        SHARE_EQUALLY = "share_equally", _("Share equally among those who paid into it")

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="sessions")
    name = models.CharField(max_length=100)
    rules = models.JSONField(default=dict, help_text=_("House-rule switches (RULES.md)."))
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.REPORTED)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    leftover_policy = models.CharField(
        max_length=16, choices=LeftoverPolicy.choices, default=LeftoverPolicy.CARRY_TO_CLUB
    )
    version = models.PositiveBigIntegerField(default=1)
    # The coach at digital seats (hints during a hand, a review after it): the host's
    # choice; "auto" is on only at a practice table (games.digital.coach.coach_on).
    coach = models.CharField(
        max_length=4,
        choices=Coach.choices,
        default=Coach.AUTO,
        db_default=Coach.AUTO,
        help_text=_("Hints and reviews at digital seats."),
    )
    chip_limited = models.BooleanField(
        default=False,
        help_text=_(
            "Tournament tables: nobody pays more than the chips in front of them; "
            "a player who cannot pay an ante or penalty is out and the shortfall is recorded."
        ),
    )

    # State before the next hand.
    carry = models.BigIntegerField(default=0)
    next_dealer = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    excused = models.JSONField(default=list, help_text=_("Player ids excused from the next ante."))
    forfeits = models.JSONField(
        default=list, help_text=_("Player ids who forfeit their next deal.")
    )
    hands_count = models.PositiveIntegerField(default=0)

    # Running totals of the ledger, kept by ``ledger.postings`` in the same transaction as
    # the postings they sum (``check_invariants`` re-sums the legs and compares), so the
    # scoreboard of a long session reads them instead of summing thousands of legs. Keys
    # are player ids as strings (JSON object keys).
    pot_account = models.ForeignKey(
        "ledger.Account", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    nets = models.JSONField(
        default=dict, help_text=_("Player id → won (+) or lost (−) at the table; no bank moves.")
    )
    stacks = models.JSONField(
        default=dict, help_text=_("Player id → chips in front: net plus buy-ins minus cash-outs.")
    )

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("session_detail", args=[self.pk])

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    @property
    def display_name(self) -> str:
        """The name in the reader's language: "<tournament> · round N · table M" built
        again with gettext for a tournament's table (``chip_limited``: only those are),
        from the name it was stored under, so no page reads more for it (the club's list
        of sessions, the flat-cost scoreboard); any other session's name as typed."""
        if self.chip_limited:
            for pattern, words in _TABLE_NAMES:
                match = pattern.fullmatch(self.name)
                if match:
                    return gettext(words) % match.groupdict()
        return self.name

    def bump(self) -> None:
        """Mark a change; callers hold the row lock and save()."""
        self.version += 1

    def net_by_player(self) -> dict[int, int]:
        """Player id → net at the table, as of when this row was read (every seat)."""
        return {int(k): v for k, v in self.nets.items()}

    def stack_by_player(self) -> dict[int, int]:
        """Player id → chips in front of the player, as of when this row was read."""
        return {int(k): v for k, v in self.stacks.items()}


def new_seat_secret() -> str:
    return secrets.token_urlsafe(24)


class Seat(models.Model):
    session = models.ForeignKey(GameSession, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    # The player's ledger account (one per player, never changes): read with the seat so
    # recording a hand needs no lookup.
    account = models.ForeignKey(
        "ledger.Account", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    position = models.PositiveSmallIntegerField(help_text=_("Clockwise order at the table."))
    active = models.BooleanField(default=True, help_text=_("Dealt into the next hand."))

    class BotLevel(models.TextChoices):
        EASY = "easy", _("Easy")
        NORMAL = "normal", _("Normal")
        CAREFUL = "careful", _("Careful")
        EXPERT = "expert", _("Expert")

    is_bot = models.BooleanField(
        default=False, help_text=_("A bot plays this seat in digital hands.")
    )
    bot_level = models.CharField(
        max_length=8,
        choices=BotLevel.choices,
        default=BotLevel.NORMAL,
        help_text=_("How well the bot plays this seat (games.engine.expert.make_bot)."),
    )
    # The private link of a digital seat: unguessable, valid for this seat only.
    secret = models.CharField(max_length=64, unique=True, default=new_seat_secret)
    # The phone that opened the link first: the hash of its device cookie ("" while no
    # phone has). Another phone gets a page that says so; the host can release it, or
    # issue a new secret (the old link then answers 404).
    # (db_default too: rows written by plain SQL, games.sql.insert_rows, leave it out.)
    claimed_by = models.CharField(max_length=64, blank=True, default="", db_default="")
    claimed_at = models.DateTimeField(null=True, blank=True)
    joined_at = models.DateTimeField(default=timezone.now)
    left_at = models.DateTimeField(null=True, blank=True)
    eliminated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["session", "player"], name="one_seat_per_player"),
        ]

    def __str__(self) -> str:
        return f"{self.player} @ {self.position}"


class Hand(models.Model):
    class Kind(models.TextChoices):
        REPORTED = "reported", pgettext_lazy("hand kind", "Reported")
        DIGITAL = "digital", pgettext_lazy("hand kind", "Digital")

    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress", pgettext_lazy("hand status", "In progress")
        RECORDED = "recorded", pgettext_lazy("hand status", "Recorded")
        VOIDED = "voided", pgettext_lazy("hand status", "Voided")

    # No index of its own: unique_hand_number (session, number) serves every lookup by
    # session (its first column), and each recorded hand would update both (issue #20).
    session = models.ForeignKey(
        GameSession, on_delete=models.CASCADE, related_name="hands", db_index=False
    )
    # Null while a digital hand is in progress; set when it is recorded.
    number = models.PositiveIntegerField(null=True, blank=True)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.REPORTED)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RECORDED)
    record = models.JSONField(default=dict, help_text=_("The hand record (HAND_RECORD.md)."))
    verdict = models.JSONField(default=dict, help_text=_("The engine's verdict."))
    # The session's state before this hand, so a void can restore it exactly.
    before = models.JSONField(default=dict)
    idempotency_key = models.CharField(max_length=80, blank=True, default="")
    seed = models.CharField(
        max_length=80, blank=True, default="", help_text=_("Digital deal seed.")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    voided_at = models.DateTimeField(null=True, blank=True)
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    void_reason = models.CharField(max_length=200, blank=True, default="")
    shortfalls = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("Chip-limited tables: {player: amount they could not pay}."),
    )
    # Earlier versions of a hand that was corrected, or re-settled because an earlier
    # hand was corrected (ledger.postings.correct_hand), oldest first: [{"at", "by",
    # "reason", "record", "verdict"}]. The ledger keeps both versions' postings.
    corrections = models.JSONField(default=list, blank=True)

    # Not a field: the hand's postings, set on the hands of the session history page.
    posting_list: list["Posting"]

    class Meta:
        ordering = ["session", "number"]
        constraints = [
            models.UniqueConstraint(fields=["session", "number"], name="unique_hand_number"),
            models.UniqueConstraint(
                fields=["session", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="unique_hand_idempotency_key",
            ),
        ]
        indexes = [
            # At most one hand per session is in progress (a digital hand being played):
            # recording a hand and every record form and scoreboard ask for it, and this
            # index answers without reading the session's other hands.
            models.Index(
                fields=["session"],
                condition=models.Q(status="in_progress"),
                name="hand_in_progress",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.session} #{self.number}"

    @property
    def result(self) -> dict:
        return self.verdict.get("result") or {}

    @property
    def corrected(self) -> bool:
        return bool(self.corrections)


class HandAction(models.Model):
    """One move of a digital hand. The hand's state is replay(seed, actions)."""

    # No index of its own: unique_action_seq (hand, seq) serves lookups by hand.
    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="actions", db_index=False)
    seq = models.PositiveIntegerField()
    action = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["hand", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["hand", "seq"], name="unique_action_seq"),
        ]

    def __str__(self) -> str:
        return f"{self.hand} action {self.seq}"


class SessionEvent(models.Model):
    """History of everything but hands: rule changes, seats, voids, closing."""

    session = models.ForeignKey(GameSession, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=32)
    data = models.JSONField(default=dict)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.session}: {self.kind}"
