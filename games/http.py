"""Request types for annotating views: what the middleware and decorators guarantee.

``HtmxMiddleware`` (settings.MIDDLEWARE) gives every request ``htmx``; a view behind
``login_required`` only ever sees a logged-in ``user``. Annotations only: at runtime every
request is a plain ``HttpRequest``.
"""

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


class AuthedHttpRequest(HtmxHttpRequest):
    """The request of a ``login_required`` view."""

    user: User
