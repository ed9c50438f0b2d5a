"""Tournament pages (issue #6), mounted at the site root."""

from django.urls import path

from games.tournaments import views

urlpatterns = [
    path("clubs/<id:club_id>/tournaments/", views.tournament_list, name="tournament_list"),
    path("clubs/<id:club_id>/tournaments/new/", views.tournament_create, name="tournament_create"),
    path("tournaments/structure/", views.structure_preview, name="tournament_structure"),
    path("tournaments/<id:tournament_id>/", views.tournament_detail, name="tournament_detail"),
    path("tournaments/<id:tournament_id>/edit/", views.tournament_edit, name="tournament_edit"),
    path("tournaments/<id:tournament_id>/entries/", views.entry_add, name="tournament_entry_add"),
    path(
        "tournaments/<id:tournament_id>/entries/check-in-all/",
        views.checkin_all,
        name="tournament_checkin_all",
    ),
    path(
        "tournaments/<id:tournament_id>/entries/<id:entry_id>/<str:action>/",
        views.entry_action,
        name="tournament_entry_action",
    ),
    path("tournaments/<id:tournament_id>/cap/", views.field_cap, name="tournament_cap"),
    path("tournaments/<id:tournament_id>/start/", views.tournament_start, name="tournament_start"),
    path(
        "tournaments/<id:tournament_id>/next-round/",
        views.round_draw,
        name="tournament_next_round",
    ),
    path("tournaments/<id:tournament_id>/end-round/", views.round_end, name="tournament_end_round"),
    path(
        "tournaments/<id:tournament_id>/tables/<id:table_id>/end/",
        views.table_end,
        name="tournament_table_end",
    ),
    path(
        "tournaments/<id:tournament_id>/tables/<id:table_id>/autoplay/",
        views.table_autoplay,
        name="tournament_table_autoplay",
    ),
    path("tournaments/<id:tournament_id>/sync/", views.tournament_sync, name="tournament_sync"),
    path("tournaments/<id:tournament_id>/bracket/", views.bracket, name="tournament_bracket"),
    path(
        "tournaments/<id:tournament_id>/standings/",
        views.standings,
        name="tournament_standings",
    ),
    path("tournaments/<id:tournament_id>/prizes/", views.prizes, name="tournament_prizes"),
    path(
        "tournaments/<id:tournament_id>/prizes.csv",
        views.prizes_csv,
        name="tournament_prizes_csv",
    ),
    path(
        "tournaments/<id:tournament_id>/standings.csv",
        views.standings_csv,
        name="tournament_standings_csv",
    ),
    path("tournaments/<id:tournament_id>/clock/", views.clock_control, name="tournament_clock"),
    path(
        "tournaments/<id:tournament_id>/reseed/", views.tournament_reseed, name="tournament_reseed"
    ),
    path("tournaments/<id:tournament_id>/roster/", views.roster_paste, name="tournament_roster"),
    path("tournaments/<id:tournament_id>/deal/", views.deal_make, name="tournament_deal"),
    path("t/<str:token>/", views.public_bracket, name="tournament_public"),
    path("t/<str:token>/tv/", views.tournament_tv, name="tournament_tv"),
    path("t/<str:token>/print/", views.tournament_print, name="tournament_print"),
    path("t/<str:token>/verify/", views.tournament_verify, name="tournament_verify"),
]
