"""`Idempotency-Key` for every write of the API, like Stripe's.

- A key is 1–80 printable ASCII characters, chosen by the client, one per intended
  change. It belongs to the user and the token the request came with.
- The first request with a key is processed; a 2xx response is stored with the key, in
  the same transaction as the change it made. A later request with the same key and the
  same request (method, path and body: the *fingerprint*) gets the stored response again,
  with `Idempotent-Replayed: true`, and changes nothing.
- The same key with a different request is refused: 422 `idempotency_key_reused`.
- While the first request is still running, a second one gets 409
  `idempotency_key_in_use` (with Retry-After): retry it a moment later.
- An error response is not stored: fix the request and send it again with the same key.
- Keys are kept for at least `KEEP` (24 hours), then forgotten (a user's expired keys are
  removed when they next use a key).
"""

import hashlib
import json
from collections.abc import Callable
from datetime import timedelta
from functools import wraps
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework.request import Request
from rest_framework.response import Response

from games.api.errors import Problem, field_problem
from games.http import AuthedRequest
from games.models import ApiToken, IdempotencyRecord

KEEP = timedelta(hours=24)
KEY_MAX = 80
HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
# Response headers worth replaying (the body's own Content-Type comes from the renderer).
_KEPT_HEADERS = ("Location", "ETag")


def valid_key(key: str) -> bool:
    return 1 <= len(key) <= KEY_MAX and all("\x21" <= c <= "\x7e" for c in key)


def check_key(key: str) -> str:
    if not valid_key(key):
        raise field_problem(
            HEADER,
            "bad_idempotency_key",
            _("Use 1 to %(max)s printable ASCII characters.") % {"max": KEY_MAX},
        )
    return key


def fingerprint(request: Request) -> str:
    """What the key is bound to: the method, the path and the parsed body."""
    data = request.data
    if hasattr(data, "dict"):  # a QueryDict (form posts)
        data = data.dict()
    body = json.dumps(data, sort_keys=True, separators=(",", ":"), cls=DjangoJSONEncoder)
    return hashlib.sha256(f"{request.method} {request.path}\n{body}".encode()).hexdigest()


def _scope(request: Request) -> str:
    token = request.auth if isinstance(request.auth, ApiToken) else None
    return f"{request.user.pk}:{token.pk if token else '-'}"


def _claim(request: AuthedRequest, key: str) -> IdempotencyRecord | Response:
    """A new record for this key, or the answer to a request that already used it."""
    scope = _scope(request)
    print_ = fingerprint(request)
    now = timezone.now()
    IdempotencyRecord.objects.filter(user=request.user, created_at__lt=now - KEEP).delete()
    try:
        with transaction.atomic():
            return IdempotencyRecord.objects.create(
                user=request.user, scope=scope, key=key, fingerprint=print_, created_at=now
            )
    except IntegrityError:
        pass
    existing = IdempotencyRecord.objects.filter(scope=scope, key=key).first()
    if existing is None:  # the first request failed and let the key go a moment ago
        raise Problem(
            409,
            _("This Idempotency-Key was just released; send the request again."),
            errors=[{"code": "idempotency_key_in_use", "message": _("Try again.")}],
            headers={"Retry-After": "1"},
        )
    if existing.fingerprint != print_:
        raise Problem(
            422,
            _("This Idempotency-Key was already used for a different request."),
            title=_("Idempotency key reused"),
            type="urn:bourre:problem:idempotency-key-reused",
            errors=[
                {
                    "code": "idempotency_key_reused",
                    "message": _(
                        "Use a new key for a new request; a key is bound to its "
                        "method, path and body."
                    ),
                    "field": HEADER,
                }
            ],
        )
    if existing.status is None:
        raise Problem(
            409,
            _("A request with this Idempotency-Key is still being processed."),
            errors=[
                {
                    "code": "idempotency_key_in_use",
                    "message": _("Wait for the first request, then retry."),
                    "field": HEADER,
                }
            ],
            headers={"Retry-After": "1"},
        )
    return Response(
        existing.body, status=existing.status, headers={**existing.headers, REPLAYED: "true"}
    )


def idempotent(handler: Callable[..., Response], key: str) -> Callable[..., Response]:
    """`handler` (a bound view method) run at most once per key (see the module doc)."""

    @wraps(handler)
    def run(request: AuthedRequest, *args: Any, **kwargs: Any) -> Response:
        claimed = _claim(request, key)
        if isinstance(claimed, Response):
            return claimed
        try:
            with transaction.atomic():
                response = handler(request, *args, **kwargs)
                if 200 <= response.status_code < 300:
                    body = json.loads(json.dumps(response.data, cls=DjangoJSONEncoder))
                    claimed.status = response.status_code
                    claimed.body = body
                    claimed.headers = {h: response[h] for h in _KEPT_HEADERS if h in response}
                    claimed.save(update_fields=["status", "body", "headers"])
                    return response
        except BaseException:
            claimed.delete()
            raise
        claimed.delete()  # not a success: the key may be used again
        return response

    return run
