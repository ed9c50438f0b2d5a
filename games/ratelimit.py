"""Rate limits, the client address they count, the login throttle and the API's windows.

**Where the counts live.** The login, sign-up and reset counters live in the
``ratelimit`` cache alias: Redis when ``REDIS_URL`` is set, else the database
(games/counters.py). Either way every app process and server sees the same counts and
none is ever culled to make room for others: a spray of made-up usernames cannot push an
account's failure count out, and a second worker is no second allowance. The API's
per-window counts live in the default cache (per process without Redis).

**The client address** (``client_ip``) is ``REMOTE_ADDR`` unless that peer is one of the
proxies listed in ``settings.TRUSTED_PROXIES`` (``DJANGO_TRUSTED_PROXIES``: networks such
as ``127.0.0.1/32,10.0.0.0/8``). Then ``X-Forwarded-For`` is read right to left, each hop
appended by the proxy before it, and the first address that is not a trusted proxy is the
client. Anything left of it was written by the client and may be forged, so it is never
read; without trusted proxies the header is ignored altogether. Limits count an address by
``network_of``: an IPv4 address on its own, an IPv6 address by its /64 network (one
subscriber's line, which hands its devices as many addresses inside it as they like).

**Counters are atomic.** Every decision is made from the value the cache's ``add`` or
``incr`` returned, never from a value read, changed and written back: Redis's INCR, the
database's ``UPDATE ... RETURNING``, the memory cache's incr under its lock. A reservation
is taken *before* a password is checked, so 40 simultaneous wrong passwords from one
address evaluate exactly the allowance.

**The login throttle** (OWASP ASVS 2.2.1) counts failures in three scopes at once: per
address, per (address, username), and per username across all addresses (the account,
``LOGIN_ACCOUNT_RATE_LIMIT`` free failures remembered for ``LOGIN_ACCOUNT_RATE_WINDOW``).
Each scope lets its free allowance be tried at once; then one attempt at a time, after a
wait that doubles with each failure (1 s, 2 s, 4 s ... up to ``LOGIN_RATE_WINDOW``, or
``LOGIN_ACCOUNT_MAX_WAIT`` for the account, which keeps an account under 100 evaluated
failures an hour). The next attempt after a wait is claimed with ``add`` on a key named
after that wait, so only one request gets it. Failures are remembered until a scope has
been quiet for its window; a success clears its pair, while the address's and the
account's counts stay (one good login must not launder a spray of guesses). Unknown
usernames are counted exactly like real ones: no answer tells which accounts exist.
An attempt is first checked against every scope by reading only (the address's scope
first): one that must wait writes nothing, so an address past its allowance cannot make
new keys, whatever usernames it sprays.

**The owner is not locked out** by an attack on their username from elsewhere: a browser
that has signed in to the account before carries a signed device cookie (OWASP's "device
cookie": Django's signing, naming the user, set on every successful login), and its
attempts are counted apart, per device, with the pair's allowance and delays.

**The API** counts requests in fixed windows (``window_hit``): per token (or signed-in
user), per address for anonymous calls; games.api.base turns them into ``RateLimit-*``
headers and 429s.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import secrets
import time
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from django.conf import settings
from django.core import signing
from django.core.cache import BaseCache, cache, caches
from django.http import HttpRequest, HttpResponseBase
from django.utils.translation import ngettext

__all__ = [
    "DEVICE_COOKIE",
    "LoginAttempt",
    "Window",
    "client_ip",
    "is_loopback",
    "trusted_proxy",
    "count",
    "device_for",
    "hit",
    "login_begin",
    "network_of",
    "remember_device",
    "window_hit",
    "window_peek",
]


# -- atomic counters -----------------------------------------------------------------------


def _key(scope: str, ident: str, window: int) -> str:
    digest = hashlib.sha256(ident.encode()).hexdigest()[:32]
    return f"rl:{scope}:{window}:{digest}"


def _store() -> BaseCache:
    """The throttles' counters: the ``ratelimit`` alias (settings), else the default."""
    return caches["ratelimit"] if "ratelimit" in settings.CACHES else cache


