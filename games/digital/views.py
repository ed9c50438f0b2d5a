"""Digital hands on phones: the seat page (private link), the watch page, the
scorekeeper's table page and the replay page.

Every board a page shows is built from the engine's ``view_for(player)`` (a seat) or
``public_view()`` (everybody else), never from the raw state, so no response can carry
another seat's hidden cards or the stock. The raw action log is never sent either: a
``play`` action names the discarded cards, so the play-by-play is rebuilt from it with
counts only.

A seat link is held by the first phone that opens it (a device cookie); another phone
gets a page that says so. The host can release the seat or reissue its link, deal from
any seat, and hide the seat links on the table page once they are handed out.

Live updates: the board polls its own URL every second while the page is visible and
gets ``304 Not Modified`` (one ETag from the session version, the hand and its log
length) until something changes. Moves the phone has not seen yet carry a reveal index
so that CSS shows them one at a time.

When the table's coach is on (games.digital.coach), a seat's board on its turn has a Hint
button (games.digital.coach_views.seat_hint, swapped in by htmx) and, once the hand is
recorded, loads the player's review of it in a request of its own.

Every sentence is in the reader's language (issue 19): a seat page in the language of
the phone that holds it, never the host's. Refusals go through ``games.messages.render``
and "why can't I play this card" through ``games.rulebook_text.why``; the card names
read out to screen readers (``card()``, cached per language) too.
"""

from __future__ import annotations

import functools
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.html import format_html
from django.utils.translation import get_language, gettext, gettext_lazy, ngettext, pgettext

from games.access import hand_for, session_for
from games.digital import coach
from games.digital import selectors as digital_reads
from games.digital import service as digital
from games.digital.link_views import HIDDEN_LINKS, holds_seat
from games.engine import CARD_NAMES, HandState, parse_card
from games.engine.contracts import HandResult, PublicView, SeatView, TrickCard
from games.engine.legal import trick_winner
from games.error_pages import require_GET, require_http_methods, require_POST
from games.http import AuthedHttpRequest, HtmxHttpRequest
from games.messages import render as say
from games.models import GameSession, Hand, Role, Seat
from games.polling import etag_matches, live
from games.qr import phone_url, qr_svg
from games.rulebook_text import why
from games.templatetags.bourre import RANKS, SUITS, card_name

# Time between two revealed moves is set in CSS (--dg-pace); the index is all we send, as a
# class (dg-i-N, dg-n-N: no inline style under the Content-Security-Policy), so it stops at
# the last step static/css/app.css defines.
REVEAL_STEPS = 64
FEED_LENGTH = 8
# The bot levels in the reader's language (the model's choices are English: wrapping
# them would make a migration).
BOT_LEVELS: dict[str, Promise] = {
    Seat.BotLevel.EASY: gettext_lazy("Easy"),
    Seat.BotLevel.NORMAL: gettext_lazy("Normal"),
    Seat.BotLevel.CAREFUL: gettext_lazy("Careful"),
    Seat.BotLevel.EXPERT: gettext_lazy("Expert"),
}


def card(code: str) -> dict[str, str]:
    """A card for templates: its code, rank and suit for people, and its face as HTML
    (rank and symbol, with the name for screen readers in the active language). Shared:
    do not modify."""
    return _card(code, get_language())


@functools.cache
def _card(code: str, language: str | None) -> dict[str, str]:
    rank, suit_letter = code[0], code[1]
    rank_text = RANKS.get(rank, (rank, rank))[0]
    symbol = SUITS[suit_letter][0]
    label = card_name(rank, suit_letter)
    return {
        "code": code,
        "rank": rank_text,
        "suit": suit_letter,
        "symbol": symbol,
        "label": label,
        "html": format_html(
            '<span class="pc suit-{}" data-card="{}"><span aria-hidden="true">{}{}</span>'
            '<span class="sr-only">{}</span></span>',
            suit_letter,
            code,
            rank_text,
            symbol,
            label,
        ),
    }


def suit(letter: str) -> dict[str, str]:
    symbol, name = SUITS[letter]
    return {"suit": letter, "symbol": symbol, "name": str(name)}


# -- the board: what one viewer may see of one hand ----------------------------------------


