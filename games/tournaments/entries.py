"""Entries after the start (writes): late registration, re-entries, rebuys and add-ons,
and pasting a roster of names at once.

Choices where the issue left room (each is tested):

- Late registration, re-entries, rebuys and add-ons are open while the tournament's level
  is at most ``late_until_level`` (1-based; 0: closed at the start). Freeze-outs only: in
  table rounds the draw of each round fixes who plays.
- A late entrant or a re-entry starts with the starting chips at the table with the
  fewest players (ties: the lowest number), in its lowest free seat, like a player moved
  by balancing. When every table is full, they open the next table (its seat 1), which
  balancing fills from the other tables between their hands, one player at a time, as
  the dashboard says; it deals once a second player sits there and balancing has nobody
  more for it. A director adds a table when the room is full; refusing the entry would
  leave a paid player standing.
- A re-entry is a busted player buying in again (buy-in to the pool, fee to the house),
  at most ``max_reentries`` times; their finishing place is decided by their last exit.
  A rebuy is a player still in with at most the starting chips buying another starting
  stack at their seat (same price), at most ``max_rebuys`` times. An add-on (once per
  player) buys ``addon_chips`` for ``addon_price``, all of it into the pool.
- Every payment is a posting of the prize ledger (kinds ``reentry``, ``rebuy``,
  ``addon``, ``fee``); the chips come from the table's bank (``postings.buy_in``) and are
  added to the round's ``draw["added"]`` so the chip report still balances.
- A roster is names, one per line (commas also separate); a name not on the club's roster
  is added to it; names already entered are reported, not entered twice.
"""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max

from games.engine.tournament import TournamentError
from games.models import Entry, Player, Round, Seat, SeatMove, Tournament, TournamentTable
from games.tournaments import clock
from games.tournaments.locks import entry_of, locked
from games.tournaments.tables import TableInfo, open_table, seat_number, table_infos
from ledger import postings
from ledger.memos import Memo, MemoKind, prize_memo
from ledger.models import PrizePosting

__all__ = ["addon", "late_open", "rebuy", "reenter", "roster_names", "seat_late"]


def late_open(t: Tournament) -> bool:
    """Late registration (and re-entries, rebuys, add-ons) still open?"""
    if t.status != Tournament.Status.RUNNING or t.is_rounds or t.late_until_level <= 0:
        return False
    return clock.tournament_level(t) + 1 <= t.late_until_level


def _require_late(t: Tournament, what: str, *, message_id: str) -> None:
    """``what`` names the request in English (the logs); ``message_id`` is its "closed"
    sentence, a literal at each call (tests/i18n/raised.py collects it there)."""
    if t.is_rounds:
        raise TournamentError(
            f"{what} is for freeze-outs: each round's draw fixes the field.",
            message_id="late_freezeout_only",
        )
    if not late_open(t):
        raise TournamentError(
            f"{what} closed"
            + (f" after level {t.late_until_level}." if t.late_until_level else " at the start."),
            code="late_closed",
            message_id=message_id,
            params={"level": t.late_until_level} if t.late_until_level else {},
        )


def _current_round(t: Tournament) -> Round:
    rnd = t.rounds.order_by("-number").first()
    assert rnd is not None  # a running tournament has drawn its first round
    return rnd


def _add_chips(rnd: Round, player_id: int, chips: int) -> None:
    added = rnd.draw.setdefault("added", {})
    added[str(player_id)] = added.get(str(player_id), 0) + chips
    rnd.save(update_fields=["draw"])


def seat_late(
    t: Tournament, entry: Entry, user: User, reason: str = SeatMove.Reason.LATE
) -> SeatMove:
    """Seat a late entrant (or a re-entry) with the starting chips. Under the caller's
    tournament lock."""
    rnd = _current_round(t)
    tables = list(rnd.tables.filter(status=TournamentTable.Status.PLAYING))
    infos = table_infos(tables)
    free = [i for i in infos.values() if len(i.alive) < t.max_table]
    if not free:
        return _seat_at_new_table(t, rnd, entry, user, reason)
    target = min(free, key=lambda i: (len(i.alive), i.table.number))
    session_id = target.session.pk
    seat = postings.add_seat(session_id=session_id, player=entry.player, user=user, free_seat=True)
    postings.buy_in(
        session_id=session_id, player_id=entry.player_id, amount=t.starting_chips, user=user
    )
    _add_chips(rnd, entry.player_id, t.starting_chips)
    return SeatMove.objects.create(
        tournament=t,
        player_id=entry.player_id,
        source=entry.out_table,
        target=target.table,
        reason=reason,
        chips=t.starting_chips,
        seed=reason,
        seat=seat_number(seat),
        created_by=postings.actor(user),
    )


