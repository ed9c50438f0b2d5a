"""Shared fixtures: the personas of every view test.

alice owns the club, bob keeps score, carol is a member, mallory is a stranger (signed in,
but in no club of theirs). `club` has four players on its roster.
"""

import time
import types

import pytest
from django.core.cache import cache
from django.utils import translation

from games.models import Role

from .factories import PASSWORD, ClubFactory, MembershipFactory, PlayerFactory, UserFactory


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    # The real hasher is slow by design; tests create and log in many users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _english_to_start():
    # LocaleMiddleware activates the request's language in the thread and leaves it there:
    # a test's requests in Sundanese must not decide the language of the next test.
    translation.activate("en")
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _clear_cache():
    # Rate-limit counters live in the cache; tests must not leak them into each other.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def password() -> str:
    return PASSWORD


@pytest.fixture
def alice(db):
    return UserFactory(username="alice")


@pytest.fixture
def bob(db):
    return UserFactory(username="bob")


@pytest.fixture
def carol(db):
    return UserFactory(username="carol")


@pytest.fixture
def mallory(db):
    return UserFactory(username="mallory")


@pytest.fixture
def club(alice, bob, carol):
    club = ClubFactory(name="Bayou Club", created_by=alice)
    MembershipFactory(club=club, user=alice, role=Role.OWNER)
    MembershipFactory(club=club, user=bob, role=Role.SCOREKEEPER)
    MembershipFactory(club=club, user=carol, role=Role.MEMBER)
    return club


@pytest.fixture
def players(club):
    return [PlayerFactory(club=club, name=name) for name in ("ann", "ben", "cal", "dee")]


def _client_for(client_class, user):
    client = client_class()
    client.force_login(user)
    return client


@pytest.fixture
def alice_client(alice, client):
    client.force_login(alice)
    return client


@pytest.fixture
def bob_client(bob, django_user_model):
    from django.test import Client

    return _client_for(Client, bob)


@pytest.fixture
def carol_client(carol):
    from django.test import Client

    return _client_for(Client, carol)


@pytest.fixture
def mallory_client(mallory):
    from django.test import Client

    return _client_for(Client, mallory)


@pytest.fixture
def steady_rate_clock(monkeypatch):
    """The API's rate windows are fixed (games.ratelimit ``window_hit``): two requests that
    straddle a window's end (the schema takes a second or more to build on a busy machine)
    would each be the first of its window. Tests that count within one window stop the
    rate limiter's clock."""
    now = time.time()
    monkeypatch.setattr("games.ratelimit.time", types.SimpleNamespace(time=lambda: now))
