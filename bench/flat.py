"""Is the record path flat in the session's length? (issue #20, target 1), on PostgreSQL.

Two tables in two clubs (so they share no player accounts): one stays near 100 hands,
the other gets ``BENCH_HANDS`` (20,000) more hand rows in bulk, each with the antes and
payout postings and legs a recorded hand has (what the lookups and the legs' indexes
read; the session's running totals are not kept for them, which no read here needs).
Then POSTs through the record form (GET + htmx POST, in process) alternate between the
two tables and a bare "ok" view, so the three medians are taken at the same moments on
a busy machine and their ratios hold. Prints the p50s, the large/small ratio, the
statements of a POST at each size, and the time of the statements that used to read
every hand or leg: the hand lookup, the "digital hand in progress" check and the
result screen's legs of the hand; and the Python memory peak (tracemalloc) of streaming
``ledger.csv`` and the API's ``postings/csv/`` at both sizes. Runs main's code too with ``BENCH_ROOT=/path``.

    .venv/bin/python bench/flat.py
"""

from __future__ import annotations

import os
import random
import re
import statistics
import time
import tracemalloc
from urllib.parse import urlencode

import _database

ROOT = _database.code_root(__file__)
DB_NAME = os.environ.get("BENCH_DB", "bench_flat")
_database.configure(DB_NAME)

HANDS = int(os.environ.get("BENCH_HANDS", "20000"))
RUNS = 40
PLAYERS = ["ann", "ben", "cal", "dee", "eve"]
HTMX = {"HTTP_HX_REQUEST": "true"}


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def main() -> None:
    print(f"(code at {ROOT}; load average {os.getloadavg()[0]:.1f} at the start)")
    with _database.scratch(DB_NAME):
        run()
    print(f"(load average {os.getloadavg()[0]:.1f} at the end)")


