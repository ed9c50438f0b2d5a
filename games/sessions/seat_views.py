"""The seats of a session (games/sessions/urls.py: ``session_seats``): who sits where,
who sits out or leaves, a new player joining; scorekeepers change them, members look.

Seat changes are written by ``ledger.postings`` (the session's state and version move with
them); a tournament table's seats are the director's (``_refuse_tournament_table``).
Every notice is in the reader's language; refusals go through ``games.messages.render``.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from games.access import session_for
from games.converters import parse_id
from games.errors import BourreError
from games.http import AuthedHttpRequest
from games.messages import render as say
from games.models import GameSession, Membership, Player, Role, Seat
from games.names import clean_name
from games.sessions import selectors
from games.sessions.views import _closed_response, _refuse_tournament_table
from ledger import postings


@login_required
def session_seats(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    """Between hands: add a seat, let a player leave or come back."""
    session, membership = session_for(request.user, session_id)
    if request.method == "POST":
        session, membership = session_for(request.user, session_id, Role.SCOREKEEPER)
        _refuse_tournament_table(session)
        if not session.is_open:
            return _closed_response(request, session)
        ok, text = _seat_action(request, session)
        if not request.htmx:
            (messages.success if ok else messages.error)(request, text)
            return redirect("session_seats", session.pk)
        session.refresh_from_db()
        context = _seats_context(session, membership) | {"notice": text, "notice_ok": ok}
        return render(request, "games/session_seats.html#seats", context, status=200 if ok else 409)
    template = "games/session_seats.html"
    if request.htmx:
        template += "#seats"
    return render(request, template, _seats_context(session, membership))


def _seats_context(session: GameSession, membership: Membership) -> dict:
    seats = list(session.seats.select_related("player").order_by("position", "id"))
    seated = {s.player_id for s in seats}
    return {
        "session": session,
        "membership": membership,
        "seats": seats,
        "next_dealer_id": session.next_dealer_id,
        "bench": [
            p for p in session.club.players.filter(archived_at__isnull=True) if p.pk not in seated
        ],
        "can_score": selectors.can_score(session, membership),
    }


def _seat_action(request: AuthedHttpRequest, session: GameSession) -> tuple[bool, str]:
    action = request.POST.get("action", "")
    try:
        if action == "add":
            player_id = parse_id(request.POST.get("player", ""))
            raw_name = request.POST.get("name", "")
            name = ""
            if player_id is None and raw_name.strip():
                try:
                    name = clean_name(raw_name)
                except ValidationError as refused:
                    return False, refused.messages[0]
            if player_id is not None:
                player = session.club.players.filter(pk=player_id).first()
                if player is None:
                    return False, _("That player is not on this club's roster.")
            elif not name:
                return False, _("Pick a player from the roster or type a new name.")
            # One transaction for the new name and the seat: a refused seat (a full
            # table, a closed session) leaves no orphan name on the roster.
            with transaction.atomic():
                if player_id is None:
                    player = session.club.players.filter(name__iexact=name).first()
                    if player is None:
                        player = Player.objects.create(club=session.club, name=name)
                assert player is not None  # found or created above
                postings.add_seat(session_id=session.pk, player=player, user=request.user)
            return True, _("%(player)s sits down and is dealt in from the next hand.") % {
                "player": player.name
            }
        if action in ("leave", "return"):
            seat = (
                Seat.objects.select_related("player")
                .filter(session=session, player_id=parse_id(request.POST.get("player", "")) or 0)
                .first()
            )
            if seat is None:
                return False, _("That player has no seat at this table.")
            active = action == "return"
            postings.set_seat_active(
                session_id=session.pk, player_id=seat.player_id, active=active, user=request.user
            )
            said = (
                _("%(player)s is back and is dealt in from the next hand.")
                if active
                else _("%(player)s leaves the table; their net stays on the books.")
            )
            return True, said % {"player": seat.player.name}
    except postings.SessionClosed:
        return False, _("The session is closed.")
    except BourreError as error:
        return False, say(error)
    return False, _("Unknown seat action.")
