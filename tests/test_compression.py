"""Compression without a proxy (issue #32 item 4): pages, htmx fragments and JSON are
gzipped for a client that accepts it (Django's GZipMiddleware, bourre_site/settings.py),
streamed exports stay streamed, Django's BREACH mitigations stay on, and `make run`
serves static files as WhiteNoise's hashed, compressed copies with a long lifetime
(bourre_site/lan.py) while the service worker's app shell still resolves."""

from __future__ import annotations

import gzip
import http.client
import json
import os
import re
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import brotli
import pytest
from django.http import HttpRequest, StreamingHttpResponse
from django.urls import include, path, reverse

from tests import lan_server
from tests.games.test_session_views import HTMX, start_table
from tests.ledger.conftest import record

ROOT = Path(__file__).resolve().parent.parent
GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}

# How far the streamed test view's generator got, by the time a chunk left the stack.
produced: list[int] = []


def _slow_export(request: HttpRequest) -> StreamingHttpResponse:
    def rows() -> Iterator[str]:
        for i in range(50):
            produced.append(i)
            yield f"row {i}," + "x" * 400 + "\n"

    return StreamingHttpResponse(rows(), content_type="text/csv")


urlpatterns = [path("stream/", _slow_export), path("", include("bourre_site.urls"))]


def _ungzip(response) -> str:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return gzip.decompress(body).decode()


