"""Scale-out, proven (issue 17, item 8): two app servers (gunicorn, two ports) on one
PostgreSQL and one Redis share rate limits, login sessions and the books.

Runs in CI's PostgreSQL run; skipped on SQLite (one file is one machine) and where no
Redis answers. The servers use the test database (this test commits its data) and Redis
database 1, which it flushes.
"""

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

from games.models import ApiToken
from ledger import postings
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory

ROOT = Path(__file__).resolve().parent.parent.parent
REDIS_URL = os.environ.get("BOURRE_TEST_REDIS_URL", "redis://127.0.0.1:6379/1")
PASSWORD = "scale-out-Pa55word!"

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def _redis_or_skip() -> None:
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).flushdb()
    except redis.RedisError as exc:
        pytest.skip(f"no Redis at {REDIS_URL}: {exc}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _database_url() -> str:
    db = settings.DATABASES["default"]
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return (
        f"postgres://{db.get('USER') or 'postgres'}{password}@{db.get('HOST') or '127.0.0.1'}"
        f":{db.get('PORT') or 5432}/{db['NAME']}"
    )


@pytest.fixture
def servers(transactional_db, tmp_path):
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("two app servers need a shared PostgreSQL (DATABASE_URL=postgres://...)")
    _redis_or_skip()
    gunicorn = shutil.which("gunicorn", path=str(Path(sys.executable).parent))
    assert gunicorn, "gunicorn is a dependency (pyproject.toml)"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    env.update(
        DATABASE_URL=_database_url(),
        REDIS_URL=REDIS_URL,
        # Every app server shares one key, as in production: the test process issues the API
        # token, whose password fingerprint is an HMAC under that key.
        DJANGO_SECRET_KEY=settings.SECRET_KEY,
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_SESSION_COOKIE_SECURE="0",
        DJANGO_CSRF_COOKIE_SECURE="0",
        DJANGO_HSTS_SECONDS="0",
        DJANGO_CONN_MAX_AGE="0",
        BOURRE_VERIFY_RATE="3/min",
        DJANGO_LOGIN_RATE_LIMIT="2",
    )
    procs, urls = [], []
    try:
        for i in range(2):
            port = _free_port()
            log = open(tmp_path / f"gunicorn-{i}.log", "wb")  # noqa: SIM115 (closed with the process)
            procs.append(
                subprocess.Popen(
                    [gunicorn, "bourre_site.wsgi", "--workers", "1", "--bind", f"127.0.0.1:{port}"],
                    cwd=ROOT,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
            urls.append(f"http://127.0.0.1:{port}")
        import requests

        for i, (url, proc) in enumerate(zip(urls, procs, strict=True)):
            for _ in range(300):
                if proc.poll() is not None:
                    output = (tmp_path / f"gunicorn-{i}.log").read_text()[-2000:]
                    pytest.fail(f"gunicorn exited: {output}")
                try:
                    if requests.get(url + "/healthz", timeout=10).status_code == 200:
                        break
                except (requests.ConnectionError, requests.Timeout):
                    time.sleep(0.1)
            else:
                pytest.fail(f"{url} did not answer /healthz")
        yield urls
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def _login(session, url: str, username: str, password: str):
    page = session.get(url + "/accounts/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    return session.post(
        url + "/accounts/login/",
        data={"username": username, "password": password, "csrfmiddlewaretoken": token},
        headers={"Referer": url + "/accounts/login/"},
        allow_redirects=False,
    )


def test_two_app_servers_share_limits_logins_and_books(servers, settings):
    import requests

    # The servers check passwords with the production hasher (the tests' MD5 is not theirs).
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]

    a, b = servers
    alice = UserFactory(username="alice")
    alice.set_password(PASSWORD)
    alice.save()
    club = ClubFactory(name="Shared", created_by=alice)
    MembershipFactory(club=club, user=alice, role="owner")
    players = [PlayerFactory(club=club, name=n) for n in ("ann", "ben", "cal", "dee")]
    game = postings.start_session(
        club=club,
        name="Two servers",
        players=players,
        dealer=players[-1],
        rules={},
        currency=club.currency,
        user=alice,
    )

    # Shared rate limits: 3 verifications a minute per client, wherever they land.
    record = {"players": ["ann", "ben"], "dealer": "ben", "up_card": "QH", "tricks": {"ann": 5}}
    statuses = [
        requests.post(u + "/api/v1/hands/verify", json=record).status_code for u in (a, b, a, b)
    ]
    assert statuses == [200, 200, 200, 429]

    # The login throttle too: two failures on A make the third try wait, on B as well.
    for _ in range(3):
        _login(requests.Session(), a, "alice", "wrong")
    assert _login(requests.Session(), b, "alice", PASSWORD).status_code == 429

    # Shared login sessions: signed in on A (a clean pair: another user), known on B.
    bob = UserFactory(username="bob")
    bob.set_password(PASSWORD)
    bob.save()
    MembershipFactory(club=club, user=bob, role="scorekeeper")
    browser = requests.Session()
    assert _login(browser, a, "bob", PASSWORD).status_code == 302
    page = browser.get(b + f"/sessions/{game.pk}/")
    assert page.status_code == 200 and "Two servers" in page.text and "bob" in page.text

    # A hand recorded on A is on B's scoreboard and in B's API.
    _, key = ApiToken.issue(bob, "scale-out")
    headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": "scale-out-1"}
    hand = {"up_card": "QH", "passed": ["ben"], "tricks": {"ann": 3, "cal": 2, "dee": 0}}
    created = requests.post(a + f"/api/v1/sessions/{game.pk}/hands/", json=hand, headers=headers)
    assert created.status_code == 201, created.text
    seen = requests.get(
        b + f"/api/v1/sessions/{game.pk}/", headers={"Authorization": f"Bearer {key}"}
    )
    assert seen.json()["hands_count"] == 1
    history = browser.get(b + f"/sessions/{game.pk}/history/")
    assert f'href="/hands/{created.json()["id"]}/"' in history.text
    game.refresh_from_db()
    postings.check_invariants(game)
