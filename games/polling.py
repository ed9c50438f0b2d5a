"""What every self-refreshing page shares: htmx polls send the ETag they were rendered
with (`If-None-Match` in hx-headers) and get 304 with no body while nothing changed.

A scoreboard poll that is answered 304 is the most frequent request of a live table (three
phones every few seconds), so it is answered in one round trip to the database, before
the login machinery, the language and the view (``BoardPollMiddleware``, right after
Django's SessionMiddleware). A member's ETag names the session, its version, the viewer's
role and the viewer's user id; from the path, the ETag and the login cookie one statement
(``games.sql.login_board_poll``) reads the login session's row (as the database session
engine would), the session's version, that user's role in its club and the password
hash the login must match. The user id in the ETag is only a hint: the 304 needs the
login session's own signed data to name the same user. No user model is built, no
template rendered; anything it is not sure about (no login, a stranger, a stale ETag,
another session engine or auth backend) falls through to the normal view, which answers
exactly as before (reading the login session again: nothing is handed to it on the
side, issue #31). Measured gain: 38.6 % of a 304 poll (bench/devices.py,
``poll_middleware``); tests/games/test_polling.py holds its answers to the view's.

Choices (issue #20):

- The version is read from the database, not from the cache. The default cache is per
  process (three gunicorn workers would each hold their own version, and a worker that
  missed a write would keep answering 304 over a recorded hand), and even a shared cache
  fed after commit can be overtaken by a later write. A shared cache (``REDIS_URL``) would
  not save the round trip either: the membership and the password hash must be read
  *now* (a removed member, a changed password), and the login session's row rides along
  in the same statement, so Redis would add a hop, not remove one. The read is primary
  keys and the membership's unique index: flat, and always the committed truth.
- The login session is read from its table even with ``cached_db`` sessions: every write
  of that engine goes to the database first (a logout deletes the row), so the row is the
  truth the cache copies. Other engines (signed cookies, cache only) skip the middleware;
  ``member_board_unchanged`` in the view then answers from the loaded session and
  ``games.sql.board_poll``, one statement more.
- Nobody learns anything they could not see: the 304 needs a membership of the session's
  club *now* (a member removed a second ago falls through to the view's 404), an active
  user and a login session whose password hash still matches (what Django's own
  ``get_user`` checks). The ETag names the session, its version, the viewer's role and
  the viewer's own id, all sent only to that viewer (``private, no-store``); a guessed
  ETag sent by a stranger or an anonymous client gets the normal 404 or login redirect,
  never a 304.
- The fast 304 carries the slow one's ``ETag``, ``Cache-Control`` and ``Vary``. It has
  no ``Content-Language`` or ``X-Frame-Options``: there is no body to describe or frame.
  The host is checked as CommonMiddleware would (a foreign ``Host`` is still a 400).
- ``unchanged_since`` is the reusable part for other polled pages of a session (e.g. a
  public share link): the caller decides who may see the page, then hands over the
  session id, the client's ``If-None-Match`` and how its ETag is made from the version.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.crypto import constant_time_compare
from django.utils.http import parse_etags

from games import sql

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"
MIDDLEWARE = "games.polling.BoardPollMiddleware"
# Engines whose login sessions live in django_session's rows (cached_db writes there first).
# Their SessionStore classes are checked by module: a subclass may keep its rows elsewhere.
DATABASE_SESSION_ENGINES = frozenset(
    {
        "django.contrib.sessions.backends.db",
        "django.contrib.sessions.backends.cached_db",
    }
)
# A member's scoreboard ETag (board_etag with a user id), as htmx sends it back; ids that
# fit a 64-bit key (games/converters.py), so no lookup overflows.
MEMBER_BOARD_ETAG = re.compile(r'"board-(\d{1,18})-(\d{1,18})-([a-z]+)-(\d{1,18})"')


def etag_matches(request: HttpRequest, etag: str) -> bool:
    return etag in parse_etags(request.headers.get("If-None-Match", ""))


def live(response: HttpResponse, etag: str) -> HttpResponse:
    """Tag a polled response. Never stored: a browser cache would turn the 304s into 200s
    with a cached body, and htmx would swap the same content again."""
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-store"
    patch_vary_headers(response, ["HX-Request"])
    return response


def not_modified(etag: str) -> HttpResponse:
    return live(HttpResponseNotModified(), etag)


def board_etag(session_id: int, version: int, role: str, user_id: int | None = None) -> str:
    """The scoreboard's ETag: it changes only with the session's version and with what the
    viewer's role may do on it. A member's also names the member (``user_id``), which
    lets ``BoardPollMiddleware`` read the login and the board in one statement; a
    share link's viewer has none."""
    if user_id is None:
        return f'"board-{session_id}-{version}-{role}"'
    return f'"board-{session_id}-{version}-{role}-{user_id}"'


