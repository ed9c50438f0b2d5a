"""`make run` on the Wi-Fi (bourre_site/lan.py): which hosts are served, the secret key,
the start-up banner, the settings of LAN mode, and a real server started the way
`make run` starts it (gunicorn on 127.0.0.1 at a free port, its own SQLite file)."""

from __future__ import annotations

import http.client
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from bourre_site import lan
from tests import lan_server

ROOT = Path(__file__).resolve().parent.parent


# -- hosts -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    [
        "10.0.0.7",
        "10.255.1.2",
        "172.16.0.1",
        "172.31.255.254",
        "192.168.1.20",
        "169.254.10.1",
        "fd00::1",
        "[fd12:3456::1]",
        "127.0.0.1",
        "localhost",
        "mylaptop.local",
        "Kitchen-Mac.LOCAL",
    ],
)
def test_private_addresses_and_local_names_are_served(host):
    assert lan.host_allowed(host, listed=[])


@pytest.mark.parametrize(
    "host",
    ["8.8.8.8", "172.32.0.1", "192.169.0.1", "bourre.example.com", "evil.com", "fe80::1", ""],
)
def test_public_hosts_are_refused_unless_listed(host):
    assert not lan.host_allowed(host, listed=[])


def test_listed_hosts_and_the_machines_own_addresses_are_served():
    assert lan.host_allowed("bourre.example.com", listed=["bourre.example.com"])
    assert lan.host_allowed("a.example.com", listed=[".example.com"])
    assert lan.host_allowed("203.0.113.9", listed=[], own=["203.0.113.9"])
    assert not lan.host_allowed("203.0.113.10", listed=[], own=["203.0.113.9"])


def test_lan_addresses_leave_out_loopback_and_put_ipv4_first():
    found = lan.lan_addresses(["127.0.0.1", "::1", "fd00::5", "192.168.1.20", "10.0.0.2"])
    assert found == ["10.0.0.2", "192.168.1.20", "fd00::5"]
    assert lan.url_of("fd00::5", 8000) == "http://[fd00::5]:8000/"


def test_own_addresses_include_loopback():
    assert "127.0.0.1" in lan.own_addresses()


# -- the secret key and the banner -----------------------------------------------------------


def test_the_secret_key_is_made_once_and_kept_private(tmp_path):
    path = tmp_path / "key"
    first = lan.secret_key(path)
    assert len(first) >= 50
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert lan.secret_key(path) == first  # a restart keeps everybody logged in


def test_the_secret_key_file_is_git_ignored():
    assert ".secret_key" in (ROOT / ".gitignore").read_text().split()


def test_banner_lists_every_address_and_draws_a_qr_code():
    text = lan.banner(["http://192.168.1.20:8000/", "http://10.0.0.2:8000/"])
    lines = text.splitlines()
    assert lines[0] == "Phones on this Wi-Fi: http://192.168.1.20:8000/"
    assert lines[1] == "Phones on this Wi-Fi: http://10.0.0.2:8000/"
    assert sum("█" in line for line in lines) > 10  # the QR code's rows
    assert "No Wi-Fi address found" in lan.banner([])


# -- settings ----------------------------------------------------------------------------------


def _settings(**env) -> dict[str, str]:
    code = (
        "from django.conf import settings as s\n"
        "print(s.DEBUG, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.ALLOWED_HOSTS[0],"
        " ','.join(s.MIDDLEWARE))\n"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "BOURRE_"))}
    clean |= {"DJANGO_SETTINGS_MODULE": "bourre_site.settings", **env}
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()\n" + code],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    debug, session_secure, csrf_secure, host, middleware = done.stdout.split()
    return {
        "debug": debug,
        "session": session_secure,
        "csrf": csrf_secure,
        "host": host,
        "middleware": middleware.split(","),
    }


