"""Tournament pages: setup, registration and check-in (one by one or a pasted roster),
the director's dashboard (the clock, late entries, re-entries, rebuys, add-ons, deals),
the bracket (also public through an unguessable link, with the wall screen, the print
view and the draw's verification page), standings (also CSV) and the prize ledger.

Access goes through ``tournament_for`` (games.access style): strangers get 404, members
read, the director — the club's owner or a scorekeeper — changes things. Every change is
a POST to a service function (games.tournaments.service) that works as a plain form post
and, under htmx, re-renders the part of the page it changed. Messages are in the reader's
language; the engine's refusals go through games.messages.render. A table or an entry is
looked up through its tournament: another tournament's, or none, is a 404 (a missing
table was a 500). Pages that are only read refuse a POST with 405 (games.error_pages).
"""

import json
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import segno
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, ngettext

from games.access import club_for, tournament_for
from games.engine.tournament import TournamentError
from games.error_pages import require_POST, require_safe
from games.http import AuthedHttpRequest, HtmxHttpRequest
from games.messages import render as say
from games.models import Entry, GameSession, Membership, Role, Tournament, TournamentTable
from games.polling import etag_matches, live, not_modified
from games.tournaments import (
    clock,
    deals,
    payouts,
    screens,
    selectors,
    structure,
    tables,
    waiting,
)
from games.tournaments import entries as late
from games.tournaments import service as svc
from games.tournaments.forms import DealForm, EntryForm, RosterForm, TournamentForm
from ledger import books, exports
from ledger.exports import major


@login_required
@require_safe
def tournament_list(request: AuthedHttpRequest, club_id: int) -> HttpResponse:
    club, membership = club_for(request.user, club_id)
    tournaments = club.tournaments.all()
    return render(
        request,
        "games/tournament_list.html",
        {
            "club": club,
            "tournaments": tournaments,
            "is_director": membership.has_role(Role.SCOREKEEPER),
        },
    )


@login_required
def tournament_create(request: AuthedHttpRequest, club_id: int) -> HttpResponse:
    club, _ = club_for(request.user, club_id, Role.SCOREKEEPER)
    form = TournamentForm(request.POST or None, instance=Tournament(club=club))
    if request.method == "POST" and form.is_valid():
        try:
            t = svc.create_tournament(club=club, user=request.user, **form.settings())
        except TournamentError as exc:
            form.add_service_error(exc)
        else:
            messages.success(
                request, gettext("%(name)s is open for registration.") % {"name": t.name}
            )
            return redirect(t)
    status = 422 if form.errors else 200  # refused input, as every form of the app
    return render(
        request,
        "games/tournament_form.html",
        {"club": club, "form": form, "structure_rows": _structure_rows(form)},
        status=status,
    )


def _structure_rows(form: TournamentForm) -> list[structure.LevelRow]:
    """The structure the form describes: what was typed, else the saved or initial values."""
    if form.is_bound:
        return structure.rows(structure.from_data(form.data))
    values = {name: form[name].value() for name in structure.FIELDS}
    return structure.rows(structure.from_data(values))


@login_required
@require_safe
def structure_preview(request: AuthedHttpRequest) -> HttpResponse:
    """The structure table for the settings form's current fields (htmx, as they change)."""
    rows = structure.rows(structure.from_data(request.GET))
    return render(request, "games/tournament_structure.html", {"structure_rows": rows})


