"""Share-link watchers under load (issue 12), for bench/web.py (not a benchmark itself).

The server is started the way `make run` starts it (``python -m bourre_site.lan``:
gunicorn, LAN mode, DEBUG off) on loopback port 8212, against the benchmark's database.
Then, for ``watch_seconds`` each:

1. a host records hands over HTTP back to back (GET the form, POST it as htmx does) with
   nobody watching;
2. the same, while 50 watchers poll the share link every 3 s as the page does (htmx,
   ``If-None-Match``: 304 while nothing changed, the board after each hand).

3. the same 50 watchers while a hand is recorded every 5 s (mostly 304s).

Prints the poll p95 (304s and 200s apart) and the record p95 of each part, and the
ratio of the first two. Everything goes over loopback; the run time is bounded
(3 × ``watch_seconds`` plus start-up).
"""

from __future__ import annotations

import http.client
import http.cookiejar
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

# The server runs the code under test: BENCH_ROOT's checkout when set (bench/_database.py).
ROOT = Path(os.environ.get("BENCH_ROOT") or Path(__file__).resolve().parent.parent)
PORT = 8212
WATCHERS = 50
POLL_EVERY = 3.0
PACED = 5.0
PLAYERS = ["ann", "ben", "cal", "dee", "eve"]
PASSWORD = "bench-password-1"


def _start_server(folder: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "BOURRE_"))}
    env.update(
        {
            "PORT": str(PORT),
            "BIND": "127.0.0.1",
            "BOURRE_SECRET_FILE": str(folder / "secret_key"),
            "PYTHONUNBUFFERED": "1",
        }
    )
    log = (folder / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "bourre_site.lan"], cwd=ROOT, env=env, stdout=log, stderr=log
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit((folder / "server.log").read_text())
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{PORT}/static/css/app.css", timeout=5)
            return process
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit("the server did not start")


