"""Tournaments, the Django side (writes): setup, registration, draws, the director's
requests, after-hand progress and bot play. ``tables`` keeps the tournament up with its
tables (eliminations, tables and rounds that end, balancing); ``validation`` checks the
settings (each refusal with its own sentence, games.messages); ``selectors`` reads
(standings, bracket, chip report).

The decisions (draw, balancing, advancement, places, payouts) are pure functions in
``games.engine.tournament``; these modules read the database, call them, and write the
result.

Locking: every write runs in one ``transaction.atomic()`` that starts by locking the
tournament row (``select_for_update``). The director's buttons and ``after_hand`` (which
``ledger.postings`` calls after each hand at a table; see ``games.apps``) change the same
tournament; the lock makes each of them act on what the last
one wrote (the draw, who moved where, who is out) instead of on a stale copy. Chips move
only through ``ledger.postings``, which then locks each table's session row — always after
the tournament row, never before, so two paths never wait on each other crosswise. Before
deciding anything from the tables (who is out, who moves with how many chips, which table
breaks), ``tables.table_infos`` locks the tables' session rows too (in id order), so a hand
being recorded at one of them lands wholly before that read or waits until the decision
is committed, never half-way through it. Money
(buy-ins, fees, prizes) moves only in the tournament's own prize ledger, written by
``ledger.postings.prizes`` with the amounts decided here.

Decisions where the issue left room (each is tested):

- Tables are chip-limited sessions (currency "chips"); the first drawn seat deals first.
- A Bourré pot belongs to the players who built it, so round tables end only between
  hands with an empty pot: a round table plays its set number of hands *and then until
  the pot has been won* (a hand that leaves it empty), and a director's "end the round"
  waits for that too. A freeze-out table gives up a player for balancing only right
  after one of its own hands left its pot empty (RULES.md T2). A freeze-out table below
  the minimum breaks before its next deal (T1, ``break_pot``): by default (``move``)
  whatever its pot holds — the chips go with its players to the tables that receive
  them (``tables._balance``, ``games.engine.tournament_breaks``); ``play_out`` waits for
  its pot to be won. A short table that balancing has something for (it breaks, or a
  player is to join it) is refused its next hand (``deal_check``, called by
  ``record_hand`` and a digital hand's start) with a sentence pointing to the
  dashboard's instruction; the final table deals down to heads-up.
- A player left alone at a table takes its pot: nobody else can play for it. A
  director's "end now" leaves the pot dead: recorded, not awarded. In both cases the
  chips stay in that session's pot account and the session is left open: the ledger's
  close policies would send them to the club's cash carry (and from there into a cash
  game), and paying a pot out to a player needs a ledger function that does not exist.
- A finished table's session is closed (its pot is empty): its last hands can no
  longer be undone there. It is not re-opened (its result already moved the tournament
  on: who advanced or went out, the next draw, places, prizes); the undo says so and
  points to the tournament page (``games.sessions.views._closed_text``).
- A moved player takes their stack (cash-out at one table, buy-in at the other) and sits
  in the new table's lowest free seat (a seat nobody in play holds; the draw's seats are
  1, 2, ...), so the seat numbers players were told stay unique and nobody else moves; the
  deal goes round the seats in number order.
- Withdrawals are possible until the first round starts (the buy-in is refunded); after
  that only for an entry not yet seated (registered late, or waiting): a player is out
  only when their chips are gone.
- Field cap (``max_entries``): registrations beyond it go on the waiting list; a waiting
  entry cannot check in until it moves up. How the list moves (a withdrawal, a bust-out
  during late registration with re-entries off, a raised cap, the start) is
  ``games.tournaments.waiting``; starting keeps waiting entries waiting.
- The draw's seed is made at creation (``seed``, its SHA-256 in ``seed_commitment``) and
  can be replaced (by a fresh random one: nobody chooses it) only while nobody has
  registered; the first draw reveals it. Later rounds and balancing derive from it.
- A freeze-out needs rising levels: by the clock or by hands (default: every 10 hands);
  past the listed antes the ante keeps rising (``games.engine.tournament_levels``).
- A structure preset (``structure_preset``) is a clock: it sets the antes, the minutes
  per level (hands per level to 0) and the breaks; the validation refuses levels by
  minutes and by hands at once, so the two never silently disagree.
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
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.engine import tournament as logic
from games.engine import tournament_levels as levels
from games.engine.record import SESSION_KEYS
from games.engine.tournament import TournamentError
from games.models import (
    Club,
    Entry,
    Hand,
    Player,
    Round,
    Seat,
    Tournament,
    TournamentTable,
)
from games.tournaments import entries as late
from games.tournaments import waiting
from games.tournaments.locks import entry_of, locked
from games.tournaments.tables import (
    deal_refusal,
    finish_table,
    open_table,
    sync_tables,
    table_infos,
)
from games.tournaments.validation import validate
from ledger import postings
from ledger.memos import MemoKind, prize_memo
from ledger.models import PrizePosting

__all__ = [
    "TournamentError",
    "after_hand",
    "autoplay",
    "check_in",
    "create_tournament",
    "draw_next_round",
    "end_round",
    "end_table",
    "register",
    "start",
    "sync",
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
    "break_pot",
    "carry_stacks",
    "payout_percentages",
    "rules",
    "table_mode",
    "level_minutes",
    "break_every",
    "break_minutes",
    "structure_preset",
    "late_until_level",
    "max_reentries",
    "max_rebuys",
    "addon_chips",
    "addon_price",
    "max_entries",
    "payout_preset",
    "payout_unit",
)
# The round-2 numbers a form or an API client may leave out (their defaults: not used).
OPTIONAL_NUMBERS = (
    "level_minutes",
    "break_every",
    "break_minutes",
    "late_until_level",
    "max_entries",
    "max_reentries",
    "max_rebuys",
    "addon_chips",
    "addon_price",
    "payout_unit",
)
FREEZEOUT_HANDS_PER_LEVEL = 10
# Entries that took part in the event (checked in, then drawn).
IN_EVENT = ("playing", "out", "winner")
# The record keys a session supplies itself (ledger.postings); the rest is the table's.


# -- setup ----------------------------------------------------------------------------------


def create_tournament(
    *, club: Club, user: User, idempotency_key: str = "", **settings: Any
) -> Tournament:
    unknown = set(settings) - set(SETTINGS)
    if unknown:
        raise TournamentError(
            f"Unknown settings: {', '.join(sorted(unknown))}.",
            code="unknown",
            message_id="unknown_settings",
            params={"names": ", ".join(sorted(unknown))},
        )
    _apply_preset(settings)
    settings.setdefault("antes", list(DEFAULT_ANTES))
    if settings.get("format") == Tournament.Format.FREEZEOUT and not (
        settings.get("hands_per_level") or settings.get("level_minutes")
    ):
        settings["hands_per_level"] = FREEZEOUT_HANDS_PER_LEVEL
    # Prizes are rounded to one whole unit of the money ($1, not a cent) unless asked.
    settings.setdefault("payout_unit", club.currency.minor)
    t = Tournament(club=club, created_by=postings.actor(user), **club.currency.fields(), **settings)
    t.seed = logic.new_seed()
    t.seed_commitment = logic.commitment(t.seed)
    t.idempotency_key = idempotency_key[:80]
    validate(t)
    t.save()
    return t


def _apply_preset(settings: dict[str, Any]) -> None:
    """A structure preset is what its name says: its antes, its minutes per level (so
    levels go by the clock, hands per level 0) and its breaks."""
    preset = levels.PRESETS.get(settings.get("structure_preset") or "")
    if preset is None:
        return
    settings["antes"] = list(preset.antes)
    settings["level_minutes"] = preset.level_minutes
    settings["hands_per_level"] = 0
    settings["break_every"] = preset.break_every
    settings["break_minutes"] = preset.break_minutes


def create_tournament_once(
    *, club: Club, user: User, idempotency_key: str, **settings: Any
) -> tuple[Tournament, bool]:
    """``create_tournament`` that a retried request does not repeat: (tournament, created)."""
    if idempotency_key:
        found = Tournament.objects.filter(club=club, idempotency_key=idempotency_key).first()
        if found is not None:
            return found, False
    try:
        with transaction.atomic():
            return create_tournament(
                club=club, user=user, idempotency_key=idempotency_key, **settings
            ), True
    except IntegrityError:
        # A concurrent retry with the same key won the race: answer with its tournament.
        return Tournament.objects.get(club=club, idempotency_key=idempotency_key), False


def reseed(*, tournament_id: int, user: User) -> Tournament:
    """A fresh random seed (and commitment), only while nobody has registered."""
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.entries.exists() or t.seed_revealed_at:
            raise TournamentError(
                "The seed is fixed once the first player registers.", code="seed_fixed"
            )
        t.seed = logic.new_seed()
        t.seed_commitment = logic.commitment(t.seed)
        t.bump()
        t.save(update_fields=["seed", "seed_commitment", "version"])
    return t


def update_settings(*, tournament_id: int, user: User, **settings: Any) -> Tournament:
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(
            t,
            Tournament.Status.REGISTRATION,
            "Settings are fixed once it starts.",
            message_id="settings_fixed",
        )
        unknown = set(settings) - set(SETTINGS)
        if unknown:
            raise TournamentError(
                f"Unknown settings: {', '.join(sorted(unknown))}.",
                code="unknown",
                message_id="unknown_settings",
                params={"names": ", ".join(sorted(unknown))},
            )
        _apply_preset(settings)
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
        waiting.promote(t)  # a raised cap seats the waiting list, in order
        t.bump()
        t.save()
    return t


# -- registration ---------------------------------------------------------------------------


def register(*, tournament_id: int, player: Player, user: User, is_bot: bool = False) -> Entry:
    """Enter a player: before the start, or late while late registration is open (the
    entry is seated when it checks in). Beyond the field cap: the waiting list."""
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status != Tournament.Status.REGISTRATION and not late.late_open(t):
            raise TournamentError(
                "Registration closed"
                + (
                    f" after level {t.late_until_level}."
                    if t.late_until_level and not t.is_rounds
                    else " when the first round started."
                ),
                code="status",
                message_id="registration_closed",
                params=(
                    {"level": t.late_until_level} if t.late_until_level and not t.is_rounds else {}
                ),
            )
        if player.club_id != t.club_id:
            raise TournamentError(
                "Only players on the club's roster can enter.",
                "player",
                message_id="enter_roster_only",
            )
        entry = Entry.objects.filter(tournament=t, player=player).first()
        if entry is not None and entry.status == Entry.Status.WAITING:
            # Entering a waiting player again: they keep their place in the line, and
            # move up if a place is free (e.g. late registration after the start).
            waiting.promote(t)
            entry.refresh_from_db()
            t.bump()
            t.save(update_fields=["version"])
            return entry
        if entry is not None and entry.status not in (
            Entry.Status.WITHDRAWN,
            Entry.Status.NO_SHOW,
        ):
            raise TournamentError(
                f"{player.name} is already entered.",
                code="entered",
                params={"player": player.name},
            )
        full = not waiting.has_room(t) or bool(waiting.waiting_entries(t))
        status = Entry.Status.WAITING if full else Entry.Status.REGISTERED
        if entry is None:
            entry = Entry.objects.create(tournament=t, player=player, is_bot=is_bot, status=status)
        else:
            entry.status = status
            entry.is_bot = is_bot
            entry.registered_at = timezone.now()
            entry.withdrawn_at = None
            entry.save(update_fields=["status", "is_bot", "registered_at", "withdrawn_at"])
        t.bump()
        t.save(update_fields=["version"])
    return entry


def check_in(*, tournament_id: int, entry_id: int, user: User) -> Entry:
    """The player is here and has paid: buy-in into the pool, fee out to the house."""
    with transaction.atomic():
        t = _locked(tournament_id)
        running = t.status == Tournament.Status.RUNNING and late.late_open(t)
        if not running:
            _require_status(
                t,
                Tournament.Status.REGISTRATION,
                "Check-in closed at the start.",
                message_id="check_in_closed",
            )
        entry = entry_of(t, entry_id)
        if entry.status in (Entry.Status.CHECKED_IN, Entry.Status.PLAYING):
            return entry  # a double tap
        if entry.status == Entry.Status.WAITING:
            raise TournamentError(
                f"{entry.player.name} is on the waiting list: the field is full "
                f"({t.max_entries}). They can check in when a place frees up.",
                code="waiting",
                params={"player": entry.player.name, "max": t.max_entries},
            )
        if entry.status != Entry.Status.REGISTERED:
            raise TournamentError(
                f"{entry.player.name} is not registered.",
                "not_registered",
                params={"player": entry.player.name},
            )
        entry.status = Entry.Status.CHECKED_IN
        entry.checked_in_at = timezone.now()
        entry.save(update_fields=["status", "checked_in_at"])
        accounts = postings.prize_accounts(t, [entry.player_id])
        paid = t.buy_in + t.fee
        name = entry.player.name
        postings.post_prize(
            t,
            PrizePosting.Kind.BUY_IN,
            {accounts[entry.player_id]: -paid, accounts["pool"]: paid},
            user,
            player=entry.player_id,
            memo=prize_memo(MemoKind.ENTRY, name, buy_in=t.buy_in, fee=t.fee),
        )
        postings.post_prize(
            t,
            PrizePosting.Kind.FEE,
            {accounts["pool"]: -t.fee, accounts["house"]: t.fee},
            user,
            player=entry.player_id,
            memo=prize_memo(MemoKind.FEE, name),
        )
        if running:
            # A late entrant sits down at once.
            entry.status = Entry.Status.PLAYING
            entry.save(update_fields=["status"])
            late.seat_late(t, entry, user)
        t.bump()
        t.save(update_fields=["version"])
    return entry


def withdraw(*, tournament_id: int, entry_id: int, user: User) -> Entry:
    """Withdraw before the start (a paid buy-in and fee are refunded in full), or after
    it an entry not seated yet (registered late, or waiting: nothing paid). The place
    goes to the first on the waiting list (``waiting.promote``)."""
    with transaction.atomic():
        t = _locked(tournament_id)
        entry = entry_of(t, entry_id)
        if entry.status == Entry.Status.WITHDRAWN:
            return entry
        unseated = entry.status in (Entry.Status.REGISTERED, Entry.Status.WAITING)
        if not (t.status == Tournament.Status.RUNNING and unseated):
            _require_status(
                t,
                Tournament.Status.REGISTRATION,
                "After the start nobody withdraws: a player is out when their chips are gone.",
                message_id="withdraw_closed",
            )
        if entry.status == Entry.Status.CHECKED_IN:
            accounts = postings.prize_accounts(t, [entry.player_id])
            postings.post_prize(
                t,
                PrizePosting.Kind.REFUND,
                {
                    accounts["pool"]: -t.buy_in,
                    accounts["house"]: -t.fee,
                    accounts[entry.player_id]: t.buy_in + t.fee,
                },
                user,
                player=entry.player_id,
                memo=prize_memo(MemoKind.REFUND, entry.player.name),
            )
        entry.status = Entry.Status.WITHDRAWN
        entry.withdrawn_at = timezone.now()
        entry.checked_in_at = None
        entry.save(update_fields=["status", "withdrawn_at", "checked_in_at"])
        waiting.promote(t)
        t.bump()
        t.save(update_fields=["version"])
    return entry


# -- starting, rounds -----------------------------------------------------------------------


def start(*, tournament_id: int, user: User) -> Round:
    """Close registration and draw the first round (freeze-out: the only one) from the
    seed made at creation, which is revealed now."""
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(
            t,
            Tournament.Status.REGISTRATION,
            "It has started already.",
            message_id="started_already",
        )
        validate(t)
        entries = list(t.entries.select_related("player"))
        playing = [e for e in entries if e.status == Entry.Status.CHECKED_IN]
        if len(playing) < 2:
            raise TournamentError("At least two checked-in players are needed.", "too_few")
        if t.payout_percentages:
            logic.validate_payout_percentages(t.payout_percentages, len(playing))
        seed = t.seed
        ids = [e.player_id for e in playing]
        # Who registered but did not check in gives their place up; the waiting list
        # keeps waiting (never a silent no-show) and moves up into free places while
        # late registration is open (waiting.promote, below).
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
        rnd.draw["entrants"] = sorted(ids)  # the entry list the draw is made from
        rnd.save(update_fields=["draw"])
        t.status = Tournament.Status.RUNNING
        t.started_at = t.seed_revealed_at = timezone.now()
        t.bump()
        t.save(update_fields=["status", "started_at", "seed_revealed_at", "version"])
        for number, players in enumerate(tables, start=1):
            open_table(t, rnd, number, players, chips, user)
        waiting.promote(t)
    return rnd


def draw_next_round(*, tournament_id: int, user: User) -> Round:
    """Table rounds: draw the next round from those who advanced (with byes if needed)."""
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(
            t,
            Tournament.Status.RUNNING,
            "Only a running tournament has rounds.",
            message_id="rounds_not_running",
        )
        if not t.is_rounds:
            raise TournamentError(
                "A freeze-out has a single round.", code="format", message_id="freezeout_one_round"
            )
        last = t.rounds.order_by("-number").first()
        assert last is not None  # a running tournament has drawn its first round
        if last.status != Round.Status.FINISHED:
            raise TournamentError(
                f"Round {last.number} is still being played.",
                "playing",
                params={"number": last.number},
            )
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
        # Every round is drawn from the committed seed (salted by its number).
        seed = t.seed
        number = last.number + 1
        draw = logic.draw_round(ranked, seed, t.min_table, t.max_table, met=met, round_no=number)
        rnd = _new_round(t, number, seed, ranked, draw.tables, draw.byes, draw.final, chips, met)
        t.bump()
        t.save(update_fields=["version"])
        for n, players in enumerate(draw.tables, start=1):
            open_table(t, rnd, n, players, chips, user)
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


def _new_round(
    t: Tournament,
    number: int,
    seed: str,
    ranked: list[int],
    tables: list[list[int]],
    byes: list[int],
    final: bool,
    chips: dict[int, int],
    met: dict[int, set[int]] | None,
) -> Round:
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


# -- the director's requests ----------------------------------------------------------------


def end_table(
    *, tournament_id: int, table_id: int, user: User, now: bool = False
) -> TournamentTable:
    """Table rounds: end this table's round — once its pot has been won, or ``now`` (the
    pot is then left dead: recorded, not awarded)."""
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(
            t,
            Tournament.Status.RUNNING,
            "The tournament is not running.",
            message_id="not_running",
        )
        if not t.is_rounds:
            raise TournamentError(
                "Freeze-out tables end when they break up.",
                code="format",
                message_id="freezeout_tables_end",
            )
        table = TournamentTable.objects.select_related("round", "session").get(
            pk=table_id, tournament=t
        )
        if table.status != TournamentTable.Status.PLAYING:
            return table
        table.ending = True
        table.save(update_fields=["ending"])
        if now:
            info = table_infos([table])[table.pk]
            finish_table(t, table.round, table, info, user, reason="director")
        sync_tables(t, user)
        t.bump()
        t.save(update_fields=["version"])
        table.refresh_from_db()
    return table


def end_round(*, tournament_id: int, user: User, now: bool = False) -> Round:
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


def sync(*, tournament_id: int, user: User | None = None) -> bool:
    """Bring the tournament up to date with its tables (idempotent); True if it moved."""
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status != Tournament.Status.RUNNING:
            return False
        changed = sync_tables(t, user)
        # A bust-out during late registration (re-entries off) frees a place.
        changed |= bool(waiting.promote(t))
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
        changed = sync_tables(t, None, trigger=session_id)
        if waiting.promote(t) or changed:  # a bust-out may free a place
            t.bump()
            t.save(update_fields=["version"])


def deal_check(session_id: int) -> dict[str, Any] | None:
    """Before a new hand at a tournament table (``postings.on_table_deal``): a freeze-out
    table below the minimum that balancing has something for does not deal (RULES.md T1,
    T2) — it breaks up first, or a player joins it first. The refusal names the table, its
    players and the minimum, and points to the dashboard's instruction (the director's
    "Check the tables" does it between hands)."""
    note = deal_refusal(session_id)
    if note is None:
        return None
    facts = {"table": note.table, "players": note.players, "min": note.min_size}
    if note.kind == "break":
        return {
            "code": "table_must_break",
            "message": (
                f"Table {note.table} has {note.players} players, fewer than the minimum of "
                f"{note.min_size}: it breaks up before it deals again. The tournament "
                "dashboard says where each player goes; the director's “Check the tables” "
                "does it now."
            ),
            **facts,
        }
    return {
        "code": "table_must_wait",
        "message": (
            f"Table {note.table} has {note.players} players, fewer than the minimum of "
            f"{note.min_size}: a player joins it before it deals again. The tournament "
            "dashboard says from which table and when; between hands there, the director's "
            "“Check the tables” does it now."
        ),
        **facts,
    }


# -- digital tables played by bots ----------------------------------------------------------


def autoplay(
    *, tournament_id: int, table_id: int, hands: int, user: User, seed: str | None = None
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


# -- helpers ---------------------------------------------------------------------------------


def _locked(tournament_id: int) -> Tournament:
    return locked(tournament_id)


def _require_status(t: Tournament, status: str, message: str, *, message_id: str) -> None:
    # ``message_id`` is a literal at each call (tests/i18n/raised.py collects it there).
    if t.status != status:
        raise TournamentError(message, code="status", message_id=message_id)
