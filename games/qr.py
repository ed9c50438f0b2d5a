"""Links that phones open off another screen (seat links, share links): their address
and their QR code.

The address is the one the page was asked by, except on a host's own machine: under
`make run` a host who opened the app at http://127.0.0.1:8000/ would otherwise hand the
phones a loopback link they cannot open, so the Wi-Fi address the server printed
(``settings.PHONE_BASE_URL``) is used instead. The QR code is inline SVG, dark on white
whatever the theme, so every camera reads it.
"""

import ipaddress

import segno
from django.conf import settings
from django.http import HttpRequest
from django.http.request import split_domain_port


def _loopback(host: str) -> bool:
    domain, _ = split_domain_port(host)
    if domain == "localhost":
        return True
    try:
        return ipaddress.ip_address(domain.strip("[]")).is_loopback
    except ValueError:
        return False


def phone_url(request: HttpRequest, path: str) -> str:
    base = getattr(settings, "PHONE_BASE_URL", "")
    if base and _loopback(request.get_host()):
        return base.rstrip("/") + path
    return request.build_absolute_uri(path)


def qr_svg(url: str) -> str:
    return segno.make(url, error="m").svg_inline(scale=4, dark="#000", light="#fff", border=2)
