"""Login throttling and the client address behind proxies (issue 17, items 1 and 2).

Failures slow down the (address, username) pair and the address that made them, with
doubling delays; nobody can lock the owner out from an address that has not failed, and
a forged X-Forwarded-For is only believed from a trusted proxy.
"""

import pytest
from django.test import RequestFactory
from django.urls import reverse

from games import ratelimit

PROXY = "10.0.0.5"


def _login(client, username, password, ip="203.0.113.7", xff=None):
    extra = {"REMOTE_ADDR": ip}
    if xff is not None:
        extra["HTTP_X_FORWARDED_FOR"] = xff
    return client.post(reverse("login"), {"username": username, "password": password}, **extra)


def _ip(remote, xff=None):
    request = RequestFactory().get("/", REMOTE_ADDR=remote)
    if xff is not None:
        request.META["HTTP_X_FORWARDED_FOR"] = xff
    return request


@pytest.mark.parametrize(
    ("remote", "xff", "expected"),
    [
        # Untrusted peer: the header is the client's own word and is ignored.
        ("198.51.100.9", "1.2.3.4", "198.51.100.9"),
        # Trusted proxy: the hop it appended is the client.
        (PROXY, "198.51.100.9", "198.51.100.9"),
        # A client that forges a hop: only the proxy's appended (rightmost) one counts.
        (PROXY, "1.2.3.4, 198.51.100.9", "198.51.100.9"),
        # Two trusted proxies in a row: right to left up to the first untrusted hop.
        (PROXY, "1.2.3.4, 198.51.100.9, 10.0.0.6", "198.51.100.9"),
        # Garbage in the header: the last hop a proxy vouched for.
        (PROXY, "1.2.3.4, not-an-ip", PROXY),
        (PROXY, "1.2.3.4, not-an-ip, 198.51.100.9", "198.51.100.9"),
        # Ports and IPv6 brackets as some proxies write them.
        (PROXY, "[2001:db8::1]:443", "2001:db8::1"),
        (PROXY, "198.51.100.9:5555", "198.51.100.9"),
        # Every hop trusted: the leftmost is the furthest anyone knows.
        (PROXY, "10.0.0.7", "10.0.0.7"),
        (PROXY, None, PROXY),
    ],
)
def test_client_ip_from_trusted_proxies(settings, remote, xff, expected):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    assert ratelimit.client_ip(_ip(remote, xff)) == expected


def test_client_ip_ignores_the_header_without_trusted_proxies(settings):
    settings.TRUSTED_PROXIES = []
    assert ratelimit.client_ip(_ip(PROXY, "198.51.100.9")) == PROXY


def test_owner_gets_in_from_a_clean_address_while_the_username_is_attacked(
    client, alice, password, settings
):
    settings.LOGIN_RATE_LIMIT = 3
    for _ in range(6):
        _login(client, "alice", "wrong", ip="198.51.100.66")
    refused = _login(client, "alice", password, ip="198.51.100.66")
    assert refused.status_code == 429
    assert "Too many failed logins from here" in refused.content.decode()
    assert int(refused["Retry-After"]) >= 1
    assert "_auth_user_id" not in client.session
    # The owner, elsewhere, is not affected.
    assert _login(client, "alice", password, ip="203.0.113.1").status_code == 302


def test_behind_a_trusted_proxy_one_attacker_does_not_lock_out_everyone(
    client, alice, password, settings
):
    settings.TRUSTED_PROXIES = [f"{PROXY}/32"]
    settings.LOGIN_RATE_LIMIT = 3
    settings.LOGIN_IP_RATE_LIMIT = 3
    for i in range(8):
        _login(client, f"user{i}", "wrong", ip=PROXY, xff="198.51.100.66")
    assert _login(client, "bob", "wrong", ip=PROXY, xff="198.51.100.66").status_code == 429
    # Another client behind the same proxy logs in.
    assert _login(client, "alice", password, ip=PROXY, xff="203.0.113.1").status_code == 302


def test_a_forged_header_from_an_untrusted_peer_does_not_buy_fresh_attempts(
    client, alice, password, settings
):
    settings.TRUSTED_PROXIES = [f"{PROXY}/32"]
    settings.LOGIN_RATE_LIMIT = 3
    for i in range(5):
        _login(client, "alice", "wrong", ip="198.51.100.66", xff=f"192.0.2.{i}")
    assert (
        _login(client, "alice", password, ip="198.51.100.66", xff="192.0.2.200").status_code == 429
    )


def _fail_until(ip, name, now, failures):
    """Fail `failures` times, waiting whenever told to; returns the waits met, in order."""
    waits = []
    while failures:
        attempt = ratelimit.login_begin(ip, name)
        if attempt.wait:
            waits.append(attempt.wait)
            now[0] += attempt.wait
            continue
        attempt.failed()
        failures -= 1
    return waits


def test_delays_double_and_a_success_clears_the_pair(db, settings, monkeypatch):
    # db: the counters live in the database without Redis (games.counters, issue #33).
    settings.LOGIN_RATE_LIMIT = 2
    settings.LOGIN_IP_RATE_LIMIT = 100
    now = [1000.0]
    monkeypatch.setattr(ratelimit.time, "time", lambda: now[0])
    ip, name = "198.51.100.1", "alice"
    # Two free failures, then each further attempt waits twice as long as the last.
    assert _fail_until(ip, name, now, 6) == [1, 2, 4, 8]
    assert ratelimit.login_begin(ip, name).wait == 16
    now[0] += 16
    ratelimit.login_begin(ip, name).succeeded()
    # The pair starts afresh: two free failures again.
    assert _fail_until(ip, name, now, 2) == []


def test_the_delay_never_exceeds_the_window(db, settings, monkeypatch):
    settings.LOGIN_RATE_LIMIT = 1
    settings.LOGIN_RATE_WINDOW = 60
    settings.LOGIN_ACCOUNT_RATE_LIMIT = 100  # this test is about the pair's waits
    now = [0.0]
    monkeypatch.setattr(ratelimit.time, "time", lambda: now[0])
    waits = _fail_until("198.51.100.1", "alice", now, 12)
    assert waits[:6] == [1, 2, 4, 8, 16, 32]
    assert set(waits[6:]) == {60}


def test_verify_throttle_counts_the_client_behind_a_trusted_proxy(client, settings):
    from rest_framework.settings import api_settings

    settings.TRUSTED_PROXIES = [f"{PROXY}/32"]
    monkey = dict(api_settings.DEFAULT_THROTTLE_RATES, verify="2/min")
    url = reverse("api_hand_verify")
    record = {
        "players": ["ann", "ben"],
        "dealer": "ben",
        "up_card": "QH",
        "tricks": {"ann": 3, "ben": 2},
    }
    from unittest import mock

    with mock.patch.dict(api_settings.DEFAULT_THROTTLE_RATES, monkey):

        def post(xff):
            return client.post(
                url,
                record,
                content_type="application/json",
                REMOTE_ADDR=PROXY,
                HTTP_X_FORWARDED_FOR=xff,
            )

        assert [post("198.51.100.1").status_code for _ in range(3)] == [200, 200, 429]
        # Another client behind the same proxy has its own budget.
        assert post("198.51.100.2").status_code == 200
