"""Instructions per request, noise-free (issue #20): a record POST, the record form's GET
and a bare "ok" view, counted by valgrind's callgrind in this Python process (the app and
Django's test client; PostgreSQL's own work is not counted). On a busy machine wall-clock ratios swing by ±30 %;
these counts move by well under 1 % between runs, so a change's effect shows at once.

    .venv/bin/python bench/instructions.py
    BENCH_ROOT=/tmp/bench-main .venv/bin/python bench/instructions.py   # another checkout

Needs ``valgrind`` (skipped without it). Its own scratch database (``BENCH_DB``), dropped
at the end. ``BENCH_N`` requests of each kind (20) after 5 warm-up POSTs.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlencode

import _database

ROOT = _database.code_root(__file__)
DB_NAME = os.environ.get("BENCH_DB", "bench_instructions")
_database.configure(DB_NAME)
N = int(os.environ.get("BENCH_N", "20"))
PLAYERS = ["ann", "ben", "cal", "dee", "eve"]


def main() -> None:
    if not shutil.which("valgrind"):
        print("== instructions: valgrind is not installed; skipped")
        return
    print(f"(code at {ROOT})")
    with _database.scratch(DB_NAME), tempfile.TemporaryDirectory() as out:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections

        call_command("migrate", verbosity=0)
        connections.close_all()
        # Under callgrind, with counting switched on only around the measured requests.
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no",
             f"--callgrind-out-file={out}/callgrind.out", sys.executable, __file__, "run"],
            check=True, capture_output=True, env=dict(os.environ),
        )  # fmt: skip
        counts = {}
        for dump in Path(out).glob("callgrind.out.*"):
            text = dump.read_text(errors="replace")
            kind = re.search(r"^desc: Trigger: .*dump (\w+)", text, re.M)
            total = re.search(r"^totals: (\d+)", text, re.M)
            if kind and total:
                counts[kind.group(1)] = int(total.group(1)) / N
    bare, post, form = counts["bare"], counts["post"], counts["form"]
    print(f"== bare view: {bare / 1e6:.2f} M instructions a request")
    print(f"== record POST: {post / 1e6:.2f} M instructions = {post / bare:.1f}× bare")
    print(f"== record form GET: {form / 1e6:.2f} M instructions = {form / bare:.1f}× bare")


def run() -> None:
    """The measured part, inside valgrind."""
    import _serve  # noqa: F401
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    from games.models import Club, Membership, Player, Role
    from ledger import postings

    user = get_user_model().objects.create_user("bench", password="bench-password-1")
    club = Club.objects.create(name="Bench club", created_by=user)
    Membership.objects.create(club=club, user=user, role=Role.OWNER)
    players = [Player.objects.create(club=club, name=n) for n in PLAYERS]
    session = postings.start_session(club=club, name="Counted", players=players,
                                     dealer=players[-1], rules={}, currency="$", user=user)  # fmt: skip
    client = Client()
    client.force_login(user)
    url = reverse("hand_record", args=[session.pk])
    rng = random.Random(20)

    def body(ahead: int = 0) -> str:
        """A filled form; ``ahead``: how many hands will be saved before it is posted (each
        saved hand moves the session's version on by one)."""
        html = client.get(url, HTTP_HX_REQUEST="true").content.decode()
        version = int(re.search(r'name="version" value="(\d+)"', html).group(1)) + ahead
        data = {
            "idempotency_key": re.search(r'name="idempotency_key" value="([^"]+)"', html).group(1),
            "version": str(version),
            "trump": "S",
            "confirmed": "1",
        }
        # Clean wins (no bourré), so the pots stay small however many hands are counted.
        tricks = rng.choice([{"ann": 3, "ben": 1, "cal": 1}, {"ben": 3, "ann": 1, "cal": 1}])
        for j, name in enumerate(PLAYERS):
            data[f"player_{j}"] = name
            data[f"play_{j}"] = "play" if name in tricks else "pass"
            data[f"tricks_{j}"] = tricks.get(name, 0)
            data[f"renege_{j}"] = ""
        return urlencode(data)

    def post(data: str) -> None:
        response = client.post(url, data, content_type="application/x-www-form-urlencoded",
                               HTTP_HX_REQUEST="true")  # fmt: skip
        # The status too: the stale-form answer (409) says "Nothing was saved".
        assert response.status_code == 200 and b"saved" in response.content, response.status_code

    def control(*args: str) -> None:
        subprocess.run(["callgrind_control", *args, str(os.getpid())], check=True,
                       capture_output=True)  # fmt: skip

    for _ in range(5):
        client.get("/bench/ok/")
        post(body())
    # The form GETs are not counted; each body carries the version its POST will meet.
    bodies = [body(ahead=i) for i in range(N)]
    control("-i", "on")
    for _ in range(N):
        client.get("/bench/ok/")
    control("-i", "off")
    control("-d", "bare")
    control("-i", "on")
    for data in bodies:
        post(data)
    control("-i", "off")
    control("-d", "post")
    # The form a phone opens before each hand (the table as the last POST left it).
    control("-i", "on")
    for _ in range(N):
        client.get(url, HTTP_HX_REQUEST="true")
    control("-i", "off")
    control("-d", "form")
    postings.check_invariants(session)


if __name__ == "__main__":
    if sys.argv[1:] == ["run"]:
        import django

        django.setup()
        run()
    else:
        main()
