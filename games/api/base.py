"""The API's conventions, shared by every API module (views, ledger, tournaments):

- Authentication: personal tokens (`Authorization: Bearer brt_…`, games.api.auth) or the
  site's session login (REST_FRAMEWORK defaults). Every endpoint needs a user except
  `POST hands/verify`.
- Access goes through games.access (or `ClubRolePermission` / `for_member` below, which
  use the same membership logic): another club's objects are 404; reading needs
  membership (`Role.MEMBER`), writing needs `role_for(request)` (scorekeeper).
- Errors are problem+json (games.api.errors); document them with `problems(...)`.
- Long lists use `CursorPage` through `paginate(...)`, documented with `page_of(...)` and
  `CURSOR_PARAMETERS`.
- `API_RENDERERS` / `API_PARSERS`: JSON that never fails on odd input (deep nesting, lone
  surrogates).
- Money is never written here: views call ledger.postings, exactly as the web pages do.
"""

import json

from django.db.models import QuerySet
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiParameter
from rest_framework import exceptions, serializers
from rest_framework.pagination import CursorPagination
from rest_framework.parsers import JSONParser
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from games.access import membership_for, require_role
from games.api import serializers as s
from games.api.errors import (
    PROBLEM_MEDIA_TYPE,
)
from games.api.serializers import MAX_ID
from games.models import Membership, Role
from games.ratelimit import client_ip

# --- conventions -------------------------------------------------------------------------


class ApiJSONRenderer(JSONRenderer):
    """JSON that can always be encoded: a lone surrogate ("\\ud800" is valid JSON input and
    may be echoed back in an error) falls back to ASCII escapes instead of a 500."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        try:
            return super().render(data, accepted_media_type, renderer_context)
        except UnicodeEncodeError:
            return json.dumps(data, cls=self.encoder_class, ensure_ascii=True).encode()


class ApiJSONParser(JSONParser):
    """JSON whose pathological nesting is a 400 rather than a RecursionError."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - nested too deeply.") from None


API_RENDERERS: list[type[BaseRenderer]] = [ApiJSONRenderer]
API_PARSERS = [ApiJSONParser]


class ApiView(APIView):
    # This API's renderers and parsers: JSON only, problems on error. (A comment, not a
    # docstring: the schema would show a base class docstring as every view's description.)
    renderer_classes = API_RENDERERS
    parser_classes = API_PARSERS

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        # An id no database row can have is simply not found; passed on, it would
        # overflow the database's integer (a 500) in lookups through a foreign key.
        for name, value in kwargs.items():
            if name.endswith("_id") and isinstance(value, int) and value > MAX_ID:
                raise exceptions.NotFound()


def role_for(request, write_role: str = Role.SCOREKEEPER) -> str:
    """The role a request needs: membership to read, `write_role` to change anything."""
    return Role.MEMBER if request.method in SAFE_METHODS else write_role


def club_id_of(obj) -> int:
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

    def has_object_permission(self, request, view, obj) -> bool:
        membership = membership_for(request.user, club_id_of(obj))
        needed = self.read_role if request.method in SAFE_METHODS else self.write_role
        require_role(membership, needed)
        return True


def for_member(queryset: QuerySet, user, club_path: str = "club") -> QuerySet:
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

    def get_ordering(self, request, queryset, view):
        ordering = getattr(view, "cursor_ordering", self.ordering)
        return (ordering,) if isinstance(ordering, str) else tuple(ordering)

    def paginate_queryset(self, queryset, request, view=None):
        try:
            return super().paginate_queryset(queryset, request, view)
        except (ValueError, TypeError, OverflowError):
            # A forged cursor whose position is not a value of the ordering field.
            raise exceptions.NotFound(self.invalid_cursor_message) from None


CURSOR_PARAMETERS = [
    OpenApiParameter("cursor", str, description="Opaque cursor from `next`/`previous`."),
    OpenApiParameter(
        "page_size",
        int,
        description=f"Items per page (default {CursorPage.page_size}, at most {CursorPage.max_page_size}).",
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
                "next": serializers.URLField(allow_null=True),
                "previous": serializers.URLField(allow_null=True),
                "results": item_serializer(many=True),
            },
        )
    return _PAGE_SERIALIZERS[item_serializer]


def paginate(view, request, queryset, serializer_class, context=None) -> Response:
    paginator = CursorPage()
    page = paginator.paginate_queryset(queryset, request, view=view)
    data = serializer_class(page, many=True, context=context or {}).data
    return paginator.get_paginated_response(data)


class VerifyThrottle(ScopedRateThrottle):
    """The `throttle_scope` rate of REST_FRAMEWORK, per client IP.

    The rate is read per request (so settings overrides apply) and the client is its
    REMOTE_ADDR, like the login limit: DRF's default would trust a forged
    X-Forwarded-For and let anyone pick a fresh identity per request."""

    def get_rate(self):
        # allow_request() asks for the rate only once it has set the view's throttle_scope.
        assert self.scope is not None
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_ident(self, request):
        return client_ip(request)

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


_PROBLEM_SERIALIZERS = {409: s.StaleProblemSerializer}


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

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal API token (`brt_…`) created on /settings/tokens/.",
        }
