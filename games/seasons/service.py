"""Writes of the season rows (never money): the public link made and revoked.

Making a season public draws a new 144-bit token; revoking empties it, so the old link
answers 404 for good and making it public again gives a different link."""

from django.db import transaction

from games.models import Season
from games.models.season import new_season_token


def make_public(season: Season) -> Season:
    with transaction.atomic():
        locked = Season.objects.select_for_update().get(pk=season.pk)
        if not locked.public_token:
            locked.public_token = new_season_token()
            locked.save(update_fields=["public_token"])
    season.public_token = locked.public_token
    return season


def revoke_public(season: Season) -> Season:
    Season.objects.filter(pk=season.pk).update(public_token=None)
    season.public_token = None
    return season
