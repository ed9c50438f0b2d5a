"""Outbound HTTP that cannot be turned inward: the guard of webhook URLs (issue #33).

A webhook URL is a stranger's input that this server will request, so it is checked twice,
by the same rules: when it is registered (`check_url`, games.api.webhooks) and again at
every delivery (`post`, games.api.outbox), because what a name resolves to can change.

The rules (`target`, `allowed`):
- `https://` only (`http://` too with settings.WEBHOOK_ALLOW_HTTP); no user name or
  password in the URL; the scheme's default port only (443, or 80 for http), unless
  settings.WEBHOOK_ALLOW_PRIVATE is on;
- the host is refused when it is, or resolves to, an address that is not globally
  reachable: loopback, private (RFC 1918), link-local, carrier-grade NAT (100.64/10),
  unique-local, and the rest of IANA's special-purpose registry (``ipaddress``'s
  ``is_global``); IPv4 written inside IPv6 (``::ffff:127.0.0.1``, ``::127.0.0.1``, 6to4
  ``2002::/16`` and NAT64 ``64:ff9b::/96``) is judged by the IPv4 address it carries;
- always refused, whatever the settings: unspecified, multicast, reserved and broadcast
  addresses, ``0.0.0.0/8``, Teredo (``2001::/32``: its far end cannot be seen), cloud
  metadata addresses (`METADATA_ADDRESSES`) and names (`METADATA_NAMES`);
- with settings.WEBHOOK_ALLOW_PRIVATE (a LAN install whose receivers are on the LAN, and
  tests with a local receiver) the addresses that are merely not global are allowed, and
  so are names such as ``localhost``, ``*.local`` and ``*.internal`` and any port.

At registration a name that does not resolve (yet) is accepted: the delivery checks it
again and records "host name not found". At delivery the host is resolved once, every
address it resolves to is checked (one refused address refuses them all), and the socket
connects to a checked address while the request names the host (``Host`` header, TLS SNI
and certificate check), so a second answer of the resolver (DNS rebinding) is never used.
Redirects are not followed (games.api.outbox counts a 3xx as a failure).

Each delivery has an overall deadline (``deadline``, default ``DEADLINE`` seconds): the
socket's own timeout is per read, so a receiver that dribbles its answer a byte at a time
could otherwise hold a worker for as long as it likes. Past the deadline a watchdog shuts
the socket and the delivery is a "timeout".

A failure is a category (`DeliveryFailed.category`, one of WebhookDelivery.Error), never
the socket's text: what a receiver's network answers is no port scanner for club owners.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from django.conf import settings

from games.models import WebhookDelivery

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# What may stay as written in a path or query (RFC 3986's reserved and unreserved, and %).
_PATH_SAFE = "/%?=&:@!$'()*+,;~-._"
Error = WebhookDelivery.Error

# Names that cloud metadata services answer to (GCP, AWS, Equinix Metal, Tencent Cloud).
METADATA_NAMES = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.packet.net",
        "metadata.platformequinix.com",
        "metadata.tencentyun.com",
    }
)
# Names that are private by definition (RFC 6761 localhost, mDNS .local, ICANN's .internal,
# RFC 8375 home.arpa, the common .lan): refused unless private addresses are allowed.
PRIVATE_SUFFIXES = ("localhost", "local", "internal", "home.arpa", "lan")

_NETWORKS = ipaddress.ip_network
# Refused whatever the settings. Metadata services: AWS, GCP, Azure, Oracle, OpenStack and
# DigitalOcean (169.254.169.254, AWS's IPv6 fd00:ec2::254), AWS ECS (169.254.170.2), the
# AWS resolver (169.254.169.253), Azure's wire server (a public address: 168.63.129.16),
# Alibaba (100.100.100.200).
METADATA_ADDRESSES = tuple(
    _NETWORKS(n)
    for n in (
        "169.254.169.254/32",
        "169.254.169.253/32",
        "169.254.170.2/32",
        "168.63.129.16/32",
        "100.100.100.200/32",
        "fd00:ec2::254/128",
    )
)
_NEVER = (
    *METADATA_ADDRESSES,
    _NETWORKS("0.0.0.0/8"),  # "this network": 0.0.0.1 reaches the server itself on Linux
    _NETWORKS("255.255.255.255/32"),
    _NETWORKS("2001::/32"),  # Teredo
    _NETWORKS("64:ff9b:1::/48"),  # local-use NAT64: the IPv4 behind it is the operator's
    # IETF protocol assignments and the 6to4 relay anycast: "global" to ipaddress before
    # Python 3.12.4 (192.0.0.8, 192.88.99.1), never a club's receiver.
    _NETWORKS("192.0.0.0/24"),
    _NETWORKS("192.88.99.0/24"),
)
_NAT64 = _NETWORKS("64:ff9b::/96")
_IPV4_COMPATIBLE = _NETWORKS("::/96")


class UrlRefused(ValueError):
    """A URL the guard refuses; `code` names the rule (the API's error code)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class DeliveryFailed(Exception):
    """No usable answer; `category` is a WebhookDelivery.Error value."""

    def __init__(self, category: str) -> None:
        super().__init__(category)
        self.category = category


@dataclass(frozen=True)
class Target:
    """A URL taken apart: `host` as written (for Host and SNI), the port, the request path."""

    scheme: str
    host: str
    port: int
    path: str


def _allow_private() -> bool:
    return bool(getattr(settings, "WEBHOOK_ALLOW_PRIVATE", False))


def _embedded(ip: IPAddress) -> IPAddress:
    """The IPv4 address an IPv6 one carries (mapped, compatible, 6to4, NAT64), else `ip`."""
    if isinstance(ip, ipaddress.IPv4Address):
        return ip
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64 or (ip in _IPV4_COMPATIBLE and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def allowed(ip: IPAddress, allow_private: bool | None = None) -> bool:
    """Whether a webhook may connect to `ip` (see the module doc)."""
    if allow_private is None:
        allow_private = _allow_private()
    if any(ip in net for net in _NEVER):
        return False
    inner = _embedded(ip)
    if inner is not ip:
        return allowed(inner, allow_private)  # judged by the IPv4 address it carries
    if ip.is_unspecified or ip.is_multicast:
        return False
    if ip.is_loopback:  # before is_reserved: ipaddress counts ::1 in the reserved ::/8
        return allow_private
    if ip.is_reserved:
        return False
    # Deprecated site-local fec0::/10 is "global" to ipaddress before Python 3.12.4.
    site_local = isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local
    return (ip.is_global and not site_local) or allow_private


def _name_refused(host: str, allow_private: bool) -> bool:
    if host in METADATA_NAMES:
        return True
    private = any(host == s or host.endswith("." + s) for s in PRIVATE_SUFFIXES)
    return private and not allow_private


def target(url: str) -> Target:
    """The URL's parts, or UrlRefused when its form breaks a rule (addresses unresolved)."""
    try:
        parts = urlsplit(url)
    except ValueError:  # an unclosed "[" and the like
        raise UrlRefused("address_not_allowed") from None
    scheme = parts.scheme.lower()
    allow_private = _allow_private()
    if scheme != "https" and not (
        scheme == "http" and getattr(settings, "WEBHOOK_ALLOW_HTTP", False)
    ):
        raise UrlRefused("https_required")
    if "@" in parts.netloc:
        raise UrlRefused("userinfo_not_allowed")
    host = (parts.hostname or "").rstrip(".")
    if not host or "%" in host or _name_refused(host, allow_private):
        raise UrlRefused("address_not_allowed")
    try:
        port = parts.port
    except ValueError:
        raise UrlRefused("port_not_allowed") from None
    default = 443 if scheme == "https" else 80
    if port not in (None, default) and not allow_private:
        raise UrlRefused("port_not_allowed")
    try:
        literal: IPAddress | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None and not allowed(literal, allow_private):
        raise UrlRefused("address_not_allowed")
    # Percent-encoded as a browser would: http.client sends ASCII only, and a path it
    # cannot encode must not fail at delivery (it would stop every club's batch).
    path = quote(parts.path or "/", safe=_PATH_SAFE)
    if parts.query:
        path += "?" + quote(parts.query, safe=_PATH_SAFE)
    return Target(scheme, host, port or default, path)


def addresses(where: Target) -> list[IPAddress]:
    """Every address the host resolves to, each checked: UrlRefused when one is refused,
    DeliveryFailed(dns) when there is none."""
    try:
        infos = socket.getaddrinfo(where.host, where.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):  # gaierror, or a name IDNA cannot encode
        raise DeliveryFailed(Error.DNS) from None
    found: list[IPAddress] = []
    for info in infos:
        ip = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if ip not in found:
            found.append(ip)
    if not found:
        raise DeliveryFailed(Error.DNS)
    allow_private = _allow_private()
    if not all(allowed(ip, allow_private) for ip in found):
        raise UrlRefused("address_not_allowed")
    return found


def check_url(url: str) -> None:
    """Registration's check: UrlRefused if the URL or an address it resolves to is refused.
    A name that does not resolve is let through; every delivery checks it again."""
    where = target(url)
    with contextlib.suppress(DeliveryFailed):
        addresses(where)


def category(exc: BaseException) -> str:
    """The WebhookDelivery.Error of a network failure (its text is never kept)."""
    if isinstance(exc, DeliveryFailed):
        return exc.category
    if isinstance(exc, UrlRefused):
        return str(Error.ADDRESS)
    if isinstance(exc, socket.gaierror):
        return str(Error.DNS)
    if isinstance(exc, TimeoutError):  # socket.timeout, TLS handshake timeouts too
        return str(Error.TIMEOUT)
    if isinstance(exc, ssl.SSLError | ssl.CertificateError):
        return str(Error.TLS)
    if isinstance(exc, ConnectionRefusedError):
        return str(Error.REFUSED)
    return str(Error.CONNECTION)


def tls_context() -> ssl.SSLContext:
    """Certificates are checked against the host's name (tests swap in their own CA)."""
    return ssl.create_default_context()


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """Connects to `ip`, an address that was checked, while the request names `host`."""

    def __init__(self, host: str, port: int, ip: IPAddress, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.ip = ip

    def connect(self) -> None:
        self.sock = socket.create_connection((str(self.ip), self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """The TLS twin: the socket goes to `ip`; SNI and the certificate check use `host`."""

    def __init__(self, host: str, port: int, ip: IPAddress, timeout: float) -> None:
        self.tls = tls_context()
        super().__init__(host, port, timeout=timeout, context=self.tls)
        self.ip = ip

    def connect(self) -> None:
        raw = socket.create_connection((str(self.ip), self.port), self.timeout)
        try:
            self.sock = self.tls.wrap_socket(raw, server_hostname=self.host)
        except BaseException:
            raw.close()
            raise


def _connected(where: Target, ips: list[IPAddress], timeout: float) -> http.client.HTTPConnection:
    """A connection to the first checked address that answers (in the resolver's order)."""
    failure: OSError | None = None
    for ip in ips:
        # An IPv4-mapped address is its IPv4 address: no dual-stack socket needed.
        to = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped else ip
        connection: http.client.HTTPConnection
        if where.scheme == "https":
            connection = _PinnedHTTPSConnection(where.host, where.port, to, timeout)
        else:
            connection = _PinnedHTTPConnection(where.host, where.port, to, timeout)
        try:
            connection.connect()
            return connection
        except ssl.SSLError:
            connection.close()
            raise  # the host answered, with a certificate that does not fit: no other try
        except OSError as exc:
            connection.close()
            failure = exc
    assert failure is not None  # `addresses` never returns an empty list
    raise failure


DEADLINE = 10.0  # seconds for a whole delivery: connecting, sending, the answer's head


def post(
    url: str, body: bytes, headers: dict[str, str], timeout: float, deadline: float | None = None
) -> int:
    """POST `body` to `url` through the guard; the status code (a 3xx is returned, not
    followed). Raises DeliveryFailed with the category of what went wrong; "timeout" when
    a read waits longer than `timeout` or the whole delivery takes longer than `deadline`."""
    started = time.monotonic()
    deadline = DEADLINE if deadline is None else deadline
    try:
        where = target(url)
        ips = addresses(where)
        connection = _connected(where, ips, min(timeout, deadline))
    except (OSError, UrlRefused) as exc:
        raise DeliveryFailed(category(exc)) from None
    left = deadline - (time.monotonic() - started)
    expired = threading.Event()

    def cut() -> None:
        expired.set()
        if connection.sock is not None:
            with contextlib.suppress(OSError):
                connection.sock.shutdown(socket.SHUT_RDWR)

    watchdog = threading.Timer(max(left, 0.0), cut)
    watchdog.daemon = True
    watchdog.start()
    try:
        connection.request("POST", where.path, body=body, headers=headers)
        with connection.getresponse() as response:
            status = response.status
    except (OSError, http.client.HTTPException) as exc:
        raise DeliveryFailed(str(Error.TIMEOUT) if expired.is_set() else category(exc)) from None
    except (ValueError, UnicodeError):  # a request http.client cannot send: one endpoint's
        raise DeliveryFailed(Error.CONNECTION) from None  # failure, never the batch's
    finally:
        watchdog.cancel()
        connection.close()
    if expired.is_set():  # a head cut short can still parse: it is no answer
        raise DeliveryFailed(Error.TIMEOUT)
    return status
