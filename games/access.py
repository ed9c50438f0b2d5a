"""One access helper per object type.

Every view and API endpoint that touches club data goes through these. A user who is not
a member of the club gets 404 (the club's existence is not revealed); a member whose role
is too low for the action gets 403.

The user is always Django's ``request.user`` (``AuthenticationMiddleware``'s ``get_user``):
issue #31 removed the record path's own reading of the login, which saved one query but
re-implemented Django's session-hash check.
"""

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext

from . import sql, timezones
from .models import Club, GameSession, Hand, Membership, Player, Role, Season, Tournament


def membership_for(user: User | AnonymousUser, club_id: int) -> Membership:
    if not user.is_authenticated:
        raise Http404("No such club")
    try:
        membership = Membership.objects.select_related("club").get(club_id=club_id, user=user)
    except Membership.DoesNotExist:
        raise Http404("No such club") from None
    # The club's pages show times in its zone (games.timezones).
    timezones.activate(membership.club.time_zone)
    return membership


def require_role(membership: Membership, role: str) -> None:
    if not membership.has_role(role):
        # The API's 403 detail and the web's 403 page: in the reader's language.
        raise PermissionDenied(
            gettext("This needs the %(role)s role in %(club)s.")
            % {"role": str(Role(role).label).lower(), "club": membership.club}
        )


def club_for(
    user: User | AnonymousUser, club_id: int, role: str = Role.MEMBER
) -> tuple[Club, Membership]:
    membership = membership_for(user, club_id)
    require_role(membership, role)
    return membership.club, membership


def session_for(
    user: User | AnonymousUser, session_id: int, role: str = Role.MEMBER, lock: bool = False
) -> tuple[GameSession, Membership]:
    """The session and the user's membership of its club, in one query.

    This runs on every scoreboard poll, recorded hand and digital page, so it is one
    plain join instead of the ORM's subqueries (whose compilation alone cost several
    milliseconds a request; bench/web.py). The club is loaded on first use.

    With ``lock`` (inside the caller's ``transaction.atomic()``) the same statement locks
    the session row as ``ledger.postings.lock_session`` does, for
    ``record_hand(locked=...)``: the record POST reads the row once (issue #20). A
    stranger's 404 or a member's 403 then rolls the caller's transaction back."""
    if not user.is_authenticated:
        raise Http404("No such session")
    found = sql.session_with_membership(user.pk, session_id, lock=lock)
    if found is None or found.membership_id is None:
        raise Http404("No such session")
    assert found.role is not None  # read with the membership id (a NOT NULL column)
    membership = Membership(
        id=found.membership_id, club_id=found.session.club_id, user=user, role=found.role
    )
    require_role(membership, role)
    timezones.activate(found.time_zone)
    return found.session, membership


def player_for(
    user: User | AnonymousUser, player_id: int, role: str = Role.MEMBER
) -> tuple[Player, Membership]:
    player = get_object_or_404(Player.objects.select_related("club"), pk=player_id)
    membership = membership_for(user, player.club_id)
    require_role(membership, role)
    return player, membership


def hand_for(
    user: User | AnonymousUser, hand_id: int, role: str = Role.MEMBER
) -> tuple[Hand, Membership]:
    hand = get_object_or_404(Hand.objects.select_related("session__club"), pk=hand_id)
    membership = membership_for(user, hand.session.club_id)
    require_role(membership, role)
    return hand, membership


def tournament_for(
    user: User | AnonymousUser, tournament_id: int, role: str = Role.MEMBER
) -> tuple[Tournament, Membership]:
    """Strangers 404, too low a role 403. The director is the club's
    owner or a scorekeeper (``Role.SCOREKEEPER``); members read."""
    t = get_object_or_404(Tournament.objects.select_related("club"), pk=tournament_id)
    membership = membership_for(user, t.club_id)
    require_role(membership, role)
    return t, membership


def season_for(
    user: User | AnonymousUser, season_id: int, role: str = Role.MEMBER
) -> tuple[Season, Membership]:
    """A club's season (games.seasons): strangers 404, members read, the owner and
    scorekeepers (``Role.SCOREKEEPER``) edit."""
    season = get_object_or_404(Season.objects.select_related("club"), pk=season_id)
    membership = membership_for(user, season.club_id)
    require_role(membership, role)
    return season, membership
