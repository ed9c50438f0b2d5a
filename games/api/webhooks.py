"""REST API v1, webhooks: a club owner's endpoints and their delivery log.

Events and delivery are games.api.outbox's. An endpoint's URL must be HTTPS (plain HTTP
only with settings.WEBHOOK_ALLOW_HTTP, for local receivers in development and tests), on
the default port, without user name or password, and neither it nor an address its host
resolves to may lead inward (loopback, private, link-local, metadata…: games.api.egress;
a LAN install allows private addresses and other ports with
settings.WEBHOOK_ALLOW_PRIVATE). Each delivery checks again. Its signing secret is shown
when it is created. A delivery's `last_error` is the category of its last failure in
words (`last_error_code` the same as a code), never the network's own text.
"""

from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.response import Response

from games.access import club_for
from games.api import egress
from games.api.base import (
    CURSOR_PARAMETERS,
    READ_PROBLEMS,
    WRITE_PROBLEMS,
    ApiView,
    absolute,
    page_of,
    paginate,
    problems,
    valid,
)
from games.api.outbox import EVENT_TYPES
from games.api.serializers import StrictInputSerializer
from games.http import AuthedRequest
from games.models import Role, WebhookDelivery, WebhookEndpoint


class EndpointInputSerializer(StrictInputSerializer):
    url = serializers.URLField(max_length=500)
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=EVENT_TYPES),
        required=False,
        default=list,
        help_text=gettext_lazy("Event types to receive; empty: all of them."),
    )

    def validate_url(self, url: str) -> str:
        try:
            egress.check_url(url)
        except egress.UrlRefused as refused:
            raise serializers.ValidationError(
                _REFUSALS.get(refused.code, _REFUSALS["address_not_allowed"]), code=refused.code
            ) from None
        return url


# What the owner reads when games.api.egress refuses an address, by its code.
_REFUSALS = {
    "https_required": gettext_lazy("Use an https:// address."),
    "userinfo_not_allowed": gettext_lazy(
        "Leave the user name and password out of the address; the signature proves who sends."
    ),
    "port_not_allowed": gettext_lazy(
        "Use the standard port: leave the port out of the address (443 for https://)."
    ),
    "address_not_allowed": gettext_lazy(
        "This address is inside a private network, and a private network cannot receive "
        "webhooks. Use an address anyone on the internet can reach."
    ),
}


class EndpointOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    club = serializers.IntegerField(source="club_id")
    url = serializers.URLField()
    events = serializers.ListField(child=serializers.ChoiceField(choices=EVENT_TYPES))
    active = serializers.BooleanField()
    created_at = serializers.DateTimeField()


class EndpointCreatedOutputSerializer(EndpointOutputSerializer):
    secret = serializers.CharField(help_text=gettext_lazy("Signs every delivery; shown only here."))


class DeliveryOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    event = serializers.IntegerField(source="event_id")
    type = serializers.ChoiceField(choices=EVENT_TYPES, source="event.type")
    status = serializers.ChoiceField(choices=WebhookDelivery.Status.choices)
    attempts = serializers.IntegerField()
    next_attempt_at = serializers.DateTimeField()
    last_status_code = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField(
        source="error_text",
        allow_blank=True,
        help_text=gettext_lazy(
            "What went wrong at the last attempt, in words; empty when nothing did."
        ),
    )
    last_error_code = serializers.ChoiceField(
        choices=WebhookDelivery.Error.choices,
        source="last_error",
        allow_blank=True,
        help_text=gettext_lazy(
            "The same as a code: timeout, refused, tls, address (not allowed), redirect "
            "(never followed), status (see last_status_code), dns or connection."
        ),
    )
    delivered_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField(source="event.created_at")


def _endpoint(request: AuthedRequest, endpoint_id: int) -> WebhookEndpoint:
    endpoint = WebhookEndpoint.objects.filter(pk=endpoint_id).first()
    if endpoint is None:
        raise exceptions.NotFound()
    club_for(request.user, endpoint.club_id, Role.OWNER)  # another club's: the same 404
    return endpoint


class EndpointListApi(ApiView):
    cursor_ordering = "id"

    @extend_schema(
        operation_id="webhooks_list",
        summary="A club's webhook endpoints (owner)",
        parameters=CURSOR_PARAMETERS,
        responses={200: page_of(EndpointOutputSerializer), **problems(400, *READ_PROBLEMS)},
        tags=["webhooks"],
    )
    def get(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id, Role.OWNER)
        endpoints = WebhookEndpoint.objects.filter(club=club)
        return paginate(self, request, endpoints, EndpointOutputSerializer)

    @extend_schema(
        operation_id="webhooks_create",
        summary="Register an HTTPS endpoint for a club's events (owner)",
        request=EndpointInputSerializer,
        responses={201: EndpointCreatedOutputSerializer, **problems(*WRITE_PROBLEMS)},
        examples=[
            OpenApiExample(
                "Hands and closings",
                value={
                    "url": "https://example.com/bourre",
                    "events": ["hand.recorded", "session.closed"],
                },
                request_only=True,
            )
        ],
        tags=["webhooks"],
    )
    def post(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id, Role.OWNER)
        data = valid(EndpointInputSerializer, request.data)
        endpoint = WebhookEndpoint.objects.create(club=club, url=data["url"], events=data["events"])
        response = Response(
            EndpointCreatedOutputSerializer(endpoint).data,
            status=201,
            headers={"Location": absolute(request, "api_webhook_detail", endpoint.pk)},
        )
        response["Cache-Control"] = "no-store"
        return response


class EndpointDetailApi(ApiView):
    @extend_schema(
        operation_id="webhooks_retrieve",
        summary="One webhook endpoint (owner)",
        responses={200: EndpointOutputSerializer, **problems(*READ_PROBLEMS)},
        tags=["webhooks"],
    )
    def get(self, request: AuthedRequest, endpoint_id: int) -> Response:
        return Response(EndpointOutputSerializer(_endpoint(request, endpoint_id)).data)

    @extend_schema(
        operation_id="webhooks_delete",
        summary="Remove a webhook endpoint (owner); pending deliveries are dropped",
        request=None,
        responses={204: None, **problems(401, 403, 404)},
        tags=["webhooks"],
    )
    def delete(self, request: AuthedRequest, endpoint_id: int) -> Response:
        _endpoint(request, endpoint_id).delete()
        return Response(status=204)


class DeliveryListApi(ApiView):
    cursor_ordering = "-id"

    @extend_schema(
        operation_id="webhooks_deliveries",
        summary="The delivery log of an endpoint, newest first (owner)",
        parameters=CURSOR_PARAMETERS,
        responses={200: page_of(DeliveryOutputSerializer), **problems(400, *READ_PROBLEMS)},
        tags=["webhooks"],
    )
    def get(self, request: AuthedRequest, endpoint_id: int) -> Response:
        endpoint = _endpoint(request, endpoint_id)
        deliveries = WebhookDelivery.objects.filter(endpoint=endpoint).select_related("event")
        return paginate(self, request, deliveries, DeliveryOutputSerializer)
