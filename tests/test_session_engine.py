"""bourre_site.sessions: the login session's row read by one plain statement, held to
its ORM twin (Django's ``Session.objects.get(session_key=..., expire_date__gt=now)``)."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.backends.cached_db import SessionStore as CachedDjangoStore
from django.contrib.sessions.backends.db import SessionStore as DjangoStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from bourre_site import sessions
from bourre_site.sessions import SessionStore
from bourre_site.sessions_cached import SessionStore as CachedSessionStore

pytestmark = pytest.mark.django_db


def _orm(key):
    return Session.objects.filter(session_key=key, expire_date__gt=timezone.now()).first()


def test_the_row_is_the_orms_for_live_expired_unknown_and_empty_keys():
    live = DjangoStore()
    live["_auth_user_id"] = "7"
    live.create()
    expired = DjangoStore()
    expired["x"] = "y"
    expired.create()
    Session.objects.filter(session_key=expired.session_key).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )
    for key in (live.session_key, expired.session_key, "no-such-session-key", "", None):
        orm, raw = _orm(key), sessions.session_row(key)
        if orm is None:
            assert raw is None, key
            continue
        assert raw is not None, key
        assert (raw.session_key, raw.session_data, raw.expire_date) == (
            orm.session_key,
            orm.session_data,
            orm.expire_date,
        )
        assert raw.expire_date.tzinfo is not None
    assert sessions.session_row(live.session_key).get_decoded() == {"_auth_user_id": "7"}


def _observe(store) -> list:
    """What a phone's requests see of their login session through ``store``."""
    seen = []
    first = store()
    first["language"] = "fi"
    first.create()
    again = store(first.session_key)
    seen.append(again.get("language"))
    again["language"] = "ko"
    again.save()
    seen.append(store(first.session_key).get("language"))
    seen.append(DjangoStore(first.session_key).get("language"))  # the row itself
    gone = store("no-such-session-key")
    seen.append((gone.load(), gone.session_key))
    Session.objects.filter(session_key=first.session_key).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )
    stale = store(first.session_key)
    stale._get_or_create_session_key = lambda: "new"  # what a save would then create
    seen.append(stale.load() if store in (SessionStore, DjangoStore) else None)
    seen.append(stale.session_key if store in (SessionStore, DjangoStore) else None)
    return seen


@pytest.mark.parametrize(
    "ours, django",
    [(SessionStore, DjangoStore), (CachedSessionStore, CachedDjangoStore)],
)
def test_the_engines_see_what_djangos_see(ours, django):
    seen = _observe(ours)
    assert seen == _observe(django)
    # The third look reads the row with Django's own engine: what ours writes, Django
    # reads (the signature's salt is the class's name), so no login is lost either way.
    assert seen[:4] == ["fi", "ko", "ko", ({}, None)]


def test_the_site_uses_it():
    assert settings.SESSION_ENGINE in ("bourre_site.sessions", "bourre_site.sessions_cached")
