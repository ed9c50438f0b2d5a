"""Tournament API URLs (mounted under /api/v1/), filled in by the tournaments feature."""

urlpatterns: list = []
