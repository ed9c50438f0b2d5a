"""The prize ledger of a tournament: buy-ins, fees, refunds and prizes.

Its own books (``PrizeAccount``/``PrizePosting``/``PrizeLeg``), apart from the session
ledger because tournament chips are not money: entrants pay the pool and the house, the
pool pays the prizes. The tournament service decides the amounts; only this module writes
them, balanced, under the tournament row lock its caller holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from games.models import Tournament
from ledger.memos import Memo, text_memo
from ledger.models import PrizeAccount, PrizeLeg, PrizePosting
from ledger.postings._common import actor


def prize_accounts(tournament: Tournament, player_ids: Iterable[int]) -> dict[Any, int]:
    """{"pool": id, "house": id, player id: id, …}, creating what is missing."""
    ids = set(player_ids)
    PrizeAccount.objects.bulk_create(
        [PrizeAccount(tournament=tournament, kind=k) for k in ("pool", "house")]
        + [PrizeAccount(tournament=tournament, kind="entrant", player_id=p) for p in ids],
        ignore_conflicts=True,
    )
    out: dict[Any, int] = {}
    for pk, kind, player_id in PrizeAccount.objects.filter(tournament=tournament).values_list(
        "pk", "kind", "player_id"
    ):
        if kind == PrizeAccount.Kind.ENTRANT:
            if player_id in ids:
                out[player_id] = pk
        else:
            out[kind] = pk
    return out


def post_prize(
    tournament: Tournament,
    kind: str,
    legs: Mapping[int, int],
    user: Any,
    player: int | None = None,
    memo: Memo | None = None,
) -> PrizePosting | None:
    """One balanced posting of the prize ledger: ``legs`` maps prize account ids (from
    :func:`prize_accounts`) to amounts; zero legs are dropped. None when nothing moves
    (a free event). ``memo`` is stored as ``ledger.memos`` says, its amounts in the
    tournament's money."""
    moved = {a: x for a, x in legs.items() if x}
    if sum(moved.values()) != 0:
        raise AssertionError(f"unbalanced prize posting {kind}: {moved}")
    if not moved:
        return None
    memo = memo or text_memo("")
    posting = PrizePosting.objects.create(
        tournament=tournament,
        kind=kind,
        player_id=player,
        memo=memo.stored(tournament.currency),
        memo_kind=memo.kind,
        memo_params=dict(memo.params),
        created_by=actor(user),
    )
    PrizeLeg.objects.bulk_create(
        [PrizeLeg(posting=posting, account_id=a, amount=x) for a, x in moved.items()]
    )
    return posting
