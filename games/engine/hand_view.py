"""What leaves a :class:`~games.engine.state.HandState`: views, the record and the verdict.

:func:`public_view` is what a spectator may see and :func:`view_for` what one seat may see:
the public view plus that seat's own cards and choices. :func:`to_record` writes the hand
as a HAND_RECORD.md record and :func:`verdict` gives what :func:`~games.engine.verify`
answers for it. HandState's methods of the same names call these.

They live apart from the rules of play (``state.py``) because this is where hidden
information could leak: everything a seat is shown is assembled here, so a review of what a
player can learn about other hands and the stock reads this one file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import DECLARE, DONE, PASSED, PLAY, IllegalAction
from .cards import CARD_NAMES, SUIT_CHARS, card_names
from .contracts import (
    DeclareChoice,
    HandRecord,
    PlayedTrick,
    PublicView,
    SeatView,
    TrickCard,
    Verdict,
)

if TYPE_CHECKING:
    from .state import HandState

__all__ = ["public_view", "to_record", "verdict", "view_for"]


def _display_order(mask: int, trump: int) -> list[str]:
    """Cards grouped by suit (trump first), high to low: how a player sorts a hand."""
    out = []
    for s in (trump, *(x for x in range(4) if x != trump)):
        for r in range(12, -1, -1):
            c = s * 13 + r
            if mask >> c & 1:
                out.append(CARD_NAMES[c])
    return out


def _revealed(state: HandState) -> bool:
    """Are the declarations public yet? (Always, except mid-way simultaneous.)"""
    return not (state.phase == DECLARE and state.simultaneous)


def _pot_so_far(state: HandState) -> int:
    rules = state.rules
    if state.result is not None:
        pot: int = state.result["pot"]
        return pot
    if rules.dealer_antes_for_all or rules.double_ante:
        pot = rules.ante * state.n  # nobody is excused under these switches
    else:
        pot = rules.ante * (state.n - len(state.excused))
    if rules.double_ante and _revealed(state):
        pot += rules.ante * sum(1 for x in state.decl if x is not None and x != PASSED)
    return state.carry + pot


def public_view(state: HandState) -> PublicView:
    """What a spectator may see: no hidden card at all."""
    players = state.players
    revealed = _revealed(state)
    declarations: dict[str, str] = {}
    discard_counts: dict[str, int] = {}
    if revealed:
        for s in state.order:
            x = state.decl[s]
            if x is None:
                continue
            declarations[players[s]] = "pass" if x == PASSED else "play"
            if x != PASSED:
                discard_counts[players[s]] = x.bit_count()
    tp = state.tp
    hand_counts: dict[str, int]
    trick: list[TrickCard]
    tricks_played: list[PlayedTrick]
    if tp is not None:
        hand_counts = {players[s]: tp.hands[s].bit_count() for s in state.active}
        trick_number = min(tp.trick_no + 1, state.rules.hand_size)
        trick = [{"player": players[s], "card": CARD_NAMES[c]} for s, c in tp.trick]
        trick_leader: str | None = players[tp.to_act if not tp.trick else tp.trick_leader]
        tricks_played = [
            {
                "leader": players[leader],
                "cards": [{"player": players[s], "card": CARD_NAMES[c]} for s, c in cards],
                "winner": players[winner],
            }
            for leader, cards, winner in tp.completed
        ]
    else:
        count = state.rules.hand_size if state.phase == DECLARE else 0
        hand_counts = {p: count for p in players} if count else {}
        trick_number = 0
        trick = []
        trick_leader = None
        tricks_played = []
    return {
        "players": list(players),
        "dealer": players[state.dealer],
        "phase": state.phase,
        "to_act": state.to_act,
        "awaiting": state.awaiting,
        "up_card": CARD_NAMES[state.up_card],
        "up_card_dead": state.upcard_dead,
        "trump": SUIT_CHARS[state.trump],
        "rules": state.rules.to_dict(),
        "carry": state.carry,
        "pot": _pot_so_far(state),
        "excused": [players[s] for s in sorted(state.excused)],
        "declared": [players[s] for s in state.order if state.decl[s] is not None],
        "declarations": declarations,
        "discard_counts": discard_counts,
        "passed": state.passed() if revealed else [],
        "active": [players[s] for s in state.active],
        "hand_counts": hand_counts,
        "trick_number": trick_number,
        "trick": trick,
        "trick_leader": trick_leader,
        "tricks_played": tricks_played,
        "tricks": state.tricks(),
        "result": state.result,
    }


def view_for(state: HandState, player: str) -> SeatView:
    """What ``player`` may see: the public view plus their own hand, discards and
    choices. Never another seat's hidden cards, never the stock."""
    seat = state.seat_of.get(player) if type(player) is str else None
    if seat is None:
        raise IllegalAction(
            f"unknown player {player!r}", code="unknown_player", params={"player": player}
        )
    trump = state.trump
    tp = state.tp
    hand = tp.hands[seat] if tp is not None else state.hands[seat]
    declared = state.decl[seat]
    if state.discards[seat]:
        own = state.discards[seat]
    elif state.phase == DECLARE and declared is not None and declared != PASSED:
        own = declared  # named, not yet exchanged
    else:
        own = 0
    legal: list[str] = []
    illegal: dict[str, str] = {}
    declare: DeclareChoice | None = None
    if state.phase == PLAY and tp is not None and tp.to_act == seat:
        legal = _display_order(state.legal_mask(), trump)
        illegal = state.illegal_reasons(player)
    elif state.phase == DECLARE and player in state.awaiting:
        declare = {
            "can_pass": not state._must_play(seat),
            "pass_rule": "R12" if state._must_play(seat) else None,
            "max_discard": state.rules.discard_limit,
            "keep": [CARD_NAMES[state.up_card]]
            if seat == state.dealer and not state.rules.dealer_may_discard_upcard
            else [],
        }
    return {
        **state.public_view(),
        "seat": player,
        "hand": _display_order(hand, trump),
        "folded": declared == PASSED,
        "own_discards": card_names(own),
        "legal": legal,
        "illegal": illegal,
        "declare": declare,
    }


def verdict(state: HandState) -> Verdict:
    """The verdict verify() gives for :func:`to_record` (no reneges are possible)."""
    out: Verdict = {
        "valid": True,
        "errors": [],
        "complete": state.phase == DONE,
        "tricks": state.tricks(),
        "reneges": [],
        "next": None,
        "result": state.result,
    }
    if state.phase == PLAY:
        out["next"] = {"player": state.to_act, "legal": card_names(state.legal_mask())}
    return out


def to_record(state: HandState) -> HandRecord:
    """This hand as a HAND_RECORD.md record (hands after the draw, full card log)."""
    players = state.players
    record: HandRecord = {
        "rules": state.rules.to_dict(),
        "players": list(players),
        "dealer": players[state.dealer],
        "carry": state.carry,
        "excused": [players[s] for s in sorted(state.excused)],
        "up_card": CARD_NAMES[state.up_card],
        "passed": state.passed(),
    }
    if state.tp is not None:
        tp = state.tp
        record["discards"] = {
            players[s]: card_names(state.discards[s]) for s in state.active if state.discards[s]
        }
        record["hands"] = {players[s]: card_names(state.hands[s]) for s in state.active}
        record["plays"] = [[players[s], CARD_NAMES[c]] for s, c in tp.plays]
    return record
