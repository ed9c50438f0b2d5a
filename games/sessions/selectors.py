"""Reading a session for its pages and the API: the scoreboard, the net chart's series,
the settlement transfers with their paid marks, and the facts a hand's page shows
(``hand_facts``: a frozen ``HandFacts``; what the hand means is
``games.engine.hand_meaning``'s, what a short tournament stack really paid the
ledger's). Nothing here writes.

The settlement's words (the pot or the club kitty as a party, each transfer's explanation)
are in the active language: a caller that must stay English (a CSV) says so with
``translation.override``."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from django.core.cache import cache
from django.db.models import Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, pgettext

from games import polling, sql
from games.clubs import handles
from games.engine import hand_meaning
from games.models import GameSession, Hand, Role, Seat, SeatMove, TournamentTable
from games.money import format_money
from games.sessions.charts import net_chart
from games.sessions.rule_fields import current_rules, rules_of
from ledger import postings
from ledger.models import Account, Leg, Posting, SettlementMark
from ledger.postings.hands import paid_money
from ledger.settlement import PHRASES, settle_balances
from ledger.tab import KITTY, session_tab, settlement_balances

T = TypeVar("T")


class BoardReader(Protocol):
    """Who reads a scoreboard: a club membership, or a share link's viewer
    (``share_views.ShareViewer``), each with a role for the page's ETag."""

    @property
    def role(self) -> str: ...

    def has_role(self, role: str) -> bool: ...


def _kitty_name(session: GameSession) -> str:
    # A party of the settlement, in its sentences: in the reader's language.
    if not session.is_open:
        return pgettext("a party of the settlement", "the club kitty")
    return pgettext("a party of the settlement", "the pot")


def _kitty_phrases(session: GameSession) -> dict[str, str]:
    """The parts of a split loss or a collected win that name the pot or the kitty."""
    if session.is_open:
        return {
            f"to:{KITTY}": gettext("%(amount)s into the pot"),
            f"from:{KITTY}": gettext("%(amount)s from the pot"),
        }
    return {
        f"to:{KITTY}": gettext("%(amount)s into the club kitty"),
        f"from:{KITTY}": gettext("%(amount)s from the club kitty"),
    }


def _kitty_why(session: GameSession, into: bool, facts: dict[str, str]) -> str:
    """Why money goes into the pot or the club kitty, or comes out of it. A player who
    pays the club kitty is told why it is them (their loss) and which rule of the session
    gave the leftover pot to the club; ``facts``: payer, loss, amount, pot (formatted)."""
    if session.is_open:
        if into:
            return gettext(
                "Nobody is owed this yet: the pot goes to whoever wins it, or as the "
                "session is closed."
            )
        return gettext("The pot was carried in from the club: this comes from its kitty.")
    if not into:
        return gettext("A pot carried in from the club was won here: the club's kitty pays it.")
    rule = {"rule": session.get_leftover_policy_display()}
    if session.leftover_policy == GameSession.LeftoverPolicy.SHARE_EQUALLY:
        return gettext(
            "%(payer)s lost %(loss)s overall and pays %(amount)s of it into the club kitty: "
            "%(pot)s of the pot left when the session closed could not be shared evenly "
            "among those who paid into it, and the session's rule for a leftover pot says: "
            "%(rule)s."
        ) % (facts | rule)
    return gettext(
        "%(payer)s lost %(loss)s overall and pays %(amount)s of it into the club kitty: "
        "nobody won the %(pot)s left in the pot when the session closed, and the session's "
        "rule for a leftover pot says: %(rule)s."
    ) % (facts | rule)


