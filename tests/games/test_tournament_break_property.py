"""Freeze-outs played to the end, as a property (RULES.md T1, T2, T3), over 200 generated
events of 20–100 players: no table ever deals below the minimum (except the final
table, down to heads-up), the chips in play are conserved after every hand and every
balancing step, and every event ends with one winner or a deal.

Each event is played the way the service runs one (``games.tournaments.tables``): the
engine deals and bots play every hand (``HandState``, ``HeuristicBot``), the ledger's
chip-limited arithmetic moves the chips (``ledger.postings.hands._money``: short antes,
penalties capped by the stack), the ante rises every few hands at each table along the
default schedule and then keeps rising (T3, ``ante_for``). Hands are dealt at the tables
in a random interleaving; before each deal the table asks ``breaks.blocked`` (the check
``record_hand`` makes), and a refused table gets the director's "Check the tables"
(``balance_step`` with every table free) and deals only if that made it whole — else it
waits. After each hand, ``balance_step`` with only that table free (the others may be in
the middle of a hand), exactly as ``after_hand`` does; a broken table's pot moves to the
tables its players join (T1 ``move``, ``pot_shares``).

The minimum holds whenever balancing can always help a short table — a short table with
no room elsewhere always faces a table two players bigger — which is so when
2 × minimum ≤ maximum + 1: the table sizes drawn here (4–7, the default, and others).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import HandState, HeuristicBot, verify
from games.engine import tournament as logic
from games.engine import tournament_breaks as breaks
from games.engine import tournament_payouts as pay
from games.tournaments.service import DEFAULT_ANTES
from ledger.postings.hands import _money

HAND_CAP = 60_000


@dataclass
class Table:
    players: list[int]
    carry: int = 0
    dealer: int = 0
    excused: list[int] = field(default_factory=list)
    hands: int = 0


@dataclass
class Event:
    min_size: int
    max_size: int
    per_level: int
    stack: dict[int, int]
    tables: dict[int, Table]
    total: int
    step: int = 0
    hands: int = 0
    longest_short: int = 0  # the most hands any table dealt below the minimum (must stay 0)

    def conserved(self) -> None:
        chips = sum(self.stack.values()) + sum(t.carry for t in self.tables.values())
        assert chips == self.total, (chips, self.total)

    def now(self, free: int | None) -> dict[int, breaks.TableNow]:
        return {
            n: breaks.TableNow(t.players, t.carry, free=free is None or free == n)
            for n, t in self.tables.items()
        }

    def balance(self, free: int | None, seed: str) -> None:
        """One balancing step (``tables._balance``): moves, broken tables, their pots."""
        if len(self.tables) < 2:
            return
        self.step += 1
        plan = breaks.balance_step(
            self.now(free), self.min_size, self.max_size, logic.rng_for(seed, "balance", self.step)
        )
        for victim in plan.broken:
            t = self.tables[victim]
            shares = breaks.pot_shares(t.carry, breaks.pot_receivers(t.players, plan, victim))
            assert sum(shares.values()) == t.carry  # T1: neither lost nor awarded
            for to, chips in shares.items():
                self.tables[to].carry += chips
            t.carry = 0
        for victim in plan.broken:
            del self.tables[victim]
        for n, players in plan.tables.items():
            self.tables[n].players = list(players)
        self.conserved()


def _play(event: Event, n: int, rng: random.Random, bot: HeuristicBot) -> None:
    """One hand at table ``n`` (the ledger's chip-limited money)."""
    t = event.tables[n]
    alive = t.players
    if t.dealer not in alive:
        t.dealer = alive[0]
    ante = logic.ante_for(DEFAULT_ANTES, t.hands // event.per_level)
    hand = HandState.new(
        [str(p) for p in alive],
        str(t.dealer),
        {"ante": ante},
        rng,
        carry=t.carry,
        excused=[str(p) for p in t.excused if p in alive],
    )
    while hand.outcome() is None:
        hand.apply(bot.act(hand.view_for(hand.to_act or hand.awaiting[0])))
    result = verify(hand.to_record())["result"]
    money = _money(result, t.carry, {str(p): event.stack[p] for p in alive})
    for name, x in money.antes.items():
        event.stack[int(name)] -= x
    for name, x in money.payouts.items():
        event.stack[int(name)] += x
    for name, x in money.penalties.items():
        event.stack[int(name)] -= x
    t.carry = money.next_carry
    t.excused = [int(x) for x in result["excused_next"]]
    still = [p for p in alive if event.stack[p] > 0]
    nxt = int(result["next_dealer"])
    if nxt not in still and still:
        later = alive[alive.index(nxt) :] + alive[: alive.index(nxt)]
        nxt = next(p for p in later if p in still)
    t.dealer = nxt
    t.players = still  # who went out leaves the table
    t.hands += 1
    event.hands += 1
    assert min(event.stack.values()) >= 0
    event.conserved()


def run_freezeout(
    entrants: int, seed: str, min_size: int, max_size: int, chips: int, deal_at: int
) -> tuple[Event, str]:
    """One freeze-out to a winner or a deal; returns the event and how it ended."""
    rng = random.Random(seed)
    bot = HeuristicBot(rng)
    players = list(range(1, entrants + 1))
    drawn = logic.draw_tables(
        players, seed, logic.table_sizes(entrants, min_size, max_size), salt=1
    )
    event = Event(
        min_size,
        max_size,
        per_level=rng.choice([4, 6, 10]),
        stack=dict.fromkeys(players, chips),
        tables={n: Table(list(ps), dealer=ps[0]) for n, ps in enumerate(drawn, start=1)},
        total=entrants * chips,
    )
    short_run: dict[int, int] = {}
    while True:
        assert event.hands < HAND_CAP, f"stalled: {entrants} entrants, seed {seed}"
        if len(event.tables) == 1:
            (last,) = event.tables.values()
            if len(last.players) == 1:
                return event, "winner"
            if len(last.players) <= deal_at and last.carry == 0:
                return event, "deal"
        n = rng.choice(sorted(event.tables))
        if len(event.tables[n].players) < 2:
            event.balance(None, seed)  # nothing can be dealt there: the next check breaks it
            continue
        if n in breaks.blocked(event.now(None), min_size, max_size):
            # Refused (record_hand's check): the director checks the tables.
            event.balance(None, seed)
            if n not in event.tables or n in breaks.blocked(event.now(None), min_size, max_size):
                continue  # broken, or it waits for a player from a table mid-pot
        size = len(event.tables[n].players)
        final = len(event.tables) == 1
        # T1/T2: no table deals below the minimum except the final table.
        assert final or size >= min_size, (size, [len(t.players) for t in event.tables.values()])
        short_run[n] = short_run.get(n, 0) + 1 if size < min_size and not final else 0
        event.longest_short = max(event.longest_short, short_run[n])
        _play(event, n, rng, bot)
        event.balance(n, seed)


@settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    entrants=st.integers(20, 100),
    seed=st.text("abcdef0123456789", min_size=4, max_size=8),
    limits=st.sampled_from([(4, 7), (4, 7), (3, 6), (4, 8), (3, 7), (3, 5)]),
    chips=st.integers(10, 40),
    deal_at=st.sampled_from([1, 1, 2, 3]),  # 1: no deal, play to one winner
)
def test_freezeouts_never_deal_short_conserve_chips_and_end(entrants, seed, limits, chips, deal_at):
    min_size, max_size = limits
    event, how = run_freezeout(entrants, seed, min_size, max_size, chips, deal_at)
    assert event.longest_short == 0
    (last,) = event.tables.values()
    if how == "winner":
        (winner,) = last.players
        assert event.stack[winner] + last.carry == event.total  # one player holds every chip
    else:
        # A deal between the players still in: an ICM deal of what their places pay
        # shares it exactly, in whole prize units.
        pool = entrants * 2_000
        prizes = logic.prize_amounts(pool, logic.default_payout_percentages(entrants), 100)
        stacks = {p: event.stack[p] for p in last.players}
        shares = pay.icm_deal(prizes, stacks, unit=100)
        assert sum(shares.values()) == sum(prizes[: len(stacks)])
        assert all(x % 100 == 0 for x in shares.values())
