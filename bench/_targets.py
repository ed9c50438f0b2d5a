"""Issue #31's performance targets, printed as MET / NOT MET beside the same-run figure
(bench/floor.py and bench/load.py). Not a benchmark (``make bench`` skips ``_`` files)."""

from __future__ import annotations

RESULTS: list[tuple[str, str, bool]] = []


def check(label: str, value: float, limit: float, at_most: bool = True, unit: str = "×") -> bool:
    """Record and print one target: ``value`` at most (or at least) ``limit``."""
    met = value <= limit if at_most else value >= limit
    sign = "≤" if at_most else "≥"
    shown = f"{value:,.2f}{unit} (target {sign} {limit:,.2f}{unit})"
    RESULTS.append((label, shown, met))
    print(f"   TARGET {label}: {shown}: {'MET' if met else 'NOT MET'}")
    return met


def summary() -> None:
    if not RESULTS:
        return
    print("== targets (issue #31), this run")
    for label, shown, met in RESULTS:
        print(f"   {'MET    ' if met else 'NOT MET'} {label}: {shown}")
