"""Keeping a running tournament up with its tables: ante levels (a table takes the level
in force when its own hand ends: ``clock``), who went out, tables that finish, rounds and
the tournament that end (prizes by the payout table, after a deal: the rest; every
round still open, a freeze-out's only one, closes with it), and
freeze-out balancing (nobody moved by one balancing step is chosen by the next when
someone else can go; a moved player takes the lowest free seat of the new table, so the
seat numbers its players were told — the draw's, each move's — stay unique; each move
records the new seat, and a broken table keeps who went where: its ``SeatMove`` rows);
and what balancing still waits for (``balance_outlook``: the one next instruction — a
table that breaks, a player to move, a short table nothing can help — and what it waits
for), which the director's dashboard states; ``deal_refusal`` says why a short table
must not deal (RULES.md T1–T3, ``games.engine.tournament_breaks``). A broken table's
carried pot moves with its players (T1 ``move``, the default: ``postings.move_pot``,
each move a balanced posting) or is played out first (``play_out``). ``open_table``
opens a table: the draw's, or the next one a late entrant or a re-entry opens alone when
every table is full (``entries.seat_late``). Called under the tournament row lock by
``service`` (``sync``, ``after_hand``, the director's requests)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max, Sum
from django.utils import timezone

from games.api import outbox
from games.engine import tournament as logic
from games.engine import tournament_breaks as breaks
from games.models import (
    Entry,
    GameSession,
    Hand,
    Player,
    Round,
    Seat,
    SeatMove,
    Tournament,
    TournamentTable,
)
from games.models.session import ROUND_TABLE_NAME, TABLE_NAME
from games.money import CHIPS
from games.tournaments import clock, payouts
from games.tournaments.selectors import hand_limit
from ledger import books, postings
from ledger.memos import MemoKind, prize_memo
from ledger.models import Leg, PrizePosting

# -- keeping up with the tables -------------------------------------------------------------


@dataclass
class TableInfo:
    table: TournamentTable
    session: GameSession
    seats: list[Mapping[str, Any]]  # seat order: player_id, name, active, eliminated_at
    stacks: dict[int, int]
    in_progress: bool = False
    alive: list[int] = field(default_factory=list)

    @property
    def pot(self) -> int:
        return self.session.carry


def table_infos(tables: list[TournamentTable], *, lock: bool = True) -> dict[int, TableInfo]:
    """Sessions, seats and stacks of these tables in a constant number of queries.

    Inside a transaction (every write, which holds the tournament lock) it is one
    consistent picture: the sessions' rows are locked first (in id order, after the
    tournament row), so no hand can be recorded at any of these tables until the caller
    commits. Without it, a hand committed between the reads (the stacks from before it,
    the seats from after) could make a table look like it had one player left with
    their old stack: the table broke, the player moved with the old stack and the chips
    they had just won stayed behind at the closed table. Outside a transaction (a page
    or the API showing the deal's terms) nothing is decided from the picture, and
    nothing is locked; nor with ``lock=False`` (the check before a hand, which holds
    one table's session lock already: taking the others' could wait crosswise)."""
    if not tables:
        return {}
    session_ids = [x.session_id for x in tables]
    found = GameSession.objects.filter(pk__in=session_ids).order_by("pk")
    if lock and transaction.get_connection().in_atomic_block:
        found = found.select_for_update()
    sessions = {x.pk: x for x in found}
    seats: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for row in (
        Seat.objects.filter(session_id__in=session_ids)
        .order_by("session_id", "position", "id")
        .values("session_id", "player_id", "player__name", "active", "eliminated_at", "position")
    ):
        seats[row["session_id"]].append(row)
    stacks = {pk: x.stack_by_player() for pk, x in sessions.items()}
    busy: set[int] = set()
    digital = [pk for pk, x in sessions.items() if x.mode == GameSession.Mode.DIGITAL]
    if digital:
        # A digital hand being played holds its table: nobody leaves mid-hand.
        busy = set(
            Hand.objects.filter(session_id__in=digital, status=Hand.Status.IN_PROGRESS).values_list(
                "session_id", flat=True
            )
        )
    out = {}
    for x in tables:
        st = stacks.get(x.session_id, {})
        rows = seats[x.session_id]
        info = TableInfo(x, sessions[x.session_id], rows, st, x.session_id in busy)
        info.alive = [r["player_id"] for r in rows if r["active"] and st.get(r["player_id"], 0) > 0]
        out[x.pk] = info
    return out


# One piece (radon D): the order of one pass is the rule (exits, antes, finished tables,
# balancing, the round's end); each step is already its own helper.
def sync_tables(t: Tournament, user: User | None, trigger: int | None = None) -> bool:
    """One pass over the current round's tables. The caller holds the tournament lock.
    ``trigger``: the session that just recorded a hand; in table rounds only its table
    can have changed, so only it is looked at."""
    rnd = t.rounds.order_by("-number").first()
    if rnd is None:
        return False
    changed = False
    tables = list(rnd.tables.filter(status=TournamentTable.Status.PLAYING))
    if trigger is not None and t.is_rounds:
        tables = [x for x in tables if x.session_id == trigger]
    infos = table_infos(tables)
    seated = {r["player_id"] for info in infos.values() for r in info.seats}
    entries = list(
        t.entries.filter(player_id__in=seated, status__in=[Entry.Status.PLAYING, Entry.Status.OUT])
    )
    playing = {e.player_id: e for e in entries if e.status == Entry.Status.PLAYING}
    out_here = {e.player_id: e for e in entries if e.status == Entry.Status.OUT}
    finished = False
    # A re-entered player's old seat stays eliminated at the table they busted at: while
    # they hold chips at a table, that old seat puts nobody out again.
    in_play = {p for info in infos.values() for p in info.alive}
    for table in tables:
        info = infos[table.pk]
        changed |= _record_exits(t, rnd, info, playing, out_here, in_play)
        changed |= _update_ante(t, rnd, info, user, trigger)
        if _table_done(t, rnd, info, len(tables)):
            finish_table(t, rnd, table, info, user, reason=_done_reason(t, rnd, info))
            changed = finished = True
    if not t.is_rounds and t.status == Tournament.Status.RUNNING:
        changed |= _balance(t, rnd, infos, user, trigger)
    if (
        t.is_rounds
        and rnd.status != Round.Status.FINISHED
        and (finished or trigger is None)
        and not rnd.tables.filter(status=TournamentTable.Status.PLAYING).exists()
    ):
        finish_round(t, rnd, user)
        changed = True
    return changed


def _record_exits(
    t: Tournament,
    rnd: Round,
    info: TableInfo,
    playing: dict[int, Entry],
    out_here: dict[int, Entry],
    in_play: set[int],
) -> bool:
    """Entries whose seat here was eliminated go out (unless they hold chips at a table
    again: a re-entry); a voided elimination comes back."""
    changed = False
    busted = [
        r["player_id"]
        for r in info.seats
        if r["eliminated_at"] is not None
        and r["player_id"] in playing
        and r["player_id"] not in in_play
    ]
    if busted:
        exits = _exit_points(info.session, busted)
        for r in info.seats:
            p = r["player_id"]
            if p not in exits:
                continue
            order, chips = exits[p]
            entry = playing[p]
            entry.status = Entry.Status.OUT
            entry.out_round = rnd.number
            entry.out_at = r["eliminated_at"]
            entry.out_chips = chips
            entry.out_table = info.table
            entry.out_key = (
                [rnd.number, 0, order, chips, 0, 0] if t.is_rounds else [0, order, chips]
            )
            entry.save(
                update_fields=["status", "out_round", "out_at", "out_chips", "out_table", "out_key"]
            )
            changed = True
    for r in info.seats:
        back = out_here.get(r["player_id"])
        if back and back.out_table_id == info.table.pk and r["player_id"] in info.alive:
            # The hand that knocked them out was voided: they are back in.
            back.status = Entry.Status.PLAYING
            back.out_round = back.out_at = back.out_chips = back.out_key = None
            back.out_table = None
            back.save(
                update_fields=["status", "out_round", "out_at", "out_chips", "out_table", "out_key"]
            )
            changed = True
    return changed


def _exit_points(session: GameSession, players: list[int]) -> dict[int, tuple[int, int]]:
    """player → (order, chips): the last posting of the hand that took their last chip
    (postings are numbered in the order they were written, across all tables) and the
    chips they had when that hand began (all of which that hand took)."""
    rows = (
        Leg.objects.filter(
            posting__session=session,
            posting__hand__status=Hand.Status.RECORDED,
            account__kind="player",
            account__player_id__in=players,
        )
        .order_by()
        .values_list("account__player_id", "posting__hand_id")
        .annotate(net=Sum("amount"), last=Max("posting_id"))
    )
    out: dict[int, tuple[int, int]] = {}
    for player_id, _hand_id, net, last in rows:
        if player_id not in out or last > out[player_id][0]:
            out[player_id] = (last, max(-net, 0))
    return out


def _update_ante(
    t: Tournament, rnd: Round, info: TableInfo, user: User | None, trigger: int | None
) -> bool:
    """A table takes the level in force when its previous hand ended: by hands, after
    each of its hands; by the clock, after its own hand (``trigger``) — never while a
    hand may be under way there, so a change applies from the next hand dealt."""
    if not info.session.is_open or info.in_progress:
        return False
    if t.level_minutes > 0:
        if trigger != info.session.pk:
            return False
    elif t.hands_per_level <= 0:
        return False
    wanted = table_rules(t, rnd, info.session.hands_count)["ante"]
    if info.session.rules.get("ante") == wanted:
        return False
    session = postings.change_rules(
        session_id=info.session.pk, rules={**info.session.rules, "ante": wanted}, user=user
    )
    info.session = session
    return True


def _table_done(t: Tournament, rnd: Round, info: TableInfo, playing_tables: int) -> bool:
    if info.in_progress:
        return False
    if not t.is_rounds:
        # Freeze-out tables break (see _balance); the last one ends with one player left.
        return playing_tables == 1 and len(info.alive) <= 1
    if len(info.alive) <= 1:
        return True
    limit = hand_limit(t, rnd)
    reached = (limit and info.session.hands_count >= limit) or info.table.ending
    return bool(reached) and info.pot == 0


def _done_reason(t: Tournament, rnd: Round, info: TableInfo) -> str:
    if len(info.alive) <= 1:
        return "last_player"
    if info.table.ending:
        return "director"
    return "hands"


def _pots_won(session: GameSession, seats: list[Mapping[str, Any]]) -> dict[int, int]:
    id_of = {r["player__name"]: r["player_id"] for r in seats}
    won: dict[int, int] = defaultdict(int)
    for winner in Hand.objects.filter(session=session, status=Hand.Status.RECORDED).values_list(
        "verdict__result__winner", flat=True
    ):
        if winner in id_of:
            won[id_of[winner]] += 1
    return won


# One piece (radon D): ranking, cash-out, closing and putting players out share the same
# chip counts and happen in this order in one transaction; split, each part would pass
# the same half-dozen values back and forth.
def finish_table(
    t: Tournament,
    rnd: Round,
    table: TournamentTable,
    info: TableInfo,
    user: User | None,
    reason: str,
) -> None:
    """Rank the table, pay the chips back to the bank, close it, put players out."""
    pot = info.pot
    awarded = False
    # Everyone who sat here and did not move on to another table (freeze-out).
    present = [r for r in info.seats if r["active"] or r["eliminated_at"] is not None]
    chips = {r["player_id"]: max(info.stacks.get(r["player_id"], 0), 0) for r in present}
    if pot and len(info.alive) == 1:
        # Alone at the table: the pot is theirs, in the table's ledger too.
        postings.award_pot(
            session_id=info.session.pk,
            player_id=info.alive[0],
            user=user,
            memo=MemoKind.ALONE_AT_TABLE,
        )
        chips[info.alive[0]] += pot
        info.stacks[info.alive[0]] = info.stacks.get(info.alive[0], 0) + pot
        awarded = True
    won = _pots_won(info.session, info.seats)
    ranked = logic.rank_table(
        [(p, c, won.get(p, 0)) for p, c in chips.items()],
        rnd.seed,
        salt=f"table{table.number}",
        tiebreak=t.tiebreak,
    )
    if t.is_rounds and not rnd.is_final:
        advanced = logic.advancing(ranked, t.advance_per_table)
    else:
        advanced = logic.advancing(ranked, 1)  # the winner
    session = info.session
    for p, stack in info.stacks.items():
        if stack > 0:
            postings.cash_out(session_id=session.pk, player_id=p, amount=stack, user=user)
    # A pot left dead goes back to the bank that issued the chips (close_session).
    postings.close_session(session_id=session.pk, user=user)
    chips_in = {int(k): v for k, v in (rnd.draw.get("chips") or {}).items()}
    table.status = TournamentTable.Status.FINISHED
    table.finished_at = timezone.now()
    table.result = {
        "reason": reason,
        "hands": session.hands_count,
        "pot": pot,
        "pot_awarded": awarded,
        "chips_in": sum(chips_in.get(p, 0) for p in chips) if t.is_rounds else None,
        "advanced": advanced,
        "rows": [
            {
                "player": row.player,
                "chips": row.chips,
                "pots_won": row.pots_won,
                "draw": row.draw,
                "rank": row.rank,
            }
            for row in ranked
        ],
    }
    table.save(update_fields=["status", "finished_at", "result"])
    final = rnd.is_final or not t.is_rounds
    entries = {
        e.player_id: e
        for e in t.entries.filter(player_id__in=list(chips), status=Entry.Status.PLAYING)
    }
    for row in ranked:
        entry = entries.get(row.player)
        if entry is None:
            continue  # out already (busted here), or moved on (freeze-out)
        if row.player in advanced and final:
            entry.status = Entry.Status.WINNER
            entry.out_key = _winner_key(t, rnd, row)
            entry.out_chips = row.chips
            entry.save(update_fields=["status", "out_key", "out_chips"])
        elif row.player not in advanced:
            entry.status = Entry.Status.OUT
            entry.out_round = rnd.number
            entry.out_at = table.finished_at
            entry.out_chips = row.chips
            entry.out_table = table
            pots = row.pots_won if t.tiebreak == Tournament.Tiebreak.POTS else 0
            # A table's draw orders only its own players: at the final table it decides
            # places; in a round of several tables, players level on chips and pots
            # (at different tables) share their place instead.
            draw = -row.draw if rnd.is_final or not t.is_rounds else 0
            entry.out_key = (
                [rnd.number, 1, 0, row.chips, pots, draw] if t.is_rounds else [1, 0, -row.rank]
            )
            entry.save(
                update_fields=["status", "out_round", "out_at", "out_chips", "out_table", "out_key"]
            )
    if not t.is_rounds:
        _finish_tournament(t, user)


def _winner_key(t: Tournament, rnd: Round, row: logic.RankedRow) -> list[int]:
    if t.is_rounds:
        return [rnd.number, 2, 0, row.chips, 0, 0]
    # Freeze-out: those still seated when the last table ends (a deal) rank by the
    # table's ranking, above everyone who went out before.
    return [1, 0, -row.rank]


def finish_round(t: Tournament, rnd: Round, user: User | None) -> None:
    tables = list(rnd.tables.all())
    placed = []
    for table in tables:
        for row in table.result.get("rows", []):
            if row["player"] in table.result.get("advanced", []):
                placed.append((row["rank"], -row["chips"], row["draw"], row["player"]))
    # Next round's bye priority: best table rank first, then chips, then the draw; this
    # round's byes after those who played, so byes go round.
    advanced = [p for *_, p in sorted(placed)] + list(rnd.byes)
    rnd.advanced = advanced
    rnd.status = Round.Status.FINISHED
    rnd.finished_at = timezone.now()
    rnd.save(update_fields=["advanced", "status", "finished_at"])
    if rnd.is_final or len(advanced) <= 1:
        if len(advanced) == 1 and not rnd.is_final:
            Entry.objects.filter(tournament=t, player_id=advanced[0]).update(
                status=Entry.Status.WINNER, out_key=[rnd.number, 2, 0, 0, 0, 0]
            )
        _finish_tournament(t, user)


def _finish_tournament(t: Tournament, user: User | None) -> None:
    """Places for everyone, prizes out of the pool, every table closed."""
    entries = list(
        t.entries.filter(
            status__in=[Entry.Status.PLAYING, Entry.Status.OUT, Entry.Status.WINNER]
        ).select_related("player")
    )
    # Players who share a place are listed in the seeded order (payouts.seeded_ranks).
    order = payouts.seeded_ranks(t, [e.player_id for e in entries])
    entries.sort(key=lambda e: order[e.player_id])
    keys = [(e.player_id, tuple(e.out_key or ())) for e in entries]
    places = logic.finishing_places(keys)
    balances = books.prize_balances(t)
    prizes = payouts.place_prizes(t, places, balances["pool"])
    dealt = {int(p): x for p, x in (t.deal or {}).get("amounts", {}).items()}
    if dealt:
        # A deal already paid the players who made it (ledger.postings kind "deal"): they
        # hold the top places, whose prizes the deal shared. The others are paid by the
        # table from the whole pool as it stood at the deal, exactly as without one —
        # players who went out on the same hand with the same chips share their places'
        # prizes (``prizes_by_place``), as the standings show them sharing the place.
        prizes = payouts.place_prizes(t, places, balances["pool"] + sum(dealt.values()))
        prizes.update(dict.fromkeys(dealt, 0))

    accounts = postings.prize_accounts(t, list(prizes))
    by_player = {e.player_id: e for e in entries}
    for place, player_id in places:
        entry = by_player[player_id]
        entry.place = place
        entry.prize = prizes.get(player_id, 0) + dealt.get(player_id, 0)
        if entry.status == Entry.Status.PLAYING:
            entry.status = Entry.Status.WINNER if place == 1 else Entry.Status.OUT
        entry.save(update_fields=["place", "prize", "status"])
        paid = prizes.get(player_id, 0)
        if paid:
            postings.post_prize(
                t,
                PrizePosting.Kind.PRIZE,
                {accounts["pool"]: -paid, accounts[player_id]: paid},
                user,
                player=player_id,
                memo=prize_memo(MemoKind.PRIZE, entry.player.name, place=place),
            )
    for table in t.tables.select_related("session"):
        session = table.session
        if session.is_open:
            postings.close_session(session_id=session.pk, user=user)
    # A freeze-out's single round (or a round a deal ended) closes with the tournament.
    t.rounds.exclude(status=Round.Status.FINISHED).update(
        status=Round.Status.FINISHED, finished_at=timezone.now()
    )
    t.status = Tournament.Status.FINISHED
    t.finished_at = timezone.now()
    t.save(update_fields=["status", "finished_at"])
    # The webhook event, in the outbox in this same transaction (issue 16).
    outbox.emit(
        t.club_id,
        "tournament.finished",
        {
            "tournament": t.pk,
            "places": [
                {"player": e.player_id, "place": e.place, "prize": e.prize} for e in entries
            ],
        },
    )


# -- freeze-out balancing -------------------------------------------------------------------


# One piece (radon D): one balancing step, in order: which tables are held, the engine's
# plan (logic.plan_balance decides), then each move's ledger postings and seat record.
def _balance(
    t: Tournament,
    rnd: Round,
    infos: dict[int, TableInfo],
    user: User | None,
    trigger: int | None,
) -> bool:
    by_number = {
        info.table.number: info
        for info in infos.values()
        if info.table.status == TournamentTable.Status.PLAYING
    }
    if len(by_number) < 2:
        return False
    last_step = f"{rnd.seed}:balance:{rnd.balance_steps}"
    avoid = set(
        SeatMove.objects.filter(tournament=t, seed=last_step).values_list("player_id", flat=True)
    )
    plan = breaks.balance_step(
        tables_now(by_number, trigger),
        t.min_table,
        t.max_table,
        logic.rng_for(rnd.seed, "balance", rnd.balance_steps + 1),
        break_pot=t.break_pot,
        avoid=avoid,
    )
    if not plan.moves and not plan.broken:
        return False
    rnd.balance_steps += 1
    rnd.save(update_fields=["balance_steps"])
    step_seed = f"{rnd.seed}:balance:{rnd.balance_steps}"
    broken = set(plan.broken)
    players = Player.objects.in_bulk([m.player for m in plan.moves])
    for move in plan.moves:
        source, target = by_number[move.source], by_number[move.target]
        chips = source.stacks.get(move.player, 0)
        if (
            move.source in broken
            and source.pot
            and len(source.alive) == 1
            and t.break_pot == Tournament.BreakPot.PLAY_OUT
        ):
            # Alone at the table: its pot is theirs, in the table's ledger too.
            postings.award_pot(
                session_id=source.session.pk,
                player_id=move.player,
                user=user,
                memo=MemoKind.ALONE_AT_BROKEN_TABLE,
            )
            chips += source.pot
            source.table.result = {"pot": source.pot, "pot_awarded": True}
        if chips > 0:
            postings.cash_out(
                session_id=source.session.pk, player_id=move.player, amount=chips, user=user
            )
        # A player a break sends to a table that then breaks too moves on with these chips.
        source.stacks[move.player] = 0
        target.stacks[move.player] = chips
        if move.source not in broken:
            postings.set_seat_active(
                session_id=source.session.pk, player_id=move.player, active=False, user=user
            )
        # The lowest free seat: those already there keep the seats they were told.
        seat = postings.add_seat(
            session_id=target.session.pk, player=players[move.player], user=user, free_seat=True
        )
        if chips > 0:
            postings.buy_in(
                session_id=target.session.pk, player_id=move.player, amount=chips, user=user
            )
        SeatMove.objects.create(
            tournament=t,
            player_id=move.player,
            source=source.table,
            target=target.table,
            reason=move.reason,
            chips=chips,
            seed=step_seed,
            seat=seat_number(seat),
            created_by=postings.actor(user),
        )
    for number in plan.broken:
        info = by_number[number]
        table = info.table
        pot = GameSession.objects.get(pk=info.session.pk).carry
        shares = breaks.pot_shares(pot, breaks.pot_receivers(info.alive, plan, number))
        if shares:
            # T1 move: the pot is neither lost nor awarded; it goes with the players.
            postings.move_pot(session_id=info.session.pk, amount=pot, into=False, user=user)
            for to, amount in shares.items():
                postings.move_pot(
                    session_id=by_number[to].session.pk, amount=amount, into=True, user=user
                )
        postings.close_session(session_id=info.session.pk, user=user)
        table.status = TournamentTable.Status.BROKEN
        table.finished_at = timezone.now()
        table.result = {
            "reason": "broken",
            "hands": info.session.hands_count,
            "pot": pot,
            "pot_awarded": bool(table.result.get("pot_awarded")),
            "pot_moved": {str(n): x for n, x in shares.items()},
            "moved": [m.player for m in plan.moves if m.source == number],
        }
        table.save(update_fields=["status", "finished_at", "result"])
    return True


def tables_now(
    by_number: Mapping[int, TableInfo], trigger: int | None
) -> dict[int, breaks.TableNow]:
    """The playing tables as balancing sees them (``breaks.TableNow``): after a hand at
    ``trigger`` only that table is surely between hands; the director's check (``None``)
    means every table is."""
    return {
        n: breaks.TableNow(
            info.alive,
            info.pot,
            free=trigger is None or info.session.pk == trigger,
            busy=info.in_progress,
        )
        for n, info in by_number.items()
    }


@dataclass(frozen=True)
class BalanceNote:
    """The one thing freeze-out balancing has still to do (or cannot do), for the
    director's dashboard and the refusal of a hand at a short table. ``kind``: "break"
    (``table`` breaks up before its next deal: ``goes`` says who goes to which table,
    ``pot_to`` where the chips of its pot go), "move" (one player moves from ``table`` to
    ``target``) or "short" (``table`` is below the minimum, but no other table has room or
    a player to spare: it plays on). ``wait``: what it waits for at ``table`` — "pot"
    (its pot of ``pot`` chips must be won first), "hand" (a digital hand is being played
    there), "next" (its next hand, or the director's "Check the tables" between hands),
    "now" (the next check does it) — empty for "short"."""

    kind: str
    table: int
    players: int
    min_size: int
    wait: str = ""
    pot: int = 0
    target: int | None = None
    target_players: int = 0
    count: int = 0
    goes: tuple[tuple[str, int], ...] = ()
    pot_to: tuple[tuple[int, int], ...] = ()


# One piece (radon D): the first pending step of one balancing plan (a break, a move, a
# short table waiting on its pot), in the plan's own order; the first that applies is it.
def balance_outlook(t: Tournament) -> list[BalanceNote]:
    """The next balancing instruction (one, or none): what balancing does once every
    table is between hands (``breaks.blocked``'s plan: the one the refusal of a hand at a
    short table follows too), and what it waits for. After each hand ``sync_tables`` does
    all it may, so a note is what is still pending: a player to move from a table whose
    hand or pot is not over, a short table nothing can help yet."""
    if t.is_rounds or t.status != Tournament.Status.RUNNING:
        return []
    rnd = t.rounds.order_by("-number").first()
    if rnd is None:
        return []
    tables = list(rnd.tables.filter(status=TournamentTable.Status.PLAYING))
    if len(tables) < 2:
        return []
    by_number = {info.table.number: info for info in table_infos(tables).values()}
    now = tables_now(by_number, None)
    plan = breaks.plan_if_all_free(now, t.min_table, t.max_table, t.break_pot)
    size = {n: len(info.alive) for n, info in by_number.items()}
    low = t.min_table
    if plan.broken:
        number = plan.broken[0]
        info = by_number[number]
        names = {r["player_id"]: r["player__name"] for r in info.seats}
        target = {m.player: m.target for m in plan.moves if m.source == number}
        goes = tuple((names.get(p, "?"), target[p]) for p in info.alive if p in target)
        shares = breaks.pot_shares(info.pot, breaks.pot_receivers(info.alive, plan, number))
        if t.break_pot == Tournament.BreakPot.PLAY_OUT and len(info.alive) == 1:
            shares = {}  # the last player there takes it
        wait = "hand" if info.in_progress else "now"
        return [
            BalanceNote(
                "break",
                number,
                size[number],
                low,
                wait=wait,
                goes=goes,
                pot_to=tuple(sorted(shares.items())),
            )
        ]
    for move in plan.moves:
        source = by_number[move.source]
        wait = "hand" if source.in_progress else ("pot" if source.pot > 0 else "next")
        return [
            BalanceNote(
                "move",
                move.source,
                size[move.source],
                low,
                wait=wait,
                pot=source.pot,
                target=move.target,
                target_players=size[move.target],
                count=1,
            )
        ]
    short = sorted((n for n in size if size[n] < low), key=lambda n: (size[n], n))
    for n in short:
        pot = by_number[n].pot
        if t.break_pot == Tournament.BreakPot.PLAY_OUT and pot > 0 and size[n] > 1:
            # T1 play_out: it plays on until its pot is won, then breaks.
            return [BalanceNote("break", n, size[n], low, wait="pot", pot=pot)]
    return [BalanceNote("short", short[0], size[short[0]], low)] if short else []


def deal_refusal(session_id: int) -> BalanceNote | None:
    """Why a freeze-out table must not deal now (RULES.md T1, T2): it is below the
    minimum and balancing has something for it first — it breaks up, or a player joins
    it. None at any other table (and at the last table, which deals down to heads-up)."""
    table = (
        TournamentTable.objects.filter(
            session_id=session_id,
            status=TournamentTable.Status.PLAYING,
            tournament__format=Tournament.Format.FREEZEOUT,
            tournament__status=Tournament.Status.RUNNING,
        )
        .select_related("tournament", "round")
        .first()
    )
    if table is None:
        return None
    t = table.tournament
    tables = list(table.round.tables.filter(status=TournamentTable.Status.PLAYING))
    if len(tables) < 2:
        return None
    by_number = {info.table.number: info for info in table_infos(tables, lock=False).values()}
    stuck = breaks.blocked(tables_now(by_number, None), t.min_table, t.max_table, t.break_pot)
    if table.number not in stuck:
        return None
    # About this table (the dashboard's instruction says the rest: where its players
    # go, or which table's player joins it, and when).
    return BalanceNote(
        "break" if stuck[table.number] == "break" else "move",
        table.number,
        len(by_number[table.number].alive),
        t.min_table,
    )


def open_table(
    t: Tournament, rnd: Round, number: int, players: list[int], chips: dict[int, int], user: User
) -> TournamentTable:
    """Open table ``number`` of the round: a chip-limited session with ``players`` in seat
    order (the first deals first), each with their ``chips``."""
    by_id = Player.objects.in_bulk(players)
    seated = [by_id[p] for p in players]
    # Stored in English (the API and CSV give it as it is); pages show it in the reader's
    # language (GameSession.display_name, which reads it back: keep the two in step).
    words = {"tournament": t.name, "round": rnd.number, "table": number}
    session = postings.start_session(
        club=t.club,
        name=(ROUND_TABLE_NAME if t.is_rounds else TABLE_NAME) % words,
        players=seated,
        dealer=seated[0],
        rules=table_rules(t, rnd, 0),
        currency=CHIPS,
        user=user,
        mode=t.table_mode,
        tournament_chips={p: chips[p] for p in players},
    )
    bots = t.entries.filter(is_bot=True, player_id__in=players).values("player_id")
    # Not money: which seats a bot plays in digital hands.
    Seat.objects.filter(session=session, player_id__in=bots).update(is_bot=True)
    return TournamentTable.objects.create(tournament=t, round=rnd, number=number, session=session)


def seat_number(seat: Seat) -> int:
    """The 1-based seat number players are told: the seat's position, which stays put at
    a tournament table (newcomers take a free seat: ``postings.add_seat(free_seat=True)``),
    from the draw's seat 1 (position 0)."""
    return seat.position + 1


def table_rules(t: Tournament, rnd: Round, hands_played: int) -> dict[str, Any]:
    level = clock.table_level(t, rnd.number, hands_played)
    return {**t.rules, "ante": logic.ante_for(t.antes, level)}
