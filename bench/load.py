"""Load test: tables recording at a real table's pace, phones polling, against gunicorn on
PostgreSQL, loopback only, bounded in time (issue #20; targets of issue #31).

1. The floor: uncontended, one request at a time through the same gunicorn (3 workers):
   a bare "ok" view behind the same middleware (``bench/_serve.py``), a record POST (and
   the form GET before it) and a 304 scoreboard poll; their p50 and the ratios to the
   bare view. Every timed request
   follows a bare one, and each ratio divides by the bare requests of its own phase (the
   load of a shared machine moves within a run).
   Then where a POST's time goes (Linux, from /proc): the gunicorn workers' CPU per
   bare request, per record form GET and per record POST (the POST is a form GET + POST
   less a form GET; clock ticks over hundreds of requests), and the CPU of PostgreSQL's
   own processes for this database per form GET + POST.
   Beside them the reference views of ``bench/_serve.py``: (b) a signed-in POST doing one
   ORM INSERT and rendering a small template, (c) the same behind a 6-field Django form,
   and a signed-in bare request; issue #31's targets are printed MET / NOT MET from these
   same-run ratios (record POST p50 ≤ 2× (c)'s, its worker CPU ≤ 3× (b)'s, a 304 poll ≤
   1.5× bare, a signed-in bare page ≤ 1.3× an anonymous one).
2. The load: N tables (N = 1, 4, 16, then 32, 64… up to ``BENCH_MAX_TABLES``, stopping
   once record p95 passes 100 ms), each recording one hand every 5 s (GET the form, POST
   it as htmx does) with 3 phones polling its scoreboard every 3 s, for
   ``BENCH_SECONDS`` (30) per N. Prints hands/s, record and poll p50/p95/p99, errors,
   and the largest N whose record p95 stayed under 100 ms.

    .venv/bin/python bench/load.py
    BENCH_ROOT=/tmp/bench-main .venv/bin/python bench/load.py   # another checkout's code

Ports 8120 (``BENCH_PORT``); its own scratch database (``BENCH_DB``), dropped at the end.
``BENCH_FLOOR_ONLY=1`` runs the floor alone. ``BENCH_DB_DELAY_MS=0.5`` puts PostgreSQL
behind a proxy that delays everything by that much each way (``bench/_latency.py``), as a
database on another machine would: each round trip a request waits for then shows.

Why its record ratio is about twice bench/floor.py's (issue #20): both time the same htmx
POST (form GET untimed) against the same bare view, but
- floor.py's bare view includes Django's test client (building the request and the
  response in the same process), which makes the floor larger and the ratio smaller;
  here the client is another process and the bare view is mostly the loopback socket;
- under gunicorn each worker reconnects every ``CONN_MAX_AGE`` seconds, and every
  request runs the connection check of ``bourre_site/dbhealth.py`` (a look at the
  socket); floor.py's statement counts do not see them;
- the POST here passes the CSRF check (the test client skips it);
- each statement is a hop to PostgreSQL's process and back: on a busy 2-core machine
  every hop may wait for a core, which the bare view (no database) never does, so this
  ratio grows with the machine's load much more than floor.py's.
bench/instructions.py counts instructions instead (noise-free, this process only).
"""

from __future__ import annotations

import http.client
import os
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

import _database
import _targets

BENCH = Path(__file__).resolve().parent
ROOT = _database.code_root(__file__)
DB_NAME = os.environ.get("BENCH_DB", "bench_load")
DB_DELAY = float(os.environ.get("BENCH_DB_DELAY_MS", "0")) / 1000
if DB_DELAY:
    import _latency

    _database.configure(DB_NAME, server=_latency.start(DB_DELAY, _database.SERVER))
else:
    _database.configure(DB_NAME)

