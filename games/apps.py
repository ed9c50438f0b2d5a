from django.apps import AppConfig
from django.conf import settings
from django.urls import register_converter

from .converters import IdConverter

# Registered at import time, before any URLconf is loaded, so every URLconf (the test
# ones included) can use `<id:...>`.
register_converter(IdConverter, "id")


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Bourré games"

    def ready(self) -> None:
        # The ledger records every hand but cannot import the tournament service (the
        # service posts chips through the ledger): the service tells the ledger here that
        # it wants to hear of each hand at a tournament table (ledger.postings calls it
        # after commit, from record_hand, complete_hand and void_hand).
        from bourre_site import startup  # noqa: F401  (registers the secret-key check)
        from bourre_site.i18n import compile_catalogues, register_languages

        # Sundanese for Django, and the .mo files from the .po files (bourre_site/i18n.py),
        # before the first request loads a catalogue.
        register_languages()
        compile_catalogues(*settings.LOCALE_PATHS)
        # The player's saved language goes into the session at login (games/language.py).
        from django.contrib.auth.signals import user_logged_in

        from games.language import remember_language

        user_logged_in.connect(remember_language, dispatch_uid="games.language")
        # A persistent PostgreSQL connection the server has ended is replaced before the
        # request uses it, without a SELECT 1 per request (bourre_site/dbhealth.py).
        from django.core.signals import request_started

        from bourre_site.dbhealth import check_connections

        request_started.connect(check_connections, dispatch_uid="bourre_site.dbhealth")
        from games.tournaments import service
        from ledger import postings

        postings.on_table_hand(service.after_hand)
        # A short freeze-out table breaks (or takes a player) before it deals (T1–T2).
        postings.on_table_deal(service.deal_check)
        # Webhook events go into the outbox in the transaction of the change they tell of.
        from games.api import outbox

        postings.on_change(outbox.on_ledger_change)
        postings.on_tab_change(outbox.on_tab_change)
