"""Bytes on the wire per page under `make run` (issue #32 item 4): before (what a phone got
when nothing was compressed: ``Accept-Encoding: identity``) and after (what a phone's
browser asks for: ``gzip, deflate, br``), for the pages a table lives on.

Starts the server the way `make run` does (tests/lan_server.py: its own SQLite file, the
demo data), logs in as the demo user, and for each page counts the page itself and a cold
load of the static files it links (styles, scripts, icons), as sent (compressed bytes,
headers not counted). Prints a table; no assertion (bench/ is never part of the tests).

    .venv/bin/python bench/wire.py
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests import lan_server  # noqa: E402

BEFORE = "identity"
AFTER = "gzip, deflate, br"


def wire(session: requests.Session, url: str, encoding: str) -> tuple[int, str, dict]:
    """Bytes as sent, the decoded text, the headers."""
    response = session.get(url, headers={"Accept-Encoding": encoding}, stream=True)
    raw = response.raw.read(decode_content=False)
    response.raise_for_status()
    headers = {k.lower(): v for k, v in response.headers.items()}
    coding = headers.get("content-encoding", "")
    if coding == "gzip":
        import gzip

        text = gzip.decompress(raw).decode()
    elif coding == "br":
        import brotli

        text = brotli.decompress(raw).decode()
    else:
        text = raw.decode(errors="replace")
    return len(raw), text, headers


def static_links(html: str) -> list[str]:
    return sorted(set(re.findall(r'(?:href|src)="(/static/[^"]+)"', html)))


def log_in(base: str) -> requests.Session:
    session = requests.Session()
    page = session.get(base + "/accounts/login/").text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token, "no login form"
    done = session.post(
        base + "/accounts/login/",
        data={
            "csrfmiddlewaretoken": token.group(1),
            "username": "demo",
            "password": "bourre-demo-2026",
        },
        headers={"Referer": base + "/accounts/login/"},
    )
    done.raise_for_status()
    return session


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = lan_server.start(Path(folder))
        try:
            base = server.url
            session = log_in(base)
            home = session.get(base + "/").text
            club = re.search(r'href="(/clubs/\d+/)"', home)
            assert club, "no demo club on the home page"
            found = re.search(r'href="/sessions/(\d+)/"', session.get(base + club.group(1)).text)
            assert found, "no demo session on the club page"
            sid = found.group(1)
            pages = {
                "scoreboard": f"/sessions/{sid}/",
                "record form": f"/sessions/{sid}/record/",
                "history": f"/sessions/{sid}/history/",
                "history chart": f"/sessions/{sid}/history/chart/",
                "login (anonymous)": "/accounts/login/",
            }
            print(
                f"{'page':<18} {'HTML before':>12} {'HTML after':>11} "
                f"{'static before':>14} {'static after':>13} {'cold before':>12} "
                f"{'cold after':>11}"
            )
            cache_lines: set[str] = set()
            for name, target in pages.items():
                row = []
                for encoding in (BEFORE, AFTER):
                    size, html, _ = wire(session, base + target, encoding)
                    static = 0
                    for link in static_links(html):
                        bytes_sent, _, headers = wire(session, base + link, encoding)
                        static += bytes_sent
                        if encoding == AFTER:
                            cache_lines.add(headers.get("cache-control", ""))
                    row.append((size, static))
                (html_b, static_b), (html_a, static_a) = row
                print(
                    f"{name:<18} {html_b:>12,} {html_a:>11,} {static_b:>14,} "
                    f"{static_a:>13,} {html_b + static_b:>12,} {html_a + static_a:>11,}"
                )
            print("static Cache-Control after:", " | ".join(sorted(cache_lines)))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
