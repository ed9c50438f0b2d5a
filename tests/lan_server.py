"""Start the app the way `make run` does (``python -m bourre_site.lan``) for tests that
talk to it over HTTP: its own SQLite file and secret-key file in a temporary folder,
bound to loopback on a free port, so a server already running here (a developer's
`make run`, another test run) cannot collide with it (this module holds no tests)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class LanServer:
    process: subprocess.Popen
    url: str
    port: int
    output: Path
    secret_file: Path

    def log(self) -> str:
        return self.output.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # gunicorn's graceful stop
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def start(folder: Path, bind: str = "127.0.0.1", port: int | None = None) -> LanServer:
    port = port or free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "BOURRE_"))}
    env.pop("DATABASE_URL", None)
    env.update(
        {
            "PORT": str(port),
            "BIND": bind,
            "DATABASE_URL": f"sqlite:///{folder / 'lan.sqlite3'}",
            "BOURRE_SECRET_FILE": str(folder / "secret_key"),
            "PYTHONUNBUFFERED": "1",
            # Even if the caller's environment asks for it, LAN mode never runs DEBUG.
            "DJANGO_DEBUG": "1",
        }
    )
    output = folder / "server.log"
    with output.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "bourre_site.lan"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = LanServer(process, f"http://{bind}:{port}", port, output, folder / "secret_key")
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server stopped:\n{server.log()}")
        if "Phones on this Wi-Fi" in server.log():
            try:
                urllib.request.urlopen(server.url + "/static/css/app.css", timeout=10)
                return server
            except OSError:
                pass  # the workers are still starting
        time.sleep(0.5)
    server.stop()
    raise RuntimeError(f"the server did not start in time:\n{server.log()}")
