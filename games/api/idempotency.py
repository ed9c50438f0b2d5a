"""`Idempotency-Key` for every write of the API, like Stripe's.

- A key is 1–80 printable ASCII characters, chosen by the client, one per intended
  change. It belongs to the user and the token the request came with.
- The first request with a key is processed; a 2xx response is stored with the key, in
  the same transaction as the change it made. A later request with the same key and the
  same request (method, path and body: the *fingerprint*) gets the stored response again,
  with `Idempotent-Replayed: true`, and changes nothing.
- The same key with a different request is refused: 422 `idempotency_key_reused`.
- While the first request is still running, a second one gets 409
  `idempotency_key_in_use` (with `Retry-After: 1`): retry it a moment later, and it gets
  the first one's response (or, if the first failed, is done itself). On PostgreSQL the
  409 is immediate (a transaction advisory lock on the key); on SQLite, which runs one
  write transaction at a time, the second request waits for the first and then gets its
  response.
- Nothing of a key outlives a request that did not finish (issue #33): the key is
  written only with the response, in the change's own transaction, so a worker killed
  mid-write or a dropped database connection rolls back both, and the retry with the
  same key does the change exactly once, as soon as the database has noticed (at once
  on a lost connection). A key left without a response by the code before (it claimed
  keys in a transaction of their own) is taken over after `STRANDED_AFTER` (30 s).
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
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework.request import Request
from rest_framework.response import Response

from games.api.errors import Problem, field_problem
from games.http import AuthedRequest
from games.models import ApiToken, IdempotencyRecord

KEEP = timedelta(hours=24)
# A claim row without a response, left by the code before issue #33 (it committed the
# claim before the write), is taken over after this long.
STRANDED_AFTER = timedelta(seconds=30)
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


def _in_use() -> Problem:
    return Problem(
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


def _first_to_hold(scope: str, key: str) -> bool:
    """Whether no other transaction is working on this key now (PostgreSQL: a transaction
    advisory lock, released at commit, at rollback and when the connection dies, so a
    killed worker holds nothing). Other databases run one write transaction at a time
    (SQLite's IMMEDIATE transactions, bourre_site.settings): the second waits its turn.

    The one statement of the games app outside games.sql: a PostgreSQL function call
    that reads no table, so it has no ORM equivalent to test against."""
    if connection.vendor != "postgresql":
        return True
    digest = hashlib.sha256(f"{scope}\n{key}".encode()).digest()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_try_advisory_xact_lock(%s)", [int.from_bytes(digest[:8], "big", signed=True)]
        )
        row = cursor.fetchone()
    return bool(row and row[0])


def _answered(request: AuthedRequest, scope: str, key: str, print_: str) -> Response | None:
    """The answer to a request that already used this key, or None when it is free."""
    now = timezone.now()
    kept = IdempotencyRecord.objects.filter(scope=scope, key=key, created_at__gte=now - KEEP)
    existing = kept.first()
    if existing is None:
        return None
    if existing.status is None:
        # A claim committed on its own by the code before issue #33: its request may still
        # run (an old worker during an upgrade) for a moment, or it died.
        if existing.created_at > now - STRANDED_AFTER:
            raise _in_use()
        existing.delete()
        return None
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
    return Response(
        existing.body, status=existing.status, headers={**existing.headers, REPLAYED: "true"}
    )


def idempotent(handler: Callable[..., Response], key: str) -> Callable[..., Response]:
    """`handler` (a bound view method) run at most once per key (see the module doc)."""

    @wraps(handler)
    def run(request: AuthedRequest, *args: Any, **kwargs: Any) -> Response:
        scope = _scope(request)
        print_ = fingerprint(request)
        # Outside the write's transaction: deleting rows another request of the user is
        # deleting would make the two wait for each other.
        IdempotencyRecord.objects.filter(
            user=request.user, created_at__lt=timezone.now() - KEEP
        ).delete()
        # One transaction for the key and the change: a crash (a killed worker, a dropped
        # connection) rolls both back, so the retry finds the key free and does the change.
        with transaction.atomic():
            if not _first_to_hold(scope, key):
                raise _in_use()
            answered = _answered(request, scope, key, print_)
            if answered is not None:
                return answered
            response = handler(request, *args, **kwargs)
            if 200 <= response.status_code < 300:
                try:
                    with transaction.atomic():
                        IdempotencyRecord.objects.create(
                            user=request.user,
                            scope=scope,
                            key=key,
                            fingerprint=print_,
                            status=response.status_code,
                            body=json.loads(json.dumps(response.data, cls=DjangoJSONEncoder)),
                            headers={h: response[h] for h in _KEPT_HEADERS if h in response},
                        )
                except IntegrityError:
                    # Only a claim of the former code can get here (the lock above keeps
                    # two of ours apart): undo this change, the client retries.
                    raise _in_use() from None
            return response  # an error response keeps nothing: the key may be used again

    return run
