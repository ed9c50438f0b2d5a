"""The pages a person sees when a request is refused before any view answers it.

Django's own 400/403/404/500 pages are English framework text; ours (``templates/400.html``
… ``500.html``) speak the reader's language and say what to do next. The CSRF refusal has
its own view (``settings.CSRF_FAILURE_VIEW``): on a phone it means a form left open across
a sign-in or sign-out in another tab, or cookies refused — never "CSRF verification
failed". Django logs the reason (``django.security.csrf``); the page does not show it.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    return HttpResponse(render_to_string("403_csrf.html", request=request), status=403)