def unchanged_since(
    session_id: int,
    if_none_match: str,
    etag_of: Callable[[int], str],
    version: int | None = None,
) -> HttpResponse | None:
    """304 if the client's ETag (``If-None-Match``) is the one the page would have now,
    else None (the caller renders). ``etag_of`` makes the page's ETag from the session's
    version; ``version`` may be given when the caller has just read it. The caller must
    already have decided that the client may see the page."""
    if not if_none_match:
        return None
    if version is None:
        version = sql.session_version(session_id)
        if version is None:
            return None
    etag = etag_of(version)
    if etag not in parse_etags(if_none_match):
        return None
    return not_modified(etag)


def login_user_id(login: Mapping[str, Any]) -> int | None:
    """The logged-in user's id from the login session's data, without loading the user;
    None when there is no login or it was made by another authentication backend."""
    try:
        raw, backend = login[SESSION_KEY], login[BACKEND_SESSION_KEY]
    except KeyError:
        return None
    if backend != MODEL_BACKEND or backend not in settings.AUTHENTICATION_BACKENDS:
        return None
    try:
        return int(get_user_model()._meta.pk.to_python(raw))
    except (TypeError, ValueError, ValidationError):
        return None


def _login_holds(login: Mapping[str, Any], password: str, active: bool) -> bool:
    """Whether the user still accepts this login: active, and the login's password hash
    the current one. Django's get_user() checks the same hash (a password change logs
    sessions out); anything but an exact match goes the slow way, which also tries the
    fallback keys."""
    session_hash = login.get(HASH_SESSION_KEY) or ""
    expected = get_user_model()(password=password).get_session_auth_hash()
    return active and constant_time_compare(session_hash, expected)


def member_board_unchanged(request: HttpRequest, session_id: int) -> HttpResponse | None:
    """The scoreboard poll's fast path in the view, for what ``BoardPollMiddleware`` did
    not answer: 304 for a member whose board is up to date, None for everything else
    (the view then runs as usual). A poll the middleware has asked the database about
    already (``middleware_asks``, decided from the request alone) is not asked again."""
    if MIDDLEWARE in settings.MIDDLEWARE and middleware_asks(request) is not None:
        return None
    if_none_match = request.headers.get("If-None-Match", "")
    if not if_none_match:
        return None
    session = getattr(request, "session", None)
    if session is None:
        return None
    user_id = login_user_id(session)
    if user_id is None:
        return None
    row = sql.board_poll(user_id, session_id)
    if row is None:
        return None
    version, role, password, active = row
    if not _login_holds(session, password, active):
        return None
    return unchanged_since(
        session_id,
        if_none_match,
        lambda v: board_etag(session_id, v, role, user_id),
        version=version,
    )


def middleware_asks(request: HttpRequest) -> re.Match[str] | None:
    """The ETag's match when ``BoardPollMiddleware`` sends its statement for this request
    (read from the request alone, without the database), else None."""
    if request.method != "GET" or request.headers.get("HX-Request") != "true":
        return None
    match = MEMBER_BOARD_ETAG.fullmatch(request.headers.get("If-None-Match", "").strip())
    if match is None:
        return None
    if settings.SESSION_SAVE_EVERY_REQUEST:
        return None  # every request must save (and extend) the login: the view does
    session = getattr(request, "session", None)
    if type(session).__module__ not in DATABASE_SESSION_ENGINES:
        return None
    if session is None or not session.session_key:
        return None
    if request.path != reverse("session_detail", args=[int(match[1])]):
        return None
    return match


def login_board_unchanged(request: HttpRequest) -> HttpResponse | None:
    """304 for an htmx poll of a member's scoreboard that is up to date, from one
    statement; None for everything else (the request goes on as usual)."""
    match = middleware_asks(request)
    if match is None:
        return None
    session: Any = request.session
    key = session.session_key
    session_id, user_id = int(match[1]), int(match[4])
    request.get_host()  # the host check CommonMiddleware makes (DisallowedHost: a 400)
    found = sql.login_board_poll(key, user_id, session_id)
    if found is None:
        return None  # no live login: the view sends the phone to log in
    data, board = found
    login = session.decode(data)
    if board is None or login_user_id(login) != user_id:
        return None
    version, role, password, active = board
    if not _login_holds(login, password, active):
        return None
    etag = board_etag(session_id, version, role, user_id)
    if etag != match[0]:
        return None
    response = not_modified(etag)
    # The slow 304's Vary: LocaleMiddleware's and SessionMiddleware's, which it skips.
    patch_vary_headers(response, ["Accept-Language", "Cookie"])
    return response


class BoardPollMiddleware:
    """``login_board_unchanged`` before the rest of the stack: right after Django's
    SessionMiddleware (it needs the login cookie), before anything reads the session."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        unchanged = login_board_unchanged(request)
        if unchanged is not None:
            return unchanged
        return self.get_response(request)
