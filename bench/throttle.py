"""Login throttle figures of issue #33 (item 3), measured on the throttle functions the
login form and the API call (games.ratelimit), with the default settings:

1. 20 IPv6 addresses of one /64 make 100 guesses at one account in 62 s (the outside
   measurement before the change: all 100 evaluated);
2. 40 simultaneous wrong passwords from one new address (before: 10 evaluated where 5
   are allowed), on the store used without Redis (a table, games/counters.py, in a
   scratch SQLite database) and on Redis (``BENCH_REDIS``, default
   redis://127.0.0.1:6379/7) when one answers;
3. one guess a second from a new address each time for two hours: the most evaluated in
   any hour (OWASP ASVS 2.2.1: at most 100).

The clock is simulated for 1 and 3; 2 runs real threads. Prints the figures.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import _database  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
DB_NAME = "bench_throttle"
_database.configure(DB_NAME, postgres=False)
os.environ.pop("REDIS_URL", None)  # the counters' own store; Redis is measured below

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.cache import caches  # noqa: E402
from django.test.utils import override_settings  # noqa: E402

from games import ratelimit  # noqa: E402

REDIS = os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379/7")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0
        self.real = time.time

    def __enter__(self) -> Clock:
        time.time = lambda: self.now  # the cache's expiry follows the same clock
        return self

    def __exit__(self, *exc: object) -> None:
        time.time = self.real


def ipv6_64() -> int:
    evaluated = 0
    with Clock() as clock:
        for guess in range(100):
            attempt = ratelimit.login_begin(f"2001:db8:77:1::{guess % 20 + 1:x}", "alice")
            if not attempt.wait:
                evaluated += 1
                attempt.failed()
            clock.now += 0.62
    return evaluated


def forty_at_once() -> int:
    start = threading.Barrier(40)
    decided = threading.Barrier(40)
    evaluated: list[int] = []

    def one(i: int) -> None:
        start.wait()
        attempt = ratelimit.login_begin("198.51.100.40", "bob")
        decided.wait()  # every decision taken while the evaluated ones are running
        if not attempt.wait:
            evaluated.append(i)
            attempt.failed()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return len(evaluated)


def account_hour() -> int:
    times: list[float] = []
    with Clock() as clock:
        for second in range(7200):
            ip = f"10.{second // 65536}.{second // 256 % 256}.{second % 256}"
            attempt = ratelimit.login_begin(ip, "carol")
            if not attempt.wait:
                times.append(clock.now)
                attempt.failed()
            clock.now += 1
    return max(sum(1 for t in times if s <= t < s + 3600) for s in times)


def clear() -> None:
    caches["ratelimit"].clear()
    caches["default"].clear()


def main() -> None:
    with _database.scratch(DB_NAME, postgres=False):
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        run()


def run() -> None:
    clear()
    print(f"IPv6: 100 guesses from 20 addresses of one /64 in 62 s: {ipv6_64()} evaluated")
    clear()
    print(
        f"40 concurrent wrong passwords, one address, database store: {forty_at_once()} "
        f"evaluated (allowance {settings.LOGIN_RATE_LIMIT})"
    )
    try:
        import redis

        redis.Redis.from_url(REDIS, socket_connect_timeout=1).ping()
    except Exception as exc:  # noqa: BLE001  # no Redis: that figure is skipped, said so
        print(f"40 concurrent on Redis: skipped ({exc})")
    else:
        backend = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS}
        with override_settings(CACHES={"default": backend, "ratelimit": backend}):
            clear()
            print(f"40 concurrent wrong passwords, one address, Redis: {forty_at_once()} evaluated")
            clear()
    clear()
    print(f"one account, a new address every second for 2 h: at most {account_hour()} in any hour")


if __name__ == "__main__":
    main()
