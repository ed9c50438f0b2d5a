"""The WSGI application bench/load.py runs under gunicorn: the app itself plus a bare
"ok" view (``/bench/ok/``) behind the same middleware, the floor its figures are compared
with. Not a benchmark (``make bench`` skips files starting with ``_``)."""

from __future__ import annotations

import importlib
import os
import sys
import types

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bourre_site.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.urls import include, path  # noqa: E402

urls = types.ModuleType("bench_serve_urls")
urls.urlpatterns = [  # type: ignore[attr-defined]
    path("bench/ok/", lambda request: HttpResponse("ok")),
    path("", include("bourre_site.urls")),
]
# The site's error handlers too (the outage's 503 is handler500): they live on the root
# URLconf, which this one replaces.
site_urls = importlib.import_module("bourre_site.urls")
for handler in ("handler400", "handler403", "handler404", "handler500"):
    if hasattr(site_urls, handler):
        setattr(urls, handler, getattr(site_urls, handler))
sys.modules["bench_serve_urls"] = urls
settings.ROOT_URLCONF = "bench_serve_urls"
application = get_wsgi_application()
