"""The club owner's webhook page: the club's endpoints and their recent deliveries.

Endpoints are registered through the API (`/api/v1/clubs/<id>/webhooks/`, which shows
the signing secret once); this page is where an owner checks what was delivered, what
is being retried and what failed (games.api.outbox)."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games.access import club_for
from games.error_pages import require_safe
from games.models import Role, WebhookDelivery, WebhookEndpoint

RECENT = 50


@login_required
@require_safe
def webhook_log(request: HttpRequest, club_id: int) -> HttpResponse:
    club, membership = club_for(request.user, club_id, Role.OWNER)
    endpoints = WebhookEndpoint.objects.filter(club=club)
    deliveries = (
        WebhookDelivery.objects.filter(endpoint__club=club)
        .select_related("event", "endpoint")
        .order_by("-id")[:RECENT]
    )
    return render(
        request,
        "games/webhooks.html",
        {"club": club, "endpoints": endpoints, "deliveries": deliveries, "recent": RECENT},
    )
