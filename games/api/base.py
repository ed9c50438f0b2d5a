"""The API's conventions, shared by every API module (views, ledger, tournaments):

- Authentication: personal tokens (`Authorization: Bearer brt_…`, games.api.auth) or the
  site's session login (REST_FRAMEWORK defaults). Every endpoint needs a user except
  `POST hands/verify`.
- Access goes through games.access (or `ClubRolePermission` / `for_member` below, which
  use the same membership logic): another club's objects are 404; reading needs
  membership (`Role.MEMBER`), writing needs `role_for(request)` (scorekeeper).
- Errors are problem+json (games.api.errors); document them with `problems(...)`.
- Every list is a cursor page (`CursorPage` through `paginate(...)`, documented with
  `page_of(...)` and `CURSOR_PARAMETERS`): `results`, and `next`/`previous` as the
  cursors a client sends back as `cursor` (issue 36), plus an RFC 8288 `Link` header
  with the pages' URLs; `page_size` 1–500.
- `API_RENDERERS` / `API_PARSERS`: JSON that never fails on odd input (deep nesting, lone
  surrogates).
- Every write accepts an `Idempotency-Key` (games.api.idempotency).
- Every call is rate limited (`ApiRateThrottle`: per token or signed-in user, per address
  when anonymous; the verifier per address at its own rate), counted right after
  authentication whatever the outcome; every response carries `RateLimit-Limit`,
  `RateLimit-Remaining` and `RateLimit-Reset`, and past the limit the answer is a 429
  problem with `Retry-After`. `ApiAutoSchema` documents both on every operation.
- A request body may be at most `MAX_BODY_BYTES` (1 MiB); a larger one is 413.
- Every timestamp is rendered in UTC (`…Z`), whatever the site's TIME_ZONE.
- Bad `cursor` or `page_size` values are 400, not 404 or a silent default.
- Money is never written here: views call ledger.postings, exactly as the web pages do.
"""

import contextlib
import datetime
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, Any, NoReturn, TypeVar, cast
from urllib.parse import parse_qs, urlsplit

from django.contrib.auth.models import User
from django.db.models import Model, QuerySet
from django.forms import BaseForm
from django.http import HttpRequest, HttpResponseBase
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import Direction, OpenApiParameter
from rest_framework import exceptions, serializers
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.parsers import JSONParser
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from games.access import membership_for, require_role
from games.api import idempotency
from games.api import serializers as s
from games.api.errors import (
    NOT_AN_OBJECT,
    NOT_JSON,
    PROBLEM_MEDIA_TYPE,
    TYPE_THROTTLED,
    Problem,
    field_problem,
    too_large,
)
from games.api.serializers import MAX_ID
from games.models import ApiToken, Membership, Role
from games.ratelimit import client_ip, network_of, window_hit, window_peek

_M = TypeVar("_M", bound=Model)
_T = TypeVar("_T")

# --- conventions -------------------------------------------------------------------------


class ApiJSONRenderer(JSONRenderer):
    """JSON that can always be encoded: a lone surrogate ("\\ud800" is valid JSON input and
    may be echoed back in an error) falls back to ASCII escapes instead of a 500."""

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        try:
            return super().render(data, accepted_media_type, renderer_context)
        except UnicodeEncodeError:
            return json.dumps(data, cls=self.encoder_class, ensure_ascii=True).encode()


class ApiJSONParser(JSONParser):
    """A body that is not JSON is a 400 in the API's own words, in the reader's language
    (DRF says "JSON parse error - " and then Python's decoder, in English); pathological
    nesting is a 400 of its own rather than a RecursionError."""

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError(_("JSON parse error - nested too deeply.")) from None
        except exceptions.ParseError:
            raise exceptions.ParseError(NOT_JSON) from None


API_RENDERERS: list[type[BaseRenderer]] = [ApiJSONRenderer]
API_PARSERS = [ApiJSONParser]