def carried_in(session: GameSession, *, link: bool = True) -> SafeString | None:
    """The line under the pot that says where a carried-in pot came from ("$1.25 of it
    carried in from “Thursday” (nobody won it)"), or None.

    Shown while the pot is still only the carry-in: an open cash session with a pot and no
    live hand yet (an undone first hand brings it back). Then the pot on the screen is
    exactly what the club's kitty gave this session at its start, with no other money
    in it to explain; after a hand the last hand's result says what the pot is.
    ``link``: the source session's name links to its page (its club's members read it;
    a share link's viewer gets the name only).

    One statement, and only in that state (no hand recorded yet): the kitty's credits
    between the last time it was emptied before this session's CARRY_IN and that
    posting, newest first, with the session each came from (the one that closed)."""
    if session.chip_limited or not session.is_open or session.hands_count or session.carry <= 0:
        return None
    kitty = Leg.objects.filter(account__club_id=session.club_id, account__kind=Account.Kind.CARRY)
    carry_in = Posting.objects.filter(
        session_id=session.pk, kind=Posting.Kind.CARRY_IN, hand__isnull=True
    ).order_by("id")[:1]
    start = Subquery(carry_in.values("id"))
    emptied = kitty.filter(amount__lt=0, posting_id__lt=start).order_by("-posting_id")
    sources = list(
        kitty.filter(
            amount__gt=0,
            posting_id__lt=start,
            posting_id__gt=Coalesce(Subquery(emptied.values("posting_id")[:1]), 0),
            posting__session__isnull=False,
        )
        .order_by("-posting_id")
        .values_list("posting__session_id", "posting__session__name")
    )
    amount = format_money(session.carry, session.currency)
    if not sources:
        text = gettext("%(amount)s of it carried in from an earlier session (nobody won it)")
        return mark_safe(conditional_escape(text) % {"amount": conditional_escape(amount)})
    source_id, name = sources[0]
    if link:
        url = reverse("session_detail", args=[source_id])
        where = format_html('<a href="{}">{}</a>', url, name)
    else:
        where = conditional_escape(name)
    if len({sid for sid, _ in sources}) == 1:
        text = gettext("%(amount)s of it carried in from “%(session)s” (nobody won it)")
    else:
        text = gettext(
            "%(amount)s of it carried in from “%(session)s” and earlier sessions "
            "(nobody won those pots)"
        )
    # The catalogue's words are escaped as any text; the amount and the link are HTML.
    return mark_safe(
        conditional_escape(text) % {"amount": conditional_escape(amount), "session": where}
    )


def settlement_rows(session: GameSession) -> tuple[list[dict[str, Any]], dict[Any, str]]:
    """The transfers that settle the session, each with its paid mark (if any).

    Player nets sum to minus what the pot and the club's kitty gained (a leftover pot
    kept by the club, a carried pot won by a player), so that money is one more party:
    "ben pays the club kitty $3", "the club kitty pays ann $10".
    """
    # Player ids, and KITTY for the pot and the club's kitty (ledger.tab: the transfers
    # put on the club's tab are computed from the same balances).
    balances = settlement_balances(session)
    names: dict[Any, str] = dict(session.seats.values_list("player_id", "player__name"))
    missing = [pid for pid in balances if pid not in names and pid != KITTY]
    if missing:  # money but no seat (should not happen); still name them
        names.update(dict(session.club.players.filter(pk__in=missing).values_list("pk", "name")))
    if KITTY in balances:
        names[KITTY] = _kitty_name(session)
    transfers = settle_balances(
        balances,
        names=names,
        format_amount=lambda a: format_money(a, session.currency),
        # The explanations in the reader's language (ledger.settlement imports no Django).
        phrases={key: gettext(text) for key, text in PHRASES.items()} | _kitty_phrases(session),
    )
    marks: dict[tuple[int | str, int | str], SettlementMark] = {
        (m.payer_id, m.payee_id): m for m in SettlementMark.objects.filter(session=session)
    }
    on_tab = session_tab(session.pk)

    def money(amount: int) -> str:
        return format_money(amount, session.currency)

    rows = []
    for t in transfers:
        mark = marks.get((t.payer, t.payee))
        player_to_player = KITTY not in (t.payer, t.payee)
        rows.append(
            {
                "transfer": t,
                "payer": names.get(t.payer, str(t.payer)),
                "payee": names.get(t.payee, str(t.payee)),
                "amount": t.amount,
                "explanation": t.explanation,
                "markable": player_to_player,
                # On the club's tab (issue #34): not paid tonight, owed across sessions.
                "on_tab": (t.payer, t.payee) in on_tab,
                "tabbable": player_to_player
                and not session.is_open
                and mark is None
                and (t.payer, t.payee) not in on_tab,
                # The pot or the club kitty as a party has sentences of its own ("ben has
                # $4 in the pot"): "pays the pot" reads badly in several languages.
                "kitty": "payee" if t.payee == KITTY else "payer" if t.payer == KITTY else "",
                "kitty_why": _kitty_why(
                    session,
                    t.payee == KITTY,
                    {
                        "payer": names.get(t.payer, str(t.payer)),
                        "loss": money(-balances.get(t.payer, 0)),
                        "amount": money(t.amount),
                        "pot": money(balances.get(KITTY, 0)),
                    },
                )
                if KITTY in (t.payer, t.payee)
                else "",
                "paid": mark is not None and mark.amount == t.amount,
                "stale_mark": mark is not None and mark.amount != t.amount,
                # What a stale mark leaves open: still to pay, or paid too much.
                "mark_due": max(t.amount - mark.amount, 0) if mark is not None else 0,
                "mark_over": max(mark.amount - t.amount, 0) if mark is not None else 0,
                "mark": mark,
            }
        )
    return rows, names


