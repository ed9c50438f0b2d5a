"""Names out of a club's stored hands: a player's name replaced wherever the books keep it.

A hand's record, verdict, state before it and earlier versions (``Hand.record``,
``verdict``, ``before``, ``corrections``) and a digital hand's moves (``HandAction``) name
players by the name they had when the hand was played (HAND_RECORD.md). Renaming a
player leaves those alone, as a club wants when a typo is fixed; anonymising a former
member (games.clubs.account_service) must not, or their name would stay on every hand
page. ``rename_in_hands`` rewrites those names, and only where the hand-record contract
says a name stands (``NAME_VALUES``, ``NAME_LISTS``, ``NAME_MAPS``, ``plays``): a
player called "S" or "win" is renamed, the trump suit "S" and the outcome "win" are not.
The rename is the same in every place, so the books still agree with themselves: a
correction replays later hands by these names, and ``check_player_totals`` counts by
them (``before["seats"]``: name → player id).

Hand rows are not ledger rows: the postings and legs, which are append-only, name
accounts by id and hand postings' memos carry only the hand's number (``ledger.memos``).
The prize ledger's memos do carry entrants' names: ``ledger.postings.rename_in_prize_memos``
rewrites those (the ledger package writes its own rows).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db import transaction

from games.models import Hand, HandAction

__all__ = ["rename_in_hands", "renamed"]

# Keys whose value is one player's name.
NAME_VALUES = frozenset({"dealer", "player", "winner", "next_dealer", "leader", "expected"})
# Keys whose value is a list of names.
NAME_LISTS = frozenset(
    {"players", "excused", "passed", "bourre", "forfeits", "forfeits_next", "excused_next"}
)
# Keys whose value is a map keyed by names.
NAME_MAPS = frozenset(
    {
        "discards",
        "hands",
        "tricks",
        "antes",
        "payouts",
        "penalties",
        "seats",
        "shortfalls",
    }
)
BATCH = 200


def renamed(value: Any, names: Mapping[str, str], key: str | None = None) -> Any:
    """``value`` (a record, a verdict, a state or a move, as JSON) with every name in
    ``names`` replaced by its new one, where the contract puts a name; ``key`` is the key
    the value stands under in its parent."""
    if isinstance(value, dict):
        if key in NAME_MAPS:
            return {names.get(k, k): v for k, v in value.items()}
        return {k: renamed(v, names, k) for k, v in value.items()}
    if isinstance(value, list):
        if key in NAME_LISTS:
            return [names.get(v, v) if isinstance(v, str) else v for v in value]
        if key == "plays":  # [[player, card], ...]
            return [_play(p, names) for p in value]
        return [renamed(v, names) for v in value]
    if isinstance(value, str) and key in NAME_VALUES:
        return names.get(value, value)
    return value


def _play(play: Any, names: Mapping[str, str]) -> Any:
    if isinstance(play, list) and play and isinstance(play[0], str):
        return [names.get(play[0], play[0]), *play[1:]]
    return play


def _hand_fields(hand: Hand, names: Mapping[str, str], usernames: Mapping[str, str]) -> bool:
    """Rename in one hand; whether anything changed."""
    changed = False
    for field in ("record", "verdict", "before"):
        old = getattr(hand, field)
        new = renamed(old, names)
        if new != old:
            setattr(hand, field, new)
            changed = True
    corrections = []
    for version in hand.corrections or []:
        new = renamed(version, names)
        if isinstance(new, dict) and new.get("by") in usernames:
            # Who made the correction: a username, not a player's name.
            new = {**new, "by": usernames[new["by"]]}
        corrections.append(new)
    if corrections != (hand.corrections or []):
        hand.corrections = corrections
        changed = True
    return changed


def rename_in_hands(
    club_ids: Iterable[int],
    names: Mapping[int, Mapping[str, str]],
    usernames: Mapping[str, str] | None = None,
) -> int:
    """Replace names in every stored hand of the clubs: ``names`` maps a club's id to
    {old name: new name} for that club; ``usernames`` {old: new} renames who corrected a
    hand. Hands are read and written ``BATCH`` at a time (flat memory in a long club
    history). Returns the number of hands changed. Runs in the caller's transaction."""
    usernames = usernames or {}
    changed = 0
    for club_id in club_ids:
        club_names = names.get(club_id) or {}
        if not club_names and not usernames:
            continue
        hands = Hand.objects.filter(session__club_id=club_id).only(
            "id", "record", "verdict", "before", "corrections"
        )
        if not club_names:  # only who corrected hands: the few hands that were corrected
            hands = hands.exclude(corrections=[])
        last = 0
        while True:
            batch = list(hands.filter(pk__gt=last).order_by("pk")[:BATCH])
            if not batch:
                break
            last = batch[-1].pk
            dirty = [h for h in batch if _hand_fields(h, club_names, usernames)]
            if dirty:
                with transaction.atomic():
                    Hand.objects.bulk_update(dirty, ["record", "verdict", "before", "corrections"])
                changed += len(dirty)
            if club_names:
                _rename_actions([h.pk for h in batch], club_names)
    return changed


def _rename_actions(hand_ids: list[int], names: Mapping[str, str]) -> None:
    actions = list(HandAction.objects.filter(hand_id__in=hand_ids).only("id", "action"))
    dirty = []
    for action in actions:
        new = renamed(action.action, names)
        if new != action.action:
            action.action = new
            dirty.append(action)
    if dirty:
        HandAction.objects.bulk_update(dirty, ["action"])
