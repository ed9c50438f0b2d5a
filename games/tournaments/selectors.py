"""Reading a tournament: standings, chip report, the bracket, its ETag and what blocks
the next step. Nothing here writes."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

from django.db.models import Sum
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import timezones
from games.engine import tournament as logic
from games.models import (
    Entry,
    GameSession,
    Round,
    Seat,
    SeatMove,
    Tournament,
    TournamentTable,
)
from games.money import format_count
from games.tournaments import payouts
from ledger import books
from ledger.exports import major

# -- reading --------------------------------------------------------------------------------


def deal_players(t: Tournament) -> set[int]:
    """The players still in when a deal ended the tournament: they shared it, and none of
    them was knocked out, though all but the first finish "out" of the final table."""
    return {int(p) for p in ((t.deal or {}).get("amounts") or {})}


# One piece (radon D): one ranking over one entry list (finished places, or those still
# in by chips then those out); the branches are the cases of that one order.
def standings(t: Tournament) -> list[dict[str, Any]]:
    """Everyone in the event, best first: final places once finished; while running,
    those still in (by chips) and then the others by when they went out, each with the
    place they finished in and ``prize_due``: what the payout table pays that place from
    the pool as it stands (shared places split their prizes), paid when the tournament
    ends (``tables._finish_tournament`` pays it by the same rule)."""
    entries = list(
        t.entries.filter(
            status__in=[Entry.Status.PLAYING, Entry.Status.OUT, Entry.Status.WINNER]
        ).select_related("player", "out_table__round")
    )
    live = live_chips(t)
    if t.status == Tournament.Status.FINISHED:
        entries.sort(key=lambda e: (e.place or 0, e.player.name.lower()))
        places = [e.place for e in entries]
    else:
        still = [e for e in entries if e.status != Entry.Status.OUT]
        out = [e for e in entries if e.status == Entry.Status.OUT]
        still.sort(key=lambda e: (-live.get(e.player_id, 0), e.player.name.lower()))
        keys = []
        for e in out:
            assert e.out_key is not None  # set whenever an entry goes out (tables.py)
            keys.append((e.player_id, tuple(e.out_key)))
        ranked = logic.finishing_places(keys)
        by_id = {e.player_id: e for e in out}
        out = [by_id[p] for _, p in ranked]
        places = [None] * len(still) + [len(still) + place for place, _ in ranked]
        entries = still + out
    due = _prizes_due(t, entries, places) if t.status == Tournament.Status.RUNNING else {}
    in_deal = deal_players(t)
    rows = []
    for entry, place in zip(entries, places, strict=True):
        table = entry.out_table
        key = entry.out_key or []
        # Knocked out (not ranked at a table's end): no chips to show.
        busted = entry.status == Entry.Status.OUT and (
            (not t.is_rounds and key[:1] == [0]) or (t.is_rounds and key[1:2] == [0])
        )
        rows.append(
            {
                "place": place,
                "player": {"id": entry.player_id, "name": entry.player.name},
                "status": entry.status,
                # Out: no chips (the column would show their stack before the hand that
                # knocked them out, which reads as if they still had it).
                "chips": None if busted else live.get(entry.player_id, entry.out_chips or 0),
                "out_chips": entry.out_chips if busted else None,
                "busted": busted,
                "in_deal": entry.player_id in in_deal,
                "out_round": entry.out_round,
                "out_table": table.number if table else None,
                "out_at": entry.out_at,
                "prize": entry.prize,
                "prize_due": due.get(entry.player_id, 0),
                "reentries": entry.reentries,
            }
        )
    return rows


def _prizes_due(t: Tournament, entries: list[Entry], places: list[int | None]) -> dict[int, int]:
    """player → the prize of the place each player who went out holds, by the rule that
    pays it at the end (``payouts.place_prizes``, as ``tables._finish_tournament``);
    those still in are given the places above them, which they share out at the end."""
    pool = books.prize_balances(t)["pool"]
    if not pool or not any(places):
        return {}
    order = payouts.seeded_ranks(t, [e.player_id for e in entries])
    rows = sorted(
        (
            (place or i + 1, e.player_id)
            for i, (e, place) in enumerate(zip(entries, places, strict=True))
        ),
        key=lambda row: (row[0], order[row[1]]),
    )
    try:
        prizes = payouts.place_prizes(t, rows, pool)
    except logic.TournamentError:
        return {}
    out = {e.player_id for e, place in zip(entries, places, strict=True) if place is not None}
    return {p: x for p, x in prizes.items() if p in out and x}


# prize_due: what a knocked-out player's place pays at the end while the tournament runs
# (the standings' "paid at the end"); 0 once prizes are paid or for anyone still in.
STANDINGS_CSV_COLUMNS = (
    "place",
    "player",
    "status",
    "chips",
    "out_table",
    "out_at",
    "prize",
    "prize_due",
)
# The API's CSVs keep the stored integers and say so (ledger.exports).
API_STANDINGS_CSV_COLUMNS = (*STANDINGS_CSV_COLUMNS[:-2], "prize_minor", "prize_due_minor")


def standings_csv_rows(
    rows: Iterable[Mapping[str, Any]], amount: Callable[[int], Any] = int
) -> Iterator[list[Any]]:
    """The standings as CSV rows (the page's and the API's; out_at as ISO 8601 with the
    club's offset; ``amount`` writes the prize and the prize due: the page's in major units,
    ``major``).
    Write them with ``ledger.exports.writer``, which escapes every text cell."""
    for r in rows:
        yield [
            r["place"] if r["place"] is not None else "",
            r["player"]["name"],
            r["status"],
            r["chips"] if r["chips"] is not None else "",
            r["out_table"] or "",
            timezones.iso(r["out_at"]) if isinstance(r["out_at"], datetime) else r["out_at"] or "",
            amount(r["prize"]),
            amount(r["prize_due"]),
        ]


def live_chips(t: Tournament) -> dict[int, int]:
    tables = TournamentTable.objects.filter(tournament=t, status=TournamentTable.Status.PLAYING)
    out: dict[int, int] = {}
    for stacks in stacks_by_session(tables.values_list("session_id", flat=True)).values():
        for p, chips in stacks.items():
            if chips > 0:
                out[p] = out.get(p, 0) + chips
    return out


def chip_report(t: Tournament) -> list[dict[str, int]]:
    """Where the chips of each round are. ``start``: the chips drawn into the round (byes
    included); ``now``: stacks and pots at its playing tables, the final chips of its
    finished tables, pots left dead (not awarded, nor moved on with a broken table's
    players) and the byes' chips. Chips are conserved
    when ``now == start`` for every round; ``advancing`` is what the advancing players
    hold, the next round's ``start`` when stacks carry."""
    tables = list(t.tables.select_related("session"))
    live = [x.session_id for x in tables if x.status == TournamentTable.Status.PLAYING]
    stacks = stacks_by_session(live)
    report = []
    for rnd in t.rounds.order_by("number"):
        chips = {int(k): v for k, v in (rnd.draw.get("chips") or {}).items()}
        now = sum(chips.get(p, 0) for p in rnd.byes)
        advancing = now
        for x in tables:
            if x.round_id != rnd.pk:
                continue
            if x.status == TournamentTable.Status.PLAYING:
                now += sum(stacks.get(x.session_id, {}).values()) + x.session.carry
                continue
            rows = x.result.get("rows", [])
            now += sum(row["chips"] for row in rows)
            if not x.result.get("pot_awarded"):
                # A dead pot still counts; a broken table's pot that moved with its
                # players (RULES.md T1) is in the receiving tables' pots now.
                moved = sum((x.result.get("pot_moved") or {}).values())
                now += x.result.get("pot", 0) - moved
            advanced = set(x.result.get("advanced", []))
            advancing += sum(row["chips"] for row in rows if row["player"] in advanced)
        # Chips bought after the draw: late entries, re-entries, rebuys, add-ons.
        added = sum((rnd.draw.get("added") or {}).values())
        report.append(
            {
                "round": rnd.number,
                "start": sum(chips.values()) + added,
                "now": now,
                "advancing": advancing,
            }
        )
    return report


