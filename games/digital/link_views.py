"""Who holds a seat link, and the host's controls over the links.

A seat link is claimed by the first phone that opens it: the phone gets a random device
value in a long-lived cookie, and the seat keeps its hash (``Seat.claimed_by``). Another
phone opening the link gets a page that says only that the seat is taken (403: no
player's name, no table). On the table page the host can release a claim, reissue a link
(the old one then answers 404) and hide the seat links once they are handed out
(remembered in the host's Django session). What the host reads is in the host's language
(issue 19).
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext

from games.access import session_for
from games.digital import service as digital
from games.error_pages import require_POST
from games.messages import render as say
from games.models import Role, Seat
from games.models.club import hash_token


def seat_for(secret: str, with_session: bool = True) -> Seat:
    # A move reads the session under its lock (digital.apply_action): no need here.
    related = ("session", "player") if with_session else ("player",)
    seat = (
        Seat.objects.select_related(*related).filter(secret=secret).order_by().first()
        if secret
        else None
    )
    if seat is None:
        raise Http404(gettext("No such seat"))
    return seat


# The phone that holds a seat: a random value in a long-lived cookie, kept hashed on the
# seat (``Seat.claimed_by``). One cookie per phone, whatever the seat.
DEVICE_COOKIE = "bourre_device"
DEVICE_MAX_AGE = 30 * 24 * 3600


def _device_of(request: HttpRequest) -> tuple[str, bool]:
    """This phone's device value, and whether it is new (then the answer sets it)."""
    raw = request.COOKIES.get(DEVICE_COOKIE, "")
    if 32 <= len(raw) <= 64:
        return raw, False
    return secrets.token_urlsafe(32), True


def holds_seat(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """For the views of a seat link (``secret`` in the URL): call ``view`` with the seat
    instead of the secret if this phone holds it (the first phone to open the link takes
    it), and give a new phone its device cookie; another phone gets the page that says
    only that the seat is taken (403). A move (POST) reads the session under its lock
    later."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, secret: str, **kwargs: Any) -> HttpResponse:
        seat = seat_for(secret, with_session=request.method != "POST")
        device, fresh = _device_of(request)
        if not digital.claim_seat(seat, hash_token(device)):
            # Only that the seat is taken: no player's name, no table (API FINDINGS).
            response = render(request, "games/digital_claimed.html", status=403)
            response["Cache-Control"] = "no-store, private"
            return response
        response = view(request, seat, *args, **kwargs)
        if fresh:
            response.set_cookie(
                DEVICE_COOKIE,
                device,
                max_age=DEVICE_MAX_AGE,
                httponly=True,
                samesite="Lax",
                secure=settings.SESSION_COOKIE_SECURE,
            )
        return response

    return wrapped


# Sessions (ids) whose seat links this browser's host chose to hide (Django session).
HIDDEN_LINKS = "bourre_hidden_seat_links"


@login_required
@require_POST
def seat_links_visibility(request: HttpRequest, session_id: int) -> HttpResponse:
    session, _ = session_for(request.user, session_id, Role.SCOREKEEPER)
    hidden = [pk for pk in request.session.get(HIDDEN_LINKS, []) if pk != session.pk]
    if request.POST.get("hide") == "1":
        hidden.append(session.pk)
    request.session[HIDDEN_LINKS] = hidden
    return redirect("digital_table", session.pk)


@login_required
@require_POST
def seat_link(request: HttpRequest, session_id: int, seat_id: int) -> HttpResponse:
    """Reissue a seat's link (the old one dies) or release it from the phone holding it."""
    session, _ = session_for(request.user, session_id, Role.SCOREKEEPER)
    # Through the session: another table's seat, or none, is a 404 like a stranger's.
    get_object_or_404(session.seats, pk=seat_id)
    action = request.POST.get("action")
    try:
        if action == "reissue":
            seat = digital.reissue_seat(session_id=session.pk, seat_id=seat_id)
            messages.success(
                request,
                gettext(
                    "%(name)s has a new seat link; the old one no longer opens. "
                    "Hand the new one over."
                )
                % {"name": seat.player.name},
            )
        elif action == "release":
            seat = digital.release_seat(session_id=session.pk, seat_id=seat_id)
            messages.success(
                request,
                gettext("%(name)s's seat is released: the next phone that opens the link takes it.")
                % {"name": seat.player.name},
            )
        else:
            messages.error(request, gettext("Choose “New link” or “Release”."))
    except digital.DigitalError as exc:
        messages.error(request, say(exc))
    return redirect("digital_table", session.pk)
