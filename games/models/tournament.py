"""Tournaments: entries, rounds, tables (each one a GameSession), seat moves, prize pool.

Chips live in the tables' sessions (the ledger's chip-limited sessions); money — buy-ins,
fees, prizes — lives in the tournament's own prize ledger (``ledger.models.Prize*``): append-only postings
whose legs sum to zero, integer minor units. Sign convention as in ``ledger.models``: an
account's balance is what it holds (an entrant's is negative by what they paid in and
positive by what they won back; the pool holds the prize money; the house the fees).
"""

import secrets

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .club import Club, HasCurrency, Player
from .session import GameSession


def new_public_token() -> str:
    return secrets.token_urlsafe(18)


def new_draw_seed() -> str:
    # The draw's seed, made at creation (games.engine.tournament.new_seed: 128 bits).
    return secrets.token_hex(16)


class Tournament(HasCurrency):
    class Format(models.TextChoices):
        ROUNDS = "rounds", _("Table rounds (bracket)")
        FREEZEOUT = "freezeout", _("Freeze-out")

    class Status(models.TextChoices):
        REGISTRATION = "registration", pgettext_lazy("tournament status", "Registration")
        RUNNING = "running", pgettext_lazy("tournament status", "Running")
        FINISHED = "finished", pgettext_lazy("tournament status", "Finished")

    class BreakPot(models.TextChoices):
        # RULES.md T1: what happens to a short freeze-out table's carried pot.
        MOVE = "move", _("Its pot moves with its players (the table breaks at once)")
        PLAY_OUT = "play_out", _("It plays on until its pot is won, then breaks")

    class Tiebreak(models.TextChoices):
        POTS = "pots", _("Chips, then pots won, then a recorded draw")
        DRAW = "draw", _("Chips, then a recorded draw")

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="tournaments")
    name = models.CharField(_("name"), max_length=100)
    format = models.CharField(max_length=12, choices=Format.choices, default=Format.ROUNDS)
    status = models.CharField(max_length=14, choices=Status.choices, default=Status.REGISTRATION)
    buy_in = models.BigIntegerField(default=0, help_text=_("Money, in minor units (cents)."))
    fee = models.BigIntegerField(
        default=0, help_text=_("Paid on top of the buy-in; kept by the house, not in the pool.")
    )
    starting_chips = models.PositiveIntegerField(default=100)
    antes = models.JSONField(
        default=list, help_text=_("Ante per level, e.g. [1, 2, 3, 5]; the last one stays.")
    )
    hands_per_level = models.PositiveIntegerField(
        default=0, help_text=_("0: the ante rises each round; N: every N hands at a table.")
    )
    min_table = models.PositiveSmallIntegerField(default=4)
    max_table = models.PositiveSmallIntegerField(default=7)
    hands_per_round = models.PositiveIntegerField(default=10)
    final_hands = models.PositiveIntegerField(
        default=0,
        help_text=_(
            "0: the final table plays until one player holds every chip; "
            "N: N hands, then the chip leader wins."
        ),
    )
    advance_per_table = models.PositiveSmallIntegerField(default=2)
    tiebreak = models.CharField(max_length=8, choices=Tiebreak.choices, default=Tiebreak.POTS)
    break_pot = models.CharField(
        max_length=8,
        choices=BreakPot.choices,
        default=BreakPot.MOVE,
        help_text=_("Freeze-out: a table below the minimum and the chips in its pot."),
    )
    carry_stacks = models.BooleanField(
        default=False, help_text=_("Stacks carry into the next round (otherwise they reset).")
    )
    payout_percentages = models.JSONField(
        default=list, blank=True, help_text=_("Percent per place; empty: defaults by field size.")
    )
    rules = models.JSONField(default=dict, blank=True, help_text=_("House rules of every table."))
    table_mode = models.CharField(
        max_length=16, choices=GameSession.Mode.choices, default=GameSession.Mode.REPORTED
    )
    # Levels by the clock (0: by hands or rounds), with breaks.
    level_minutes = models.PositiveIntegerField(default=0)
    break_every = models.PositiveSmallIntegerField(default=0, help_text=_("Levels between breaks."))
    break_minutes = models.PositiveSmallIntegerField(default=0)
    structure_preset = models.CharField(max_length=12, blank=True, default="")
    # The clock, in the database so every server agrees (engine.tournament_levels).
    clock_started_at = models.DateTimeField(null=True, blank=True)
    clock_paused_at = models.DateTimeField(null=True, blank=True)
    clock_adjust = models.IntegerField(default=0, help_text=_("Seconds added (+) or removed."))
    # Entries: late registration, re-entries, rebuys, add-ons, a field cap.
    late_until_level = models.PositiveSmallIntegerField(
        default=0, help_text=_("0: registration closes at the start; N: open through level N.")
    )
    max_reentries = models.PositiveSmallIntegerField(default=0)
    max_rebuys = models.PositiveSmallIntegerField(default=0)
    addon_chips = models.PositiveIntegerField(default=0)
    addon_price = models.BigIntegerField(default=0)
    max_entries = models.PositiveIntegerField(default=0, help_text=_("0: no cap."))
    # Payouts: a preset (share of the field, standard curve) or payout_percentages.
    payout_preset = models.CharField(max_length=8, blank=True, default="")
    payout_unit = models.PositiveIntegerField(default=1, help_text=_("Prizes are multiples of it."))
    # {"kind", "amounts": {player id: amount}, "agreed": [names], "at"} once a deal is made.
    deal = models.JSONField(default=dict, blank=True)
    # The provably fair draw: the seed is made at creation; only its SHA-256 is shown
    # until the first draw reveals it.
    seed = models.CharField(max_length=64, default=new_draw_seed)
    seed_commitment = models.CharField(max_length=64, blank=True, default="")
    seed_revealed_at = models.DateTimeField(null=True, blank=True)
    idempotency_key = models.CharField(max_length=80, blank=True, default="")
    public_token = models.CharField(max_length=40, unique=True, default=new_public_token)
    # Rises with every change of the tournament itself; with the tables' session versions
    # it makes the bracket's ETag.
    version = models.PositiveBigIntegerField(default=1)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(buy_in__gte=0), name="tournament_buy_in"),
            models.CheckConstraint(condition=models.Q(fee__gte=0), name="tournament_fee"),
            models.UniqueConstraint(
                fields=["club", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="tournament_idempotency_key",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournament_detail", args=[self.pk])

    @property
    def is_rounds(self) -> bool:
        return self.format == self.Format.ROUNDS

    def bump(self) -> None:
        """Mark a change; callers hold the row lock and save()."""
        self.version += 1


class Entry(models.Model):
    class Status(models.TextChoices):
        REGISTERED = "registered", pgettext_lazy("tournament entry status", "Registered")
        CHECKED_IN = "checked_in", pgettext_lazy("tournament entry status", "Checked in")
        WITHDRAWN = "withdrawn", pgettext_lazy("tournament entry status", "Withdrawn")
        WAITING = "waiting", pgettext_lazy("tournament entry status", "Waiting list")
        NO_SHOW = "no_show", pgettext_lazy("tournament entry status", "Did not check in")
        PLAYING = "playing", pgettext_lazy("tournament entry status", "Playing")
        OUT = "out", pgettext_lazy("tournament entry status", "Out")
        WINNER = "winner", pgettext_lazy("tournament entry status", "Winner")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="entries")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTERED)
    is_bot = models.BooleanField(default=False, help_text=_("A bot plays this seat (digital)."))
    registered_at = models.DateTimeField(default=timezone.now)
    checked_in_at = models.DateTimeField(null=True, blank=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    # How the player went out (filled when they do): the round, the finishing key (higher
    # finishes higher, see games.tournament.finishing_places) and the chips at that point.
    out_round = models.PositiveSmallIntegerField(null=True, blank=True)
    out_at = models.DateTimeField(null=True, blank=True)
    out_chips = models.BigIntegerField(null=True, blank=True)
    out_key = models.JSONField(null=True, blank=True)
    out_table = models.ForeignKey(
        "TournamentTable", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    place = models.PositiveIntegerField(null=True, blank=True)
    prize = models.BigIntegerField(default=0)
    reentries = models.PositiveSmallIntegerField(default=0)
    rebuys = models.PositiveSmallIntegerField(default=0)
    addons = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["tournament", "player__name"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="one_entry_per_player"),
        ]
        verbose_name = _("entry")
        verbose_name_plural = _("entries")

    def __str__(self) -> str:
        return f"{self.player} in {self.tournament}"


class Round(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing", pgettext_lazy("round or table status", "Playing")
        FINISHED = "finished", pgettext_lazy("round or table status", "Finished")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    seed = models.CharField(max_length=64, help_text=_("Seed of the draw: shown, reproducible."))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    is_final = models.BooleanField(default=False)
    # The draw as made: {"ranked": [player ids], "tables": [[ids]], "byes": [ids],
    # "repeats": int} — enough to redo it from the seed and compare.
    draw = models.JSONField(default=dict)
    byes = models.JSONField(default=list, help_text=_("Player ids advancing without playing."))
    advanced = models.JSONField(default=list, help_text=_("Player ids in the next round."))
    balance_steps = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="unique_round_number"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament} round {self.number}"


class TournamentTable(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing", pgettext_lazy("round or table status", "Playing")
        FINISHED = "finished", pgettext_lazy("round or table status", "Finished")
        BROKEN = "broken", pgettext_lazy("round or table status", "Broken up")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tables")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField()
    session = models.OneToOneField(
        GameSession, on_delete=models.PROTECT, related_name="tournament_table"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    ending = models.BooleanField(
        default=False, help_text=_("The director ended the round here: stop once the pot is won.")
    )
    # Written when the table finishes: {"rows": [{player, chips, pots_won, draw, rank}],
    # "advanced": [ids], "pot": leftover, "chips_in": int, "reason": str}.
    result = models.JSONField(default=dict, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="unique_table_number"),
        ]

    def __str__(self) -> str:
        return f"{self.round} table {self.number}"


class SeatMove(models.Model):
    """A player moved between tables (freeze-out balancing), with the chips they took."""

    class Reason(models.TextChoices):
        BREAK = "break", pgettext_lazy("seat move reason", "Table broken up")
        BALANCE = "balance", pgettext_lazy("seat move reason", "Balancing")
        LATE = "late", pgettext_lazy("seat move reason", "Late entry")
        REENTRY = "reentry", pgettext_lazy("seat move reason", "Re-entry")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="moves")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    source = models.ForeignKey(
        TournamentTable, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    seat = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text=_("1-based, at target.")
    )
    target = models.ForeignKey(TournamentTable, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=8, choices=Reason.choices)
    chips = models.BigIntegerField()
    seed = models.CharField(max_length=80, help_text=_("Seed and step of the balancing draw."))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        source = self.source.number if self.source else "—"
        return f"{self.player}: table {source} → {self.target.number}"
