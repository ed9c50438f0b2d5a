"""The record POST's login: Django's own ``get_user`` (issue #31 removed the record path's
re-implementation of it, which saved one query), accepted or refused as Django does: a password change logs the phone out (the
login session is flushed, for good: not rolled back with the refused POST), an inactive
or deleted user is sent to log in, a removed member gets 404, a login made by another
authentication backend or signed with a fallback secret goes Django's way and still
records. Every refusal writes nothing; every saved hand leaves the books balanced."""

from __future__ import annotations

import pytest
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.sessions.models import Session
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import Membership, Role
from ledger import postings

from .games.test_session_views import HTMX, hand_data, start_table

pytestmark = pytest.mark.django_db

USER_TABLE = f'"{get_user_model()._meta.db_table}"'
OTHER_BACKEND = "tests.test_record_login.CountingBackend"


class CountingBackend(ModelBackend):
    """Another backend: its logins must reach its own ``get_user``."""

    calls: list[int] = []

    def get_user(self, user_id):
        CountingBackend.calls.append(user_id)
        return super().get_user(user_id)


@pytest.fixture
def table(club, players, bob):
    return start_table(club, players, bob)


def _post(client, session, **extra):
    session.refresh_from_db()
    url = reverse("hand_record", args=[session.pk])
    data = hand_data(session, trump="H", tricks={"ann": 3, "ben": 2}, confirmed="1")
    with CaptureQueriesContext(connection) as ctx:
        response = client.post(url, data, **{**HTMX, **extra})
    return response, [q["sql"] for q in ctx.captured_queries]


def _saved(response, session) -> bool:
    postings.check_invariants(session)
    session.refresh_from_db()
    return response.status_code == 200 and "saved" in response.content.decode()


def _nothing_written(table, hands: int = 0) -> None:
    table.refresh_from_db()
    assert table.hands_count == hands
    postings.check_invariants(table)


def _sent_to_login(response) -> bool:
    return response.status_code == 302 and reverse("login") in response["Location"]


def test_the_user_comes_from_the_locked_statement_as_the_orm_loads_it(bob, bob_client, table):
    bob.first_name, bob.is_staff = "Bob", True
    bob.save()
    response, sqls = _post(bob_client, table)
    assert _saved(response, table)
    user_reads = [s for s in sqls if USER_TABLE in s]
    assert len(user_reads) == 1, user_reads  # Django's get_user (issue #31)
    loaded = response.wsgi_request.user._wrapped  # Django's lazy user, loaded
    orm = get_user_model().objects.get(pk=bob.pk)
    assert type(loaded) is type(orm)
    fields = get_user_model()._meta.concrete_fields
    assert {f.attname: getattr(loaded, f.attname) for f in fields} == {
        f.attname: getattr(orm, f.attname) for f in fields
    }
    assert (loaded._state.adding, loaded._state.db) == (False, orm._state.db)
    assert table.hands.get(number=1).created_by_id == bob.pk


def _change_password(user, client) -> str:
    """Change the user's password elsewhere; the key of the client's login session."""
    key = client.session.session_key
    user.set_password("another-horse-battery")
    user.save()
    return key


def test_a_changed_password_logs_the_phone_out_and_saves_nothing(bob, bob_client, table):
    key = _change_password(bob, bob_client)
    response, _ = _post(bob_client, table)
    assert _sent_to_login(response)
    _nothing_written(table)
    # Flushed as Django flushes it, outside the refused POST's transaction: the old login
    # session is gone for good, and the phone is signed out.
    assert not Session.objects.filter(session_key=key).exists()
    again, _ = _post(bob_client, table)
    assert _sent_to_login(again)
    _nothing_written(table)


def test_a_login_session_without_its_hash_is_flushed(bob_client, table):
    session = bob_client.session
    key = session.session_key
    del session[HASH_SESSION_KEY]
    session.save()
    response, _ = _post(bob_client, table)
    assert _sent_to_login(response)
    _nothing_written(table)
    assert not Session.objects.filter(session_key=key).exists()


def test_an_inactive_user_is_sent_to_log_in(bob, bob_client, table):
    bob.is_active = False
    bob.save()
    response, _ = _post(bob_client, table)
    assert _sent_to_login(response)
    _nothing_written(table)


def test_a_deleted_user_is_sent_to_log_in(bob, bob_client, table):
    table.created_by = None
    table.save(update_fields=["created_by"])
    bob.delete()
    response, _ = _post(bob_client, table)
    assert _sent_to_login(response)
    _nothing_written(table)


def test_a_removed_member_gets_404_and_the_row_is_not_left_locked(
    bob, bob_client, alice_client, table, club
):
    Membership.objects.filter(club=club, user=bob).delete()
    response, _ = _post(bob_client, table)
    assert response.status_code == 404
    _nothing_written(table)
    # A member demoted to plain member: 403, nothing written either.
    Membership.objects.create(club=club, user=bob, role=Role.MEMBER)
    response, _ = _post(bob_client, table)
    assert response.status_code == 403
    _nothing_written(table)
    assert _saved(_post(alice_client, table)[0], table)
    _nothing_written(table, hands=1)


