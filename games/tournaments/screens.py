"""What the wall screen (TV), the print view and the draw's verification page read.
Nothing here writes.

The verification page redoes every draw from the revealed seed and the entry list:
round one from the entrants (freeze-out: ``draw_tables`` of the sorted ids; table rounds:
``draw_round`` of the seeded order), later rounds from the players who advanced and
who met whom before (both public on the bracket). A draw that does not come out the
same — a changed seed, a changed entry list, a changed table — is reported, a refusal
of the engine in the reader's language (games.messages.render).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from games.engine import tournament as logic
from games.messages import render
from games.models import Entry, Round, SeatMove, Tournament, TournamentTable
from games.tournaments import clock, payouts, selectors
from ledger import books


# One piece (radon D): the TV screen's fields from one fixed set of queries; its branches
# are a running or a finished event's value of the same field (players left, prizes).
def tv_context(t: Tournament) -> dict[str, Any]:
    """Clock, level, ante, next ante, next break and the next three levels, players left,
    average stack, chips in play, tables, the latest eliminations, the payouts, and a
    table-rounds event's bracket, in a fixed number of queries."""
    live = selectors.live_chips(t)
    entries = list(
        t.entries.filter(status__in=[Entry.Status.PLAYING, Entry.Status.OUT, Entry.Status.WINNER])
        .select_related("player", "out_table")
        .order_by("-out_at", "-id")
    )
    left = [e for e in entries if e.status != Entry.Status.OUT]
    standings = selectors.standings(t)
    # Who shared a deal was not knocked out: not among the eliminations.
    dealt = {r["player"]["id"] for r in standings if r["in_deal"]}
    out = [e for e in entries if e.status == Entry.Status.OUT and e.player_id not in dealt]
    places = {r["player"]["id"]: r["place"] for r in standings}
    chips = sum(live.values())
    pool = books.prize_balances(t)["pool"]
    prize_rows = (
        [
            {"place": r["place"], "player": r["player"], "amount": r["prize"]}
            for r in standings
            if r["prize"]
        ]
        if t.status == Tournament.Status.FINISHED
        else payouts.payout_rows(t, pool, len(entries))
    )
    return {
        "clock": clock.clock_state(t),
        "players_left": len(left) if t.status != Tournament.Status.FINISHED else 0,
        "entrants": len(entries),
        "average": chips // len(left) if left and chips else 0,
        "chips_in_play": chips,
        "tables": TournamentTable.objects.filter(
            tournament=t, status=TournamentTable.Status.PLAYING
        ).count(),
        # The latest out finish highest among the out: best place first.
        "eliminations": sorted(
            (
                {
                    "name": e.player.name,
                    "place": places.get(e.player_id),
                    "table": e.out_table.number if e.out_table else None,
                }
                for e in out
            ),
            key=lambda row: row["place"] or 0,
        )[:6],
        "prize_rows": prize_rows,
        "pool": pool,
        "winner": standings[0] if t.status == Tournament.Status.FINISHED and standings else None,
        "deal": t.deal or None,
        # A table-rounds event shows its bracket: the current round's tables, and what
        # each earlier round left (how many went on).
        "bracket": _tv_bracket(t) if t.is_rounds else None,
    }


def _tv_bracket(t: Tournament) -> dict[str, Any] | None:
    rounds = selectors.bracket(t)["rounds"]
    if not rounds:
        return None
    current = rounds[-1]
    return {
        "current": current,
        "earlier": [
            {"number": r["number"], "tables": len(r["tables"]), "advanced": r.get("advanced", 0)}
            for r in rounds[:-1]
        ],
    }


def tv_etag(t: Tournament) -> str:
    """The bracket's ETag plus the clock's level, so a new level refreshes the screen."""
    state = clock.clock_state(t)
    return selectors.etag(t)[:-1] + f'-L{state["level"]}{"b" if state["on_break"] else ""}"'


# -- the provably fair draw ------------------------------------------------------------------


def drawn_entrants(t: Tournament) -> list[int]:
    """The entry list of the first draw: everyone in the event but late entrants."""
    late = set(
        SeatMove.objects.filter(tournament=t, reason=SeatMove.Reason.LATE).values_list(
            "player_id", flat=True
        )
    )
    ids = t.entries.filter(
        status__in=[Entry.Status.PLAYING, Entry.Status.OUT, Entry.Status.WINNER]
    ).values_list("player_id", flat=True)
    return sorted(p for p in ids if p not in late)


def _redo(
    t: Tournament,
    rnd: Round,
    seed: str,
    entrants: list[int],
    met: Mapping[int, Collection[int]] | None,
) -> tuple[list[list[int]], list[int]]:
    lo = rnd.draw.get("min_table", t.min_table)
    hi = rnd.draw.get("max_table", t.max_table)
    if rnd.number == 1 and not t.is_rounds:
        sizes = logic.table_sizes(len(entrants), lo, hi)
        return logic.draw_tables(entrants, seed, sizes, salt=1), []
    ranked = logic.seeded_order(entrants, seed, 1) if rnd.number == 1 else list(entrants)
    draw = logic.draw_round(ranked, seed, lo, hi, met=met, round_no=rnd.number)
    return draw.tables, draw.byes


# One piece (radon D): redoes each round in order, carrying who met whom into the next
# round's draw; each branch records one way a round can disagree with the record.
def verify_draws(t: Tournament, entrants: list[int] | None = None) -> dict[str, Any]:
    """Check the seed against its commitment and redo every round's draw. ``entrants``:
    an entry list to check instead of the one on record (e.g. pasted by a player)."""
    revealed = t.seed_revealed_at is not None
    result: dict[str, Any] = {
        "commitment": t.seed_commitment,
        "revealed": revealed,
        "seed": t.seed if revealed else None,
        "seed_ok": revealed and logic.commitment(t.seed) == t.seed_commitment,
        "entrants": entrants if entrants is not None else drawn_entrants(t),
        "rounds": [],
    }
    if not revealed:
        return result
    names = dict(t.entries.values_list("player_id", "player__name"))
    result["names"] = [(p, names.get(p, "?")) for p in result["entrants"]]
    met: dict[int, set[int]] = {}
    for rnd in t.rounds.order_by("number"):
        stored = [list(x) for x in rnd.draw.get("tables", [])]
        if rnd.number == 1:
            source = list(result["entrants"])
            recorded = sorted(rnd.draw.get("entrants") or rnd.draw.get("ranked") or [])
            list_ok = recorded == sorted(source)
        else:
            source = list(rnd.draw.get("ranked", []))
            list_ok = True
        try:
            tables, byes = _redo(t, rnd, rnd.seed, source, met)
        except logic.TournamentError as exc:
            tables, byes, error = [], [], render(exc)
        else:
            error = ""
        same = not error and tables == stored and byes == list(rnd.draw.get("byes", []))
        result["rounds"].append(
            {
                "number": rnd.number,
                "seed_is_committed": rnd.seed == t.seed,
                "list_ok": list_ok,
                "ok": same and list_ok and rnd.seed == t.seed,
                "error": error,
                "tables": [[names.get(p, "?") for p in table] for table in tables],
                "stored": [[names.get(p, "?") for p in table] for table in stored],
            }
        )
        for table in stored:
            for p in table:
                met.setdefault(p, set()).update(q for q in table if q != p)
    result["ok"] = bool(result["seed_ok"]) and all(r["ok"] for r in result["rounds"])
    return result
