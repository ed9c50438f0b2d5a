"""What every self-refreshing page shares: htmx polls send the ETag they were rendered
with (`If-None-Match` in hx-headers) and get 304 with no body while nothing changed."""

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_vary_headers
from django.utils.http import parse_etags


def etag_matches(request: HttpRequest, etag: str) -> bool:
    return etag in parse_etags(request.headers.get("If-None-Match", ""))


def live(response: HttpResponse, etag: str) -> HttpResponse:
    """Tag a polled response. Never stored: a browser cache would turn the 304s into 200s
    with a cached body, and htmx would swap the same content again."""
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-store"
    patch_vary_headers(response, ["HX-Request"])
    return response


def not_modified(etag: str) -> HttpResponse:
    return live(HttpResponseNotModified(), etag)
