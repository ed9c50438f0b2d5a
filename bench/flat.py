"""Is the record path flat in the session's length? (issue #20, target 1), on PostgreSQL.

Records hands through the record form (GET + htmx POST, in process) on a session with 100
hands, then adds ``BENCH_HANDS`` (20,000) hand rows in bulk (numbered, keyed, recorded:
what the lookups read; their money is not needed for that) and records again. Prints the
POST p50 at both sizes and their ratio, the statements of a POST, and the time of the
statements that used to read every hand: the hand lookup and the "digital hand in
progress" check. Runs main's code too with ``BENCH_ROOT=/path`` (a checkout of main).

    .venv/bin/python bench/flat.py
"""

from __future__ import annotations

import os
import random
import re
import statistics
import time
from urllib.parse import urlencode

import _database

ROOT = _database.code_root(__file__)
DB_NAME = os.environ.get("BENCH_DB", "bench_flat")
_database.configure(DB_NAME)

HANDS = int(os.environ.get("BENCH_HANDS", "20000"))
RUNS = 30
PLAYERS = ["ann", "ben", "cal", "dee", "eve"]
HTMX = {"HTTP_HX_REQUEST": "true"}


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def main() -> None:
    print(f"(code at {ROOT}; load average {os.getloadavg()[0]:.1f} at the start)")
    with _database.scratch(DB_NAME):
        run()
    print(f"(load average {os.getloadavg()[0]:.1f} at the end)")


def run() -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from games.models import Club, Hand, Membership, Player, Role
    from ledger import postings
    from ledger import sql as ledger_sql

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench", password="bench-password-1")
    club = Club.objects.create(name="Bench club", created_by=user)
    Membership.objects.create(club=club, user=user, role=Role.OWNER)
    players = [Player.objects.create(club=club, name=n) for n in PLAYERS]
    session = postings.start_session(club=club, name="Long", players=players,
                                     dealer=players[-1], rules={}, currency="$", user=user)  # fmt: skip
    client = Client()
    client.force_login(user)
    rng = random.Random(7)
    url = reverse("hand_record", args=[session.pk])

    def post_one() -> tuple[float, int]:
        html = client.get(url, **HTMX).content.decode()
        data = {
            "idempotency_key": re.search(r'name="idempotency_key" value="([^"]+)"', html)[1],
            "version": re.search(r'name="version" value="(\d+)"', html)[1],
            "trump": rng.choice("SHDC"),
            "confirmed": "1",  # a costly hand is saved, not shown for a second look
        }
        active = rng.sample(PLAYERS, rng.choice([2, 3, 4, 5]))
        tricks = dict.fromkeys(active, 0)
        for _ in range(5):
            tricks[rng.choice(active)] += 1
        for i, name in enumerate(re.findall(r'name="player_\d+" value="([^"]+)"', html)):
            data[f"player_{i}"] = name
            data[f"play_{i}"] = "play" if name in tricks else "pass"
            data[f"tricks_{i}"] = tricks.get(name, 0)
            data[f"renege_{i}"] = ""
        body = urlencode(data)
        with CaptureQueriesContext(connection) as ctx:
            t0 = time.perf_counter()
            response = client.post(url, body, content_type="application/x-www-form-urlencoded",
                                   **HTMX)  # fmt: skip
            elapsed = time.perf_counter() - t0
        assert response.status_code == 200 and b"saved" in response.content
        return elapsed, len(ctx.captured_queries)

    def lookups() -> tuple[float, float]:
        last = session.hands.order_by("-number").values_list("idempotency_key", flat=True)[0]
        t_lookup, t_busy = [], []
        for _ in range(RUNS):
            t0 = time.perf_counter()
            ledger_sql.hand_lookup(session.pk, last)
            t_lookup.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            session.hands.filter(status=Hand.Status.IN_PROGRESS).exists()
            t_busy.append(time.perf_counter() - t0)
        return statistics.median(t_lookup), statistics.median(t_busy)

    for _ in range(100 - RUNS):
        post_one()
    small = [post_one() for _ in range(RUNS)]
    lookup_small, busy_small = lookups()

    t0 = time.perf_counter()
    start = session.hands.count() + 1
    for first in range(start, start + HANDS, 2000):
        Hand.objects.bulk_create([
            Hand(session=session, number=n, status=Hand.Status.RECORDED, idempotency_key=f"bulk-{n}",
                 record={"players": PLAYERS}, verdict={"valid": True}, before={})
            for n in range(first, min(first + 2000, start + HANDS))
        ])  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"   ({HANDS} hand rows added in {time.perf_counter() - t0:.0f} s)")
    big = [post_one() for _ in range(RUNS)]
    lookup_big, busy_big = lookups()
    p_small = statistics.median(t for t, _ in small)
    p_big = statistics.median(t for t, _ in big)
    total = session.hands.count()
    print(f"== record POST p50: {ms(p_small)} at 100 hands, {ms(p_big)} at {total} hands "
          f"= {p_big / p_small:.2f}×; statements {small[-1][1]} and {big[-1][1]}")  # fmt: skip
    print(f"== hand lookup statement: {ms(lookup_small)} → {ms(lookup_big)}; "
          f"digital-hand-in-progress check: {ms(busy_small)} → {ms(busy_big)}")  # fmt: skip


if __name__ == "__main__":
    main()
