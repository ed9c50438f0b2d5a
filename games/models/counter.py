"""The rate limits' counters when no Redis is configured (games/counters.py, the
``ratelimit`` cache alias): rows in the database, which every app process sees and which
no number of other keys can push out (issue #33)."""

from django.db import models


class RateCounter(models.Model):
    key = models.CharField(max_length=255, primary_key=True)
    # A counter's value; any other value (a throttle's gate) is JSON in ``data``.
    n = models.BigIntegerField(default=0)
    data = models.TextField(null=True, blank=True)  # noqa: DJ001  # NULL: the value is n
    # Unix time after which the row counts as absent (removed by the next purge).
    expires = models.FloatField(db_index=True)

    def __str__(self) -> str:
        return f"{self.key}={self.n}"
