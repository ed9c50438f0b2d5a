"""Gunicorn's settings for the club server (deploy/systemd) and the Procfile's ``web``.

Where it listens is not set here: the Procfile binds ``0.0.0.0:$PORT`` (what a platform
routes to), and the club server's ``bourre-web.socket`` hands gunicorn a socket systemd
holds, so a restart never meets "Address already in use" and requests wait in the socket's
queue instead of failing while the new master starts.

Workers: ``WEB_CONCURRENCY`` processes (gunicorn reads it; 2 when unset, as under
``make run``) of ``BOURRE_THREADS`` threads each: a phone's poll mostly waits on
PostgreSQL, so threads serve a table's phones without a process each.

Stopping: SIGTERM is gunicorn's graceful stop. Each worker finishes what it is answering
within ``graceful_timeout`` seconds (a hand being saved is one short transaction), then
the master exits; systemd's ``TimeoutStopSec`` (bourre-web.service) is longer than that.
A worker whose master died notices within a second (gunicorn compares its parent's pid)
and stops taking connections.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bourre_site.metrics_dir import ensure_metrics_folder  # noqa: E402

workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("BOURRE_THREADS", "4"))
worker_class = "gthread"
timeout = 60
graceful_timeout = 10
# Keep-alive from the proxy on the same machine: longer than a poll's interval is useless
# (the proxy keeps its own pool) and holds a thread.
keepalive = 5
loglevel = os.environ.get("BOURRE_LOG_LEVEL", "info")
errorlog = "-"
accesslog = os.environ.get("BOURRE_ACCESS_LOG") or None
# gunicorn believes X-Forwarded-Proto only from these addresses (its own default, spelled
# out): the proxy on this machine. Django reads the header itself
# (DJANGO_SECURE_PROXY_SSL_HEADER) and the client's address from X-Forwarded-For only
# through DJANGO_TRUSTED_PROXIES (games/ratelimit.py).
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
# No control socket (gunicorn 25's `gunicornc`): it would go to $HOME/.gunicorn, and the
# bourre user's home (/srv/bourre, root's; read-only under the unit's ProtectSystem) has
# no room for it, so every start logged "Control server error: Permission denied".
# systemd and the platforms stop and reload gunicorn with signals.
control_socket_disable = True
# One /metrics for all the workers (seen in the Debian chroot run: each worker answered
# with its own counts): a folder they share, made in this master before they fork.
ensure_metrics_folder()
