"""The WSGI application bench/load.py runs under gunicorn (and bench/floor.py in one
process): the app itself plus three reference views behind the same settings and
middleware, the yardsticks issue #31's targets are stated against. Not a benchmark
(``make bench`` skips files starting with ``_``).

- ``/bench/ok/``: a bare "ok" (routing and middleware alone);
- ``/bench/insert/`` (b): login required, a POST doing one ORM INSERT (a ``Player`` of
  the posted club) and rendering a small template;
- ``/bench/form/`` (c): the same behind a 6-field Django form.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
import uuid

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bourre_site.settings")

import django  # noqa: E402

django.setup()

from django import forms  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth.decorators import login_required  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.http import HttpRequest, HttpResponse  # noqa: E402
from django.template import engines  # noqa: E402
from django.urls import include, path  # noqa: E402

SMALL = engines["django"].from_string(
    "<!doctype html><title>Saved</title><p>{{ player.name }} saved in "
    "{{ player.club_id }}.</p><p>{{ note }}</p>"
)


class ReferenceForm(forms.Form):
    """Six fields, as many kinds as the record form's: text, integers, a choice, a flag."""

    name = forms.CharField(max_length=40)
    club = forms.IntegerField(min_value=1)
    trump = forms.ChoiceField(choices=[(s, s) for s in "SHDC"])
    tricks = forms.IntegerField(min_value=0, max_value=5)
    note = forms.CharField(max_length=80, required=False)
    confirmed = forms.BooleanField(required=False)


def _insert(request: HttpRequest, club_id: int, note: str = "") -> HttpResponse:
    from games.models import Player

    player = Player.objects.create(club_id=club_id, name=uuid.uuid4().hex[:24])
    return HttpResponse(SMALL.render({"player": player, "note": note}, request))


@login_required
def insert_view(request: HttpRequest) -> HttpResponse:
    """(b) one ORM INSERT and a small template, signed in."""
    if request.method != "POST":
        return HttpResponse(status=405)
    return _insert(request, int(request.POST["club"]))


@login_required
def form_view(request: HttpRequest) -> HttpResponse:
    """(c) (b) behind a 6-field Django form."""
    if request.method != "POST":
        return HttpResponse(status=405)
    form = ReferenceForm(request.POST)
    if not form.is_valid():
        return HttpResponse(form.errors.as_text(), status=422)
    return _insert(request, form.cleaned_data["club"], form.cleaned_data["note"])


def reference_form_data(club_id: int) -> dict[str, str]:
    """What (b) and (c) are posted (b reads the club alone)."""
    return {"name": "x", "club": str(club_id), "trump": "S", "tricks": "3", "note": "n",
            "confirmed": "on"}  # fmt: skip


urls = types.ModuleType("bench_serve_urls")
urls.urlpatterns = [  # type: ignore[attr-defined]
    path("bench/ok/", lambda request: HttpResponse("ok")),
    path("bench/insert/", insert_view),
    path("bench/form/", form_view),
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
