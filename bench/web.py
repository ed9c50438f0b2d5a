"""Web-tier benchmark of the session pages on PostgreSQL.

Creates a dedicated database `bench_web` (dropped again at the end), migrates it, then

1. records 1,000 hands through the real record form (GET the form, POST it as htmx
   does, through URL routing, middleware, form parsing, the engine and the ledger) and
   prints hands/s and the p50/p95 latency of the POST;
2. grows the session to 2,000 hands and renders its scoreboard (full page, the htmx
   partial, and a 304 poll), printing the time and query count of each.

3. (issue 12) starts the server the way `make run` does (gunicorn, LAN mode) on loopback
   port 8212, and has 50 share-link watchers poll the scoreboard every 3 s (as the page
   does: htmx, If-None-Match) while a host records hands over HTTP back to back; prints
   the poll p95 (304s and 200s) and the record p95 under that load, beside the record
   p95 of the same server with nobody watching (a ratio from the same run). Bounded:
   BENCH_WATCH_SECONDS (default 20) for each of three parts (idle, back to back, one hand
   every 5 s);
4. (issue 14) corrects hand 1 of a 500-hand session (``postings.correct_hand``: the
   confirmation, then the save that re-settles all 500 hands), printing the time and
   query count of each.

Targets (issue #4): recording p95 under 50 ms, session page under 100 ms; (issue #14)
correcting hand 1 of 500 under 2 s.

    .venv/bin/python bench/web.py            # PostgreSQL at 127.0.0.1:5432, user postgres
    .venv/bin/python bench/web.py --watchers-only
    .venv/bin/python bench/web.py correction # only part 4
    BENCH_PG=postgres://user@host:5432 .venv/bin/python bench/web.py
"""

from __future__ import annotations

import os
import random
import re
import sys
import time
import uuid
import warnings
from urllib.parse import urlencode

import _database
import _watchers as watchers

# The code under test: this checkout, or BENCH_ROOT's (before/after in the same hour).
ROOT = _database.code_root(__file__)

DB_NAME = os.environ.get("BENCH_DB", "bench_web")
_database.configure(DB_NAME)
warnings.filterwarnings("ignore", message="No directory at")  # no collectstatic here

HANDS_VIA_FORM = 1000
HANDS_IN_SESSION = 2000
PAGE_RUNS = 30
PLAYERS = ["ann", "ben", "cal", "dee", "eve"]
FORM = "application/x-www-form-urlencoded"
WATCH_SECONDS = float(os.environ.get("BENCH_WATCH_SECONDS", "20"))


def random_hand(rng: random.Random, players: list[str], hand_size: int = 5) -> dict:
    """A valid summary hand: who passed, tricks, now and then a renege; uncontested
    hands, splits and bourrés all occur."""
    k = rng.choices([1, 2, 3, len(players)], weights=[1, 3, 4, 4])[0]
    active = rng.sample(players, k)
    tricks = dict.fromkeys(active, 0)
    if k > 1:
        for _ in range(hand_size):
            tricks[rng.choice(active)] += 1
    reneges = {}
    if k > 1 and rng.random() < 0.03:
        reneges[rng.choice(active)] = rng.choice(["corrected", "uncorrected"])
    return {
        "trump": rng.choice("SHDC"),
        "passed": [p for p in players if p not in active],
        "tricks": tricks,
        "reneges": reneges,
    }


def form_post_data(html: str, players: list[str], hand: dict) -> dict:
    key = re.search(r'name="idempotency_key" value="([^"]+)"', html).group(1)
    version = re.search(r'name="version" value="(\d+)"', html).group(1)
    # "confirmed": the host's tap that accepts a costly hand (three bourrés, or a
    # penalty above ten antes: the pot grows over 200 hands); the bench times the save.
    data = {"idempotency_key": key, "version": version, "trump": hand["trump"], "confirmed": "1"}
    for i, name in enumerate(players):
        data[f"player_{i}"] = name
        data[f"play_{i}"] = "pass" if name in hand["passed"] else "play"
        data[f"tricks_{i}"] = hand["tricks"].get(name, 0)
        data[f"renege_{i}"] = hand["reneges"].get(name, "")
    return data


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def main() -> None:
    load = os.getloadavg()[0]
    print(f"(load average {load:.1f} on {os.cpu_count()} cores at the start)")
    with _database.scratch(DB_NAME):
        if sys.argv[1:] != ["correction"]:
            run()
        if "--watchers-only" not in sys.argv:
            correction()
    print(f"(load average {os.getloadavg()[0]:.1f} at the end)")