IDEMPOTENCY_KEY_PARAMETER = OpenApiParameter(
    idempotency.HEADER,
    str,
    OpenApiParameter.HEADER,
    pattern="^[!-~]{1,80}$",
    description="Optional, 1–80 printable ASCII characters: the same request with the "
    "same key is done once (see the API description).",
)
_REPLAYED = OpenApiParameter(
    idempotency.REPLAYED,
    str,
    OpenApiParameter.HEADER,
    response=[200, 201, 202, 204],
    enum=["true"],
    description="Present when this response is the stored answer to an earlier request "
    "with the same Idempotency-Key.",
)
_RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    int,
    OpenApiParameter.HEADER,
    response=[409, 429],
    description="Seconds to wait before retrying.",
)


# On every response of every operation (ApiAutoSchema): where the caller stands.
RATE_LIMIT_HEADERS = [
    OpenApiParameter(
        name,
        int,
        OpenApiParameter.HEADER,
        response=True,
        description=text,
    )
    for name, text in (
        ("RateLimit-Limit", "Requests allowed in the current window."),
        ("RateLimit-Remaining", "Requests left in the current window."),
        ("RateLimit-Reset", "Seconds until the current window ends."),
    )
]


class ApiAutoSchema(AutoSchema):
    """What every operation shares, documented once: the RateLimit-* response headers
    and a 429 problem with Retry-After (every call is rate limited); for writes, the
    Idempotency-Key header, the Idempotent-Replayed response header, 413 and 422."""

    def _is_write(self) -> bool:
        return self.method not in SAFE_METHODS

    def get_override_parameters(
        self,
    ) -> list[OpenApiParameter | serializers.Serializer | type[serializers.Serializer]]:
        params = list(super().get_override_parameters())
        if self._is_write() and self.get_auth():
            params += [IDEMPOTENCY_KEY_PARAMETER, _REPLAYED]
        return [*params, _RETRY_AFTER, *RATE_LIMIT_HEADERS]

    def _map_serializer(
        self, serializer: Any, direction: Direction, bypass_extensions: bool = False
    ) -> dict[str, Any]:
        # An input serializer that refuses unknown fields says so (issue 36), and an
        # exact output one that it has no others.
        schema = super()._map_serializer(serializer, direction, bypass_extensions)
        exact = (s.StrictInputSerializer, s.ExactOutputSerializer)
        if isinstance(serializer, exact) and schema.get("type") == "object":
            schema["additionalProperties"] = False
        return schema

    def _get_response_bodies(self, direction: Direction = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        extra = [429]  # every call is rate limited (ApiRateThrottle)
        if self._is_write():
            # 400: a malformed Idempotency-Key or body, whatever the endpoint.
            extra += [400, 413, 422] if self.get_auth() else [400, 413]
        for code in extra:
            if str(code) not in responses:
                responses[str(code)] = self._get_response_for_code(
                    s.ProblemSerializer, str(code), [PROBLEM_MEDIA_TYPE], direction
                )
        return responses


class ApiContentNegotiation(DefaultContentNegotiation):
    """One content type per operation (issue 36): CSV, JSON and the export are separate
    operations, so `?format=` is only ever the operation's own format. Any other value,
    an empty one included, is a 400 `bad_format` naming the format there is (DRF's
    default answers 404, which reads as "no such object", and ignores an empty one).
    An `Accept` header that excludes the operation's type stays a 406."""

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderers = list(renderers)
        asked = request.query_params.get(self.settings.URL_FORMAT_OVERRIDE or "format")
        formats = sorted({r.format for r in renderers})
        if asked is not None and asked not in formats:
            raise field_problem(
                "format",
                "bad_format",
                _("Unknown format; this endpoint answers in: %(formats)s.")
                % {"formats": ", ".join(formats)},
            )
        return super().select_renderer(request, renderers, format_suffix)


def _utc(field: serializers.DateTimeField) -> datetime.tzinfo:
    return datetime.UTC


# Every timestamp the API reads or writes is UTC, whatever zone is active: the access
# helpers activate the club's time zone for its pages (games.timezones) in the middle of
# an API view too. DRF's DateTimeField asks default_timezone() for the zone to render in
# (and to read naive input in); this project uses DRF for the API only.
setattr(serializers.DateTimeField, "default_timezone", _utc)  # noqa: B010


# --- rate limits ---------------------------------------------------------------------------

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str) -> tuple[int, int]:
    """DRF's rate notation: "600/min" → (600, 60): requests, seconds."""
    number, period = rate.split("/")
    return int(number), _PERIODS[period.strip()[0]]


