from django.apps import AppConfig
from django.urls import register_converter

from .converters import IdConverter

# Registered at import time, before any URLconf is loaded, so every URLconf (the test
# ones included) can use `<id:...>`.
register_converter(IdConverter, "id")


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Bourré games"
