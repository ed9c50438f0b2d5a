"""The club server's restart, without systemd: gunicorn on a socket someone else holds.

bourre-web.socket makes systemd hold the listening socket and hand it to gunicorn
(``LISTEN_FDS``), so that a gunicorn whose master was killed comes back without "Address
already in use" (FINDINGS, Security) and a request that arrives while no gunicorn runs
waits in the socket's queue instead of being refused. Here the test plays systemd: it
holds the socket, starts gunicorn with the unit's command line (deploy/gunicorn.conf.py),
kills the master with SIGKILL, waits until the orphaned workers are gone (they notice
their parent changed), sends a request with no gunicorn at all, and starts a new master,
which answers it. It prints how long the orphans lived.
"""

from __future__ import annotations

import http.client
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
GUNICORN = Path(sys.executable).parent / "gunicorn"

pytestmark = pytest.mark.slow


def _start(listener: socket.socket, env: dict[str, str], log: Path) -> subprocess.Popen:
    """gunicorn as systemd starts it: the socket as fd 3, LISTEN_PID its own pid."""
    fd = listener.fileno()
    with log.open("a") as out:
        return subprocess.Popen(
            [
                # bash: dash reads only one-digit descriptors in a redirection (3<&12 fails)
                "/bin/bash", "-c", f'exec 3<&{fd}; LISTEN_FDS=1 LISTEN_PID=$$ exec "$0" "$@"',
                str(GUNICORN), "--config", "deploy/gunicorn.conf.py", "bourre_site.wsgi",
            ],
            cwd=ROOT, env=env, pass_fds=(fd,), stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip


def _living(group: int) -> list[int]:
    """Processes of a process group that are not zombies."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        state, pgrp = fields[0], int(fields[2])
        if pgrp == group and state != "Z":
            alive.append(int(entry.name))
    return alive


def _healthz(port: int, timeout: float = 60) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("GET", "/healthz")
    status = conn.getresponse().status
    conn.close()
    return status


def _wait_until_served(port: int, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()
        try:
            if _healthz(port, timeout=5) == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    pytest.fail(f"gunicorn did not answer:\n{log.read_text()}")


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads processes from /proc (Linux)")
def test_a_killed_master_comes_back_on_the_held_socket_and_the_waiting_request_is_answered(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "BOURRE_"))}
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        WEB_CONCURRENCY="2",
        PYTHONUNBUFFERED="1",
    )
    env.pop("REDIS_URL", None)
    log = tmp_path / "gunicorn.log"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    port = listener.getsockname()[1]
    first = second = None
    try:
        first = _start(listener, env, log)
        _wait_until_served(port, first, log)
        workers = [pid for pid in _living(first.pid) if pid != first.pid]
        assert len(workers) == 2, log.read_text()

        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        killed = time.monotonic()
        while _living(first.pid):  # the orphans finish and leave on their own
            assert time.monotonic() - killed < 120, "orphaned workers never left"
            time.sleep(0.1)
        print(f"orphaned workers left {time.monotonic() - killed:.1f} s after the master died")

        # Nothing runs gunicorn now; the socket still listens: the request waits.
        waiting = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        waiting.request("GET", "/healthz")
        second = _start(listener, env, log)
        assert waiting.getresponse().status == 200
        waiting.close()
        assert second.poll() is None
        assert "Address already in use" not in log.read_text()
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)  # gunicorn's graceful stop
                proc.wait(timeout=30)
        if first is not None and _living(first.pid):  # a failure above left orphans
            os.killpg(first.pid, signal.SIGKILL)
        listener.close()