def count(scope: str, ident: str, window: int, store: BaseCache | None = None) -> int:
    """The current count (for display only: decisions use what ``hit`` returns)."""
    value = (store or _store()).get(_key(scope, ident, window), 0)
    return value if isinstance(value, int) else 0


def _incr(key: str, timeout: int, store: BaseCache | None = None) -> int:
    c = store or _store()
    for _ in range(3):
        if c.add(key, 1, timeout=timeout):
            return 1
        try:
            value: int = c.incr(key)
        except ValueError:  # expired between add and incr: add it again
            continue
        if value == 1:
            # Django's Redis incr checks EXISTS, then INCRs: a key that expired in between
            # comes back from 0 without an expiry. Give it one.
            c.touch(key, timeout)
        return value
    # Three expiries in a row cannot happen with a timeout of seconds; count it anyway.
    c.set(key, 1, timeout=timeout)
    return 1


def _decr(key: str) -> None:
    """Give back one count taken by ``_incr`` (a refused or unfinished attempt)."""
    c = _store()
    try:
        value: int = c.decr(key)
    except ValueError:  # expired: nothing to give back
        return
    if value < 0:  # recreated from nothing by a racing expiry (see _incr)
        c.delete(key)


def hit(scope: str, ident: str, window: int, store: BaseCache | None = None) -> int:
    """Count one event; returns the count including it (decide from this value)."""
    return _incr(_key(scope, ident, window), window, store)


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


def trusted_proxy(text: str) -> bool:
    """Whether an address (``REMOTE_ADDR``, or one ``client_ip`` answered) is in
    ``settings.TRUSTED_PROXIES``: the one reading of proxies that the request id and
    ``/metrics`` share with the rate limits."""
    address = _address(text)
    networks = _networks(tuple(getattr(settings, "TRUSTED_PROXIES", ()) or ()))
    return address is not None and _trusted(address, networks)


def is_loopback(text: str) -> bool:
    address = _address(text)
    return address is not None and address.is_loopback


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


def network_of(ip: str) -> str:
    """What a limit counts for an address: IPv4 itself, IPv6 its /64 (a subscriber gets a
    whole /64 and may use a fresh address from it for every request)."""
    address = _address(ip)
    if address is None:
        return ip
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


# -- the login throttle --------------------------------------------------------------------

Gate = tuple[float, int]  # (until: unix time, step: how many waits so far)


@dataclass(frozen=True)
class _Scope:
    name: str  # login-pair, login-ip, login-account, login-device
    ident: str
    free: int
    max_wait: int
    window: int

    def key(self, part: str) -> str:
        return _key(f"{self.name}:{part}", self.ident, 0)


@dataclass(frozen=True)
class _Slot:
    """One attempt's place in a scope: its count, and the step of the wait it claimed (0
    for an attempt within the free allowance)."""

    scope: _Scope
    n: int
    step: int


def _must_wait(scope: _Scope, now: float) -> int:
    """How long an attempt must wait in this scope as far as reading tells (0: it may try
    to take a place), without writing anything."""
    c = _store()
    n = c.get(scope.key("n"), 0)
    if not isinstance(n, int) or n < scope.free:
        return 0
    gate = c.get(scope.key("gate"))
    if gate is None:
        return 1  # the free attempts are still being checked
    until = float(gate[0])
    return max(1, math.ceil(until - now)) if until > now else 0


def _take(scope: _Scope, now: float) -> tuple[_Slot | None, int]:
    """Reserve a place for one attempt, or say how many seconds to wait."""
    counter = scope.key("n")
    n = _incr(counter, scope.window)
    if n <= scope.free:
        return _Slot(scope, n, 0), 0
    c = _store()
    gate: Gate | None = c.get(scope.key("gate"))
    if gate is None:
        # The free attempts are still being checked: the next waits for their outcome.
        _decr(counter)
        return None, 1
    until, step = float(gate[0]), int(gate[1])
    if until > now:
        _decr(counter)
        return None, max(1, math.ceil(until - now))
    # The wait is over: one attempt may go, the one whose add makes the claim.
    if c.add(scope.key(f"claim:{until!r}"), 1, timeout=scope.window):
        return _Slot(scope, n, step), 0
    _decr(counter)
    return None, 1


