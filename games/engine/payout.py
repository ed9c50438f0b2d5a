"""Who pays what: antes, the pot, bourrés, reneges, split pots and the next deal (R33–R40).

:func:`settle` turns the facts of a finished hand (who passed, tricks won, reneges) into
the money fields of a verdict's ``result`` (HAND_RECORD.md). Money is conserved exactly:
``carry + Σantes = pot = Σpayouts + kept`` and ``next_carry = kept + Σpenalties``.

Choices where RULES.md is silent:

- Uncontested (R14) is a win like any other: ``limit_caps_winner`` caps it, and under
  ``double_ante`` the remaining player (a dealer who never got to declare, or deemed to
  play under R40) adds the second ante like every player who plays; as the winner
  takes the pot back, that only shows under ``limit_caps_winner``.
- ``double_ante`` and ``dealer_antes_for_all`` ignore ``excused``: nobody is ever excused.
- Amount maps (``antes``, ``payouts``, ``penalties``) list only amounts above zero; a
  bourré in a hand with an empty pot pays nothing but is still excused (R36).
- ``split_pot: "divide"`` with ``limit_caps_winner``: the tied players share at most
  ``pot_limit`` between them, the rest carries, as if they were one winner.
- ``ineligible_winner: "next_best"`` when the best eligible players tie: that is a split
  among them (``split_pot`` applies, and R35 excuses them when the pot carries).
  With no eligible active player at all the pot carries (outcome ``ineligible``).
- ``ineligible_winner: "carry"`` never divides a pot, even under ``split_pot: "divide"``.
- A player who forfeits a deal (corrected renege, R16) skips the deal only when it comes
  to them; until then the forfeit stays pending and is reported in ``forfeits_next`` (an
  addition to the verdict) for the caller to pass back as ``forfeits`` next hand.
- When every seated player owes a forfeited deal, the forfeits cancel out: skipping
  everybody once is the same as skipping nobody, so the deal passes to the next seat on
  the left as usual and every forfeit is cleared (``forfeits_next`` is empty). Without
  this nobody could ever clear one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple, TypeAlias

from .contracts import HandResult
from .rules import Rules

__all__ = ["settle", "worst_next_carry"]


_RenegeEntry: TypeAlias = tuple[str, bool] | Mapping[str, Any]


def _renege_pairs(reneges: Iterable[_RenegeEntry]) -> list[tuple[str, bool]]:
    pairs: list[tuple[str, bool]] = []
    for r in reneges:
        if isinstance(r, Mapping):
            pairs.append((r["player"], bool(r.get("corrected", False))))
        else:
            player, corrected = r
            pairs.append((player, bool(corrected)))
    return pairs


def settle(
    players: Sequence[str],
    dealer: str,
    rules: Rules,
    *,
    tricks: Mapping[str, int] | None = None,
    passed: Iterable[str] = (),
    carry: int = 0,
    excused: Iterable[str] = (),
    reneges: Iterable[_RenegeEntry] = (),
    forfeits: Iterable[str] = (),
    ace_up: bool = False,
) -> HandResult:
    """The ``result`` of a finished hand.

    ``tricks`` maps active players to tricks won (missing means 0; ignored when at most
    one player is active). ``reneges`` holds ``(player, corrected)`` pairs or
    ``{"player", "corrected"}`` dicts. ``forfeits`` names players who owe a forfeited
    deal (R16 calls, earlier hands). ``ace_up`` matters only when everybody passed (R40).

    Raises ValueError for inputs that do not describe a hand (unknown names, a trick
    total other than ``hand_size``).
    """
    n = len(players)
    seated = set(players)
    if n != len(seated) or not 2 <= n <= 8:
        raise ValueError("players must be 2 to 8 distinct names (R3)")
    if dealer not in seated:
        raise ValueError(f"dealer {dealer!r} is not seated")
    passed_set = set(passed)
    excused_set = set(excused)
    renege_list = _renege_pairs(reneges)
    forfeit_set = set(forfeits)
    named = passed_set | excused_set | forfeit_set | {p for p, _ in renege_list}
    if not named <= seated:
        raise ValueError(f"unknown player {sorted(named - seated, key=str)[0]!r}")
    if type(carry) is not int or carry < 0:
        raise ValueError("carry must be a whole number ≥ 0")
    active = [p for p in players if p not in passed_set]
    if len(active) > 1:
        given = tricks or {}
        if not given.keys() <= set(active):
            raise ValueError("tricks name a player who did not play this hand")
        if not all(type(t) is int and t >= 0 for t in given.values()):
            raise ValueError("tricks must be whole numbers ≥ 0")
        if sum(given.values()) != rules.hand_size:
            raise ValueError(f"tricks must add up to {rules.hand_size}")
    return _settle(
        players,
        dealer,
        rules,
        tricks,
        passed_set,
        carry,
        excused_set,
        renege_list,
        forfeit_set,
        ace_up,
    )


class _Shares(NamedTuple):
    """What becomes of the pot (:func:`_share_out`), before the next deal is known."""

    outcome: str
    winner: str | None
    payouts: dict[str, int]
    bourre: list[str]
    penalties: dict[str, int]
    excused_next: list[str]
    kept: int  # what stays in the pot for the next hand, penalties not included
    corrected: set[str]  # players whose corrected renege forfeits a deal (R16)


def _settle(
    players: Sequence[str],
    dealer: str,
    rules: Rules,
    tricks: Mapping[str, int] | None,
    passed_set: set[str],
    carry: int,
    excused_set: set[str],
    renege_list: list[tuple[str, bool]],
    forfeit_set: set[str],
    ace_up: bool,
) -> HandResult:
    """settle() on inputs already checked (the verifier and HandState check their own)."""
    active = [p for p in players if p not in passed_set] if passed_set else list(players)
    uncontested = len(active) == 1 or (not active and ace_up)
    if not active and ace_up:
        active = [dealer]  # R40: with an Ace up the dealer is deemed to play (R12)
    antes = _antes(players, dealer, rules, excused_set, active)
    pot = carry + sum(antes.values())

    if active:
        shares = _share_out(players, rules, active, tricks, renege_list, pot, uncontested)
        forfeit_set = forfeit_set | shares.corrected
    else:
        # R40: everyone passed with no Ace up; the pot carries untouched.
        shares = _Shares("all_passed", None, {}, [], {}, [], pot, set())
    next_dealer, forfeits_next = _next_deal(players, dealer, forfeit_set)

    payouts, penalties = shares.payouts, shares.penalties
    if not pot:  # everybody excused and nothing carried: no zero amounts in the maps
        payouts = {}
        penalties = {}
    return {
        "outcome": shares.outcome,
        "winner": shares.winner,
        "pot": pot,
        "antes": antes,
        "payouts": payouts,
        "bourre": shares.bourre,
        "penalties": penalties,
        "next_carry": shares.kept + sum(penalties.values()),
        "excused_next": shares.excused_next,
        "next_dealer": next_dealer,
        "forfeits_next": forfeits_next,
    }


def _antes(
    players: Sequence[str],
    dealer: str,
    rules: Rules,
    excused_set: set[str],
    active: list[str],
) -> dict[str, int]:
    """Who antes how much, in seat order; ``active`` adds the second ante (double_ante)."""
    ante = rules.ante
    if rules.dealer_antes_for_all:
        antes = {dealer: ante * len(players)}
    elif excused_set and not rules.double_ante:
        antes = {p: ante for p in players if p not in excused_set}
    else:
        antes = dict.fromkeys(players, ante)
    if rules.double_ante:
        for p in active:
            antes[p] = antes.get(p, 0) + ante
        antes = {p: antes[p] for p in players if p in antes}
    return antes


def _share_out(
    players: Sequence[str],
    rules: Rules,
    active: list[str],
    tricks: Mapping[str, int] | None,
    renege_list: list[tuple[str, bool]],
    pot: int,
    uncontested: bool,
) -> _Shares:
    """Winner, payouts, bourrés, penalties and the next excused of a played hand."""
    if uncontested:
        won = {active[0]: rules.hand_size}
    else:
        won = dict.fromkeys(active, 0)
        if tricks:
            won.update(tricks)
    if renege_list:
        uncorrected = {p for p, c in renege_list if not c}
        corrected = {p for p, c in renege_list if c}
    else:
        uncorrected = corrected = set()
    winner, outcome, tied = _winner(rules, active, won, uncorrected | corrected, uncontested)

    limit = rules.pot_limit
    cost = pot if limit is None else min(pot, limit)
    payouts, kept, tied = _pay(rules, winner, outcome, tied, pot, cost)
    bourre = [] if uncontested else [p for p in active if not won[p]]
    # once, even when both bourréd and reneging (R39)
    if uncorrected:
        penalties = {p: cost for p in players if p in uncorrected or p in bourre}
    elif bourre:
        penalties = dict.fromkeys(bourre, cost)
    else:
        penalties = {}
    excused_next = _excused_next(players, rules, penalties, tied)
    return _Shares(outcome, winner, payouts, bourre, penalties, excused_next, kept, corrected)


def _pay(
    rules: Rules, winner: str | None, outcome: str, tied: list[str], pot: int, cost: int
) -> tuple[dict[str, int], int, list[str]]:
    """``(payouts, kept, tied)``: the winner takes the pot (``cost`` under
    ``limit_caps_winner``), ``split_pot: "divide"`` shares it among the tied players,
    else it stays; ``tied`` comes back emptied when the tied players were paid."""
    take = cost if rules.limit_caps_winner else pot
    if winner is not None:
        return {winner: take}, pot - take, tied
    if outcome == "split" and rules.split_pot == "divide":
        share = take // len(tied)
        payouts = dict.fromkeys(tied, share) if share else {}
        return payouts, pot - share * len(tied), []  # paid, so not excused (R35)
    return {}, pot, tied


def _winner(
    rules: Rules,
    active: list[str],
    won: Mapping[str, int],
    ineligible: set[str],
    uncontested: bool,
) -> tuple[str | None, str, list[str]]:
    """``(winner, outcome, tied)``: who takes the pot, or who ties for it, by tricks won.

    A player who reneged (``ineligible``) cannot win; ``ineligible_winner`` says whether
    the next best player wins instead or the pot carries.
    """
    best = max(won.values())
    top = [p for p in active if won[p] == best]
    if len(top) == 1 and top[0] not in ineligible:
        return top[0], ("uncontested" if uncontested else "win"), []
    if not ineligible.intersection(top):
        return None, "split", top
    if rules.ineligible_winner != "next_best":
        return None, "ineligible", [p for p in top if p not in ineligible]
    eligible = [p for p in active if p not in ineligible]
    if not eligible:
        return None, "ineligible", []
    best = max(won[p] for p in eligible)
    top = [p for p in eligible if won[p] == best]
    if len(top) == 1:
        return top[0], "win", []
    return None, "split", top


def _excused_next(
    players: Sequence[str], rules: Rules, penalties: Mapping[str, int], tied: list[str]
) -> list[str]:
    """Players excused from the next ante, in seat order: whoever pays a penalty, and
    (``tied_excused``) whoever tied for a pot that carries. Nobody under the switches
    where everybody antes."""
    if rules.double_ante or rules.dealer_antes_for_all or not (penalties or tied):
        return []
    excused = set(penalties)
    if rules.tied_excused:
        excused.update(tied)
    return [p for p in players if p in excused]


def _next_deal(players: Sequence[str], dealer: str, forfeit_set: set[str]) -> tuple[str, list[str]]:
    """The next dealer, and the forfeits still pending after this deal.

    R8: the deal passes left, skipping (once) each player who forfeited a deal.
    """
    n = len(players)
    d = players.index(dealer)
    next_dealer = players[(d + 1) % n]
    if not forfeit_set:
        return next_dealer, []
    skipped: set[str] = set()
    for step in range(1, n + 1):
        candidate = players[(d + step) % n]
        if candidate not in forfeit_set:
            next_dealer = candidate
            break
        skipped.add(candidate)
    # else: everybody owes one; they cancel out, the deal passes normally and all clear
    return next_dealer, [p for p in players if p in forfeit_set and p not in skipped]


def worst_next_carry(carry: int, rules: Rules, players: int) -> int:
    """The largest next pot one hand can leave, whatever is played: every player antes
    (twice under ``double_ante``), the pot carries (a split or an ineligible winner) and
    every player pays a penalty of ``min(pot, pot_limit)`` (a bourré or a renege, R36,
    R39). A table whose worst case passes ``MAX_POT`` is asked for a pot limit before a
    digital deal (a played digital hand cannot be re-entered)."""
    pot = carry + rules.ante * players * (2 if rules.double_ante else 1)
    penalty = pot if rules.pot_limit is None else min(pot, rules.pot_limit)
    return pot + players * penalty
