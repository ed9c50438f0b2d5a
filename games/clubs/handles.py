"""Reading and saving payment handles (games.models.PaymentHandles) for the hand-off.

``for_players`` is what a page that lists transfers calls once (one query) before it
renders ``{% pay_links %}`` for each (games/templatetags/pay.py): a player linked to an
account is paid through the account's handles, a player without one through the handles
the club saved for them. ``pay_note`` is the note the apps prefill: "Bourré — Saturday
5 December", in the reader's language and the club's time zone.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.contrib.auth.models import User
from django.db.models import Q
from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.translation import gettext, pgettext

from games import timezones
from games.clubs.payment_links import Handles
from games.models import PaymentHandles, Player

__all__ = ["for_players", "pay_note", "row_for", "value_of"]


def value_of(row: PaymentHandles | None) -> Handles:
    if row is None:
        return Handles()
    return Handles(row.venmo, row.paypal, row.cashtag, row.revolut, row.other)


def for_players(player_ids: Iterable[object]) -> dict[int, Handles]:
    """Each player's handles (only players with some), in one query. Ids that are not
    players' (the club kitty's key) are ignored."""
    ids = [pid for pid in player_ids if isinstance(pid, int)]
    if not ids:
        return {}
    owners = dict(Player.objects.filter(pk__in=ids).values_list("pk", "user_id"))
    users = {uid for uid in owners.values() if uid is not None}
    unlinked = [pid for pid, uid in owners.items() if uid is None]
    rows = PaymentHandles.objects.filter(Q(user_id__in=users) | Q(player_id__in=unlinked))
    by_user = {r.user_id: r for r in rows if r.user_id is not None}
    by_player = {r.player_id: r for r in rows if r.player_id is not None}
    found: dict[int, Handles] = {}
    for pid, uid in owners.items():
        handles = value_of(by_user.get(uid) if uid is not None else by_player.get(pid))
        if handles:
            found[pid] = handles
    return found


def row_for(*, user: User | None = None, player: Player | None = None) -> PaymentHandles:
    """The owner's row, or a new unsaved one."""
    if user is not None:
        return PaymentHandles.objects.filter(user=user).first() or PaymentHandles(user=user)
    assert player is not None
    return PaymentHandles.objects.filter(player=player).first() or PaymentHandles(player=player)


def pay_note(when: datetime, zone: str | None) -> str:
    """The payment's note: the game's day in the reader's words and the club's zone
    (``zone``: the club's ``time_zone``; empty is the server's)."""
    day = date_format(
        timezone.localtime(when, timezones.zone(zone)),
        # Translators: a date format (Django's date letters) for the day of a game in a
        # payment note, e.g. "Saturday 5 December".
        pgettext("payment note date", "l j F"),
    )
    return gettext("Bourré — %(day)s") % {"day": day}
