"""Money in plain words, read from the ledger: one player's statement for a session (every
ante, win, bourré and penalty with a running net) and how one hand moved each player's
net, with the standings after it. Nothing here writes.

Both read the legs themselves, not the hand records, so they say what the books say: a
hand that was undone shows its postings and then, later, the reversal that gave them back;
a corrected hand shows its old result, later that result taken back and the new one. The
hand's own page shows its last version, with the nets after it as the books stand now.
The ledger hands back the legs of a hand it has just recorded
(``ledger.postings.record_hand_with_legs``), so the result screen after recording reads
none back.

The words (``WORDS``, the line headings) are in the reader's language: lazy texts,
made strings when a line is built, so the page's active language is the one used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Max, Q, Sum
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.models import GameSession, Hand, Seat
from ledger.books import BANK_KINDS
from ledger.models import Account, Leg, Posting

StrOrPromise = str | Promise

# What a posting kind means for the player whose leg it is, in the table's words.
WORDS: dict[str, StrOrPromise] = {
    Posting.Kind.ANTE: gettext_lazy("ante"),
    Posting.Kind.PAYOUT: gettext_lazy("won the pot"),
    Posting.Kind.SPLIT: gettext_lazy("share of a split pot"),
    Posting.Kind.PENALTY: gettext_lazy("penalty into the next pot"),
    Posting.Kind.LEFTOVER: gettext_lazy("share of the leftover pot"),
    Posting.Kind.BUY_IN: gettext_lazy("bought chips (not a win or loss)"),
    Posting.Kind.CASH_OUT: gettext_lazy("cashed chips out (not a win or loss)"),
    Posting.Kind.CARRY_IN: gettext_lazy("pot carried in from the club"),
    Posting.Kind.CARRY_OUT: gettext_lazy("pot carried to the club"),
}


# The heading of a statement line that belongs to no hand.
_OTHER: dict[str, StrOrPromise] = {
    Posting.Kind.BUY_IN: gettext_lazy("Chips"),
    Posting.Kind.CASH_OUT: gettext_lazy("Chips"),
    Posting.Kind.LEFTOVER: gettext_lazy("At the close"),
    Posting.Kind.CARRY_IN: gettext_lazy("At the start"),
    Posting.Kind.CARRY_OUT: gettext_lazy("At the close"),
}


@dataclass
class Line:
    """One step of a statement: a hand (or another event) and what it did to the net."""

    label: str
    parts: list[tuple[str, int]] = field(default_factory=list)
    delta: int = 0
    net: int = 0
    undone: bool = False


def _penalty_words(verdict: dict[str, Any], name: str) -> str:
    result = verdict.get("result") or {}
    bourred = name in (result.get("bourre") or [])
    reneged = any(r.get("player") == name for r in verdict.get("reneges") or [])
    if bourred and reneged:
        return _("bourré and renege penalty")
    if bourred:
        return _("bourré")
    if reneged:
        return _("renege penalty")
    return str(WORDS[Posting.Kind.PENALTY])


def _verdict_at(
    verdict: dict[str, Any], corrections: list[dict[str, Any]], reversed_at: datetime | None
) -> dict:
    """The verdict a posting was made under: the hand's own, unless a correction reversed
    the posting (``reversed_at``, when its reversal was written), then the one that
    correction replaced (kept in ``Hand.corrections``, written just after the reversal)."""
    if reversed_at is not None:
        for old in corrections:
            if datetime.fromisoformat(old["at"]) >= reversed_at:
                return old.get("verdict") or {}
    return verdict or {}


# radon D: one piece, as it is one pass over the legs whose running net, current group
# and hands reversed so far each line's label and amounts depend on.
def statement(session: GameSession, player_id: int, name: str) -> list[Line]:
    """Every posting of ``player_id``'s account in this session, grouped by hand, in the
    order they were written, each group with the net after it. One query, plus one for
    hands with a penalty (to tell a bourré from a renege) and one for reversed hands (to
    tell a correction from an undo)."""
    rows = list(
        Leg.objects.filter(
            posting__session=session,
            account__kind=Account.Kind.PLAYER,
            account__player_id=player_id,
        )
        .order_by("posting_id", "id")
        .values_list(
            "posting__kind",
            "posting__reverses__kind",
            "posting__hand_id",
            "posting__hand__number",
            "amount",
            "posting_id",
            "posting__created_at",
            "posting__reversed_by__created_at",
        )
    )
    penalised = {
        hand_id
        for kind, reversed_kind, hand_id, *_rest in rows
        if Posting.Kind.PENALTY in (kind, reversed_kind)
    }
    # A correction reverses a hand's postings and posts its new result on the same hand;
    # an undo only reverses. So a reversal that new postings of its hand follow is a
    # correction's: any player's postings, since the new result may leave this player
    # out of the hand's money altogether (one more query, only when a hand was reversed).
    reversed_ids = {
        hand_id
        for kind, _reversed, hand_id, *_rest in rows
        if kind == Posting.Kind.REVERSAL and hand_id is not None
    }
    last_posted: dict[int, int] = {}
    if reversed_ids:
        last_posted = dict(
            Posting.objects.filter(session=session, hand_id__in=reversed_ids)
            .exclude(kind=Posting.Kind.REVERSAL)
            .values("hand_id")
            .annotate(last=Max("id"))
            .values_list("hand_id", "last")
        )
    reversed_hands: set[int] = set()
    verdicts = {
        pk: (verdict, corrections)
        for pk, verdict, corrections in Hand.objects.filter(pk__in=penalised).values_list(
            "pk", "verdict", "corrections"
        )
    }
    lines: list[Line] = []
    net = 0
    group: tuple[Any, bool] | None = None
    for kind, reversed_kind, hand_id, number, amount, posting_id, at, reversed_at in rows:
        undone = kind == Posting.Kind.REVERSAL
        key = (hand_id if hand_id is not None else f"{kind}", undone)
        if group != key or not lines:
            group = key
            label = (
                _("Hand %(number)s") % {"number": number}
                if number is not None
                else str(_OTHER.get(kind, _("Session")))
            )
            if undone and posting_id < last_posted.get(hand_id, 0):
                label = _("%(label)s corrected: the old result taken back") % {"label": label}
            elif undone:
                label = _("%(label)s undone") % {"label": label}
            elif hand_id in reversed_hands:
                label = _("%(label)s corrected: the new result") % {"label": label}
            lines.append(Line(label=label, undone=undone))
        if undone and hand_id is not None:
            reversed_hands.add(hand_id)
        line = lines[-1]
        original = reversed_kind if undone else kind
        words = str(WORDS.get(original, original))
        if original == Posting.Kind.PENALTY:
            verdict = _verdict_at(*verdicts.get(hand_id, ({}, [])), at if undone else reversed_at)
            words = _penalty_words(verdict, name)
        if undone:
            said = _("%(words)s, given back") if amount > 0 else _("%(words)s, taken back")
            words = said % {"words": words}
        line.parts.append((words, amount))
        if kind not in BANK_KINDS:
            line.delta += amount
            net += amount
        line.net = net
    return lines


def _names(session: GameSession, hand: Hand) -> dict[int, str]:
    """player id → name of the players the hand was dealt with (no query when the hand
    kept its seats), then everybody else seated."""
    seats = (hand.before or {}).get("seats") or {}
    names = {pid: name for name, pid in seats.items()}
    if not names:
        names = dict(Seat.objects.filter(session=session).values_list("player_id", "player__name"))
    return names


def hand_legs(hand: Hand) -> list[tuple[int, str, int, int]]:
    """The players' legs of the hand's last version: (player id, posting kind, amount,
    posting id) in posting order.

    A correction reverses a hand's postings and posts the new result on the same hand;
    an undo only reverses them. So the last version is whatever was posted after the
    hand's last reversal that new postings followed: for a recorded hand its live
    postings, for an undone hand what it stood at when it was undone."""
    rows = list(
        Leg.objects.filter(posting__hand=hand, account__kind=Account.Kind.PLAYER)
        .order_by("posting_id", "id")
        .values_list("account__player_id", "posting__kind", "amount", "posting_id")
    )
    version: list[tuple[int, str, int, int]] = []
    reversed_since = False
    for row in rows:
        if row[1] == Posting.Kind.REVERSAL:
            reversed_since = True
            continue
        if reversed_since:  # a correction's new result: the old version is gone
            version, reversed_since = [], False
        version.append(row)
    return version


def _nets_after(
    session: GameSession, hand: Hand, legs: list[tuple[int, str, int, int]]
) -> dict[int, int]:
    """player id → net after ``hand`` as the books stand now.

    A recorded hand: every hand numbered up to it (an undone or corrected hand's
    reversals cancel what they reverse, so all legs can be summed), plus what was posted
    outside hands before it (a pot carried in); a later correction of an earlier hand
    moves these nets as it moves the books. An undone hand is not in the books: the
    nets when it was undone (everything posted up to its last version)."""
    ids = [posting_id for *_, posting_id in legs]
    player_legs = Leg.objects.filter(
        posting__session=session, account__kind=Account.Kind.PLAYER
    ).exclude(posting__kind__in=BANK_KINDS)
    if hand.status == Hand.Status.RECORDED and ids:
        player_legs = player_legs.filter(
            Q(posting__hand__number__lte=hand.number)
            | Q(posting__hand__isnull=True, posting_id__lt=min(ids))
        )
    else:
        last = max(ids, default=None)
        if last is None:
            last = (
                Posting.objects.filter(session=session, hand__number__lte=hand.number)
                .exclude(hand=hand)
                .aggregate(m=Max("id"))["m"]
            )
        player_legs = player_legs.filter(posting_id__lte=last or 0)
    return dict(
        player_legs.values("account__player_id")
        .annotate(total=Sum("amount"))
        .values_list("account__player_id", "total")
    )


def hand_deltas(
    session: GameSession,
    hand: Hand,
    latest: bool,
    legs: list[tuple[int, str, int, int]] | None = None,
) -> list[dict[str, Any]]:
    """Each player's change for this hand (+6, −1 ante, −6 bourré) and their net after
    it, in seat order. ``latest``: the hand is the latest of an open session, so the nets
    after it are the session row's running totals (no sum needed). ``legs``: the players'
    legs the ledger has just written for it (``record_hand_with_legs``), else read."""
    if hand.status == Hand.Status.IN_PROGRESS:
        return []
    # A hand the ledger has just recorded brings its legs: no query (on PostgreSQL with
    # statistics behind a fast-growing ledger this join was planned as a scan of every
    # leg, the record POST's one cost that grew with the books).
    if legs is None:
        legs = hand_legs(hand)
    names = _names(session, hand)
    after = session.net_by_player() if latest else _nets_after(session, hand, legs)
    parts: dict[int, list[tuple[str, int]]] = {}
    for player_id, kind, amount, _posting in legs:
        words = str(WORDS.get(kind, kind))
        if kind == Posting.Kind.PENALTY:
            words = _penalty_words(hand.verdict or {}, names.get(player_id, ""))
        elif kind == Posting.Kind.ANTE:
            words = str(WORDS[Posting.Kind.ANTE])
        parts.setdefault(player_id, []).append((words, amount))
    rows = []
    for player_id, name in names.items():
        mine = parts.get(player_id, [])
        rows.append(
            {
                "name": name,
                "parts": mine,
                "delta": sum(x for _words, x in mine),
                "net": after.get(player_id, 0),
            }
        )
    return rows
