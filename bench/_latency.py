"""A database on another machine, simulated: a loopback TCP proxy in front of PostgreSQL
that delivers every chunk ``delay`` seconds after it arrived, each way (issue #20).

Production puts the app servers and PostgreSQL on different machines (DESIGN.md), where
each round trip costs a network's latency, not loopback's ~60 µs; this makes the number
of round trips a request waits for visible in a benchmark. The delay overlaps as on a
wire: a chunk sent while another is in flight is not held behind it (a writer thread per
direction delivers each at its own due time), so pipelined statements cost one round
trip, as they would on a network. Not a benchmark itself (``make bench`` runs the files
that do not start with ``_``).

    url = _latency.start(0.0005)   # postgres://…:port, 1 ms round trips added
"""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
import time
from urllib.parse import urlsplit


def _pump(source: socket.socket, target: socket.socket, delay: float) -> None:
    due: queue.Queue[tuple[float, bytes]] = queue.Queue()

    def deliver() -> None:
        while True:
            at, data = due.get()
            if not data:
                break
            wait = at - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            try:
                target.sendall(data)
            except OSError:
                break
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)

    threading.Thread(target=deliver, daemon=True).start()
    try:
        while data := source.recv(65536):
            due.put((time.perf_counter() + delay, data))
    except OSError:
        pass
    due.put((0.0, b""))


def start(delay: float, server: str) -> str:
    """Start the proxy (daemon threads, ends with the process) in front of ``server``
    (a postgres:// URL without a database); returns the URL to connect to instead."""
    parts = urlsplit(server)
    upstream = (parts.hostname or "127.0.0.1", parts.port or 5432)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def accept() -> None:
        while True:
            client, _ = listener.accept()
            database = socket.create_connection(upstream)
            for s in (client, database):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for a, b in ((client, database), (database, client)):
                threading.Thread(target=_pump, args=(a, b, delay), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    password = f":{parts.password}" if parts.password else ""
    userinfo = f"{parts.username}{password}@" if parts.username else ""
    return f"{parts.scheme}://{userinfo}127.0.0.1:{port}"