def test_a_login_of_another_backend_goes_through_django(bob, table, settings):
    from django.test import Client

    settings.AUTHENTICATION_BACKENDS = [
        "django.contrib.auth.backends.ModelBackend",
        OTHER_BACKEND,
    ]
    client = Client()
    client.force_login(bob, backend=OTHER_BACKEND)
    CountingBackend.calls.clear()
    response, sqls = _post(client, table)
    assert _saved(response, table)
    assert CountingBackend.calls == [bob.pk]
    # Read by the backend's own query, not taken from the joined statement.
    assert any(USER_TABLE in s and "FOR UPDATE" not in s for s in sqls)
    assert response.wsgi_request.user.pk == bob.pk


def test_a_login_of_a_backend_no_longer_configured_is_sent_to_log_in(bob_client, table):
    session = bob_client.session
    session[BACKEND_SESSION_KEY] = OTHER_BACKEND  # not in AUTHENTICATION_BACKENDS
    session.save()
    response, _ = _post(bob_client, table)
    assert _sent_to_login(response)
    _nothing_written(table)


def test_a_login_signed_with_a_fallback_secret_is_renewed_and_records(
    bob, bob_client, table, settings
):
    """Django accepts a session hash made with one of ``SECRET_KEY_FALLBACKS`` and renews
    the login session (a new key, the current hash); the record POST does the same."""
    old_key = bob_client.session.session_key
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a-rotated-secret-key-for-this-test-only-0123456789"
    response, _ = _post(bob_client, table)
    assert _saved(response, table)
    session = response.wsgi_request.session
    assert session.session_key != old_key
    assert session[HASH_SESSION_KEY] == bob.get_session_auth_hash()
    # The renewed login keeps recording, now on the fast path.
    response, sqls = _post(bob_client, table)
    assert _saved(response, table)
    assert len([s for s in sqls if USER_TABLE in s]) == 1


def test_an_anonymous_post_is_sent_to_log_in_with_its_path(client, table):
    response, _ = _post(client, table)
    assert _sent_to_login(response)
    assert reverse("hand_record", args=[table.pk]) in response["Location"]
    _nothing_written(table)


def test_a_plain_post_redirects_to_the_hand_with_the_user_loaded_from_the_statement(
    bob_client, table
):
    table.refresh_from_db()
    url = reverse("hand_record", args=[table.pk])
    data = hand_data(table, trump="H", tricks={"ann": 3, "ben": 2}, confirmed="1")
    response = bob_client.post(url, data)
    hand = table.hands.get(number=1)
    assert response.status_code == 302 and response["Location"] == reverse(
        "hand_detail", args=[hand.pk]
    )
    postings.check_invariants(table)


# -- the record form (GET): the same login, read with the session, not locked -------------


def _form(client, session, headers=HTMX):
    url = reverse("hand_record", args=[session.pk])
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url, **headers)
    return response, [q["sql"] for q in ctx.captured_queries]


def test_the_record_form_reads_the_user_with_the_session_unlocked(bob, bob_client, table):
    response, sqls = _form(bob_client, table)
    assert response.status_code == 200 and "Record hand 1" in response.content.decode()
    user_reads = [s for s in sqls if USER_TABLE in s]
    assert len(user_reads) == 1, user_reads  # Django's get_user (issue #31)
    assert not [s for s in sqls if "FOR UPDATE" in s]
    # The whole page's menu names the user that statement read.
    page, page_sqls = _form(bob_client, table, headers={})
    assert page.status_code == 200 and f">{bob.username}" in page.content.decode()
    assert len([s for s in page_sqls if USER_TABLE in s]) == 1


def test_the_record_form_after_a_password_change_sends_the_phone_to_log_in(bob, bob_client, table):
    key = _change_password(bob, bob_client)
    response, _ = _form(bob_client, table)
    assert _sent_to_login(response)
    assert not Session.objects.filter(session_key=key).exists()  # flushed, as Django does


def test_the_record_form_of_an_inactive_or_anonymous_user_sends_to_log_in(
    bob, bob_client, client, table
):
    response, _ = _form(client, table)
    assert _sent_to_login(response)
    assert reverse("hand_record", args=[table.pk]) in response["Location"]
    bob.is_active = False
    bob.save()
    assert _sent_to_login(_form(bob_client, table)[0])


def test_the_record_form_refuses_strangers_and_members_below_scorekeeper(
    carol_client, mallory_client, table
):
    assert _form(mallory_client, table)[0].status_code == 404
    assert _form(carol_client, table)[0].status_code == 403


def test_the_record_form_of_another_backends_login_goes_through_django(bob, table, settings):
    from django.test import Client

    settings.AUTHENTICATION_BACKENDS = [OTHER_BACKEND, *settings.AUTHENTICATION_BACKENDS]
    client = Client()
    client.force_login(bob, backend=OTHER_BACKEND)
    CountingBackend.calls.clear()
    response, _ = _form(client, table)
    assert response.status_code == 200 and CountingBackend.calls == [bob.pk]
