"""The project's URLs with the API's 404 handler (until bourre_site/urls.py sets it)."""

from bourre_site import urls as root

urlpatterns = root.urlpatterns
handler404 = getattr(root, "handler404", "games.api.errors.api_not_found")
