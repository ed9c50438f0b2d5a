"""The only code that writes money: sessions, hands, voids, seats, rules, closing, the
bank and tournament prizes.

The package is split by concern, and this module is its public face (import
``from ledger import postings`` and call ``postings.record_hand(...)``):

- ``hands``: record, complete (digital) and void a hand;
- ``corrections``: correct any earlier hand (``correct_hand``), re-settling the later ones;
- ``sessions``: start a session, seats, rules, award a pot, close, settlement marks;
- ``bank``: buy-ins and cash-outs;
- ``prizes``: a tournament's prize ledger (buy-ins, fees, refunds, prizes), and the
  anonymising of its memos' names when an account is deleted;
- ``tab``: the club's tab (issue #34): a closed session's transfers put on it (or taken
  off), payments between players reported, confirmed and reversed;
- ``_common``: the session lock, posting legs, the running totals (the session's
  ``nets``/``stacks`` and the players' club totals, ``PlayerTotals``: one writer,
  ``_post``, so reversals subtract through it too), the seats and state the engine sees,
  and the after-hand call to a tournament table's tournament.

Reads live apart: ``ledger.books`` (balances, stacks, pot, kitty, prize balances) and
``ledger.invariants`` (``check_invariants``, ``check_prize_ledger``); both are re-exported
here for callers that already use them through ``postings``. Errors are in
``ledger.errors``, all ``BourreError``.

Every function that writes runs in one ``transaction.atomic()`` and starts by locking the
session row with ``select_for_update()``: two phones at one table submit at the same
moment, and the lock makes the second wait until the first has committed, so it sees the
new version (StaleState) or the hand it already recorded (idempotency) instead of
recording on top of a state that no longer exists. SQLite ignores row locks but its
IMMEDIATE transactions (settings.py) serialise writers the same way.

Money model (ledger/models.py has the sign convention). Per hand, at most three postings,
in this order, exactly as the engine's verdict says:

- ``ANTE``: each player who antes → the pot (second antes and "dealer antes for all"
  included, they are in ``result.antes``);
- ``PAYOUT`` (one winner) or ``SPLIT`` (a divided split pot): the pot → the winner(s);
- ``PENALTY``: bourré and renege penalties, players → the pot (they open the next pot).

So between hands the pot account holds exactly ``session.carry`` — the engine's
``next_carry`` — and the next hand's antes go in when that hand is recorded. A void posts
a ``REVERSAL`` of each of the hand's postings; nothing is ever updated or deleted.

Decisions where the issue left room (each is tested):

- ``Hand.number`` counts every recorded hand, voided ones included (a voided hand keeps
  its number; the next hand gets a new one); ``session.hands_count`` counts live hands.
- A hand's ``before`` holds the session state before the hand (carry, next dealer,
  excused, forfeits, hands count) plus ``seats`` ({name: player id}, so statistics
  survive a renamed player) and ``eliminated`` (seats this hand knocked out of a
  chip-limited table, re-seated by a void).
- Voiding the same hand twice returns it unchanged (a double-tapped Undo).
- Closing a closed session returns it unchanged (a double-tapped Close).
- ``share_equally`` shares the leftover among the players who paid antes or penalties
  into the pot since it was last empty (a pot that keeps a capped remainder under
  ``limit_caps_winner`` was never empty, so then: everybody who paid in this session).
  The indivisible remainder, or the whole pot when nobody paid into it (it came from the
  club), goes to the club's carry account. Nothing is rounded away.
- Chip-limited tables never pull the club's carried pot in (it is cash, not tournament
  chips); leftover chips follow the chosen policy like any other pot.
- Chip-limited shortfalls: antes are paid first, from the stack before the hand. If the
  pot actually collected is smaller than what the verdict pays out (an ante was short),
  the payees share what is there (equal shares, remainder stays in the pot). Penalties are
  paid from the stack after antes and payouts. Every unpaid amount is summed per player
  in ``Hand.shortfalls``; every dealt-in player left with no chips is eliminated
  (``active=False``, ``eliminated_at``) — a short ante whose player then won the pot
  leaves chips, so that player stays.
- Pending forfeits (R16, corrected reneges R39) are passed to the engine as
  ``forfeits``; its ``forfeits_next`` is kept. Forfeits of players not dealt in stay
  pending until the deal reaches them. A recorded hand may add ``forfeits`` (a
  declaration out of turn called at this hand, R16) but never drop a pending one
  (``forfeit_removed``); when every dealt-in player owes one they cancel out and clear.
- ``set_seat_active(active=False)`` refuses to leave fewer than two players at a home
  table (a chip-limited tournament table may be emptied by seat moves); seating a ninth
  active player is refused (R3).
- ``add_seat(free_seat=True)`` seats a player in the lowest position no seat in play
  holds (a tournament table's moved or late player: nobody else moves, so the seat
  numbers players were told stay unique). A seat brought back into play (an undone
  elimination, a player returning) whose position was taken meanwhile moves to the
  lowest free one (``seat_back``).
- ``record_hand`` takes an optional ``hand_id`` (added for digital hands; see there).
- ``correct_hand`` corrects any recorded hand of an open home table and re-settles the
  later ones (reversals + new postings for the hands whose money changed, one
  transaction); a corrected hand keeps its number and its earlier versions
  (``Hand.corrections``). It is the one entry point for the pages and the API.
"""