def run() -> None:  # noqa: PLR0915 (one straight script)
    import _serve  # noqa: F401  (the app's URLs plus /bench/ok/)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from games.models import Club, Hand, Membership, Player, Role
    from ledger import postings
    from ledger import sql as ledger_sql
    from ledger.models import Account, Leg, Posting

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench", password="bench-password-1")
    client = Client()
    client.force_login(user)
    rng = random.Random(7)

    def table(name: str):
        club = Club.objects.create(name=name, created_by=user)
        Membership.objects.create(club=club, user=user, role=Role.OWNER)
        players = [Player.objects.create(club=club, name=n) for n in PLAYERS]
        return postings.start_session(club=club, name=name, players=players,
                                      dealer=players[-1], rules={}, currency="$", user=user)  # fmt: skip

    def post_one(session) -> tuple[float, int]:
        url = reverse("hand_record", args=[session.pk])
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

    def bare() -> float:
        t0 = time.perf_counter()
        client.get("/bench/ok/")
        return time.perf_counter() - t0

    def legs_query(hand_id: int) -> None:
        # The result screen's read of a hand's legs before issue #20 (now only for a hand
        # looked at later: games.sessions.statements.hand_legs).
        list(
            Leg.objects.filter(posting__hand_id=hand_id, account__kind=Account.Kind.PLAYER)
            .exclude(posting__kind=Posting.Kind.REVERSAL)
            .order_by("posting_id", "id")
            .values_list("account__player_id", "posting__kind", "amount", "posting_id")
        )

    def lookups(session) -> tuple[float, float, float]:
        last = session.hands.order_by("-number").values_list("pk", "idempotency_key")[0]
        t_lookup, t_busy, t_legs = [], [], []
        for _ in range(RUNS):
            t0 = time.perf_counter()
            ledger_sql.hand_lookup(session.pk, last[1])
            t_lookup.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            session.hands.filter(status=Hand.Status.IN_PROGRESS).exists()
            t_busy.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            legs_query(last[0])
            t_legs.append(time.perf_counter() - t0)
        return tuple(statistics.median(t) for t in (t_lookup, t_busy, t_legs))  # type: ignore[return-value]

    small, big = table("Small"), table("Big")
    for _ in range(100 - RUNS // 2):
        post_one(small)
        post_one(big)

    t0 = time.perf_counter()
    big.refresh_from_db()
    accounts = list(big.seats.order_by("position").values_list("account_id", flat=True))
    pot = big.pot_account_id
    start = big.hands_count + 1
    for first in range(start, start + HANDS, 2000):
        numbers = range(first, min(first + 2000, start + HANDS))
        hands = Hand.objects.bulk_create([
            Hand(session=big, number=n, status=Hand.Status.RECORDED, idempotency_key=f"bulk-{n}",
                 record={"players": PLAYERS}, verdict={"valid": True}, before={})
            for n in numbers
        ])  # fmt: skip
        made = Posting.objects.bulk_create([
            Posting(club_id=big.club_id, session=big, hand=h, kind=kind, memo=f"Hand {h.number}")
            for h in hands for kind in (Posting.Kind.ANTE, Posting.Kind.PAYOUT)
        ])  # fmt: skip
        legs = []
        for i in range(0, len(made), 2):
            ante, payout = made[i], made[i + 1]
            winner = accounts[(i // 2) % len(accounts)]
            legs += [Leg(posting=ante, account_id=a, amount=-1) for a in accounts]
            legs += [Leg(posting=ante, account_id=pot, amount=len(accounts)),
                     Leg(posting=payout, account_id=winner, amount=len(accounts)),
                     Leg(posting=payout, account_id=pot, amount=-len(accounts))]  # fmt: skip
        Leg.objects.bulk_create(legs)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"   ({HANDS} hand rows with their postings and legs added in "
          f"{time.perf_counter() - t0:.0f} s)")  # fmt: skip
    lookup_small, busy_small, legs_small = lookups(small)
    times: dict[str, list[float]] = {"small": [], "big": [], "bare": []}
    statements = {}
    for _ in range(RUNS):
        times["bare"].append(bare())
        for name, session in (("small", small), ("big", big)):
            elapsed, statements[name] = post_one(session)
            times[name].append(elapsed)
    lookup_big, busy_big, legs_big = lookups(big)
    p = {k: statistics.median(v) for k, v in times.items()}
    counts = {k: s.hands.count() for k, s in (("small", small), ("big", big))}
    print(f"== bare view p50 {ms(p['bare'])}")
    print(f"== record POST p50: {ms(p['small'])} at {counts['small']} hands "
          f"({p['small'] / p['bare']:.1f}× bare), {ms(p['big'])} at {counts['big']} hands "
          f"({p['big'] / p['bare']:.1f}× bare) = {p['big'] / p['small']:.2f}×; "
          f"statements {statements['small']} and {statements['big']}")  # fmt: skip
    # The exports' memory at both sizes (issue #20, target 4: flat in the ledger's size).
    for label, path in (
        ("ledger.csv", lambda s: reverse("ledger_csv", args=[s.pk])),
        ("API postings CSV",
         lambda s: f"/api/v1/clubs/{s.club_id}/postings/csv/?session={s.pk}"),
    ):  # fmt: skip
        figures = []
        for session in (small, big):
            tracemalloc.start()
            response = client.get(path(session))
            rows = size = 0
            for piece in response.streaming_content if response.streaming else [response.content]:
                rows += piece.count(b"\n")
                size += len(piece)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            assert response.status_code == 200, (label, response.status_code)
            figures.append((rows - 1, peak, size))
        (n1, m1, s1), (n2, m2, s2) = figures
        print(f"== {label}: Python memory peak {m1 / 2**20:.2f} MiB for {n1:,} legs "
              f"({s1 / 2**20:.2f} MiB), {m2 / 2**20:.2f} MiB for {n2:,} legs "
              f"({s2 / 2**20:.1f} MiB) = {m2 / m1:.2f}× the memory for {n2 / n1:.0f}× the legs")  # fmt: skip
    print(f"== hand lookup statement: {ms(lookup_small)} → {ms(lookup_big)}; "
          f"digital-hand-in-progress check: {ms(busy_small)} → {ms(busy_big)}; "
          f"a hand's legs (the ORM join): {ms(legs_small)} → {ms(legs_big)}")  # fmt: skip


if __name__ == "__main__":
    main()
