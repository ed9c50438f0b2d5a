"""What every self-refreshing page shares: htmx polls send the ETag they were rendered
with (`If-None-Match` in hx-headers) and get 304 with no body while nothing changed.

A scoreboard poll that is answered 304 is the most frequent request of a live table (three
phones every few seconds), so it has a fast path that runs before the login machinery:
``member_board_unchanged`` reads the user id from the login session, then asks one
statement (``games.sql.board_poll``) for the session's version, the user's role in its
club and the password hash the login session must match. No user model is built, no
template rendered; anything it is not sure about (no login, a stranger, a stale ETag,
another auth backend) falls through to the normal view, which answers exactly as before.

Choices (issue #20):

- The version is read from the database, not from the cache. The default cache is per
  process (three gunicorn workers would each hold their own version, and a worker that
  missed a write would keep answering 304 over a recorded hand), and even a shared cache
  fed after commit can be overtaken by a later write. The read is one primary-key lookup
  joined to the membership's unique index: flat, and always the committed truth.
- Nobody learns anything they could not see: the 304 needs a membership of the session's
  club *now* (a member removed a second ago falls through to the view's 404), an active
  user and a login session whose password hash still matches (what Django's own
  ``get_user`` checks). The ETag names the session, its version and the viewer's role,
  which the viewer's own board already shows; a guessed ETag sent by a stranger or an
  anonymous client gets the normal 404 or login redirect, never a 304.
- ``unchanged_since`` is the reusable part for other polled pages of a session (e.g. a
  public share link): the caller decides who may see the page, then hands over the
  session id, the client's ``If-None-Match`` and how its ETag is made from the version.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_vary_headers
from django.utils.crypto import constant_time_compare
from django.utils.http import parse_etags

from games import sql

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


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


def board_etag(session_id: int, version: int, role: str) -> str:
    """The scoreboard's ETag: it changes only with the session's version and with what the
    viewer's role may do on it."""
    return f'"board-{session_id}-{version}-{role}"'


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


def _login_user_id(request: HttpRequest) -> int | None:
    """The logged-in user's id from the login session, without loading the user; None
    when there is no login or it was made by another authentication backend."""
    session = getattr(request, "session", None)
    if session is None:
        return None
    try:
        raw, backend = session[SESSION_KEY], session[BACKEND_SESSION_KEY]
    except KeyError:
        return None
    if backend != MODEL_BACKEND or backend not in settings.AUTHENTICATION_BACKENDS:
        return None
    try:
        return int(get_user_model()._meta.pk.to_python(raw))
    except (TypeError, ValueError):
        return None


def member_board_unchanged(request: HttpRequest, session_id: int) -> HttpResponse | None:
    """The scoreboard poll's fast path: 304 for a member whose board is up to date,
    None for everything else (the view then runs as usual)."""
    if_none_match = request.headers.get("If-None-Match", "")
    if not if_none_match:
        return None
    user_id = _login_user_id(request)
    if user_id is None:
        return None
    row = sql.board_poll(user_id, session_id)
    if row is None:
        return None
    version, role, password, active = row
    session_hash = request.session.get(HASH_SESSION_KEY) or ""
    # Django's get_user() checks the same hash (a password change logs sessions out);
    # anything but an exact match goes the slow way, which also tries fallback keys.
    expected = get_user_model()(password=password).get_session_auth_hash()
    if not active or not constant_time_compare(session_hash, expected):
        return None
    return unchanged_since(
        session_id, if_none_match, lambda v: board_etag(session_id, v, role), version=version
    )
