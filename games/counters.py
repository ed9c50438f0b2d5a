"""A cache backend in the database for the rate limits' counters (the ``ratelimit`` cache
alias when ``REDIS_URL`` is not set; bourre_site/settings.py).

Why not the per-process memory cache: it forgets the oldest keys once it holds
``MAX_ENTRIES``, so a spray of made-up usernames from many addresses could push an
account's failure count out and start its allowance afresh; and each app process
(``make run`` forks workers) counts on its own, multiplying every allowance. Why not
Django's database cache: its ``incr`` reads, adds and writes back (two requests can both
read 4 and both write 5), and it culls a third of its rows when full.

Here every operation is one SQL statement in autocommit (an upsert with ``RETURNING``,
SQLite 3.35+ and PostgreSQL alike), so ``add`` and ``incr`` are atomic across threads and
processes; nothing is culled: rows past their expiry count as absent and are deleted
every ``PURGE_EVERY`` writes of a process. Spraying costs the attacker rows on disk, not
the account its count, and the login throttle writes no row for an attempt it refuses
(games/ratelimit.py).

Values: integers in ``n`` (what ``incr`` counts), anything else as JSON in ``data``
(a tuple comes back as a list).
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterable
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.db import connections, router

from games.models import RateCounter

NEVER = 9.0e15  # "no expiry", as a float every database stores
PURGE_EVERY = 500


class CounterCache(BaseCache):
    def __init__(self, location: str, params: dict[str, Any]) -> None:
        super().__init__(params)
        self._writes = itertools.count(1)

    # -- plumbing ----------------------------------------------------------------------

    def _cursor(self, write: bool) -> Any:
        pick = router.db_for_write if write else router.db_for_read
        return connections[pick(RateCounter)].cursor()

    @property
    def _table(self) -> str:
        return connections[router.db_for_read(RateCounter)].ops.quote_name(
            RateCounter._meta.db_table
        )

    def _expiry(self, timeout: float | None | object) -> float:
        at = self.get_backend_timeout(timeout)  # type: ignore[arg-type]
        return NEVER if at is None else float(at)

    @staticmethod
    def _encode(value: Any) -> tuple[int, str | None]:
        if isinstance(value, int) and not isinstance(value, bool):
            return value, None
        return 0, json.dumps(value)

    @staticmethod
    def _decode(n: int, data: str | None) -> Any:
        return n if data is None else json.loads(data)

    def _wrote(self) -> None:
        if next(self._writes) % PURGE_EVERY == 0:
            self.purge()

    def purge(self) -> int:
        """Delete the rows past their expiry; returns how many."""
        with self._cursor(True) as cursor:
            cursor.execute(f"DELETE FROM {self._table} WHERE expires <= %s", [time.time()])
            return int(cursor.rowcount)

    def _upsert(self, key: str, value: Any, timeout: Any, only_if_absent: bool) -> bool:
        n, data = self._encode(value)
        now = time.time()
        condition = f" WHERE {self._table}.expires <= %s" if only_if_absent else ""
        sql = (
            f"INSERT INTO {self._table} (key, n, data, expires) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (key) DO UPDATE SET n = excluded.n, data = excluded.data, "
            f"expires = excluded.expires{condition} RETURNING key"
        )
        params: list[Any] = [key, n, data, self._expiry(timeout)]
        if only_if_absent:
            params.append(now)
        with self._cursor(True) as cursor:
            cursor.execute(sql, params)
            done = cursor.fetchone() is not None
        self._wrote()
        return done

    # -- the cache API -----------------------------------------------------------------

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> bool:
        key = self.make_and_validate_key(key, version=version)
        return self._upsert(key, value, timeout, only_if_absent=True)

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        key = self.make_and_validate_key(key, version=version)
        self._upsert(key, value, timeout, only_if_absent=False)

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        key = self.make_and_validate_key(key, version=version)
        with self._cursor(False) as cursor:
            cursor.execute(
                f"SELECT n, data FROM {self._table} WHERE key = %s AND expires > %s",
                [key, time.time()],
            )
            row = cursor.fetchone()
        return default if row is None else self._decode(row[0], row[1])

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        key = self.make_and_validate_key(key, version=version)
        with self._cursor(True) as cursor:
            cursor.execute(
                f"UPDATE {self._table} SET expires = %s WHERE key = %s AND expires > %s",
                [self._expiry(timeout), key, time.time()],
            )
            return bool(cursor.rowcount)

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        key = self.make_and_validate_key(key, version=version)
        with self._cursor(True) as cursor:
            cursor.execute(
                f"UPDATE {self._table} SET n = n + %s "
                "WHERE key = %s AND expires > %s AND data IS NULL RETURNING n",
                [delta, key, time.time()],
            )
            row = cursor.fetchone()
        if row is None:
            raise ValueError(f"Key '{key}' not found")
        return int(row[0])

    def delete(self, key: Any, version: Any = None) -> bool:
        key = self.make_and_validate_key(key, version=version)
        with self._cursor(True) as cursor:
            cursor.execute(f"DELETE FROM {self._table} WHERE key = %s", [key])
            return bool(cursor.rowcount)

    def delete_many(self, keys: Iterable[Any], version: Any = None) -> None:
        for key in keys:
            self.delete(key, version=version)

    def has_key(self, key: Any, version: Any = None) -> bool:
        sentinel = object()
        return self.get(key, sentinel, version=version) is not sentinel

    def clear(self) -> None:
        with self._cursor(True) as cursor:
            cursor.execute(f"DELETE FROM {self._table}")