# One piece (radon D): one page's data from queries made once up front; its branches
# shape rounds and tables for the template, they decide nothing.
def bracket(t: Tournament) -> dict[str, Any]:
    """Everything the bracket page shows, in a constant number of queries whatever the
    number of entrants: rounds, tables, then one query each for seats and live stacks."""
    rounds = list(t.rounds.order_by("number"))
    tables = list(t.tables.select_related("session").order_by("round_id", "number"))
    names = dict(t.entries.values_list("player_id", "player__name"))
    dealt = deal_players(t)  # not struck out: they shared a deal
    seats: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for row in (
        Seat.objects.filter(session__tournament_table__tournament=t)
        .order_by("session_id", "position", "id")
        .values("session_id", "player_id", "active", "eliminated_at")
    ):
        seats[row["session_id"]].append(row)
    live_ids = [x.session_id for x in tables if x.status == TournamentTable.Status.PLAYING]
    stacks = stacks_by_session(live_ids)
    number_of = {x.pk: x.number for x in tables}
    # Where each player went from each table: the latest move wins.
    moved_to: dict[tuple[int, int], str] = {}
    for player_id, source_id, target_id, seat in (
        SeatMove.objects.filter(tournament=t, source__isnull=False)
        .order_by("id")
        .values_list("player_id", "source_id", "target_id", "seat")
    ):
        table = number_of.get(target_id, "?")
        moved_to[(source_id, player_id)] = (
            _("moved to table %(table)s, seat %(seat)s") % {"table": table, "seat": seat}
            if seat
            else _("moved to table %(table)s") % {"table": table}
        )
    by_round: dict[int, list[TournamentTable]] = defaultdict(list)
    for x in tables:
        by_round[x.round_id].append(x)
    out_rounds = []
    for rnd in rounds:
        boxes = []
        for x in by_round[rnd.pk]:
            advanced = set(x.result.get("advanced", []))
            limit = hand_limit(t, rnd) if t.is_rounds else 0
            if x.status == TournamentTable.Status.PLAYING:
                st = stacks.get(x.session_id, {})
                players = [
                    {
                        "id": r["player_id"],
                        "name": names.get(r["player_id"], "?"),
                        "chips": st.get(r["player_id"], 0),
                        "out": r["eliminated_at"] is not None,
                        "moved": not r["active"] and r["eliminated_at"] is None,
                        "moved_to": moved_to.get((x.pk, r["player_id"]), ""),
                        "advanced": False,
                    }
                    for r in seats[x.session_id]
                ]
                # A player who moved away is shown with where they went, not as active.
                players = [p for p in players if not p["moved"] or p["moved_to"]]
            else:
                players = [
                    {
                        "id": row["player"],
                        "name": names.get(row["player"], "?"),
                        "chips": row["chips"],
                        "out": row["player"] not in advanced and row["player"] not in dealt,
                        "moved": False,
                        "moved_to": "",
                        "advanced": row["player"] in advanced,
                    }
                    for row in x.result.get("rows", [])
                ]
                if x.status == TournamentTable.Status.BROKEN:
                    moved = set(x.result.get("moved", []))
                    players = [
                        {
                            "id": r["player_id"],
                            "name": names.get(r["player_id"], "?"),
                            "chips": None,
                            "out": r["eliminated_at"] is not None,
                            "moved": r["player_id"] in moved,
                            "moved_to": moved_to.get((x.pk, r["player_id"]), ""),
                            "advanced": False,
                        }
                        for r in seats[x.session_id]
                    ]
            boxes.append(
                {
                    "id": x.pk,
                    "number": x.number,
                    "status": x.status,
                    "session_id": x.session_id,
                    "hands": x.session.hands_count,
                    "limit": limit,
                    "pot": x.session.carry if x.status == TournamentTable.Status.PLAYING else 0,
                    "ante": x.session.rules.get("ante"),
                    "players": players,
                    "result": x.result,
                    "ending": x.ending,
                }
            )
        out_rounds.append(
            {
                "id": rnd.pk,
                "number": rnd.number,
                "seed": rnd.seed,
                # A freeze-out's only round is never closed by a round end: once the
                # tournament has finished, every round of it has too.
                "status": (
                    Round.Status.FINISHED if t.status == Tournament.Status.FINISHED else rnd.status
                ),
                "is_final": rnd.is_final,
                "tables": boxes,
                "byes": [{"id": p, "name": names.get(p, "?")} for p in rnd.byes],
                "advanced": len(rnd.advanced),
            }
        )
    podium = []
    if t.status == Tournament.Status.FINISHED:
        podium = [r for r in standings(t) if r["prize"] or r["place"] == 1]
    return {"rounds": out_rounds, "podium": podium, "deal": t.deal or None}


