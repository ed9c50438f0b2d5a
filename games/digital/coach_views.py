"""The coach's pages: a seat's hint (its own turn only), a seat's review of a finished
hand, and the host's switch on the table page (games.digital.coach says what they
compute and when the coach is on).

A hint and a review are for the seat's own player, through the seat link (``holds_seat``:
another phone gets the page that says the seat is taken). When the host turned the coach
off both answer 403 with a page that says so in the reader's language. Sentences are the
templates' (templates/games/digital_hint.html, digital_review.html): the engine gives
codes and numbers.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, ngettext, pgettext

from games.access import session_for
from games.digital import coach
from games.digital import selectors as digital_reads
from games.digital.link_views import holds_seat
from games.digital.views import card
from games.engine.coach import Hint
from games.error_pages import require_GET, require_POST
from games.http import HtmxHttpRequest
from games.models import GameSession, Hand, Role, Seat


def _private(response: HttpResponse) -> HttpResponse:
    # What the coach says is for this seat alone.
    response["Cache-Control"] = "private, no-store"
    response["X-Robots-Tag"] = "noindex"
    return response


def _page(
    request: HtmxHttpRequest, template: str, context: dict[str, Any], status: int = 200
) -> HttpResponse:
    if request.htmx:
        template += "#coach"
    return _private(render(request, template, context, status=status))


def _off(request: HtmxHttpRequest, seat: Seat) -> HttpResponse:
    context = {"seat": seat, "session": seat.session, "off": True}
    return _page(request, "games/digital_hint.html", context, status=403)


def _action(action: Any) -> dict[str, Any]:
    """An action for people: its kind, and ``text`` to say it (a card as its face)."""
    label = coach.action_label(action)
    if label["card"]:
        label["card"] = card(label["card"])
        label["text"] = label["card"]["html"]
    elif label["kind"] == "play":
        n = label["draw"]
        label["text"] = (
            ngettext("Play, draw %(n)s card", "Play, draw %(n)s cards", n) % {"n": n}
            if n
            else gettext("Play, stand pat")
        )
    else:
        label["text"] = pgettext("declare button", "Pass")
    return label


def hint_context(h: Hint) -> dict[str, Any]:
    """A hint for the template: its facts, with cards as faces."""
    return {
        "kind": h.kind,
        "reason": h.reason,
        "action": _action(h.action),
        "gain": h.gain,
        "loss": -h.runner_up_gain if h.runner_up_gain is not None else 0.0,
        "ahead": h.gain - h.runner_up_gain if h.runner_up_gain is not None else 0.0,
        "runner_up": _action(h.runner_up) if h.runner_up else None,
        "runner_up_gain": h.runner_up_gain,
        "samples": h.samples,
        "trumps": h.trumps,
        "best_trump": card(h.best_trump) if h.best_trump else None,
        "to_declare": h.to_declare,
        "playing": h.playing,
        "pot": h.pot,
        "draw": h.draw,
        "card": card(h.card) if h.card else None,
    }


@require_GET
@holds_seat
def seat_hint(request: HtmxHttpRequest, seat: Seat) -> HttpResponse:
    """What the expert would do now, from this seat's view, and why."""
    session = seat.session
    if not coach.coach_on(session):
        return _off(request, seat)
    context: dict[str, Any] = {"seat": seat, "session": session}
    hand = digital_reads.hand_in_progress(session.pk)
    table = digital_reads.load_table(hand)
    name = seat.player.name
    found = None
    if hand is not None and table.state is not None and name in table.state.seat_of:
        found = coach.hint_for(hand, table.seq, table.state.view_for(name))
    if found is None:
        # Nothing for this seat to decide: the table moved on, or it is not its turn.
        context["nothing"] = True
        return _page(request, "games/digital_hint.html", context, status=409)
    context["hint"] = hint_context(found)
    return _page(request, "games/digital_hint.html", context)


@require_GET
@holds_seat
def seat_review(request: HtmxHttpRequest, seat: Seat, hand_id: int) -> HttpResponse:
    """The player's decisions in a finished hand where the expert differed, and what each
    cost in antes (computed the first time, kept after)."""
    session = seat.session
    if not coach.coach_on(session):
        return _off(request, seat)
    hand = Hand.objects.filter(pk=hand_id, session_id=session.pk, kind=Hand.Kind.DIGITAL).first()
    if hand is None:
        raise Http404(gettext("No such hand at this table"))
    context: dict[str, Any] = {
        "seat": seat,
        "session": session,
        "hand": hand,
        # On the seat's board (htmx) the result already links the replay.
        "replay_url": (
            None if request.htmx else reverse("digital_seat_replay", args=[seat.secret, hand.pk])
        ),
        "seat_url": reverse("digital_seat", args=[seat.secret]),
    }
    if hand.status != Hand.Status.RECORDED:
        context["not_over"] = True
        return _page(request, "games/digital_review.html", context, status=409)
    review = coach.review_for(hand, seat.player_id, seat.player.name)
    if review is None:
        context["not_dealt_in"] = True
        return _page(request, "games/digital_review.html", context)
    differed = [
        {
            "kind": i["kind"],
            "trick": i["trick"],
            "chosen": _action(i["chosen"]),
            "best": _action(i["best"]),
            "cost": i["cost"],
            "discard_scored": i["discard_scored"],
        }
        for i in review.items
        if not i["matched"]
    ]
    context.update(
        {
            "review": review,
            "differed": differed,
            "cost": review.cost / 100,
        }
    )
    return _page(request, "games/digital_review.html", context)


@login_required
@require_POST
def coach_switch(request: HttpRequest, session_id: int) -> HttpResponse:
    """The host turns the coach on, off, or back to automatic for this table."""
    session, _ = session_for(request.user, session_id, Role.SCOREKEEPER)
    choice = request.POST.get("coach", "")
    if choice not in GameSession.Coach.values:
        messages.error(request, gettext("Choose on, off or automatic for the coach."))
        return redirect("digital_table", session.pk)
    coach.set_coach(session.pk, choice)
    messages.success(request, gettext("The coach setting is saved."))
    return redirect("digital_table", session.pk)