def _seat_at_new_table(
    t: Tournament, rnd: Round, entry: Entry, user: User, reason: str
) -> SeatMove:
    """Every table is full: the entrant opens the next table, alone in its first seat.
    Balancing then fills it from the fullest tables between their hands, one player at a
    time (it cannot deal before a second player sits down: ``tournament_breaks.blocked``),
    and it is not broken as short meanwhile: the other tables have no room for its
    players (balancing breaks a short table only into room at the others:
    ``tournament.plan_balance``) until players go out there."""
    number = (rnd.tables.aggregate(n=Max("number"))["n"] or 0) + 1
    if rnd.is_final:
        # A freeze-out drawn at one table is no longer at its final table.
        rnd.is_final = False
        rnd.save(update_fields=["is_final"])
    table = open_table(t, rnd, number, [entry.player_id], {entry.player_id: t.starting_chips}, user)
    _add_chips(rnd, entry.player_id, t.starting_chips)
    return SeatMove.objects.create(
        tournament=t,
        player_id=entry.player_id,
        source=entry.out_table,
        target=table,
        reason=reason,
        chips=t.starting_chips,
        seed=reason,
        seat=1,
        created_by=postings.actor(user),
    )


def _pay(
    t: Tournament, entry: Entry, kind: str, price: int, fee: int, user: User, memo: Memo
) -> None:
    accounts = postings.prize_accounts(t, [entry.player_id])
    postings.post_prize(
        t,
        kind,
        {accounts[entry.player_id]: -(price + fee), accounts["pool"]: price + fee},
        user,
        player=entry.player_id,
        memo=memo,
    )
    postings.post_prize(
        t,
        PrizePosting.Kind.FEE,
        {accounts["pool"]: -fee, accounts["house"]: fee},
        user,
        player=entry.player_id,
        memo=prize_memo(MemoKind.FEE, entry.player.name),
    )


def _within_limit(name: str, used: int, limit: int, what: str, *, message_id: str) -> None:
    # ``message_id`` is also the code; without a limit the sentence says there are none.
    if used >= limit:
        raise TournamentError(
            f"{name} has used all {limit} {what}." if limit else f"This tournament has no {what}.",
            code=message_id,
            message_id=message_id,
            params={"player": name, "limit": limit} if limit else {"player": name},
        )


def reenter(*, tournament_id: int, entry_id: int, user: User) -> SeatMove:
    with transaction.atomic():
        t = locked(tournament_id)
        _require_late(t, "Re-entry", message_id="reentry_closed")
        entry = entry_of(t, entry_id)
        name = entry.player.name
        if entry.status != Entry.Status.OUT:
            raise TournamentError(
                f"{name} is still in: only a busted player re-enters.",
                "in",
                message_id="still_in",
                params={"player": name},
            )
        _within_limit(
            name, entry.reentries, t.max_reentries, "re-entries", message_id="reentry_limit"
        )
        _pay(
            t,
            entry,
            PrizePosting.Kind.REENTRY,
            t.buy_in,
            t.fee,
            user,
            prize_memo(
                MemoKind.REENTRY, name, number=entry.reentries + 1, buy_in=t.buy_in, fee=t.fee
            ),
        )
        entry.status = Entry.Status.PLAYING
        entry.reentries += 1
        move = seat_late(t, entry, user, SeatMove.Reason.REENTRY)
        entry.out_round = entry.out_at = entry.out_chips = entry.out_key = None
        entry.out_table = None
        entry.save()
        t.bump()
        t.save(update_fields=["version"])
    return move


def _seat_of(t: Tournament, entry: Entry) -> tuple[Seat, TableInfo]:
    seat = (
        Seat.objects.filter(
            player_id=entry.player_id,
            active=True,
            session__tournament_table__tournament=t,
            session__tournament_table__status=TournamentTable.Status.PLAYING,
        )
        .select_related("session__tournament_table")
        .first()
    )
    if seat is None:
        raise TournamentError(
            f"{entry.player.name} has no seat in play.",
            code="not_seated",
            message_id="no_seat_in_play",
            params={"player": entry.player.name},
        )
    info = table_infos([seat.session.tournament_table])[seat.session.tournament_table.pk]
    if info.in_progress:
        raise TournamentError("A hand is being played there: buy chips between hands.", "busy")
    return seat, info