def board_context(
    session: GameSession,
    table: digital_reads.Table,
    viewer: str | None,
    seen: int | None,
    bots: set[str],
) -> dict[str, Any]:
    """Everything the board template shows, for ``viewer`` (a player) or the public.

    ``seen`` is how many moves the phone had already shown: later ones get a reveal
    index (0, 1, 2...) so they appear one by one.
    """
    hand, state = table.hand, table.state
    board: dict[str, Any] = {
        "hand": hand,
        "seq": table.seq,
        "status": hand.status if hand else "none",
        "viewer": viewer,
        "currency": session.currency,
        "reveal": 0,
    }
    if hand is None or state is None:
        return board
    if viewer is not None and viewer not in state.seat_of:
        viewer = None
        board["not_dealt_in"] = True
    view, seat_view = _views(state, viewer)
    seqs = _reveal_indexes(state, table.seq, seen)
    board["reveal"] = min(sum(1 for i in seqs.values() if i is not None), REVEAL_STEPS - 1)
    card_seqs = [i + 1 for i, a in enumerate(state.actions) if a["type"] == "card"]

    trump = view["trump"]
    board.update(
        {
            "pot": view["pot"],
            "trump": suit(trump),
            "up_card": card(view["up_card"]),
            "up_card_dead": view["up_card_dead"],
            "dealer": view["dealer"],
            "phase": view["phase"],
            "hand_size": view["rules"]["hand_size"],
            "trick_number": view["trick_number"],
            "players": _players(view, bots, viewer),
            "feed": _feed(state, view, seqs),
        }
    )
    # The trick on the table and the one before it, each card with its reveal index.
    played = 0
    tricks = []
    for number, t in enumerate(view["tricks_played"], 1):
        cards = []
        for c in t["cards"]:
            cards.append(_on_table(c, seqs.get(card_seqs[played]), t["winner"]))
            played += 1
        tricks.append({"number": number, "cards": cards, "winner": t["winner"]})
    current = []
    for c in view["trick"]:
        current.append(_on_table(c, seqs.get(card_seqs[played]), None))
        played += 1
    if current:
        board["trick"] = {"number": view["trick_number"], "cards": current, "winner": None}
        board["last_trick"] = tricks[-1] if tricks else None
    elif tricks:
        board["trick"] = None
        board["last_trick"] = tricks[-1]

    to_act = view["awaiting"]
    board["awaiting"] = to_act
    if viewer is not None and seat_view is not None:  # a viewer is dealt in (see above)
        board["me"] = _me(state, seat_view, viewer)
        board["your_turn"] = viewer in to_act
    result = _result(hand, state)
    if result:
        board["result"] = result
    return board


def _reveal_indexes(state: HandState, seq: int, seen: int | None) -> dict[int, int | None]:
    """Action number (1-based) → reveal index for moves after ``seen``, else None."""
    out: dict[int, int | None] = {}
    k = 0
    for i in range(1, seq + 1):
        if seen is not None and 0 <= seen < i:
            out[i] = min(k, REVEAL_STEPS - 1)
            k += 1
        else:
            out[i] = None
    return out


def _views(state: HandState, viewer: str | None) -> tuple[PublicView, SeatView | None]:
    """The view a board is drawn from, and the viewer's own seat view (None for the
    public): one and the same for a player, so nobody is shown more than their seat."""
    if viewer:
        mine = state.view_for(viewer)
        return mine, mine
    return state.public_view(), None


def _on_table(c: TrickCard, reveal: int | None, winner: str | None) -> dict[str, Any]:
    return {
        "player": c["player"],
        "card": card(c["card"]),
        "reveal": reveal,
        "won": winner is not None and c["player"] == winner,
    }


def _players(view: PublicView, bots: set[str], viewer: str | None) -> list[dict[str, Any]]:
    declarations = view["declarations"]
    out = []
    for name in view["players"]:
        decl = declarations.get(name)
        if decl is None and name in view["declared"]:
            decl = "declared"  # simultaneous declaration: hidden until all have declared
        if decl == "pass":
            status = pgettext("a player's declaration", "passed")
        elif decl == "play":
            drew = view["discard_counts"].get(name)
            status = (
                gettext("plays, drew %(n)s") % {"n": drew} if drew else gettext("plays, stood pat")
            )
        elif decl == "declared":
            status = gettext("has declared")
        else:
            status = gettext("deciding…") if name in view["awaiting"] else ""
        cards = view["hand_counts"].get(name) if decl != "pass" else None
        if cards:
            count = ngettext("%(n)s card", "%(n)s cards", cards) % {"n": cards}
            status += f"{' · ' if status else ''}{count}"
        out.append(
            {
                "name": name,
                "status": status,
                "you": name == viewer,
                "bot": name in bots,
                "dealer": name == view["dealer"],
                "excused": name in view["excused"],
                "declared": decl,
                "discards": view["discard_counts"].get(name),
                "tricks": view["tricks"].get(name),
                "cards": view["hand_counts"].get(name),
                "to_act": name in view["awaiting"],
            }
        )
    return out