def etag(t: Tournament) -> str:
    """Changes whenever the tournament or any of its tables' sessions changes (one query:
    a session's version only ever rises, so their sum does too)."""
    total = (
        GameSession.objects.filter(tournament_table__tournament=t).aggregate(v=Sum("version"))["v"]
        or 0
    )
    return f'"t{t.pk}-{t.version}-{total}"'


def blockers(t: Tournament, data: dict[str, Any]) -> list[str]:
    """What the round is waiting for, in words, for the director's dashboard."""
    if t.status == Tournament.Status.REGISTRATION:
        n = t.entries.filter(status=Entry.Status.CHECKED_IN).count()
        return [_("%(n)s checked in; start when everyone is here (at least 2).") % {"n": n}]
    if t.status == Tournament.Status.FINISHED:
        return []
    rnd = data["rounds"][-1]
    if rnd["status"] == Round.Status.FINISHED:
        return [
            _("Round %(n)s is over: draw round %(next)s.")
            % {"n": rnd["number"], "next": rnd["number"] + 1}
        ]
    out = []
    for box in rnd["tables"]:
        if box["status"] != TournamentTable.Status.PLAYING:
            continue
        alive = sum(1 for p in box["players"] if not p["out"] and p["chips"])
        facts = {
            "table": box["number"],
            "pot": format_count(box["pot"]),
            "hand": box["hands"] + 1,
            "hands": box["hands"],
            "limit": box["limit"],
            "alive": alive,
        }
        if box["limit"]:
            if box["hands"] >= box["limit"] or box["ending"]:
                out.append(
                    ngettext(
                        "Table %(table)s: %(pot)s chip in the pot must be won before it ends.",
                        "Table %(table)s: %(pot)s chips in the pot must be won before it ends.",
                        box["pot"],
                    )
                    % facts
                    if box["pot"]
                    else _("Table %(table)s: ready to end.") % facts
                )
            else:
                out.append(_("Table %(table)s: hand %(hand)s of %(limit)s.") % facts)
        else:
            out.append(_("Table %(table)s: %(alive)s players, %(hands)s hands played.") % facts)
    return out


