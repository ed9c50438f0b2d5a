"""Throttles that hold (issue #33 item 3, OWASP ASVS 2.2.1), one test per rule of
games.ratelimit:

- IPv6 addresses count by their /64: twenty addresses of one line are one client;
- 40 simultaneous wrong passwords from one address evaluate exactly the allowance (the
  reservation is atomic), on the per-process cache, on the database store (PostgreSQL: the
  in-memory SQLite test database locks whole tables against other threads) and on Redis
  when one answers;
- the counters cannot be evicted: a spray of usernames from many addresses leaves an
  account's limit standing, and an attempt the throttle refuses writes no key;
- an account accepts at most 100 evaluated failures in any hour, from any number of
  addresses, with growing waits;
- the owner's known browser (its signed device cookie) is counted apart and gets in while
  the account is under attack; a forged cookie buys nothing;
- API token creation shares the account's count;
- sign-ups are limited per address (IPv6: per /64).

The clock is moved by hand (games.ratelimit's ``time``), never waited for.
"""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_login_failed
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.urls import reverse

from games import ratelimit

pytestmark = pytest.mark.django_db

REDIS = "redis://127.0.0.1:6379/7"
# The store of the throttle's counters without REDIS_URL (settings).
DATABASE_STORE = {"BACKEND": "games.counters.CounterCache", "TIMEOUT": None}


@pytest.fixture
def database_store(settings):
    """The counters in the database, whatever this run's REDIS_URL says."""
    settings.CACHES = {**settings.CACHES, "ratelimit": DATABASE_STORE}


@pytest.fixture
def clock(monkeypatch):
    now = [1_000_000.0]
    monkeypatch.setattr(ratelimit.time, "time", lambda: now[0])
    return now


def _login(client, username, password, ip):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=ip
    )


# -- IPv6 by /64 -----------------------------------------------------------------------------


def test_an_ipv6_address_counts_by_its_64_network():
    assert ratelimit.network_of("2001:db8:1:2::1") == ratelimit.network_of("2001:db8:1:2:ffff::9")
    assert ratelimit.network_of("2001:db8:1:2::1") != ratelimit.network_of("2001:db8:1:3::1")
    assert ratelimit.network_of("198.51.100.7") != ratelimit.network_of("198.51.100.8")
    assert ratelimit.network_of("::ffff:198.51.100.7") == "198.51.100.7"


def test_twenty_addresses_of_one_64_guess_like_one(settings, clock):
    """The outside measurement: 20 addresses of one /64, 100 guesses at one account in 62 s."""
    evaluated = 0
    for guess in range(100):
        ip = f"2001:db8:77:1::{guess % 20 + 1:x}"
        attempt = ratelimit.login_begin(ip, "alice")
        if not attempt.wait:
            evaluated += 1
            attempt.failed()
        clock[0] += 0.62
    # The pair's free attempts, then one after each doubling wait that fits in 62 s.
    waits, spent = 0, 0
    while spent + 2**waits <= 62:
        spent += 2**waits
        waits += 1
    assert evaluated <= settings.LOGIN_RATE_LIMIT + waits
    # Another line is another client: its first guess is evaluated.
    assert ratelimit.login_begin("2001:db8:77:2::1", "alice").wait == 0


# -- 40 at once ------------------------------------------------------------------------------


def _threads_can_write() -> bool:
    """Whether other threads can write the test database while a test runs: not the
    in-memory SQLite database Django tests on (its shared cache locks whole tables and
    answers "database table is locked" at once, where a file waits for the lock)."""
    return connection.vendor != "sqlite" or not connection.is_in_memory_db()


@pytest.fixture(params=["locmem", "database", "redis"])
def any_cache(request, settings):
    """The throttle's counters in each store it can use."""
    if request.param == "locmem":
        settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    elif request.param == "database":
        if not _threads_can_write():
            pytest.skip("threads cannot write the in-memory SQLite test database")
        settings.CACHES = {**settings.CACHES, "ratelimit": DATABASE_STORE}
    else:
        redis = pytest.importorskip("redis")
        try:
            redis.Redis.from_url(REDIS, socket_connect_timeout=1).ping()
        except redis.exceptions.RedisError as exc:
            pytest.skip(f"no Redis at {REDIS}: {exc}")
        settings.CACHES = {
            "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS}
        }
    store = ratelimit._store()
    store.clear()
    yield request.param
    store.clear()
    cache.clear()