class Host:
    """A scorekeeper's phone: logged in through the form, recording through the form."""

    def __init__(self, base: str, session_id: int, username: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        page = self.opener.open(base + "/accounts/login/").read().decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        body = urllib.parse.urlencode(
            {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token}
        ).encode()
        self.opener.open(base + "/accounts/login/", body)
        self.record_url = f"{base}/sessions/{session_id}/record/"

    def _csrf(self) -> str:
        return next(c.value for c in self.jar if c.name == "csrftoken")

    def record(self, hand: dict, post_data: Callable[[str, list[str], dict], dict]) -> float:
        form = urllib.request.Request(self.record_url, headers={"HX-Request": "true"})
        html = self.opener.open(form).read().decode()
        body = urllib.parse.urlencode(post_data(html, PLAYERS, hand)).encode()
        request = urllib.request.Request(
            self.record_url,
            data=body,
            headers={"HX-Request": "true", "X-CSRFToken": self._csrf(), "Referer": self.base},
        )
        t0 = time.perf_counter()
        with self.opener.open(request) as response:
            answer = response.read()
        took = time.perf_counter() - t0
        if b"saved" not in answer:
            raise SystemExit(f"hand refused: {hand}")
        return took


def _watch(path: str, stop: threading.Event, out: list[tuple[int, float]]) -> None:
    """One phone on the share link: poll every 3 s, starting at a random moment."""
    etag = ""
    stop.wait(random.uniform(0, POLL_EVERY))
    while not stop.is_set():
        started = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
        try:
            conn.request("GET", path, headers={"HX-Request": "true", "If-None-Match": etag})
            response = conn.getresponse()
            response.read()
            etag = response.getheader("ETag") or etag
            out.append((response.status, time.perf_counter() - started))
        except OSError:
            out.append((0, time.perf_counter() - started))
        finally:
            conn.close()
        stop.wait(max(0.0, POLL_EVERY - (time.perf_counter() - started)))


def run(
    watch_seconds: float,
    random_hand: Callable[[random.Random, list[str]], dict],
    post_data: Callable[[str, list[str], dict], dict],
    pct: Callable[[list[float], float], float],
) -> None:
    from django.contrib.auth import get_user_model
    from django.db import connections

    from games.models import Club, Membership, Player, Role
    from games.sessions import share
    from ledger import postings

    user = get_user_model().objects.create_user("watched-host", password=PASSWORD)
    club = Club.objects.create(name="Watched club", created_by=user)
    Membership.objects.create(club=club, user=user, role=Role.SCOREKEEPER)
    players = [Player.objects.create(club=club, name=n) for n in PLAYERS]
    session = postings.start_session(
        club=club,
        name="Watched night",
        players=players,
        dealer=players[-1],
        rules={},
        currency="$",
        user=user,
    )
    link = share.create_link(session, user)
    connections.close_all()

    rng = random.Random(20261130)
    base = f"http://127.0.0.1:{PORT}"
    with tempfile.TemporaryDirectory() as folder:
        server = _start_server(Path(folder))
        try:
            host = Host(base, session.pk, user.username)
            host.record(random_hand(rng, PLAYERS), post_data)  # warm up

            def record_for(seconds: float, pace: float = 0.0) -> list[float]:
                """Record hands for ``seconds``: back to back, or one every ``pace`` s."""
                times = []
                end = time.monotonic() + seconds
                while time.monotonic() < end:
                    started = time.monotonic()
                    times.append(host.record(random_hand(rng, PLAYERS), post_data))
                    time.sleep(max(0.0, min(pace - (time.monotonic() - started), end - started)))
                return times

            idle = record_for(watch_seconds)
            stop = threading.Event()
            polls: list[tuple[int, float]] = []
            threads = [
                threading.Thread(target=_watch, args=(f"/share/{link.token}/", stop, polls))
                for _ in range(WATCHERS)
            ]
            for t in threads:
                t.start()
            time.sleep(POLL_EVERY)  # every watcher has loaded the board once
            polls.clear()
            loaded = record_for(watch_seconds)
            busy = list(polls)
            polls.clear()
            # A real table records a hand a minute at most: between hands the polls are
            # 304s. One hand every PACED seconds shows that mix.
            paced = record_for(watch_seconds, pace=PACED)
            stop.set()
            for t in threads:
                t.join(timeout=35)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)

    def ms(seconds: float) -> str:
        return f"{seconds * 1000:.1f} ms"

    def report(label: str, sample: list[tuple[int, float]]) -> None:
        by_status: dict[int, list[float]] = {}
        for status, took in sample:
            by_status.setdefault(status, []).append(took)
        every = [t for _, t in sample]
        counts = ", ".join(f"{k}: {len(v)}" for k, v in sorted(by_status.items()))
        print(f"   polls {label}: {len(sample)} ({counts})")
        print(f"      p50 {ms(pct(every, 50))}, p95 {ms(pct(every, 95))}, max {ms(max(every))}")
        for status in (304, 200):
            if by_status.get(status):
                print(f"      answered {status}: p95 {ms(pct(by_status[status], 95))}")

    print(
        f"== {WATCHERS} share-link watchers polling every {POLL_EVERY:.0f} s (gunicorn, loopback)"
    )
    report("while hands are recorded back to back (every poll sees a change)", busy)
    report(f"while a hand is recorded every {PACED:.0f} s", polls)
    print(
        f"   record POST, nobody watching: {len(idle)} hands, p50 {ms(pct(idle, 50))}, "
        f"p95 {ms(pct(idle, 95))}"
    )
    print(
        f"   record POST, {WATCHERS} watching: {len(loaded)} hands, p50 {ms(pct(loaded, 50))}, "
        f"p95 {ms(pct(loaded, 95))}"
    )
    print(f"   record p95 ratio (watched / nobody watching): {pct(loaded, 95) / pct(idle, 95):.2f}")
    print(f"   record POST every {PACED:.0f} s, {WATCHERS} watching: p95 {ms(pct(paced, 95))}")
