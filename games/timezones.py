"""A club's time zone: its pages show times in it (with the zone's name), its CSVs write
timestamps in ISO 8601 with its offset.

The zone is chosen when the club is created (the form starts from the browser's zone)
and may be changed with the club's settings; an empty zone is the server's
(``DJANGO_TIME_ZONE``). The access helpers (``games.access``) activate the zone of the
club a request reads, and ``ResetTimeZoneMiddleware`` deactivates it when the request
ends, so a zone never leaks into the next request served by the same thread.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from datetime import datetime, tzinfo
from functools import cache

from django.http import HttpRequest, HttpResponseBase
from django.utils import timezone

__all__ = ["ResetTimeZoneMiddleware", "activate", "choices", "iso", "zone"]


@cache
def _names() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def choices() -> list[tuple[str, str]]:
    """Every IANA zone, for the club form, "Region/City" shown as "Region / City"."""
    return [(name, name.replace("_", " ").replace("/", " / ")) for name in sorted(_names())]


def zone(name: str | None) -> tzinfo:
    """The zone of that name, or the server's when it is empty or unknown."""
    if name and name in _names():
        return zoneinfo.ZoneInfo(name)
    return timezone.get_default_timezone()


def activate(name: str | None) -> None:
    timezone.activate(zone(name))


def iso(moment: datetime | None, name: str | None = None) -> str:
    """ISO 8601 with the offset of the zone (the active one when no name is given)."""
    if moment is None:
        return ""
    tz = zone(name) if name is not None else timezone.get_current_timezone()
    return timezone.localtime(moment, tz).isoformat(timespec="seconds")


class ResetTimeZoneMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