def _failed(slot: _Slot, now: float) -> None:
    scope = slot.scope
    c = _store()
    if slot.step == 0 and slot.n < scope.free:
        c.touch(scope.key("n"), scope.window)
        return
    step = min(slot.step + 1, 32)
    wait = min(2 ** (step - 1), scope.max_wait)
    # Remembered until the scope has been quiet for its window after the wait.
    c.touch(scope.key("n"), scope.window + wait)
    c.set(scope.key("gate"), (now + wait, step), timeout=scope.window + wait)


def _released(slot: _Slot, now: float) -> None:
    """The attempt was no failure (a success, or it never finished): give its place back
    and, if it had claimed the way past a wait, open that way again for the next one."""
    _decr(slot.scope.key("n"))
    if slot.step:
        _store().set(slot.scope.key("gate"), (now, slot.step), timeout=slot.scope.window)


def _cleared(slot: _Slot) -> None:
    _store().delete_many([slot.scope.key("n"), slot.scope.key("gate")])


def normalised(username: str) -> str:
    """The name as Django's login form reads it (NFKC, as ``AbstractBaseUser.normalize_
    username`` does), folded for counting: ``ａｌｉｃｅ`` and ``Alice`` are one account's
    attempts, never a fresh allowance each."""
    return unicodedata.normalize("NFKC", username).strip().casefold()


def _scopes(ip: str, username: str, device: str | None) -> list[_Scope]:
    name = normalised(username)
    short = settings.LOGIN_RATE_WINDOW
    # At least one free attempt: the first failure is what starts the waits.
    pair = max(1, settings.LOGIN_RATE_LIMIT)
    if device is not None:
        # A browser the account has signed in from: its own allowance, nothing else.
        return [_Scope("login-device", f"{device}\n{name}", pair, short, short)]
    net = network_of(ip)
    # The address first: an address past its allowance is refused before its attempt
    # names any key of a username (a spray of usernames makes no keys).
    return [
        _Scope("login-ip", net, max(1, settings.LOGIN_IP_RATE_LIMIT), short, short),
        _Scope("login-pair", f"{net}\n{name}", pair, short, short),
        _Scope(
            "login-account",
            name,
            max(1, settings.LOGIN_ACCOUNT_RATE_LIMIT),
            settings.LOGIN_ACCOUNT_MAX_WAIT,
            settings.LOGIN_ACCOUNT_RATE_WINDOW,
        ),
    ]


class LoginAttempt:
    """One login attempt's reservation. ``wait`` > 0: refused, that many seconds to wait
    (``refused_by`` says whether for this address or browser, ``"here"``, or for the
    username everywhere, ``"account"``). Otherwise check the password, then call exactly
    one of ``failed``, ``succeeded`` or ``release`` (an exception on the way); later
    calls do nothing."""

    def __init__(
        self, slots: list[_Slot], wait: int = 0, refused_by: Literal["", "here", "account"] = ""
    ) -> None:
        self.slots = slots
        self.wait = wait
        self.refused_by = refused_by
        self.settled = wait > 0

    def message(self) -> str:
        """Why this attempt must wait, and how long, in the reader's language."""
        if self.refused_by == "account":
            return ngettext(
                "Too many failed logins for this username. Try again in %(wait)s second.",
                "Too many failed logins for this username. Try again in %(wait)s seconds.",
                self.wait,
            ) % {"wait": self.wait}
        return ngettext(
            "Too many failed logins from here. Try again in %(wait)s second.",
            "Too many failed logins from here. Try again in %(wait)s seconds.",
            self.wait,
        ) % {"wait": self.wait}

    def _settle(self) -> list[_Slot]:
        if self.settled:
            return []
        self.settled = True
        return self.slots

    def failed(self) -> None:
        now = time.time()
        for slot in self._settle():
            _failed(slot, now)

    def succeeded(self) -> None:
        now = time.time()
        for slot in self._settle():
            if slot.scope.name in ("login-pair", "login-device"):
                _cleared(slot)
            else:
                _released(slot, now)

    def release(self) -> None:
        now = time.time()
        for slot in self._settle():
            _released(slot, now)


