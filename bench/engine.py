"""Engine throughput: random-legal playouts and verify() calls per second.

Run: ``.venv/bin/python bench/engine.py [--hands N] [--repeats R]``. Prints figures;
never part of the test run. One core; each figure is the best of R timed batches of N
(time.perf_counter): short batches, many repeats, so a shared machine shows its quiet
moments rather than its neighbours.

Targets (default rules: cinch on): ≥ 6,000 complete four-player hands/s without draws,
≥ 10,000 verify() calls/s on complete card logs of four-player hands.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import HandState, Rules, verify  # noqa: E402
from games.engine.cards import CARD_NAMES  # noqa: E402

DEFAULT = Rules()
NAMES = ("ann", "ben", "cal", "dee", "eve", "fay", "gus", "hal")


def _random_card(mask: int, rng: random.Random) -> int:
    k = int(rng.random() * mask.bit_count())
    while k:
        mask &= mask - 1
        k -= 1
    return (mask & -mask).bit_length() - 1


def playout_fast(players: tuple[str, ...], dealer: int, rng: random.Random) -> HandState:
    """Everyone plays without drawing; random legal cards via legal_mask()/push_card()."""
    state = HandState.new(players, dealer, DEFAULT, rng)
    for seat in state.order:
        state.apply({"type": "play", "player": players[seat], "discard": []})
    legal_mask = state.legal_mask
    push = state.push_card
    while state.phase == "play":
        push(_random_card(legal_mask(), rng))
    return state


def playout_json(players: tuple[str, ...], dealer: int, rng: random.Random) -> HandState:
    """The same through the JSON action API (legal_cards()/apply()), as the web app calls it."""
    state = HandState.new(players, dealer, DEFAULT, rng)
    for seat in state.order:
        state.apply({"type": "play", "player": players[seat], "discard": []})
    while state.phase == "play":
        player = state.to_act
        cards = state.legal_cards(player)
        state.apply({"type": "card", "player": player, "card": rng.choice(cards)})
    return state


def playout_draws(players: tuple[str, ...], dealer: int, rng: random.Random) -> HandState:
    """Everyone plays and exchanges a random 0..max_discard cards, then random legal cards."""
    state = HandState.new(players, dealer, DEFAULT, rng)
    for seat in state.order:
        hand = [c for c in range(52) if state.hands[seat] >> c & 1]
        discard = rng.sample(hand, rng.randint(0, DEFAULT.discard_limit))
        state.apply(
            {"type": "play", "player": players[seat], "discard": [CARD_NAMES[c] for c in discard]}
        )
    while state.phase == "play":
        state.push_card(_random_card(state.legal_mask(), rng))
    return state


def best_rate(run: Callable[[int], None], count: int, repeats: int) -> float:
    best = 0.0
    for r in range(repeats):
        start = time.perf_counter()
        run(r)
        best = max(best, count / (time.perf_counter() - start))
    return best


def playouts_per_second(kind: Callable, n_players: int, count: int, repeats: int) -> float:
    players = NAMES[:n_players]

    def run(r: int) -> None:
        rng = random.Random(1000 + r)
        for i in range(count):
            kind(players, i % n_players, rng)

    return best_rate(run, count, repeats)


def complete_records(count: int, n_players: int = 4) -> list[dict]:
    rng = random.Random(7)
    players = NAMES[:n_players]
    return [playout_fast(players, i % n_players, rng).to_record() for i in range(count)]


def verifies_per_second(count: int, repeats: int) -> float:
    records = complete_records(count)
    for record in records:
        verdict = verify(record)
        assert verdict["valid"] and verdict["complete"], verdict

    def run(r: int) -> None:
        for record in records:
            verify(record)

    return best_rate(run, count, repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=400, help="hands per timed batch")
    parser.add_argument("--repeats", type=int, default=25, help="timed batches per figure")
    args = parser.parse_args()
    n, repeats = args.hands, args.repeats

    print(f"Python {sys.version.split()[0]}; best of {repeats} batches of {n}")
    for label, kind, players in (
        ("4 players, no draws, legal_mask/push_card", playout_fast, 4),
        ("4 players, no draws, legal_cards/apply (JSON actions)", playout_json, 4),
        ("7 players, random draws, legal_mask/push_card", playout_draws, 7),
    ):
        rate = playouts_per_second(kind, players, n, repeats)
        print(f"  {label:56} {rate:9,.0f} hands/s")
    rate = verifies_per_second(n, repeats)
    print(f"  {'verify(), complete card logs of 4-player hands':56} {rate:9,.0f} calls/s")


if __name__ == "__main__":
    main()