def balance_warnings(notes: Iterable[Any]) -> list[str]:
    """``tables.balance_outlook``'s note (one instruction at a time) in words, for the
    director's dashboard and a refused hand: what has to happen — who goes where, where
    the chips of a broken table's pot go — then what it waits for."""
    out = []
    for note in notes:
        facts = {
            "table": note.table,
            "n": note.players,
            "min": note.min_size,
            "target": note.target,
            "b": note.target_players,
            "count": note.count,
            "pot": format_count(note.pot),
        }
        parts = []
        if note.kind == "break":
            parts.append(
                ngettext(
                    "Table %(table)s has %(n)s player (minimum %(min)s): it breaks up and its "
                    "players move to the other tables.",
                    "Table %(table)s has %(n)s players (minimum %(min)s): it breaks up and its "
                    "players move to the other tables.",
                    note.players,
                )
                % facts
            )
            if note.goes:
                parts.append(
                    "; ".join(
                        _("%(name)s to table %(table)s") % {"name": name, "table": to}
                        for name, to in note.goes
                    )
                    + "."
                )
            if note.pot_to:
                total = sum(x for _, x in note.pot_to)
                parts.append(
                    ngettext(
                        "The %(pot)s chip in its pot goes with them: %(shares)s.",
                        "The %(pot)s chips in its pot go with them: %(shares)s.",
                        total,
                    )
                    % {
                        "pot": format_count(total),
                        "shares": "; ".join(
                            _("%(chips)s to table %(table)s")
                            % {"chips": format_count(x), "table": to}
                            for to, x in note.pot_to
                        ),
                    }
                )
        elif note.kind == "short":
            parts.append(
                ngettext(
                    "Table %(table)s has %(n)s player (minimum %(min)s), but the other tables "
                    "have no room yet: it breaks up once players go out at the other tables.",
                    "Table %(table)s has %(n)s players (minimum %(min)s), but the other tables "
                    "have no room yet: it breaks up once players go out at the other tables.",
                    note.players,
                )
                % facts
            )
        else:
            parts.append(
                ngettext(
                    "Table %(table)s has %(n)s players and table %(target)s has %(b)s: "
                    "%(count)s player moves from table %(table)s to table %(target)s.",
                    "Table %(table)s has %(n)s players and table %(target)s has %(b)s: "
                    "%(count)s players move from table %(table)s to table %(target)s.",
                    note.count,
                )
                % facts
            )
        if note.wait == "pot":
            when = ngettext(
                "First the pot at table %(table)s (%(pot)s chip) must be won.",
                "First the pot at table %(table)s (%(pot)s chips) must be won.",
                note.pot,
            )
        elif note.wait == "hand":
            when = _("This happens when the hand being played at table %(table)s ends.")
        elif note.wait == "next":
            when = _(
                "This happens after the next hand at table %(table)s; between hands, "
                "“Check the tables” does it now."
            )
        elif note.wait == "now":
            when = _("“Check the tables” does it now.")
        else:
            when = ""
        if when:
            parts.append(when % facts)
        out.append(" ".join(parts))
    return out