@pytest.fixture
def table(club, players, bob):
    session = start_table(club, players, bob)
    record(session, bob, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    return session


# -- pages, fragments and JSON -------------------------------------------------------------------


@pytest.mark.django_db
def test_pages_and_fragments_are_gzipped_when_the_client_accepts_it(alice_client, table):
    url = reverse("session_detail", args=[table.pk])
    page = alice_client.get(url, **GZIP)
    assert page.status_code == 200
    assert page["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in page["Vary"]
    html = _ungzip(page)
    assert html.lstrip().lower().startswith("<!doctype html") and "Friday" in html
    assert len(page.content) < len(html.encode()) / 2
    fragment = alice_client.get(url, **GZIP, **HTMX)
    assert fragment["Content-Encoding"] == "gzip"
    assert "<!doctype" not in _ungzip(fragment).lower()


@pytest.mark.django_db
def test_json_is_gzipped(client):
    from tests.api.test_verify import EXAMPLE, URL

    answer = client.post(URL, EXAMPLE, content_type="application/json", **GZIP)
    assert answer.status_code == 200, answer.content[:300]
    assert answer["Content-Encoding"] == "gzip"
    assert json.loads(_ungzip(answer))["result"]["winner"] == "ann"


@pytest.mark.django_db
def test_static_files_are_not_private_for_a_signed_in_phone(alice_client):
    response = alice_client.get("/static/css/app.css")
    assert response.status_code == 200
    assert "no-store" not in response["Cache-Control"]
    assert "public" in response["Cache-Control"]


@pytest.mark.django_db
def test_nothing_is_compressed_for_a_client_that_does_not_ask(alice_client, table):
    page = alice_client.get(reverse("session_detail", args=[table.pk]))
    assert "Content-Encoding" not in page
    assert b"Friday" in page.content


# -- BREACH: the token masked per response, the compressed length padded ------------------------


@pytest.mark.django_db
def test_breach_mitigations_stay_on(client):
    login = reverse("login")
    first, second = client.get(login, **GZIP), client.get(login, **GZIP)
    token = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
    tokens = [token.search(_ungzip(r)).group(1) for r in (first, second)]  # type: ignore[union-attr]
    assert tokens[0] != tokens[1]  # Django masks the CSRF token anew in every response
    # Django's GZipMiddleware pads each response with random bytes (Heal The BREACH): a
    # file name of random length in the gzip header (flag FNAME), so the compressed length
    # says nothing reliable about the content.
    rules = [client.get(reverse("rule_book"), **GZIP) for _ in range(8)]
    assert all(r.content[3] & 0x08 for r in rules)  # FNAME set
    names = [r.content[10 : r.content.index(b"\0", 10)] for r in rules]
    assert len({len(name) for name in names}) > 1


# -- streamed exports ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_streamed_csv_stays_streamed_and_is_compressed(alice_client, table):
    url = reverse("ledger_csv", args=[table.pk])
    plain = alice_client.get(url)
    packed = alice_client.get(url, **GZIP)
    assert plain.streaming and packed.streaming
    assert packed["Content-Encoding"] == "gzip"
    assert _ungzip(packed) == b"".join(plain.streaming_content).decode()


@pytest.mark.django_db
@pytest.mark.urls("tests.test_compression")
def test_gzip_sends_each_chunk_as_it_is_made(client):
    produced.clear()
    response = client.get("/stream/", **GZIP)
    assert response.streaming and response["Content-Encoding"] == "gzip"
    chunks = iter(response.streaming_content)
    first = next(chunk for chunk in chunks if chunk)
    # The first compressed bytes leave after the first rows, not after the whole export.
    assert len(produced) < 5
    rest = b"".join(chunks)
    assert len(produced) == 50
    text = zlib.decompress(first + rest, 16 + zlib.MAX_WBITS).decode()
    assert text.count("\n") == 50


# -- the switch for a proxy that compresses -------------------------------------------------------


def _middleware(**env: str) -> list[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "BOURRE_"))}
    clean |= {"DJANGO_SETTINGS_MODULE": "bourre_site.settings", "DJANGO_SECRET_KEY": "k" * 60}
    code = (
        "import django; django.setup(); from django.conf import settings as s; print(*s.MIDDLEWARE)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=clean | env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_compression_sits_after_whitenoise_and_can_be_left_to_a_proxy():
    on = _middleware()
    gz = on.index("django.middleware.gzip.GZipMiddleware")
    # Static files are WhiteNoise's, compressed ahead of time: gzip never sees them.
    assert on.index("whitenoise.middleware.WhiteNoiseMiddleware") < gz
    assert gz < on.index("django.contrib.sessions.middleware.SessionMiddleware")
    assert "django.middleware.gzip.GZipMiddleware" not in _middleware(DJANGO_COMPRESS="0")


# -- `make run`: a real server ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    started = lan_server.start(tmp_path_factory.mktemp("compressed"))
    yield started
    started.stop()


def _get(
    server, target: str, encoding: str = "gzip, deflate, br", cookie: str = ""
) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    headers = {"Accept-Encoding": encoding, "Host": "192.168.1.20"}
    if cookie:
        headers["Cookie"] = cookie
    conn.request("GET", target, headers=headers)
    response = conn.getresponse()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()


def _static_links(html: str) -> list[str]:
    return sorted(set(re.findall(r'(?:href|src)="(/static/[^"]+)"', html)))


def test_make_run_answers_gzip_for_a_page(server):
    status, headers, body = _get(server, "/accounts/login/")
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert b"csrfmiddlewaretoken" in gzip.decompress(body)


def test_make_run_links_hashed_static_files_served_compressed_for_a_year(server):
    _, _, body = _get(server, "/accounts/login/")
    links = _static_links(gzip.decompress(body).decode())
    css = [link for link in links if link.endswith(".css")]
    js = [link for link in links if link.endswith(".js")]
    assert css and js
    for link in css + js:
        assert re.search(r"\.[0-9a-f]{12}\.(css|js)$", link), link  # the content's hash
        status, headers, packed = _get(server, link)
        assert status == 200
        assert headers["content-encoding"] == "br"
        assert "immutable" in headers["cache-control"]
        assert "max-age=315360000" in headers["cache-control"]
        _, plain_headers, plain = _get(server, link, encoding="identity")
        assert "content-encoding" not in plain_headers
        assert brotli.decompress(packed) == plain
        _, gz_headers, gz = _get(server, link, encoding="gzip")
        assert gz_headers["content-encoding"] == "gzip" and gzip.decompress(gz) == plain
        # A signed-in phone keeps them too (its pages are private, the styles are not).
        _, signed_in, _ = _get(server, link, cookie="sessionid=abc; csrftoken=def")
        assert "immutable" in signed_in["cache-control"], signed_in["cache-control"]


def test_the_service_workers_shell_is_the_hashed_names_and_each_is_served(server):
    status, _, body = _get(server, "/sw.js", encoding="identity")
    assert status == 200
    config = json.loads(body.decode().split("\n", 1)[0].removeprefix("self.BOURRE = ")[:-1])
    assert config["shell"]
    for url in config["shell"]:
        assert re.search(r"\.[0-9a-f]{12}\.\w+$", url), url
        assert _get(server, url)[0] == 200
    assert _get(server, config["offline"])[0] == 200
