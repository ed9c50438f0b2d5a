"""Command line: ``python -m games.engine verify FILE`` and ``... botmatch --hands N``.

``verify`` prints the verdict of a hand record (``-`` reads stdin) as JSON and exits 0
when it is valid, 1 when not; usage errors and unreadable files exit 2.
``botmatch`` plays seeded hands with one HeuristicBot against RandomBots, then the same
seeds with a RandomBot in that seat, and prints what the seat won per hand both ways.
``botmatch --mode heuristic`` seats HeuristicBots everywhere and prints, by hand class as
dealt, how often the bot plays and what it nets per hand (passing nets −1 ante).
``botmatch --mode careful`` measures the careful bot's table at 2 to 8 players and prints
it as the module ``games/engine/careful_table.py`` (its docstring says how).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from typing import TypedDict

from .botmatch import MeanErr, careful_rates, mean_err, net, play_hand, table_match
from .bots import HeuristicBot, RandomBot
from .contracts import Verdict
from .rules import Rules
from .verify import verify

NAMES = ("ann", "ben", "cal", "dee", "eve", "fay", "gus", "hal")


def _verify(path: str) -> int:
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"cannot read {path}: {exc}", file=sys.stderr)
        return 2
    try:
        record = json.loads(text)
    except (ValueError, RecursionError) as exc:
        verdict: Verdict = {
            "valid": False,
            "errors": [{"code": "bad_json", "message": f"not JSON: {exc}"}],
        }
    else:
        verdict = verify(record)
    print(json.dumps(verdict, indent=2, ensure_ascii=False))
    return 0 if verdict["valid"] else 1


class BotMatch(TypedDict):
    """:func:`botmatch`'s figures: the seat under test's net per hand."""

    hands: int
    players: int
    heuristic: MeanErr
    random: MeanErr
    difference: MeanErr


def botmatch(hands: int, n_players: int, seed: int, rules: Rules) -> BotMatch:
    """Seat k (rotating) is the HeuristicBot, the others RandomBots; the same deal and
    the same random opponents (same rng seeds) are then replayed with a RandomBot in
    seat k, so the difference is the heuristic's doing alone."""
    players = NAMES[:n_players]
    totals: dict[str, list[int]] = {"heuristic": [], "random": []}
    for i in range(hands):
        hand_seed = seed * 1_000_003 + i
        hero = players[i % n_players]
        dealer = (i // n_players) % n_players
        for kind in ("heuristic", "random"):
            bots: dict[str, RandomBot | HeuristicBot] = {
                p: RandomBot(random.Random(f"{hand_seed}:{p}"))
                for p in players
                if p != hero or kind == "random"
            }
            if kind == "heuristic":
                bots[hero] = HeuristicBot(random.Random(f"{hand_seed}:{hero}"))
            _, result = play_hand(hand_seed, players, dealer, bots, rules)
            totals[kind].append(net(result, hero))
    diffs = [h - r for h, r in zip(totals["heuristic"], totals["random"], strict=True)]
    return {
        "hands": hands,
        "players": n_players,
        "heuristic": mean_err(totals["heuristic"]),
        "random": mean_err(totals["random"]),
        "difference": mean_err(diffs),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p_verify = sub.add_parser("verify", help="verify a hand record (JSON file, - for stdin)")
    p_verify.add_argument("file")
    p_match = sub.add_parser("botmatch", help="HeuristicBot against RandomBots")
    p_match.add_argument("--hands", type=int, default=10_000)
    p_match.add_argument("--players", type=int, default=4, choices=range(2, 9))
    p_match.add_argument("--seed", type=int, default=1)
    p_match.add_argument("--json", action="store_true", help="print the figures as JSON")
    p_match.add_argument(
        "--mode",
        choices=("random", "heuristic", "careful"),
        default="random",
        help="random: one HeuristicBot against RandomBots; heuristic: HeuristicBots "
        "everywhere, net per hand by hand class; careful: measure and print the "
        "careful bot's table (games/engine/careful_table.py)",
    )
    args = parser.parse_args(argv)

    if args.command == "verify":
        return _verify(args.file)
    if args.hands < 1:
        parser.error("--hands must be at least 1")
    if args.mode == "careful":
        print(careful_module(args.hands, args.seed))
        return 0
    if args.mode == "heuristic":
        return _class_table(args.hands, args.players, args.seed, args.json)
    result = botmatch(args.hands, args.players, args.seed, Rules())
    if args.json:
        print(json.dumps(result))
    else:
        h, r, d = result["heuristic"], result["random"], result["difference"]
        print(
            f"{result['hands']} hands, {result['players']} players, default rules; "
            f"chips won per hand by the seat under test (same deals, same opponents):"
        )
        print(f"  HeuristicBot {h['mean']:+.3f} ± {h['stderr']:.3f}")
        print(f"  RandomBot    {r['mean']:+.3f} ± {r['stderr']:.3f}")
        print(f"  difference   {d['mean']:+.3f} ± {d['stderr']:.3f} per hand")
    return 0


def careful_module(hands: int, seed: int) -> str:
    """The text of ``careful_table.py``: at each table size, the rates against
    HeuristicBots, then against CarefulBots using those (see that module)."""
    from . import careful_table

    rates = {}
    for n in range(2, 9):
        first = careful_rates(hands, n, seed, Rules(), None)
        rates.update(careful_rates(hands, n, seed + 1, Rules(), first))
    head = (careful_table.__doc__ or "").strip()
    lines = [
        f'"""{head}\n"""',
        "",
        "from __future__ import annotations",
        "",
        "Cell = tuple[float, float, int]",
        "",
        f"# python -m games.engine botmatch --mode careful --hands {hands} --seed {seed}",
        "CAREFUL_RATES: dict[tuple[int, int, int, int], Cell] = {",
        *(f"    {key}: {value}," for key, value in sorted(rates.items())),
        "}",
    ]
    return "\n".join(lines)


def _class_table(hands: int, players: int, seed: int, as_json: bool) -> int:
    figures = table_match(
        hands, players, seed, Rules(), lambda key: HeuristicBot(random.Random(key))
    )
    if as_json:
        print(json.dumps(figures))
        return 0
    print(
        f"{hands} hands, {players} HeuristicBots, default rules, no carried pot; "
        "net per hand by hand class as dealt (passing nets -1.00):"
    )
    print(f"  {'hand class':28} {'dealt':>7} {'played':>7} {'net if played':>14} {'bourré':>7}")
    for row in figures["classes"]:
        shown = row["net_played"]
        net_text = f"{shown:+.2f}" if shown is not None else "-"
        bourre = f"{row['bourre_rate']:.0%}" if row["bourre_rate"] is not None else "-"
        print(
            f"  {row['class']:28} {row['dealt']:>7} {row['play_rate']:>7.0%} "
            f"{net_text:>14} {bourre:>7}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
