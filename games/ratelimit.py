"""Rate limits in the cache (Redis when REDIS_URL is set, so limits hold across app
servers), the client address they count, and the login throttle.

The client address (``client_ip``) is ``REMOTE_ADDR`` unless that peer is one of the
proxies listed in ``settings.TRUSTED_PROXIES`` (``DJANGO_TRUSTED_PROXIES``: networks such
as ``127.0.0.1/32,10.0.0.0/8``). Then ``X-Forwarded-For`` is read right to left, each hop
appended by the proxy before it, and the first address that is not a trusted proxy is the
client. Anything left of it was written by the client and may be forged, so it is never
read; without trusted proxies the header is ignored altogether.

The login throttle never locks a name out for everybody. Failures are counted per
(address, username) and per address; past a free allowance each further failure makes
that pair (or that address) wait, twice as long each time, up to
``LOGIN_RATE_WINDOW`` seconds. A correct password from an address that has not failed
gets in while someone else hammers the same username, and a success clears its pair.
"""

from __future__ import annotations

import hashlib
import ipaddress
import time
from functools import lru_cache

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

__all__ = [
    "client_ip",
    "count",
    "hit",
    "login_failed",
    "login_succeeded",
    "login_wait",
]


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


# -- the client's address ------------------------------------------------------------------

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


@lru_cache(maxsize=8)
def _networks(spec: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(item, strict=False) for item in spec)


def _address(text: str) -> Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # "[::1]:443"
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # "1.2.3.4:5678"
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address


def _trusted(address: Address, networks: tuple[Network, ...]) -> bool:
    return any(address.version == n.version and address in n for n in networks)


def client_ip(request: HttpRequest) -> str:
    """The address of the client, as far as trusted proxies vouch for it."""
    remote = request.META.get("REMOTE_ADDR", "") or "unknown"
    networks = _networks(tuple(getattr(settings, "TRUSTED_PROXIES", ()) or ()))
    peer = _address(remote)
    if not networks or peer is None or not _trusted(peer, networks):
        return remote
    hops = [h for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if h.strip()]
    client = str(peer)
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:
            # Garbage where an address should be: the proxy that appended the last good
            # hop is the furthest anyone vouches for.
            break
        client = str(address)
        if not _trusted(address, networks):
            break
    return client


# -- the login throttle --------------------------------------------------------------------


def _state_key(scope: str, ident: str) -> str:
    return _key(scope, ident, 0)


def _wait(scope: str, ident: str, now: float) -> int:
    state = cache.get(_state_key(scope, ident))
    if not state:
        return 0
    return max(0, int(state["until"] - now + 0.999))


def _fail(scope: str, ident: str, free: int, now: float) -> None:
    window = settings.LOGIN_RATE_WINDOW
    key = _state_key(scope, ident)
    state = cache.get(key) or {"n": 0, "until": 0.0}
    state["n"] += 1
    over = state["n"] - free
    if over > 0:
        # 1 s, 2 s, 4 s ... never more than the window: slow enough to make guessing
        # hopeless, short enough that a typo-prone owner is never shut out for long.
        state["until"] = now + min(2 ** (over - 1), window)
    cache.set(key, state, timeout=window)


def _pair(ip: str, username: str) -> str:
    return f"{ip}\n{username.strip().lower()}"


def login_wait(ip: str, username: str) -> int:
    """Seconds this address must wait before trying this username again (0: go ahead)."""
    now = time.time()
    return max(_wait("login-pair", _pair(ip, username), now), _wait("login-ip", ip, now))


def login_failed(ip: str, username: str) -> None:
    now = time.time()
    _fail("login-pair", _pair(ip, username), settings.LOGIN_RATE_LIMIT, now)
    _fail("login-ip", ip, settings.LOGIN_IP_RATE_LIMIT, now)


def login_succeeded(ip: str, username: str) -> None:
    # The address's own count stays: one good login must not launder a spray of guesses.
    cache.delete(_state_key("login-pair", _pair(ip, username)))
