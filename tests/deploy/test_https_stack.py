"""The production shape, tested (issue #32 item 3): the app started as the Procfile says,
with honcho (``release`` first, then ``web`` and ``worker``), on PostgreSQL and Redis,
behind Debian's Caddy with ``tls internal`` on unprivileged ports, driven by Chromium over
``https://``:

- a phone gets the root certificate of Caddy's authority from ``http://<name>/ca.crt``
  (and Chromium trusts it, as a phone that installed it does) and plain http is sent on
  to https;
- the service worker registers and controls the page, and the manifest meets Chromium's
  own install criteria (``Page.getInstallabilityErrors``: icons, start_url, display);
- a hand saved while offline waits on the phone and is recorded once when the connection
  returns; the books balance;
- the session and CSRF cookies are ``Secure``, HSTS is sent, pages and static files are
  compressed (static files as the copies collectstatic compressed, cached for a year);
- ``check --deploy`` is clean with the very settings the install script writes.

The settings are ``deploy/install.sh --print env`` (what the club server runs on), with
the test's database, Redis and a fresh secret key; the Caddyfile is ``deploy/install.sh
--print caddyfile --lan <name>`` behind a global block for unprivileged ports (admin
API off, Caddy's data in a temporary folder, nothing installed in the system's trust).

Runs in CI's PostgreSQL run; skipped on SQLite (honcho's processes and the test share one
database), where no Redis answers, and where Caddy is not installed (a failure under
CI=true: .ci/run installs it). It prints the time from starting honcho to the first page
served over https.
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.conf import settings as django_settings
from django.db import connections

from games.models import Hand
from ledger import postings
from ledger.invariants import check_invariants
from tests.browser.conftest import CHROMIUM_ARGS, PHONE, chromium_path
from tests.browser.test_never_silent import _open_record, _type_hand
from tests.factories import PASSWORD

ROOT = Path(__file__).resolve().parent.parent.parent
NAME = "club.bourre.test"  # a LAN name: Caddy's own authority signs its certificate
REDIS_URL = os.environ.get("BOURRE_TEST_HTTPS_REDIS_URL", "redis://127.0.0.1:6379/2")
BIN = Path(sys.executable).parent

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _database_url() -> str:
    db = django_settings.DATABASES["default"]
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return (
        f"postgres://{db.get('USER') or 'postgres'}{password}@{db.get('HOST') or '127.0.0.1'}"
        f":{db.get('PORT') or 5432}/{db['NAME']}"
    )


def _needs(tool: str, why: str) -> str:
    found = shutil.which(tool) or shutil.which(tool, path=str(BIN))
    if found:
        return found
    if os.environ.get("CI") == "true":
        pytest.fail(f"{tool} is required in CI ({why})")
    pytest.skip(f"{tool} is not installed ({why})")


def _redis_or_skip() -> None:
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).flushdb()
    except redis.RedisError as exc:
        pytest.skip(f"no Redis at {REDIS_URL}: {exc}")


def _install_print(*args: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        ["bash", str(ROOT / "deploy" / "install.sh"), "--print", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def spki_sha256(pem: str) -> str:
    """base64(SHA-256(SubjectPublicKeyInfo)) of a certificate: what Chromium's
    --ignore-certificate-errors-spki-list takes (DER read by hand: the standard library
    has no X.509 parser, and this needs only the seventh field's bytes)."""
    der = ssl.PEM_cert_to_DER_cert(pem)

    def item(at: int) -> tuple[int, int]:  # (start of content, end) of the TLV at `at`
        length, at = der[at + 1], at + 2
        if length & 0x80:
            count = length & 0x7F
            length, at = int.from_bytes(der[at : at + count], "big"), at + count
        return at, at + length

    tbs, _ = item(item(0)[0])  # Certificate → tbsCertificate's content
    at = tbs
    if der[at] == 0xA0:  # [0] version
        at = item(at)[1]
    for _ in range(5):  # serial, signature, issuer, validity, subject
        at = item(at)[1]
    return base64.b64encode(hashlib.sha256(der[at : item(at)[1]]).digest()).decode()


class _To127(http.client.HTTPSConnection):
    """HTTPS to NAME (its SNI and Host) at 127.0.0.1, like a phone whose DNS says so."""

    def connect(self) -> None:
        sock = socket.create_connection(("127.0.0.1", self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


@dataclass
class Stack:
    url: str
    http_port: int
    https_port: int
    ca_file: Path
    env: dict[str, str]
    logs: Path
    first_page_seconds: float

    def https(self, path: str, headers: dict[str, str] | None = None):
        context = ssl.create_default_context(cafile=str(self.ca_file))
        conn = _To127(NAME, self.https_port, context=context, timeout=30)
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        body = response.read()
        conn.close()
        return response, body

    def log(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
            for p in sorted(self.logs.glob("*.log"))
        )


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)  # honcho passes it on; gunicorn stops gracefully
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


@pytest.fixture
def stack(transactional_db, tmp_path: Path) -> Iterator[Stack]:
    if django_settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("the https stack runs on PostgreSQL (DATABASE_URL=postgres://...)")
    caddy = _needs("caddy", "apt-get install caddy")
    honcho = _needs("honcho", "pip install -e '.[test]'")
    if chromium_path() is None:
        _needs("chromium", "apt-get install chromium")
    _redis_or_skip()

    http_port, https_port, app_port = _free_port(), _free_port(), _free_port()
    home = tmp_path / "home"  # the club server's /srv/bourre: only its static files here
    static_root = home / "app" / "staticfiles"
    caddy_data = tmp_path / "caddy-data"
    pki = caddy_data / "caddy" / "pki" / "authorities" / "local"
    logs = tmp_path / "logs"
    logs.mkdir()
    render_env = {
        "BOURRE_HOME_DIR": str(home),
        "BOURRE_PORT": str(app_port),
        "BOURRE_CADDY_PKI": str(pki),
    }

    # The settings the install script writes, on this test's database and Redis.
    installed = dict(
        line.split("=", 1)
        for line in _install_print("env", "--lan", NAME, env=render_env).splitlines()
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "BOURRE_"))}
    env.update(installed)
    env.update(
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DATABASE_URL=_database_url(),
        REDIS_URL=REDIS_URL,
        DJANGO_STATIC_ROOT=str(static_root),
        DJANGO_CONN_MAX_AGE="0",  # the test database is flushed after the test
        PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        PYTHONUNBUFFERED="1",
        WEB_CONCURRENCY="2",
    )
    assert env["DJANGO_ALLOWED_HOSTS"].split(",")[0] == NAME

    # The build step a platform runs (the install script's too): collectstatic.
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=300,
    )
    # Caddy: the install script's Caddyfile behind a global block for a test machine.
    caddyfile = tmp_path / "Caddyfile"
    caddyfile.write_text(
        "{\n\tadmin off\n\tskip_install_trust\n"
        f"\thttp_port {http_port}\n\thttps_port {https_port}\n}}\n\n"
        + _install_print("caddyfile", "--lan", NAME, env=render_env)
    )
    caddy_env = {
        **os.environ,
        "XDG_DATA_HOME": str(caddy_data),
        "XDG_CONFIG_HOME": str(tmp_path / "caddy-config"),
        "HOME": str(tmp_path),
    }
    procs: list[subprocess.Popen] = []
    try:
        started = time.monotonic()
        release = subprocess.run(
            [honcho, "--no-colour", "-d", str(ROOT), "-f", str(ROOT / "Procfile"), "start", "release"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert release.returncode == 0, release.stdout + release.stderr
        assert "release.1 stopped (rc=0)" in release.stdout
        with (logs / "honcho.log").open("w") as out:
            procs.append(
                subprocess.Popen(
                    [honcho, "--no-colour", "-d", str(ROOT), "-f", str(ROOT / "Procfile"),
                     "start", "-p", str(app_port), "web", "worker"],
                    cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )  # fmt: skip
        with (logs / "caddy.log").open("w") as out:
            procs.append(
                subprocess.Popen(
                    [caddy, "run", "--adapter", "caddyfile", "--config", str(caddyfile)],
                    cwd=tmp_path, env=caddy_env, stdout=out, stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )  # fmt: skip
        stack = Stack(
            url=f"https://{NAME}:{https_port}",
            http_port=http_port,
            https_port=https_port,
            ca_file=pki / "root.crt",
            env=env,
            logs=logs,
            first_page_seconds=0.0,
        )
        deadline = time.monotonic() + 180
        while True:
            for proc in procs:
                if proc.poll() is not None:
                    pytest.fail(f"a process of the stack stopped:\n{stack.log()}")
            try:
                if stack.ca_file.exists():
                    response, _ = stack.https("/accounts/login/")
                    if response.status == 200:
                        break
            except (OSError, ssl.SSLError, http.client.HTTPException):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"no page over https in 180 s:\n{stack.log()}")
            time.sleep(0.2)
        stack.first_page_seconds = time.monotonic() - started
        print(f"honcho (release, web, worker) to the first page over https: "
              f"{stack.first_page_seconds:.1f} s")  # fmt: skip
        yield stack
    finally:
        for proc in reversed(procs):
            _stop(proc)


def _ca_from_plain_http(stack: Stack) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", stack.http_port, timeout=30)
    conn.request("GET", "/ca.crt", headers={"Host": NAME})
    response = conn.getresponse()
    body = response.read().decode()
    assert response.status == 200, body
    assert response.getheader("Content-Type") == "application/x-x509-ca-cert"
    conn.request("GET", "/accounts/login/?next=/", headers={"Host": NAME})
    redirect = conn.getresponse()
    redirect.read()
    assert redirect.status == 308
    assert redirect.getheader("Location") == f"https://{NAME}/accounts/login/?next=/"
    conn.close()
    return body


def _check_deploy_is_clean(stack: Stack) -> None:
    """Django's deployment checklist with the settings the install script writes, run
    the way the Procfile's processes are (honcho, its environment)."""
    result = subprocess.run(
        ["honcho", "run", "python", "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=stack.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
    # The worker the Procfile names runs beside the web process.
    assert "worker.1 started" in (stack.logs / "honcho.log").read_text()


def test_the_club_server_over_https(stack, club, players, bob, settings) -> None:
    # The app servers check passwords with the production hasher (the tests' MD5 is not
    # in their settings).
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    bob.set_password(PASSWORD)
    bob.save()
    session = postings.start_session(
        club=club, name="Over https", players=players[:3], dealer=players[2], rules={},
        currency=club.currency, user=bob,
    )  # fmt: skip

    _check_deploy_is_clean(stack)

    # What a phone downloads first, over plain http: the authority's root certificate.
    pem = _ca_from_plain_http(stack)
    assert pem == stack.ca_file.read_text()

    # Headers as the server sends them (Python's client, trusting that certificate).
    response, body = stack.https("/accounts/login/", {"Accept-Encoding": "gzip"})
    assert response.getheader("Content-Encoding") == "gzip"
    hsts = response.getheader("Strict-Transport-Security") or ""
    assert "max-age=31536000" in hsts and "includeSubDomains" in hsts
    assert len(body) > 0

    from playwright.sync_api import sync_playwright

    # The test's ORM calls run beside Playwright's event loop on purpose (tests/browser).
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    # A thread of its own: a browser test before this one on the same xdist worker keeps
    # Playwright's sync loop running in this thread, and a second one cannot start here.
    failures: list[BaseException] = []

    def drive() -> None:
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=chromium_path(),
                    args=[
                        *CHROMIUM_ARGS,
                        f"--host-resolver-rules=MAP {NAME} 127.0.0.1",
                        # The phone that installed /ca.crt: this authority's certificates are valid.
                        # (Chromium matches the chain the server sends: Caddy's intermediate.)
                        "--ignore-certificate-errors-spki-list="
                        + spki_sha256((stack.ca_file.parent / "intermediate.crt").read_text()),
                    ],
                )
                context = browser.new_context(
                    viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
                )
                context.set_default_timeout(15_000)
                page = context.new_page()
                responses = []
                page.on("response", lambda response: responses.append(response))
                try:
                    _phone_over_https(stack, page, session, responses)
                finally:
                    context.close()
                    browser.close()
        except BaseException as exc:  # re-raised in the test's own thread below
            failures.append(exc)
        finally:
            connections.close_all()

    runner = threading.Thread(target=drive)
    runner.start()
    runner.join(timeout=600)
    assert not runner.is_alive(), "the phone over https never finished"
    if failures:
        raise failures[0]


def _phone_over_https(stack: Stack, page, session, responses) -> None:
    url = stack.url
    first = page.goto(f"{url}/accounts/login/")
    assert first is not None and first.ok
    assert first.header_value("content-encoding") in {"zstd", "br", "gzip"}
    assert "max-age=31536000" in (first.header_value("strict-transport-security") or "")

    # The installable app: Chromium's own verdict, then what it read.
    page.wait_for_function(
        "() => navigator.serviceWorker.ready.then(() => !!navigator.serviceWorker.controller)"
    )
    cdp = page.context.new_cdp_session(page)
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    # Playwright's contexts are incognito ones, where Chromium never installs an app;
    # every other criterion must hold.
    assert [e["errorId"] for e in errors if e["errorId"] != "in-incognito"] == []
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == []
    data = json.loads(manifest["data"])
    assert data["display"] == "standalone" and data["start_url"] == "/"
    assert {"192x192", "512x512"} <= {icon["sizes"] for icon in data["icons"]}

    # Static files from Caddy: the compressed copies, cached for a year under hashed names.
    css = next(r for r in responses if "/static/css/app." in r.url and r.status == 200)
    assert css.header_value("content-encoding") in {"br", "gzip", "zstd"}
    assert css.header_value("cache-control") == "public, max-age=31536000, immutable"

    # Log in through the form; the cookies may only travel over https.
    page.get_by_label("Username").fill("bob")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{url}/")
    cookies = {c["name"]: c for c in page.context.cookies()}
    assert cookies["sessionid"]["secure"] and cookies["sessionid"]["httpOnly"]
    assert cookies["csrftoken"]["secure"]

    # A hand saved with no connection waits on the phone and is sent once when it returns.
    _open_record(page, SimpleNamespace(url=url), session)
    page.context.set_offline(True)
    _type_hand(page, "H", "ann", "ben")
    page.get_by_role("button", name="Save hand").click()
    page.locator("[data-queue-status]").get_by_text("Waiting to send (1)").wait_for()
    assert Hand.objects.filter(session=session).count() == 0
    page.context.set_offline(False)
    page.wait_for_function("() => !window.bourre.queue.entries().length", timeout=30_000)
    deadline = time.monotonic() + 10
    while not Hand.objects.filter(session=session).exists() and time.monotonic() < deadline:
        time.sleep(0.1)  # the answer reached the phone; the commit is visible a moment later
    hands = list(Hand.objects.filter(session=session))
    assert len(hands) == 1 and hands[0].record["trump"] == "H"
    session.refresh_from_db()
    check_invariants(session)
