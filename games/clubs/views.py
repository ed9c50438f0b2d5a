from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.forms import BaseForm
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext

from games import rulebook_text
from games.access import club_for, player_for
from games.clubs import handles, service
from games.clubs.forms import (
    ROLE_CHOICES,
    ClubForm,
    HandlesForm,
    InviteForm,
    PlayerForm,
    PlayerLinkForm,
    RoleForm,
)
from games.error_pages import require_POST, require_safe
from games.http import AuthedHttpRequest
from games.messages import render as say
from games.models import GameSession, Invite, Membership, Player, Role
from games.models.club import hash_token


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return render(request, "games/landing.html")
    memberships = request.user.memberships.select_related("club").order_by("club__name")
    return render(request, "games/home.html", {"memberships": memberships})


def _refused(*forms: BaseForm) -> int:
    """A form page's status: 422 when it shows refused input again (with its errors and
    what was typed), as every form of the app answers; htmx swaps a 422 in (base.html's
    htmx-config) where a 400 would only raise the error banner."""
    return 422 if any(form.errors for form in forms) else 200


@login_required
def club_create(request: AuthedHttpRequest) -> HttpResponse:
    form = ClubForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        club = service.create_club(form.save(commit=False), request.user)
        messages.success(
            request,
            gettext("%(club)s is ready. Add the players who sit at your table.")
            % {"club": club.name},
        )
        return redirect(club)
    return render(request, "games/club_form.html", {"form": form}, status=_refused(form))


@login_required
@require_safe
def club_detail(request: AuthedHttpRequest, club_id: int) -> HttpResponse:
    club, membership = club_for(request.user, club_id)
    sessions = GameSession.objects.filter(club=club).select_related("next_dealer")
    context = {
        "club": club,
        "membership": membership,
        "open_sessions": sessions.filter(status=GameSession.Status.OPEN),
        "recent_sessions": sessions.filter(status=GameSession.Status.CLOSED)[:5],
        "players": club.players.all(),
        "player_form": PlayerForm(club=club),
        "can_score": membership.has_role(Role.SCOREKEEPER),
        "is_owner": membership.has_role(Role.OWNER),
    }
    return render(request, "games/club_detail.html", context)


@login_required
def club_edit(request: AuthedHttpRequest, club_id: int) -> HttpResponse:
    club, membership = club_for(request.user, club_id, Role.OWNER)
    form = ClubForm(request.POST or None, instance=club)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, gettext("Club settings saved."))
        return redirect(club)
    if form.errors:
        # The form keeps what was typed; the heading names the club as it is stored
        # (validation copied the typed values onto the instance).
        club.refresh_from_db()
    return render(
        request, "games/club_form.html", {"form": form, "club": club}, status=_refused(form)
    )


@login_required
def player_list(request: AuthedHttpRequest, club_id: int) -> HttpResponse:
    """The roster; POST adds a player (scorekeepers and owners)."""
    club, membership = club_for(request.user, club_id)
    form = PlayerForm(club=club)
    if request.method == "POST":
        club, membership = club_for(request.user, club_id, Role.SCOREKEEPER)
        form = PlayerForm(request.POST, club=club)
        if form.is_valid():
            player = form.save()
            if not request.htmx:
                messages.success(
                    request, gettext("%(name)s joined the roster.") % {"name": player.name}
                )
                return redirect(reverse("player_list", args=[club.pk]) + "?added=1")
            form = PlayerForm(club=club)
    template = "games/players.html"
    if request.htmx:
        template += "#roster"
    context = {
        "club": club,
        "membership": membership,
        "players": club.players.select_related("user").filter(archived_at__isnull=True),
        "archived": club.players.filter(archived_at__isnull=False),
        "player_form": form,
        "can_score": membership.has_role(Role.SCOREKEEPER),
        # Right after an add (or a refused one) the name field keeps the focus, so the
        # phone keyboard stays open for the next name.
        "just_added": request.method == "POST" or request.GET.get("added") == "1",
    }
    return render(request, template, context, status=_refused(form))


@login_required
def player_edit(request: AuthedHttpRequest, player_id: int) -> HttpResponse:
    player, membership = player_for(request.user, player_id, Role.SCOREKEEPER)
    club = player.club
    form = PlayerForm(request.POST or None, instance=player, club=club, prefix="p")
    link_form = PlayerLinkForm(
        request.POST or None,
        club=club,
        prefix="l",
        initial={"member": club.memberships.filter(user=player.user_id).first()},
    )
    # A player without an account is paid through the handles the club saves for them; a
    # linked one keeps their own on their Account page (games.models.payment says why).
    handles_form = (
        None
        if player.user_id
        else HandlesForm(request.POST or None, instance=handles.row_for(player=player), prefix="h")
    )
    handles_ok = handles_form is None or handles_form.is_valid()
    if request.method == "POST" and form.is_valid() and link_form.is_valid() and handles_ok:
        member = link_form.cleaned_data["member"]
        player = form.save(commit=False)
        player.user = member.user if member else None
        if (
            member
            and Player.objects.filter(club=club, user=member.user).exclude(pk=player.pk).exists()
        ):
            link_form.add_error(
                "member",
                gettext("%(name)s is already linked to another player.")
                % {"name": member.user.username},
            )
        else:
            player.save()
            if handles_form is not None and handles_form.has_changed():
                row = handles_form.save(commit=False)
                row.updated_at, row.updated_by = timezone.now(), request.user
                row.save()
            messages.success(request, gettext("%(name)s saved.") % {"name": player.name})
            return redirect("player_list", club.pk)
    return render(
        request,
        "games/player_edit.html",
        {
            "club": club,
            "player": player,
            "form": form,
            "link_form": link_form,
            "handles_form": handles_form,
        },
        status=_refused(form, link_form, *([handles_form] if handles_form else [])),
    )


