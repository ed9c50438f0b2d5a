"""The waiting list of a capped field (``max_entries``), and how it moves (issue #35).

Registrations beyond the cap wait, in registration order. A place frees up when

- an entry that holds one withdraws (before the start; after it, an entry that has not
  been seated yet: registered or waiting);
- a player busts out while late registration is open and re-entries are off (they
  cannot come back, so their place goes to the next in line); with re-entries on, a
  busted player keeps their place, as they may buy in again;
- the director raises the cap (before the start, or while late registration is open);
- the first round starts: who registered but did not check in gives their place up.

The first waiting entry then moves up by itself to "registered": the place is theirs,
and the director seats them with one tap (check-in takes the buy-in, then seats them,
``entries.seat_late``). The app moves the list, not the director, so nobody is skipped;
the seating waits for the tap because only the director knows the buy-in was paid.

Starting never turns a waiting entry into a no-show: it keeps waiting, and the start
message says so (and whether late registration can still seat it). Every function here
runs under the caller's tournament lock (``locks.locked``).
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import pgettext

from games.engine.tournament import TournamentError
from games.models import Entry, Tournament
from games.tournaments import entries as late
from games.tournaments.locks import locked

__all__ = ["ordinal", "places_taken", "promote", "set_cap", "waiting_entries"]

# Entries that hold a place under the cap (``out`` only while they may re-enter).
HOLDING = (
    Entry.Status.REGISTERED,
    Entry.Status.CHECKED_IN,
    Entry.Status.PLAYING,
    Entry.Status.OUT,
    Entry.Status.WINNER,
)


def _holding(t: Tournament) -> list[str]:
    statuses = [str(s) for s in HOLDING]
    if t.status == Tournament.Status.RUNNING and not t.max_reentries:
        # A busted player who cannot re-enter gives their place to the next in line.
        statuses.remove(Entry.Status.OUT)
    return statuses


def places_taken(t: Tournament) -> int:
    return t.entries.filter(status__in=_holding(t)).count()


def has_room(t: Tournament) -> bool:
    return not t.max_entries or places_taken(t) < t.max_entries


def waiting_entries(t: Tournament) -> list[Entry]:
    """The waiting list, first in line first."""
    return list(
        t.entries.filter(status=Entry.Status.WAITING)
        .select_related("player")
        .order_by("registered_at", "pk")
    )


def position(t: Tournament, entry: Entry) -> int:
    """1-based place of a waiting entry in the line."""
    return [e.pk for e in waiting_entries(t)].index(entry.pk) + 1


def can_move(t: Tournament) -> bool:
    """Can a waiting entry still get a place? Before the start, or while late
    registration is open."""
    return t.status == Tournament.Status.REGISTRATION or late.late_open(t)


def promote(t: Tournament) -> list[Entry]:
    """Move waiting entries up into the free places, first in line first. Returns them."""
    line = waiting_entries(t)
    if not line or not can_move(t):
        return []
    free = len(line) if not t.max_entries else max(t.max_entries - places_taken(t), 0)
    moved = line[:free]
    for entry in moved:
        entry.status = Entry.Status.REGISTERED
        entry.save(update_fields=["status"])
    return moved


def set_cap(*, tournament_id: int, max_entries: int, user: User) -> list[Entry]:
    """Change the field cap before the start or while late registration is open (0: no
    cap); never below the places already taken. The waiting entries that now fit move
    up, in order; returns them."""
    with transaction.atomic():
        t = locked(tournament_id)
        if not can_move(t):
            raise TournamentError(
                "The field cap can change before the start or while late registration is open.",
                code="cap_fixed",
            )
        if type(max_entries) is not int or max_entries < 0:
            raise TournamentError("The field cap is a whole number (0: no cap).", code="cap_number")
        taken = places_taken(t)
        if max_entries and max_entries < taken:
            raise TournamentError(
                f"{taken} places are taken: the cap cannot go below that.",
                code="cap_below",
                params={"n": taken},
            )
        t.max_entries = max_entries
        moved = promote(t)
        t.bump()
        t.save(update_fields=["max_entries", "version"])
    return moved


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th... in the reader's language (the English suffix picks the
    sentence; other languages write the four alike)."""
    if 10 <= n % 100 <= 20 or n % 10 not in (1, 2, 3):
        text = pgettext("ordinal number", "%(n)sth")
    elif n % 10 == 1:
        text = pgettext("ordinal number", "%(n)sst")
    elif n % 10 == 2:
        text = pgettext("ordinal number", "%(n)snd")
    else:
        text = pgettext("ordinal number", "%(n)srd")
    return text % {"n": n}


def in_line(t: Tournament, entries: list[Entry]) -> str:
    """ "Ben (2nd), Cy (3rd)": waiting entries with their place in the line."""
    order = {e.pk: i for i, e in enumerate(waiting_entries(t), start=1)}
    return ", ".join(
        pgettext("a name and a place on the waiting list", "%(name)s (%(place)s)")
        % {"name": e.player.name, "place": ordinal(order[e.pk])}
        for e in entries
        if e.pk in order
    )