PORT = int(os.environ.get("BENCH_PORT", "8120"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "30"))
MAX_TABLES = int(os.environ.get("BENCH_MAX_TABLES", "64"))
WORKERS = os.environ.get("BENCH_WORKERS", "3")
# BENCH_FLOOR_ONLY=1: the uncontended floor alone (quick before/after comparisons).
FLOOR_ONLY = os.environ.get("BENCH_FLOOR_ONLY") == "1"
HAND_EVERY, POLL_EVERY, PHONES = 5.0, 3.0, 3
PREFILL = 20  # hands already on each table before the load starts
P95_LIMIT = 0.100
FORM = "application/x-www-form-urlencoded"


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


def ms(seconds: float, places: int = 1) -> str:
    return f"{seconds * 1000:.{places}f} ms"


class Phone:
    """One client with its own cookies (a login session and the CSRF cookie)."""

    def __init__(self, session_key: str | None) -> None:
        self.cookies = {"sessionid": session_key} if session_key else {}

    def request(self, method: str, path: str, body: str = "", headers: dict | None = None):
        conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
        try:
            head = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
            if not self.cookies:
                head = {}
            head.update(headers or {})
            if body:
                head["Content-Type"] = FORM
            conn.request(method, path, body=body or None, headers=head)
            response = conn.getresponse()
            data = response.read()
            for name, value in response.getheaders():
                if name.lower() == "set-cookie":
                    key, _, rest = value.partition("=")
                    self.cookies[key.strip()] = rest.split(";", 1)[0]
            return response.status, dict(response.getheaders()), data
        finally:
            conn.close()


def random_hand(rng: random.Random, players: list[str]) -> dict:
    k = rng.choice([2, 3, 4, len(players)])
    active = rng.sample(players, k)
    tricks = dict.fromkeys(active, 0)
    for _ in range(5):
        tricks[rng.choice(active)] += 1
    return {"trump": rng.choice("SHDC"), "tricks": tricks}


def record_once(phone: Phone, session_id: int, rng: random.Random) -> tuple[float, bool]:
    """GET the record form, POST one hand as htmx does; (POST seconds, ok)."""
    elapsed, why = record_why(phone, session_id, rng)
    return elapsed, not why


def record_why(
    phone: Phone, session_id: int, rng: random.Random, forms: list[float] | None = None
) -> tuple[float, str]:
    """``record_once`` with what went wrong ("" when the hand was saved); the form GET's
    seconds are appended to ``forms`` when given."""
    path = f"/sessions/{session_id}/record/"
    t0 = time.perf_counter()
    status, _, page = phone.request("GET", path, headers={"HX-Request": "true"})
    if forms is not None:
        forms.append(time.perf_counter() - t0)
    if status != 200:
        return 0.0, f"form GET {status}"
    html = page.decode()
    players = re.findall(r'name="player_\d+" value="([^"]+)"', html)
    fields = {
        "csrfmiddlewaretoken": re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html),
        "idempotency_key": re.search(r'name="idempotency_key" value="([^"]+)"', html),
        "version": re.search(r'name="version" value="(\d+)"', html),
    }
    if not players or not all(fields.values()):
        return 0.0, "form without its fields"
    data = {k: m.group(1) for k, m in fields.items() if m}
    hand = random_hand(rng, players)
    data["trump"] = hand["trump"]
    # A costly hand (three bourrés…) is saved at once, as after the table's "Yes, save it":
    # the confirmation screen is no error, and every POST then writes a hand.
    data["confirmed"] = "1"
    for i, name in enumerate(players):
        data[f"player_{i}"] = name
        data[f"play_{i}"] = "play" if name in hand["tricks"] else "pass"
        data[f"tricks_{i}"] = str(hand["tricks"].get(name, 0))
        data[f"renege_{i}"] = ""
    t0 = time.perf_counter()
    status, _, body = phone.request(
        "POST",
        path,
        urlencode(data),
        {"HX-Request": "true", "X-CSRFToken": data["csrfmiddlewaretoken"]},
    )
    elapsed = time.perf_counter() - t0
    return elapsed, "" if status == 200 and b"saved" in body else f"POST {status}"


