"""Tables that break and balance (RULES.md T1, T2), pure Python: which tables are free to
break or give up a player now, which short table must not deal before balancing has
done its part, and how a broken table's carried pot is shared out.

The rules, as the service (``games.tournaments.tables``) and the property test apply them:

- **T1 ``move``** (the default): a freeze-out table below the minimum breaks before its
  next deal, whatever its pot holds; its carried pot is neither lost nor awarded: the
  chips go to the tables that receive its players, in proportion to the players each one
  receives, the indivisible remainder to the table that receives the first of them in
  seat order (``pot_shares``). A table whose players all went out on one hand (its pot
  still holding chips) has no player to follow: its pot goes to the table the next
  moved player would join (the fewest players, then the lowest number).
- **T1 ``play_out``**: a short table with chips in its pot keeps dealing until the pot is
  won (nobody joins it meanwhile: it is ``closed``), then breaks.
- **T2**: a table gives up a player for balancing only between hands with an empty pot
  (the pot belongs to the players who built it).
- **Which tables are free now.** After a hand at one table (the ``free`` one) the other
  tables may be in the middle of a hand, so they neither break nor give up a player;
  except a table that must not deal at all (``blocked``: it is short and balancing has
  something for it — it breaks, or a player is to join it), which cannot be in a hand
  and so is always free, and a table with one player or none. A digital hand being
  played (``busy``) holds its table whatever else.
- **No short table deals** while balancing has something for it (``blocked``): with
  room at the other tables it breaks first; without room, a player joins it first from
  the largest table, once that table's pot is empty (the table waits meanwhile). The
  plan behind it is made as if every table were free, so the dashboard's instruction,
  the refusal of a hand and what the next check does all say the same thing. A short
  table that nothing can help (every other table as small, none with room) deals on.
- The final table (the only one left) deals whatever its size, down to heads-up.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from .tournament import BalancePlan, plan_balance

__all__ = [
    "BREAK_POT_CHOICES",
    "TableNow",
    "balance_step",
    "blocked",
    "pot_receivers",
    "plan_if_all_free",
    "pot_shares",
]

BREAK_POT_CHOICES = ("move", "play_out")


@dataclass(frozen=True)
class TableNow:
    """One playing table as balancing sees it: the players still in (seat order), the
    chips in its pot, whether it is between hands for sure (``free``: its own hand has
    just ended, or the director checks the tables) and whether a digital hand is being
    played there (``busy``)."""

    players: Sequence[int]
    pot: int = 0
    free: bool = False
    busy: bool = False


def _limits(
    tables: Mapping[int, TableNow], min_size: int, break_pot: str
) -> tuple[set[int], set[int], set[int]]:
    """(held, keep, closed) from the pots alone: under ``play_out`` a table with a pot
    neither breaks nor gives (and nobody joins it while it is short); under ``move`` it
    may break but gives nobody for balancing."""
    held: set[int] = set()
    keep: set[int] = set()
    closed: set[int] = set()
    for n, t in tables.items():
        if t.pot <= 0 or len(t.players) <= 1:
            continue
        if break_pot == "play_out":
            held.add(n)
            if len(t.players) < min_size:
                closed.add(n)
        else:
            keep.add(n)
    return held, keep, closed


def plan_if_all_free(
    tables: Mapping[int, TableNow], min_size: int, max_size: int, break_pot: str
) -> BalancePlan:
    """What balancing does once every table is between hands, a pot holding back no
    balancing move (only its timing): the plan the instruction and the refusal follow."""
    held, _keep, closed = _limits(tables, min_size, break_pot)
    return plan_balance(
        {n: list(t.players) for n, t in tables.items()},
        min_size,
        max_size,
        random.Random(0),  # which tables break or take players does not depend on it
        held=held,
        closed=closed,
    )


def blocked(
    tables: Mapping[int, TableNow], min_size: int, max_size: int, break_pot: str = "move"
) -> dict[int, str]:
    """table → "break" (it breaks before its next deal) or "join" (a player joins it
    first): the short tables that must not deal now. Empty with one table left."""
    if len(tables) < 2:
        return {}
    plan = plan_if_all_free(tables, min_size, max_size, break_pot)
    out = dict.fromkeys(plan.broken, "break")
    for move in plan.moves:
        if move.reason == "balance" and len(tables[move.target].players) < min_size:
            out.setdefault(move.target, "join")
    return out


def balance_step(
    tables: Mapping[int, TableNow],
    min_size: int,
    max_size: int,
    rng: random.Random,
    *,
    break_pot: str = "move",
    avoid: Collection[int] = (),
) -> BalancePlan:
    """The moves to make now (see the module docstring for which tables are free)."""
    stuck = blocked(tables, min_size, max_size, break_pot)
    held, keep, closed = _limits(tables, min_size, break_pot)
    for n, t in tables.items():
        free = t.free or len(t.players) <= 1 or n in stuck
        if t.busy or not free:
            held.add(n)
    return plan_balance(
        {n: list(t.players) for n, t in tables.items()},
        min_size,
        max_size,
        rng,
        held=held,
        avoid=avoid,
        keep=keep,
        closed=closed,
    )


def pot_shares(pot: int, receivers: Sequence[int]) -> dict[int, int]:
    """T1 ``move``: a broken table's ``pot`` shared among the tables that receive its
    players; ``receivers`` names each moved player's new table, in the broken table's seat
    order. In proportion to the players each receives (rounded down), the chips left over
    to the table that receives the first player. The shares add up to ``pot``."""
    if pot < 0:
        raise ValueError("a pot cannot be negative")
    if not receivers:
        return {}
    counts: dict[int, int] = {}
    for t in receivers:
        counts[t] = counts.get(t, 0) + 1
    shares = {t: pot * c // len(receivers) for t, c in counts.items()}
    shares[receivers[0]] += pot - sum(shares.values())
    return {t: x for t, x in shares.items() if x}


def pot_receivers(seat_order: Sequence[int], plan: BalancePlan, victim: int) -> list[int]:
    """Each player of the broken table ``victim`` (``seat_order``: its players still in,
    in seat order) → the table the plan sends them to, in that order; a table nobody is
    left at sends its pot to the table with the fewest players (then the lowest number)."""
    target = {m.player: m.target for m in plan.moves if m.source == victim}
    out = [target[p] for p in seat_order if p in target]
    if not out and plan.tables:
        out = [min(plan.tables, key=lambda n: (len(plan.tables[n]), n))]
    return out