def rebuy(*, tournament_id: int, entry_id: int, user: User) -> Entry:
    with transaction.atomic():
        t = locked(tournament_id)
        _require_late(t, "Rebuying", message_id="rebuy_closed")
        entry = entry_of(t, entry_id)
        name = entry.player.name
        if entry.status != Entry.Status.PLAYING:
            raise TournamentError(
                f"{name} is not playing: a busted player re-enters.",
                "out",
                message_id="rebuy_out",
                params={"player": name},
            )
        _within_limit(name, entry.rebuys, t.max_rebuys, "rebuys", message_id="rebuy_limit")
        seat, info = _seat_of(t, entry)
        stack = info.stacks.get(entry.player_id, 0)
        if stack > t.starting_chips:
            raise TournamentError(
                f"{name} has {stack} chips: a rebuy is for {t.starting_chips} or fewer.",
                code="rebuy_stack",
                params={"player": name, "stack": stack, "limit": t.starting_chips},
            )
        _pay(
            t,
            entry,
            PrizePosting.Kind.REBUY,
            t.buy_in,
            t.fee,
            user,
            prize_memo(MemoKind.REBUY, name, number=entry.rebuys + 1, buy_in=t.buy_in, fee=t.fee),
        )
        postings.buy_in(
            session_id=seat.session_id,
            player_id=entry.player_id,
            amount=t.starting_chips,
            user=user,
        )
        _add_chips(_current_round(t), entry.player_id, t.starting_chips)
        entry.rebuys += 1
        entry.save(update_fields=["rebuys"])
        t.bump()
        t.save(update_fields=["version"])
    return entry


def addon(*, tournament_id: int, entry_id: int, user: User) -> Entry:
    with transaction.atomic():
        t = locked(tournament_id)
        if t.addon_chips <= 0:
            raise TournamentError("This tournament has no add-on.", code="no_addon")
        _require_late(t, "The add-on", message_id="addon_closed")
        entry = entry_of(t, entry_id)
        name = entry.player.name
        if entry.status != Entry.Status.PLAYING:
            raise TournamentError(
                f"{name} is not playing.",
                code="out",
                message_id="addon_out",
                params={"player": name},
            )
        if entry.addons:
            raise TournamentError(
                f"{name} has taken the add-on already.",
                code="addon_taken",
                params={"player": name},
            )
        seat, _ = _seat_of(t, entry)
        _pay(
            t,
            entry,
            PrizePosting.Kind.ADDON,
            t.addon_price,
            0,
            user,
            prize_memo(MemoKind.ADDON, name, price=t.addon_price),
        )
        postings.buy_in(
            session_id=seat.session_id, player_id=entry.player_id, amount=t.addon_chips, user=user
        )
        _add_chips(_current_round(t), entry.player_id, t.addon_chips)
        entry.addons = 1
        entry.save(update_fields=["addons"])
        t.bump()
        t.save(update_fields=["version"])
    return entry


_SPLIT = re.compile(r"[\n,;]+")


def roster_names(text: str) -> tuple[list[str], list[str]]:
    """Names from pasted text: one per line (or comma-separated), trimmed, the first of
    any names that differ only in case; and the names left out as repeats (each once, as
    first written), for the page to say "listed more than once, entered once"."""
    out: list[str] = []
    repeats: list[str] = []
    seen: dict[str, str] = {}
    for raw in _SPLIT.split(text or ""):
        name = " ".join(raw.split())[:40]
        if not name:
            continue
        first = seen.get(name.lower())
        if first is None:
            seen[name.lower()] = name
            out.append(name)
        elif first not in repeats:
            repeats.append(first)
    return out, repeats


def roster_players(t: Tournament, names: list[str]) -> list[Any]:
    """The club's players with these names, adding the missing ones to the roster."""
    existing = {p.name.lower(): p for p in Player.objects.filter(club=t.club)}
    out = []
    for name in names:
        player = existing.get(name.lower())
        if player is None:
            player = Player.objects.create(club=t.club, name=name)
            existing[name.lower()] = player
        out.append(player)
    return out