def pay_context(session: GameSession, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """What ``{% pay_links %}`` needs for the rows of a closed session: the payees' handles
    (one query) and the note. An open session's transfers are not due yet: none."""
    if session.is_open:
        return {"pay_handles": {}, "pay_note": ""}
    # A transfer on the club's tab is paid through the tab (its page has the links).
    due = [
        r["transfer"].payee for r in rows if not r["paid"] and not r["kitty"] and not r["on_tab"]
    ]
    return {
        "pay_handles": handles.for_players(due),
        "pay_note": handles.pay_note(session.created_at, session.club.time_zone),
    }


def earlier_marks(
    session: GameSession, rows: list[dict[str, Any]], names: dict[Any, str]
) -> list[dict[str, Any]]:
    """Paid marks whose transfer is no longer part of the settlement (a hand recorded or
    corrected after the tick changed who pays whom). The transfers do not count them, so
    they are shown apart, or somebody would pay twice."""
    current = {(r["transfer"].payer, r["transfer"].payee) for r in rows}
    return [
        {
            "mark": m,
            "payer": names.get(m.payer_id, str(m.payer_id)),
            "payee": names.get(m.payee_id, str(m.payee_id)),
        }
        for m in SettlementMark.objects.filter(session=session).order_by("paid_at")
        if (m.payer_id, m.payee_id) not in current
    ]


@dataclass(frozen=True)
class MarkTarget:
    """What a tick or untick on the settlement is about (``mark_target``): ``who`` is the
    settlement row or earlier mark (its ``payer`` and ``payee`` names), ``amount`` the
    one to mark, ``clears`` whether unticking clears a mark made for another amount."""

    who: dict[str, Any]
    payer_id: Any
    payee_id: Any
    amount: int
    markable: bool
    clears: bool


def mark_target(session: GameSession, payer: str, payee: str, paid: bool) -> MarkTarget | None:
    """The transfer of the settlement from ``payer`` to ``payee`` (ids as text), or, to
    untick, a mark the books no longer ask for; None when neither (the settlement page
    and the API mark through this one rule)."""
    rows, names = settlement_rows(session)
    for r in rows:
        t = r["transfer"]
        if (str(t.payer), str(t.payee)) == (payer, payee):
            if not paid and r["stale_mark"]:  # a mark of an amount the books no longer ask
                return MarkTarget(r, t.payer, t.payee, r["mark"].amount, r["markable"], True)
            return MarkTarget(r, t.payer, t.payee, t.amount, r["markable"], False)
    if not paid:
        for e in earlier_marks(session, rows, names):
            m = e["mark"]
            if (str(m.payer_id), str(m.payee_id)) == (payer, payee):
                return MarkTarget(e, m.payer_id, m.payee_id, m.amount, True, True)
    return None


RECENT_HANDS = 5


def can_score(session: GameSession, membership: BoardReader) -> bool:
    return session.is_open and membership.has_role(Role.SCOREKEEPER)


def board_etag(session: GameSession, membership: BoardReader) -> str:
    """The scoreboard changes only with the session's version (and what the role may do)."""
    return polling.board_etag(
        session.pk, session.version, membership.role, getattr(membership, "user_id", None)
    )


def by_version(session: GameSession, what: str, compute: Callable[[], T]) -> T:
    """A value derived from the books, cached under the session's version.

    Every write to a session's money or state bumps its version in the same transaction,
    so (session, version) names one state of the books for good; a long session's
    scoreboard then sums its ledger once per change, not once per phone per poll. The
    value is kept per language too: a chart's words and amounts are the reader's.
    """
    key = f"bourre:{what}:{get_language()}:{session.pk}:{session.version}"
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, 6 * 3600)
    return value


def board_reads(session_id: int) -> list[sql.Statement]:
    """The statements ``board_context`` reads: the seats with the digital hand in
    progress, the latest hands and the tournament table."""
    return [
        postings.table_statement(session_id),
        sql.recent_hands_statement(session_id, RECENT_HANDS),
        sql.tournament_table_statement(session_id),
    ]