def stacks_by_session(session_ids: Iterable[int]) -> dict[int, dict[int, int]]:
    """session id → {player id: chips in front of them}, for many sessions in one query:
    the sessions' running totals, the same as ``postings.player_stacks`` (every posting
    of the session, buy-ins and cash-outs included)."""
    rows = GameSession.objects.filter(pk__in=list(session_ids)).order_by()
    return {
        pk: {int(k): v for k, v in stacks.items()}
        for pk, stacks in rows.values_list("pk", "stacks")
    }


def hand_limit(t: Tournament, rnd: Round) -> int:
    return t.final_hands if rnd.is_final else t.hands_per_round


PRIZE_CSV_COLUMNS = ("posting", "date", "kind", "player", "account", "amount", "currency", "memo")
API_PRIZE_CSV_COLUMNS = (*PRIZE_CSV_COLUMNS[:5], "amount_minor", *PRIZE_CSV_COLUMNS[6:])


def prize_csv_rows(t: Tournament) -> Iterator[list[Any]]:
    """One row per leg: the prize ledger page's CSV (amounts in major units, the ISO code,
    times with the club's offset; the API writes its own from its JSON)."""
    names: dict[int | None, str] = dict(t.entries.values_list("player_id", "player__name"))
    for posting in books.prize_postings(t):
        for leg in posting.legs.all():
            account = leg.account
            yield [
                posting.number,
                timezones.iso(posting.created_at),
                posting.kind,
                names.get(posting.player_id, ""),
                names.get(account.player_id, "?") if account.player_id else account.kind,
                major(leg.amount, t.currency),
                t.currency.code,
                posting.memo,
            ]
