"""Every speed device, measured with and without it in one run, on PostgreSQL (issue #31).

A device is code that replaces Django's own machinery to save time on one request. For
each, the request it serves is timed alternately with the device and without it (the
same process, the same database, the same moment of a busy machine), and its gain is
``(without - with) / without`` of that request's p50. Issue #31 keeps a device only when
it saves at least 10 % of its request.

The switches live here, not in the app: each one puts back what Django (or the code
before the device) does, for the "without" arm only. A device the code no longer has is
printed as "removed" (its last measure is in ARCHITECTURE.md's speed section).

Kept (issue #31): ``poll_middleware`` (the 304 answered from one statement before the
stack, ``games.polling.BoardPollMiddleware``, vs by the view; the 304 poll),
``legs_along`` (the legs a recorded hand wrote handed back to the result screen,
``ledger.postings.record_hand_with_legs``, vs read back; the record POST) and
``dbhealth`` (a look at the socket, ``bourre_site.dbhealth``, vs Django's
``CONN_HEALTH_CHECKS``; the 304 poll). Removed, measured while the code had them (run
against such a checkout with ``BENCH_ROOT``, e.g. ``git archive 95d9723``):
``sessions`` (the login row read by plain SQL), ``prepared`` (statements kept prepared;
each arm on its own connection, in blocks of ten), ``get_user`` (the record path's own
login check), ``pipeline`` (psycopg's pipeline mode), ``webhooks_flag`` (the club's
flag read with the lock), ``gc_freeze`` (``bourre_site.heap``).

The test client sends no ``request_started`` to the connection checks; each request here
runs them as a server would (ours or Django's).

    .venv/bin/python bench/devices.py          # BENCH_RUNS=60 pairs per device
    BENCH_ROOT=/tmp/bench-main .venv/bin/python bench/devices.py
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import inspect
import os
import random
import re
import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlencode

import _database

ROOT = _database.code_root(__file__)
DB_NAME = os.environ.get("BENCH_DB", "bench_devices")
_database.configure(DB_NAME)

RUNS = int(os.environ.get("BENCH_RUNS", "60"))
HANDS = int(os.environ.get("BENCH_HANDS", "300"))
PLAYERS = ["ann", "ben", "cal", "dee", "eve"]
FORM = "application/x-www-form-urlencoded"
HTMX = {"HTTP_HX_REQUEST": "true"}

Switch = Callable[[], contextlib.AbstractContextManager[None]]


def _module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


@contextlib.contextmanager
def _patched(obj: Any, name: str, value: Any) -> Iterator[None]:
    old = getattr(obj, name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        setattr(obj, name, old)


def switches() -> dict[str, Switch | None]:
    """Each device's "without" arm (None: the code has no such device any more)."""
    from django.db import connection

    out: dict[str, Switch | None] = {}

    sessions = _module("bourre_site.sessions")
    if sessions is not None:
        from django.contrib.sessions.backends import db

        out["sessions"] = lambda: _patched(
            sessions.SessionStore, "_get_session_from_db", db.SessionStore._get_session_from_db
        )
    else:
        out["sessions"] = None

    prepared = _module("bourre_site.prepared")

    @contextlib.contextmanager
    def no_prepared() -> Iterator[None]:
        kept = set(prepared.PREPARED)
        prepared.PREPARED.clear()
        connection.close()  # psycopg keeps using what it prepared on a connection
        try:
            yield
        finally:
            prepared.PREPARED.update(kept)
            connection.close()

    out["prepared"] = no_prepared if prepared is not None else None

    polling = _module("games.polling")
    out["poll_middleware"] = (
        (lambda: _patched(polling, "login_board_unchanged", lambda request: None))
        if hasattr(polling, "login_board_unchanged")
        else None
    )

    postings = _module("ledger.postings")
    if hasattr(postings, "record_hand_with_legs"):
        from ledger.postings import hands

        def read_back(*args: Any, **kwargs: Any) -> Any:
            hand, created, _legs = hands.record_hand_with_legs(*args, **kwargs)
            return hand, created, None  # the result screen reads the legs back

        views = importlib.import_module("games.sessions.views")
        target = views if hasattr(views, "record_hand_with_legs") else postings
        out["legs_along"] = lambda: _patched(target, "record_hand_with_legs", read_back)
    elif hasattr(postings, "hands") and hasattr(postings.hands, "_write_money"):
        hands = postings.hands
        write = hands._write_money

        def forget(*args: Any, **kwargs: Any) -> None:
            write(*args, **kwargs)
            args[2].__dict__.pop("_posted_legs", None)

        out["legs_along"] = lambda: _patched(hands, "_write_money", forget)
    else:
        out["legs_along"] = None

    access = _module("games.access")
    if hasattr(access, "session_for_login"):
        views = importlib.import_module("games.sessions.views")

        def unsure(*args: Any, **kwargs: Any) -> Any:
            raise access.LoginUnsure

        out["get_user"] = lambda: _patched(views, "session_for_login", unsure)
    else:
        out["get_user"] = None

    games_sql = importlib.import_module("games.sql")
    if hasattr(games_sql, "run_together"):

        def one_by_one(statements: Any) -> list[list[tuple[Any, ...]]]:
            results = []
            with connection.cursor() as cursor:
                for sql, params in statements:
                    cursor.execute(sql, params)
                    results.append(cursor.fetchall())
            return results

        out["pipeline"] = lambda: _patched(games_sql, "run_together", one_by_one)
    else:
        out["pipeline"] = None

    if "_has_webhooks" in inspect.getsource(games_sql):
        read = games_sql.session_with_membership

        def without_flag(*args: Any, **kwargs: Any) -> Any:
            found = read(*args, **kwargs)
            if found is not None:
                found.__dict__.pop("_has_webhooks", None)
            return found

        out["webhooks_flag"] = lambda: _patched(games_sql, "session_with_membership", without_flag)
    else:
        out["webhooks_flag"] = None

    if _module("bourre_site.heap") is not None:

        @contextlib.contextmanager
        def thawed() -> Iterator[None]:
            gc.unfreeze()
            try:
                yield
            finally:
                gc.collect()
                gc.freeze()

        out["gc_freeze"] = thawed
    else:
        out["gc_freeze"] = None

    dbhealth = _module("bourre_site.dbhealth")
    out["dbhealth"] = (
        (lambda: _patched(dbhealth, "check_connections", _django_health_check))
        if dbhealth is not None
        else None
    )
    return out