def _all_at_once(count, attempt_one):
    """Run ``attempt_one(i, after_all_decided)`` in ``count`` threads started together;
    an evaluated attempt waits until every thread has been told yes or no, so that all
    decisions are taken while the evaluated ones are still running."""
    start = threading.Barrier(count)
    all_decided = threading.Event()
    counted = [0]
    lock = threading.Lock()

    def tell() -> None:
        with lock:
            counted[0] += 1
            if counted[0] == count:
                all_decided.set()

    def run(i: int) -> None:
        start.wait(timeout=30)
        try:
            attempt_one(i, tell, all_decided)
        finally:
            connection.close()  # this thread's own (the database store's)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)


# Transactional: the threads' counters are committed rows (the database store), which a
# rolled-back test transaction would leave behind for the next test.
@pytest.mark.django_db(transaction=True)
def test_forty_concurrent_failures_evaluate_exactly_the_allowance(settings, any_cache):
    evaluated = []

    def attempt_one(i, tell, all_decided):
        attempt = ratelimit.login_begin("198.51.100.40", "alice")
        tell()
        if not attempt.wait:
            evaluated.append(i)
            all_decided.wait(timeout=30)
            attempt.failed()

    _all_at_once(40, attempt_one)
    assert len(evaluated) == settings.LOGIN_RATE_LIMIT


