"""Every URL of the games app: one module per feature, included here.

The features' paths never overlap, so the order below does not decide any match; it only
reads from the API down to the club pages.
"""

from django.urls import include, path

from games.language import set_language

urlpatterns = [
    path("api/v1/", include("games.api.urls")),
    path("", include("games.sessions.urls")),
    path("", include("games.digital.urls")),
    path("", include("games.tournaments.urls")),
    path("", include("games.seasons.urls")),
    path("", include("games.clubs.urls")),
    path("language/", set_language, name="set_language"),
]