def _django_health_check(**kwargs: Any) -> None:
    """What Django does at request_started with CONN_HEALTH_CHECKS on: the next query of
    a reused connection is preceded by a check of it (``SELECT 1`` on PostgreSQL)."""
    from django.db import connections

    for conn in connections.all(initialized_only=True):
        conn.health_check_enabled = True
        conn.health_check_done = False


def main() -> None:
    print(f"(code at {ROOT}; load average {os.getloadavg()[0]:.1f} at the start)")
    with _database.scratch(DB_NAME):
        run()
    print(f"(load average {os.getloadavg()[0]:.1f} at the end)")


def run() -> None:  # noqa: C901, PLR0915 (one straight script)
    import _serve  # noqa: F401  (the app's URLs plus the bench views, as served)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.core.signals import request_started
    from django.test import Client
    from django.urls import reverse

    from games.models import Club, Membership, Player, Role
    from ledger import postings

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench", password="bench-password-1")
    club = Club.objects.create(name="Bench club", created_by=user)
    Membership.objects.create(club=club, user=user, role=Role.OWNER)
    players = [Player.objects.create(club=club, name=n) for n in PLAYERS]
    client = Client()
    client.force_login(user)
    rng = random.Random(31)
    session = postings.start_session(club=club, name="Devices", players=players,
                                     dealer=players[-1], rules={}, currency="$", user=user)  # fmt: skip
    for _ in range(HANDS):
        postings.record_hand(session_id=session.pk, entry=_hand(rng), user=user,
                             idempotency_key=uuid.uuid4().hex, expected_version=None)  # fmt: skip
    record_url = reverse("hand_record", args=[session.pk])
    detail = reverse("session_detail", args=[session.pk])

    # The test client does not send request_started to close_old_connections; the
    # connection checks (ours or Django's) are run as a server's request would run them.
    dbhealth = _module("bourre_site.dbhealth")

    def started() -> None:
        if dbhealth is not None:
            dbhealth.check_connections()
        else:
            _django_health_check()

    def record_post() -> float:
        started()
        html = client.get(record_url, **HTMX).content.decode()
        key = re.search(r'name="idempotency_key" value="([^"]+)"', html).group(1)
        version = re.search(r'name="version" value="(\d+)"', html).group(1)
        hand = _hand(rng)
        data = {"idempotency_key": key, "version": version, "trump": hand["trump"],
                "confirmed": "1"}  # fmt: skip
        for j, name in enumerate(PLAYERS):
            data[f"player_{j}"] = name
            data[f"play_{j}"] = "pass" if name in hand["passed"] else "play"
            data[f"tricks_{j}"] = hand["tricks"].get(name, 0)
            data[f"renege_{j}"] = ""
        body = urlencode(data)
        started()
        t0 = time.perf_counter()
        response = client.post(record_url, body, content_type=FORM, **HTMX)
        elapsed = time.perf_counter() - t0
        assert response.status_code == 200 and b"saved" in response.content
        return elapsed

    etag = [""]

    def poll() -> float:
        started()
        if not etag[0]:  # the board as it is now (record POSTs move its version)
            etag[0] = client.get(detail, **HTMX)["ETag"]
        t0 = time.perf_counter()
        response = client.get(detail, HTTP_IF_NONE_MATCH=etag[0], **HTMX)
        elapsed = time.perf_counter() - t0
        assert response.status_code == 304
        return elapsed

    requests = {
        "sessions": ("record POST", record_post),
        "prepared": ("record POST", record_post),
        "poll_middleware": ("304 poll", poll),
        "legs_along": ("record POST", record_post),
        "get_user": ("record POST", record_post),
        "pipeline": ("record POST", record_post),
        "webhooks_flag": ("record POST", record_post),
        "gc_freeze": ("record POST", record_post),
        "dbhealth": ("304 poll", poll),
    }
    # The heap as a gunicorn worker leaves it (bourre_site.heap), while the code has it.
    if _module("bourre_site.heap") is not None:
        gc.collect()
        gc.freeze()
    del request_started  # (the checks are run by ``started`` above)
    print(f"== each device: {RUNS} requests with and {RUNS} without, alternating")
    print(f"   {'device':<16} {'request':<12} {'with':>9} {'without':>9} {'gain':>7}")
    for name, switch in switches().items():
        label, request = requests[name]
        etag[0] = ""
        if switch is None:
            print(f"   {name:<16} {label:<12} {'removed':>9}")
            continue
        for _ in range(5):  # warm both arms
            request()
            with switch():
                request()
        with_, without = [], []
        # Prepared statements belong to a connection: each arm keeps its own for a block
        # of requests (switching closes the connection), the others alternate one by one.
        block = 10 if name == "prepared" else 1
        for _ in range(RUNS // block):
            with_ += [request() for _ in range(block)]
            with switch():
                request()  # the new connection's first request, untimed
                without += [request() for _ in range(block)]
            if block > 1:
                request()
        a, b = statistics.median(with_), statistics.median(without)
        print(f"   {name:<16} {label:<12} {a * 1000:7.2f}ms {b * 1000:7.2f}ms "
              f"{(b - a) / b * 100:6.1f}%")  # fmt: skip


def _hand(rng: random.Random) -> dict[str, Any]:
    k = rng.choice([2, 3, 4, 5])
    active = rng.sample(PLAYERS, k)
    tricks = dict.fromkeys(active, 0)
    for _ in range(5):
        tricks[rng.choice(active)] += 1
    return {"trump": rng.choice("SHDC"), "passed": [p for p in PLAYERS if p not in active],
            "tricks": tricks}  # fmt: skip


if __name__ == "__main__":
    main()
