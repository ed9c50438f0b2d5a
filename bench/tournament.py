"""Tournament benchmark: the draw, a balancing step, and the bracket page.

1. The seat draw of 1,000 entrants (pure games.engine.tournament): round one, and a later round
   that avoids players who already met (from 1,000 entrants' first-round tables).
2. One balancing step: the pure plan for 143 freeze-out tables after eliminations, and
   the same step through the service on a 200-entrant freeze-out in the database
   (breaks and moves: cash-outs, seats, buy-ins, SeatMove rows).
3. The bracket page (django.test.Client through URL routing and middleware) of a table
   rounds tournament with round one played out and round two drawn, for 50 and for 200
   entrants: time (best and median of 20) and query count — the same count for both.

4. 200 freeze-outs of 20–100 bot entrants (issue #18), played to one winner: the engine's
   HandState and HeuristicBot deal and play every hand, the ledger's chip-limited
   arithmetic (``ledger.postings.hands._money``: short antes, penalties capped by the
   stack) moves the chips, tables break and balance by ``plan_balance`` between hands
   with an empty pot, and the ante rises every 6 hands at each table along the default
   schedule and then keeps rising (``ante_for``). Every one must finish; the script
   prints the distribution of hands to a winner (all tables' hands, and the hands the
   busiest table played: a proxy for the time it takes).

5. Real freeze-outs in the database (issue #35, RULES.md T1–T3): events of 20–40 entrants
   created, entered, checked in and started through ``games.tournaments.service``; bots
   deal and play every hand, recorded by ``ledger.postings.record_hand`` at a table
   picked at random (the after-hand hook balances and breaks tables, pots moving with
   their players). A table refused a hand (below the minimum, ``record_hand``'s check)
   gets the director's "Check the tables" (``service.sync``) and deals only if that made
   it whole. Prints the hands to a winner, the longest a table stayed below the minimum
   while dealing (hands; must be 0: only the final table may deal short), the longest a
   refused short table waited (hands dealt elsewhere meanwhile), and that every table's
   books, the chip report and the prize ledger hold. Half as many events again start
   with every table of seven full and take one to three late entrants before the first
   hand: the first opens a table, balancing fills it (the hands dealt elsewhere before
   its first hand are printed).

Target (issue #6): draw under 1 s; bracket query count independent of entrants.
Target (issue #18): every freeze-out finishes.
Target (issue #35): every database freeze-out ends with one winner; no table deals
below the minimum (0).

    .venv/bin/python bench/tournament.py                 # a throwaway SQLite file
    .venv/bin/python bench/tournament.py --freezeouts N  # only part 4, N tournaments
    .venv/bin/python bench/tournament.py --db-freezeouts N  # only part 5, N events
    .venv/bin/python bench/tournament.py --postgres      # database bench_tournament on
                                                         # 127.0.0.1:5432 (BENCH_PG=...),
                                                         # created and dropped
    .venv/bin/python bench/tournament.py --smoke         # every part once, small (a test
                                                         # runs it; its own database)
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

import _database

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

POSTGRES = "--postgres" in sys.argv
SMOKE = "--smoke" in sys.argv
DB_NAME = "bench_tournament_smoke" if SMOKE else "bench_tournament"
SQLITE_FILE = _database.sqlite_file(DB_NAME)
_database.configure(DB_NAME, postgres=POSTGRES)


def best_median(fn, runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


# -- 1 and 2: pure ------------------------------------------------------------------------


def bench_pure() -> None:
    from games.engine import tournament as logic

    players = list(range(1, 1001))
    best, median = best_median(
        lambda: logic.draw_round(logic.seeded_order(players, "bench"), "bench", 4, 7), 10
    )
    first = logic.draw_round(logic.seeded_order(players, "bench"), "bench", 4, 7)
    print(
        f"draw 1,000 entrants (round one, {len(first.tables)} tables): "
        f"best {best * 1000:.1f} ms, median {median * 1000:.1f} ms"
    )

    met: dict[int, set[int]] = {}
    for table in first.tables:
        for p in table:
            met[p] = set(table) - {p}
    # Everyone plays on (the hardest case for avoiding rematches).
    best, median = best_median(
        lambda: logic.draw_round(players, "bench2", 4, 7, met=met, round_no=2), 5
    )
    second = logic.draw_round(players, "bench2", 4, 7, met=met, round_no=2)
    plain = logic.draw_tables(players, "bench2", logic.table_sizes(1000, 4, 7), salt=2)
    print(
        f"draw 1,000 entrants avoiding first-round tablemates: best {best * 1000:.1f} ms, "
        f"median {median * 1000:.1f} ms; repeat meetings {logic.repeat_meetings(second.tables, met)}"
        f" (a plain draw: {logic.repeat_meetings(plain, met)})"
    )

    rng = random.Random(7)
    tables = {n: list(t) for n, t in enumerate(first.tables, start=1)}
    for seats in tables.values():  # eliminations: each table loses 0–4 players
        for _ in range(rng.randint(0, 4)):
            seats.pop()
    plan = logic.plan_balance(tables, 4, 7, logic.rng_for("bench", "balance", 1))
    best, median = best_median(
        lambda: logic.plan_balance(tables, 4, 7, logic.rng_for("bench", "balance", 1)), 20
    )
    print(
        f"one balancing step, {len(tables)} tables, {sum(map(len, tables.values()))} players "
        f"({len(plan.broken)} tables broken, {len(plan.moves)} moves): "
        f"best {best * 1000:.2f} ms, median {median * 1000:.2f} ms"
    )


# -- 2 and 3: through the database --------------------------------------------------------


def setup_club(size: int, tag: str):
    from django.contrib.auth import get_user_model

    from games.models import Club, Membership, Player, Role

    user, _ = get_user_model().objects.get_or_create(username="director")
    club = Club.objects.create(name=f"Bench {tag}", created_by=user)
    Membership.objects.create(club=club, user=user, role=Role.OWNER)
    players = Player.objects.bulk_create(
        [Player(club=club, name=f"{tag}-{i:04d}") for i in range(size)]
    )
    return user, club, players


def entered(size: int, tag: str, **settings):
    from games.tournaments import service as svc

    user, club, players = setup_club(size, tag)
    t = svc.create_tournament(club=club, user=user, name=tag, buy_in=20, **settings)
    for player in players:
        entry = svc.register(tournament_id=t.pk, player=player, user=user)
        svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=user)
    return user, t


def bench_balancing_step(size: int = 200) -> None:
    from games.models import GameSession, Seat, SeatMove
    from games.tournaments import service as svc
    from games.tournaments import tables as tables_mod
    from ledger import postings
    from ledger.postings import _common

    user, t = entered(size, "freeze", format="freezeout", starting_chips=10, antes=[1])
    svc.start(tournament_id=t.pk, user=user)
    # Set the tables up without the after-hand hook, so the step is measured below.
    listeners = list(_common._table_hand_listeners)
    _common._table_hand_listeners.clear()
    # Two tables lose players: one falls below the minimum (breaks), one is short.
    tables = list(t.tables.select_related("session").order_by("number"))
    for table, losses in ((tables[-1], 3), (tables[0], 2)):
        session = table.session
        state = postings.session_state(session)
        players = state["players"]
        losers = players[1 : 1 + losses]
        tricks = {players[0]: 5, **dict.fromkeys(losers, 0)}
        passed = [p for p in players if p not in tricks]
        # The losers play, take nothing and owe the pot: with 10 chips and a growing pot
        # they are out after a few hands.
        for _ in range(8):
            if tables_mod.deal_refusal(session.pk) is not None:
                break  # below the minimum: it breaks before it deals again (T1)
            if GameSession.objects.get(pk=session.pk).carry:
                tricks = {players[0]: 5, **dict.fromkeys(losers, 0)}
            postings.record_hand(
                session_id=session.pk,
                entry={"trump": "S", "passed": passed, "tricks": tricks},
                idempotency_key="",
                expected_version=None,
                user=user,
            )
            alive = Seat.objects.filter(
                session=session, active=True, player__name__in=losers
            ).count()
            if not alive:
                break
    # A pot left at the short table that still deals: a clean hand first. A table below
    # the minimum deals no more (T1); its pot moves with its players when it breaks.
    for table in (tables[-1], tables[0]):
        session = GameSession.objects.get(pk=table.session_id)
        state = postings.session_state(session)
        players = state["players"]
        if session.carry and tables_mod.deal_refusal(session.pk) is None:
            postings.record_hand(
                session_id=session.pk,
                entry={
                    "trump": "S",
                    "passed": players[2:],
                    "tricks": {players[0]: 3, players[1]: 2},
                },
                idempotency_key="",
                expected_version=None,
                user=user,
            )
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    _common._table_hand_listeners.extend(listeners)
    reset_queries()
    start = time.perf_counter()
    with CaptureQueriesContext(connection) as ctx:
        changed = svc.sync(tournament_id=t.pk, user=user)
    elapsed = time.perf_counter() - start
    queries = len(ctx)
    moves = SeatMove.objects.filter(tournament=t)
    print(
        f"one balancing step in the database, {size}-entrant freeze-out ({len(tables)} tables): "
        f"{elapsed * 1000:.0f} ms, {queries} queries, {moves.count()} moves "
        f"({moves.filter(reason='break').count()} from a broken table), changed={changed}"
    )


def bench_bracket(size: int) -> tuple[float, float, int]:
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from games.tournaments import service as svc
    from ledger import postings

    user, t = entered(size, f"bracket{size}", starting_chips=30, antes=[1, 2])
    svc.start(tournament_id=t.pk, user=user)
    svc.end_round(tournament_id=t.pk, user=user, now=True)
    svc.draw_next_round(tournament_id=t.pk, user=user)
    for table in t.tables.filter(status="playing").select_related("session"):
        state = postings.session_state(table.session)
        players = state["players"]
        postings.record_hand(
            session_id=table.session_id,
            entry={"trump": "H", "passed": players[2:], "tricks": {players[0]: 3, players[1]: 2}},
            idempotency_key="",
            expected_version=None,
            user=user,
        )
    client = Client()
    client.force_login(user)
    url = reverse("tournament_bracket", args=[t.pk])
    assert client.get(url).status_code == 200
    # The request_started signal clears the query log: start the capture from empty.
    reset_queries()
    with CaptureQueriesContext(connection) as ctx:
        client.get(url)
    queries = len(ctx)  # now: the list is a slice of a log the next request clears
    best, median = best_median(lambda: client.get(url), 20)
    tables = t.tables.count()
    print(
        f"bracket page, {size} entrants ({tables} tables in 2 rounds): best {best * 1000:.1f} ms, "
        f"median {median * 1000:.1f} ms, {queries} queries"
    )
    return best, median, queries


# -- 4: freeze-outs to the end ---------------------------------------------------------------

HAND_CAP = 50_000  # a tournament still running after this many hands counts as stalled


def simulate_freezeout(entrants: int, seed: str, chips: int = 20, hands_per_level: int = 6):
    """One freeze-out to a single winner (see the module docstring). Returns (all hands,
    the busiest table's hands, tables at the start)."""
    from games.engine import HeuristicBot
    from games.engine import tournament as logic

    rng = random.Random(seed)
    bot = HeuristicBot(rng)
    players = list(range(1, entrants + 1))
    drawn = logic.draw_tables(players, seed, logic.table_sizes(entrants, 4, 7), salt=1)
    seats = {n: list(t) for n, t in enumerate(drawn, start=1)}
    stack = dict.fromkeys(players, chips)
    state = {n: {"dealer": t[0], "carry": 0, "excused": [], "hands": 0} for n, t in seats.items()}
    total = busiest = 0
    step = 0
    while sum(1 for p in players if stack[p] > 0) > 1:
        if total > HAND_CAP:
            raise RuntimeError(f"stalled: {entrants} entrants, seed {seed}")
        for n in list(seats):
            seats[n] = [p for p in seats[n] if stack[p] > 0]
            if _play_one(seats[n], state[n], stack, rng, bot, hands_per_level):
                total += 1
                busiest = max(busiest, state[n]["hands"])
        step += 1
        seats = _rebalance(seats, state, stack, seed, step)
    return total, busiest, len(drawn)


# radon D: one hand's deal, play and money at one table, in the order the ledger settles it.
def _play_one(alive: list[int], st: dict, stack: dict[int, int], rng, bot, per_level: int) -> bool:
    """One hand at a table of ``alive`` players (stacks and the table's state updated);
    False when fewer than two are left (a lone player takes the carried pot)."""
    from games.engine import HandState, verify
    from games.engine import tournament as logic
    from games.tournaments.service import DEFAULT_ANTES
    from ledger.postings.hands import _money

    if len(alive) < 2:
        if alive and st["carry"]:  # alone at the table: the pot is theirs
            stack[alive[0]] += st["carry"]
            st["carry"] = 0
        return False
    if st["dealer"] not in alive:
        st["dealer"] = alive[0]
    ante = logic.ante_for(DEFAULT_ANTES, st["hands"] // per_level)
    hand = HandState.new(
        [str(p) for p in alive],
        str(st["dealer"]),
        {"ante": ante},
        rng,
        carry=st["carry"],
        excused=[str(p) for p in st["excused"] if p in alive],
    )
    while hand.outcome() is None:
        hand.apply(bot.act(hand.view_for(hand.to_act or hand.awaiting[0])))
    result = verify(hand.to_record())["result"]
    money = _money(result, st["carry"], {str(p): stack[p] for p in alive})
    for name, x in money.antes.items():
        stack[int(name)] -= x
    for name, x in money.payouts.items():
        stack[int(name)] += x
    for name, x in money.penalties.items():
        stack[int(name)] -= x
    st["carry"] = money.next_carry
    st["excused"] = [int(x) for x in result["excused_next"]]
    nxt = int(result["next_dealer"])
    still = [p for p in alive if stack[p] > 0]
    if nxt not in still and still:
        later = alive[alive.index(nxt) :] + alive[: alive.index(nxt)]
        nxt = next(p for p in later if p in still)
    st["dealer"] = nxt
    st["hands"] += 1
    return True


def _rebalance(seats: dict, state: dict, stack: dict[int, int], seed: str, step: int) -> dict:
    """The tables after a round: balanced (broken tables' carried pots to the player
    moved) while more than one has players."""
    from games.engine import tournament as logic

    live = {n: [p for p in ps if stack[p] > 0] for n, ps in seats.items()}
    live = {n: ps for n, ps in live.items() if ps}
    if len(live) <= 1:
        return live
    held = {n for n in live if state[n]["carry"] and len(live[n]) > 1}
    plan = logic.plan_balance(live, 4, 7, logic.rng_for(seed, "balance", step), held=held)
    for move in plan.moves:
        source = state[move.source]
        if move.source in plan.broken and source["carry"]:
            stack[move.player] += source["carry"]
            source["carry"] = 0
    return {n: list(ps) for n, ps in plan.tables.items()}


def percentile(values: list[int], q: int) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, len(ordered) * q // 100)]


def bench_freezeouts(runs: int) -> None:
    rng = random.Random(18)
    results = []
    start = time.perf_counter()
    stalled = []
    for i in range(runs):
        entrants = rng.randint(20, 100)
        try:
            total, busiest, _ = simulate_freezeout(entrants, f"fz{i}")
        except RuntimeError as exc:
            stalled.append(str(exc))
            continue
        results.append((entrants, total, busiest))
    elapsed = time.perf_counter() - start
    totals = [r[1] for r in results]
    busiest = [r[2] for r in results]
    print(
        f"{runs} freeze-outs of 20–100 bot entrants: {len(results)} finished, "
        f"{len(stalled)} stalled ({elapsed:.0f} s)" + "".join(f"\n  {s}" for s in stalled)
    )
    for label, values in (("all tables' hands", totals), ("busiest table's hands", busiest)):
        print(
            f"  hands to a winner, {label}: min {min(values)}, p10 {percentile(values, 10)}, "
            f"median {statistics.median(values):.0f}, p90 {percentile(values, 90)}, "
            f"max {max(values)}"
        )
    print("  by field size (entrants: runs, median all hands, median busiest table):")
    for lo in range(20, 101, 20):
        group = [r for r in results if lo <= r[0] < lo + 20 or (lo == 100 and r[0] == 100)]
        if group:
            label = "100" if lo == 100 else f"{lo}–{lo + 19}"
            print(
                f"    {label}: {len(group)}, "
                f"{statistics.median(r[1] for r in group):.0f}, "
                f"{statistics.median(r[2] for r in group):.0f}"
            )


# -- 5: real freeze-outs in the database ------------------------------------------------------


def _bot_hand(session, rng: random.Random, user) -> None:
    """One hand dealt and played by bots at this table, recorded like a digital hand."""
    from games.engine import HandState, HeuristicBot
    from games.engine.record import SESSION_KEYS
    from games.models import Hand
    from ledger import postings

    state = postings.session_state(session)
    hand = HandState.new(
        state["players"],
        state["dealer"],
        state["rules"],
        rng,
        carry=state["carry"],
        excused=state["excused"],
    )
    bot = HeuristicBot(rng)
    while hand.outcome() is None:
        hand.apply(bot.act(hand.view_for(hand.to_act or hand.awaiting[0])))
    entry = {k: v for k, v in hand.to_record().items() if k not in SESSION_KEYS}
    postings.record_hand(
        session_id=session.pk,
        entry=entry,
        idempotency_key="",
        expected_version=state["version"],
        user=user,
        kind=Hand.Kind.DIGITAL,
    )


# radon D: one event from registration to its winner, with the checks the issue asks for.
def db_freezeout(entrants: int, seed: str, late: int = 0) -> dict[str, int]:
    """One freeze-out in the database to its winner (see part 5 above); ``late``
    entrants arrive after the start, when every table is full (``entrants`` a multiple of
    seven): the first opens a table, balancing fills it."""
    from games.models import GameSession, Player, Tournament, TournamentTable
    from games.tournaments import selectors
    from games.tournaments import service as svc
    from games.tournaments import tables as tables_mod
    from ledger import postings

    user, t = entered(
        entrants,
        f"db{seed}",
        format="freezeout",
        starting_chips=20,
        hands_per_level=6,
        min_table=4,
        max_table=7,
        late_until_level=2 if late else 0,
    )
    svc.start(tournament_id=t.pk, user=user)
    drawn = t.tables.count()
    for i in range(late):
        player = Player.objects.create(club=t.club, name=f"late{seed}-{i}")
        entry = svc.register(tournament_id=t.pk, player=player, user=user)
        svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=user)
    opened = list(t.tables.order_by("number")[drawn:])
    rng = random.Random(seed)
    hands = short_dealt = longest_short = refused = longest_wait = 0
    first_deal = -1  # hands dealt elsewhere before the opened table's first
    short_run: dict[int, int] = {}
    waiting_since: dict[int, int] = {}
    while True:
        t.refresh_from_db()
        if t.status == Tournament.Status.FINISHED:
            break
        if hands > HAND_CAP:
            raise RuntimeError(f"stalled: {entrants} entrants, seed {seed}")
        playing = list(t.tables.filter(status=TournamentTable.Status.PLAYING))
        table = rng.choice(playing)
        session = GameSession.objects.get(pk=table.session_id)
        alive = tables_mod.table_infos([table])[table.pk].alive
        if len(alive) < 2:
            svc.sync(tournament_id=t.pk, user=user)
            continue
        if postings.table_deal_refusal(session) is not None:
            refused += 1
            waiting_since.setdefault(table.pk, hands)
            svc.sync(tournament_id=t.pk, user=user)  # the director's "Check the tables"
            session.refresh_from_db()
            if not session.is_open or postings.table_deal_refusal(session) is not None:
                continue
            alive = tables_mod.table_infos([table])[table.pk].alive
        if table.pk in waiting_since:
            longest_wait = max(longest_wait, hands - waiting_since.pop(table.pk))
        if first_deal < 0 and opened and table.pk == opened[0].pk:
            first_deal = hands
        final = len(playing) == 1
        below = len(alive) < t.min_table and not final
        short_run[table.pk] = short_run.get(table.pk, 0) + 1 if below else 0
        short_dealt += below
        longest_short = max(longest_short, short_run[table.pk])
        _bot_hand(session, rng, user)  # the after-hand hook balances (apps.ready)
        hands += 1
    for x in t.tables.select_related("session"):
        postings.check_invariants(x.session)
    postings.check_prize_ledger(t)
    (report,) = selectors.chip_report(t)
    assert report["now"] == report["start"], report
    winners = t.entries.filter(status="winner").count()
    broken = t.tables.filter(status=TournamentTable.Status.BROKEN)
    moved = sum(sum((x.result.get("pot_moved") or {}).values()) for x in broken)
    return {
        "entrants": entrants,
        "hands": hands,
        "winners": winners,
        "longest_short": longest_short,
        "short_dealt": short_dealt,
        "refused": refused,
        "longest_wait": longest_wait,
        "broken": broken.count(),
        "pot_moved": moved,
        "late": late,
        "opened": len(opened),
        "first_deal": first_deal,
    }


def bench_db_freezeouts(runs: int) -> None:
    rng = random.Random(35)
    start = time.perf_counter()
    rows = [db_freezeout(rng.randint(20, 40), f"i35-{i}") for i in range(runs)]
    # A full room that grows: 21–35 entrants fill every table of seven, then 1–3 arrive.
    rows += [
        db_freezeout(7 * rng.randint(3, 5), f"i35-grow-{i}", late=rng.randint(1, 3))
        for i in range(max(runs // 2, 1))
    ]
    elapsed = time.perf_counter() - start
    print(
        f"{len(rows)} freeze-outs of 20–40 entrants in the database ({elapsed:.0f} s), "
        "each to its winner through the service and the ledger:"
    )
    for r in rows:
        grew = (
            f" + {r['late']} late into full tables ({r['opened']} table opened, its first "
            f"hand after {r['first_deal']} hands elsewhere)"
            if r["late"]
            else ""
        )
        print(
            f"  {r['entrants']} entrants{grew}: {r['hands']} hands to a winner "
            f"({r['winners']} winner), "
            f"{r['broken']} tables broken, {r['pot_moved']} pot chips moved with their players, "
            f"{r['refused']} hands refused at a short table (longest wait {r['longest_wait']} "
            f"hands elsewhere), longest a table dealt below the minimum: {r['longest_short']}"
        )
    print(
        f"  longest a table stayed below the minimum (hands dealt short, all events): "
        f"{max(r['longest_short'] for r in rows)}; every event ended with one winner: "
        f"{all(r['winners'] == 1 for r in rows)}"
    )


def main() -> None:
    print(f"database: {'PostgreSQL ' + DB_NAME if POSTGRES else 'SQLite ' + str(SQLITE_FILE)}")
    if "--db-freezeouts" in sys.argv:
        runs = int(sys.argv[sys.argv.index("--db-freezeouts") + 1])
        with _database.scratch(DB_NAME, postgres=POSTGRES):
            import django

            django.setup()
            from django.core.management import call_command

            call_command("migrate", verbosity=0)
            bench_db_freezeouts(runs)
        return
    if "--freezeouts" in sys.argv:
        runs = int(sys.argv[sys.argv.index("--freezeouts") + 1])
        import django

        django.setup()
        bench_freezeouts(runs)
        return
    bench_pure()
    with _database.scratch(DB_NAME, postgres=POSTGRES):
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        # --smoke: every part once, small (tests/test_bench_smoke.py), so a bench that
        # the code has moved away from fails in CI rather than on the day it is run.
        bench_freezeouts(3 if SMOKE else 200)
        bench_db_freezeouts(1 if SMOKE else 6)
        bench_balancing_step(40 if SMOKE else 200)
        sizes = (20, 40) if SMOKE else (50, 200)
        counts = [bench_bracket(size)[2] for size in sizes]
        print(
            f"bracket query count for {sizes[0]} and {sizes[1]} entrants: {counts[0]} and {counts[1]}"
        )


if __name__ == "__main__":
    main()
