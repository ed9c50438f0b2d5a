"""Following a session without an account: the host's share link (create, show, revoke),
the read-only scoreboard and history it opens, and each player's own statement ("Me",
with the player's balance on the club's tab),
reached from the share link or from the member's scoreboard. Once the session is closed,
the statement also lists what the player still owes tonight, each transfer with the
payment hand-off ("Pay $14 with Venmo", games/templatetags/pay.py); transfers put on the
club's tab are not in that list (the tab line stands for them).

A share link shows names and amounts only: no player ids, no seat links, no member data,
no actions. Any token that does not open a live link (wrong, revoked, truncated) gets
the same plain 404, whether or not the session exists. The scoreboard polls like the
members' one: ``selectors.board_etag`` / ``games.polling`` answer 304 while the
session's version is unchanged.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from games.access import session_for
from games.clubs.tab import player_balance
from games.error_pages import require_GET
from games.http import AuthedHttpRequest, HtmxHttpRequest
from games.models import GameSession, Hand, Role, Seat, ShareLink
from games.polling import etag_matches, live, not_modified
from games.qr import phone_url, qr_svg
from games.sessions import selectors, share, statements

HISTORY_PAGE = 50


class ShareViewer:
    """Who reads through a share link, for the scoreboard helpers that take a
    membership: a role of its own (its own ETag: the page differs from a member's) and
    no right to do anything."""

    role = "share"

    def has_role(self, role: str) -> bool:
        return False


VIEWER = ShareViewer()


def _link(token: str) -> ShareLink:
    link = ShareLink.live(token)
    if link is None:
        raise Http404()  # no hint: the same answer for every token that opens nothing
    return link


def _private(response: HttpResponse) -> HttpResponse:
    # The token is the key: keep it out of referrers, caches and search engines.
    response["Cache-Control"] = "no-store, private"
    response["X-Robots-Tag"] = "noindex"
    return response


# -- the host's side -----------------------------------------------------------------------


@login_required
def session_share(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    """Show the session's share link and QR code; scorekeepers create or revoke it."""
    session, membership = session_for(request.user, session_id, Role.SCOREKEEPER)
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action == "create":
            share.create_link(session, request.user)
            messages.success(
                request,
                _(
                    "New share link ready. Anyone with it sees the scoreboard and history, "
                    "nothing else; an older link no longer opens."
                ),
            )
        elif action == "revoke":
            if share.revoke_links(session):
                messages.success(request, _("The share link is revoked: it no longer opens."))
            else:
                messages.info(request, _("There was no share link to revoke."))
        else:
            messages.error(request, _("Choose “New link” or “Revoke”."))
        return redirect("session_share", session.pk)
    link = share.current_link(session)
    url = phone_url(request, reverse("share_board", args=[link.token])) if link else ""
    context = {
        "session": session,
        "membership": membership,
        "link": link,
        "url": url,
        "qr": qr_svg(url) if url else "",
    }
    return _private(render(request, "games/session_share.html", context))


# -- the watcher's side --------------------------------------------------------------------


@require_GET
def share_board(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The live scoreboard of a share link: polled, 304 while nothing changed."""
    session = _link(token).session
    etag = selectors.board_etag(session, VIEWER)
    if request.htmx and etag_matches(request, etag):
        return _private(not_modified(etag))
    # A watcher by link reads the name of the session a carried pot came from, unlinked.
    context = selectors.board_context(session, VIEWER) | {
        "token": token,
        "carried_in": selectors.carried_in(session, link=False),
    }
    template = "games/share_board.html"
    if request.htmx:
        template += "#board"
    return _private(live(render(request, template, context), etag))


@require_GET
def share_history(request: HttpRequest, token: str) -> HttpResponse:
    session = _link(token).session
    hands = (
        session.hands.filter(number__isnull=False)
        .exclude(status=Hand.Status.IN_PROGRESS)
        .order_by("-number")
    )
    page = Paginator(hands, HISTORY_PAGE).get_page(request.GET.get("page"))
    context = {"session": session, "page": page, "token": token}
    return _private(render(request, "games/share_history.html", context))


@require_GET
def share_me(request: HttpRequest, token: str) -> HttpResponse:
    session = _link(token).session
    context = _statement_context(request, session)
    context |= {
        "token": token,
        "pick_url": reverse("share_me", args=[token]),
        "back_url": reverse("share_board", args=[token]),
    }
    return _private(render(request, "games/statement.html", context))


# -- a member's own statement --------------------------------------------------------------


@login_required
@require_GET
def session_me(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    session, _membership = session_for(request.user, session_id)
    if "name" not in request.GET:
        # A member linked to a seated player goes straight to their own statement.
        mine = (
            Seat.objects.filter(session=session, player__user=request.user)
            .values_list("player__name", flat=True)
            .first()
        )
        if mine:
            query = urlencode({"name": mine})
            return redirect(f"{reverse('session_me', args=[session.pk])}?{query}")
    context = _statement_context(request, session)
    context |= {
        "pick_url": reverse("session_me", args=[session.pk]),
        "back_url": session.get_absolute_url(),
    }
    return render(request, "games/statement.html", context)


def _statement_context(request: HttpRequest, session: GameSession) -> dict:
    seats = list(
        Seat.objects.filter(session=session)
        .order_by("position", "id")
        .values_list("player_id", "player__name")
    )
    names = [name for _pid, name in seats]
    wanted = request.GET.get("name", "")
    context: dict = {"session": session, "names": names, "name": None}
    if not wanted:
        return context
    player_id = next((pid for pid, name in seats if name == wanted), None)
    if player_id is None:
        context["unknown"] = wanted[:40]
        return context
    lines = statements.statement(session, player_id, wanted)
    context |= {
        "name": wanted,
        "lines": lines,
        "net": lines[-1].net if lines else 0,
        # What the player owes or is owed across sessions (issue #34).
        "tab": player_balance(session.club_id, player_id),
    }
    if not session.is_open:
        # What this player still owes tonight, each with the payment hand-off (#34).
        # A transfer put on the club's tab is left out: the tab line above covers it, and
        # the tab nets it with other sessions, so paying it as tonight's would pay twice.
        rows, _names = selectors.settlement_rows(session)
        owed = [
            r
            for r in rows
            if r["transfer"].payer == player_id and not r["paid"] and not r["on_tab"]
        ]
        context |= {"owed": owed} | selectors.pay_context(session, owed)
    return context
