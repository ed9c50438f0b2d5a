"""`make run`: the host's machine serves the phones at the table, over the home Wi-Fi.

    python -m bourre_site.lan          # PORT=8000, BIND=0.0.0.0 by default

What it does, in order:

1. the secret key: ``DJANGO_SECRET_KEY`` if set, else the one kept in ``.secret_key``
   (git-ignored; made on first run, readable by its owner only), exported as
   ``DJANGO_SECRET_KEY`` before Django starts, so sessions survive a restart;
2. ``BOURRE_LAN=1`` (settings: DEBUG off whatever DJANGO_DEBUG says, LAN hosts accepted by
   ``LanHostMiddleware``, session and CSRF cookies without ``Secure`` since the Wi-Fi is
   plain http), then migrate and load the demo data (printing the real address);
3. static files collected once per change (``collect_static``): Django's manifest storage
   gives each file a name with its content's hash, WhiteNoise writes gzip and Brotli
   copies beside it and serves the hashed names with a one-year ``immutable`` lifetime,
   so a phone fetches the styles and scripts once per release, compressed. The pages
   themselves are gzipped by Django's GZipMiddleware (bourre_site/settings.py);
4. ``PROMETHEUS_MULTIPROC_DIR``: a fresh folder where every worker writes its counts, so
   ``/metrics`` (bourre_site/metrics.py) adds up all of them;
5. gunicorn on all interfaces, with static files from WhiteNoise. Gunicorn because it is
   the production server already (README "Production"): several worker processes with
   threads, no debug machinery, a crashed worker replaced; runserver says itself that it
   is not for this. The workers share the login, sign-up and reset counters (they live in
   the database, games/counters.py): a second worker is no second allowance of failed
   logins. The API's per-window counts are each worker's own. Once it listens it prints one ``Phones on this Wi-Fi: http://…/`` line
   per LAN address and a QR code of the first, for the phones' cameras. Its access log
   (``BOURRE_ACCESS_LOG=-``) ends each line with the response's ``X-Request-ID``.

Hosts (``host_allowed``): the names in DJANGO_ALLOWED_HOSTS, ``localhost``, the machine's
own name and addresses, private-range addresses (10/8, 172.16/12, 192.168/16, 169.254/16,
fd00::/8, loopback) and ``.local`` names. Anything else (a public name pointed at the
machine: DNS rebinding) gets Django's plain 400, as a host outside ALLOWED_HOSTS would.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import ipaddress
import os
import secrets
import socket
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse
from django.http.request import split_domain_port, validate_host

from bourre_site.metrics_dir import metrics_folder

BASE_DIR = Path(__file__).resolve().parent.parent
SECRET_FILE = BASE_DIR / ".secret_key"

PRIVATE_NETWORKS = tuple(
    ipaddress.ip_network(n)
    for n in (
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "169.254.0.0/16",
        "fd00::/8",
        "127.0.0.0/8",
        "::1/128",
    )
)


# -- which addresses and hosts -------------------------------------------------------------


@functools.cache
def own_addresses() -> tuple[str, ...]:
    """This machine's IP addresses (loopback included), as far as the standard library
    can tell without extra packages: the address of the interface that routes outwards
    (a UDP "connect" sends nothing) and whatever the host name resolves to."""
    found: list[str] = []
    for family, probe in ((socket.AF_INET, "10.255.255.255"), (socket.AF_INET6, "fd00::1")):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))
                found.append(s.getsockname()[0])
        except OSError:
            pass  # no route of that family: nothing to add
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None)
    except OSError:
        infos = []
    found += [str(info[4][0]) for info in infos]
    found += ["127.0.0.1", "::1"]
    out: list[str] = []
    for a in found:
        a = a.split("%")[0]  # a link-local IPv6 address's zone
        if a not in out:
            out.append(a)
    return tuple(out)


def lan_addresses(addresses: Iterable[str] | None = None) -> list[str]:
    """The addresses phones can reach: no loopback, IPv4 first (easier to type)."""
    ips = [ipaddress.ip_address(a) for a in (own_addresses() if addresses is None else addresses)]
    usable = [ip for ip in ips if not ip.is_loopback and not ip.is_unspecified]
    return [str(ip) for ip in sorted(usable, key=lambda ip: (ip.version, str(ip)))]


def url_of(address: str, port: int) -> str:
    host = f"[{address}]" if ":" in address else address
    return f"http://{host}:{port}/"


def host_allowed(domain: str, listed: Iterable[str], own: Iterable[str] = ()) -> bool:
    """Whether a request's host (without its port) may be served in LAN mode."""
    domain = domain.lower().rstrip(".")
    if not domain:
        return False
    if validate_host(domain, list(listed)):
        return True
    if domain == "localhost" or domain.endswith(".local"):
        return True
    if domain == socket.gethostname().lower():
        return True
    try:
        ip = ipaddress.ip_address(domain.strip("[]"))
    except ValueError:
        return False
    return str(ip) in set(own) or any(ip in net for net in PRIVATE_NETWORKS)