@pytest.mark.django_db(transaction=True)
def test_forty_concurrent_wrong_passwords_at_the_login_form(settings, alice):
    """The same through the view: Django's authenticate says how many it checked. Each
    checked one holds until every request is either answered or being checked. The
    counters in the database where threads can write it (PostgreSQL), else in memory."""
    if not _threads_can_write():
        settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    checked, statuses = [], []
    everyone_placed = threading.Event()

    def on_failed(sender, credentials, request=None, **kwargs):
        checked.append(credentials.get("username"))
        everyone_placed.wait(timeout=30)

    def watch() -> None:
        while len(checked) + len(statuses) < 40 and not everyone_placed.wait(0.01):
            pass
        everyone_placed.set()

    start = threading.Barrier(40)

    def attempt_one() -> None:
        from django.db import connection

        start.wait(timeout=30)
        try:
            statuses.append(_login(Client(), "alice", "wrong", "198.51.100.41").status_code)
        finally:
            connection.close()

    user_login_failed.connect(on_failed)
    try:
        threading.Thread(target=watch, daemon=True).start()
        threads = [threading.Thread(target=attempt_one) for _ in range(40)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        everyone_placed.set()
        user_login_failed.disconnect(on_failed)
    assert len(checked) == settings.LOGIN_RATE_LIMIT
    assert statuses.count(429) == 40 - settings.LOGIN_RATE_LIMIT
    assert statuses.count(422) == settings.LOGIN_RATE_LIMIT


# -- counters that cannot be evicted ---------------------------------------------------------


def test_a_spray_of_usernames_from_many_addresses_leaves_the_account_limit_standing(
    settings, clock, database_store
):
    """The memory cache forgets its oldest keys once full: counters kept there could be
    pushed out by made-up usernames. Here the default cache holds 50 keys, the spray
    makes 2,000 attempts with 2,000 names from 200 addresses, and alice's account still
    refuses until its wait is over (and counts on from where it was)."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 50, "CULL_FREQUENCY": 2},
        },
        "ratelimit": DATABASE_STORE,
    }
    settings.LOGIN_ACCOUNT_RATE_LIMIT = 3
    for i in range(3):
        ratelimit.login_begin(f"203.0.113.{i}", "alice").failed()
    assert ratelimit.login_begin("203.0.113.9", "alice").refused_by == "account"
    for i in range(2000):
        attempt = ratelimit.login_begin(f"198.51.{i % 200 // 100}.{i % 100}", f"user{i}")
        if not attempt.wait:
            attempt.failed()
    assert len(cache._cache) <= 50  # type: ignore[attr-defined]  # the cache did cull
    refused = ratelimit.login_begin("192.0.2.77", "alice")
    assert refused.refused_by == "account" and refused.wait >= 1
    clock[0] += refused.wait
    ratelimit.login_begin("192.0.2.78", "alice").failed()
    # The fourth failure counted on: the next wait is 2 s, not a fresh free allowance.
    assert ratelimit.login_begin("192.0.2.79", "alice").wait == 2


def test_the_database_store_never_culls_and_purges_only_expired_rows(clock, database_store):
    from games.counters import PURGE_EVERY
    from games.models import RateCounter

    store = ratelimit._store()
    store.set("first", 1, timeout=60)
    for i in range(PURGE_EVERY + 10):
        store.add(f"k{i}", 1, timeout=30)
    assert store.get("first") == 1 and RateCounter.objects.count() == PURGE_EVERY + 11
    clock[0] += 31
    assert store.purge() == PURGE_EVERY + 10
    assert store.get("first") == 1 and store.incr("first") == 2
    clock[0] += 30
    assert store.get("first") is None and store.add("first", 5, timeout=30)


def test_a_refused_attempt_writes_no_key(settings, clock, database_store):
    """An address past its allowance sprays new usernames: no key is written for them, so
    its spray cannot fill any store. Nor does an attempt the account refuses."""
    from games.models import RateCounter

    settings.LOGIN_IP_RATE_LIMIT = 3
    settings.LOGIN_ACCOUNT_RATE_LIMIT = 2
    for i in range(3):
        ratelimit.login_begin("198.51.100.9", f"name{i}").failed()
    keys = set(RateCounter.objects.values_list("key", flat=True))
    for i in range(3, 50):
        assert ratelimit.login_begin("198.51.100.9", f"name{i}").refused_by == "here"
    for i in range(2):
        ratelimit.login_begin(f"203.0.113.{i}", "alice").failed()
    keys = set(RateCounter.objects.values_list("key", flat=True))
    for i in range(20):
        assert ratelimit.login_begin(f"192.0.2.{i}", "alice").refused_by == "account"
    assert set(RateCounter.objects.values_list("key", flat=True)) == keys


# -- the account, from everywhere ------------------------------------------------------------


def test_an_account_takes_at_most_100_failures_in_any_hour(settings, clock):
    """One guess a second for two hours, each from a new address."""
    times = []
    for second in range(7200):
        attempt = ratelimit.login_begin(
            f"10.{second // 65536}.{second // 256 % 256}.{second % 256}", "alice"
        )
        if not attempt.wait:
            times.append(clock[0])
            attempt.failed()
        clock[0] += 1
    worst = max(sum(1 for t in times if start <= t < start + 3600) for start in times)
    assert 0 < worst <= 100
    # The waits grew: the account's free failures came first, the rest were spread out.
    assert times[settings.LOGIN_ACCOUNT_RATE_LIMIT] - times[0] >= 1


def test_an_account_under_attack_refuses_a_new_address_in_words(
    client, alice, password, settings, clock
):
    settings.LOGIN_ACCOUNT_RATE_LIMIT = 3
    for i in range(3):
        assert _login(Client(), "alice", "wrong", f"203.0.113.{i}").status_code == 422
    refused = _login(client, "alice", password, "203.0.113.99")
    assert refused.status_code == 429
    assert "Too many failed logins for this username" in refused.content.decode()
    assert int(refused["Retry-After"]) >= 1


# -- the owner's known browser ---------------------------------------------------------------


def test_the_owners_known_browser_gets_in_while_the_account_is_attacked(
    alice, password, settings, clock
):
    # The clock stands still: a slow run must not outlast the account's first wait.
    settings.LOGIN_ACCOUNT_RATE_LIMIT = 3
    owner = Client()
    assert _login(owner, "alice", password, "192.0.2.10").status_code == 302
    assert ratelimit.DEVICE_COOKIE in owner.cookies
    owner.post(reverse("logout"))
    for i in range(6):
        _login(Client(), "alice", "wrong", f"203.0.113.{i}")
    stranger = _login(Client(), "alice", password, "203.0.113.50")
    assert stranger.status_code == 429
    # Same attacked network, even: the device cookie is what counts.
    assert _login(owner, "alice", password, "203.0.113.50").status_code == 302


def test_a_known_browser_has_an_allowance_of_its_own(alice, password, settings, clock):
    settings.LOGIN_ACCOUNT_RATE_LIMIT = 100
    owner = Client()
    assert _login(owner, "alice", password, "192.0.2.10").status_code == 302
    owner.post(reverse("logout"))
    for _ in range(settings.LOGIN_RATE_LIMIT):
        assert _login(owner, "alice", "wrong", "192.0.2.10").status_code == 422
    assert _login(owner, "alice", password, "192.0.2.10").status_code == 429
    # A browser without the cookie, same address: the pair's count is its own too.
    assert _login(Client(), "alice", password, "192.0.2.10").status_code == 302


def test_a_forged_or_foreign_device_cookie_buys_nothing(alice, bob, password, settings, clock):
    settings.LOGIN_ACCOUNT_RATE_LIMIT = 2
    for i in range(3):
        _login(Client(), "alice", "wrong", f"203.0.113.{i}")
    forged = Client()
    forged.cookies[ratelimit.DEVICE_COOKIE] = '[["alice","x"]]:forged:signature'
    assert _login(forged, "alice", password, "203.0.113.60").status_code == 429
    # Bob's browser knows bob, not alice.
    bobs = Client()
    assert _login(bobs, "bob", password, "203.0.113.61").status_code == 302
    bobs.post(reverse("logout"))
    assert _login(bobs, "alice", password, "203.0.113.61").status_code == 429


# -- API tokens and sign-ups -----------------------------------------------------------------


def test_token_creation_shares_the_account_limit(alice, password, settings, clock):
    settings.LOGIN_ACCOUNT_RATE_LIMIT = 2
    for i in range(2):
        _login(Client(), "alice", "wrong", f"203.0.113.{i}")
    response = Client().post(
        "/api/v1/auth/tokens/",
        {"username": "alice", "password": password, "name": "x"},
        content_type="application/json",
        REMOTE_ADDR="198.51.100.200",
    )
    assert response.status_code == 429
    assert response["Retry-After"]
    assert "for this username" in response.json()["detail"]


def _signup(name, ip):
    return Client().post(
        reverse("signup"),
        {"username": name, "password1": "a-long-pass-42", "password2": "a-long-pass-42"},
        REMOTE_ADDR=ip,
    )


def test_sign_ups_are_limited_per_address(settings):
    settings.SIGNUP_RATE_LIMIT = 2
    assert _signup("one", "2001:db8:5:5::1").status_code == 302
    assert _signup("two", "2001:db8:5:5::2").status_code == 302
    refused = _signup("three", "2001:db8:5:5::3")
    assert refused.status_code == 429
    assert "Too many new accounts from here" in refused.content.decode()
    assert not get_user_model().objects.filter(username="three").exists()
    assert _signup("three", "2001:db8:5:6::1").status_code == 302


def test_look_alike_spellings_of_a_name_share_its_account_allowance(
    alice, password, settings, clock
):
    """Django's login form reads the name in NFKC, so fullwidth or mathematical letters
    sign in to the same account: they count against it too, never as a fresh allowance.
    The clock stands still: a slow run must not outlast the account's first wait."""
    settings.LOGIN_ACCOUNT_RATE_LIMIT = 3
    for i in range(3):
        assert _login(Client(), "alice", "wrong", f"198.51.100.{i}").status_code == 422
    for i, name in enumerate(["\uff41lice", "a\uff4cice", "\U0001d41alice", "ALICE"]):
        refused = _login(Client(), name, "wrong", f"203.0.113.{i}")
        assert refused.status_code == 429, name
    fullwidth = "\uff41\uff4c\uff49\uff43\uff45"
    assert _login(Client(), fullwidth, password, "203.0.113.99").status_code == 429
    assert ratelimit.normalised(fullwidth) == ratelimit.normalised(" Alice ") == "alice"
