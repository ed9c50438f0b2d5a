"""The installable app: the web app manifest, the service worker and the offline page.

- ``/manifest.webmanifest``: name, colours and the icons in ``static/img`` (all local).
- ``/sw.js``: ``static/js/sw.js`` served from the site's root, so that its scope is the
  whole app (a worker under ``/static/`` could control only ``/static/``). The view puts
  one line before the file: the release (a hash of the static files, so that a new
  release gets a new cache and the old one is deleted) and the URLs of the app shell
  it caches — through ``static()``, so they are the hashed names in production.
- ``/favicon.ico``: a redirect to the SVG icon, for a browser or a bookmark that asks
  for the icon at the root without reading the page's ``<link rel="icon">``.
- ``/offline/``: the page the worker shows for a page it cannot reach. It stands alone
  (no user menu), because the worker keeps one copy for every user of the phone.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import path, reverse

from games.error_pages import require_safe

# What the worker keeps for working offline: the looks, the scripts, the icons.
SHELL_STATIC = (
    "css/app.css",
    "js/app.js",
    "js/record.js",
    "js/queue.js",
    "js/digital.js",
    "django_htmx/htmx-2.min.js",
    "img/favicon.svg",
    "img/icon-192.png",
    "img/icon-512.png",
)

ICONS = (
    ("img/icon-192.png", "192x192", "any"),
    ("img/icon-512.png", "512x512", "any"),
    ("img/icon-maskable-512.png", "512x512", "maskable"),
)

THEME = "#0f5132"
BACKGROUND = "#f6f5f1"


@lru_cache(maxsize=1)
def release() -> str:
    """A short hash of every file under ``static/``: it changes with any release that
    changes what the worker caches."""
    digest = hashlib.sha256()
    for folder in settings.STATICFILES_DIRS:
        root = Path(folder)
        for file in sorted(p for p in root.rglob("*") if p.is_file()):
            digest.update(str(file.relative_to(root)).encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()[:12]


@lru_cache(maxsize=1)
def _worker_source() -> str:
    found = finders.find("js/sw.js")
    if not found:
        raise FileNotFoundError("static/js/sw.js")
    return Path(str(found)).read_text(encoding="utf-8")


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    config = {
        "release": release(),
        "shell": [static(name) for name in SHELL_STATIC],
        "offline": reverse("offline"),
    }
    body = f"self.BOURRE = {json.dumps(config)};\n{_worker_source()}"
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    # The browser checks for a new worker on every visit; no copy may stand in for it.
    response["Cache-Control"] = "no-cache"
    return response


@require_safe
def manifest(request: HttpRequest) -> JsonResponse:
    data = {
        "name": "Bourré books",
        "short_name": "Bourré",
        "description": "The books of home Bourré games and tournaments.",
        "start_url": reverse("home"),
        "scope": "/",
        "display": "standalone",
        "background_color": BACKGROUND,
        "theme_color": THEME,
        "icons": [
            {"src": static(src), "sizes": sizes, "type": "image/png", "purpose": purpose}
            for src, sizes, purpose in ICONS
        ],
    }
    response = JsonResponse(data, content_type="application/manifest+json")
    response["Cache-Control"] = "public, max-age=3600"
    return response


@require_safe
def offline(request: HttpRequest) -> HttpResponse:
    return render(request, "offline.html")


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))


urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("sw.js", service_worker, name="service_worker"),
    path("manifest.webmanifest", manifest, name="web_manifest"),
    path("offline/", offline, name="offline"),
]
