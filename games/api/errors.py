"""API errors as RFC 9457 problem details (`application/problem+json`).

Every error of the API has the same shape::

    {"type": "...", "title": "...", "status": 400, "detail": "...", "errors": [...]}

`errors` is a list of `{code, message, field?, ...}`: field errors of an input serializer
(`field` is a dotted path such as `rules.ante` or `players.2`), or the engine's errors for
a hand (which may also name `player`, `card`, `trick`). Problems may carry extension
members (`current_version` on a stale write, `verdict` on a rejected hand).

The handler is the API's one place that maps the project's refusals (`BourreError`), so
an API view can call `ledger.postings` and let them propagate: `HandRejected`,
`SetupError` and the engine's `RuleError` → 400; `StaleState`, `SessionClosed` and
`VoidRefused` → 409, each with its own problem type; any other `BourreError` → its
`status`, with its `code` and `field`.

Language (issue 19): `title`, `detail` and each error's `message` are in the request's
language (Accept-Language, or the saved choice of a signed-in browser session; unknown
languages get English), and the response says which in `Content-Language` (set by
games.language.PreferredLanguageMiddleware, Django's LocaleMiddleware). The engine's and
the ledger's refusals are rendered by `games.messages` from their `message_id` and
`params` (also the errors of the public verifier's 400, `translated_errors`); `code`,
`type` and `field` never change with the language. A serializer's field errors are the
API's own sentences or DRF's, and DRF's are in the project's catalogues
(games/api/drf_words.py), so Albanian and Sundanese readers get them too. The OpenAPI
document's descriptions (help_text) are lazy: English when generated in English.
"""

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.defaults import page_not_found
from rest_framework import exceptions, status
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import set_rollback

from games.engine import RuleError
from games.engine.errors import BourreError
from games.messages import render, render_error
from ledger import postings

logger = logging.getLogger(__name__)

PROBLEM_MEDIA_TYPE = "application/problem+json"
# `type` of the problems this API defines; plain HTTP errors use "about:blank" (RFC 9457).
TYPE_VALIDATION = "urn:bourre:problem:validation"
TYPE_HAND_REJECTED = "urn:bourre:problem:hand-rejected"
TYPE_INVALID_RECORD = "urn:bourre:problem:invalid-record"
TYPE_STALE_STATE = "urn:bourre:problem:stale-state"
TYPE_SESSION_CLOSED = "urn:bourre:problem:session-closed"
TYPE_VOID_REFUSED = "urn:bourre:problem:void-refused"
TYPE_THROTTLED = "urn:bourre:problem:throttled"
TYPE_TOO_LARGE = "urn:bourre:problem:too-large"
TYPE_CHAIN_BROKEN = "urn:bourre:problem:chain-broken"
TYPE_INTERNAL = "urn:bourre:problem:internal"
TYPE_UNAVAILABLE = "urn:bourre:problem:unavailable"
RETRY_AFTER_SECONDS = 15

_TITLES = {
    400: gettext_lazy("Bad request"),
    401: gettext_lazy("Authentication required"),
    403: gettext_lazy("Forbidden"),
    404: gettext_lazy("Not found"),
    405: gettext_lazy("Method not allowed"),
    406: gettext_lazy("Not acceptable"),
    409: gettext_lazy("Conflict"),
    412: gettext_lazy("Precondition failed"),
    413: gettext_lazy("Request body too large"),
    415: gettext_lazy("Unsupported media type"),
    422: gettext_lazy("Unprocessable request"),
    429: gettext_lazy("Too many requests"),
    500: gettext_lazy("Internal error"),
}


class ProblemJSONRenderer(JSONRenderer):
    media_type = PROBLEM_MEDIA_TYPE
    format = "problem"