class ApiRateThrottle(BaseThrottle):
    """Requests per fixed window (games.ratelimit.window_hit: one atomic counter per
    client and window; each client's windows start at an offset of their own). The
    client is the token (`token` rate), the signed-in user of a browser session (the same
    rate), or for anonymous calls the client address, an IPv6 one by its /64 (`anon`).
    The rates live in REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] and are read per request
    (settings overrides apply); a scope without a rate is not limited. Where the client
    stands goes to the response as RateLimit-* headers (ApiView.finalize_response)."""

    def scope_of(self, request: Request, view: APIView) -> tuple[str, str]:
        if isinstance(request.auth, ApiToken):
            return "token", f"token:{request.auth.pk}"
        if request.user.is_authenticated:
            return "token", f"user:{request.user.pk}"
        return "anon", network_of(client_ip(request))

    def _rate(self, scope: str) -> tuple[int, int] | None:
        # The stubs type the rates as numbers; DRF's are strings ("120/min").
        rate = cast("str | None", api_settings.DEFAULT_THROTTLE_RATES.get(scope))
        return parse_rate(rate) if rate else None

    def allow_request(self, request: Request, view: APIView) -> bool:
        scope, ident = self.scope_of(request, view)
        rate = self._rate(scope)
        if rate is None:
            return True
        self.window = window_hit(f"api-{scope}", ident, *rate)
        # Read back by ApiView.finalize_response, which adds them to the response.
        request.rate_limit_headers = self.window.headers()  # type: ignore[attr-defined]
        return self.window.allowed

    def peek(self, request: Request, view: APIView) -> dict[str, str]:
        """The headers of a response that never reached the count (406, 413)."""
        scope, ident = self.scope_of(request, view)
        rate = self._rate(scope)
        return window_peek(f"api-{scope}", ident, *rate).headers() if rate else {}

    def wait(self) -> float | None:
        return self.window.reset


class VerifyThrottle(ApiRateThrottle):
    """The public verifier: the view's `throttle_scope` rate ("verify") per client
    address, like the login limit (a forged X-Forwarded-For buys no fresh identity)."""

    def scope_of(self, request: Request, view: APIView) -> tuple[str, str]:
        scope = getattr(view, "throttle_scope", "verify")
        return scope, network_of(client_ip(request))


# The largest request body the API reads (documented in the schema's description).
MAX_BODY_BYTES = 1024 * 1024


# Mixed into every API view (ApiView, the schema and its docs, the 404 of an unrouted
# /api/ path): the response carries where the client stands, counted by ApiRateThrottle,
# or peeked at when the request was refused before the count. A comment, not a
# docstring: drf-spectacular gave it, inherited, to every operation as its description.
class RateLimitHeaders:
    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        headers = getattr(request, "rate_limit_headers", None)
        if headers is None:
            headers = self._peek_rate_limit(request)
        for name, value in headers.items():
            response[name] = value
        return response

    def _peek_rate_limit(self, request: Request) -> dict[str, str]:
        # Refused before the count (406, 413): where the client stands all the same.
        if not isinstance(request, Request):
            return {}
        with contextlib.suppress(exceptions.APIException):
            request.user  # noqa: B018  # authenticates, or fails as anonymous
        for throttle in self.get_throttles():  # type: ignore[attr-defined]
            if isinstance(throttle, ApiRateThrottle):
                return throttle.peek(request, self)  # type: ignore[arg-type]
        return {}