def board_context(
    session: GameSession, membership: BoardReader, reads: list[list[tuple]] | None = None
) -> dict[str, Any]:
    """Everything the scoreboard shows, in a fixed number of statements whatever the
    hands (a broken-up tournament table reads one more: where its players went).
    ``reads``: the rows of ``board_reads(session.pk)`` when the caller has them;
    otherwise they are read here."""
    if reads is None:
        reads = sql.run_each(board_reads(session.pk))
    table_rows, recent_rows, tournament_rows = reads
    seats, next_number, digital_busy = postings.table_seats(session, table_rows)
    balances = session.net_by_player()
    # A tournament table plays for the chips in front of each player: its seats show
    # those stacks, as the standings do, not what each won or lost at this table.
    stacks = session.stack_by_player() if session.chip_limited else {}
    # Nobody is excused under double_ante or dealer_antes_for_all (R5), even a player a
    # hand before the switch excused.
    excused = set(hand_meaning.excused_from_ante(session.excused or [], rules_of(session.rules)))
    rows: list[dict[str, Any]] = [
        {
            "name": seat.name,
            "active": seat.active,
            "net": balances.get(seat.player_id, 0),
            "stack": stacks.get(seat.player_id, 0),
            "dealer": seat.player_id == session.next_dealer_id,
            "excused": seat.player_id in excused,
        }
        for seat in seats
    ]
    names = {seat.player_id: seat.name for seat in seats}
    rules = current_rules(session.rules)
    antes_from = [r["name"] for r in rows if r["active"] and not r["excused"]]
    recent = sql.recent_hands(session, recent_rows)
    tournament_table = sql.tournament_table(tournament_rows)
    return {
        "session": session,
        "membership": membership,
        # A tournament table's seats, rules and closing belong to the tournament director.
        "tournament_table": tournament_table,
        "broken_moves": broken_moves(tournament_table),
        "digital_busy": digital_busy,
        # The record form's heading says the same number ("Record hand 14" after hand 13
        # was undone: it keeps its number).
        "next_number": next_number,
        "rows": rows,
        "active_rows": [r for r in rows if r["active"]],
        "away_rows": [r for r in rows if not r["active"]],
        "dealer_name": (
            names.get(session.next_dealer_id, "") if session.next_dealer_id is not None else ""
        ),
        "antes_from": antes_from if not rules["dealer_antes_for_all"] else [],
        "rules": rules,
        "recent": recent,
        "latest_id": recent[0].pk if recent else None,
        "can_score": can_score(session, membership),
        "etag": board_etag(session, membership),
        # The poll sends the ETag it was rendered with (see polling.live).
        "poll_headers": json.dumps({"If-None-Match": board_etag(session, membership)}),
    }


def broken_moves(table: TournamentTable | None) -> list[dict[str, Any]]:
    """Where the players of a broken-up tournament table went (their latest move from it:
    name, table, seat), for the table's own page; empty for any other session. Their
    stacks went with them, so the page lists these instead of its seats' chips."""
    if table is None or table.status != TournamentTable.Status.BROKEN:
        return []
    latest: dict[int, dict[str, Any]] = {}
    for player_id, name, number, seat in (
        SeatMove.objects.filter(source_id=table.pk)
        .order_by("id")
        .values_list("player_id", "player__name", "target__number", "seat")
    ):
        latest[player_id] = {"name": name, "table": number, "seat": seat}
    return sorted(latest.values(), key=lambda r: (r["table"], r["seat"] or 0, r["name"]))


def net_series(
    session: GameSession, seats: list[Seat]
) -> tuple[list[str], list[tuple[str, list[int]]]]:
    """Each seated player's net after every recorded hand (voided hands left out), plus a
    final point for what closing moved (a shared leftover pot). One query."""
    rows = (
        Leg.objects.filter(posting__session=session, account__kind=Account.Kind.PLAYER)
        .exclude(posting__hand__status=Hand.Status.VOIDED)
        .order_by("posting_id", "id")
        .values_list("posting__hand__number", "account__player_id", "amount")
    )
    players = [s.player_id for s in seats]
    running = dict.fromkeys(players, 0)
    labels = ["start"]
    points: dict[int, list[int]] = {p: [0] for p in players}
    current: Any = "start"
    for number, player_id, amount in rows:
        step = number if number is not None else "end"
        if step != current:
            current = step
            labels.append(str(step) if number is not None else "close")
            for p in players:
                points[p].append(running[p])
        if player_id in running:
            running[player_id] += amount
            points[player_id][-1] = running[player_id]
    names = {s.player_id: s.player.name for s in seats}
    return labels, [(names[p], points[p]) for p in players]


def net_chart_for(session: GameSession, seats: list[Seat]) -> SafeString:
    labels, series = net_series(session, seats)
    return net_chart(
        series,
        labels,
        currency=session.currency,
        title=gettext("Net per player over %(session)s") % {"session": session.display_name},
    )


# -- what a hand's page shows ---------------------------------------------------------------


