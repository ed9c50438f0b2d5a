"""Buy-ins and cash-outs: chips between a seat and the club's bank."""

from __future__ import annotations

from django.db import transaction

from ledger.errors import SetupError
from ledger.memos import Memo, MemoKind
from ledger.models import Account, Posting
from ledger.postings._common import (
    BOOK_FIELDS,
    Actor,
    _check_amount,
    _club_account,
    _event,
    _post,
    _require_open,
    _seat_account,
    lock_session,
)

# -- buy-ins and cash-outs --------------------------------------------------------------------

_BANK_MEMOS: dict[str, MemoKind] = {
    Posting.Kind.BUY_IN: MemoKind.BUY_IN,
    Posting.Kind.CASH_OUT: MemoKind.CASH_OUT,
}


def _bank_move(session_id: int, player_id: int, amount: int, user: Actor, kind: str) -> Posting:
    _check_amount(amount)
    with transaction.atomic():
        session = lock_session(session_id)
        _require_open(session)
        account = _seat_account(session, player_id)
        if kind == Posting.Kind.CASH_OUT:
            stack = session.stacks.get(str(player_id), 0)
            if amount > stack:
                raise SetupError(
                    "not_enough_chips",
                    f"only {stack} in front of that player",
                    "amount",
                    params={"stack": stack},
                )
        sign = 1 if kind == Posting.Kind.BUY_IN else -1
        bank = _club_account(session.club_id, Account.Kind.BANK)
        (posting,) = _post(
            session,
            session.club_id,
            [(kind, {account: sign * amount, bank.pk: -sign * amount}, Memo(_BANK_MEMOS[kind]))],
            user,
            owners={account: player_id},
        )
        session.bump()
        session.save(update_fields=["version", *BOOK_FIELDS])
        _event(session, kind, {"player": player_id, "amount": amount}, user)
    return posting


def buy_in(*, session_id: int, player_id: int, amount: int, user: Actor) -> Posting:
    """Chips from the bank to a player (player +amount, bank −amount)."""
    return _bank_move(session_id, player_id, amount, user, Posting.Kind.BUY_IN)


def cash_out(*, session_id: int, player_id: int, amount: int, user: Actor) -> Posting:
    """Chips from a player back to the bank; at most the player's stack."""
    return _bank_move(session_id, player_id, amount, user, Posting.Kind.CASH_OUT)
