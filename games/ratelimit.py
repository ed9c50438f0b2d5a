"""Fixed-window counters in the cache (Redis when REDIS_URL is set, so limits hold across
app servers)."""

import hashlib

from django.core.cache import cache


def _key(scope: str, ident: str, window: int) -> str:
    digest = hashlib.sha256(ident.encode()).hexdigest()[:32]
    return f"rl:{scope}:{window}:{digest}"


def count(scope: str, ident: str, window: int) -> int:
    return cache.get(_key(scope, ident, window), 0)


def hit(scope: str, ident: str, window: int) -> int:
    key = _key(scope, ident, window)
    if cache.add(key, 1, timeout=window):
        return 1
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window)
        return 1


def client_ip(request) -> str:
    # REMOTE_ADDR only: X-Forwarded-For is trivially forged unless a proxy rewrites it.
    return request.META.get("REMOTE_ADDR", "") or "unknown"
