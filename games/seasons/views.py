"""The season pages: the club's seasons (list, new, edit), a season's standings with its
formula and its public link, the standings CSV, and the public standings by link.

Members read; the owner and scorekeepers create, edit and share (``games.access
.season_for``); strangers get 404. The public page (``/season/<token>/``) shows rank,
name, points and tournaments played: never home-session money or attendance.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext

from games.access import club_for, season_for
from games.error_pages import require_POST, require_safe
from games.http import AuthedHttpRequest
from games.models import Role, Season
from games.seasons import points, service
from games.seasons.forms import SeasonForm
from games.seasons.standings import CSV_COLUMNS, csv_rows, formula_of, public_rows, standings
from ledger import exports


def _formula(season: Season) -> dict[str, object]:
    """The season's formula for the page: its parameters, whether it is the published
    default, and what 1st, 2nd and 3rd of a field of 10 score with it."""
    formula = formula_of(season)
    return {
        "formula": formula,
        "is_default": formula == points.DEFAULT,
        "examples": [points.points(formula, place, 10) for place in (1, 2, 3)],
    }


def _refused(form: SeasonForm) -> int:
    return 422 if form.errors else 200


@login_required
@require_safe
def season_list(request: AuthedHttpRequest, club_id: int) -> HttpResponse:
    club, membership = club_for(request.user, club_id)
    return render(
        request,
        "games/season_list.html",
        {
            "club": club,
            "membership": membership,
            "seasons": club.seasons.all(),
            "can_edit": membership.has_role(Role.SCOREKEEPER),
        },
    )


@login_required
def season_create(request: AuthedHttpRequest, club_id: int) -> HttpResponse:
    club, _ = club_for(request.user, club_id, Role.SCOREKEEPER)
    form = SeasonForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        season = form.save(commit=False)
        season.club = club
        season.created_by = request.user
        season.save()
        messages.success(request, gettext("Season %(name)s created.") % {"name": season.name})
        return redirect(season)
    return render(
        request,
        "games/season_form.html",
        {"club": club, "form": form, "season": None, "default": points.DEFAULT},
        status=_refused(form),
    )


@login_required
def season_edit(request: AuthedHttpRequest, season_id: int) -> HttpResponse:
    season, _ = season_for(request.user, season_id, Role.SCOREKEEPER)
    form = SeasonForm(request.POST or None, instance=season)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, gettext("Season %(name)s saved.") % {"name": season.name})
        return redirect(season)
    if form.errors:
        season.refresh_from_db()
    return render(
        request,
        "games/season_form.html",
        {"club": season.club, "form": form, "season": season, "default": points.DEFAULT},
        status=_refused(form),
    )


@login_required
@require_safe
def season_standings(request: AuthedHttpRequest, season_id: int) -> HttpResponse:
    season, membership = season_for(request.user, season_id)
    can_edit = membership.has_role(Role.SCOREKEEPER)
    public_url = ""
    if can_edit and season.public_token:
        public_url = request.build_absolute_uri(
            reverse("season_public", args=[season.public_token])
        )
    return render(
        request,
        "games/season_standings.html",
        {
            "club": season.club,
            "season": season,
            "rows": standings(season),
            **_formula(season),
            "can_edit": can_edit,
            "public_url": public_url,
            "public": False,
        },
    )


@login_required
@require_POST
def season_share(request: AuthedHttpRequest, season_id: int) -> HttpResponse:
    """``action=public`` makes the standings public by link; ``action=revoke`` ends it."""
    season, _ = season_for(request.user, season_id, Role.SCOREKEEPER)
    action = request.POST.get("action")
    if action == "public":
        service.make_public(season)
        messages.success(request, gettext("Anyone with the link can now see the standings."))
    elif action == "revoke":
        service.revoke_public(season)
        messages.success(request, gettext("The public link is revoked: it opens nothing now."))
    else:
        messages.error(request, gettext("Choose to share the standings or to revoke the link."))
    return redirect(season)


@login_required
@require_safe
def season_csv(request: AuthedHttpRequest, season_id: int) -> HttpResponse:
    season, _ = season_for(request.user, season_id)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="season-{season.pk}-standings.csv"'
    writer = exports.writer(response, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    writer.writerows(csv_rows(season, standings(season)))
    return response


@require_safe
def season_public(request: HttpRequest, token: str) -> HttpResponse:
    season = (
        Season.objects.filter(public_token=token).select_related("club").first() if token else None
    )
    if season is None:
        raise Http404("No such season")
    return render(
        request,
        "games/season_public.html",
        {
            "club": season.club,
            "season": season,
            "rows": public_rows(standings(season)),
            **_formula(season),
            "public": True,
        },
    )
