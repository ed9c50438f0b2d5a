"""Personal API tokens (mounted at the site root)."""

from django.urls import path

from .views import tokens

urlpatterns = [
    path("settings/tokens/", tokens.token_list, name="token_list"),
    path("settings/tokens/<id:token_id>/revoke/", tokens.token_revoke, name="token_revoke"),
]