@dataclass(frozen=True)
class HandFacts:
    """What a hand's verdict says, shaped for the result and history templates: amounts
    in minor units, names as recorded, pairs as ``(player, amount)`` or ``(player,
    tricks)`` tuples in the order the page lists them."""

    outcome: str
    winner: str | None
    won: int | None
    payouts: tuple[tuple[str, int], ...]
    pot: int | None
    antes: Mapping[str, int]
    ante_total: int
    tricks: tuple[tuple[str, int], ...]
    top: int
    tied: tuple[str, ...]
    bourre: tuple[tuple[str, int], ...]
    renege_penalties: tuple[tuple[str, int], ...]
    # Who could not pay all of their penalty (a tournament stack ran out).
    short: tuple[str, ...]
    reneges: tuple[Mapping[str, Any], ...]
    next_carry: int | None
    excused_next: tuple[str, ...]
    next_dealer: str | None
    passed: tuple[str, ...]
    trump: str
    up_card: str | None
    # Who declared out of turn at this hand (R16).
    out_of_turn: tuple[str, ...]
    # Who forfeits a deal because of this hand (R39, R16).
    forfeits: tuple[str, ...]


@dataclass(frozen=True)
class _Paid:
    """The money a page shows for a hand: the verdict's, or on a chip-limited table what
    really moved."""

    payouts: Mapping[str, int]
    penalties: Mapping[str, int]
    pot: int | None
    next_carry: int | None
    short: tuple[str, ...]


def _paid(result: Mapping[str, Any], shortfalls: Mapping[str, int]) -> _Paid:
    payouts = result.get("payouts") or {}
    penalties = result.get("penalties") or {}
    pot, next_carry = result.get("pot"), result.get("next_carry")
    if not (shortfalls and result):
        return _Paid(payouts, penalties, pot, next_carry, ())
    # A tournament table: nobody paid more than their chips. Say what really moved, not
    # what the verdict asked ("pays 8 — all they had", the pot that really carries).
    carry = int(pot or 0) - sum((result.get("antes") or {}).values())
    moved = paid_money(dict(result), carry, dict(shortfalls))
    short = sorted(p for p, x in penalties.items() if moved.penalties.get(p, 0) < x)
    return _Paid(
        moved.payouts,
        {p: moved.penalties.get(p, 0) for p in penalties},
        carry + sum(moved.antes.values()),
        moved.next_carry,
        tuple(short),
    )


def hand_facts(hand: Hand) -> HandFacts:
    """What a hand's verdict says, for the result and history templates (the template
    tag of the same name hands this to them)."""
    verdict = hand.verdict or {}
    record = hand.record or {}
    result = verdict.get("result") or {}
    tricks = hand_meaning.seat_order(verdict.get("tricks") or {}, record.get("players") or [])
    outcome = result.get("outcome", "")
    top, tied = hand_meaning.tied_at_top(tricks, outcome)
    paid = _paid(result, hand.shortfalls or {})
    bourre = list(result.get("bourre") or [])
    reneged = hand_meaning.first_reneges(verdict.get("reneges") or [])
    winner = result.get("winner")
    antes = result.get("antes") or {}
    return HandFacts(
        outcome=outcome,
        winner=winner,
        won=paid.payouts.get(winner) if winner else None,
        payouts=tuple(sorted(paid.payouts.items(), key=lambda kv: -kv[1])),
        pot=paid.pot,
        antes=antes,
        ante_total=sum(antes.values()),
        tricks=tuple(tricks.items()),
        top=top,
        tied=tuple(tied),
        bourre=tuple((p, paid.penalties.get(p, 0)) for p in bourre),
        renege_penalties=tuple((p, x) for p, x in paid.penalties.items() if p not in bourre),
        short=paid.short,
        reneges=tuple(reneged),
        next_carry=paid.next_carry,
        excused_next=tuple(result.get("excused_next") or []),
        next_dealer=result.get("next_dealer"),
        passed=tuple(record.get("passed") or []),
        trump=record.get("trump") or (record.get("up_card") or "")[-1:],
        up_card=record.get("up_card"),
        out_of_turn=tuple(_out_of_turn(hand)),
        forfeits=tuple(
            hand_meaning.deal_forfeits(
                reneged, result.get("forfeits_next") or [], record.get("forfeits") or []
            )
        ),
    )


def _out_of_turn(hand: Hand) -> list[str]:
    # A one-line summary (the scoreboard's latest hands) reads the hands without their
    # state before and does not say this: no query per hand for it.
    if "before" in hand.get_deferred_fields():
        return []
    before = hand.before if isinstance(hand.before, dict) else {}
    return hand_meaning.called_out_of_turn(
        (hand.record or {}).get("forfeits") or [],
        set(before.get("forfeits") or []),
        before.get("seats") or {},
    )
