"""Tournaments, the Django side: setup, registration, draws, tables, balancing, prizes.

The decisions (draw, balancing, advancement, places, payouts) are pure functions in
``games.tournament``; this module reads the database, calls them, and writes the result.

Locking: every write runs in one ``transaction.atomic()`` that starts by locking the
tournament row (``select_for_update``). The director's buttons and the after-hand hook of
every table change the same tournament; the lock makes each of them act on what the last
one wrote (the draw, who moved where, who is out) instead of on a stale copy. Chips move
only through ``ledger.postings``, which then locks each table's session row — always after
the tournament row, never before, so two paths never wait on each other crosswise. Money
(buy-ins, fees, prizes) moves only in the tournament's own prize ledger, written here.

Decisions where the issue left room (each is tested):

- Tables are chip-limited sessions (currency "chips"); the first drawn seat deals first.
- A Bourré pot belongs to the players who built it, so tables end, break up and give up
  players only between hands with an empty pot: a round table plays its set number of
  hands *and then until the pot has been won* (a hand that leaves it empty), and a
  director's "end the round" waits for that too; a freeze-out table breaks, or gives up
  a player for balancing, only right after one of its own hands left its pot empty.
- A player left alone at a table takes its pot: nobody else can play for it. A
  director's "end now" leaves the pot dead: recorded, not awarded. In both cases the
  chips stay in that session's pot account and the session is left open: the ledger's
  close policies would send them to the club's cash carry (and from there into a cash
  game), and paying a pot out to a player needs a ledger function that does not exist.
- A finished table's session is closed (its pot is empty): its last hands can no
  longer be undone there.
- A moved player takes their stack (cash-out at one table, buy-in at the other) and sits
  on the new table's dealer's right, so they deal last there.
- Withdrawals are possible until the first round starts (the buy-in is refunded); after
  that a player is out only when their chips are gone.
- Freeze-out places: a player who goes out finishes above everyone who went out before
  (by the ledger's posting order, which is global); players out on the same hand are
  ordered by their chips at the start of that hand; equal chips share the place.
- Table rounds places: by the round reached; in a round, those who went broke rank below
  those still holding chips at its end, who rank by chips and pots won (and, at the
  final table, the draw); players level in a round of several tables share a place.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Max, Prefetch, Sum
from django.shortcuts import get_object_or_404
from django.utils import timezone

from ledger import postings
from ledger.models import Leg

from .engine import tournament as logic
from .access import membership_for, require_role
from .models import (
    Entry,
    GameSession,
    Hand,
    Membership,
    Player,
    PrizeAccount,
    PrizeLeg,
    PrizePosting,
    Role,
    Round,
    Seat,
    SeatMove,
    Tournament,
    TournamentTable,
)
from .engine.tournament import TournamentError

__all__ = [
    "TournamentError",
    "after_hand",
    "autoplay",
    "bracket",
    "check_in",
    "check_prize_ledger",
    "chip_report",
    "create_tournament",
    "draw_next_round",
    "end_round",
    "end_table",
    "prize_balances",
    "register",
    "standings",
    "start",
    "sync",
    "tournament_for",
    "update_settings",
    "withdraw",
]

DEFAULT_ANTES = [1, 2, 3, 5, 8, 10, 15, 20]
SETTINGS = (
    "name",
    "format",
    "buy_in",
    "fee",
    "starting_chips",
    "antes",
    "hands_per_level",
    "min_table",
    "max_table",
    "hands_per_round",
    "final_hands",
    "advance_per_table",
    "tiebreak",
    "carry_stacks",
    "payout_percentages",
    "rules",
    "table_mode",
)
# Entries that took part in the event (checked in, then drawn).
IN_EVENT = ("playing", "out", "winner")
# The record keys a session supplies itself (ledger.postings); the rest is the table's.
SESSION_KEYS = ("players", "dealer", "carry", "excused", "rules", "forfeits")


# -- access ---------------------------------------------------------------------------------


def tournament_for(
    user, tournament_id: int, role: str = Role.MEMBER
) -> tuple[Tournament, Membership]:
    """games.access style: strangers 404, too low a role 403. The director is the club's
    owner or a scorekeeper (``Role.SCOREKEEPER``); members read."""
    t = get_object_or_404(Tournament.objects.select_related("club"), pk=tournament_id)
    membership = membership_for(user, t.club_id)
    require_role(membership, role)
    return t, membership


# -- setup ----------------------------------------------------------------------------------


def validate(t: Tournament) -> None:
    """Raise TournamentError unless the settings make a playable event."""
    from games.engine import RuleError, Rules

    logic.check_limits(t.min_table, t.max_table)
    if t.format not in Tournament.Format.values:
        raise TournamentError(f"Unknown format {t.format!r}.", code="format")
    if t.table_mode not in GameSession.Mode.values:
        raise TournamentError(f"Unknown table mode {t.table_mode!r}.", code="table_mode")
    if t.tiebreak not in Tournament.Tiebreak.values:
        raise TournamentError(f"Unknown tie-break {t.tiebreak!r}.", code="tiebreak")
    for name in ("buy_in", "fee"):
        value = getattr(t, name)
        if type(value) is not int or value < 0:
            raise TournamentError(f"{name} must be a whole amount ≥ 0.", code=name)
    if type(t.starting_chips) is not int or t.starting_chips <= 0:
        raise TournamentError("Starting chips must be above 0.", code="starting_chips")
    antes = t.antes
    if not isinstance(antes, list) or not antes or any(type(a) is not int or a <= 0 for a in antes):
        raise TournamentError("The ante schedule needs whole antes above 0.", code="antes")
    if any(a > b for a, b in zip(antes, antes[1:], strict=False)):
        raise TournamentError("Antes cannot go down from one level to the next.", code="antes")
    if t.is_rounds:
        if t.hands_per_round < 1:
            raise TournamentError("A round needs at least one hand.", code="hands_per_round")
        if not 1 <= t.advance_per_table < t.min_table:
            raise TournamentError(
                f"Between 1 and {t.min_table - 1} players can advance from a table of at "
                f"least {t.min_table} (fewer than sit there, or the field never shrinks).",
                code="advance_per_table",
            )
    if t.payout_percentages:
        logic.validate_payout_percentages(t.payout_percentages)
    if not isinstance(t.rules, dict):
        raise TournamentError("House rules must be an object.", code="rules")
    try:
        Rules.from_dict({**t.rules, "ante": antes[0]})
    except RuleError as exc:
        raise TournamentError(f"House rules: {exc}", code="rules") from exc


def create_tournament(*, club, user, **settings: Any) -> Tournament:
    unknown = set(settings) - set(SETTINGS)
    if unknown:
        raise TournamentError(f"Unknown settings: {sorted(unknown)}.", code="unknown")
    settings.setdefault("antes", list(DEFAULT_ANTES))
    t = Tournament(club=club, created_by=_user(user), currency=club.currency, **settings)
    validate(t)
    t.save()
    return t


def update_settings(*, tournament_id: int, user, **settings: Any) -> Tournament:
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(t, Tournament.Status.REGISTRATION, "Settings are fixed once it starts.")
        unknown = set(settings) - set(SETTINGS)
        if unknown:
            raise TournamentError(f"Unknown settings: {sorted(unknown)}.", code="unknown")
        money_changed = any(
            k in settings and settings[k] != getattr(t, k) for k in ("buy_in", "fee")
        )
        if money_changed and t.entries.filter(status=Entry.Status.CHECKED_IN).exists():
            raise TournamentError(
                "Players have paid already: the buy-in and fee cannot change now.", "paid"
            )
        for k, v in settings.items():
            setattr(t, k, v)
        validate(t)
        t.bump()
        t.save()
    return t


# -- registration ---------------------------------------------------------------------------


def register(*, tournament_id: int, player: Player, user, is_bot: bool = False) -> Entry:
    """Enter a player (late entries are fine until the first round starts)."""
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(
            t, Tournament.Status.REGISTRATION, "Registration closed when the first round started."
        )
        if player.club_id != t.club_id:
            raise TournamentError("Only players on the club's roster can enter.", "player")
        entry = Entry.objects.filter(tournament=t, player=player).first()
        if entry is not None and entry.status != Entry.Status.WITHDRAWN:
            raise TournamentError(f"{player.name} is already entered.", code="entered")
        if entry is None:
            entry = Entry.objects.create(tournament=t, player=player, is_bot=is_bot)
        else:
            entry.status = Entry.Status.REGISTERED
            entry.is_bot = is_bot
            entry.registered_at = timezone.now()
            entry.withdrawn_at = None
            entry.save(update_fields=["status", "is_bot", "registered_at", "withdrawn_at"])
        t.bump()
        t.save(update_fields=["version"])
    return entry


def check_in(*, tournament_id: int, entry_id: int, user) -> Entry:
    """The player is here and has paid: buy-in into the pool, fee out to the house."""
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(t, Tournament.Status.REGISTRATION, "Check-in closed at the start.")
        entry = _entry(t, entry_id)
        if entry.status == Entry.Status.CHECKED_IN:
            return entry  # a double tap
        if entry.status != Entry.Status.REGISTERED:
            raise TournamentError(f"{entry.player.name} is not registered.", "not_registered")
        entry.status = Entry.Status.CHECKED_IN
        entry.checked_in_at = timezone.now()
        entry.save(update_fields=["status", "checked_in_at"])
        accounts = _prize_accounts(t, [entry.player_id])
        paid = t.buy_in + t.fee
        name = entry.player.name
        _prize_post(
            t,
            PrizePosting.Kind.BUY_IN,
            {accounts[entry.player_id]: -paid, accounts["pool"]: paid},
            user,
            player=entry.player_id,
            memo=f"{name}: buy-in {t.buy_in} + fee {t.fee}",
        )
        _prize_post(
            t,
            PrizePosting.Kind.FEE,
            {accounts["pool"]: -t.fee, accounts["house"]: t.fee},
            user,
            player=entry.player_id,
            memo=f"{name}: fee to the house",
        )
        t.bump()
        t.save(update_fields=["version"])
    return entry


def withdraw(*, tournament_id: int, entry_id: int, user) -> Entry:
    """Withdraw before the start; a paid buy-in and fee are refunded in full."""
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(
            t,
            Tournament.Status.REGISTRATION,
            "After the start nobody withdraws: a player is out when their chips are gone.",
        )
        entry = _entry(t, entry_id)
        if entry.status == Entry.Status.WITHDRAWN:
            return entry
        if entry.status == Entry.Status.CHECKED_IN:
            accounts = _prize_accounts(t, [entry.player_id])
            _prize_post(
                t,
                PrizePosting.Kind.REFUND,
                {
                    accounts["pool"]: -t.buy_in,
                    accounts["house"]: -t.fee,
                    accounts[entry.player_id]: t.buy_in + t.fee,
                },
                user,
                player=entry.player_id,
                memo=f"{entry.player.name} withdrew: buy-in and fee refunded",
            )
        entry.status = Entry.Status.WITHDRAWN
        entry.withdrawn_at = timezone.now()
        entry.checked_in_at = None
        entry.save(update_fields=["status", "withdrawn_at", "checked_in_at"])
        t.bump()
        t.save(update_fields=["version"])
    return entry


# -- starting, rounds -----------------------------------------------------------------------


def start(*, tournament_id: int, user, seed: str | None = None) -> Round:
    """Close registration and draw the first round (freeze-out: the only one)."""
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(t, Tournament.Status.REGISTRATION, "It has started already.")
        validate(t)
        entries = list(t.entries.select_related("player"))
        playing = [e for e in entries if e.status == Entry.Status.CHECKED_IN]
        if len(playing) < 2:
            raise TournamentError("At least two checked-in players are needed.", "too_few")
        if t.payout_percentages:
            logic.validate_payout_percentages(t.payout_percentages, len(playing))
        seed = seed or logic.new_seed()
        ids = [e.player_id for e in playing]
        Entry.objects.filter(tournament=t, status=Entry.Status.REGISTERED).update(
            status=Entry.Status.NO_SHOW
        )
        Entry.objects.filter(tournament=t, status=Entry.Status.CHECKED_IN).update(
            status=Entry.Status.PLAYING
        )
        chips = dict.fromkeys(ids, t.starting_chips)
        if t.is_rounds:
            ranked = logic.seeded_order(ids, seed, 1)
            draw = logic.draw_round(ranked, seed, t.min_table, t.max_table, round_no=1)
            tables, byes, final = draw.tables, draw.byes, draw.final
        else:
            ranked = sorted(ids)
            sizes = logic.table_sizes(len(ids), t.min_table, t.max_table)
            tables = logic.draw_tables(ids, seed, sizes, salt=1)
            byes, final = [], len(tables) == 1
        rnd = _new_round(t, 1, seed, ranked, tables, byes, final, chips, met=None)
        t.status = Tournament.Status.RUNNING
        t.started_at = timezone.now()
        t.bump()
        t.save(update_fields=["status", "started_at", "version"])
        for number, players in enumerate(tables, start=1):
            _open_table(t, rnd, number, players, chips, user)
    return rnd


def draw_next_round(*, tournament_id: int, user, seed: str | None = None) -> Round:
    """Table rounds: draw the next round from those who advanced (with byes if needed)."""
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(t, Tournament.Status.RUNNING, "Only a running tournament has rounds.")
        if not t.is_rounds:
            raise TournamentError("A freeze-out has a single round.", code="format")
        last = t.rounds.order_by("-number").first()
        if last.status != Round.Status.FINISHED:
            raise TournamentError(f"Round {last.number} is still being played.", "playing")
        ranked = list(last.advanced)
        chips = _chips_into_next_round(t, last)
        met: dict[int, set[int]] = defaultdict(set)
        seated = Seat.objects.filter(session__tournament_table__tournament=t).values_list(
            "session_id", "player_id"
        )
        by_session: dict[int, list[int]] = defaultdict(list)
        for session_id, player_id in seated:
            by_session[session_id].append(player_id)
        for players in by_session.values():
            for p in players:
                met[p].update(q for q in players if q != p)
        seed = seed or logic.new_seed()
        number = last.number + 1
        draw = logic.draw_round(ranked, seed, t.min_table, t.max_table, met=met, round_no=number)
        rnd = _new_round(t, number, seed, ranked, draw.tables, draw.byes, draw.final, chips, met)
        t.bump()
        t.save(update_fields=["version"])
        for n, players in enumerate(draw.tables, start=1):
            _open_table(t, rnd, n, players, chips, user)
    return rnd


def _chips_into_next_round(t: Tournament, last: Round) -> dict[int, int]:
    if not t.carry_stacks:
        return dict.fromkeys(last.advanced, t.starting_chips)
    chips: dict[int, int] = {}
    previous = {int(k): v for k, v in (last.draw.get("chips") or {}).items()}
    for p in last.byes:
        chips[p] = previous[p]
    for table in last.tables.all():
        for row in table.result.get("rows", []):
            if row["player"] in last.advanced:
                chips[row["player"]] = row["chips"]
    return chips


def _new_round(t, number, seed, ranked, tables, byes, final, chips, met) -> Round:
    return Round.objects.create(
        tournament=t,
        number=number,
        seed=seed,
        is_final=final,
        byes=list(byes),
        draw={
            "ranked": list(ranked),
            "tables": [list(x) for x in tables],
            "byes": list(byes),
            "chips": {str(p): chips[p] for p in ranked},
            "repeats": logic.repeat_meetings(tables, met or {}),
            "min_table": t.min_table,
            "max_table": t.max_table,
        },
    )


def _table_rules(t: Tournament, rnd: Round, hands_played: int) -> dict[str, Any]:
    level = logic.ante_level(t.hands_per_level, rnd.number, hands_played)
    return {**t.rules, "ante": logic.ante_for(t.antes, level)}


def _open_table(t: Tournament, rnd: Round, number: int, players: list[int], chips, user):
    by_id = Player.objects.in_bulk(players)
    seated = [by_id[p] for p in players]
    label = f"{t.name} · round {rnd.number} · table {number}" if t.is_rounds else ""
    session = postings.start_session(
        club=t.club,
        name=label or f"{t.name} · table {number}",
        players=seated,
        dealer=seated[0],
        rules=_table_rules(t, rnd, 0),
        currency="chips",
        user=user,
        mode=t.table_mode,
        tournament_chips={p: chips[p] for p in players},
    )
    bots = t.entries.filter(is_bot=True, player_id__in=players).values("player_id")
    # Not money: which seats a bot plays in digital hands.
    Seat.objects.filter(session=session, player_id__in=bots).update(is_bot=True)
    return TournamentTable.objects.create(tournament=t, round=rnd, number=number, session=session)


# -- the director's requests ----------------------------------------------------------------


def end_table(*, tournament_id: int, table_id: int, user, now: bool = False) -> TournamentTable:
    """Table rounds: end this table's round — once its pot has been won, or ``now`` (the
    pot is then left dead: recorded, not awarded)."""
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(t, Tournament.Status.RUNNING, "The tournament is not running.")
        if not t.is_rounds:
            raise TournamentError("Freeze-out tables end when they break up.", code="format")
        table = TournamentTable.objects.select_related("round", "session").get(
            pk=table_id, tournament=t
        )
        if table.status != TournamentTable.Status.PLAYING:
            return table
        table.ending = True
        table.save(update_fields=["ending"])
        if now:
            info = _infos([table])[table.pk]
            _finish_table(t, table.round, table, info, user, reason="director")
        _sync(t, user)
        t.bump()
        t.save(update_fields=["version"])
        table.refresh_from_db()
    return table


def end_round(*, tournament_id: int, user, now: bool = False) -> Round:
    """End every table of the current round (see ``end_table``)."""
    with transaction.atomic():
        t = _locked(tournament_id)
        rnd = t.rounds.order_by("-number").first()
        if rnd is None:
            raise TournamentError("No round has started.", code="not_started")
        tables = list(rnd.tables.filter(status=TournamentTable.Status.PLAYING))
        for table in tables:
            end_table(tournament_id=t.pk, table_id=table.pk, user=user, now=now)
        rnd.refresh_from_db()
    return rnd


def sync(*, tournament_id: int, user=None) -> bool:
    """Bring the tournament up to date with its tables (idempotent); True if it moved."""
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status != Tournament.Status.RUNNING:
            return False
        changed = _sync(t, user)
        if changed:
            t.bump()
            t.save(update_fields=["version"])
    return changed


def after_hand(session_id: int) -> None:
    """Called (after commit) for every recorded hand of a chip-limited session."""
    tournament_id = (
        TournamentTable.objects.filter(session_id=session_id)
        .values_list("tournament_id", flat=True)
        .first()
    )
    if tournament_id is None:
        return
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status != Tournament.Status.RUNNING:
            return
        if _sync(t, None, trigger=session_id):
            t.bump()
            t.save(update_fields=["version"])


# -- keeping up with the tables -------------------------------------------------------------


@dataclass
class TableInfo:
    table: TournamentTable
    session: GameSession
    seats: list[dict[str, Any]]  # seat order: player_id, name, active, eliminated_at
    stacks: dict[int, int]
    in_progress: bool = False
    alive: list[int] = field(default_factory=list)

    @property
    def pot(self) -> int:
        return self.session.carry


def _infos(tables: list[TournamentTable]) -> dict[int, TableInfo]:
    """Sessions, seats and stacks of these tables in a constant number of queries."""
    if not tables:
        return {}
    session_ids = [x.session_id for x in tables]
    sessions = GameSession.objects.in_bulk(session_ids)
    seats: dict[int, list[dict[str, Any]]] = defaultdict(list)
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


def stacks_by_session(session_ids: Iterable[int]) -> dict[int, dict[int, int]]:
    """session id → {player id: chips in front of them}, for many sessions in one query:
    the sessions' running totals, the same as ``postings.player_stacks`` (every posting
    of the session, buy-ins and cash-outs included)."""
    rows = GameSession.objects.filter(pk__in=list(session_ids)).order_by()
    return {
        pk: {int(k): v for k, v in stacks.items()}
        for pk, stacks in rows.values_list("pk", "stacks")
    }


def _sync(t: Tournament, user, trigger: int | None = None) -> bool:
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
    infos = _infos(tables)
    seated = {r["player_id"] for info in infos.values() for r in info.seats}
    entries = list(
        t.entries.filter(player_id__in=seated, status__in=[Entry.Status.PLAYING, Entry.Status.OUT])
    )
    playing = {e.player_id: e for e in entries if e.status == Entry.Status.PLAYING}
    out_here = {e.player_id: e for e in entries if e.status == Entry.Status.OUT}
    finished = False
    for table in tables:
        info = infos[table.pk]
        changed |= _record_exits(t, rnd, info, playing, out_here)
        changed |= _update_ante(t, rnd, info, user)
        if _table_done(t, rnd, info, len(tables)):
            _finish_table(t, rnd, table, info, user, reason=_done_reason(t, rnd, info))
            changed = finished = True
    if not t.is_rounds and t.status == Tournament.Status.RUNNING:
        changed |= _balance(t, rnd, infos, user, trigger)
    if (
        t.is_rounds
        and rnd.status != Round.Status.FINISHED
        and (finished or trigger is None)
        and not rnd.tables.filter(status=TournamentTable.Status.PLAYING).exists()
    ):
        _finish_round(t, rnd, user)
        changed = True
    return changed


def _record_exits(t, rnd, info: TableInfo, playing: dict, out_here: dict) -> bool:
    """Entries whose seat here was eliminated go out; a voided elimination comes back."""
    changed = False
    busted = [
        r["player_id"]
        for r in info.seats
        if r["eliminated_at"] is not None and r["player_id"] in playing
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
        entry = out_here.get(r["player_id"])
        if entry and entry.out_table_id == info.table.pk and r["player_id"] in info.alive:
            # The hand that knocked them out was voided: they are back in.
            entry.status = Entry.Status.PLAYING
            entry.out_round = entry.out_at = entry.out_chips = entry.out_key = None
            entry.out_table = None
            entry.save(
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


def _update_ante(t, rnd, info: TableInfo, user) -> bool:
    if t.hands_per_level <= 0 or not info.session.is_open:
        return False
    wanted = _table_rules(t, rnd, info.session.hands_count)["ante"]
    if info.session.rules.get("ante") == wanted:
        return False
    session = postings.change_rules(
        session_id=info.session.pk, rules={**info.session.rules, "ante": wanted}, user=user
    )
    info.session = session
    return True


def _hand_limit(t: Tournament, rnd: Round) -> int:
    return t.final_hands if rnd.is_final else t.hands_per_round


def _table_done(t, rnd, info: TableInfo, playing_tables: int) -> bool:
    if info.in_progress:
        return False
    if not t.is_rounds:
        # Freeze-out tables break (see _balance); the last one ends with one player left.
        return playing_tables == 1 and len(info.alive) <= 1
    if len(info.alive) <= 1:
        return True
    limit = _hand_limit(t, rnd)
    reached = (limit and info.session.hands_count >= limit) or info.table.ending
    return bool(reached) and info.pot == 0


def _done_reason(t, rnd, info: TableInfo) -> str:
    if len(info.alive) <= 1:
        return "last_player"
    if info.table.ending:
        return "director"
    return "hands"


def _pots_won(session: GameSession, seats: list[dict[str, Any]]) -> dict[int, int]:
    id_of = {r["player__name"]: r["player_id"] for r in seats}
    won: dict[int, int] = defaultdict(int)
    for winner in Hand.objects.filter(session=session, status=Hand.Status.RECORDED).values_list(
        "verdict__result__winner", flat=True
    ):
        if winner in id_of:
            won[id_of[winner]] += 1
    return won


def _finish_table(t, rnd, table: TournamentTable, info: TableInfo, user, reason: str) -> None:
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
            memo="Alone at the table",
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
            entry.out_key = [rnd.number, 1, 0, row.chips, pots, draw]
            entry.save(
                update_fields=["status", "out_round", "out_at", "out_chips", "out_table", "out_key"]
            )
    if not t.is_rounds:
        _finish_tournament(t, user)


def _winner_key(t, rnd, row) -> list[int]:
    if t.is_rounds:
        return [rnd.number, 2, 0, row.chips, 0, 0]
    return [1, 0, row.chips]


def _finish_round(t: Tournament, rnd: Round, user) -> None:
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


def _finish_tournament(t: Tournament, user) -> None:
    """Places for everyone, prizes out of the pool, every table closed."""
    entries = list(
        t.entries.filter(
            status__in=[Entry.Status.PLAYING, Entry.Status.OUT, Entry.Status.WINNER]
        ).select_related("player")
    )
    seed = t.rounds.order_by("number").values_list("seed", flat=True).first() or ""
    # Players who share a place are listed in a seeded order: it decides who gets the
    # odd unit when their shared prize does not divide evenly.
    order = {p: i for i, p in enumerate(logic.seeded_order([e.player_id for e in entries], seed))}
    entries.sort(key=lambda e: order[e.player_id])
    keys = [(e.player_id, tuple(e.out_key or ())) for e in entries]
    places = logic.finishing_places(keys)
    percentages = t.payout_percentages or logic.default_payout_percentages(len(entries))
    if len(percentages) > len(entries):
        percentages = logic.default_payout_percentages(len(entries))
    balances = prize_balances(t)
    prizes = logic.prizes_by_place(balances["pool"], percentages, places)
    accounts = _prize_accounts(t, list(prizes))
    by_player = {e.player_id: e for e in entries}
    for place, player_id in places:
        entry = by_player[player_id]
        entry.place = place
        entry.prize = prizes.get(player_id, 0)
        if entry.status == Entry.Status.PLAYING:
            entry.status = Entry.Status.WINNER if place == 1 else Entry.Status.OUT
        entry.save(update_fields=["place", "prize", "status"])
        if entry.prize:
            _prize_post(
                t,
                PrizePosting.Kind.PRIZE,
                {accounts["pool"]: -entry.prize, accounts[player_id]: entry.prize},
                user,
                player=player_id,
                memo=f"{entry.player.name}: prize for place {place}",
            )
    for table in t.tables.select_related("session"):
        session = table.session
        if session.is_open:
            postings.close_session(session_id=session.pk, user=user)
    t.status = Tournament.Status.FINISHED
    t.finished_at = timezone.now()
    t.save(update_fields=["status", "finished_at"])


# -- freeze-out balancing -------------------------------------------------------------------


def _balance(t: Tournament, rnd: Round, infos: dict[int, TableInfo], user, trigger) -> bool:
    by_number = {
        info.table.number: info
        for info in infos.values()
        if info.table.status == TournamentTable.Status.PLAYING
    }
    if len(by_number) < 2:
        return False
    held = set()
    for number, info in by_number.items():
        if len(info.alive) <= 1:
            continue  # nothing can be played there: it may always break
        if info.in_progress or info.pot > 0:
            held.add(number)
        elif trigger is not None and info.session.pk != trigger:
            held.add(number)  # it may be in the middle of a hand: wait for its next one
    plan = logic.plan_balance(
        {n: info.alive for n, info in by_number.items()},
        t.min_table,
        t.max_table,
        logic.rng_for(rnd.seed, "balance", rnd.balance_steps + 1),
        held=held,
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
        if move.source in broken and source.pot and len(source.alive) == 1:
            # Alone at the table: its pot is theirs, in the table's ledger too.
            postings.award_pot(
                session_id=source.session.pk,
                player_id=move.player,
                user=user,
                memo="Alone at a broken table",
            )
            chips += source.pot
            source.table.result = {"pot": source.pot, "pot_awarded": True}
        if chips > 0:
            postings.cash_out(
                session_id=source.session.pk, player_id=move.player, amount=chips, user=user
            )
        if move.source not in broken:
            postings.set_seat_active(
                session_id=source.session.pk, player_id=move.player, active=False, user=user
            )
        postings.add_seat(
            session_id=target.session.pk,
            player=players[move.player],
            user=user,
            position=_dealers_seat(target.session.pk),
        )
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
            created_by=_user(user),
        )
    for number in plan.broken:
        info = by_number[number]
        table = info.table
        pot = GameSession.objects.get(pk=info.session.pk).carry
        postings.close_session(session_id=info.session.pk, user=user)
        table.status = TournamentTable.Status.BROKEN
        table.finished_at = timezone.now()
        table.result = {
            "reason": "broken",
            "hands": info.session.hands_count,
            "pot": pot,
            "pot_awarded": bool(table.result.get("pot_awarded")),
            "moved": [m.player for m in plan.moves if m.source == number],
        }
        table.save(update_fields=["status", "finished_at", "result"])
    return True


def _dealers_seat(session_id: int) -> int | None:
    """The position of the next dealer: a newcomer seated there sits on their right."""
    session = GameSession.objects.get(pk=session_id)
    return (
        Seat.objects.filter(session=session, player_id=session.next_dealer_id)
        .values_list("position", flat=True)
        .first()
    )


# -- digital tables played by bots ----------------------------------------------------------


def autoplay(
    *, tournament_id: int, table_id: int, hands: int, user, seed: str | None = None
) -> int:
    """Let the engine's bots play up to ``hands`` hands at one table (every seat), each
    recorded through ``postings.record_hand`` like a digital hand. Returns how many."""
    from games.engine import HandState, HeuristicBot

    seed = seed or logic.new_seed()
    played = 0
    for _ in range(hands):
        table = TournamentTable.objects.select_related("session").get(
            pk=table_id, tournament_id=tournament_id
        )
        session = table.session
        if table.status != TournamentTable.Status.PLAYING or not session.is_open:
            break
        state = postings.session_state(session)
        if len(state["players"]) < 2:
            break
        hand_seed = f"{seed}:{session.pk}:{session.version}"
        rng = random.Random(hand_seed)
        hand = HandState.new(
            state["players"],
            state["dealer"],
            state["rules"],
            rng,
            carry=state["carry"],
            excused=state["excused"],
        )
        bot = HeuristicBot(random.Random(hand_seed + ":bot"))
        while hand.outcome() is None:
            actor = hand.to_act or hand.awaiting[0]
            hand.apply(bot.act(hand.view_for(actor)))
        entry = {k: v for k, v in hand.to_record().items() if k not in SESSION_KEYS}
        postings.record_hand(
            session_id=session.pk,
            entry=entry,
            idempotency_key=f"auto-{hand_seed}"[:80],
            expected_version=state["version"],
            user=user,
            kind=Hand.Kind.DIGITAL,
            seed=hand_seed,
            actions=list(hand.actions),
        )
        played += 1
        sync(tournament_id=tournament_id, user=user)
    return played


# -- reading --------------------------------------------------------------------------------


def standings(t: Tournament) -> list[dict[str, Any]]:
    """Everyone in the event, best first: final places once finished; while running,
    those still in (by chips) and then the others by when they went out."""
    entries = list(
        t.entries.filter(
            status__in=[Entry.Status.PLAYING, Entry.Status.OUT, Entry.Status.WINNER]
        ).select_related("player", "out_table__round")
    )
    live = _live_chips(t)
    if t.status == Tournament.Status.FINISHED:
        entries.sort(key=lambda e: (e.place or 0, e.player.name.lower()))
        places = [e.place for e in entries]
    else:
        still = [e for e in entries if e.status != Entry.Status.OUT]
        out = [e for e in entries if e.status == Entry.Status.OUT]
        still.sort(key=lambda e: (-live.get(e.player_id, 0), e.player.name.lower()))
        ranked = logic.finishing_places([(e.player_id, tuple(e.out_key)) for e in out])
        by_id = {e.player_id: e for e in out}
        out = [by_id[p] for _, p in ranked]
        places = [None] * len(still) + [len(still) + place for place, _ in ranked]
        entries = still + out
    rows = []
    for entry, place in zip(entries, places, strict=True):
        table = entry.out_table
        rows.append(
            {
                "place": place,
                "player": {"id": entry.player_id, "name": entry.player.name},
                "status": entry.status,
                "chips": live.get(entry.player_id, entry.out_chips or 0)
                if entry.status != Entry.Status.OUT
                else entry.out_chips,
                "out_round": entry.out_round,
                "out_table": table.number if table else None,
                "out_at": entry.out_at,
                "prize": entry.prize,
            }
        )
    return rows


def _live_chips(t: Tournament) -> dict[int, int]:
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
    finished tables, pots left dead (not awarded) and the byes' chips. Chips are conserved
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
                now += x.result.get("pot", 0)
            advanced = set(x.result.get("advanced", []))
            advancing += sum(row["chips"] for row in rows if row["player"] in advanced)
        report.append(
            {"round": rnd.number, "start": sum(chips.values()), "now": now, "advancing": advancing}
        )
    return report


def prize_balances(t: Tournament) -> dict[str, Any]:
    """{"pool", "house", "entrants": {player id: balance}} from the prize ledger, one query."""
    out: dict[str, Any] = {"pool": 0, "house": 0, "entrants": {}}
    rows = (
        PrizeLeg.objects.filter(account__tournament=t)
        .order_by()
        .values_list("account__kind", "account__player_id")
        .annotate(total=Sum("amount"))
    )
    for kind, player_id, total in rows:
        if kind == PrizeAccount.Kind.ENTRANT:
            out["entrants"][player_id] = total
        else:
            out[kind] = total
    return out


def prize_postings(t: Tournament):
    """The prize ledger, oldest first, legs prefetched (two queries)."""
    legs = PrizeLeg.objects.select_related("account").order_by("id")
    return (
        PrizePosting.objects.filter(tournament=t)
        .order_by("id")
        .prefetch_related(Prefetch("legs", queryset=legs))
    )


def check_prize_ledger(t: Tournament) -> None:
    """Raise AssertionError unless the prize ledger balances: every posting's legs sum
    to zero, all balances sum to zero, the pool is never negative and is empty once the
    prizes are paid."""
    from django.db.models import Count

    bad = list(
        PrizePosting.objects.filter(tournament=t)
        .annotate(total=Sum("legs__amount"), n=Count("legs"))
        .exclude(total=0, n__gte=2)
        .values_list("pk", "total", "n")
    )
    if bad:
        raise AssertionError(f"unbalanced prize postings: {bad}")
    balances = prize_balances(t)
    total = balances["pool"] + balances["house"] + sum(balances["entrants"].values())
    if total != 0:
        raise AssertionError(f"prize ledger sums to {total}")
    if balances["pool"] < 0:
        raise AssertionError(f"the pool is negative: {balances['pool']}")
    if t.status == Tournament.Status.FINISHED and balances["pool"] != 0:
        raise AssertionError(f"{balances['pool']} left in the pool after the prizes")


def bracket(t: Tournament) -> dict[str, Any]:
    """Everything the bracket page shows, in a constant number of queries whatever the
    number of entrants: rounds, tables, then one query each for seats and live stacks."""
    rounds = list(t.rounds.order_by("number"))
    tables = list(t.tables.select_related("session").order_by("round_id", "number"))
    names = dict(t.entries.values_list("player_id", "player__name"))
    seats: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in (
        Seat.objects.filter(session__tournament_table__tournament=t)
        .order_by("session_id", "position", "id")
        .values("session_id", "player_id", "active", "eliminated_at")
    ):
        seats[row["session_id"]].append(row)
    live_ids = [x.session_id for x in tables if x.status == TournamentTable.Status.PLAYING]
    stacks = stacks_by_session(live_ids)
    by_round: dict[int, list[TournamentTable]] = defaultdict(list)
    for x in tables:
        by_round[x.round_id].append(x)
    out_rounds = []
    for rnd in rounds:
        boxes = []
        for x in by_round[rnd.pk]:
            advanced = set(x.result.get("advanced", []))
            limit = _hand_limit(t, rnd) if t.is_rounds else 0
            if x.status == TournamentTable.Status.PLAYING:
                st = stacks.get(x.session_id, {})
                players = [
                    {
                        "id": r["player_id"],
                        "name": names.get(r["player_id"], "?"),
                        "chips": st.get(r["player_id"], 0),
                        "out": r["eliminated_at"] is not None,
                        "moved": not r["active"] and r["eliminated_at"] is None,
                        "advanced": False,
                    }
                    for r in seats[x.session_id]
                ]
                players = [p for p in players if not p["moved"]]
            else:
                players = [
                    {
                        "id": row["player"],
                        "name": names.get(row["player"], "?"),
                        "chips": row["chips"],
                        "out": row["player"] not in advanced,
                        "moved": False,
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
                "status": rnd.status,
                "is_final": rnd.is_final,
                "tables": boxes,
                "byes": [{"id": p, "name": names.get(p, "?")} for p in rnd.byes],
                "advanced": len(rnd.advanced),
            }
        )
    return {"rounds": out_rounds}


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
        return [f"{n} checked in; start when everyone is here (at least 2)."]
    if t.status == Tournament.Status.FINISHED:
        return []
    rnd = data["rounds"][-1]
    if rnd["status"] == Round.Status.FINISHED:
        return [f"Round {rnd['number']} is over: draw round {rnd['number'] + 1}."]
    out = []
    for box in rnd["tables"]:
        if box["status"] != TournamentTable.Status.PLAYING:
            continue
        alive = sum(1 for p in box["players"] if not p["out"] and p["chips"])
        label = f"Table {box['number']}"
        if box["limit"]:
            if box["hands"] >= box["limit"] or box["ending"]:
                out.append(
                    f"{label}: {box['pot']} chips in the pot must be won before it ends."
                    if box["pot"]
                    else f"{label}: ready to end."
                )
            else:
                out.append(f"{label}: hand {box['hands'] + 1} of {box['limit']}.")
        else:
            out.append(f"{label}: {alive} players, {box['hands']} hands played.")
    return out


# -- helpers ---------------------------------------------------------------------------------


def _user(user):
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return user


def _locked(tournament_id: int) -> Tournament:
    # The row lock serialises every change to one tournament (see the module docstring).
    # Only this row (of=self): locking the joined club row too would block every insert
    # that references the club (a hand's postings at another table) until we commit,
    # while we may be waiting for that table's session lock — a deadlock. NO KEY UPDATE,
    # because the key never changes and inserts that reference the row may go on.
    return (
        Tournament.objects.select_for_update(no_key=True, of=("self",))
        .select_related("club")
        .get(pk=tournament_id)
    )


def _require_status(t: Tournament, status: str, message: str) -> None:
    if t.status != status:
        raise TournamentError(message, code="status")


def _entry(t: Tournament, entry_id: int) -> Entry:
    entry = Entry.objects.select_related("player").filter(pk=entry_id, tournament=t).first()
    if entry is None:
        raise TournamentError("No such entry in this tournament.", code="not_found")
    return entry


def _prize_accounts(t: Tournament, player_ids: Iterable[int]) -> dict[Any, int]:
    """{"pool": id, "house": id, player id: id, …}, creating what is missing."""
    ids = set(player_ids)
    PrizeAccount.objects.bulk_create(
        [PrizeAccount(tournament=t, kind=k) for k in ("pool", "house")]
        + [PrizeAccount(tournament=t, kind="entrant", player_id=p) for p in ids],
        ignore_conflicts=True,
    )
    out: dict[Any, int] = {}
    for pk, kind, player_id in PrizeAccount.objects.filter(tournament=t).values_list(
        "pk", "kind", "player_id"
    ):
        if kind == PrizeAccount.Kind.ENTRANT:
            if player_id in ids:
                out[player_id] = pk
        else:
            out[kind] = pk
    return out


def _prize_post(
    t: Tournament, kind: str, legs: dict[int, int], user, player=None, memo=""
) -> PrizePosting | None:
    legs = {a: x for a, x in legs.items() if x}
    if sum(legs.values()) != 0:
        raise AssertionError(f"unbalanced prize posting {kind}: {legs}")
    if not legs:
        return None  # a free event moves no money
    posting = PrizePosting.objects.create(
        tournament=t, kind=kind, player_id=player, memo=memo[:200], created_by=_user(user)
    )
    PrizeLeg.objects.bulk_create(
        [PrizeLeg(posting=posting, account_id=a, amount=x) for a, x in legs.items()]
    )
    return posting
