"""The season pages (games.seasons.views)."""

from django.urls import path

from games.seasons import views

urlpatterns = [
    path("clubs/<id:club_id>/seasons/", views.season_list, name="season_list"),
    path("clubs/<id:club_id>/seasons/new/", views.season_create, name="season_create"),
    path("seasons/<id:season_id>/", views.season_standings, name="season_standings"),
    path("seasons/<id:season_id>/edit/", views.season_edit, name="season_edit"),
    path("seasons/<id:season_id>/share/", views.season_share, name="season_share"),
    path("seasons/<id:season_id>/standings.csv", views.season_csv, name="season_csv"),
    path("season/<str:token>/", views.season_public, name="season_public"),
]
