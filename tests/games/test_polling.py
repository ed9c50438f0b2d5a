"""The scoreboard poll's fast path (games.polling): a member whose board is up to date gets
304 from one statement (the login session's row and the board together), without the user
or the session being loaded; everybody else gets exactly what the full view answers
(issue #20). These run on SQLite and, with DATABASE_URL=postgres://..., on PostgreSQL."""

import pytest
from django.conf import settings as django_settings
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import polling
from games.models import Membership, Role

from .test_session_views import HTMX, WIN_ANN, record_direct, start_table

pytestmark = pytest.mark.django_db
SESSION_TABLE = Session._meta.db_table
POLL_MIDDLEWARE = "games.polling.BoardPollMiddleware"


@pytest.fixture
def table(club, players, bob):
    return start_table(club, players, bob)


def _url(session) -> str:
    return reverse("session_detail", args=[session.pk])


def _queries(client, url, **headers):
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url, **headers)
    return response, [q["sql"] for q in ctx.captured_queries]


def test_unchanged_board_is_one_statement_with_the_login_session(carol_client, table):
    url = _url(table)
    etag = carol_client.get(url, **HTMX)["ETag"]
    response, sqls = _queries(carol_client, url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert response.status_code == 304 and response["ETag"] == etag
    assert "no-store" in response["Cache-Control"] and "HX-Request" in response["Vary"]
    # The login session's row and the board in one statement; the user and the session
    # rows are never read as such (the slow path ran 3 queries, with SELECT s.* of the
    # session; before the middleware the login session was a statement of its own).
    assert len(sqls) == 1, sqls
    assert SESSION_TABLE in sqls[0] and "version" in sqls[0] and "s.*" not in sqls[0]


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
    assert response["ETag"].endswith(f'-scorekeeper-{carol.pk}"')


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


# -- the middleware's one statement: who it believes, and what it leaves to the view --------


def _vary(response) -> set[str]:
    return {v.strip() for v in response["Vary"].split(",")}


def test_the_fast_304_has_the_slow_304s_headers(carol, carol_client, table, settings):
    url = _url(table)
    etag = carol_client.get(url, **HTMX)["ETag"]
    fast = carol_client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    settings.MIDDLEWARE = [m for m in django_settings.MIDDLEWARE if m != POLL_MIDDLEWARE]
    slow = Client()  # a client loads the middleware once: a new one without it
    slow.force_login(carol)
    response, sqls = _queries(slow, url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert len(sqls) == 2  # the view's own fast path: the login session, then board_poll
    assert fast.status_code == response.status_code == 304
    for header in ("ETag", "Cache-Control"):
        assert fast[header] == response[header], header
    assert _vary(fast) == _vary(response) == {"HX-Request", "Accept-Language", "Cookie"}


def test_a_stale_poll_reads_the_login_session_once(carol_client, table, bob):
    """The middleware's statement fell through (a hand was recorded): the re-render does
    not ask for the board again. It reads the login session again (nothing is handed
    from the middleware to the view on the side since issue #31: 1 read before)."""
    url = _url(table)
    etag = carol_client.get(url, **HTMX)["ETag"]
    record_direct(table, user=bob, **WIN_ANN)
    response, sqls = _queries(carol_client, url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert response.status_code == 200 and "#1" in response.content.decode()
    assert len([s for s in sqls if SESSION_TABLE in s]) == 2, sqls
    # The board's version is not asked again; the login's user is Django's get_user.
    assert len([s for s in sqls if 's."version", m."role"' in s]) == 1, sqls
    assert len(sqls) == 7, sqls  # 5 before issue #31


def test_logged_out_phone_is_sent_to_log_in(carol_client, table):
    url = _url(table)
    etag = carol_client.get(url, **HTMX)["ETag"]
    key = carol_client.session.session_key
    carol_client.logout()  # deletes the login session's row
    assert not Session.objects.filter(session_key=key).exists()
    carol_client.cookies["sessionid"] = key  # the phone still sends the old cookie
    assert carol_client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 302


def test_expired_login_session_gets_no_304(carol_client, table):
    url = _url(table)
    etag = carol_client.get(url, **HTMX)["ETag"]
    key = carol_client.session.session_key
    Session.objects.filter(session_key=key).update(
        expire_date=timezone.now() - timezone.timedelta(seconds=1)
    )
    assert carol_client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 302


def test_tampered_login_session_gets_no_304(carol_client, table):
    url = _url(table)
    etag = carol_client.get(url, **HTMX)["ETag"]
    key = carol_client.session.session_key
    row = Session.objects.get(session_key=key)
    Session.objects.filter(session_key=key).update(session_data=row.session_data[:-2] + "xx")
    assert carol_client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 302


def test_the_user_id_in_the_etag_is_only_a_hint(bob, bob_client, carol, carol_client, table):
    """Carol sends bob's ETag (his id, his role): the statement reads bob's membership and
    password, but carol's login session names carol, so no 304 answers for bob."""
    url = _url(table)
    bob_etag = bob_client.get(url, **HTMX)["ETag"]
    assert bob_etag.endswith(f'-scorekeeper-{bob.pk}"')
    assert bob_client.get(url, HTTP_IF_NONE_MATCH=bob_etag, **HTMX).status_code == 304
    response = carol_client.get(url, HTTP_IF_NONE_MATCH=bob_etag, **HTMX)
    assert response.status_code == 200
    assert response["ETag"] == f'"board-{table.pk}-{table.version}-member-{carol.pk}"'


def test_an_etag_of_another_session_is_not_answered_here(club, players, bob, carol_client, table):
    other = start_table(club, players, bob)
    etag = carol_client.get(_url(other), **HTMX)["ETag"]
    # The right version and role, the wrong page: the path decides, not the ETag.
    assert other.version == table.version
    response = carol_client.get(_url(table), HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert response.status_code == 200 and response["ETag"] != etag


def test_an_etag_from_before_the_user_id_renders_once(carol_client, table):
    """A phone open across the deploy sends the old ETag (no user id): one re-render."""
    url = _url(table)
    old = f'"board-{table.pk}-{table.version}-member"'
    response = carol_client.get(url, HTTP_IF_NONE_MATCH=old, **HTMX)
    assert response.status_code == 200
    assert carol_client.get(url, HTTP_IF_NONE_MATCH=response["ETag"], **HTMX).status_code == 304


def test_an_id_past_64_bits_in_the_etag_is_no_error(carol_client, table):
    url = _url(table)
    huge = f'"board-{table.pk}-{table.version}-member-{"9" * 25}"'
    response = carol_client.get(url, HTTP_IF_NONE_MATCH=huge, **HTMX)
    assert response.status_code == 200 and response["ETag"] != huge


def test_only_htmx_gets_of_the_board_are_answered(carol_client, table):
    url = _url(table)
    etag = carol_client.get(url, **HTMX)["ETag"]
    page = carol_client.get(url, HTTP_IF_NONE_MATCH=etag)  # a browser's full page load
    assert page.status_code == 200 and "<html" in page.content.decode()


def test_a_foreign_host_is_refused_as_before(carol_client, table):
    url = _url(table)
    etag = carol_client.get(url, **HTMX)["ETag"]
    response = carol_client.get(url, HTTP_IF_NONE_MATCH=etag, HTTP_HOST="evil.example", **HTMX)
    assert response.status_code == 400


@pytest.mark.parametrize(
    "engine",
    [
        "django.contrib.sessions.backends.cached_db",
        "django.contrib.sessions.backends.db",
    ],
)
def test_database_session_engines_answer_from_the_row(carol, table, settings, engine):
    """cached_db writes the row first and deletes it at logout: the row is the truth."""
    settings.SESSION_ENGINE = engine
    client = Client()
    client.force_login(carol)
    url = _url(table)
    etag = client.get(url, **HTMX)["ETag"]
    response, sqls = _queries(client, url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert response.status_code == 304 and len(sqls) == 1
    client.logout()
    assert client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 302


def test_other_session_engines_use_the_views_fast_path(carol, table, settings):
    """Signed-cookie sessions have no row to read: the view answers from the loaded login
    and games.sql.board_poll, still without loading the user."""
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
    client = Client()
    client.force_login(carol)
    url = _url(table)
    etag = client.get(url, **HTMX)["ETag"]
    response, sqls = _queries(client, url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert response.status_code == 304 and response["ETag"] == etag
    assert len(sqls) == 1 and SESSION_TABLE not in sqls[0], sqls
    carol.set_password("a-new-password-2")
    carol.save()
    assert client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 302


def test_saving_every_request_leaves_the_poll_to_the_view(carol_client, table, settings):
    """SESSION_SAVE_EVERY_REQUEST extends the login on every request: a 304 from the
    middleware would skip that, so the view answers (and the session is saved)."""
    settings.SESSION_SAVE_EVERY_REQUEST = True
    url = _url(table)
    etag = carol_client.get(url, **HTMX)["ETag"]
    response, sqls = _queries(carol_client, url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert response.status_code == 304
    assert any(s.startswith("UPDATE") and SESSION_TABLE in s for s in sqls), sqls
