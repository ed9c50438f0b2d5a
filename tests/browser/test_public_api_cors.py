"""A league website on another origin (issue #36, done-when): a static page served from a
second port reads a published tournament's standings, a share link's scoreboard and a
published season's standings (page by page, by the cursors) with fetch(); the same page
cannot read a private endpoint, with a token or without (the browser's CORS check blocks
it: the server sends no Access-Control-Allow-Origin there).
The screenshot is kept for a look: /tmp/i36-public-league-site.png."""

import functools
import http.server
import random
import re
import threading

import pytest
from django.utils import timezone

from games.models import ApiToken, Season
from games.seasons import service as seasons
from games.seasons import standings as season_standings
from games.sessions import share
from games.tournaments import service as svc
from tests.api.conftest import FIRST_HAND, record
from tests.games.test_tournament_service import make_tournament, play_bot_hand

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The league's page: what a club's website would put on its own server. It reads the
# addresses from its query string and writes what each fetch() gave into the page.
LEAGUE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Bayou League</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<h1>Bayou League</h1>
<h2>Standings</h2><ol id="standings"></ol>
<p>ETag seen: <code id="etag"></code>, requests left: <span id="left"></span></p>
<h2>Thursday's table</h2><ul id="board"></ul>
<h2>Season</h2><ol id="season"></ol>
<h2>Private</h2><p id="private">…</p><p id="private-token">…</p>
<p id="done"></p>
<script>
const q = new URLSearchParams(location.search);
async function show() {
  const r = await fetch(q.get("standings"));
  const data = await r.json();
  document.getElementById("etag").textContent = r.headers.get("ETag");
  document.getElementById("left").textContent = r.headers.get("RateLimit-Remaining");
  for (const row of data.standings) {
    const li = document.createElement("li");
    li.textContent = row.name + " " + row.chips;
    document.getElementById("standings").appendChild(li);
  }
  const b = await (await fetch(q.get("board"))).json();
  for (const p of b.players) {
    const li = document.createElement("li");
    li.textContent = p.name + " " + p.net;
    document.getElementById("board").appendChild(li);
  }
  // The season, two rows a page, following the cursors as a league site would.
  let url = q.get("season") + "?page_size=2";
  while (url) {
    const page = await (await fetch(url)).json();
    for (const row of page.results) {
      const li = document.createElement("li");
      li.textContent = row.rank + " " + row.name;
      document.getElementById("season").appendChild(li);
    }
    url = page.next && q.get("season") + "?page_size=2&cursor=" + encodeURIComponent(page.next);
  }
  for (const [id, headers] of [["private", {}],
                               ["private-token", {Authorization: "Bearer " + q.get("key")}]]) {
    try {
      const p = await fetch(q.get("private"), {headers});
      document.getElementById(id).textContent = "read: " + p.status + " " + (await p.text());
    } catch (e) {
      document.getElementById(id).textContent = "blocked: " + e.name;
    }
  }
  document.getElementById("done").textContent = "done";
}
show().catch(e => { document.getElementById("done").textContent = "failed: " + e; });
</script></body></html>
"""


@pytest.fixture
def league_site(tmp_path):
    """The league's static page on a second port (another origin than the live server:
    127.0.0.1 and another port, where the live server is localhost)."""
    (tmp_path / "index.html").write_text(LEAGUE_PAGE)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))

    class Quiet(handler.func):  # type: ignore[name-defined]
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(tmp_path))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_league_site_reads_public_data_and_nothing_else(
    live_server, league_site, phone, club, alice, bob, players
):
    t = make_tournament(club, alice, n=8, name="Bayou Cup")
    svc.start(tournament_id=t.pk, user=alice)
    rng = random.Random(5)
    for x in t.tables.filter(status="playing").select_related("session"):
        play_bot_hand(x, rng, alice)
    from ledger import postings

    def played(name: str):
        session = postings.start_session(
            club=club,
            name=name,
            players=players,
            dealer=players[-1],
            rules={},
            currency=club.currency,
            user=alice,
        )
        record(session, FIRST_HAND, bob)
        return session

    link = share.create_link(played("Thursday"), bob)
    # A season with a closed home session in it, published by its owner.
    closed = played("Last week")
    postings.close_session(session_id=closed.pk, user=alice)
    today = timezone.localdate()
    season = seasons.make_public(
        Season.objects.create(club=club, name="Spring", starts_on=today, ends_on=today)
    )
    _, key = ApiToken.issue(alice, "league", scope=ApiToken.Scope.READ)
    api = f"{live_server.url}/api/v1"
    from urllib.parse import urlencode

    query = urlencode(
        {
            "standings": f"{api}/public/tournaments/{t.public_token}/standings/",
            "board": f"{api}/public/sessions/{link.token}/",
            "season": f"{api}/public/seasons/{season.public_token}/standings/",
            "private": f"{api}/tournaments/{t.pk}/standings/",
            "key": key,
        }
    )
    errors: list[str] = []
    phone.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    phone.goto(f"{league_site}/index.html?{query}")
    phone.wait_for_function("document.getElementById('done').textContent !== ''")
    assert phone.locator("#done").inner_text() == "done"

    standings = phone.locator("#standings li").all_inner_texts()
    assert len(standings) == 8
    assert all(text.startswith("p0") for text in standings)
    # Exposed to the page (CORS_EXPOSE_HEADERS); weak once gzipped (Django's GZip).
    assert re.fullmatch(r'(W/)?"[0-9a-f]{24}"', phone.locator("#etag").inner_text())
    assert int(phone.locator("#left").inner_text()) > 0
    assert phone.locator("#board li").all_inner_texts() == ["ann 3", "ben -1", "cal -1", "dee -5"]
    shown = season_standings.public_rows(season_standings.standings(season))
    assert len(shown) == 4  # two pages of two
    assert phone.locator("#season li").all_inner_texts() == [f"{r.rank} {r.name}" for r in shown]
    # The private endpoint: CORS stops the browser from handing the page anything.
    assert phone.locator("#private").inner_text() == "blocked: TypeError"
    assert phone.locator("#private-token").inner_text() == "blocked: TypeError"
    assert any("CORS" in e for e in errors), errors
    phone.screenshot(path="/tmp/i36-public-league-site.png", full_page=True)