@login_required
def tournament_edit(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    t, _ = tournament_for(request.user, tournament_id, Role.SCOREKEEPER)
    form = TournamentForm(request.POST or None, instance=t)
    if t.status != Tournament.Status.REGISTRATION:
        messages.error(request, gettext("The settings are fixed once the tournament has started."))
        return redirect(t)
    if request.method == "POST" and form.is_valid():
        try:
            svc.update_settings(tournament_id=t.pk, user=request.user, **form.settings())
        except TournamentError as exc:
            form.add_service_error(exc)
        else:
            messages.success(request, gettext("Settings saved."))
            return redirect(t)
    t.refresh_from_db()
    status = 422 if form.errors else 200  # refused input, as every form of the app
    return render(
        request,
        "games/tournament_form.html",
        {
            "club": t.club,
            "form": form,
            "tournament": t,
            "structure_rows": _structure_rows(form),
        },
        status=status,
    )


def _detail_context(
    request: AuthedHttpRequest, t: Tournament, membership: Membership
) -> dict[str, Any]:
    data = selectors.bracket(t)
    entries = sorted(
        t.entries.select_related("player"),
        key=lambda e: (_ENTRY_ORDER.get(e.status, 9), e.player.name.lower()),
    )
    balances = books.prize_balances(t)
    n = sum(1 for e in entries if e.status in _COUNTED)
    deal_form, deal_wait = _deal_form(t)
    public_url = request.build_absolute_uri(reverse("tournament_public", args=[t.public_token]))
    # The results card: every paid place with its amount (not just the top three), then
    # the other finishers' places behind a disclosure.
    results = selectors.standings(t) if t.status == Tournament.Status.FINISHED else []
    podium = [r for r in results if r["prize"] or r["place"] == 1]
    others = [r for r in results if not (r["prize"] or r["place"] == 1)]
    moves = list(t.moves.select_related("player", "source", "target").order_by("-id")[:12])
    return {
        "podium": podium,
        "others": others,
        "moves": moves,
        "tournament": t,
        "club": t.club,
        "membership": membership,
        "is_director": membership.has_role(Role.SCOREKEEPER),
        "rounds": data["rounds"],
        "current": data["rounds"][-1] if data["rounds"] else None,
        "blockers": selectors.blockers(t, data),
        # A short table or tables out of balance, and what that waits for: balancing
        # happens by itself only after a table's own hand (tables.balance_outlook).
        "balance": selectors.balance_warnings(tables.balance_outlook(t)),
        "entries": entries,
        "counts": _counts(entries),
        "entry_form": EntryForm(tournament=t),
        # Its own ids: the entry form beside it has a check_in field too, and two
        # id="id_check_in" on one page send a tap on a label to the wrong checkbox.
        "roster_form": RosterForm(auto_id="id_roster_%s"),
        "remainder_rule": payouts.REMAINDER_RULE,
        "clock": clock.clock_state(t),
        "late_open": late.late_open(t),
        # The waiting list, first in line first, with each one's place ("2nd").
        "waiting_list": [
            {"entry": e, "place": waiting.ordinal(i)}
            for i, e in enumerate(waiting.waiting_entries(t), start=1)
        ],
        "cap_open": waiting.can_move(t) and t.status == Tournament.Status.RUNNING,
        # Moved up after the start: a place is theirs, one tap checks them in and seats.
        "offered": [e for e in entries if e.status == Entry.Status.REGISTERED]
        if t.status == Tournament.Status.RUNNING
        else [],
        "places_taken": waiting.places_taken(t),
        "deal_form": deal_form,
        "deal_wait": deal_wait,
        "payout_rows": payouts.payout_rows(t, balances["pool"], n)
        if t.status != Tournament.Status.FINISHED
        else [],
        "balances": balances,
        "public_url": public_url,
        "qr": mark_safe(
            segno.make(public_url).svg_inline(scale=3, title=gettext("Public bracket link"))
        ),
    }


# What a director's action returns, handed to its success message.
_T = TypeVar("_T")

# Registration lists who still has to check in first.
_ENTRY_ORDER: dict[str, int] = {Entry.Status.REGISTERED: 0, Entry.Status.CHECKED_IN: 1}
_COUNTED = (Entry.Status.CHECKED_IN, Entry.Status.PLAYING, Entry.Status.OUT, Entry.Status.WINNER)


def _counts(entries: Iterable[Entry]) -> dict[str, int]:
    counts = {status: 0 for status in Entry.Status.values}
    for e in entries:
        counts[e.status] += 1
    counts["in_event"] = sum(counts[s] for s in _COUNTED)
    return counts


def _dashboard_etag(t: Tournament, membership: Membership) -> str:
    # With the clock's level: the dashboard refreshes when a level ends.
    return screens.tv_etag(t)[:-1] + f'-{membership.role}"'


@login_required
@require_safe
def tournament_detail(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    """Registration and check-in before the start; the director's dashboard after (its
    table cards poll themselves, answered 304 while nothing changed)."""
    t, membership = tournament_for(request.user, tournament_id)
    etag = _dashboard_etag(t, membership)
    template = "games/tournament_detail.html"
    if request.htmx and request.GET.get("part") == "dashboard":
        if etag_matches(request, etag):
            return not_modified(etag)
        template += "#dashboard"
    context = _detail_context(request, t, membership)
    context["poll_headers"] = json.dumps({"If-None-Match": etag})
    return live(render(request, template, context), etag)


def _director_post(
    request: AuthedHttpRequest,
    tournament_id: int,
    action: Callable[[Tournament], _T],
    success: Callable[[_T], str] | None = None,
) -> HttpResponse:
    """Run a director's action; errors come back as a message on the dashboard, in the
    reader's language; ``success(result)`` words what was done."""
    t, _ = tournament_for(request.user, tournament_id, Role.SCOREKEEPER)
    try:
        result = action(t)
    except TournamentError as exc:
        messages.error(request, say(exc))
    else:
        if success:
            messages.success(request, success(result))
    return redirect(t)


@login_required
@require_POST
def entry_add(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    t, _ = tournament_for(request.user, tournament_id, Role.SCOREKEEPER)
    form = EntryForm(request.POST, tournament=t)
    if not form.is_valid():
        messages.error(request, gettext("Pick the players to enter."))
        return redirect(t)
    names: list[str] = []
    waiting_now: list[Entry] = []
    opened_before = _table_ids(t)
    try:
        for player in form.cleaned_data["players"]:
            entry = svc.register(
                tournament_id=t.pk,
                player=player,
                user=request.user,
                is_bot=form.cleaned_data["bots"],
            )
            if entry.status == Entry.Status.WAITING:
                waiting_now.append(entry)  # not entered: the field is full
                continue
            if form.cleaned_data["check_in"]:
                svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=request.user)
            names.append(player.name)
    except TournamentError as exc:
        messages.error(request, say(exc))
    _say_entered(request, t, names, waiting_now)
    _say_opened(request, t, opened_before)
    return redirect(t)


def _say_entered(
    request: AuthedHttpRequest, t: Tournament, names: list[str], waiting_now: list[Entry]
) -> None:
    """ "Entered: Ann." and "Waiting list: Ben (2nd)." — who got a place and who waits."""
    if names:
        messages.success(request, gettext("Entered: %(names)s.") % {"names": ", ".join(names)})
    if waiting_now:
        messages.warning(
            request,
            gettext("Waiting list (the field is full): %(names)s.")
            % {"names": waiting.in_line(t, waiting_now)},
        )


def _table_ids(t: Tournament) -> set[int]:
    return set(t.tables.values_list("pk", flat=True))


def _say_opened(request: AuthedHttpRequest, t: Tournament, before: set[int]) -> None:
    """A late entrant or a re-entry found every table full and opened a new one
    (``entries.seat_late``): say so, and how it fills, so the director walks there."""
    for table in t.tables.exclude(pk__in=before).select_related("session").order_by("number"):
        names = ", ".join(
            table.session.seats.filter(active=True)
            .order_by("position")
            .values_list("player__name", flat=True)
        )
        messages.info(
            request,
            gettext(
                "Every table was full: table %(table)s is open, with %(names)s. Players move "
                "there from the other tables between their hands, one at a time, as "
                "“Tables to balance” says."
            )
            % {"table": table.number, "names": names},
        )


def _moved_up(t: Tournament, before: set[int]) -> str:
    """What moved up from the waiting list since ``before`` (the waiting entries' ids)."""
    now = {e.pk for e in waiting.waiting_entries(t)}
    moved = t.entries.filter(pk__in=before - now, status=Entry.Status.REGISTERED)
    names = ", ".join(e.player.name for e in moved.select_related("player"))
    if not names:
        return ""
    return gettext(
        "A place is free for %(names)s (from the waiting list): check them in to seat them."
    ) % {"names": names}


@login_required
@require_POST
def entry_action(
    request: AuthedHttpRequest, tournament_id: int, entry_id: int, action: str
) -> HttpResponse:
    actions = {
        "checkin": svc.check_in,
        "withdraw": svc.withdraw,
        "reenter": late.reenter,
        "rebuy": late.rebuy,
        "addon": late.addon,
    }
    if action not in actions:
        raise Http404("No such action")
    t, _ = tournament_for(request.user, tournament_id, Role.SCOREKEEPER)
    entry = get_object_or_404(Entry.objects.select_related("player"), pk=entry_id, tournament=t)
    before = {e.pk for e in waiting.waiting_entries(t)}
    opened_before = _table_ids(t)
    paid = entry.status == Entry.Status.CHECKED_IN
    try:
        actions[action](tournament_id=t.pk, entry_id=entry.pk, user=request.user)
    except TournamentError as exc:
        messages.error(request, say(exc))
    else:
        done = {
            "checkin": gettext("%(name)s checked in."),
            "withdraw": gettext("%(name)s withdrew (refunded).")
            if paid
            else gettext("%(name)s withdrew."),
            "reenter": gettext("%(name)s re-entered with a new stack."),
            "rebuy": gettext("%(name)s rebought a stack."),
            "addon": gettext("%(name)s took the add-on."),
        }[action]
        messages.success(request, done % {"name": entry.player.name})
        moved = _moved_up(t, before)
        if moved:
            messages.info(request, moved)
        _say_opened(request, t, opened_before)
    return redirect(t)


@login_required
@require_POST
def field_cap(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    """Raise (or set) the field cap while late registration is open: the waiting list
    moves up into the new places, in order."""
    try:
        cap = int(request.POST.get("max_entries", ""))
    except ValueError:
        cap = -1

    def run(t: Tournament) -> str:
        before = {e.pk for e in waiting.waiting_entries(t)}
        waiting.set_cap(tournament_id=t.pk, max_entries=cap, user=request.user)
        return _moved_up(t, before)

    return _director_post(
        request,
        tournament_id,
        run,
        lambda moved: " ".join(
            [gettext("Field cap: %(n)s.") % {"n": cap} if cap else gettext("No field cap."), moved]
        ).strip(),
    )


@login_required
@require_POST
def checkin_all(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    def run(t: Tournament) -> int:
        opened_before = _table_ids(t)
        entries = t.entries.filter(status=Entry.Status.REGISTERED)
        for entry in entries:
            svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=request.user)
        _say_opened(request, t, opened_before)
        return len(entries)

    return _director_post(
        request, tournament_id, run, lambda n: gettext("%(n)s checked in.") % {"n": n}
    )


@login_required
@require_POST
def tournament_start(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    return _director_post(
        request,
        tournament_id,
        lambda t: svc.start(tournament_id=t.pk, user=request.user),
        lambda result: " ".join(
            [
                gettext(
                    "Round 1 is drawn. The seed is revealed (%(seed)s): anyone can check the draw."
                )
                % {"seed": result.seed},
                _start_waiting(result.tournament),
            ]
        ).strip(),
    )


def _start_waiting(t: Tournament) -> str:
    """What the start did to the waiting list: who still waits, in order, and whether
    late registration can still seat them; who moved up into a no-show's place."""
    parts = []
    line = waiting.waiting_entries(t)
    if line:
        names = waiting.in_line(t, line)
        if late.late_open(t):
            parts.append(
                gettext(
                    "Still on the waiting list: %(names)s. They get a place in this order as "
                    "places free up during late registration."
                )
                % {"names": names}
            )
        else:
            parts.append(
                gettext(
                    "Still on the waiting list: %(names)s. Late registration is closed, so no "
                    "place will free up for them."
                )
                % {"names": names}
            )
    moved = t.entries.filter(status=Entry.Status.REGISTERED).select_related("player")
    if moved:
        parts.append(
            gettext(
                "A place is free for %(names)s (from the waiting list): check them in to seat them."
            )
            % {"names": ", ".join(e.player.name for e in moved)}
        )
    return " ".join(parts)


@login_required
@require_POST
def round_draw(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    return _director_post(
        request,
        tournament_id,
        lambda t: svc.draw_next_round(tournament_id=t.pk, user=request.user),
        lambda result: gettext("Round %(n)s is drawn.") % {"n": result.number},
    )


@login_required
@require_POST
def tournament_reseed(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    return _director_post(
        request,
        tournament_id,
        lambda t: svc.reseed(tournament_id=t.pk, user=request.user),
        lambda result: (
            gettext("A new seed is made; its commitment is %(commitment)s.")
            % {"commitment": result.seed_commitment}
        ),
    )


@login_required
@require_POST
def clock_control(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    action = request.POST.get("action", "")
    try:
        seconds = int(request.POST.get("minutes") or 0) * 60
    except ValueError:
        seconds = 0
    words = {
        "start": gettext("Clock started."),
        "pause": gettext("Clock paused."),
        "resume": gettext("Clock running again."),
    }
    done = words.get(action) or gettext("Clock moved by %(minutes)s min.") % {
        "minutes": f"{seconds // 60:+d}"
    }
    return _director_post(
        request,
        tournament_id,
        lambda t: clock.clock_action(
            tournament_id=t.pk, action=action, user=request.user, seconds=seconds
        ),
        lambda _result: done,
    )


@login_required
@require_POST
def roster_paste(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    t, _ = tournament_for(request.user, tournament_id, Role.SCOREKEEPER)
    form = RosterForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("Paste at least one name, one per line."))
        return redirect(t)
    names, repeats = late.roster_names(form.cleaned_data["names"])
    if repeats:
        messages.info(
            request,
            gettext("Listed more than once, entered once: %(names)s.")
            % {"names": ", ".join(repeats)},
        )
    done: list[str] = []
    skipped: list[str] = []
    waiting_now: list[Entry] = []
    opened_before = _table_ids(t)
    for player in late.roster_players(t, names):
        try:
            entry = svc.register(tournament_id=t.pk, player=player, user=request.user)
            if entry.status == Entry.Status.WAITING:
                waiting_now.append(entry)
                continue
            if form.cleaned_data["check_in"]:
                svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=request.user)
            done.append(player.name)
        except TournamentError as exc:
            skipped.append(f"{player.name} ({say(exc)})")
    if done:
        messages.success(
            request,
            gettext("Entered %(n)s: %(names)s.") % {"n": len(done), "names": ", ".join(done)},
        )
    if waiting_now:
        messages.warning(
            request,
            gettext("Waiting list (the field is full): %(names)s.")
            % {"names": waiting.in_line(t, waiting_now)},
        )
    if skipped:
        messages.error(request, gettext("Not entered: %(names)s") % {"names": "; ".join(skipped)})
    _say_opened(request, t, opened_before)
    return redirect(t)


def _deal_form(t: Tournament) -> tuple[DealForm | None, str]:
    """The deal form at the final table, or None with what it waits for when the final
    table is there but a deal cannot be made yet (chips in its pot, a hand being played):
    the dashboard says so instead of leaving the director to wonder where it went."""
    if t.status != Tournament.Status.RUNNING:
        return None, ""
    try:
        terms = deals.deal_terms(t)
    except TournamentError as exc:
        return None, say(exc) if exc.code == "pot" else ""
    names = dict(t.entries.values_list("player_id", "player__name"))
    return DealForm(terms=terms, names=names, currency=t.currency), ""


@login_required
@require_POST
def deal_make(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    """Record a deal. A refusal (the form's or the service's) shows the dashboard again
    with the deal form open, its error in view and what was typed kept (status 422, like
    every form of the app that refuses input)."""
    t, membership = tournament_for(request.user, tournament_id, Role.SCOREKEEPER)
    form, wait = _deal_form(t)
    if form is None:
        messages.error(
            request, wait or gettext("A deal is made at the final table, between hands.")
        )
        return redirect(t)
    form = DealForm(request.POST, terms=form.terms, names=form.names, currency=t.currency)
    if form.is_valid():
        try:
            deals.make_deal(
                tournament_id=t.pk,
                kind=form.cleaned_data["kind"],
                agreed=form.agreed(),
                amounts=form.amounts(),
                user=request.user,
            )
        except TournamentError as exc:
            form.add_error(None, say(exc))
        else:
            messages.success(request, gettext("Deal recorded: the tournament is over."))
            return redirect(t)
    t.refresh_from_db()
    context = _detail_context(request, t, membership)
    # The dashboard's poll answers 304 while nothing changed: what was typed stays.
    context["deal_form"] = form
    context["poll_headers"] = json.dumps({"If-None-Match": _dashboard_etag(t, membership)})
    return render(request, "games/tournament_detail.html", context, status=422)


@login_required
@require_POST
def round_end(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    now = request.POST.get("now") == "1"
    return _director_post(
        request,
        tournament_id,
        lambda t: svc.end_round(tournament_id=t.pk, user=request.user, now=now),
        lambda _result: (
            gettext("The round ends now.")
            if now
            else gettext("The round ends at each table once its pot is won.")
        ),
    )


@login_required
@require_POST
def table_end(request: AuthedHttpRequest, tournament_id: int, table_id: int) -> HttpResponse:
    now = request.POST.get("now") == "1"

    def run(t: Tournament) -> TournamentTable:
        # Through the tournament: another tournament's table, or none, is a 404.
        table = get_object_or_404(t.tables, pk=table_id)
        return svc.end_table(tournament_id=t.pk, table_id=table.pk, user=request.user, now=now)

    return _director_post(
        request,
        tournament_id,
        run,
        lambda result: (
            (
                gettext("Table %(n)s: ended.")
                if now
                else gettext("Table %(n)s: ends once its pot is won.")
            )
            % {"n": result.number}
        ),
    )


@login_required
@require_POST
def table_autoplay(request: AuthedHttpRequest, tournament_id: int, table_id: int) -> HttpResponse:
    try:
        hands = max(1, min(int(request.POST.get("hands", "1")), 50))
    except ValueError:
        hands = 1

    def run(t: Tournament) -> int:
        table = get_object_or_404(t.tables, pk=table_id)
        if t.table_mode != GameSession.Mode.DIGITAL:
            raise TournamentError(
                "Only digital tables are played by bots.",
                code="mode",
                message_id="bots_digital_only",
            )
        return svc.autoplay(tournament_id=t.pk, table_id=table.pk, hands=hands, user=request.user)

    return _director_post(
        request,
        tournament_id,
        run,
        lambda n: (
            ngettext("Bots played %(n)s hand(s).", "Bots played %(n)s hand(s).", n) % {"n": n}
        ),
    )


@login_required
@require_POST
def tournament_sync(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    return _director_post(
        request,
        tournament_id,
        lambda t: svc.sync(tournament_id=t.pk, user=request.user),
        lambda _result: gettext("Tables checked."),
    )


# -- the bracket ------------------------------------------------------------------------------


def _bracket_response(
    request: HtmxHttpRequest, t: Tournament, template: str, extra: dict[str, Any]
) -> HttpResponse:
    """The bracket page, or under htmx its polled partial: 304 with no body while
    nothing changed (ETag from the tournament's and its tables' versions)."""
    etag = selectors.etag(t)
    if request.htmx:
        if etag_matches(request, etag):
            return not_modified(etag)
        template += "#bracket"
    data = selectors.bracket(t)
    context = {
        "tournament": t,
        "rounds": data["rounds"],
        "podium": data["podium"],
        "deal": data["deal"],
        "etag": etag,
        "poll_headers": json.dumps({"If-None-Match": etag}),
        **extra,
    }
    return live(render(request, template, context), etag)


@login_required
@require_safe
def bracket(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    t, membership = tournament_for(request.user, tournament_id)
    poll_url = reverse("tournament_bracket", args=[t.pk])
    return _bracket_response(
        request,
        t,
        "games/bracket.html",
        {"club": t.club, "poll_url": poll_url, "public": False, "membership": membership},
    )


@require_safe
def public_bracket(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """Read-only, no login: whoever has the (unguessable) link."""
    t = Tournament.objects.filter(public_token=token).select_related("club").first()
    if t is None:
        raise Http404("No such tournament")
    poll_url = reverse("tournament_public", args=[token])
    return _bracket_response(
        request, t, "games/bracket.html", {"poll_url": poll_url, "public": True}
    )


# -- standings and prizes ----------------------------------------------------------------------


@login_required
@require_safe
def standings(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    t, _ = tournament_for(request.user, tournament_id)
    return render(
        request,
        "games/tournament_standings.html",
        {"tournament": t, "club": t.club, "rows": selectors.standings(t)},
    )


@login_required
@require_safe
def prizes(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    t, _ = tournament_for(request.user, tournament_id)
    names = dict(t.entries.values_list("player_id", "player__name"))
    ledger = [
        {
            "posting": posting,
            "legs": [
                {
                    "label": names.get(leg.account.player_id, "?")
                    if leg.account.player_id
                    else leg.account.get_kind_display(),
                    "amount": leg.amount,
                }
                for leg in posting.legs.all()
            ],
        }
        for posting in books.prize_postings(t)
    ]
    return render(
        request,
        "games/tournament_prizes.html",
        {
            "tournament": t,
            "club": t.club,
            "ledger": ledger,
            "balances": books.prize_balances(t),
        },
    )


@login_required
@require_safe
def prizes_csv(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    t, _ = tournament_for(request.user, tournament_id)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="tournament-{t.pk}-prizes.csv"'
    writer = exports.writer(response, lineterminator="\r\n")
    writer.writerow(selectors.PRIZE_CSV_COLUMNS)
    writer.writerows(selectors.prize_csv_rows(t))
    return response


# -- the wall screen, the print view, the draw's verification (public by link) ---------------


def _by_token(token: str) -> Tournament:
    t = Tournament.objects.filter(public_token=token).select_related("club").first()
    if t is None:
        raise Http404("No such tournament")
    return t


@require_safe
def tournament_tv(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The TV page (1920×1080, read across a room): its screen polls itself, answered
    304 while nothing changed; the clock ticks in static/js/clock.js."""
    t = _by_token(token)
    etag = screens.tv_etag(t)
    template = "games/tournament_tv.html"
    if request.htmx:
        if etag_matches(request, etag):
            return not_modified(etag)
        template += "#screen"
    context = {
        "tournament": t,
        "poll_url": reverse("tournament_tv", args=[token]),
        "poll_headers": json.dumps({"If-None-Match": etag}),
        **screens.tv_context(t),
    }
    return live(render(request, template, context), etag)


@require_safe
def tournament_print(request: HttpRequest, token: str) -> HttpResponse:
    """Results, payouts and the bracket on paper: no site header, no buttons."""
    t = _by_token(token)
    return render(
        request,
        "games/tournament_print.html",
        {
            "tournament": t,
            "rows": selectors.standings(t),
            "rounds": selectors.bracket(t)["rounds"],
            **screens.tv_context(t),
        },
    )


@require_safe
def tournament_verify(request: HttpRequest, token: str) -> HttpResponse:
    """Anyone can check the draw: the seed against its commitment, and every draw redone
    from the seed and the entry list (or a list they paste, as player ids)."""
    t = _by_token(token)
    pasted = request.GET.get("entrants", "").strip()
    entrants = None
    error = ""
    if pasted:
        try:
            entrants = sorted({int(x) for x in pasted.replace(",", " ").split()})
        except ValueError:
            error = gettext("Write the entry list as player ids separated by spaces or commas.")
    check = screens.verify_draws(t, entrants)
    return render(
        request,
        "games/tournament_verify.html",
        {"tournament": t, "check": check, "pasted": pasted, "error": error},
    )


@login_required
@require_safe
def standings_csv(request: AuthedHttpRequest, tournament_id: int) -> HttpResponse:
    t, _ = tournament_for(request.user, tournament_id)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="tournament-{t.pk}-standings.csv"'
    writer = exports.writer(response, lineterminator="\r\n")
    writer.writerow(selectors.STANDINGS_CSV_COLUMNS)
    writer.writerows(
        selectors.standings_csv_rows(selectors.standings(t), lambda x: major(x, t.currency))
    )
    return response
