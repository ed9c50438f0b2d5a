"""The command line, run as a subprocess like a user would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = {
    "players": ["ann", "ben", "cal", "dee"],
    "dealer": "dee",
    "up_card": "QH",
    "passed": ["ben"],
    "tricks": {"ann": 3, "cal": 2, "dee": 0},
}


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games.engine", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_verify_file_valid(tmp_path: Path) -> None:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(EXAMPLE))
    done = run("verify", str(path))
    assert done.returncode == 0, done.stderr
    verdict = json.loads(done.stdout)
    assert verdict["valid"] and verdict["result"]["winner"] == "ann"


def test_verify_stdin_invalid_exits_1() -> None:
    done = run("verify", "-", stdin=json.dumps(dict(EXAMPLE, dealer="zed")))
    assert done.returncode == 1
    assert json.loads(done.stdout)["errors"][0]["code"] == "bad_dealer"


def test_verify_not_json_exits_1() -> None:
    done = run("verify", "-", stdin="{not json")
    assert done.returncode == 1
    assert json.loads(done.stdout)["errors"][0]["code"] == "bad_json"


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run().returncode == 2
    assert run("verify").returncode == 2
    assert run("frobnicate").returncode == 2
    assert run("verify", str(tmp_path / "missing.json")).returncode == 2
    assert run("botmatch", "--hands", "0").returncode == 2


def test_botmatch_prints_both_bots() -> None:
    done = run("botmatch", "--hands", "40", "--json")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["hands"] == 40
    assert {"heuristic", "random", "difference"} <= set(figures)
    done = run("botmatch", "--hands", "8", "--players", "3")
    assert done.returncode == 0 and "HeuristicBot" in done.stdout


def test_importing_the_engine_loads_no_django() -> None:
    code = (
        "import games.engine, sys; "
        "assert not any(m.startswith('django') for m in sys.modules), "
        "[m for m in sys.modules if m.startswith('django')]"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_engine_imports_only_the_standard_library() -> None:
    code = (
        "import sys, games.engine, games.engine.__main__; "
        "mods = [m for m in sys.modules if m.split('.')[0] not in sys.stdlib_module_names "
        "and m.split('.')[0] not in ('games', '__main__')]; "
        "assert not mods, mods"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_botmatch_heuristic_mode_prints_net_by_hand_class() -> None:
    done = run("botmatch", "--mode", "heuristic", "--hands", "60", "--json")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["hands"] == 60 and len(figures["classes"]) == 10
    assert sum(row["dealt"] for row in figures["classes"]) == 240
    done = run("botmatch", "--mode", "heuristic", "--hands", "20", "--players", "7")
    assert done.returncode == 0 and "three or more trumps" in done.stdout
    assert "passing nets -1.00" in done.stdout
