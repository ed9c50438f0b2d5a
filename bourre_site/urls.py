from django.contrib import admin
from django.urls import include, path

from bourre_site.metrics import metrics_view

# One URL module per app: the games app includes each of its features' URL modules.
urlpatterns = [
    path("admin/", admin.site.urls),
    # Prometheus's scrape, for loopback and the trusted proxies only (bourre_site/metrics.py).
    path("metrics", metrics_view, name="metrics"),
    # The installable app's manifest, service worker (root scope) and offline page.
    path("", include("bourre_site.pwa")),
    path("", include("games.urls")),
]

# A URL under /api/ that matches nothing answers problem+json; elsewhere the HTML page.
handler404 = "games.api.errors.api_not_found"
# A database that went away before the view ran (the login session is read in middleware):
# the outage's 503 with Retry-After, like one inside a view (bourre_site/middleware.py).
handler500 = "bourre_site.middleware.server_error"
