"""Session pages: start, scoreboard (polled), record a hand, undo/edit, seats, close,
history, and the club's player statistics (the house rules page is ``rules_views``).

Every view reaches club objects through `games.access` (strangers 404, members read,
scorekeepers write). Money is written only by `ledger.postings`; these views parse forms,
call it, and render what it returns. htmx requests get partials and are never redirected
(a redirected XHR would swap a whole page into a fragment); plain posts follow
post/redirect/get. A recorded hand's POST checks access and locks the session row in
one statement, and the ledger settles the hand in that transaction (``_record_post``);
the result screen shows the legs the ledger wrote without reading them back
(``record_hand_with_legs``). The login is always Django's ``request.user``.
Only a blank record form (a GET, not a copy of an old hand) may take back the taps its
tab kept over a reload (``restorable``; static/js/record.js); a form re-shown with the
posted values (409, 422) never does.
Every message, notice and column heading is in the reader's language (issue 19);
refusals go through ``games.messages.render``.
A tournament table's record form announces a scheduled break
(``games.tournaments.clock.table_break``); a hand posted during it without the form's
"save it anyway" box is not saved and comes back with that box (one confirmation,
checked here on the server, not only in the page).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, cast, overload

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db import transaction
from django.db.models import Max, Prefetch, Q
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext
from django_htmx.http import HttpResponseClientRedirect

from games import sql as game_sql
from games.access import club_for, hand_for, session_for
from games.clubs.tab import member_tab
from games.converters import parse_id
from games.digital.coach import RECENT_DAYS, match_rates
from games.engine.hand_meaning import excused_from_ante, same_result, who_antes_next
from games.engine.record import TABLE_KEYS
from games.error_pages import require_POST, require_safe
from games.errors import BourreError, form_error
from games.http import AuthedHttpRequest
from games.messages import render as say
from games.models import GameSession, Hand, Membership, Player, Role, TournamentTable
from games.money import Currency, format_money
from games.polling import etag_matches, live, member_board_unchanged, not_modified
from games.sessions import selectors, statements
from games.sessions.forms import RENEGE_KINDS, CloseForm, HandForm, SessionForm
from games.sessions.rule_fields import rules_of
from games.templatetags.bourre import SUITS
from games.tournaments.clock import BreakNotice, table_break
from ledger import postings
from ledger.models import Leg, Posting
from ledger.postings import PostedLeg
from ledger.stats import club_player_stats

HISTORY_PAGE = 10  # hands per history page (issue #20: render less per page)


# --- helpers ------------------------------------------------------------------------------


def _closed_text(session: GameSession) -> str:
    table = TournamentTable.objects.filter(session=session).select_related("tournament").first()
    if table is None:
        return _("%(session)s is closed: nothing more can be recorded or changed.") % {
            "session": session.name
        }
    # A finished tournament table is not re-opened: its result already moved the
    # tournament on (who advanced or went out, the next round's draw, places, prizes).
    t = table.tournament
    return _(
        "Table %(number)s of %(tournament)s has finished: its result is part of the "
        "tournament (who went on, places and prizes), so its hands can no longer be undone. "
        "If a hand was recorded wrong, tell the director; the tournament page is %(url)s"
    ) % {"number": table.number, "tournament": t.name, "url": t.get_absolute_url()}


def _closed_response(request: AuthedHttpRequest, session: GameSession) -> HttpResponse:
    text = _closed_text(session)
    if request.htmx:
        return render(
            request,
            "games/session_detail.html#closed-notice",
            {"session": session, "text": text},
            status=409,
        )
    messages.error(request, text)
    return redirect(session)


def _next_url(request: AuthedHttpRequest, default: str) -> str:
    url = request.POST.get("next") or request.GET.get("next") or ""
    # A path of this site only: redirect() reads a bare word ("ann") as a URL name to
    # reverse, which fails (a crafted "next" was a 500).
    if url.startswith("/") and url_has_allowed_host_and_scheme(url, {request.get_host()}):
        return url
    return default


# --- starting a session -------------------------------------------------------------------


@login_required
def session_new(request: AuthedHttpRequest, club_id: int) -> HttpResponse:
    club, membership = club_for(request.user, club_id, Role.SCOREKEEPER)
    form = SessionForm(request.POST or None, club=club)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            with transaction.atomic():
                players = [
                    p if isinstance(p, Player) else Player.objects.create(club=club, name=p)
                    for p in data["seating"]
                ]
                session = postings.start_session(
                    club=club,
                    name=data["name"],
                    players=players,
                    dealer=data["dealer"] or players[0],
                    rules=form.rules(),
                    currency=data["currency"],
                    user=request.user,
                    leftover_policy=data["leftover_policy"],
                )
        except BourreError as error:
            form_error(form, error)
        else:
            messages.success(
                request,
                _("%(session)s started. %(player)s sits first.")
                % {"session": session.name, "player": form.cleaned_data["seating"][0]},
            )
            if request.htmx:
                return HttpResponseClientRedirect(session.get_absolute_url())
            return redirect(session)
    status = 422 if form.errors else 200
    return render(
        request,
        "games/session_new.html",
        {"club": club, "membership": membership, "form": form},
        status=status,
    )


# --- the scoreboard -----------------------------------------------------------------------


@require_safe
def session_detail(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    """The screen left open on the table. htmx polls the `board` partial; an unchanged
    session answers 304 with no body (the ETag is the session's version), for a member
    without loading the user or the session row (``games.polling``)."""
    if request.htmx:
        unchanged = member_board_unchanged(request, session_id)
        if unchanged is not None:
            return unchanged
    return _session_detail(request, session_id)


def _session_detail(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    found = _member_session(request, session_id, Role.MEMBER)
    if found is None:
        return redirect_to_login(request.get_full_path())
    session, membership = found
    etag = selectors.board_etag(session, membership)
    if request.htmx and etag_matches(request, etag):
        return not_modified(etag)
    context = selectors.board_context(session, membership)
    # Under the pot, where a carried-in pot came from (one statement, only before the
    # session's first hand when it has one: selectors.carried_in).
    context["carried_in"] = selectors.carried_in(session)
    if not request.htmx:  # the member's own tab, below the board (issue #34)
        context["my_tab"] = member_tab(session.club_id, request.user.pk)
    template = "games/session_detail.html#board" if request.htmx else "games/session_detail.html"
    return live(render(request, template, context), etag)


def _member_session(
    request: AuthedHttpRequest, session_id: int, role: str
) -> tuple[GameSession, Membership] | None:
    """The session and the reader's membership; None for a visitor who must log in (as
    ``login_required`` decides, by Django's ``get_user``, which may flush a stale login)."""
    if not request.user.is_authenticated:
        return None
    return session_for(request.user, session_id, role)


# --- recording a hand ---------------------------------------------------------------------


def _new_key() -> str:
    return uuid.uuid4().hex


def _fresh_form(
    session: GameSession, prefill: dict | None = None, state: dict | None = None
) -> HandForm:
    """An empty record form for the table (``state``: the table as already read)."""
    if state is None:
        state = postings.session_state(session)
    return HandForm(state=state, prefill=prefill, initial={"idempotency_key": _new_key()})


def _record_context(
    session: GameSession, membership: Membership, form: HandForm, **extra: Any
) -> dict:
    trump = form.fields["trump"]
    assert isinstance(trump, forms.ChoiceField)  # HandForm.trump
    # Read back, choices are normalised (value, label) pairs; the stubs give the getter
    # the setter's wider input type.
    suit_choices = cast("list[tuple[str, str]]", trump.choices)
    context = {
        "session": session,
        "membership": membership,
        "form": form,
        "rows": form.rows(),
        "slots": form.error_slots(),
        "counted": form.counted(),
        "hand_size": form.hand_size,
        "suits": [(code, label, SUITS[code][0]) for code, label in suit_choices],
        "digital_busy": False,
        "renege_kinds": RENEGE_KINDS,
        "has_renege_errors": any(
            f.startswith("renege") for f in (form.errors if form.is_bound else {})
        ),
    }
    context.update(extra)
    if "carried_in" not in context:
        # Where the pot came from when it is still only the club's carried pot: one more
        # statement, read only before the session's first hand when a pot was carried in
        # (selectors.carried_in), so a record form or POST of a later hand costs nothing more.
        context["carried_in"] = selectors.carried_in(session)
    if "last_played" not in context:
        context["last_played"] = _last_played(session)
    if "next_number" not in context:
        # The number the next hand is saved under (undone hands keep theirs).
        context["next_number"] = (session.hands.aggregate(last=Max("number"))["last"] or 0) + 1
    return context


def _last_played(session: GameSession) -> list[str]:
    """Who played the latest hand (the record form can start from them, the host's
    choice, remembered by the phone)."""
    return _played(game_sql.latest_record(session.pk))


def _played(record: dict | None) -> list[str]:
    """The players of a hand's record who did not pass."""
    if not record:
        return []
    passed = set(record.get("passed") or [])
    return [p for p in record.get("players") or [] if p not in passed]


def _entry_of(record: dict) -> dict:
    keys = TABLE_KEYS
    return {k: record[k] for k in keys if record.get(k)}


def hand_record(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    if request.method == "POST":
        # The login is checked by the POST's locked access statement (_record_post).
        return _record_post(request, session_id)
    return _record_form(request, session_id)


def _record_form(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    """The record form; a visitor is sent to log in, as ``login_required`` does."""
    found = _member_session(request, session_id, Role.SCOREKEEPER)
    if found is None:
        return redirect_to_login(request.get_full_path())
    session, membership = found
    if not session.is_open:
        return _closed_response(request, session)
    prefill = None
    source = request.GET.get("from")
    source_id = parse_id(source)
    if source_id is not None:
        hand, _ = hand_for(request.user, source_id)
        if hand.session_id != session.pk:
            raise Http404("No such hand in this session")
        prefill = _entry_of(hand.record)
    # The seats, the next hand's number and a digital hand in progress.
    table = postings.table_state(session)
    form = _fresh_form(session, prefill, table.state)
    context = _record_context(
        session,
        membership,
        form,
        tournament_break=table_break(session.pk) if session.chip_limited else None,
        digital_busy=table.digital_busy,
        next_number=table.next_number,
        last_played=_last_played(session),
        # A blank form may take back the taps this tab kept (static/js/record.js); a
        # copy of an old hand ("from") brings its own.
        restorable=prefill is None,
    )
    return render(request, _record_template(request), context)


def _record_template(request: AuthedHttpRequest) -> str:
    return "games/hand_record.html#record" if request.htmx else "games/hand_record.html"


def _posted_form(request: AuthedHttpRequest, session: GameSession) -> HandForm:
    # Parsing needs only the rules and version (the names travel in the form); the
    # table's state is read only if the form must be shown again.
    posted_state = {"rules": session.rules, "version": session.version}
    # HandForm takes the posted names only when there are two (player_0 and player_1);
    # with fewer it needs the table's (a form with one name had no players: a 500).
    if not (request.POST.get("player_0") and request.POST.get("player_1")):
        posted_state = postings.session_state(session)
    elif any(key.startswith("out_of_turn_") for key in request.POST):
        # R16: a called declaration adds to the forfeits the session holds (the ledger
        # refuses a list that drops one, and a stale version anyway)
        posted_state["forfeits"] = postings.session_state(session)["forfeits"]
    return HandForm(request.POST, state=posted_state)


# One piece (radon D): one transaction and the answers to what the ledger may refuse
# inside it (confirm, stale, closed, rejected), each of which needs the same locals.
def _record_post(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    """One reported hand. The access check and the session row are read, the row locked,
    in one statement (``access.session_for(lock=True)``), and the ledger settles the
    hand in that same transaction (``record_hand_with_legs(locked=...)``): the row is
    read once (issue #20). Everything the ledger refuses it refuses before changing the
    session object, and its exception rolls the transaction back before the answer is
    rendered. A visitor is sent to log in, as ``login_required`` does."""
    if not request.user.is_authenticated:  # Django's get_user: may flush a stale login
        return redirect_to_login(request.get_full_path())
    template = _record_template(request)
    hand: Hand | None = None
    legs: list[PostedLeg] | None = None
    pause: BreakNotice | None = None
    try:
        with transaction.atomic():
            session, membership = session_for(request.user, session_id, Role.SCOREKEEPER, lock=True)
            # Only a tournament's table (chip-limited: only those are) can be on a break,
            # so a home session's hand pays no statement for the question.
            if session.chip_limited and request.POST.get("during_break") != "1":
                pause = table_break(session.pk)
            form = _posted_form(request, session) if session.is_open and pause is None else None
            if form is not None and form.is_valid():
                hand, created, legs = postings.record_hand_with_legs(
                    session_id=session.pk,
                    entry=form.entry(),
                    idempotency_key=form.cleaned_data["idempotency_key"],
                    expected_version=form.cleaned_data.get("version"),
                    user=request.user,
                    confirm_surprises=request.POST.get("confirmed") != "1",
                    locked=session,
                )
    except postings.NeedsConfirmation as costly:
        assert form is not None
        confirm = _charges(costly, session.currency)
        # The form was parsed without the table (the names travel in it): shown again,
        # it says whose deal it is and who is excused, as it did before the tap.
        form.set_table(postings.session_state(session))
        return render(
            request, template, _record_context(session, membership, form, confirm=confirm)
        )
    except postings.StaleState:
        assert form is not None
        typed = form.entry()
        session.refresh_from_db()
        # The taps are kept, on the fresh table (names that left are dropped): the host
        # checks them, as another phone may have saved this very hand.
        form = _fresh_form(session, prefill=typed)
        latest = (
            session.hands.filter(status=Hand.Status.RECORDED, number__isnull=False)
            .order_by("-number")
            .only("number", "record")
            .first()
        )
        if latest is not None and same_result(typed, latest.record):
            # Most likely the very hand just saved (by another phone, or by this one
            # before Back): one more tap on Save would record it twice, so say so.
            form.notice = _(
                "The table moved on: hand %(number)s was just saved with exactly this "
                "result. Nothing was saved now. Save again only if this is a new hand that "
                "ended the same way."
            ) % {"number": latest.number}
        else:
            form.notice = _(
                "The table moved on while this form was open (a hand was recorded, or the "
                "seats or rules changed). Nothing was saved. What you typed is still below, "
                "on the table as it is now: check it against the latest hand before saving, "
                "so nothing is recorded twice."
            )
        # The latest hand, read once, also gives the form its "last hand's players".
        last_played = _played(latest.record if latest else None)
        context = _record_context(session, membership, form, last_played=last_played)
        return render(request, template, context, status=409)
    except postings.SessionClosed:
        session.refresh_from_db()
        return _closed_response(request, session)
    except postings.HandRejected as rejected:
        assert form is not None
        form.add_engine_errors(rejected.errors, rejected.verdict)
    if pause is not None:
        refused = _refused_during_break(request, session_id, pause, template)
        if refused is not None:
            return refused
    if form is None:
        return _closed_response(request, session)
    if hand is not None:
        if not request.htmx:
            if created:
                messages.success(request, _("Hand %(number)s saved.") % {"number": hand.number})
            else:
                messages.info(
                    request, _("Hand %(number)s was already saved.") % {"number": hand.number}
                )
            return redirect("hand_detail", hand.pk, permanent=False)
        # The ledger hands back the session row as the hand left it.
        return render(
            request,
            "games/hand_result.html#result",
            result_context(hand.session, membership, hand, created=created, legs=legs),
        )
    form.set_table(postings.session_state(session))
    return render(request, template, _record_context(session, membership, form), status=422)


def _refused_during_break(
    request: AuthedHttpRequest, session_id: int, pause: BreakNotice, template: str
) -> HttpResponse | None:
    """A hand sent while the table's tournament is on a break, without the form's "save it
    anyway" box: nothing is saved, the form comes back with what was typed and the box
    to tick (one confirmation). None: a closed table, answered as usual."""
    session, membership = session_for(request.user, session_id, Role.SCOREKEEPER)
    if not session.is_open:
        return None
    form = _posted_form(request, session)
    form.is_valid()
    form.set_table(postings.session_state(session))
    form.notice = _(
        "The tournament is on a break: nothing was saved. If this hand was played before "
        "the break began, tick the box and save it."
    )
    context = _record_context(session, membership, form, tournament_break=pause, break_confirm=True)
    return render(request, template, context, status=422)


def _charges(costly: postings.NeedsConfirmation, currency: Currency) -> dict:
    """What a costly hand charges whom, for the one confirmation tap before it is saved."""
    result = costly.verdict.get("result") or {}
    bourre = set(result.get("bourre") or [])
    charges = [
        {
            "player": p,
            "amount": format_money(x, currency),
            "why": pgettext("what a costly hand charges for", "bourré")
            if p in bourre
            else pgettext("what a costly hand charges for", "renege"),
        }
        for p, x in sorted((result.get("penalties") or {}).items(), key=lambda kv: -kv[1])
    ]
    return {"reasons": costly.reasons, "charges": charges}


def result_context(
    session: GameSession,
    membership: Membership,
    hand: Hand,
    created: bool | None = None,
    legs: list[PostedLeg] | None = None,
) -> dict:
    """A recorded hand as the result screen shows it, with what the table does next.

    ``created`` is True right after recording, False for a replayed submission (same
    idempotency key), None when the hand is simply being looked at. ``legs``: the
    players' legs the ledger just wrote for it (``record_hand_with_legs``), else read."""
    latest: int | None
    if created is True:  # just recorded: it is the latest hand
        latest = hand.pk
    else:
        latest = (
            session.hands.filter(status=Hand.Status.RECORDED, number__isnull=False)
            .order_by("-number")
            .values_list("pk", flat=True)
            .first()
        )
    is_latest = hand.status == Hand.Status.RECORDED and hand.pk == latest
    # What the table does next is shown for the latest hand only (for an older hand it
    # would describe a later state); the verdict's next dealer is shown otherwise.
    state = None
    if session.is_open and is_latest:
        state = (created is True and _state_after(hand, session)) or postings.session_state(session)
    antes_next = []
    if state is not None:
        rules = rules_of(state.get("rules"))
        # Under double_ante a player the last hand excused antes anyway (R5): the
        # state's list is what the page names as excused.
        state = {**state, "excused": excused_from_ante(state["excused"], rules)}
        antes_next = who_antes_next(state["players"], state["dealer"], state["excused"], rules)
    return {
        "session": session,
        "membership": membership,
        "hand": hand,
        "result": hand.result,
        "created": created,
        "state": state,
        "antes_next": antes_next,
        "can_score": selectors.can_score(session, membership),
        "can_undo": selectors.can_score(session, membership) and is_latest,
        # Any recorded hand of an open home table can be corrected (games.sessions.correct).
        "can_correct": selectors.can_score(session, membership)
        and session.is_open
        and not session.chip_limited
        and hand.status == Hand.Status.RECORDED,
        # Each player's change for the hand and the standings after it, from the ledger.
        "deltas": statements.hand_deltas(
            session, hand, latest=is_latest and session.is_open, legs=legs
        ),
    }


def _state_after(hand: Hand, session: GameSession) -> dict | None:
    """The next hand's table right after this one was recorded, without a query: the
    names dealt in are in the hand (``before["seats"]``), the ids on the fresh session
    row. None when something does not match (then the ledger is asked)."""
    seats = (hand.before or {}).get("seats") or {}
    name_of = {pid: name for name, pid in seats.items()}
    gone = set((hand.before or {}).get("eliminated") or [])
    dealer = name_of.get(session.next_dealer_id)
    if not seats or dealer is None:
        return None
    return {
        "players": [name for name, pid in seats.items() if pid not in gone],
        "dealer": dealer,
        "excused": [name_of[pid] for pid in session.excused if pid in name_of],
        "rules": session.rules,
        "version": session.version,
    }


@login_required
@require_safe
def hand_detail(request: AuthedHttpRequest, hand_id: int) -> HttpResponse:
    hand, membership = hand_for(request.user, hand_id)
    session = hand.session
    if hand.status == Hand.Status.IN_PROGRESS:
        # A digital hand gets its number, record and verdict when it ends: until then
        # there is nothing to show here but the table itself.
        messages.info(request, _("This digital hand is still being played: here it is, live."))
        return redirect("digital_watch", session.pk)
    postings_qs = (
        Posting.objects.filter(hand=hand)
        .order_by("id")
        .prefetch_related(Prefetch("legs", queryset=Leg.objects.select_related("account__player")))
    )
    context = result_context(session, membership, hand)
    context["postings"] = list(postings_qs)
    # Undo here leaves this page for the record form (a swap would keep this page's
    # heading, "Hand 13", around the form for hand 13 again).
    context["whole_page"] = True
    return render(request, "games/hand_detail.html", context)


@login_required
@require_POST
def hand_void(request: AuthedHttpRequest, hand_id: int) -> HttpResponse:
    """Undo: void the latest hand (reversing postings) and say exactly what changed."""
    hand, membership = hand_for(request.user, hand_id, Role.SCOREKEEPER)
    session = hand.session
    if not session.is_open:
        return _closed_response(request, session)
    done, text, fresh = _void(request, hand)
    if fresh is not None:
        session = fresh
    else:
        session.refresh_from_db()
    if request.htmx:
        form = _fresh_form(session)
        form.notice = text
        return render(
            request,
            "games/hand_record.html#record",
            _record_context(session, membership, form, notice_ok=done),
            status=200 if done else 409,
        )
    (messages.success if done else messages.error)(request, text)
    return redirect(_next_url(request, session.get_absolute_url()))


def _void(request: AuthedHttpRequest, hand: Hand) -> tuple[bool, str, GameSession | None]:
    """Undo ``hand``: (done, what to tell the user, the session as the void left it —
    None when nothing was undone)."""
    version = request.POST.get("version", "")
    try:
        voided = postings.void_hand(
            session_id=hand.session_id,
            hand_id=hand.pk,
            user=request.user,
            reason=request.POST.get("reason", "")[:200],
            expected_version=parse_id(version),
        )
    except postings.StaleState:
        moved_on = _(
            "The table moved on since hand %(number)s was shown; it was not undone. "
            "Only the latest hand can be undone."
        ) % {"number": hand.number}
        return False, moved_on, None
    except postings.SessionClosed:
        return False, _("The session is closed: hands can no longer be undone."), None
    except BourreError as error:
        not_undone = _("Hand %(number)s was not undone: %(reason)s")
        return False, not_undone % {"number": hand.number, "reason": say(error)}, None
    session = voided.session
    currency = session.currency
    if session.next_dealer:
        deals = _("%(player)s deals") % {"player": session.next_dealer.name}
    else:
        deals = _("the same dealer deals")
    undone = _(
        "Hand %(number)s undone: its antes, winnings and penalties were reversed. "
        "The pot is back to %(amount)s and %(deals)s."
    ) % {"number": hand.number, "amount": format_money(session.carry, currency), "deals": deals}
    return True, undone, session


@login_required
@require_POST
def hand_edit(request: AuthedHttpRequest, hand_id: int) -> HttpResponse:
    """Edit = the correction page (the hand keeps its number; nothing is undone here)."""
    hand, _ = hand_for(request.user, hand_id, Role.SCOREKEEPER)
    url = reverse("hand_correct", args=[hand.pk])
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)


# --- seats, rules, closing ----------------------------------------------------------------


def _refuse_tournament_table(session: GameSession) -> None:
    """Seats, rules and closing of a tournament table are the director's: a change here
    would put the table out of step with the tournament."""
    if TournamentTable.objects.filter(session=session).exists():
        raise PermissionDenied(
            _(
                "This table belongs to a tournament: its seats, rules and closing are managed "
                "from the tournament's dashboard."
            )
        )


@login_required
def session_close(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    session, membership = session_for(request.user, session_id, Role.SCOREKEEPER)
    _refuse_tournament_table(session)
    if not session.is_open:
        messages.info(request, _("%(session)s is already closed.") % {"session": session.name})
        return redirect("session_settlement", session.pk)
    form = CloseForm(request.POST or None, initial={"leftover_policy": session.leftover_policy})
    if request.method == "POST" and form.is_valid():
        to_tab = form.cleaned_data.get("settle") == "tab"
        try:
            with transaction.atomic():  # closed and on the tab, or neither
                postings.close_session(
                    session_id=session.pk,
                    user=request.user,
                    leftover_policy=form.cleaned_data["leftover_policy"],
                )
                if to_tab:
                    postings.put_on_tab(session_id=session.pk, user=request.user)
        except postings.SessionClosed:
            messages.info(request, _("%(session)s was already closed.") % {"session": session.name})
        except BourreError as error:
            form.add_error(None, say(error))
        else:
            if to_tab:
                said = _("%(session)s is closed and its transfers are on the club's tab.")
            else:
                said = _("%(session)s is closed. Here is who pays whom.")
            messages.success(request, said % {"session": session.name})
        if not form.errors:
            url = reverse("session_settlement", args=[session.pk])
            if request.htmx:
                return HttpResponseClientRedirect(url)
            return redirect(url)
    return render(
        request,
        "games/session_close.html",
        {"session": session, "membership": membership, "form": form},
        status=422 if form.errors else 200,
    )


# --- history ------------------------------------------------------------------------------


class _NumberedHands(Sequence[Hand]):
    """The session's numbered hands (recorded or undone), newest first, for the history's
    Paginator: counted by the last number and sliced by a range of numbers, both read
    from the (session, number) index, so a page costs the same at hand 100 and 20,000
    (a COUNT and an OFFSET would read every hand before it). Every hand that gets a number
    keeps it (an undone one too) and numbers follow on, so number n is the n-th hand."""

    def __init__(self, session: GameSession) -> None:
        self.hands = session.hands.filter(number__isnull=False)
        self.last: int | None = None

    def __len__(self) -> int:
        if self.last is None:
            self.last = self.hands.aggregate(m=Max("number"))["m"] or 0
        return self.last

    @overload
    def __getitem__(self, index: int) -> Hand: ...

    @overload
    def __getitem__(self, index: slice) -> list[Hand]: ...

    def __getitem__(self, index: int | slice) -> Hand | list[Hand]:
        if isinstance(index, int):
            return self[index : index + 1][0]
        start, stop, _ = index.indices(len(self))
        top, bottom = len(self) - start, len(self) - stop
        return list(self.hands.filter(number__gt=bottom, number__lte=top).order_by("-number"))


@login_required
@require_safe
def session_history(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    """The hands, newest first, a page at a time, with their record, verdict and
    postings; other money and events. The net chart, which sums the whole session, loads
    on its own request (``session_history_chart``), so the page costs the same at hand
    100 and hand 20,000."""
    session, membership = session_for(request.user, session_id)
    seats = list(session.seats.select_related("player").order_by("position", "id"))
    page = Paginator(_NumberedHands(session), HISTORY_PAGE).get_page(request.GET.get("page"))
    legs = Prefetch("legs", queryset=Leg.objects.select_related("account__player"))
    hands = list(page.object_list)
    # The page's hands' postings and the money outside hands in one read (two indexes).
    by_hand: dict[int | None, list[Posting]] = {}  # keyed by hand_id; None: outside hands
    shown = Q(hand__in=hands) | Q(session=session, hand__isnull=True)
    for posting in Posting.objects.filter(shown).order_by("id").prefetch_related(legs):
        by_hand.setdefault(posting.hand_id, []).append(posting)
    for hand in hands:
        hand.posting_list = by_hand.get(hand.pk, [])
    other_postings = by_hand.get(None, [])
    context = {
        "session": session,
        "membership": membership,
        "page": page,
        "hands": hands,
        "events": list(session.events.select_related("created_by").order_by("created_at", "id")),
        "other_postings": other_postings,
        "player_names": {s.player_id: s.player.name for s in seats},
    }
    return render(request, "games/session_history.html", context)


@login_required
@require_safe
def session_history_chart(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    """The net chart of the whole session: the history page loads it with htmx (the
    partial); without JavaScript its link opens it as a page. Drawn once per version of
    the session (``selectors.by_version``)."""
    session, membership = session_for(request.user, session_id)
    seats = list(session.seats.select_related("player").order_by("position", "id"))
    chart = selectors.by_version(
        session, "chart", lambda: str(selectors.net_chart_for(session, seats))
    )
    template = "games/session_history_chart.html"
    if request.htmx:
        template += "#chart"
    context = {"session": session, "membership": membership, "chart": chart}
    return render(request, template, context)


# --- club statistics ----------------------------------------------------------------------

# The columns of ledger.stats.club_player_stats, in order: (key, label, is money). Net
# comes right after the name, so a phone shows it without scrolling the table sideways;
# "dealt in" says what the count is (a player who passed was dealt in too).
STAT_COLUMNS = [
    {"key": key, "label": label, "money": money, "name": key == "name"}
    for key, label, money in (
        ("name", gettext_lazy("Name"), False),
        ("net", gettext_lazy("Net"), True),
        ("pots_won", gettext_lazy("Pots won"), False),
        ("hands_played", gettext_lazy("Dealt in"), False),
        ("hands_passed", gettext_lazy("Passed"), False),
        ("bourres", gettext_lazy("Bourrés"), False),
        ("reneges", gettext_lazy("Reneges"), False),
        ("biggest_pot", gettext_lazy("Biggest pot"), True),
        ("sessions", gettext_lazy("Sessions"), False),
    )
]


@login_required
@require_safe
def club_stats(request: AuthedHttpRequest, club_id: int) -> HttpResponse:
    club, membership = club_for(request.user, club_id)
    rows = club_player_stats(club)
    # How often each player's decisions in digital hands matched the expert's (the
    # coach's reviews, games.digital.coach): one query, players with reviews only.
    rates = match_rates(r["player_id"] for r in rows)
    coach_rows = [
        {
            "name": r["name"],
            "decisions": rate.decisions,
            "rate": _percent(rate.rate),
            "recent": _percent(rate.recent_rate),
            "recent_decisions": rate.recent_decisions,
            "cost": rate.cost_per_decision,
        }
        for r in rows
        if (rate := rates.get(r["player_id"])) is not None and rate.decisions
    ]
    return render(
        request,
        "games/club_stats.html",
        {
            "club": club,
            "membership": membership,
            "rows": rows,
            "columns": STAT_COLUMNS,
            "coach_rows": coach_rows,
            "recent_days": RECENT_DAYS,
        },
    )


def _percent(rate: float | None) -> int | None:
    return None if rate is None else round(rate * 100)
