"""Engine throughput: random-legal playouts and verify() calls per second, and the ratios
between them.

Run: ``.venv/bin/python bench/engine.py [--hands N] [--rounds R]``. Prints figures;
never part of the test run. One core. The machine is shared and noisy, so every figure is
measured in the same run as the figures it is compared with: each round times one batch
of N hands of every kind, back to back (the order reversed every other round), and the
figures are medians over R rounds. A ratio is the median of the per-round ratios, so both
of its numbers always come from the same moment. Batches are timed in this process's CPU
time (``time.process_time``): time the machine gives to other processes is not counted,
though their load still slows this one (shared caches), so absolute rates vary more than
the ratios.

The kinds differ only in what is measured: the random choices cost the same on each side
(one ``rng.random()`` per card played, one per player drawing), and the fast and JSON
playouts choose the same cards, so they play the very same hands.

Targets (issue #37, default rules: cinch on): a seven-player hand with draws costs at
most 2× a four-player hand; the JSON action path (``legal_cards()``/``apply()`` with action
dicts, as the web app drives a hand) at most 1.2× the fast path (``legal_mask()``/
``push_card()``); ≥ 6,000 complete four-player hands/s without draws, ≥ 10,000 verify()
calls/s on complete card logs of four-player hands.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from itertools import combinations
from operator import itemgetter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import HandState, Rules, verify  # noqa: E402
from games.engine.cards import card_names  # noqa: E402

DEFAULT = Rules()
DISCARD_LIMIT = DEFAULT.discard_limit
NAMES = ("ann", "ben", "cal", "dee", "eve", "fay", "gus", "hal")
Playout = Callable[[tuple[str, ...], int, random.Random], HandState]


def _random_card(mask: int, rng: random.Random) -> int:
    """A uniformly random card of ``mask``: the k-th lowest, k from one rng.random()."""
    k = int(rng.random() * mask.bit_count())
    while k:
        mask &= mask - 1
        k -= 1
    return (mask & -mask).bit_length() - 1


# _PICKS[k]: for every set of k ≥ 2 positions in a dealt hand, what picks them out of a list
_PICKS = [
    [itemgetter(*positions) for positions in combinations(range(DEFAULT.hand_size), k)]
    if k >= 2
    else []
    for k in range(DISCARD_LIMIT + 1)
]


def _random_discard(hand: int, rng: random.Random) -> list[str]:
    """0..discard_limit cards of ``hand`` (uniform count, then a uniform set of that size),
    both from one rng.random()."""
    u = rng.random() * (DISCARD_LIMIT + 1)
    k = int(u)
    if not k:
        return []
    names = card_names(hand)
    if k == 1:
        return [names[int((u - 1) * len(names))]]
    picks = _PICKS[k]
    return list(picks[int((u - k) * len(picks))](names))


def _stand_pat(state: HandState) -> None:
    for seat in state.order:
        state.apply({"type": "play", "player": state.players[seat], "discard": []})


def playout_fast(players: tuple[str, ...], dealer: int, rng: random.Random) -> HandState:
    """Everyone plays without drawing; random legal cards via legal_mask()/push_card()."""
    state = HandState.new(players, dealer, DEFAULT, rng)
    _stand_pat(state)
    legal_mask = state.legal_mask
    push = state.push_card
    while state.phase == "play":
        push(_random_card(legal_mask(), rng))
    return state


def playout_json(players: tuple[str, ...], dealer: int, rng: random.Random) -> HandState:
    """The same hands through the JSON action API (legal_cards()/apply() with action dicts,
    as the web app calls it): legal_cards() lists the cards lowest first, so the k-th of
    the list is the card playout_fast picks."""
    state = HandState.new(players, dealer, DEFAULT, rng)
    _stand_pat(state)
    apply = state.apply
    while state.phase == "play":
        player = state.to_act
        cards = state.legal_cards(player)  # type: ignore[arg-type]
        apply({"type": "card", "player": player, "card": cards[int(rng.random() * len(cards))]})
    return state


def playout_draws(players: tuple[str, ...], dealer: int, rng: random.Random) -> HandState:
    """Everyone plays and exchanges a random 0..discard_limit cards (action dicts, as the
    web sends them), then random legal cards via legal_mask()/push_card()."""
    state = HandState.new(players, dealer, DEFAULT, rng)
    for seat in state.order:
        discard = _random_discard(state.hands[seat], rng)
        state.apply({"type": "play", "player": players[seat], "discard": discard})
    legal_mask = state.legal_mask
    push = state.push_card
    while state.phase == "play":
        push(_random_card(legal_mask(), rng))
    return state


def complete_records(count: int, n_players: int = 4) -> list[dict]:
    rng = random.Random(7)
    players = NAMES[:n_players]
    return [playout_fast(players, i % n_players, rng).to_record() for i in range(count)]


def _playouts(kind: Playout, n_players: int, count: int) -> Callable[[int], None]:
    players = NAMES[:n_players]

    def run(r: int) -> None:
        rng = random.Random(1000 + r)
        for i in range(count):
            kind(players, i % n_players, rng)

    return run


def _verifies(count: int) -> Callable[[int], None]:
    records = complete_records(count)
    for record in records:
        verdict = verify(record)
        assert verdict["valid"] and verdict["complete"], verdict

    def run(r: int) -> None:
        for record in records:
            verify(record)

    return run


def _same_hands(count: int) -> None:
    """The fast and JSON playouts must play the same hands, or their ratio means nothing."""
    for players in (NAMES[:4], NAMES[:7]):
        a, b = random.Random(5), random.Random(5)
        for i in range(count):
            fast = playout_fast(players, i % len(players), a).to_record()
            assert fast == playout_json(players, i % len(players), b).to_record()


def measure(runs: dict[str, Callable[[int], None]], rounds: int) -> dict[str, list[float]]:
    """Seconds per batch of every run, round by round (interleaved, order alternating)."""
    times: dict[str, list[float]] = {label: [] for label in runs}
    labels = list(runs)
    for r in range(rounds):
        for label in labels if r % 2 == 0 else reversed(labels):
            start = time.process_time()
            runs[label](r)
            times[label].append(time.process_time() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300, help="hands per timed batch")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds")
    args = parser.parse_args()
    n, rounds = args.hands, args.rounds
    _same_hands(50)

    fast4, json4, draws7 = (
        "4 players, no draws, legal_mask/push_card",
        "4 players, no draws, legal_cards/apply (JSON actions)",
        "7 players, random draws, legal_mask/push_card",
    )
    fast7, verify4 = "7 players, no draws, legal_mask/push_card", "verify()"
    runs = {
        fast4: _playouts(playout_fast, 4, n),
        json4: _playouts(playout_json, 4, n),
        draws7: _playouts(playout_draws, 7, n),
        fast7: _playouts(playout_fast, 7, n),
        verify4: _verifies(n),
    }
    times = measure(runs, rounds)

    def ratio(a: str, b: str) -> float:
        return statistics.median(x / y for x, y in zip(times[a], times[b], strict=True))

    print(f"Python {sys.version.split()[0]}; median of {rounds} interleaved rounds of {n} each")
    for label in (fast4, json4, fast7, draws7):
        rate = n / statistics.median(times[label])
        print(f"  {label:56} {rate:9,.0f} hands/s")
    rate = n / statistics.median(times[verify4])
    label = "verify(), complete card logs of 4-player hands"
    print(f"  {label:56} {rate:9,.0f} calls/s")
    print("Ratios (median of per-round ratios; targets from issue #37)")
    print(f"  {'7-player hand with draws / 4-player hand (≤ 2.0)':56} {ratio(draws7, fast4):9.2f}×")
    print(f"  {'JSON action path / fast path, 4 players (≤ 1.2)':56} {ratio(json4, fast4):9.2f}×")
    print(f"  {'7-player hand without draws / 4-player hand':56} {ratio(fast7, fast4):9.2f}×")


if __name__ == "__main__":
    main()
