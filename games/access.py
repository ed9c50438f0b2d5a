"""One access helper per object type.

Every view and API endpoint that touches club data goes through these. A user who is not
a member of the club gets 404 (the club's existence is not revealed); a member whose role
is too low for the action gets 403.

``session_for_login`` is the record form's and its POST's: the login's user row is read
by the same statement as the session and the membership (locked for the POST; no separate
``get_user`` query), and accepted only when Django would accept it without touching the
login session; anything else raises ``LoginUnsure`` and the view asks Django (outside the
POST's transaction).
"""

from collections.abc import Sequence

from django.contrib.auth import (
    HASH_SESSION_KEY,
)
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext

from . import polling, sql, timezones
from .models import Club, GameSession, Hand, Membership, Player, Role, Tournament


def membership_for(user, club_id: int) -> Membership:
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


def club_for(user, club_id: int, role: str = Role.MEMBER) -> tuple[Club, Membership]:
    membership = membership_for(user, club_id)
    require_role(membership, role)
    return membership.club, membership


def session_for(
    user,
    session_id: int,
    role: str = Role.MEMBER,
    lock: bool = False,
    along: Sequence[sql.Statement] = (),
) -> tuple[GameSession, Membership]:
    """The session and the user's membership of its club, in one query.

    This runs on every scoreboard poll, recorded hand and digital page, so it is one
    plain join instead of the ORM's subqueries (whose compilation alone cost several
    milliseconds a request; bench/web.py). The club is loaded on first use.

    With ``lock`` (inside the caller's ``transaction.atomic()``) the same statement locks
    the session row as ``ledger.postings.lock_session`` does, for
    ``record_hand(locked=...)``: the record POST reads the row once (issue #20). A
    stranger's 404 or a member's 403 then rolls the caller's transaction back.

    ``along``: statements sent in the same round trip, after the session's; their rows
    come back as the session's ``_along_rows`` (``sql.session_with_membership``), read
    by the caller only once access is granted."""
    if not user.is_authenticated:
        raise Http404("No such session")
    session = sql.session_with_membership(user.pk, session_id, lock=lock, along=along)
    return _member_of(session, user, role)


def _member_of(session: GameSession | None, user, role: str) -> tuple[GameSession, Membership]:
    if session is None or session._membership_id is None:
        raise Http404("No such session")
    assert session._role is not None  # read with the membership id (a NOT NULL column)
    membership = Membership(
        id=session._membership_id, club_id=session.club_id, user=user, role=session._role
    )
    require_role(membership, role)
    timezones.activate(session._time_zone)
    return session, membership


class LoginUnsure(Exception):
    """``session_for_login`` could not vouch for the login by itself; nothing was decided.
    The caller leaves its transaction (rolled back) and asks Django (``request.user``)."""


def login_user_id(request: HttpRequest) -> int | None:
    """The user id of the request's login session, without loading the user; None when
    there is no login, or it was made by another authentication backend (whose
    ``get_user`` may differ from a primary-key read)."""
    session = getattr(request, "session", None)
    return None if session is None else polling.login_user_id(session)


def session_for_login(
    request: HttpRequest,
    session_id: int,
    role: str = Role.MEMBER,
    lock: bool = True,
    along: Sequence[sql.Statement] = (),
) -> tuple[GameSession, Membership]:
    """``session_for(request.user, session_id, role, lock=lock)`` with the login's user
    row read by the same statement (the record POST, locked, and the record form, issue
    #20: one query less than Django's ``get_user``, which reads the user by its primary
    key on its own).

    The user is accepted exactly when ``django.contrib.auth.get_user`` would return it
    without touching the session: a ``ModelBackend`` login, an existing user that
    ``ModelBackend.user_can_authenticate`` allows (active), and a session hash equal to
    ``user.get_session_auth_hash()`` (a password change logs the phone out). Anything
    else (no login, another backend, a user gone or inactive, a hash that does not match
    and may need the fallback keys or a flush) raises ``LoginUnsure`` *before* any access
    decision, and the caller asks Django outside its transaction: a flushed login session
    must not be rolled back with the caller's work. An accepted user becomes
    ``request.user``; then strangers 404 and too low a role 403, as ``session_for``,
    whose ``along`` this takes too."""
    user_id = login_user_id(request)
    if user_id is None:
        raise LoginUnsure
    session = sql.session_with_membership(user_id, session_id, lock=lock, login=True, along=along)
    user = None if session is None else session.__dict__.pop("_login_user", None)
    if user is None or not ModelBackend().user_can_authenticate(user):
        raise LoginUnsure
    session_hash = request.session.get(HASH_SESSION_KEY)
    if not session_hash or not constant_time_compare(session_hash, user.get_session_auth_hash()):
        raise LoginUnsure
    # What AuthenticationMiddleware's lazy request.user would have produced and cached.
    request.user = request._cached_user = user  # type: ignore[attr-defined]
    return _member_of(session, user, role)


def player_for(user, player_id: int, role: str = Role.MEMBER) -> tuple[Player, Membership]:
    player = get_object_or_404(Player.objects.select_related("club"), pk=player_id)
    membership = membership_for(user, player.club_id)
    require_role(membership, role)
    return player, membership


def hand_for(user, hand_id: int, role: str = Role.MEMBER) -> tuple[Hand, Membership]:
    hand = get_object_or_404(Hand.objects.select_related("session__club"), pk=hand_id)
    membership = membership_for(user, hand.session.club_id)
    require_role(membership, role)
    return hand, membership


def tournament_for(
    user, tournament_id: int, role: str = Role.MEMBER
) -> tuple[Tournament, Membership]:
    """Strangers 404, too low a role 403. The director is the club's
    owner or a scorekeeper (``Role.SCOREKEEPER``); members read."""
    t = get_object_or_404(Tournament.objects.select_related("club"), pk=tournament_id)
    membership = membership_for(user, t.club_id)
    require_role(membership, role)
    return t, membership