def test_lan_mode_never_runs_debug_and_sends_cookies_over_plain_http():
    got = _settings(BOURRE_LAN="1", DJANGO_DEBUG="1", DJANGO_SECRET_KEY="k" * 60)
    assert got["debug"] == "False"
    assert got["session"] == got["csrf"] == "False"
    assert got["host"] == "*"
    # The host is checked before any middleware or view reads it: only /healthz is before,
    # and the request id and metrics, which read no host (the route is read afterwards).
    lan_check = got["middleware"].index("bourre_site.lan.LanHostMiddleware")
    assert got["middleware"][:lan_check] == [
        "bourre_site.requestid.RequestIdMiddleware",
        "bourre_site.metrics.MetricsMiddleware",
        "bourre_site.middleware.HealthCheckMiddleware",
    ]


def test_production_keeps_secure_cookies():
    got = _settings(DJANGO_SECRET_KEY="k" * 60)
    assert got["debug"] == "False"
    assert got["session"] == got["csrf"] == "True"
    assert "bourre_site.lan.LanHostMiddleware" not in got["middleware"]


# -- a real server, started the way `make run` starts it ------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    started = lan_server.start(tmp_path_factory.mktemp("lan"))
    yield started
    started.stop()


def _get(server, path: str, host: str | None = None, method: str = "GET", body=None):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    headers = {"Host": host or f"127.0.0.1:{server.port}"}
    if body is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    return response.status, dict(response.getheaders()), response.read().decode()


def test_server_prints_the_address_phones_open_and_the_demo_login(server):
    log = server.log()
    url = f"http://127.0.0.1:{server.port}/"
    assert f"Phones on this Wi-Fi: {url}" in log
    assert f"log in at {url}accounts/login/" in log  # the real address, not :8000
    assert stat.S_IMODE(server.secret_file.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    "host", ["192.168.1.20:8112", "10.0.0.7:8112", "kitchen.local:8112", "[fd00::20]:8112"]
)
def test_server_answers_private_hosts(server, host):
    status, _, body = _get(server, "/", host)
    assert status == 200, body[:300]


@pytest.mark.parametrize("host", ["bourre.example.com", "8.8.8.8:8112", "evil.com:8112"])
def test_server_refuses_public_hosts(server, host):
    status, _, body = _get(server, "/", host)
    assert status == 400
    assert "Traceback" not in body and "DisallowedHost" not in body


@pytest.mark.parametrize(
    ("path", "method", "expected"),
    [
        ("/no/such/page/", "GET", 404),
        ("/sessions/1/", "GET", 302),  # to the login page, not a debug 404
        ("/share/not-a-token/", "GET", 404),
        ("/seat/not-a-secret/", "GET", 404),
        ("/accounts/login/", "POST", 403),  # no CSRF token
    ],
)
def test_server_never_shows_a_debug_page(server, path, method, expected):
    status, _, body = _get(
        server, path, "192.168.1.20:8112", method, body="" if method == "POST" else None
    )
    assert status == expected
    for debug_sign in ("URLconf", "Traceback", "DEBUG = True", "technical", "Django tried"):
        assert debug_sign not in body


def test_server_serves_static_files_through_whitenoise(server):
    status, headers, body = _get(server, "/static/css/app.css", "192.168.1.20:8112")
    assert status == 200 and headers["Content-Type"].startswith("text/css")
    assert ".dg-skip" in body


def test_server_cookies_work_over_plain_http(server):
    status, headers, _ = _get(server, "/accounts/login/", "192.168.1.20:8112")
    assert status == 200
    cookie = headers.get("Set-Cookie", "")
    assert "csrftoken=" in cookie and "Secure" not in cookie


def test_links_for_phones_use_the_wifi_address_when_the_host_is_on_loopback(rf, settings):
    from games.qr import phone_url

    settings.PHONE_BASE_URL = "http://192.168.1.20:8000/"
    settings.ALLOWED_HOSTS = ["*"]
    on_laptop = rf.get("/", HTTP_HOST="127.0.0.1:8000")
    assert phone_url(on_laptop, "/share/x/") == "http://192.168.1.20:8000/share/x/"
    on_phone = rf.get("/", HTTP_HOST="10.0.0.9:8000")
    assert phone_url(on_phone, "/share/x/") == "http://10.0.0.9:8000/share/x/"
    settings.PHONE_BASE_URL = ""
    assert phone_url(on_laptop, "/share/x/") == "http://127.0.0.1:8000/share/x/"