@login_required
@require_POST
def player_archive(request: AuthedHttpRequest, player_id: int) -> HttpResponse:
    """Archive a player (off the pickers, books kept) or bring them back."""
    player, _ = player_for(request.user, player_id, Role.SCOREKEEPER)
    archived = request.POST.get("archived") == "1"
    try:
        player = service.archive_player(player, archived)
    except service.ClubError as refused:
        messages.error(request, say(refused))
        return redirect("player_edit", player.pk)
    if archived:
        messages.success(
            request,
            gettext("%(name)s archived: off the pickers, books kept.") % {"name": player.name},
        )
    else:
        messages.success(
            request, gettext("%(name)s is back on the roster.") % {"name": player.name}
        )
    return redirect("player_list", player.club_id)


@login_required
@require_safe
def member_list(request: AuthedHttpRequest, club_id: int) -> HttpResponse:
    club, membership = club_for(request.user, club_id)
    context = {
        "club": club,
        "membership": membership,
        "members": club.memberships.select_related("user").order_by("user__username"),
        "invite_form": InviteForm(),
        "is_owner": membership.has_role(Role.OWNER),
        "roles": ROLE_CHOICES,
        "invites": club.invites.filter(used_at__isnull=True, expires_at__gt=timezone.now())
        if membership.has_role(Role.OWNER)
        else [],
    }
    return render(request, "games/members.html", context)


@login_required
@require_POST
def invite_create(request: AuthedHttpRequest, club_id: int) -> HttpResponse:
    club, _ = club_for(request.user, club_id, Role.OWNER)
    form = InviteForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("Pick a role for the invitation."))
        return redirect("member_list", club.pk)
    invite, token = Invite.issue(club, form.cleaned_data["role"], request.user)
    link = request.build_absolute_uri(reverse("invite_accept", args=[token]))
    # The token is shown once: only its hash is stored.
    return render(
        request,
        "games/invite_created.html",
        {"club": club, "invite": invite, "link": link, "role": _role_name(invite.role)},
    )


def _role_name(role: str) -> str:
    """A role in the reader's language."""
    return str(Role(role).label)


def _usable_invite(token: str) -> Invite:
    invite = Invite.objects.select_related("club").filter(token_hash=hash_token(token)).first()
    if invite is None:
        raise Http404(gettext("This invitation does not exist."))
    return invite


def invite_accept(request: HttpRequest, token: str) -> HttpResponse:
    invite = _usable_invite(token)
    if not invite.is_usable:
        return render(
            request, "games/invite_accept.html", {"invite": invite, "dead": True}, status=410
        )
    if not request.user.is_authenticated:
        context = {"invite": invite, "next": request.path, "role": _role_name(invite.role)}
        return render(request, "games/invite_accept.html", context)
    already = Membership.objects.filter(club=invite.club, user=request.user).exists()
    if request.method == "POST":
        try:
            invite = service.accept_invite(invite.pk, request.user)
        except service.ClubError:
            return render(
                request, "games/invite_accept.html", {"invite": invite, "dead": True}, status=410
            )
        messages.success(request, gettext("You joined %(club)s.") % {"club": invite.club.name})
        return redirect(invite.club)
    context = {"invite": invite, "already": already, "role": _role_name(invite.role)}
    return render(request, "games/invite_accept.html", context)


@login_required
@require_POST
def member_role(request: AuthedHttpRequest, club_id: int, membership_id: int) -> HttpResponse:
    club, me = club_for(request.user, club_id, Role.OWNER)
    target = get_object_or_404(Membership, pk=membership_id, club=club)
    form = RoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("Unknown role."))
        return redirect("member_list", club.pk)
    try:
        service.change_role(target, form.cleaned_data["role"])
    except service.ClubError as error:
        messages.error(request, say(error))
        return redirect("member_list", club.pk)
    messages.success(
        request,
        gettext("%(name)s is now %(role)s.")
        % {"name": target.user.username, "role": _role_name(target.role).lower()},
    )
    return redirect("member_list", club.pk)


@login_required
@require_POST
def member_remove(request: AuthedHttpRequest, club_id: int, membership_id: int) -> HttpResponse:
    club, me = club_for(request.user, club_id, Role.OWNER)
    target = get_object_or_404(Membership, pk=membership_id, club=club)
    try:
        service.remove_member(target)
    except service.ClubError as error:
        messages.error(request, say(error))
        return redirect("member_list", club.pk)
    messages.success(
        request,
        gettext("%(name)s was removed from %(club)s.")
        % {"name": target.user.username, "club": club.name},
    )
    if target.user_id == request.user.id:
        return redirect("home")
    return redirect("member_list", club.pk)


@require_safe
def rule_book(request: HttpRequest) -> HttpResponse:
    """The numbered rules, in full, one anchor per rule (``/rules/#R29``): what every
    "why?" beside a refusal links to. Public: a guest at the table may look a rule up."""
    sections = rulebook_text.sections()
    return render(request, "games/rule_book.html", {"sections": sections})
