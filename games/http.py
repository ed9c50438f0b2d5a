"""Request types for annotating views: what the middleware and decorators guarantee.

``HtmxMiddleware`` (settings.MIDDLEWARE) gives every request ``htmx``; a view behind
``login_required`` only ever sees a logged-in ``user``, and so does an API view behind
DRF's ``IsAuthenticated``. Annotations only: at runtime every request is a plain
``HttpRequest`` (DRF's ``Request`` in the API).
"""

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails
from rest_framework.request import Request


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


class AuthedHttpRequest(HtmxHttpRequest):
    """The request of a ``login_required`` view."""

    user: User


class AuthedRequest(Request):
    """The request of an API view behind ``IsAuthenticated`` (the API's default permission):
    a signed-in ``user``."""

    user: User