class ApiView(RateLimitHeaders, APIView):
    # This API's renderers and parsers: JSON only, problems on error. (A comment, not a
    # docstring: the schema would show a base class docstring as every view's description.)
    renderer_classes = API_RENDERERS
    parser_classes = API_PARSERS
    content_negotiation_class = ApiContentNegotiation
    schema = ApiAutoSchema()
    throttle_classes: Sequence[type[BaseThrottle]] = [ApiRateThrottle]
    throttles_checked = False

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        # Timestamps in UTC for every client, whatever the site's TIME_ZONE: serializers
        # render DateTimeFields in the current time zone.
        with timezone.override(datetime.UTC):
            return super().dispatch(request, *args, **kwargs)

    def perform_authentication(self, request: Request) -> None:
        # Counted right after authentication, before permissions and whatever its outcome:
        # a 401, 403 or 404 is a response too, and a guessed token costs the guesser's
        # address (DRF would count only requests that passed the permission checks).
        try:
            super().perform_authentication(request)
        finally:
            self.check_throttles(request)

    def check_throttles(self, request: Request) -> None:
        if self.throttles_checked:
            return
        self.throttles_checked = True
        super().check_throttles(request)

    def throttled(self, request: Request, wait: float | None) -> NoReturn:
        seconds = max(1, math.ceil(wait or 1))
        raise Problem(
            429,
            ngettext(
                "Too many requests. Try again in %(wait)s second.",
                "Too many requests. Try again in %(wait)s seconds.",
                seconds,
            )
            % {"wait": seconds},
            type=TYPE_THROTTLED,
            errors=[{"code": "throttled", "message": _("Too many requests")}],
            headers={"Retry-After": str(seconds)},
        )

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # Before anything reads the body: a huge one is refused, not parsed.
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > MAX_BODY_BYTES:
            raise too_large(MAX_BODY_BYTES)
        super().initial(request, *args, **kwargs)
        refuse_read_only(request)
        # An id no database row can have is simply not found; passed on, it would
        # overflow the database's integer (a 500) in lookups through a foreign key.
        for name, value in kwargs.items():
            if name.endswith("_id") and isinstance(value, int) and value > MAX_ID:
                raise exceptions.NotFound()
        key = request.headers.get(idempotency.HEADER)
        assert request.method is not None  # always set on a request APIView dispatches
        method = request.method.lower()
        if (
            key is not None
            and request.method not in SAFE_METHODS
            and request.user.is_authenticated
            and hasattr(self, method)
        ):
            # APIView.dispatch looks the handler up after initial(): from here on it is
            # the same handler, run at most once per key.
            setattr(
                self,
                method,
                idempotency.idempotent(getattr(self, method), idempotency.check_key(key)),
            )


TYPE_READ_ONLY = "urn:bourre:problem:read-only-token"


def refuse_read_only(request: Request) -> None:
    """A `scope: "read"` token changes nothing: every method but GET, HEAD and OPTIONS is
    403 `read_only_token`, before the view looks at the body or the object (so the answer
    is the same whether or not the object exists)."""
    token = request.auth
    if (
        isinstance(token, ApiToken)
        and token.scope == ApiToken.Scope.READ
        and request.method not in SAFE_METHODS
    ):
        raise Problem(
            403,
            _(
                "This token is read-only: it can read but not change anything. "
                "Make a token with the write scope for this."
            ),
            type=TYPE_READ_ONLY,
            errors=[{"code": "read_only_token", "message": _("This token is read-only.")}],
        )