def problem_response(
    status_code: int,
    detail: str | Promise,
    *,
    title: str | Promise | None = None,
    type: str = "about:blank",
    errors: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Response:
    """A problem+json response (views raise `Problem` instead, so that it renders as JSON)."""
    body = {
        "type": type,
        "title": str(title or _TITLES.get(status_code) or _("Error")),
        "status": status_code,
        "detail": str(detail),
        "errors": errors or [],
        **extra,
    }
    response = Response(body, status=status_code, headers=headers)
    force_problem_rendering(response)
    return response


class Problem(exceptions.APIException):
    """Raise from a view to answer with a problem of this API's own type."""

    def __init__(
        self,
        status_code: int,
        detail: str | Promise,
        *,
        title: str | Promise | None = None,
        type: str = "about:blank",
        errors: list[dict[str, Any]] | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(str(detail))
        self.status_code = status_code
        self.title = title
        self.type = type
        self.errors = errors
        self.headers = headers
        self.extra = extra

    def as_response(self) -> Response:
        return problem_response(
            self.status_code,
            str(self.detail),
            title=self.title,
            type=self.type,
            errors=self.errors,
            headers=self.headers,
            **self.extra,
        )


def invalid(errors: list[dict[str, Any]]) -> Problem:
    """400 `validation` with these field errors."""
    return Problem(
        400,
        INVALID_DETAIL,
        title=INVALID_TITLE,
        type=TYPE_VALIDATION,
        errors=errors,
    )


def field_problem(field: str, code: str, message: str) -> Problem:
    return invalid([{"field": field, "code": code, "message": message}])


# The one answer for an object that does not exist *or* belongs to a club the caller is
# not in: the two must be indistinguishable (a stranger must not learn which ids exist).
NOT_FOUND_DETAIL = gettext_lazy("Not found, or not yours.")
INVALID_DETAIL = gettext_lazy("The request has invalid fields; see errors.")
INVALID_TITLE = gettext_lazy("Invalid input")


def too_large(limit: int) -> Problem:
    return Problem(
        413,
        _("The request body is larger than %(limit)s bytes.") % {"limit": limit},
        type=TYPE_TOO_LARGE,
        errors=[
            {
                "code": "body_too_large",
                "message": _("Send at most %(limit)s bytes.") % {"limit": limit},
            }
        ],
    )


def force_problem_rendering(response: Response, request: Request | None = None) -> None:
    """Render with the problem renderer whatever the client accepted (CSV, HTML…)."""
    renderer = ProblemJSONRenderer()
    response.accepted_renderer = renderer
    response.accepted_media_type = PROBLEM_MEDIA_TYPE
    response.content_type = PROBLEM_MEDIA_TYPE
    if request is not None:
        # APIView.finalize_response copies the request's renderer onto the response.
        request.accepted_renderer = renderer
        request.accepted_media_type = PROBLEM_MEDIA_TYPE


# DRF's words for a value of the wrong shape name Python's types ('Expected a dictionary
# of items but got type "str"'); a client reads JSON's.
SHAPE_MESSAGES = {
    "not_a_dict": gettext_lazy('This must be a JSON object of names and values, e.g. {"ann": 3}.'),
    "not_a_list": gettext_lazy('This must be a JSON list, e.g. ["ann", "ben"].'),
}
NOT_AN_OBJECT = gettext_lazy(
    'The body must be a JSON object of fields and values, e.g. {"trump": "H", "tricks": {"ann": 3}}.'
)


def flatten_errors(detail: Any, prefix: str = "") -> list[dict[str, Any]]:
    """DRF's nested ErrorDetail structure → a flat list of {field, code, message}."""
    if isinstance(detail, dict):
        out = []
        for key, value in detail.items():
            if key in ("non_field_errors", "__all__"):
                out += flatten_errors(value, prefix)
            else:
                out += flatten_errors(value, f"{prefix}.{key}" if prefix else str(key))
        return out
    if isinstance(detail, list):
        out = []
        for index, value in enumerate(detail):
            # A list of messages belongs to the field; a list of dicts/lists is positional.
            if isinstance(value, dict | list):
                out += flatten_errors(value, f"{prefix}.{index}" if prefix else str(index))
            else:
                out += flatten_errors(value, prefix)
        return out
    code = getattr(detail, "code", "invalid")
    error = {"code": code, "message": str(SHAPE_MESSAGES.get(code, detail))}
    if prefix:
        error["field"] = prefix
    return [error]


def _bourre_problem(exc: Exception) -> Response | None:
    """The project's own refusals (``BourreError``): the recording contract's exceptions
    with their own problem types, any other by its ``status``, ``code`` and ``field``."""
    if not isinstance(exc, BourreError):
        return None
    said = render(exc)
    if isinstance(exc, postings.ChainBroken):
        # Before HandRejected (its base): a later hand the correction would break.
        return problem_response(
            409,
            said,
            title=_("A later hand no longer stands"),
            type=TYPE_CHAIN_BROKEN,
            errors=translated_errors(exc.errors),
            number=exc.number,
            verdict=getattr(exc, "verdict", None),
        )
    if isinstance(exc, postings.HandRejected):
        return problem_response(
            400,
            said or _("The hand was not recorded: the record is not valid for this session."),
            title=_("Hand rejected"),
            type=TYPE_HAND_REJECTED,
            errors=translated_errors(getattr(exc, "errors", None)),
            verdict=getattr(exc, "verdict", None),
        )
    if isinstance(exc, postings.StaleState):
        return problem_response(
            409,
            _("The session changed since you last read it; reload it and submit again."),
            title=_("Stale session version"),
            type=TYPE_STALE_STATE,
            errors=[{"code": "stale_state", "message": said, "field": "session_version"}],
            current_version=getattr(exc, "current_version", None),
        )
    if isinstance(exc, postings.VoidRefused):
        return problem_response(
            409,
            said,
            title=_("Cannot undo this hand"),
            type=TYPE_VOID_REFUSED,
            errors=[{"code": exc.code, "message": said}],
        )
    if isinstance(exc, postings.SetupError | RuleError):
        key = getattr(exc, "key", None)
        field = key
        if isinstance(exc, RuleError):
            field = f"rules.{key}" if key else "rules"
        error = {"code": exc.code, "message": said}
        if field:
            error["field"] = field
        return problem_response(
            400,
            INVALID_DETAIL,
            title=INVALID_TITLE,
            type=TYPE_VALIDATION,
            errors=[error],
        )
    if isinstance(exc, postings.SessionClosed):
        closed = said or _("This session is closed.")
        return problem_response(
            409,
            closed,
            title=_("Session closed"),
            type=TYPE_SESSION_CLOSED,
            errors=[{"code": "session_closed", "message": closed}],
        )
    error = {"code": exc.code, "message": said}
    if exc.field:
        error["field"] = exc.field
    return problem_response(
        exc.status,
        said if exc.status != 400 else INVALID_DETAIL,
        title=INVALID_TITLE if exc.status == 400 else None,
        type=TYPE_VALIDATION if exc.status == 400 else "about:blank",
        errors=[error],
    )


def translated_errors(errors: Sequence[Mapping[str, object]] | None) -> list[dict[str, Any]]:
    """The engine's error dicts with each message in the reader's language."""
    return [{**e, "message": render_error(e)} for e in errors or []]


def api_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler404 for the root URLconf: a URL under /api/ that matches no route (e.g.
    /api/v1/sessions/abc/) is a problem too; other paths get Django's page."""
    if request.path_info.startswith("/api/"):
        # Through an API view (imported here: games.api.base imports this module), so the
        # answer is counted and carries RateLimit-* headers like every API response.
        from games.api.base import UnroutedApi

        return UnroutedApi.as_view()(request)
    return page_not_found(request, exception)


WRONG_MEDIA_TYPE = gettext_lazy(
    "Send the body as JSON, with the header Content-Type: application/json."
)
NOT_JSON = gettext_lazy(
    "The body is not valid JSON: check its quotes, commas and brackets, and that it is UTF-8."
)


def problem_exception_handler(exc: Exception, context: Mapping[str, Any]) -> Response | None:
    """REST_FRAMEWORK["EXCEPTION_HANDLER"]: every error becomes a problem+json response."""
    request = context.get("request")
    if isinstance(exc, RequestDataTooBig):
        exc = too_large(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    if isinstance(exc, Http404 | exceptions.NotFound) and not isinstance(exc, Problem):
        exc = exceptions.NotFound(NOT_FOUND_DETAIL)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else exc.messages
        )
    elif isinstance(exc, exceptions.UnsupportedMediaType):
        # DRF names the type it got; the client needs the one to send.
        exc = exceptions.UnsupportedMediaType("", detail=WRONG_MEDIA_TYPE)

    response = exc.as_response() if isinstance(exc, Problem) else _bourre_problem(exc)
    if response is None and isinstance(exc, exceptions.APIException):
        headers = {}
        # Not on every APIException: APIView.handle_exception sets auth_header on
        # authentication failures; Throttled has wait.
        auth_header = getattr(exc, "auth_header", None)
        if auth_header:
            headers["WWW-Authenticate"] = auth_header
        wait = getattr(exc, "wait", None)
        if wait:
            headers["Retry-After"] = str(int(wait))
        if isinstance(exc, exceptions.ValidationError):
            response = problem_response(
                exc.status_code,
                INVALID_DETAIL,
                title=INVALID_TITLE,
                type=TYPE_VALIDATION,
                errors=flatten_errors(exc.detail),
                headers=headers,
            )
        else:
            detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
            code = exc.default_code if not hasattr(exc.detail, "code") else exc.detail.code
            response = problem_response(
                exc.status_code,
                detail,
                type=TYPE_THROTTLED if exc.status_code == 429 else "about:blank",
                errors=[{"code": code, "message": detail}],
                headers=headers,
            )
    if response is None and isinstance(exc, OperationalError | InterfaceError):
        # The database is away (restart, failover): say so and when to retry, not 500.
        logger.error("database unavailable: %s", exc)
        response = problem_response(
            status.HTTP_503_SERVICE_UNAVAILABLE,
            _("The database is not answering. Nothing was saved; try again in a moment."),
            title=_("Service unavailable"),
            type=TYPE_UNAVAILABLE,
            errors=[{"code": "unavailable", "message": _("The database is not answering.")}],
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
    if response is None:
        # A bug, not bad input: log it with its traceback, but still answer in the
        # API's format rather than Django's HTML page.
        logger.exception("Unhandled API error", exc_info=exc)
        response = problem_response(
            status.HTTP_500_INTERNAL_SERVER_ERROR,
            _("Something went wrong on our side; the error has been logged."),
            type=TYPE_INTERNAL,
        )
    set_rollback()
    force_problem_rendering(response, request)
    return response
