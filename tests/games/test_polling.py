"""The scoreboard poll's fast path (games.polling): a member whose board is up to date gets
304 from one statement, without the user or the session being loaded; everybody else
gets exactly what the full view answers (issue #20)."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import polling
from games.models import Membership, Role

from .test_session_views import HTMX, WIN_ANN, record_direct, start_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(club, players, bob):
    return start_table(club, players, bob)


def _url(session) -> str:
    return reverse("session_detail", args=[session.pk])


def _queries(client, url, **headers):
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url, **headers)
    return response, [q["sql"] for q in ctx.captured_queries]


def test_unchanged_board_is_one_statement_after_the_login_session(carol_client, table):
    url = _url(table)
    etag = carol_client.get(url, **HTMX)["ETag"]
    response, sqls = _queries(carol_client, url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert response.status_code == 304 and response["ETag"] == etag
    assert "no-store" in response["Cache-Control"] and "HX-Request" in response["Vary"]
    # The login session, then the poll's one statement; the user and the session rows
    # are never read as such (the slow path ran 3 queries, with SELECT s.* of the session).
    assert len(sqls) == 2, sqls
    assert "django_session" in sqls[0]
    assert "s.*" not in sqls[1] and "version" in sqls[1]


def test_changed_board_renders_again(carol_client, table, bob):
    url = _url(table)
    etag = carol_client.get(url, **HTMX)["ETag"]
    record_direct(table, user=bob, **WIN_ANN)
    response = carol_client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert response.status_code == 200 and response["ETag"] != etag
    assert "#1" in response.content.decode()


def test_removed_member_learns_nothing(carol, carol_client, table):
    url = _url(table)
    etag = carol_client.get(url, **HTMX)["ETag"]
    Membership.objects.filter(user=carol).delete()
    assert carol_client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 404


def test_role_change_is_not_answered_with_the_old_etag(carol, carol_client, table):
    url = _url(table)
    etag = carol_client.get(url, **HTMX)["ETag"]
    Membership.objects.filter(user=carol).update(role=Role.SCOREKEEPER)
    response = carol_client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert response.status_code == 200
    assert response["ETag"].endswith('-scorekeeper"')


def test_strangers_and_anonymous_clients_never_get_304(mallory_client, carol_client, table):
    url = _url(table)
    etag = carol_client.get(url, **HTMX)["ETag"]
    assert mallory_client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 404
    assert Client().get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 302


def test_password_change_ends_the_fast_path_too(carol, carol_client, table):
    """A password change logs other sessions out (Django checks the session's hash); the
    fast path checks the same hash, so the old login gets no 304."""
    url = _url(table)
    etag = carol_client.get(url, **HTMX)["ETag"]
    carol.set_password("a-new-password-2")
    carol.save()
    assert carol_client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 302


def test_inactive_user_gets_no_304(carol, carol_client, table):
    url = _url(table)
    etag = carol_client.get(url, **HTMX)["ETag"]
    carol.is_active = False
    carol.save(update_fields=["is_active"])
    assert carol_client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 302


def test_unchanged_since_for_other_pages(table, bob):
    """The reusable part (for share links and other polled pages of a session)."""

    def etag_of(version: int) -> str:
        return f'"share-{table.pk}-{version}"'

    now = etag_of(table.version)
    assert polling.unchanged_since(table.pk, now, etag_of).status_code == 304
    assert polling.unchanged_since(table.pk, "", etag_of) is None
    assert polling.unchanged_since(table.pk, '"other"', etag_of) is None
    assert polling.unchanged_since(table.pk + 999, now, etag_of) is None
    record_direct(table, user=bob, **WIN_ANN)
    assert polling.unchanged_since(table.pk, now, etag_of) is None