from ledger.books import (
    TABLE_KINDS,
    kitty_balance,
    ledger_sums,
    player_stacks,
    pot_balance,
    prize_balances,
    prize_postings,
    session_balances,
)
from ledger.errors import (
    ChainBroken,
    CorrectionRefused,
    HandRejected,
    NeedsConfirmation,
    SessionClosed,
    SetupError,
    StaleState,
    VoidRefused,
)
from ledger.invariants import (
    check_invariants,
    check_player_totals,
    check_prize_ledger,
    check_tab,
)
from ledger.postings._common import (
    Actor,
    actor,
    announce_change,
    announce_table_hand,
    lock_session,
    on_change,
    on_table_deal,
    on_table_hand,
    session_state,
    table_deal_refusal,
    table_seats,
    table_state,
    table_statement,
)
from ledger.postings.bank import buy_in, cash_out
from ledger.postings.corrections import Correction, HandChange, correct_hand
from ledger.postings.hands import (
    PostedLeg,
    complete_hand,
    record_hand,
    record_hand_with_legs,
    void_hand,
)
from ledger.postings.prizes import post_prize, prize_accounts, rename_in_prize_memos
from ledger.postings.sessions import (
    add_seat,
    award_pot,
    change_rules,
    close_session,
    mark_transfer_paid,
    move_pot,
    set_seat_active,
    start_session,
)
from ledger.postings.tab import (
    confirm_payment,
    on_tab_change,
    put_on_tab,
    report_payment,
    reverse_payment,
    take_off_tab,
)

__all__ = [
    "TABLE_KINDS",
    "ChainBroken",
    "Correction",
    "CorrectionRefused",
    "HandChange",
    "HandRejected",
    "NeedsConfirmation",
    "SessionClosed",
    "SetupError",
    "StaleState",
    "VoidRefused",
    "Actor",
    "actor",
    "announce_change",
    "announce_table_hand",
    "add_seat",
    "award_pot",
    "buy_in",
    "cash_out",
    "change_rules",
    "check_invariants",
    "check_player_totals",
    "check_prize_ledger",
    "check_tab",
    "confirm_payment",
    "on_tab_change",
    "put_on_tab",
    "report_payment",
    "reverse_payment",
    "take_off_tab",
    "close_session",
    "complete_hand",
    "correct_hand",
    "kitty_balance",
    "ledger_sums",
    "lock_session",
    "mark_transfer_paid",
    "move_pot",
    "on_change",
    "on_table_deal",
    "on_table_hand",
    "table_deal_refusal",
    "player_stacks",
    "pot_balance",
    "post_prize",
    "prize_accounts",
    "rename_in_prize_memos",
    "prize_balances",
    "prize_postings",
    "PostedLeg",
    "record_hand",
    "record_hand_with_legs",
    "session_balances",
    "session_state",
    "set_seat_active",
    "start_session",
    "table_seats",
    "table_state",
    "table_statement",
    "void_hand",
]