class Poller:
    def __init__(self, phone: Phone, session_id: int) -> None:
        self.phone, self.path, self.etag = phone, f"/sessions/{session_id}/", ""

    def poll(self) -> tuple[float, int]:
        headers = {"HX-Request": "true"}
        if self.etag:
            headers["If-None-Match"] = self.etag
        t0 = time.perf_counter()
        status, head, _ = self.phone.request("GET", self.path, headers=headers)
        elapsed = time.perf_counter() - t0
        self.etag = head.get("ETag", self.etag)
        return elapsed, status


def main() -> None:
    print(f"(code at {ROOT}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    if DB_DELAY:
        print(f"(PostgreSQL behind a proxy adding {ms(DB_DELAY, 2)} each way: bench/_latency.py)")
    with _database.scratch(DB_NAME):
        run()
    print(f"(load average {os.getloadavg()[0]:.1f} at the end)")


def setup(tables: int):
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.core.management import call_command
    from django.utils.module_loading import import_string

    from games.models import Club, Membership, Player, Role
    from ledger import postings

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("host", password="bench-password-1")
    club = Club.objects.create(name="Load club", created_by=user)
    Membership.objects.create(club=club, user=user, role=Role.OWNER)
    rng = random.Random(2020)
    sessions = []
    for t in range(tables):
        players = [Player.objects.create(club=club, name=f"t{t}p{j}") for j in range(5)]
        session = postings.start_session(club=club, name=f"Table {t}", players=players,
                                         dealer=players[-1], rules={}, currency="$", user=user)  # fmt: skip
        names = [p.name for p in players]
        for i in range(PREFILL):
            postings.record_hand(session_id=session.pk, entry=random_hand(rng, names),
                                 idempotency_key=f"pre-{t}-{i}", expected_version=None,
                                 user=user)  # fmt: skip
        sessions.append(session.pk)
    store = import_string(settings.SESSION_ENGINE + ".SessionStore")

    def login() -> str:
        s = store()
        s[SESSION_KEY] = str(user.pk)
        s[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        s[HASH_SESSION_KEY] = user.get_session_auth_hash()
        s.create()
        return s.session_key

    from django.db import connections

    connections.close_all()
    return sessions, login


def start_server() -> subprocess.Popen:
    env = dict(os.environ, DJANGO_DEBUG="0", DJANGO_ALLOWED_HOSTS="127.0.0.1",
               DJANGO_SESSION_COOKIE_SECURE="0", DJANGO_CSRF_COOKIE_SECURE="0",
               PYTHONWARNINGS="ignore")  # fmt: skip
    gunicorn = Path(sys.executable).parent / "gunicorn"
    server = subprocess.Popen(
        [str(gunicorn), "_serve:application", "--workers", WORKERS, "--bind",
         f"127.0.0.1:{PORT}", "--chdir", str(ROOT), "--pythonpath", f"{ROOT},{BENCH}",
         "--log-level", "warning", "--timeout", "60"],
        env=env,
    )  # fmt: skip
    phone = Phone(None)
    for _ in range(100):
        try:
            if phone.request("GET", "/bench/ok/")[0] == 200:
                return server
        except OSError:
            pass
        time.sleep(0.2)
    server.terminate()
    raise SystemExit("gunicorn did not start")


def floor(session_id: int, login) -> None:
    # The bare view's client has no login: the floor is routing and middleware alone.
    # Each timed request is paired with a bare one right before it, and each ratio is
    # taken against the bare requests of its own phase: on a busy machine the load moves
    # within a run, and a floor measured a minute earlier would not be the same floor.
    host, watcher, bare = Phone(login()), Phone(login()), Phone(None)
    signed_in = Phone(login())
    rng = random.Random(1)
    for _ in range(20):  # warm every worker
        bare.request("GET", "/bench/ok/")
        record_once(host, session_id, rng)
        reference_post(host, "/bench/form/", session_id)

    def bare_once(phone: Phone = bare) -> float:
        t0 = time.perf_counter()
        phone.request("GET", "/bench/ok/")
        return time.perf_counter() - t0

    # The record POST, the reference views (b) and (c) and a bare request, in turn.
    post_bares, posts, forms, inserts, form_posts = [], [], [], [], []
    for _ in range(60):
        post_bares.append(bare_once())
        t, why = record_why(host, session_id, rng, forms)
        if not why:
            posts.append(t)
        inserts.append(reference_post(host, "/bench/insert/", session_id))
        form_posts.append(reference_post(host, "/bench/form/", session_id))
    anonymous, signed = [], []
    for _ in range(200):
        anonymous.append(bare_once())
        signed.append(bare_once(signed_in))
    poller = Poller(watcher, session_id)
    poller.poll()
    poll_bares, polls = [], []
    for _ in range(200):
        poll_bares.append(bare_once())
        t, status = poller.poll()
        if status == 304:
            polls.append(t)
    flush_bares, flushes, quick_bares, quick_posts = durability(host, session_id, rng, bare_once)
    b = pct(post_bares + poll_bares, 50)
    b_post, b_poll = pct(post_bares, 50), pct(poll_bares, 50)
    b_flush, b_quick = pct(flush_bares, 50), pct(quick_bares, 50)
    print(f"== floor (uncontended, gunicorn {WORKERS} workers, PostgreSQL)")
    print(f"   bare view p50 {ms(b)} (beside the POSTs {ms(b_post)}, the polls {ms(b_poll)})")
    print(f"   record POST p50 {ms(pct(posts, 50))} = {pct(posts, 50) / b_post:.1f}× bare "
          f"({len(posts)}/60 saved)")  # fmt: skip
    print(f"   record form GET (before each POST) p50 {ms(pct(forms, 50))} = "
          f"{pct(forms, 50) / b_post:.1f}× bare")  # fmt: skip
    print(f"   304 poll p50 {ms(pct(polls, 50))} = {pct(polls, 50) / b_poll:.1f}× bare "
          f"({len(polls)}/200 were 304)")  # fmt: skip
    p_b, p_c = pct(inserts, 50), pct(form_posts, 50)
    print(f"   reference (b) login + one INSERT + small template p50 {ms(p_b)}; (c) the same "
          f"behind a 6-field form p50 {ms(p_c)}")  # fmt: skip
    print(f"   signed-in bare p50 {ms(pct(signed, 50))}, anonymous {ms(pct(anonymous, 50))}")
    _targets.check("record POST p50 / (c) p50", pct(posts, 50) / p_c, 2.0)
    _targets.check("304 poll p50 / bare p50", pct(polls, 50) / b_poll, 1.5)
    _targets.check(
        "signed-in bare p50 / anonymous bare p50", pct(signed, 50) / pct(anonymous, 50), 1.3
    )
    print(f"   durable commit of one row (its WAL flushed to disk) p50 {ms(pct(flushes, 50))} "
          f"= {pct(flushes, 50) / b_flush:.1f}× bare: what any saved hand costs at least")  # fmt: skip
    print(f"   record POST without the flush (synchronous_commit off, bench only) p50 "
          f"{ms(pct(quick_posts, 50))} = {pct(quick_posts, 50) / b_quick:.1f}× bare "
          f"({len(quick_posts)}/60 saved)")  # fmt: skip


_CLUBS: dict[int, int] = {}


def reference_post(phone: Phone, path: str, session_id: int) -> float:
    """POST the reference view (b) ``/bench/insert/`` or (c) ``/bench/form/``
    (bench/_serve.py) for the session's club; its seconds (it must answer 200)."""
    import _serve

    if session_id not in _CLUBS:
        from games.models import GameSession

        _CLUBS[session_id] = GameSession.objects.values_list("club_id", flat=True).get(
            pk=session_id
        )
    body = urlencode(_serve.reference_form_data(_CLUBS[session_id]))
    headers = {"X-CSRFToken": phone.cookies.get("csrftoken", "")}
    t0 = time.perf_counter()
    status, _, _ = phone.request("POST", path, body, headers)
    elapsed = time.perf_counter() - t0
    assert status == 200, (path, status)
    return elapsed


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of these processes so far (0 for one that has ended)."""
    ticks = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def _workers(server: subprocess.Popen) -> list[int]:
    with open(f"/proc/{server.pid}/task/{server.pid}/children") as f:
        return [int(x) for x in f.read().split()]


def _database_backends() -> list[int]:
    import psycopg

    with psycopg.connect(f"{_database.SERVER}/{DB_NAME}", autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [DB_NAME],
        ).fetchall()
    return [pid for (pid,) in rows]


def cpu_split(server: subprocess.Popen, session_id: int, login, rounds: int = 300) -> None:
    """CPU per request where it is spent: the workers' and PostgreSQL's (module
    docstring, item 1). Clock ticks are 10 ms: hundreds of requests make them exact
    enough, and CPU moves much less than wall time on a busy machine."""
    if not Path(f"/proc/{server.pid}/task").is_dir():
        print("   (CPU split: needs Linux's /proc; skipped)")
        return
    host, bare = Phone(login()), Phone(None)
    rng = random.Random(2)
    path = f"/sessions/{session_id}/record/"
    workers = _workers(server)

    def per_request(run, n: int, pids: list[int]) -> float:
        c0 = _cpu_seconds(pids)
        for _ in range(n):
            run()
        return (_cpu_seconds(pids) - c0) / n

    c_bare = per_request(lambda: bare.request("GET", "/bench/ok/"), rounds * 3, workers)
    record_once(host, session_id, rng)  # the phone's CSRF cookie, as a real phone has it
    c_b = per_request(lambda: reference_post(host, "/bench/insert/", session_id), rounds, workers)
    c_form = per_request(
        lambda: host.request("GET", path, headers={"HX-Request": "true"}), rounds, workers
    )
    backends = _database_backends()
    c0, p0 = _cpu_seconds(workers), _cpu_seconds(backends)
    saved = sum(record_once(host, session_id, rng)[1] for _ in range(rounds))
    c_hand = (_cpu_seconds(workers) - c0) / rounds
    p_hand = (_cpu_seconds(backends) - p0) / rounds
    c_post = c_hand - c_form
    print(f"   CPU, gunicorn workers: bare {ms(c_bare, 2)}, record form GET {ms(c_form, 2)} = "
          f"{c_form / c_bare:.1f}× bare, record POST {ms(c_post, 2)} = {c_post / c_bare:.1f}× "
          f"bare ({saved}/{rounds} saved)")  # fmt: skip
    print(f"   CPU, PostgreSQL's processes: {ms(p_hand, 2)} per form GET + POST")
    print(f"   CPU, gunicorn workers: reference (b) POST {ms(c_b, 2)}")
    _targets.check("record POST worker CPU / (b)'s", c_post / c_b, 3.0)


def durability(host, session_id: int, rng, bare_once):
    """How much of a record POST is the disk: a one-row INSERT + COMMIT timed beside bare
    requests (PostgreSQL returns only once the commit's WAL is on disk: the price of a
    hand that survives a crash), then the record POST again with the bench database's
    ``synchronous_commit`` off (the workers' connections are ended so they reconnect with
    it; the health check of bourre_site.dbhealth sees to that). Put back before the load
    phase: the app itself never turns durability off."""
    import psycopg

    url = f"{_database.SERVER}/{DB_NAME}"
    flush_bares, flushes, quick_bares, quick_posts = [], [], [], []
    with psycopg.connect(url) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS bench_flush_probe (x integer)")
        conn.commit()
        for _ in range(60):
            flush_bares.append(bare_once())
            t0 = time.perf_counter()
            conn.execute("INSERT INTO bench_flush_probe VALUES (1)")
            conn.commit()
            flushes.append(time.perf_counter() - t0)

    def workers_reconnect_with(setting: str) -> None:
        from django.db import connections

        connections.close_all()  # this process's own (its logins) is not to be cut off
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"ALTER DATABASE {DB_NAME} {setting}")
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()",
                [DB_NAME],
            )

    workers_reconnect_with("SET synchronous_commit = off")
    try:
        for _ in range(10):  # every worker reconnects
            record_once(host, session_id, rng)
        for _ in range(60):
            quick_bares.append(bare_once())
            t, ok = record_once(host, session_id, rng)
            if ok:
                quick_posts.append(t)
    finally:
        workers_reconnect_with("RESET synchronous_commit")
        for _ in range(10):
            record_once(host, session_id, rng)
    return flush_bares, flushes, quick_bares, quick_posts


def load(sessions: list[int], login, n: int) -> float:
    records: list[float] = []
    polls: list[float] = []
    errors = {"record": 0, "poll": 0}
    failures: dict[str, int] = {}  # the records' failures, by what went wrong
    lock = threading.Lock()
    # Every login made here, on this thread's one connection: the client threads touch
    # only HTTP (a database connection per thread would exhaust the shared server's).
    keys = iter([login() for _ in range(n * (1 + PHONES))])
    start = time.perf_counter() + 1.0
    end = start + SECONDS

    def table(session_id: int, seed: int) -> None:
        phone, rng = Phone(next(keys)), random.Random(seed)
        at = start + rng.uniform(0, HAND_EVERY)
        while at < end:
            time.sleep(max(0.0, at - time.perf_counter()))
            try:
                t, why = record_why(phone, session_id, rng)
            except OSError as exc:
                t, why = 0.0, type(exc).__name__
            with lock:
                if not why:
                    records.append(t)
                else:
                    errors["record"] += 1
                    failures[why] = failures.get(why, 0) + 1
            at += HAND_EVERY

    def phone_poll(session_id: int, seed: int) -> None:
        poller, rng = Poller(Phone(next(keys)), session_id), random.Random(seed)
        at = start + rng.uniform(0, POLL_EVERY)
        while at < end:
            time.sleep(max(0.0, at - time.perf_counter()))
            try:
                t, status = poller.poll()
            except OSError:
                t, status = 0.0, 0
            with lock:
                if status in (200, 304):
                    polls.append(t)
                else:
                    errors["poll"] += 1
            at += POLL_EVERY

    from django.db import connections

    connections.close_all()
    threads = []
    for i, session_id in enumerate(sessions[:n]):
        threads.append(threading.Thread(target=table, args=(session_id, i)))
        for k in range(PHONES):
            threads.append(threading.Thread(target=phone_poll, args=(session_id, 1000 * i + k)))
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    p95 = pct(records, 95)
    print(f"== {n} table(s), {n * PHONES} phones, {SECONDS:.0f} s: "
          f"{len(records) / SECONDS:.2f} hands/s; record p50 {ms(pct(records, 50))}, "
          f"p95 {ms(p95)}, p99 {ms(pct(records, 99))}; poll p50 {ms(pct(polls, 50))}, "
          f"p95 {ms(pct(polls, 95))} ({len(polls)} polls); errors {errors}"
          + (f" (records: {failures})" if failures else ""))  # fmt: skip
    return p95


def run() -> None:
    counts = [1, 4, 16]
    n = 32
    while n <= MAX_TABLES:
        counts.append(n)
        n *= 2
    sessions, login = setup(1 if FLOOR_ONLY else max(counts))
    server = start_server()
    try:
        floor(sessions[0], login)
        cpu_split(server, sessions[0], login)
        _targets.summary()
        if FLOOR_ONLY:
            return
        best, failed_at = 0, None
        for n in counts:
            if n > 16 and failed_at is not None:
                break  # 1, 4 and 16 always run; more only while p95 stays under the limit
            if load(sessions, login, n) <= P95_LIMIT and failed_at is None:
                best = n
            elif failed_at is None:
                failed_at = n
                print(f"   record p95 passed {ms(P95_LIMIT)} at {n} tables")
        more = " (or more: BENCH_MAX_TABLES reached)" if failed_at is None else ""
        print(f"== largest N tried with record p95 under {ms(P95_LIMIT)}: {best}{more}")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
