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
from ledger.memos import Memo, MemoKind, text_memo
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


def rename_in_prize_memos(
    club_id: int, names: Mapping[str, str], players: Mapping[int, str]
) -> int:
    """Anonymise the prize ledger's memos of a club's tournaments: ``players`` maps the
    ids of renamed players to their new names (the posting's own player), ``names`` old
    names to new ones (the players a deal lists). Only ``memo`` and ``memo_params`` change
    (their English stays the sentence of their kind, ``check_memos``); legs, amounts and
    accounts stay as written. On PostgreSQL the append-only trigger lets exactly these two
    columns change (ledger migration 0010). Returns how many postings changed."""
    from ledger.memos import renamed_params

    changed = []
    postings = PrizePosting.objects.filter(tournament__club_id=club_id).select_related("tournament")
    for posting in postings.only("id", "player_id", "memo_kind", "memo_params", "tournament"):
        own = players.get(posting.player_id) if posting.player_id is not None else None
        params = renamed_params(posting.memo_kind, posting.memo_params, names, own)
        if params != posting.memo_params:
            memo = Memo(MemoKind(posting.memo_kind), params)
            posting.memo_params = params
            posting.memo = memo.stored(posting.tournament.currency)
            changed.append(posting)
    PrizePosting.objects.bulk_update(changed, ["memo", "memo_params"], batch_size=200)
    return len(changed)
