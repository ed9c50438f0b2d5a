from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .club import Player
from .session import Hand


class CoachReview(models.Model):
    """One player's decisions in one finished digital hand, against the expert's
    appraisal of the view each was made from (games.digital.coach.review_for).

    Written the first time the review is asked for and read after that: the statistics
    sum ``decisions``, ``matched`` and ``cost`` over a player's rows. ``items`` keeps
    every decision (the forced ones left out): ``{"seq", "kind", "chosen", "best",
    "best_gain", "chosen_gain", "matched", "discard_scored"}``, gains in antes.
    """

    # No indexes of their own: one_review_per_hand_player serves lookups by hand, and
    # coach_review_player by player (the statistics).
    hand = models.ForeignKey(
        Hand, on_delete=models.CASCADE, related_name="coach_reviews", db_index=False
    )
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="coach_reviews", db_index=False
    )
    decisions = models.PositiveSmallIntegerField(default=0)
    matched = models.PositiveSmallIntegerField(default=0)
    # What the choices that differed gave up on average, in hundredths of an ante.
    cost = models.PositiveIntegerField(default=0, help_text=_("Hundredths of an ante."))
    items = models.JSONField(default=list)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hand", "player"], name="one_review_per_hand_player"),
        ]
        indexes = [models.Index(fields=["player", "created_at"], name="coach_review_player")]

    def __str__(self) -> str:
        return f"{self.player} · {self.hand}"
