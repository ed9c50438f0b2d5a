"""The bar of issue #33 ("Safe for strangers' clubs"), items 1 and 2:

- the nine inward webhook URLs of the issue are refused at registration (games.api.egress);
- a key whose request was killed mid-write records exactly one hand on retry within a
  minute (games.api.idempotency): a real app server (gunicorn, one worker) is inside the
  write of a hand, waiting for the session's row lock that this test holds, when its
  worker is killed with SIGKILL; the same request with the same Idempotency-Key is then
  sent again until it is answered. It runs on PostgreSQL (the app server shares the test
  database; SQLite's test database lives in this process's memory) and prints the
  recovery time.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection, transaction

from games.models import GameSession, Hand, IdempotencyRecord, Role, WebhookEndpoint
from ledger import postings
from tests.api.conftest import FIRST_HAND, token_client
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory

ROOT = Path(__file__).resolve().parent.parent

INWARD = [
    "https://169.254.169.254/latest/meta-data/",
    "https://10.0.0.1/",
    "https://127.0.0.1/",
    "https://[::1]/",
    "https://localhost/",
    "https://[::ffff:127.0.0.1]/",
    "https://0.0.0.0/",
    "https://100.64.0.1/",
    "https://metadata.google.internal/",
]


@pytest.mark.parametrize("url", INWARD)
def test_the_nine_inward_webhook_urls_are_refused(alice, club, settings, url):
    settings.WEBHOOK_ALLOW_HTTP = False
    settings.WEBHOOK_ALLOW_PRIVATE = False
    response = token_client(alice).post(
        f"/api/v1/clubs/{club.pk}/webhooks/", {"url": url}, content_type="application/json"
    )
    assert response.status_code == 400, url
    assert response.json()["errors"][0]["code"] == "address_not_allowed"
    assert not WebhookEndpoint.objects.exists()


# --- a worker killed mid-write ------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _database_url() -> str:
    db = settings.DATABASES["default"]
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return (
        f"postgres://{db.get('USER') or 'postgres'}{password}@{db.get('HOST') or '127.0.0.1'}"
        f":{db.get('PORT') or 5432}/{db['NAME']}"
    )


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


@pytest.fixture
def app_server(transactional_db, tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("the app server shares the test database: PostgreSQL (DATABASE_URL=...)")
    gunicorn = shutil.which("gunicorn", path=str(Path(sys.executable).parent))
    assert gunicorn, "gunicorn is a dependency (pyproject.toml)"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    env.update(
        DATABASE_URL=_database_url(),
        # The test process issues the token, an HMAC under this key.
        DJANGO_SECRET_KEY=settings.SECRET_KEY,
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_HSTS_SECONDS="0",
        DJANGO_CONN_MAX_AGE="0",
    )
    port = _free_port()
    log = tmp_path / "gunicorn.log"
    with log.open("wb") as out:
        master = subprocess.Popen(
            [gunicorn, "bourre_site.wsgi", "--workers", "1", "--bind", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    import requests

    try:
        for _ in range(600):
            if master.poll() is not None:
                pytest.fail(f"gunicorn exited: {log.read_text()[-2000:]}")
            try:
                if requests.get(url + "/healthz", timeout=10).status_code == 200:
                    break
            except (requests.ConnectionError, requests.Timeout):
                time.sleep(0.1)
        else:
            pytest.fail(f"{url} did not answer /healthz")
        yield master, url
    finally:
        master.terminate()
        try:
            master.wait(timeout=20)
        except subprocess.TimeoutExpired:
            master.kill()


def _waiting_on_a_lock() -> int:
    import psycopg

    db = settings.DATABASES["default"]
    with psycopg.connect(
        host=db.get("HOST") or "127.0.0.1",
        port=db.get("PORT") or 5432,
        user=db.get("USER") or "postgres",
        password=db.get("PASSWORD") or None,
        dbname=db["NAME"],
        autocommit=True,
    ) as watcher:
        row = watcher.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        ).fetchone()
    return int(row[0]) if row else 0


@pytest.mark.postgres
@pytest.mark.slow
def test_a_key_whose_request_was_killed_mid_write_records_one_hand_on_retry(app_server):
    import requests

    master, url = app_server
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    club = ClubFactory(name="Crash Club", created_by=alice)
    MembershipFactory(club=club, user=alice, role=Role.OWNER)
    MembershipFactory(club=club, user=bob, role=Role.SCOREKEEPER)
    players = [PlayerFactory(club=club, name=n) for n in ("ann", "ben", "cal", "dee")]
    session = postings.start_session(
        club=club, name="Crash", players=players, dealer=players[-1], rules={},
        currency=club.currency, user=alice,
    )  # fmt: skip
    from games.models import ApiToken

    _, token = ApiToken.issue(bob, "crash test")
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "crash-1"}
    hands = f"{url}/api/v1/sessions/{session.pk}/hands/"
    outcome: list[object] = []

    def first_try() -> None:
        try:
            outcome.append(requests.post(hands, json=FIRST_HAND, headers=headers, timeout=60))
        except requests.RequestException as exc:
            outcome.append(exc)

    (worker,) = _children(master.pid)
    with transaction.atomic():
        GameSession.objects.select_for_update().get(pk=session.pk)  # the write will wait here
        sender = threading.Thread(target=first_try)
        sender.start()
        for _ in range(300):
            if _waiting_on_a_lock():
                break
            time.sleep(0.1)
        else:
            pytest.fail("the request never reached the write")
        os.kill(worker, signal.SIGKILL)  # the worker dies inside the hand's transaction
        killed_at = time.monotonic()
    sender.join(timeout=60)
    assert isinstance(outcome[0], requests.RequestException)  # no answer: the client retries

    answers = []
    deadline = killed_at + 60
    while time.monotonic() < deadline:
        try:
            response = requests.post(hands, json=FIRST_HAND, headers=headers, timeout=30)
        except requests.RequestException:  # the master is starting a new worker
            time.sleep(0.1)
            continue
        answers.append(response.status_code)
        if response.status_code not in (409, 502, 503):
            break
        time.sleep(float(response.headers.get("Retry-After", "0.1")))
    recovered_in = time.monotonic() - killed_at
    print(f"\nkey recovered {recovered_in:.2f} s after the kill; answers {answers}")
    assert answers and answers[-1] == 201, answers
    assert "Idempotent-Replayed" not in response.headers
    assert recovered_in < 60
    assert Hand.objects.filter(session=session).count() == 1
    assert IdempotencyRecord.objects.filter(key="crash-1", status=201).count() == 1
    again = requests.post(hands, json=FIRST_HAND, headers=headers, timeout=30)
    assert (again.status_code, again.headers.get("Idempotent-Replayed")) == (201, "true")
    assert Hand.objects.filter(session=session).count() == 1
    session.refresh_from_db()
    postings.check_invariants(session)
