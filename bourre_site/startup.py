"""Refusals at start-up: a production server never runs on the public development key.

``require_secret_key`` is called by wsgi.py, asgi.py and ``manage.py runserver``; the
system check below makes every other management command refuse too (``migrate``,
``check``...). With DJANGO_DEBUG on, the development key is allowed.
"""

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

MESSAGE = (
    "DJANGO_SECRET_KEY is not set. Outside DJANGO_DEBUG the server refuses to start on the "
    "public development key: set DJANGO_SECRET_KEY to a long random value (for example "
    "the output of: python -c 'import secrets; print(secrets.token_urlsafe(50))'), or "
    "DJANGO_DEBUG=1 on a development machine."
)


def require_secret_key() -> None:
    if getattr(settings, "SECRET_KEY_MISSING", False):
        raise ImproperlyConfigured(MESSAGE)


@checks.register(checks.Tags.security)
def secret_key_check(app_configs: object, **kwargs: object) -> list[checks.CheckMessage]:
    if getattr(settings, "SECRET_KEY_MISSING", False):
        return [checks.Error(MESSAGE, id="bourre.E001")]
    return []