def _feed(state: HandState, view: PublicView, seqs: dict[int, int | None]) -> list[dict]:
    """The last moves in words, public facts only (discard counts, never discards)."""
    revealed = bool(view["declarations"]) or view["phase"] != "declare" or not view["declared"]
    completed = view["tricks_played"]
    n_active = len(view["active"]) or 1
    items = []
    cards_played = 0
    for i, action in enumerate(state.actions, 1):
        who = action["player"]
        item: dict[str, Any] = {"seq": i, "reveal": seqs.get(i), "player": who}
        if action["type"] == "card":
            item["text"] = gettext("%(player)s plays") % {"player": who}
            item["card"] = card(action["card"])
            cards_played += 1
            if cards_played % n_active == 0 and cards_played // n_active <= len(completed):
                item["takes"] = completed[cards_played // n_active - 1]["winner"]
        elif not revealed:
            item["text"] = gettext("%(player)s has declared") % {"player": who}
        elif action["type"] == "pass":
            item["text"] = gettext("%(player)s passes") % {"player": who}
        else:
            n = len(action.get("discard") or [])
            item["text"] = (
                gettext("%(player)s plays, draws %(n)s") % {"player": who, "n": n}
                if n
                else gettext("%(player)s plays, stands pat") % {"player": who}
            )
        items.append(item)
    return items[-FEED_LENGTH:]


def _reason(rule: str, view: PublicView) -> str:
    trick = view["trick"]
    led = str(SUITS[trick[0]["card"][1]][1]) if trick else gettext("cards")
    trump = str(SUITS[view["trump"]][1])
    win = ""
    if trick:
        winner = trick[
            trick_winner([parse_card(t["card"]) for t in trick], "SHDC".index(view["trump"]))
        ]
        c = card(winner["card"])
        win = f"{c['rank']}{c['symbol']}"
    return why(rule, led=led, trump=trump, win=win or gettext("the winning card"))


def _me(state: HandState, view: SeatView, viewer: str) -> dict[str, Any]:
    legal = set(view["legal"])
    illegal = view["illegal"]
    declare = view["declare"]
    keep = set(declare["keep"]) if declare else set()
    cards = []
    for code in view["hand"]:
        c: dict[str, Any] = dict(card(code))
        c["legal"] = code in legal
        c["reason"] = _reason(illegal[code], view) if code in illegal else None
        c["rule"] = illegal.get(code)
        c["keep"] = code in keep
        cards.append(c)
    return {
        "name": viewer,
        "cards": cards,
        "play_turn": bool(legal),
        "declare": declare,
        "folded": view["folded"],
        "own_discards": [card(c) for c in view["own_discards"]],
        "tricks": view["tricks"].get(viewer),
    }


def _result(hand: Hand, state: HandState) -> dict[str, Any] | None:
    if hand.status == Hand.Status.VOIDED:
        reason = hand.void_reason
        if reason in digital.STORED_REASONS:
            reason = gettext(reason)  # stored in English; the same msgid as games.messages
        return {"cancelled": reason or gettext("This hand was cancelled.")}
    # The ledger's verdict is the authority once recorded (forfeits, chip limits).
    stored: HandResult | None = (
        hand.verdict.get("result") if hand.status == Hand.Status.RECORDED else None
    )
    result = stored or state.outcome()
    if not result:
        return None
    return {
        "outcome": result["outcome"],
        "winner": result.get("winner"),
        "pot": result["pot"],
        "payouts": sorted(result.get("payouts", {}).items()),
        "bourre": result.get("bourre", []),
        "penalties": sorted(result.get("penalties", {}).items()),
        "next_carry": result.get("next_carry"),
        "excused_next": result.get("excused_next", []),
        "next_dealer": result.get("next_dealer"),
        "number": hand.number,
        "recorded": hand.status == Hand.Status.RECORDED,
    }


# -- helpers ---------------------------------------------------------------------------------


def _seen(request: HttpRequest, hand: Hand | None) -> int | None:
    """How many moves of this hand the phone already shows (None: a fresh page)."""
    raw = request.GET.get("seen", request.POST.get("seq"))
    shown = request.GET.get("hand", request.POST.get("hand"))
    if raw is None:
        return None
    if hand is not None and shown and shown != str(hand.pk):
        return 0  # the phone showed the previous hand: reveal this one from its deal
    try:
        return int(raw)
    except ValueError:
        return None


def _live(response: HttpResponse, etag: str) -> HttpResponse:
    # Private cards: never stored by a browser or a proxy; the poll revalidates by ETag.
    response["X-Robots-Tag"] = "noindex"
    return live(response, etag)


def _scores(session: GameSession, viewer: str) -> list[dict[str, Any]]:
    """The session's scoreboard for a seat page: every seated player's net (one query);
    each row also says whether a bot plays it and whether it is dealt in (the coach's
    practice-table test reads them)."""
    nets = session.net_by_player()
    seats = Seat.objects.filter(session=session).order_by("position", "id")
    return [
        {"name": name, "net": nets.get(pid, 0), "you": name == viewer, "bot": bot, "active": on}
        for pid, name, bot, on in seats.values_list("player_id", "player__name", "is_bot", "active")
    ]


# -- the seat: a player's private link ------------------------------------------------------


@require_http_methods(["GET", "POST"])
@holds_seat
def seat_page(request: HtmxHttpRequest, seat: Seat) -> HttpResponse:
    """One player's cards and choices; POST plays a move (form or the page's script)."""
    posted = request.method == "POST"
    secret = seat.secret
    error = None
    status = 200
    if posted:
        try:
            table = digital.apply_action(
                seat=seat,
                hand_id=_int(request.POST.get("hand")),
                seen=_int(request.POST.get("seq"), -1),
                action=_posted_action(request),
                user=request.user,
            )
        except digital.DigitalError as exc:
            error = {"message": say(exc), "code": exc.code, "rule": exc.rule}
            status = exc.status
            table = digital_reads.load_table(digital_reads.latest_hand(seat.session_id))
        else:
            if not request.htmx:
                # Post/redirect/get: a reload does not resend the move.
                return redirect(
                    reverse("digital_seat", args=[secret])
                    + f"?seen={table.seq - len(table.written)}"
                )
        hand = table.hand
        if hand is not None:
            # The move count latest_hand() annotates (etag_for reads it), as of this move.
            setattr(hand, "n_actions", table.seq)  # noqa: B010 (not a declared attribute)
        # The session as the move left it (read under the lock); after a refused move
        # the seat's, read now.
        session = table.session or seat.session
        etag = digital_reads.etag_for(session, hand)
    else:
        session = seat.session
        hand = digital_reads.latest_hand(session.pk)
        etag = digital_reads.etag_for(session, hand)
        if etag_matches(request, etag):
            return _live(HttpResponseNotModified(), etag)
        table = digital_reads.load_table(hand)
    return _seat_board(request, seat, session, table, etag, error, status)


def _seat_board(
    request: HtmxHttpRequest,
    seat: Seat,
    session: GameSession,
    table: digital_reads.Table,
    etag: str,
    error: dict[str, Any] | None = None,
    status: int = 200,
) -> HttpResponse:
    """The seat page (or its board, for a poll or a move): the hand as this seat sees it,
    the session's scoreboard with the player's net, and the next deal when no hand is on."""
    secret, name, hand = seat.secret, seat.player.name, table.hand
    bots = table.bots if table.bots is not None else digital_reads.bot_names(session.pk)
    board = board_context(session, table, name, _seen(request, hand), bots)
    board["error"] = error
    board["etag"] = etag
    board["poll_url"] = reverse("digital_seat", args=[secret])
    board["action_url"] = board["poll_url"]
    board["scores"] = _scores(session, name)
    board["my_net"] = next((r["net"] for r in board["scores"] if r["you"]), 0)
    # Any seated human deals the next hand from their phone: nobody walks to the host.
    board["can_deal"] = session.is_open and seat.active and not table.in_progress
    board["deal_url"] = reverse("digital_seat_deal", args=[secret])
    if hand is not None:
        board["replay_url"] = reverse("digital_seat_replay", args=[secret, hand.pk])
    if coach.coach_on(session, ((r["bot"], r["active"]) for r in board["scores"])):
        if board.get("your_turn") and table.in_progress:
            board["hint_url"] = reverse("digital_seat_hint", args=[secret])
        if hand is not None and hand.status == Hand.Status.RECORDED and board.get("me"):
            board["review_url"] = reverse("digital_seat_review", args=[secret, hand.pk])
    context = {"session": session, "seat": seat, "board": board}
    template = "games/digital_seat.html"
    if request.htmx:
        template += "#board"
    return _live(render(request, template, context, status=status), etag)


@require_POST
@holds_seat
def seat_deal(request: HtmxHttpRequest, seat: Seat) -> HttpResponse:
    """Deal the next digital hand from a seat (the seat's phone must hold the link)."""
    error = None
    status = 200
    if not seat.active:
        error = {
            "message": gettext("You are sitting out: ask the host to deal you back in."),
            "code": "not_dealt_in",
            "rule": None,
        }
        status = 403
    else:
        try:
            digital.start_hand(
                session_id=seat.session_id,
                user=request.user if request.user.is_authenticated else None,
            )
        except digital.DigitalError as exc:
            error = {"message": say(exc), "code": exc.code, "rule": exc.rule}
            status = exc.status
    if error is None and not request.htmx:
        return redirect("digital_seat", seat.secret)
    session = GameSession.objects.get(pk=seat.session_id)
    hand = digital_reads.latest_hand(session.pk)
    table = digital_reads.load_table(hand)
    etag = digital_reads.etag_for(session, hand)
    return _seat_board(request, seat, session, table, etag, error, status)


def _int(raw: str | None, default: int = 0) -> int:
    """A posted number, or ``default`` when it is none or does not fit a 64-bit column
    (a hand id past it overflowed the database lookup: a 500)."""
    try:
        value = int(raw) if raw not in (None, "") else default
    except ValueError:
        return default
    return value if -(2**63) <= value < 2**63 else default


def _posted_action(request: HttpRequest) -> dict[str, Any]:
    kind = request.POST.get("type", "")
    action: dict[str, Any] = {"type": kind}
    if request.POST.get("player"):
        action["player"] = request.POST["player"]
    if kind == "card":
        action["card"] = request.POST.get("card", "")
    elif kind == "play":
        action["discard"] = request.POST.getlist("discard")
    return action


@require_GET
@holds_seat
def seat_state(request: HttpRequest, seat: Seat) -> HttpResponse:
    """The seat's view as JSON (scripts, tests): exactly what the seat page shows."""
    hand = digital_reads.latest_hand(seat.session_id)
    etag = digital_reads.etag_for(seat.session, hand)
    if etag_matches(request, etag):
        return _live(HttpResponseNotModified(), etag)
    table = digital_reads.load_table(hand)
    name = seat.player.name
    data: dict[str, Any] = {"seat": name, "hand": None, "seq": table.seq, "status": "none"}
    if hand is not None and table.state is not None:
        state = table.state
        data["hand"] = hand.pk
        data["status"] = hand.status
        data["view"] = state.view_for(name) if name in state.seat_of else state.public_view()
        if hand.status == Hand.Status.RECORDED:
            data["view"]["result"] = hand.verdict.get("result")
    return _live(JsonResponse(data), etag)


# -- watching: club members without a seat ---------------------------------------------------


@login_required
@require_GET
def watch(request: AuthedHttpRequest, session_id: int) -> HttpResponse:
    session, membership = session_for(request.user, session_id)
    hand = digital_reads.latest_hand(session.pk)
    etag = digital_reads.etag_for(session, hand)
    if etag_matches(request, etag):
        return _live(HttpResponseNotModified(), etag)
    table = digital_reads.load_table(hand)
    board = board_context(
        session, table, None, _seen(request, hand), digital_reads.bot_names(session.pk)
    )
    board["etag"] = etag
    board["poll_url"] = reverse("digital_watch", args=[session.pk])
    if hand is not None:
        board["replay_url"] = reverse("hand_replay", args=[hand.pk])
    my_seat = Seat.objects.filter(session=session, player__user=request.user).first()
    context = {
        "session": session,
        "board": board,
        "my_seat": my_seat,
        "can_score": membership.has_role(Role.SCOREKEEPER),
    }
    template = "games/digital_watch.html"
    if request.htmx:
        template += "#board"
    return _live(render(request, template, context), etag)


# -- the scorekeeper's table -----------------------------------------------------------------


@login_required
@require_GET
def table_page(request: HttpRequest, session_id: int) -> HttpResponse:
    session, membership = session_for(request.user, session_id, Role.SCOREKEEPER)
    hand = digital_reads.latest_hand(session.pk)
    table = digital_reads.load_table(hand)
    seats = list(session.seats.select_related("player"))
    dealt = set(table.state.players) if table.state is not None and table.in_progress else set()
    hidden = session.pk in request.session.get(HIDDEN_LINKS, [])
    rows = []
    for s in seats:
        link = phone_url(request, reverse("digital_seat", args=[s.secret]))
        rows.append(
            {
                "seat": s,
                # A host who plays hides the others' links once handed out; their own
                # seat stays one tap away.
                "link": link if not hidden else "",
                "qr": qr_svg(link) if s.active and not s.is_bot and not hidden else "",
                "dealt": s.player.name in dealt,
                "claimed": bool(s.claimed_by),
                "mine": s.player.user_id == request.user.pk,
                "level": BOT_LEVELS.get(s.bot_level, s.get_bot_level_display()),
            }
        )
    board = board_context(session, table, None, None, {s.player.name for s in seats if s.is_bot})
    board["etag"] = digital_reads.etag_for(session, hand)
    board["poll_url"] = reverse("digital_watch", args=[session.pk])
    if hand is not None:
        board["replay_url"] = reverse("hand_replay", args=[hand.pk])
    context = {
        "session": session,
        "rows": rows,
        "board": board,
        "in_progress": table.in_progress,
        "active_count": sum(1 for s in seats if s.active),
        "bot_levels": list(BOT_LEVELS.items()),
        "links_hidden": hidden,
        "coach_choices": GameSession.Coach.choices,
        "coach_on": coach.coach_on(session, ((s.is_bot, s.active) for s in seats)),
    }
    response = render(request, "games/digital_table.html", context)
    response["Cache-Control"] = "no-store, private"  # the seat links are secrets
    return response


@login_required
@require_POST
def deal(request: HttpRequest, session_id: int) -> HttpResponse:
    session, _ = session_for(request.user, session_id, Role.SCOREKEEPER)
    try:
        digital.start_hand(session_id=session.pk, user=request.user)
    except digital.DigitalError as exc:
        messages.error(request, say(exc))
    else:
        messages.success(
            request, gettext("Dealt. Each player opens their seat link to see their cards.")
        )
    return redirect("digital_table", session.pk)


@login_required
@require_POST
def seat_bot(request: HttpRequest, session_id: int, seat_id: int) -> HttpResponse:
    session, _ = session_for(request.user, session_id, Role.SCOREKEEPER)
    # Through the session: another table's seat, or none, is a 404 like a stranger's.
    get_object_or_404(session.seats, pk=seat_id)
    is_bot = request.POST.get("is_bot") == "1"
    level = request.POST.get("level") or None
    try:
        digital.set_bot(
            session_id=session.pk, seat_id=seat_id, is_bot=is_bot, level=level, user=request.user
        )
    except digital.DigitalError as exc:
        messages.error(request, say(exc))
    return redirect("digital_table", session.pk)


@login_required
@require_POST
def cancel(request: HttpRequest, session_id: int) -> HttpResponse:
    session, _ = session_for(request.user, session_id, Role.SCOREKEEPER)
    try:
        digital.cancel_hand(session_id=session.pk, user=request.user)
    except digital.DigitalError as exc:
        messages.error(request, say(exc))
    else:
        messages.success(request, gettext("The hand was cancelled; no money moved."))
    return redirect("digital_table", session.pk)


# -- replay ------------------------------------------------------------------------------------


@login_required
@require_GET
def replay_page(request: HttpRequest, hand_id: int) -> HttpResponse:
    """Every card of a finished hand, trick by trick, for club members."""
    hand, _ = hand_for(request.user, hand_id)
    return _replay(request, hand, None)


@require_GET
@holds_seat
def seat_replay(request: HttpRequest, seat: Seat, hand_id: int) -> HttpResponse:
    """The same replay for a seat link (players need no account), this session only."""
    hand = Hand.objects.filter(pk=hand_id, session_id=seat.session_id).first()
    if hand is None:
        raise Http404(gettext("No such hand at this table"))
    response = _replay(request, hand, seat)
    response["Cache-Control"] = "private, no-store"
    return response


def _replay(request: HttpRequest, hand: Hand, seat: Seat | None) -> HttpResponse:
    session = hand.session
    context: dict[str, Any] = {"session": session, "hand": hand, "seat": seat}
    if hand.status == Hand.Status.IN_PROGRESS:
        # Hidden cards are still in play: never here; the boards show what is public.
        context["in_progress"] = True
        return render(request, "games/digital_replay.html", context)
    record = hand.record or {}
    if not record and hand.kind == Hand.Kind.DIGITAL and hand.seed:
        # A digital hand cancelled before the end: its log still tells what happened.
        state = digital_reads.load_table(hand).state
        assert state is not None  # load_table replays every hand it is given
        record = state.to_record()
    context["replay"] = replay_context(record, hand)
    return render(request, "games/digital_replay.html", context)


def replay_context(record: dict[str, Any], hand: Hand) -> dict[str, Any]:
    """Tricks, hands and discards of a record, for people (cards as faces)."""
    if not record:
        return {}
    before = hand.before or {}
    players = record.get("players") or before.get("players") or []
    dealer = record.get("dealer") or before.get("dealer")
    up = record.get("up_card")
    # The trump's suit letter: the up-card's, else the record's own.
    trump = CARD_NAMES[parse_card(up)][1] if up else (record.get("trump") or "")[:1].upper()
    passed = record.get("passed") or []
    order = _clockwise(players, dealer)
    return {
        "up_card": card(CARD_NAMES[parse_card(up)]) if up else None,
        "trump": suit(trump) if trump in SUITS else None,
        "dealer": dealer,
        "seats": _replay_seats(record, order, dealer, hand.verdict.get("tricks") or {}),
        "tricks": _replay_tricks(
            record.get("plays") or [], [p for p in order if p not in passed], trump
        ),
        "result": hand.verdict.get("result") or {},
        "reneges": hand.verdict.get("reneges") or [],
    }


def _replay_tricks(plays: list[Any], active: list[str], trump: str) -> list[dict[str, Any]]:
    """The plays cut into tricks of one card per active player, in the order of play:
    each trick's leader, winner (a whole trick, trump known) and cards as faces."""
    tricks = []
    n = len(active) or 1
    leader = active[0] if active else None
    for start in range(0, len(plays), n):
        chunk = plays[start : start + n]
        codes = [CARD_NAMES[parse_card(c)] for _, c in chunk]
        winner = None
        if len(chunk) == n and trump:
            winner = chunk[trick_winner([parse_card(c) for c in codes], "SHDC".index(trump))][0]
        tricks.append(
            {
                "number": start // n + 1,
                "leader": leader,
                "winner": winner,
                "cards": [
                    {"player": p, "card": card(code), "won": p == winner}
                    for (p, _), code in zip(chunk, codes, strict=True)
                ],
            }
        )
        leader = winner
    return tricks


def _replay_seats(
    record: dict[str, Any], order: list[str], dealer: str | None, tricks: dict[str, Any]
) -> list[dict[str, Any]]:
    """Each seat in the order of play: dealer, passed, its hand and discards as faces,
    the tricks it took."""
    passed = record.get("passed") or []
    hands = record.get("hands") or {}
    discards = record.get("discards") or {}
    return [
        {
            "name": p,
            "dealer": p == dealer,
            "passed": p in passed,
            "hand": [card(CARD_NAMES[parse_card(c)]) for c in hands.get(p, [])],
            "discards": [card(CARD_NAMES[parse_card(c)]) for c in discards.get(p, [])],
            "tricks": tricks.get(p),
        }
        for p in order
    ]


def _clockwise(players: list[str], dealer: str | None) -> list[str]:
    """Players from the dealer's left round to the dealer (the order of play)."""
    if dealer not in players:
        return list(players)
    d = players.index(dealer)
    return players[d + 1 :] + players[: d + 1]
