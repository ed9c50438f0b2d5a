"""A signed-in user's saved language (issue 19): used before the browser's
Accept-Language, on every device they sign in on (games/language.py)."""

from django.conf import settings
from django.db import models


class LanguagePreference(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="language_preference"
    )
    # One of settings.LANGUAGES (checked by the switcher; no `choices`, so that adding a
    # language needs no migration); a code no longer offered falls back to Accept-Language.
    language = models.CharField(max_length=8)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.language}"