def new_table(username: str, club_name: str):
    """A scorekeeper, a club with the five PLAYERS and an open session (ante 1, $)."""
    from django.contrib.auth import get_user_model

    from games.models import Club, Membership, Player, Role
    from ledger import postings

    user = get_user_model().objects.create_user(username, password="bench-password-1")
    club = Club.objects.create(name=club_name, created_by=user)
    Membership.objects.create(club=club, user=user, role=Role.SCOREKEEPER)
    players = [Player.objects.create(club=club, name=n) for n in PLAYERS]
    session = postings.start_session(
        club=club,
        name=f"{club_name} night",
        players=players,
        dealer=players[-1],
        rules={},
        currency="$",
        user=user,
    )
    return user, session


def run() -> None:
    if "--watchers-only" in sys.argv:
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        watchers.run(WATCH_SECONDS, random_hand, form_post_data, pct)
        return
    _pages()
    watchers.run(WATCH_SECONDS, random_hand, form_post_data, pct)


def _pages() -> None:
    import django

    django.setup()
    from django.core.cache import cache
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from ledger import postings

    call_command("migrate", verbosity=0)
    user, session = new_table("bench", "Bench club")
    client = Client()
    client.force_login(user)
    record_url = reverse("hand_record", args=[session.pk])
    rng = random.Random(20261129)

    # Warm up (imports, template compilation, connection).
    client.get(record_url)

    posts: list[float] = []
    cpu: list[float] = []
    gets: list[float] = []
    outcomes: dict[str, int] = {}
    started = time.perf_counter()
    for _ in range(HANDS_VIA_FORM):
        t0 = time.perf_counter()
        page = client.get(record_url, HTTP_HX_REQUEST="true")
        gets.append(time.perf_counter() - t0)
        hand = random_hand(rng, PLAYERS)
        data = form_post_data(page.content.decode(), PLAYERS, hand)
        t0, c0 = time.perf_counter(), time.process_time()
        # Sent as htmx sends it: urlencoded, with the HX-Request header.
        response = client.post(
            record_url, urlencode(data), content_type=FORM, HTTP_HX_REQUEST="true"
        )
        posts.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        if response.status_code != 200 or b"saved" not in response.content:
            raise SystemExit(f"hand refused ({response.status_code}): {hand}")
    wall = time.perf_counter() - started
    session.refresh_from_db()
    for outcome in session.hands.values_list("verdict__result__outcome", flat=True):
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    postings.check_invariants(session)

    print(f"== recording {HANDS_VIA_FORM} hands through the record form (PostgreSQL)")
    print(f"   outcomes: {dict(sorted(outcomes.items()))}")
    print(
        f"   POST: {HANDS_VIA_FORM / sum(posts):.0f} hands/s, p50 {ms(pct(posts, 50))}, "
        f"p95 {ms(pct(posts, 95))}, max {ms(max(posts))}"
    )
    print(f"   POST, CPU time of the web process: p50 {ms(pct(cpu, 50))}")
    print(f"   GET form: p50 {ms(pct(gets, 50))}, p95 {ms(pct(gets, 95))}")
    print(f"   wall (GET + POST per hand): {HANDS_VIA_FORM / wall:.0f} hands/s")

    # Grow the session to 2,000 hands straight through the ledger (faster setup); these
    # calls also show how much of a POST is the ledger's own transaction.
    direct: list[float] = []
    for _ in range(HANDS_IN_SESSION - session.hands_count):
        hand = random_hand(rng, PLAYERS)
        entry = {k: v for k, v in hand.items() if k != "reneges"}
        entry["reneges"] = [
            {"player": p, "corrected": c == "corrected"} for p, c in hand["reneges"].items()
        ]
        t0 = time.perf_counter()
        postings.record_hand(
            session_id=session.pk,
            entry=entry,
            idempotency_key=uuid.uuid4().hex,
            expected_version=None,
            user=user,
        )
        direct.append(time.perf_counter() - t0)
    print(
        f"   of which the ledger (postings.record_hand called directly, hands "
        f"{HANDS_VIA_FORM + 1}–{HANDS_IN_SESSION}): p50 {ms(pct(direct, 50))}, "
        f"p95 {ms(pct(direct, 95))}"
    )
    session.refresh_from_db()
    assert session.hands_count == HANDS_IN_SESSION, session.hands_count

    detail_url = reverse("session_detail", args=[session.pk])
    print(f"== session page of a {session.hands_count}-hand session")
    for label, headers, cold in (
        ("full page, first view after a change", {}, True),
        ("full page", {}, False),
        ("htmx partial (a poll after a change)", {"HTTP_HX_REQUEST": "true"}, True),
    ):
        client.get(detail_url, **headers)
        times = []
        for _ in range(PAGE_RUNS):
            if cold:
                cache.clear()  # nothing cached by an earlier view (as after a new hand)
            t0 = time.perf_counter()
            response = client.get(detail_url, **headers)
            times.append(time.perf_counter() - t0)
            assert response.status_code == 200
        if cold:
            cache.clear()
        with CaptureQueriesContext(connection) as ctx:
            client.get(detail_url, **headers)
        print(
            f"   {label}: p50 {ms(pct(times, 50))}, p95 {ms(pct(times, 95))}, "
            f"{len(ctx.captured_queries)} queries"
        )
    etag = response["ETag"]
    times = []
    for _ in range(PAGE_RUNS):
        t0 = time.perf_counter()
        response = client.get(detail_url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=etag)
        times.append(time.perf_counter() - t0)
        assert response.status_code == 304
    with CaptureQueriesContext(connection) as ctx:
        client.get(detail_url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=etag)
    print(
        f"   304 poll: p50 {ms(pct(times, 50))}, p95 {ms(pct(times, 95))}, "
        f"{len(ctx.captured_queries)} queries"
    )
    history_url = reverse("session_history", args=[session.pk])
    times = []
    for _ in range(5):
        cache.clear()
        t0 = time.perf_counter()
        assert client.get(history_url).status_code == 200
        times.append(time.perf_counter() - t0)
    with CaptureQueriesContext(connection) as ctx:
        client.get(history_url)
    print(
        f"   history page (50 hands + chart of all {HANDS_IN_SESSION}): "
        f"p50 {ms(pct(times, 50))}, {len(ctx.captured_queries)} queries"
    )


