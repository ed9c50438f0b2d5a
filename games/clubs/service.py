"""Writes of the clubs feature: a new club with its owner, joining by invitation, and the
owner's changes to members. Money never moves here.

The pages (``games.clubs.views``) and the API call these. ``archive_player`` takes a
player off the roster pickers (never out of the books) and puts them back.
A refusal is a ``ClubError`` (a ``BourreError``) with a code and the status to answer.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games.engine.errors import BourreError
from games.models import Club, GameSession, Invite, Membership, Player, Role

__all__ = [
    "ClubError",
    "accept_invite",
    "archive_player",
    "change_role",
    "create_club",
    "remove_member",
]


class ClubError(BourreError):
    """A membership change the club's rules refuse (``last_owner``, ``invite_used``)."""

    status = 409


def create_club(club: Club, owner: User) -> Club:
    """Save a new club (built from the form) with its creator as its first owner."""
    with transaction.atomic():
        club.created_by = owner
        club.save()
        Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    return club


def accept_invite(invite_id: int, user: User) -> Invite:
    """Use a single-use invitation: the user joins its club (unless already a member)."""
    with transaction.atomic():
        # Lock the invite so two people cannot both use a single-use link.
        invite = Invite.objects.select_for_update().select_related("club").get(pk=invite_id)
        if not invite.is_usable:
            raise ClubError("This invitation was already used or has expired.", code="invite_used")
        Membership.objects.get_or_create(
            club=invite.club, user=user, defaults={"role": invite.role}
        )
        invite.used_by = user
        invite.used_at = timezone.now()
        invite.save(update_fields=["used_by", "used_at"])
    return invite


def _owner_count(club: Club) -> int:
    return club.memberships.filter(role=Role.OWNER).count()


def change_role(target: Membership, role: str) -> Membership:
    """Give a member another role; a club always keeps at least one owner."""
    if target.role == Role.OWNER and role != Role.OWNER and _owner_count(target.club) == 1:
        raise ClubError(
            "A club needs at least one owner. Make someone else owner first.",
            code="last_owner",
            message_id="keep_an_owner",
        )
    target.role = role
    target.save(update_fields=["role"])
    return target


def remove_member(target: Membership) -> None:
    """Remove a member from the club; the last owner cannot be removed."""
    if target.role == Role.OWNER and _owner_count(target.club) == 1:
        raise ClubError("The last owner cannot be removed.", code="last_owner")
    target.delete()


def archive_player(player: Player, archived: bool) -> Player:
    """Archive a player (off the pickers; history and name kept) or bring them back.

    Refused while the player holds a seat in an open session: their money is still moving.
    """
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player.pk)
        if archived and player.archived_at is None:
            open_session = (
                GameSession.objects.filter(seats__player=player, status=GameSession.Status.OPEN)
                .order_by("id")
                .first()
            )
            if open_session is not None:
                raise ClubError(
                    f"{player.name} has a seat in the open session “{open_session.name}”. "
                    "Close that session first, then archive them.",
                    code="player_seated",
                    field="archived",
                    params={"player": player.name, "session": open_session.name},
                )
            player.archived_at = timezone.now()
            player.save(update_fields=["archived_at"])
        elif not archived and player.archived_at is not None:
            player.archived_at = None
            player.save(update_fields=["archived_at"])
    return player
