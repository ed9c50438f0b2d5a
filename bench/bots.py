"""Expert bot against the heuristic bot: chips per hand and time per decision.

Run: ``.venv/bin/python bench/bots.py [--hands N] [--players P] [--seed S]``. One core
(one process). Deal k seats the ExpertBot at seat k mod P among HeuristicBots and plays
it; the very same deal is then played with a HeuristicBot in that seat (same seeds for
everyone else), so the difference is the expert's doing alone (seats rotate with k, the
dealer every P deals). Every hand starts with an empty pot; default rules.

Prints the expert's and the heuristic's net per hand in that seat, the difference with
its standard error, and the expert's time per decision (mean and p95, CPU time of the
process, so that other programs on a shared machine do not count). Targets (issue #15): difference ≥ +0.3 chips/hand at
4 players over 10,000 hands; p95 ≤ 50 ms per decision.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import ExpertBot, HeuristicBot, Rules  # noqa: E402
from games.engine.botmatch import head_to_head  # noqa: E402


def _progress(figures: dict) -> None:
    d = figures["difference"]
    print(
        f"  … {figures['hands']} deals: difference {d['mean']:+.3f} ± {d['stderr']:.3f}, "
        f"p95 {figures['p95_ms']:.1f} ms",
        file=sys.stderr,
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=4, choices=range(2, 9))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    start = time.perf_counter()
    figures = head_to_head(
        args.hands,
        args.players,
        args.seed,
        Rules(),
        lambda key: ExpertBot(random.Random(key)),
        lambda key: HeuristicBot(random.Random(key)),
        progress=None if args.json else _progress,
    )
    figures["seconds"] = time.perf_counter() - start
    if args.json:
        print(json.dumps(figures))
        return
    e, h, d = figures["hero"], figures["base"], figures["difference"]
    print(
        f"Python {sys.version.split()[0]}; {args.hands} deals, {args.players} players, "
        f"seed {args.seed}, {figures['seconds']:.0f} s"
    )
    print(f"  ExpertBot    {e['mean']:+.3f} ± {e['stderr']:.3f} chips/hand")
    print(f"  HeuristicBot {h['mean']:+.3f} ± {h['stderr']:.3f} chips/hand (same seat, same deals)")
    print(f"  difference   {d['mean']:+.3f} ± {d['stderr']:.3f} chips/hand")
    print(
        f"  decisions    {figures['decisions']}: mean {figures['mean_ms']:.1f} ms, "
        f"p95 {figures['p95_ms']:.1f} ms (CPU time)"
    )


if __name__ == "__main__":
    main()