def login_begin(ip: str, username: str, device: str | None = None) -> LoginAttempt:
    """Reserve one login attempt in every scope, or none (see ``LoginAttempt``).

    ``device`` is the nonce of this browser's device cookie for ``username``
    (``device_for``), or None."""
    now = time.time()
    scopes = _scopes(ip, username, device)
    # Read first: an attempt any scope refuses is answered without writing a key.
    for scope in scopes:
        wait = _must_wait(scope, now)
        if wait:
            return LoginAttempt([], wait, "account" if scope.name == "login-account" else "here")
    taken: list[_Slot] = []
    for scope in scopes:
        slot, wait = _take(scope, now)
        if slot is None:
            for held in taken:
                _released(held, now)
            return LoginAttempt([], wait, "account" if scope.name == "login-account" else "here")
        taken.append(slot)
    return LoginAttempt(taken)


# -- device cookies ------------------------------------------------------------------------

DEVICE_COOKIE = "bourre_device"
_DEVICE_SALT = "games.ratelimit.device"
DEVICE_MAX_AGE = 180 * 24 * 3600
_DEVICE_NAMES = 5  # accounts one browser remembers (a family's shared tablet)


def _devices(request: HttpRequest) -> list[tuple[str, str]]:
    raw = request.COOKIES.get(DEVICE_COOKIE)
    if not raw:
        return []
    try:
        value = signing.loads(raw, salt=_DEVICE_SALT, max_age=DEVICE_MAX_AGE)
    except signing.BadSignature:  # forged, altered, or older than DEVICE_MAX_AGE
        return []
    if not isinstance(value, list):
        return []
    return [
        (entry[0], entry[1])
        for entry in value
        if isinstance(entry, list) and len(entry) == 2 and all(isinstance(x, str) for x in entry)
    ]


def device_for(request: HttpRequest, username: str) -> str | None:
    """The nonce of this browser's device cookie for ``username``, if it has a valid one."""
    name = normalised(username)
    return next((nonce for who, nonce in _devices(request) if who == name), None)


def remember_device(request: HttpRequest, response: HttpResponseBase, username: str) -> None:
    """After a successful login: this browser is one the account has signed in from."""
    name = normalised(username)
    entries = _devices(request)
    nonce = next((n for who, n in entries if who == name), None) or secrets.token_urlsafe(16)
    kept = [[name, nonce]] + [[w, n] for w, n in entries if w != name][: _DEVICE_NAMES - 1]
    response.set_cookie(
        DEVICE_COOKIE,
        signing.dumps(kept, salt=_DEVICE_SALT),
        max_age=DEVICE_MAX_AGE,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


# -- fixed windows (the API) ---------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    """Where a client stands in its current window: ``used`` counts this request."""

    limit: int
    used: int
    reset: int  # seconds until the window ends

    @property
    def allowed(self) -> bool:
        return self.used <= self.limit

    def headers(self) -> dict[str, str]:
        # The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers).
        return {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(max(self.limit - self.used, 0)),
            "RateLimit-Reset": str(self.reset),
        }


def _window(ident: str, period: int) -> tuple[str, int]:
    # Each client's windows start at an offset of its own, so that not every client's
    # allowance comes back in the same second.
    offset = int(hashlib.sha256(ident.encode()).hexdigest()[:8], 16) % period
    index, into = divmod(int(time.time()) + offset, period)
    return f"{ident}\n{index}", period - into


def window_hit(scope: str, ident: str, limit: int, period: int) -> Window:
    """Count one request in the client's current fixed window of ``period`` seconds."""
    key, reset = _window(ident, period)
    return Window(limit, hit(scope, key, period, cache), reset)


def window_peek(scope: str, ident: str, limit: int, period: int) -> Window:
    """The client's window without counting (a response that never reached the count)."""
    key, reset = _window(ident, period)
    return Window(limit, count(scope, key, period, cache), reset)