def valid(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    """The validated data of an input serializer (its errors are a 400 problem). A body
    that is not a JSON object is told so in JSON's words (DRF names Python's types)."""
    if not isinstance(data, Mapping):
        raise exceptions.ValidationError({"non_field_errors": [NOT_AN_OBJECT]}, code="invalid")
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def attachment_header(filename: str) -> OpenApiParameter:
    """The documented Content-Disposition of a 200 that is a file to save."""
    return OpenApiParameter(
        "Content-Disposition",
        str,
        OpenApiParameter.HEADER,
        response=[200],
        description=f'attachment; filename="{filename}"',
    )


def form_errors(form: BaseForm) -> list[dict[str, str]]:
    """A Django form's errors as problem errors (`__all__` has no field)."""
    out = []
    for field, errors in form.errors.as_data().items():
        for error in errors:
            item = {"code": error.code or "invalid", "message": error.messages[0]}
            if field != "__all__":
                item["field"] = field
            out.append(item)
    return out


def absolute(request: Request, name: str, *args: object) -> str:
    """The absolute URL of a route (Location headers, like the pagination links)."""
    return request.build_absolute_uri(reverse(name, args=args))


def undocumented(view_class: type[APIView]) -> Callable[..., HttpResponseBase]:
    """`view_class` served at one more path (an old spelling) left out of the schema."""
    hidden: type[APIView] = type(
        f"Undocumented{view_class.__name__}", (view_class,), {"schema": None}
    )
    return hidden.as_view()


def role_for(request: Request, write_role: str = Role.SCOREKEEPER) -> str:
    """The role a request needs: membership to read, `write_role` to change anything."""
    return Role.MEMBER if request.method in SAFE_METHODS else write_role


def club_id_of(obj: Model) -> int:
    """The club an object belongs to (a club, or anything with a club or a session)."""
    if hasattr(obj, "memberships"):  # a Club
        return obj.pk
    for path in ("club_id", "session", "tournament"):
        value = getattr(obj, path, None)
        if isinstance(value, int):
            return value
        if value is not None and hasattr(value, "club_id"):
            return value.club_id
    raise TypeError(f"cannot tell the club of {obj!r}")


class ClubRolePermission(BasePermission):
    """Object permission for generic views, with the same logic as games.access: a user
    outside the object's club gets 404, a member below the needed role gets 403. Safe
    methods need `read_role`, others `write_role`."""

    read_role = Role.MEMBER
    write_role = Role.SCOREKEEPER

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        membership = membership_for(request.user, club_id_of(obj))
        needed = self.read_role if request.method in SAFE_METHODS else self.write_role
        require_role(membership, needed)
        return True


def for_member(queryset: QuerySet[_M], user: User, club_path: str = "club") -> QuerySet[_M]:
    """Only rows of clubs `user` belongs to (list querysets: others' rows simply vanish)."""
    clubs = Membership.objects.filter(user=user).values("club_id")
    return queryset.filter(**{f"{club_path}__in": clubs})


class CursorPage(CursorPagination):
    """Cursor pagination: stable under inserts, constant cost per page at any depth.

    A view names its unique ordering in `cursor_ordering` (default newest first)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500
    ordering = "-id"

    def get_ordering(self, request: Request, queryset: QuerySet, view: APIView) -> tuple[str, ...]:
        ordering = getattr(view, "cursor_ordering", self.ordering)
        return (ordering,) if isinstance(ordering, str) else tuple(ordering)

    def get_page_size(self, request: Request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        if not raw.isascii() or not raw.isdigit() or not 1 <= int(raw) <= self.max_page_size:
            raise field_problem(
                "page_size",
                "bad_page_size",
                _("page_size is a whole number from 1 to %(max)s.") % {"max": self.max_page_size},
            )
        return int(raw)

    def get_paginated_response(self, data: Any) -> Response:
        """`next` and `previous` are the cursors themselves (a client sends one back as
        `cursor`); the links to those pages go in an RFC 8288 `Link` header."""
        links = {"next": self.get_next_link(), "prev": self.get_previous_link()}
        headers = {}
        if any(links.values()):
            headers["Link"] = ", ".join(
                f'<{url}>; rel="{rel}"' for rel, url in links.items() if url
            )
        return Response(
            {
                "next": _cursor_of(links["next"]),
                "previous": _cursor_of(links["prev"]),
                "results": data,
            },
            headers=headers,
        )

    def decode_cursor(self, request: Request) -> Cursor | None:
        try:
            return super().decode_cursor(request)
        except exceptions.NotFound:
            raise _bad_cursor() from None

    def paginate_queryset(
        self,
        queryset: QuerySet[Any, Any] | Sequence[Any],
        request: Request,
        view: APIView | None = None,
    ) -> list[Any] | None:
        try:
            return super().paginate_queryset(queryset, request, view)
        except (ValueError, TypeError, OverflowError):
            # A forged cursor whose position is not a value of the ordering field.
            raise _bad_cursor() from None


def _cursor_of(url: str | None) -> str | None:
    if url is None:
        return None
    return parse_qs(urlsplit(url).query).get(CursorPage.cursor_query_param, [None])[0]


def _bad_cursor() -> Problem:
    return field_problem(
        "cursor",
        "bad_cursor",
        _("This cursor is not one the API gave; start from the first page."),
    )


class ListPage(CursorPage):
    """A cursor page over an already ordered list, in the shape of every list
    (``CursorPage.get_paginated_response``: the cursors in ``next``/``previous``, the
    pages' URLs in the ``Link`` header): the cursor's position is the index of the
    page's first row (DRF's own opaque encoding)."""

    _next: str | None = None
    _previous: str | None = None

    def rows_page(self, request: Request, rows: Sequence[_T]) -> list[_T]:
        self.base_url = request.build_absolute_uri()
        size = self.get_page_size(request)
        cursor = self.decode_cursor(request)
        start = 0
        if cursor is not None:
            position = str(cursor.position or "")
            if cursor.reverse or not position.isascii() or not position.isdigit():
                raise _bad_cursor()
            start = int(position)
        end = start + size
        if end < len(rows):
            self._next = self.encode_cursor(Cursor(0, False, end))
        if start > 0:
            self._previous = self.encode_cursor(Cursor(0, False, max(0, start - size)))
        return list(rows[start:end])

    def get_next_link(self) -> str | None:
        return self._next

    def get_previous_link(self) -> str | None:
        return self._previous


# An id in a query parameter (the schema's bounds are the server's: games.api.serializers).
ID_SCHEMA = {"type": "integer", "format": "int64", "minimum": 1, "maximum": MAX_ID}

CURSOR_PARAMETERS = [
    OpenApiParameter(
        "cursor",
        {"type": "string", "minLength": 1, "maxLength": 1000},
        description="Opaque cursor: the `next` or `previous` of a page.",
    ),
    OpenApiParameter(
        "page_size",
        {"type": "integer", "minimum": 1, "maximum": CursorPage.max_page_size},
        description=f"Items per page, 1 to {CursorPage.max_page_size} (default "
        f"{CursorPage.page_size}); anything else is 400 `bad_page_size`.",
    ),
]

_PAGE_SERIALIZERS: dict[type, type] = {}


def page_of(item_serializer: type[serializers.Serializer]) -> type[serializers.Serializer]:
    """The documented shape of a cursor page of `item_serializer`."""
    if item_serializer not in _PAGE_SERIALIZERS:
        name = item_serializer.__name__.removesuffix("Serializer").removesuffix("Output")
        _PAGE_SERIALIZERS[item_serializer] = type(
            f"{name}PageSerializer",
            (serializers.Serializer,),
            {
                "__doc__": f"A page of {name} items.",
                "next": serializers.CharField(
                    allow_null=True,
                    help_text=gettext_lazy("The next page's cursor; null on the last page."),
                ),
                "previous": serializers.CharField(
                    allow_null=True,
                    help_text=gettext_lazy("The previous page's cursor; null on the first page."),
                ),
                "results": item_serializer(many=True),
            },
        )
    return _PAGE_SERIALIZERS[item_serializer]


def paginate(
    view: APIView,
    request: Request,
    queryset: QuerySet[Any],
    serializer_class: type[serializers.Serializer],
    context: dict[str, Any] | None = None,
    rows: Callable[[list[Any]], Iterable[Any]] | None = None,
) -> Response:
    """A cursor page of `queryset` in the view's `cursor_ordering`; `rows` turns the
    page's objects into what `serializer_class` reads, when they are not that already."""
    paginator = CursorPage()
    page = paginator.paginate_queryset(queryset, request, view=view)
    assert page is not None  # CursorPage always has a page size
    items = rows(page) if rows is not None else page
    data = serializer_class(items, many=True, context=context or {}).data
    return paginator.get_paginated_response(data)


_PROBLEM_SERIALIZERS = {409: s.ConflictProblemSerializer}


def problems(*codes: int) -> dict:
    """extend_schema `responses` entries for these error statuses (problem+json)."""
    return {
        (code, PROBLEM_MEDIA_TYPE): _PROBLEM_SERIALIZERS.get(code, s.ProblemSerializer)
        for code in codes
    }


READ_PROBLEMS = (401, 403, 404, 406)
WRITE_PROBLEMS = (400, 401, 403, 404, 406, 415)


class TokenAuthScheme(OpenApiAuthenticationExtension):
    target_class = "games.api.auth.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: AutoSchema) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal API token (`brt_…`) created on /settings/tokens/.",
        }


class UnroutedApi(ApiView):
    # A path under /api/ that no route matches (games.api.errors.api_not_found): the same
    # 404 problem as a missing object, counted and with its RateLimit-* headers.
    schema = None  # type: ignore[assignment]  # not in the schema
    permission_classes: Sequence[type[BasePermission]] = []  # a 404 for anyone, not a 401

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        raise exceptions.NotFound()
