"""Time ledger.settlement on random balanced inputs.

    .venv/bin/python bench/settlement.py

Prints, for each size, the best and worst of a few runs (seconds) and the number of
transfers. Sizes up to 18 use the exact subset search; 200 uses the greedy method. The
"all ±1" row is the exact search's heaviest case (every subset with as many +1 as -1 is
zero-sum, 48,620 of them for 18 parties). Not part of the test run.
"""

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ledger.settlement import EXACT_LIMIT, greedy_transfers, settle_balances  # noqa: E402

RUNS = 5


def random_balances(rng: random.Random, n: int, spread: int = 50_000) -> dict[str, int]:
    """``n`` non-zero balances in cents that sum to zero."""
    while True:
        values = [rng.randint(-spread, spread) or 1 for _ in range(n - 1)]
        last = -sum(values)
        if last:
            return {f"p{i:03d}": v for i, v in enumerate([*values, last])}


def timed(balances: dict[str, int]) -> tuple[float, float, int, int]:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        transfers = settle_balances(balances)
        times.append(time.perf_counter() - start)
    return min(times), max(times), len(transfers), len(greedy_transfers(balances))


def main() -> None:
    rng = random.Random(2024)
    cases = [(f"n={n} random", random_balances(rng, n)) for n in (10, 14, 16, 18)]
    cases.append(("n=18 all ±1", {f"p{i:02d}": 1 if i % 2 else -1 for i in range(18)}))
    cases.append(("n=200 random (greedy)", random_balances(rng, 200)))
    print(f"Python {sys.version.split()[0]}; exact up to {EXACT_LIMIT} balances; {RUNS} runs")
    print(f"{'input':<24}{'method':>8}{'best s':>10}{'worst s':>10}{'transfers':>11}{'greedy':>8}")
    for label, balances in cases:
        method = "exact" if len(balances) <= EXACT_LIMIT else "greedy"
        best, worst, count, greedy = timed(balances)
        print(f"{label:<24}{method:>8}{best:>10.4f}{worst:>10.4f}{count:>11}{greedy:>8}")


if __name__ == "__main__":
    main()
