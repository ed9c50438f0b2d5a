"""Bot levels against each other: chips per hand with 95 % intervals, and decision time.

Run: ``.venv/bin/python bench/bots.py [--hands N] [--seed S] [--jobs 2]``.

Every figure is a duplicate match (``games.engine.botmatch.head_to_head``): deal k seats
the *hero* level at seat k mod P among *field* bots and plays it; the very same deal is
then played with a field bot in that seat (same seeds for everyone else), so the
difference is the hero level's doing alone; seats rotate with k, the dealer every P deals.
Every hand starts with an empty pot; default rules. An expert is told the field's levels
(what the table shows), as a digital table tells it.

Prints, at 4 and 7 players:

1. every level against every other: the hero level's edge over the field level in the
   same seat, chips/hand ± the 95 % interval (1.96 standard errors). Expert fields are
   slow (every other seat searches), so those cells play ``--hands // 8`` deals; the
   expert as hero ``--hands``; the cheap levels among themselves ``--hands * 4``.
2. the expert's edge over the careful field (issue #37: at least +0.3 chips/hand at 4
   and at 7 players), from ``--edge-hands`` deals; beside it, on the same deals, a
   yardstick no seat ever gets: the same search told every other player's real cards
   (only the draw's order unknown). What that all-seeing search gains over a careful
   player is about the most the careful field gives away to this kind of search.
3. the expert's decision latency, p50/p95/max CPU milliseconds (CPU time of its process,
   so that other programs on a shared machine do not count; target p95 ≤ 50 ms).

Runs the matches in ``--jobs`` processes (2 at most on the shared machine).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import BOT_LEVELS, Rules, make_bot  # noqa: E402
from games.engine.botmatch import NAMES, HeadToHead, head_to_head  # noqa: E402
from games.engine.bots import HeuristicBot  # noqa: E402
from games.engine.expert import ExpertBot, _Seat, _Want  # noqa: E402
from games.engine.state import HandState  # noqa: E402

Job = tuple[str, str, int, int, int]  # hero, field, players, hands, seed


class _Seeing(ExpertBot):
    """The yardstick (never a seat's bot: it cheats): the expert's own search, but its
    worlds are the real ones. Declaring, the other hands as dealt (the stock's order is
    still drawn at random: nobody knows it yet); in trick play, the cards each holds."""

    def __init__(self, rng: random.Random, field: dict[str, str], table: list[HandState]):
        super().__init__(rng, field=field)
        self.table = table  # the hand being played, shown by head_to_head's watch

    def _world(
        self, view: object, seat: _Seat, rng: random.Random
    ) -> tuple[dict[int, int], list[int]]:
        state = self.table[0]
        hands = {s: state.hands[s] for s in range(seat.n) if s != seat.me}
        used = seat.hand | 1 << seat.up
        for mask in hands.values():
            used |= mask
        stock = [c for c in range(52) if not used >> c & 1]
        return hands, rng.sample(stock, min(len(stock), seat.rules.hand_size * seat.n))

    def _field_hands(
        self, rng: random.Random, pool: list[int], wants: list[_Want], seen: int, checks: object
    ) -> dict[int, int]:
        tp = self.table[0].tp
        assert tp is not None  # trick play
        return {w.seat: tp.hands[w.seat] for w in wants}


def _run(job: Job) -> tuple[Job, HeadToHead, float]:
    hero, field, players, hands, seed = job
    levels = dict.fromkeys(NAMES[:players], field)
    table: list[HandState] = []

    def watch(state: HandState) -> None:
        table[:] = [state]

    def make_hero(key: str) -> ExpertBot | HeuristicBot:
        if hero == "seeing":
            return _Seeing(random.Random(key), levels, table)
        return make_bot(hero, random.Random(key), levels)

    start = time.perf_counter()
    figures = head_to_head(
        hands,
        players,
        seed,
        Rules(),
        make_hero,
        lambda key: make_bot(field, random.Random(key), levels),
        watch=watch if hero == "seeing" else None,
    )
    return job, figures, time.perf_counter() - start


def _interval(figures: HeadToHead) -> str:
    d = figures["difference"]
    return f"{d['mean']:+.2f} ± {1.96 * d['stderr']:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--hands", type=int, default=240, help="deals per expert-hero cell")
    parser.add_argument(
        "--edge-hands", type=int, default=1200, help="deals for the expert's edge over careful"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=2, choices=(1, 2))
    parser.add_argument("--players", type=int, nargs="+", default=[4, 7])
    args = parser.parse_args()
    jobs: list[Job] = []
    for players in args.players:
        # the headline first: the longest runs start first
        jobs.append(("expert", "careful", players, args.edge_hands, args.seed + 1))
        jobs.append(("seeing", "careful", players, args.edge_hands, args.seed + 1))
        for hero in BOT_LEVELS:
            for field in BOT_LEVELS:
                if hero == field:
                    continue
                if field == "expert":
                    hands = max(args.hands // 8, 8)
                elif hero == "expert":
                    hands = args.hands
                else:
                    hands = args.hands * 4
                jobs.append((hero, field, players, hands, args.seed))
    start = time.perf_counter()
    results: dict[Job, HeadToHead] = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for job, figures, seconds in pool.map(_run, jobs):
            results[job] = figures
            print(
                f"  … {job[0]} in a {job[1]} field, {job[2]} players, {job[3]} deals: "
                f"{_interval(figures)} ({seconds:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    wall = time.perf_counter() - start
    print(
        f"Python {sys.version.split()[0]}; seed {args.seed}; default rules, empty pot; "
        f"{wall:.0f} s in {args.jobs} process(es)"
    )
    width = 10
    for players in args.players:
        print(
            f"\n{players} players: hero level's edge over the field level in the same seat, "
            "chips/hand ± 95 % interval (deals)"
        )
        print("  " + "hero \\ field".ljust(14) + "".join(f.rjust(width + 10) for f in BOT_LEVELS))
        for hero in BOT_LEVELS:
            cells = []
            for field in BOT_LEVELS:
                found = [f for j, f in results.items() if j[:3] == (hero, field, players)
                         and j[4] == args.seed]  # fmt: skip
                if not found:
                    cells.append("—".rjust(width + 10))
                    continue
                figures = found[0]
                cells.append(f"{_interval(figures)} ({figures['hands']})".rjust(width + 10))
            print("  " + hero.ljust(14) + "".join(cells))
    print("\nThe expert's edge over a careful field (target ≥ +0.30 chips/hand):")
    for players in args.players:
        figures = results[("expert", "careful", players, args.edge_hands, args.seed + 1)]
        e, c = figures["hero"], figures["base"]
        seeing = results[("seeing", "careful", players, args.edge_hands, args.seed + 1)]
        print(
            f"  {players} players, {figures['hands']} deals: expert {e['mean']:+.3f}, "
            f"careful {c['mean']:+.3f} in the same seat; edge {_interval(figures)}; "
            f"the same search seeing every hand: {_interval(seeing)}"
        )
    print("\nExpert decision latency, CPU ms (target p95 ≤ 50):")
    for players in args.players:
        for field in BOT_LEVELS:
            if field == "expert":
                continue
            found = [f for j, f in results.items() if j[:3] == ("expert", field, players)]
            decisions = sum(f["decisions"] for f in found)
            p50 = max(f["p50_ms"] for f in found)
            p95 = max(f["p95_ms"] for f in found)
            top = max(f["max_ms"] for f in found)
            print(
                f"  {players} players, {field} field: {decisions} decisions, "
                f"p50 {p50:.1f}, p95 {p95:.1f}, max {top:.1f}"
            )


if __name__ == "__main__":
    main()
