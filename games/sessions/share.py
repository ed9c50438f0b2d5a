"""Share links (writes and reads): one live read-only link per session at most.

Creating a link revokes the one before it, so "a new link" is also how a host shuts out
everybody who had the old one. Not money: no session lock, no version bump (the pages a
share link shows do not change when a link is made or revoked).
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games.models import GameSession, ShareLink


def current_link(session: GameSession) -> ShareLink | None:
    return ShareLink.objects.filter(session=session, revoked_at__isnull=True).first()


def create_link(session: GameSession, user: User | None = None) -> ShareLink:
    """A fresh link; the previous one (if any) answers 404 from now on."""
    with transaction.atomic():
        revoke_links(session)
        link = ShareLink.new(session, user)
        link.save()
    return link


def revoke_links(session: GameSession) -> int:
    """Revoke every live link of the session; how many there were."""
    return ShareLink.objects.filter(session=session, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
