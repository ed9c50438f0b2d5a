"""REST API benchmark on PostgreSQL: the ledger export of a 5,000-hand session, recording
through the API, and the public verifier's throughput over HTTP.

Creates a dedicated database `bench_api` (dropped again at the end), migrates it, then

1. records 500 hands through `POST /api/v1/sessions/{id}/hands/` (token auth, JSON,
   idempotency key; routing, middleware, serializers, the engine and the ledger) and
   prints hands/s and p50/p95 latency; the session is then grown to 5,000 hands
   straight through `ledger.postings.record_hand` (the same function, faster setup);
2. exports the session's whole ledger through `GET /api/v1/clubs/{id}/postings/
   ?session=…` page by page (cursor pagination) at two page sizes, printing the time
   per page, the total, and the queries per page (which must not grow with the page
   size), plus the hand list and settlement;
3. sends the verifier hand records over HTTP (`POST /api/v1/hands/verify`, summary
   records and complete card logs) and prints requests/s and latency;
4. webhooks: the cost of the outbox on recording (hands/s with and without an endpoint,
   as a ratio) and the delivery throughput of `games.api.outbox.deliver_due` to a local
   HTTP receiver (deliveries/s, signed, one endpoint and four);
5. the club export (`GET /api/v1/clubs/{id}/export/`, JSON Lines, streamed) of a club
   with 10 and with 100 sessions: time, lines/s and the peak memory Python allocated
   while streaming (tracemalloc), as a ratio (flat memory: about 1, not 10).

"HTTP" here is django.test.Client: the whole Django stack (URL routing, middleware,
DRF parsing, rendering) in-process, without a socket or a WSGI server in front; a real
server adds its own per-request overhead. One process, one core.

    .venv/bin/python bench/api.py            # PostgreSQL at 127.0.0.1:5432, user postgres
    .venv/bin/python bench/api.py webhooks export   # only sections 4 and 5
    BENCH_PG=postgres://user@host:5432 .venv/bin/python bench/api.py
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import _database

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DB_NAME = os.environ.get("BENCH_DB", "bench_api")  # a name of your own on a shared server
_database.configure(DB_NAME)
# The verifier is throttled per client; the benchmark is one client hammering it.
os.environ["BOURRE_VERIFY_RATE"] = "100000000/min"

HANDS_VIA_API = 500
HANDS_IN_SESSION = 5000
PAGE_SIZES = (100, 500)
VERIFY_CALLS = 2000
PLAYERS = ["ann", "ben", "cal", "dee", "eve"]


def random_entry(rng: random.Random, players: list[str]) -> dict:
    """The table's part of a valid summary record: passes, tricks, now and then a
    renege; uncontested hands, splits and bourrés all occur."""
    k = rng.choices([1, 2, 3, len(players)], weights=[1, 3, 4, 4])[0]
    active = rng.sample(players, k)
    tricks = dict.fromkeys(active, 0)
    if k > 1:
        for _ in range(5):
            tricks[rng.choice(active)] += 1
    entry = {
        "trump": rng.choice("SHDC"),
        "passed": [p for p in players if p not in active],
        "tricks": tricks,
    }
    if k > 1 and rng.random() < 0.03:
        entry["reneges"] = [{"player": rng.choice(active), "corrected": rng.random() < 0.5}]
    return entry


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def main() -> None:
    with _database.scratch(DB_NAME):
        run()


# radon D: one straight script (set up, then each figure in turn), read top to bottom.
def run() -> None:
    import logging

    import django

    django.setup()
    # Every 400 would print "Bad Request: …" (django.request warnings) and time the console.
    logging.getLogger("django.request").setLevel(logging.ERROR)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from games.models import ApiToken, Club, Membership, Player, Role
    from ledger import postings
    from ledger.models import Posting

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench", password="bench-password-1")
    only = [a for a in sys.argv[1:] if a in ("webhooks", "export")]
    if only:  # `bench/api.py webhooks export`: just those sections
        for name in only:
            {"webhooks": bench_webhooks, "export": bench_export}[name](
                user, random.Random(20261129)
            )
        return
    club = Club.objects.create(name="Bench club", created_by=user)
    Membership.objects.create(club=club, user=user, role=Role.SCOREKEEPER)
    players = [Player.objects.create(club=club, name=n) for n in PLAYERS]
    session = postings.start_session(
        club=club,
        name="Bench night",
        players=players,
        dealer=players[-1],
        rules={},
        currency="$",
        user=user,
    )
    _, key = ApiToken.issue(user, "bench")
    api = Client(headers={"Authorization": f"Bearer {key}"})
    rng = random.Random(20261129)
    print(f"PostgreSQL database {DB_NAME}; django.test.Client (in-process, no socket)")

    # 1. Recording through the API.
    hands_url = f"/api/v1/sessions/{session.pk}/hands/"
    api.get(f"/api/v1/sessions/{session.pk}/")  # warm up
    posts: list[float] = []
    for _ in range(HANDS_VIA_API):
        body = json.dumps(random_entry(rng, PLAYERS))
        t0 = time.perf_counter()
        response = api.post(
            hands_url,
            body,
            content_type="application/json",
            headers={"Idempotency-Key": uuid.uuid4().hex},
        )
        posts.append(time.perf_counter() - t0)
        if response.status_code != 201:
            raise SystemExit(f"hand refused ({response.status_code}): {response.content!r}")
    print(f"== recording {HANDS_VIA_API} hands through POST {hands_url}")
    print(
        f"   {HANDS_VIA_API / sum(posts):.0f} hands/s, p50 {ms(pct(posts, 50))}, "
        f"p95 {ms(pct(posts, 95))}, max {ms(max(posts))}"
    )

    grown = _record(postings, session, rng, user, HANDS_IN_SESSION - HANDS_VIA_API)
    session.refresh_from_db()
    assert session.hands_count == HANDS_IN_SESSION, session.hands_count
    postings.check_invariants(session)
    total = Posting.objects.filter(session=session).count()
    print(
        f"   (grew the session to {HANDS_IN_SESSION} hands through record_hand in "
        f"{grown:.1f} s: {total} postings)"
    )

    # 2. The ledger export, page by page.
    export_url = f"/api/v1/clubs/{club.pk}/postings/?session={session.pk}"
    print(f"== ledger export of the {HANDS_IN_SESSION}-hand session: {total} postings")
    for size in PAGE_SIZES:
        url: str | None = f"{export_url}&page_size={size}"
        api.get(url)  # warm up
        times: list[float] = []
        queries: set[int] = set()
        seen = 0
        legs = 0
        while url:
            with CaptureQueriesContext(connection) as ctx:
                t0 = time.perf_counter()
                response = api.get(url)
                times.append(time.perf_counter() - t0)
            assert response.status_code == 200, response.content
            queries.add(len(ctx.captured_queries))
            page = response.json()
            seen += len(page["results"])
            legs += sum(len(p["legs"]) for p in page["results"])
            # `next` is the cursor to send back (issue 36); the Link header has the URL.
            url = (
                f"{export_url}&page_size={size}&cursor={quote(page['next'])}"
                if page["next"]
                else None
            )
        assert seen == total, (seen, total)
        print(
            f"   page_size {size}: {len(times)} pages in {sum(times):.2f} s "
            f"({total / sum(times):,.0f} postings/s, {legs} legs); per page p50 "
            f"{ms(pct(times, 50))}, p95 {ms(pct(times, 95))}; queries per page "
            f"{sorted(queries)}"
        )

    for label, url in (
        ("hand list, first page (50)", f"{hands_url}"),
        ("hand list, page_size 500", f"{hands_url}?page_size=500"),
        ("session detail", f"/api/v1/sessions/{session.pk}/"),
        ("settlement (JSON)", f"/api/v1/sessions/{session.pk}/settlement/"),
        ("settlement (CSV)", f"/api/v1/sessions/{session.pk}/settlement/csv/"),
        ("club statistics", f"/api/v1/clubs/{club.pk}/stats/"),
    ):
        api.get(url)
        times = []
        for _ in range(10):
            t0 = time.perf_counter()
            assert api.get(url).status_code == 200
            times.append(time.perf_counter() - t0)
        with CaptureQueriesContext(connection) as ctx:
            api.get(url)
        print(f"   {label}: p50 {ms(pct(times, 50))}, {len(ctx.captured_queries)} queries")

    # 3. The verifier over HTTP.
    from games.engine import HandState, Rules

    anon = Client()
    summary = {"players": PLAYERS, "dealer": "eve", **random_entry(random.Random(5), PLAYERS)}
    card_logs = []
    log_rng = random.Random(7)
    for i in range(200):
        state = HandState.new(PLAYERS[:4], i % 4, Rules(), log_rng)
        for seat in state.order:
            state.apply({"type": "play", "player": PLAYERS[seat], "discard": []})
        while state.phase == "play":
            player = state.to_act
            state.apply(
                {
                    "type": "card",
                    "player": player,
                    "card": log_rng.choice(state.legal_cards(player)),
                }
            )
        card_logs.append(json.dumps(state.to_record()))
    print(f"== POST /api/v1/hands/verify, {VERIFY_CALLS} calls each (anonymous)")
    for label, bodies in (
        ("summary record", [json.dumps(summary)]),
        ("complete card log, 4 players", card_logs),
        ("invalid record (400)", [json.dumps({"players": ["ann"], "dealer": "zed"})]),
    ):
        expected = 400 if "invalid" in label else 200
        anon.post("/api/v1/hands/verify", bodies[0], content_type="application/json")
        times = []
        for i in range(VERIFY_CALLS):
            body = bodies[i % len(bodies)]
            t0 = time.perf_counter()
            response = anon.post("/api/v1/hands/verify", body, content_type="application/json")
            times.append(time.perf_counter() - t0)
            assert response.status_code == expected, response.content
        with CaptureQueriesContext(connection) as ctx:
            anon.post("/api/v1/hands/verify", bodies[0], content_type="application/json")
        print(
            f"   {label}: {VERIFY_CALLS / sum(times):,.0f} requests/s, p50 "
            f"{ms(pct(times, 50))}, p95 {ms(pct(times, 95))}, "
            f"{len(ctx.captured_queries)} queries"
        )

    bench_webhooks(user, rng)
    bench_export(user, rng)


def _club_with_session(user, name: str):
    from games.models import Club, Membership, Player, Role
    from ledger import postings

    club = Club.objects.create(name=name, created_by=user)
    Membership.objects.create(club=club, user=user, role=Role.OWNER)
    players = [Player.objects.create(club=club, name=n) for n in PLAYERS]
    return club, players, postings


def _record(postings, session, rng, user, n: int) -> float:
    started = time.perf_counter()
    for _ in range(n):
        postings.record_hand(
            session_id=session.pk,
            entry=random_entry(rng, PLAYERS),
            idempotency_key=uuid.uuid4().hex,
            expected_version=None,
            user=user,
        )
    return time.perf_counter() - started


def bench_webhooks(user, rng: random.Random, hands: int = 400) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from django.conf import settings

    from games.api import outbox
    from games.models import WebhookDelivery, WebhookEndpoint

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/hook"
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOW_PRIVATE = True  # the receiver is on 127.0.0.1 (games.api.egress)
    print(f"== webhooks: {hands} hands recorded, delivered to a local HTTP receiver")
    setups = {"no endpoint": 0, "1 endpoint": 1, "4 endpoints": 4}
    sessions, seconds = {}, dict.fromkeys(setups, 0.0)
    for label, endpoints in setups.items():
        club, players, postings = _club_with_session(user, f"Hooks {label}")
        for _ in range(endpoints):
            WebhookEndpoint.objects.create(club=club, url=url)
        sessions[label] = postings.start_session(
            club=club,
            name="Hooks",
            players=players,
            dealer=players[0],
            rules={},
            currency="$",
            user=user,
        )
    # Interleaved blocks, so that the shared machine's ups and downs hit all three alike.
    block = 50
    for _ in range(hands // block):
        for label in setups:
            seconds[label] += _record(postings, sessions[label], rng, user, block)
    base = hands / seconds["no endpoint"]
    for label in setups:
        rate = hands / seconds[label]
        print(f"   recording, {label}: {rate:.0f} hands/s (ratio to no endpoint {rate / base:.2f})")
    count = WebhookDelivery.objects.filter(status="pending").count()
    assert count == hands * sum(setups.values()), count
    started = time.perf_counter()
    while outbox.deliver_due():
        pass
    elapsed = time.perf_counter() - started
    assert not WebhookDelivery.objects.exclude(status="delivered").exists()
    print(
        f"   delivery: {count} deliveries to {sum(setups.values())} endpoints in "
        f"{elapsed:.2f} s ({count / elapsed:,.0f}/s, one worker, a new connection each)"
    )
    server.shutdown()


def stream(api, url: str) -> tuple[int, int]:
    """Read a streamed response to its end: (lines, bytes)."""
    lines = size = 0
    for chunk in api.get(url).streaming_content:
        lines += chunk.count(b"\n")
        size += len(chunk)
    return lines, size


def bench_export(user, rng: random.Random, hands_per_session: int = 20) -> None:
    import tracemalloc

    from django.test import Client

    from games.api import export
    from games.models import ApiToken

    # Rows are read BATCH at a time; with 100 both clubs span several batches, so what
    # the ratio shows is whether memory follows the batch (flat) or the club (10x).
    export.BATCH = 100
    _, key = ApiToken.issue(user, "export")
    api = Client(headers={"Authorization": f"Bearer {key}"})
    print(
        f"== club export (JSON Lines, streamed), {hands_per_session} hands a session, "
        "rows read 100 at a time"
    )
    peaks = {}
    for sessions in (10, 100):
        club, players, postings = _club_with_session(user, f"Export {sessions}")
        for i in range(sessions):
            session = postings.start_session(
                club=club,
                name=f"Night {i}",
                players=players,
                dealer=players[i % 5],
                rules={},
                currency="$",
                user=user,
            )
            _record(postings, session, rng, user, hands_per_session)
            postings.close_session(session_id=session.pk, user=user)
        url = f"/api/v1/clubs/{club.pk}/export/"
        stream(api, url)  # warm up: imports, URL resolvers, middleware, database caches
        started = time.perf_counter()
        lines, size = stream(api, url)
        seconds = time.perf_counter() - started
        # Memory in a run of its own: tracemalloc slows Python down several times.
        tracemalloc.start()
        stream(api, url)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        peaks[sessions] = peak
        print(
            f"   {sessions} sessions: {lines:,} lines, {size / 1e6:.1f} MB in {seconds:.2f} s "
            f"({lines / seconds:,.0f} lines/s); peak allocated while streaming "
            f"{peak / 1e6:.2f} MB"
        )
    print(f"   peak memory ratio, 100 vs 10 sessions: {peaks[100] / peaks[10]:.2f}")


if __name__ == "__main__":
    main()