CORRECTION_HANDS = 500


def correction() -> None:
    """Part 3: correct hand 1 of a 500-hand session."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from ledger import postings

    call_command("migrate", verbosity=0)
    user, session = new_table("bench-correction", "Correction club")
    rng = random.Random(14)
    for _ in range(CORRECTION_HANDS):
        hand = random_hand(rng, PLAYERS)
        entry = {k: v for k, v in hand.items() if k != "reneges"}
        postings.record_hand(
            session_id=session.pk,
            entry=entry,
            idempotency_key=uuid.uuid4().hex,
            expected_version=None,
            user=user,
        )
    # First hand 1 becomes a bourré for everyone but ann (the later pots change until
    # the carry settles back); then ann's corrected renege costs her the next deal, so
    # every later hand has another dealer and is written again.
    everyone = {p: (5 if p == "ann" else 0) for p in PLAYERS}
    bourre = {"trump": "S", "tricks": everyone}
    renege = {**bourre, "reneges": [{"player": "ben", "corrected": True}]}
    print(f"== correcting hand 1 of a {CORRECTION_HANDS}-hand session (PostgreSQL)")
    for label, apply, fix in (
        ("bourrés: confirmation (nothing written)", False, bourre),
        ("bourrés: save", True, bourre),
        ("a renege that moves every later deal: confirmation", False, renege),
        ("a renege that moves every later deal: save", True, renege),
    ):
        with CaptureQueriesContext(connection) as ctx:
            t0 = time.perf_counter()
            done = postings.correct_hand(
                session_id=session.pk, number=1, entry=fix, user=user, apply=apply
            )
            took = time.perf_counter() - t0
        print(
            f"   {label}: {ms(took)}, {len(ctx.captured_queries)} queries, "
            f"{len(done.hands)} hands change ({sum(c.money_changed for c in done.hands)} "
            f"with money)"
        )
    postings.check_invariants(session)


if __name__ == "__main__":
    main()
