"""The coach's cost: a hint's latency and a hand's review (issue 37).

Run: ``.venv/bin/python bench/coach.py [--hands N] [--players P ...]``. One process.
Normal bots play every seat; at each decision of the first seat that is not forced (one
legal card), the hint is computed as the seat page's Hint button does
(``games.engine.coach``: the expert's appraisal of the seat's own view, seeded by hand and
move count). After the hand, the seat's review is computed as
``games.digital.coach.review_for`` does (replay the log, appraise and judge each of the
seat's decisions), without the database.

Prints hint latency p50/p95/max and review time per hand p50/p95/max, CPU time of the
process. Targets: a hint answers within the expert's own budget (p95 ≤ 50 ms per decision,
issue 37); a review is computed in its own request after the hand, well under a second.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import HandState  # noqa: E402
from games.engine.coach import appraise, hint, judge  # noqa: E402
from games.engine.expert import make_bot  # noqa: E402

NAMES = ["ann", "ben", "cal", "dee", "eve", "fay", "gus"]


def _forced(view) -> bool:
    return view["declare"] is None and len(view["legal"]) <= 1


def _quantile(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p * len(s)))]


def run(players: int, hands: int) -> str:
    hints: list[float] = []
    reviews: list[float] = []
    names = NAMES[:players]
    for h in range(hands):
        state = HandState.new(names, names[-1], {}, random.Random(h))
        log = []
        while state.phase != "done":
            who = state.awaiting[0]
            view = state.view_for(who)
            if who == "ann" and not _forced(view):
                t0 = time.process_time()
                hint(view, appraise(view, f"coach:{h}:{len(log)}"))
                hints.append(time.process_time() - t0)
            action = make_bot("normal", random.Random(f"{h}:{len(log)}")).act(view)
            state.apply(action)
            log.append(action)
        t0 = time.process_time()
        again = HandState.new(names, names[-1], {}, random.Random(h))
        for seq, action in enumerate(log):
            if action["player"] == "ann":
                view = again.view_for("ann")
                if not _forced(view):
                    judge(appraise(view, f"coach:{h}:{seq}"), action)
            again.apply(action)
        reviews.append(time.process_time() - t0)
    ms = 1000
    return (
        f"{players} players, {hands} hands: hint p50 {ms * statistics.median(hints):.1f} ms "
        f"p95 {ms * _quantile(hints, 0.95):.1f} ms max {ms * max(hints):.1f} ms "
        f"({len(hints)} hints); review per hand p50 {ms * statistics.median(reviews):.0f} ms "
        f"p95 {ms * _quantile(reviews, 0.95):.0f} ms max {ms * max(reviews):.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=60)
    parser.add_argument("--players", type=int, nargs="+", default=[4, 7])
    args = parser.parse_args()
    for players in args.players:
        print(run(players, args.hands), flush=True)


if __name__ == "__main__":
    main()
