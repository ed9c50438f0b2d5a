"""REST API v1, a club's people: members (roles, removal) and invitations.

Owners manage members and invite; the writes are games.clubs.service's (a club always
keeps an owner: `ClubError` `last_owner`, 409). An invitation's token is shown once, in
the response that creates it; anyone signed in may accept it.
"""

from django.db.models import F
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.response import Response

from games.access import club_for
from games.api.base import (
    CURSOR_PARAMETERS,
    READ_PROBLEMS,
    WRITE_PROBLEMS,
    ApiView,
    page_of,
    paginate,
    problems,
    valid,
)
from games.api.errors import NOT_FOUND_DETAIL, Problem
from games.api.serializers import StrictInputSerializer
from games.clubs import service
from games.http import AuthedRequest
from games.models import Invite, Membership, Role
from games.models.club import hash_token


class MemberOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text=gettext_lazy("The membership's id."))
    username = serializers.CharField(source="user.username")
    role = serializers.ChoiceField(choices=Role.choices)
    created_at = serializers.DateTimeField()


class RoleInputSerializer(StrictInputSerializer):
    role = serializers.ChoiceField(choices=Role.choices)


class InviteInputSerializer(StrictInputSerializer):
    role = serializers.ChoiceField(choices=Role.choices, default=Role.MEMBER)


class InviteOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    club = serializers.IntegerField(source="club_id")
    role = serializers.ChoiceField(choices=Role.choices)
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    used_at = serializers.DateTimeField(
        allow_null=True, help_text=gettext_lazy("When it was accepted.")
    )


class InviteCreatedOutputSerializer(InviteOutputSerializer):
    token = serializers.CharField(help_text=gettext_lazy("Shown only in this response."))
    url = serializers.URLField(help_text=gettext_lazy("The web link to send the person invited."))


class InviteAcceptInputSerializer(StrictInputSerializer):
    token = serializers.CharField(max_length=100)


def _membership(request: AuthedRequest, club_id: int, membership_id: int) -> Membership:
    club, _ = club_for(request.user, club_id, Role.OWNER)
    target = Membership.objects.select_related("user", "club").filter(pk=membership_id, club=club)
    found = target.first()
    if found is None:
        raise exceptions.NotFound()
    return found


class MemberListApi(ApiView):
    cursor_ordering = ("username", "id")

    @extend_schema(
        operation_id="members_list",
        summary="A club's members and their roles, by username",
        parameters=CURSOR_PARAMETERS,
        responses={200: page_of(MemberOutputSerializer), **problems(400, *READ_PROBLEMS)},
        tags=["members"],
    )
    def get(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id)
        members = club.memberships.select_related("user").annotate(username=F("user__username"))
        return paginate(self, request, members, MemberOutputSerializer)


class MemberDetailApi(ApiView):
    @extend_schema(
        operation_id="members_update",
        summary="Give a member another role (owner)",
        request=RoleInputSerializer,
        responses={200: MemberOutputSerializer, **problems(*WRITE_PROBLEMS, 409)},
        examples=[OpenApiExample("Scorekeeper", value={"role": "scorekeeper"}, request_only=True)],
        tags=["members"],
    )
    def patch(self, request: AuthedRequest, club_id: int, membership_id: int) -> Response:
        target = _membership(request, club_id, membership_id)
        data = valid(RoleInputSerializer, request.data)
        return Response(MemberOutputSerializer(service.change_role(target, data["role"])).data)

    @extend_schema(
        operation_id="members_remove",
        summary="Remove a member from the club (owner)",
        request=None,
        responses={204: None, **problems(401, 403, 404, 409)},
        tags=["members"],
    )
    def delete(self, request: AuthedRequest, club_id: int, membership_id: int) -> Response:
        service.remove_member(_membership(request, club_id, membership_id))
        return Response(status=204)


class InviteListApi(ApiView):
    cursor_ordering = "-id"

    @extend_schema(
        operation_id="invites_list",
        summary="A club's invitations, newest first (owner)",
        parameters=CURSOR_PARAMETERS,
        responses={200: page_of(InviteOutputSerializer), **problems(400, *READ_PROBLEMS)},
        tags=["members"],
    )
    def get(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id, Role.OWNER)
        return paginate(self, request, club.invites.all(), InviteOutputSerializer)

    @extend_schema(
        operation_id="invites_create",
        summary="Invite someone with a single-use link, valid 7 days (owner)",
        request=InviteInputSerializer,
        responses={201: InviteCreatedOutputSerializer, **problems(*WRITE_PROBLEMS)},
        examples=[
            OpenApiExample("A scorekeeper", value={"role": "scorekeeper"}, request_only=True)
        ],
        tags=["members"],
    )
    def post(self, request: AuthedRequest, club_id: int) -> Response:
        club, _ = club_for(request.user, club_id, Role.OWNER)
        data = valid(InviteInputSerializer, request.data)
        invite, token = Invite.issue(club, data["role"], request.user)
        invite.token = token  # type: ignore[attr-defined]  # in this response only
        invite.url = request.build_absolute_uri(reverse("invite_accept", args=[token]))  # type: ignore[attr-defined]
        response = Response(InviteCreatedOutputSerializer(invite).data, status=201)
        response["Cache-Control"] = "no-store"
        return response


class InviteAcceptApi(ApiView):
    @extend_schema(
        operation_id="invites_accept",
        summary="Join a club with an invitation's token",
        request=InviteAcceptInputSerializer,
        responses={200: MemberOutputSerializer, **problems(*WRITE_PROBLEMS, 409)},
        examples=[OpenApiExample("Accept", value={"token": "q3Zr…"}, request_only=True)],
        tags=["members"],
    )
    def post(self, request: AuthedRequest) -> Response:
        data = valid(InviteAcceptInputSerializer, request.data)
        invite = Invite.objects.filter(token_hash=hash_token(data["token"])).first()
        if invite is None:
            raise Problem(
                404,
                NOT_FOUND_DETAIL,
                errors=[{"code": "not_found", "message": gettext("No such invitation.")}],
            )
        invite = service.accept_invite(invite.pk, request.user)
        membership = Membership.objects.select_related("user").get(
            club_id=invite.club_id, user=request.user
        )
        return Response(MemberOutputSerializer(membership).data)