class LanHostMiddleware:
    """ALLOWED_HOSTS for a home network: settings puts this first in LAN mode (where
    ALLOWED_HOSTS is ``*``) so that no view, redirect or absolute URL ever sees a host
    outside the ones ``host_allowed`` accepts."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.listed = list(getattr(settings, "LAN_LISTED_HOSTS", []))

    def __call__(self, request: HttpRequest) -> HttpResponse:
        raw = request.META.get("HTTP_HOST") or request.META.get("SERVER_NAME", "")
        domain, _ = split_domain_port(raw)
        if not host_allowed(domain, self.listed, own_addresses()):
            # Answered 400 by Django, and logged as django.security.DisallowedHost.
            raise DisallowedHost(f"Invalid HTTP_HOST header: {raw!r}. Not a LAN address.")
        return self.get_response(request)


# -- the secret key ------------------------------------------------------------------------


def secret_key(path: Path = SECRET_FILE) -> str:
    """The key kept in ``path``, made (owner-readable only) on first use."""
    try:
        key = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        key = ""
    if len(key) < 50:
        key = secrets.token_urlsafe(50)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(key + "\n")
    return key


# -- static files ----------------------------------------------------------------------------

STAMP = ".bourre-collected"


def static_fingerprint() -> str:
    """What collectstatic would read: every file the finders see, by name, size and time."""
    from django.contrib.staticfiles.finders import get_finders

    digest = hashlib.sha256()
    entries = []
    for finder in get_finders():
        for name, storage in finder.list([]):
            stat = os.stat(storage.path(name))
            entries.append(f"{name}\0{stat.st_size}\0{stat.st_mtime_ns}")
    for entry in sorted(entries):
        digest.update(entry.encode())
    return digest.hexdigest()


def collect_static() -> None:
    """``collectstatic`` into STATIC_ROOT with the hashed, compressed copies, skipped when
    nothing changed since the last run (hashing and compressing every file again takes
    about 20 s on a small machine). A lock keeps two servers started at once from writing the same files."""
    from django.conf import settings
    from django.core.management import call_command

    root = Path(settings.STATIC_ROOT)
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".collect.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = root / STAMP
        fingerprint = static_fingerprint()
        manifest = root / "staticfiles.json"
        if manifest.exists() and stamp.exists() and stamp.read_text() == fingerprint:
            return
        # Said, so that the host does not take the pause for a hang.
        sys.stdout.write("Preparing the styles and scripts for the phones (once per change)…\n")
        sys.stdout.flush()
        call_command("collectstatic", "--noinput", verbosity=0)
        stamp.write_text(fingerprint)


# -- starting up ---------------------------------------------------------------------------


def banner(urls: list[str]) -> str:
    """What the host reads once the server listens: every address, a QR code of the
    first (segno draws it with characters, so any terminal shows it)."""
    import io

    import segno

    if not urls:
        return (
            "No Wi-Fi address found: connect this machine to the table's Wi-Fi, then "
            "run `make run` again.\n"
        )
    lines = [f"Phones on this Wi-Fi: {u}" for u in urls]
    out = io.StringIO()
    segno.make(urls[0], error="m").terminal(out=out, compact=True)
    return "\n".join(lines) + "\n" + out.getvalue()


def _serve(bind: str, port: int, on_ready: Callable[[], None]) -> None:
    from gunicorn.app.base import BaseApplication  # type: ignore[import-untyped]

    class Server(BaseApplication):
        def load_config(self) -> None:
            options: dict[str, Any] = {
                "bind": [f"[{bind}]:{port}" if ":" in bind else f"{bind}:{port}"],
                "workers": int(os.environ.get("WEB_CONCURRENCY", "2")),
                "threads": int(os.environ.get("BOURRE_THREADS", "4")),
                "worker_class": "gthread",
                "timeout": 60,
                "graceful_timeout": 5,
                "loglevel": os.environ.get("BOURRE_LOG_LEVEL", "warning"),
                "accesslog": os.environ.get("BOURRE_ACCESS_LOG") or None,
                "access_log_format": (
                    '%(h)s %(t)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s" %({x-request-id}o)s'
                ),
                "errorlog": "-",
                "when_ready": lambda server: on_ready(),
            }
            for key, value in options.items():
                self.cfg.set(key, value)

        def load(self) -> Any:
            from bourre_site.wsgi import application  # its start-up checks included

            return application

    Server().run()


def main() -> None:
    port = int(os.environ.get("PORT") or 8000)
    bind = os.environ.get("BIND") or "0.0.0.0"
    if not os.environ.get("DJANGO_SECRET_KEY"):
        path = Path(os.environ.get("BOURRE_SECRET_FILE") or SECRET_FILE)
        os.environ["DJANGO_SECRET_KEY"] = secret_key(path)
    if bind in ("0.0.0.0", "::"):
        # 0.0.0.0 listens on IPv4 only; "::" on both (where the system allows dual stack).
        urls = [url_of(a, port) for a in lan_addresses() if bind == "::" or ":" not in a]
    else:
        urls = [url_of(bind, port)]
    if urls:
        # The links handed to phones use it when the host's browser is on loopback
        # (settings.PHONE_BASE_URL, games/qr.py).
        os.environ["BOURRE_PHONE_URL"] = urls[0]
    os.environ["BOURRE_LAN"] = "1"
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ["DJANGO_STATIC_MANIFEST"] = "1"
    # Before Django (and prometheus_client) load: the workers forked later inherit it.
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_folder()  # a fresh one: never a stale count
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bourre_site.settings")

    import django
    from django.core.management import call_command
    from django.db import connections

    django.setup()
    call_command("migrate", "--noinput", verbosity=0)
    call_command("seed_demo", url=(urls or [url_of("127.0.0.1", port)])[0])
    collect_static()
    connections.close_all()  # the workers open their own after the fork

    def ready() -> None:
        sys.stdout.write(banner(urls))
        sys.stdout.write("Stop the server with Ctrl-C.\n")
        sys.stdout.flush()

    _serve(bind, port, ready)


if __name__ == "__main__":
    main()
