from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("games.api_urls")),
    path("api/v1/", include("games.tournament_api")),
    path("", include("games.session_urls")),
    path("", include("games.digital_urls")),
    path("", include("ledger.urls")),
    path("", include("games.token_urls")),
    path("", include("games.tournament_urls")),
    path("", include("games.urls")),
]

# A URL under /api/ that matches nothing answers problem+json; elsewhere the HTML page.
handler404 = "games.api_errors.api_not_found"
