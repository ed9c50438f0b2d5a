"""The public read-only API (issue #36 item 5): a published tournament (summary,
standings, bracket, clock), a share link's scoreboard and a published season's standings
under /api/v1/public/, by the tokens the public pages use; no login, names and numbers
only (and a schema that says exactly which), ETags and 304, its own rate limit, CORS for
GET on those paths and nowhere else."""

import json
import random

import jsonschema
import pytest
from django.contrib.auth.models import User
from django.test import Client

from games.models import ApiToken, Role, Season, Tournament
from games.seasons import service as seasons
from games.seasons import standings as season_standings
from games.sessions import share
from games.tournaments import clock, selectors
from games.tournaments import service as svc
from tests.factories import ClubFactory, MembershipFactory
from tests.games.test_seasons import _season, _session, _tournament
from tests.games.test_tournament_service import (
    finished_freezeout,
    make_tournament,
    play_bot_hand,
)

from .conftest import FIRST_HAND, SECOND_HAND, record

pytestmark = pytest.mark.django_db

ORIGIN = "https://league.example"
# Keys that would name a row, a person or a secret: none may appear in a public answer.
PRIVATE_KEYS = {"id", "user", "user_id", "email", "token", "key", "hint", "seed", "club"}
PRIVATE_KEYS |= {"session", "session_id", "player_id", "created_by", "secret", "password"}


def _keys(value, found=None) -> set[str]:
    found = set() if found is None else found
    if isinstance(value, dict):
        for key, item in value.items():
            found.add(key)
            _keys(item, found)
    elif isinstance(value, list):
        for item in value:
            _keys(item, found)
    return found


@pytest.fixture
def running(club, alice):
    """A table-rounds tournament of 8 with a hand played at each table."""
    t = make_tournament(club, alice, n=8, name="Bayou Cup", buy_in=2000, fee=200, antes=[1, 2])
    svc.start(tournament_id=t.pk, user=alice)
    rng = random.Random(3)
    for x in t.tables.filter(status="playing").select_related("session"):
        play_bot_hand(x, rng, alice)
    t.refresh_from_db()
    return t


def _tournament_urls(token: str) -> list[str]:
    base = f"/api/v1/public/tournaments/{token}/"
    return [base, base + "standings/", base + "bracket/", base + "clock/"]


def test_a_published_tournament_reads_without_login(running):
    anon = Client()
    summary, standings, bracket, clock_ = (
        anon.get(url) for url in _tournament_urls(running.public_token)
    )
    assert [r.status_code for r in (summary, standings, bracket, clock_)] == [200] * 4
    assert summary.json()["name"] == "Bayou Cup"
    assert summary.json()["entrants"] == 8
    assert summary.json()["prize_pool"] == 8 * 2000
    assert summary.json()["links"]["standings"].endswith(
        f"/api/v1/public/tournaments/{running.public_token}/standings/"
    )
    # The same order, names and chips as the standings page reads.
    expected = [(r["player"]["name"], r["chips"]) for r in selectors.standings(running)]
    assert [(r["name"], r["chips"]) for r in standings.json()["standings"]] == expected
    tables = bracket.json()["rounds"][0]["tables"]
    assert sorted(p["name"] for x in tables for p in x["players"]) == sorted(
        name for name, _ in expected
    )
    assert clock_.json()["level"] == 1 and clock_.json()["ante"] == 1


def test_a_share_links_scoreboard_reads_without_login(played, bob):
    link = share.create_link(played, bob)
    body = Client().get(f"/api/v1/public/sessions/{link.token}/").json()
    nets = {p["name"]: p["net"] for p in body["players"]}
    assert nets == {
        played.seats.get(player_id=pid).player.name: net
        for pid, net in played.net_by_player().items()
    }
    assert sum(nets.values()) + body["pot"] == 0  # the chips in play are the pot's
    assert [h["number"] for h in body["recent_hands"]] == [2, 1]
    assert body["recent_hands"][1]["winner"] == "ann"
    assert body["recent_hands"][1]["bourre"] == ["dee"]
    assert body["next_hand"] == 3


def test_nothing_private_is_reachable(running, played, club, alice, bob, carol, players):
    # A player linked to an account, tokens in the books: none of it may show.
    players[0].user = carol
    players[0].save()
    _, api_key = ApiToken.issue(alice, "laptop")
    link = share.create_link(played, bob)
    other_club = ClubFactory(name="Second Club", created_by=alice)
    MembershipFactory(club=other_club, user=alice, role=Role.OWNER)
    finished = finished_freezeout(other_club, alice)
    # Before the first draw the seed is the secret that makes the draw fair.
    waiting = make_tournament(club, alice, n=3, prefix="w", name="Next week")
    urls = [
        *_tournament_urls(running.public_token),
        *_tournament_urls(finished.public_token),
        *_tournament_urls(waiting.public_token),
        f"/api/v1/public/sessions/{link.token}/",
    ]
    secrets = [api_key, link.token, waiting.seed]
    secrets += [u.email for u in User.objects.all() if u.email]
    secrets += [u.password for u in User.objects.all()]
    assert len(secrets) > 7  # the users do have e-mails
    for url in urls:
        response = Client().get(url)
        assert response.status_code == 200, url
        body = response.json()
        assert not _keys(body) & PRIVATE_KEYS, (url, _keys(body) & PRIVATE_KEYS)
        text = json.dumps(body)
        for secret in secrets:
            assert secret not in text, url
        # Only the token the caller already holds is echoed, in the links.
        others = [t.public_token for t in (running, finished, waiting) if t.public_token not in url]
        assert not [token for token in others if token in text], url


def test_who_asks_makes_no_difference(running, api_alice, api_revoked, alice_client):
    url = f"/api/v1/public/tournaments/{running.public_token}/standings/"
    answers = [c.get(url) for c in (Client(), api_alice, api_revoked, alice_client)]
    # Not even a revoked token is read (it would be a 401 anywhere else).
    assert [r.status_code for r in answers] == [200] * 4
    assert len({r.content for r in answers}) == 1


def test_tokens_that_open_nothing_are_one_404(running, played, bob):
    link = share.create_link(played, bob)
    share.revoke_links(played)
    anon = Client()
    for url in (
        "/api/v1/public/tournaments/not-a-token/",
        f"/api/v1/public/tournaments/{running.public_token[:-1]}/standings/",
        f"/api/v1/public/sessions/{link.token}/",  # revoked
        f"/api/v1/public/sessions/{running.public_token}/",  # a tournament's token
    ):
        response = anon.get(url)
        assert response.status_code == 404, url
        assert response["Content-Type"] == "application/problem+json"


def test_nothing_but_reads(running):
    url = f"/api/v1/public/tournaments/{running.public_token}/clock/"
    anon = Client()
    for method in ("post", "put", "patch", "delete"):
        response = getattr(anon, method)(url, {}, content_type="application/json")
        assert response.status_code == 405, method
    assert Tournament.objects.get(pk=running.pk).clock_started_at is None


def test_etags_answer_304_until_something_changes(running, alice):
    anon = Client()
    url = f"/api/v1/public/tournaments/{running.public_token}/standings/"
    first = anon.get(url)
    again = anon.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == first["ETag"]
    x = running.tables.filter(status="playing").select_related("session").first()
    play_bot_hand(x, random.Random(9), alice)
    changed = anon.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200
    assert changed["ETag"] != first["ETag"]


def test_the_clocks_weak_etag_changes_with_the_directors_buttons(club, alice):
    t = make_tournament(club, alice, n=4, format="freezeout", level_minutes=15)
    svc.start(tournament_id=t.pk, user=alice)
    anon = Client()
    url = f"/api/v1/public/tournaments/{t.public_token}/clock/"
    first = anon.get(url)
    assert first["ETag"].startswith('W/"')
    assert anon.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    clock.clock_action(tournament_id=t.pk, action="start", user=alice)
    started = anon.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert started.status_code == 200
    assert started.json()["running"] is True


def test_the_scoreboards_etag_follows_the_session(game, bob):
    link = share.create_link(game, bob)
    anon = Client()
    url = f"/api/v1/public/sessions/{link.token}/"
    first = anon.get(url)
    assert anon.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    record(game, FIRST_HAND, bob)
    after = anon.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert after.status_code == 200
    assert [h["number"] for h in after.json()["recent_hands"]] == [1]
    record(game, SECOND_HAND, bob)
    assert anon.get(url, HTTP_IF_NONE_MATCH=after["ETag"]).status_code == 200


def test_cors_for_get_on_the_public_paths_only(running, club, api_alice):
    anon = Client()
    public = anon.get(_tournament_urls(running.public_token)[1], HTTP_ORIGIN=ORIGIN)
    assert public["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in public
    exposed = public["Access-Control-Expose-Headers"]
    assert "ETag" in exposed and "RateLimit-Remaining" in exposed
    preflight = anon.options(
        _tournament_urls(running.public_token)[1],
        HTTP_ORIGIN=ORIGIN,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="if-none-match",
    )
    assert preflight.status_code == 200
    assert "GET" in preflight["Access-Control-Allow-Methods"]
    assert "POST" not in preflight["Access-Control-Allow-Methods"]
    assert "if-none-match" in preflight["Access-Control-Allow-Headers"]
    # Anywhere else: no CORS header at all, so a browser on another origin reads nothing.
    private = f"/api/v1/tournaments/{running.pk}/standings/"
    assert "Access-Control-Allow-Origin" not in api_alice.get(private, HTTP_ORIGIN=ORIGIN)
    refused = anon.options(
        private,
        HTTP_ORIGIN=ORIGIN,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization",
    )
    assert "Access-Control-Allow-Origin" not in refused
    page = anon.get(f"/t/{running.public_token}/", HTTP_ORIGIN=ORIGIN)
    assert page.status_code == 200 and "Access-Control-Allow-Origin" not in page


def test_the_public_rate_is_per_address(running, settings, steady_rate_clock):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "public": "2/min",
        },
    }
    anon = Client()
    url = _tournament_urls(running.public_token)[0]
    first, second, third = (anon.get(url, REMOTE_ADDR="198.51.100.7") for _ in range(3))
    assert (first["RateLimit-Limit"], first["RateLimit-Remaining"]) == ("2", "1")
    assert second.status_code == 200
    assert third.status_code == 429 and int(third["Retry-After"]) >= 1
    assert third["Content-Type"] == "application/problem+json"
    # Another address has its own count.
    assert anon.get(url, REMOTE_ADDR="198.51.100.8").status_code == 200


def test_the_schema_documents_the_public_operations(api_anon):
    schema = api_anon.get("/api/v1/schema/?format=json").json()
    public = {
        path: ops["get"]
        for path, ops in schema["paths"].items()
        if path.startswith("/api/v1/public/")
    }
    assert set(public) == {
        "/api/v1/public/tournaments/{token}/",
        "/api/v1/public/tournaments/{token}/standings/",
        "/api/v1/public/tournaments/{token}/bracket/",
        "/api/v1/public/tournaments/{token}/clock/",
        "/api/v1/public/sessions/{token}/",
        "/api/v1/public/seasons/{token}/standings/",
    }
    for op in public.values():
        assert op["tags"] == ["public"]
        assert "security" not in op  # no login (an operation that needs one names it)
        assert {"200", "304", "404", "429"} <= set(op["responses"])
    for path in public:
        assert set(schema["paths"][path]) <= {"get", "parameters"}
    assert schema["paths"]["/api/v1/tournaments/{tournament_id}/standings/"]["get"]["security"]

    # Every public answer's schema is exact: a key the server adds is a schema change.
    components = schema["components"]["schemas"]
    for path, op in public.items():
        ref = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
        assert components[ref.rsplit("/", 1)[1]]["additionalProperties"] is False, path
    row = components["PublicSeasonStanding"]
    assert row["additionalProperties"] is False
    assert set(row["properties"]) == {
        "rank",
        "name",
        "points",
        "tournaments",
        "best_place",
        "tie",
        "above",
    }


# -- a season's standings by its public link ------------------------------------------------


@pytest.fixture
def season_world(club, alice, bob, players):
    """A season (not published) with a finished tournament of five and a closed session."""
    ann, ben, cal, dee = players
    eve = club.players.create(name="eve")
    _tournament(club, alice, [ann, ben, cal, dee, eve], "p1")
    _session(club, bob, [ann, ben, cal, dee], ["ann", "dee", "ann"])
    return {"season": _season(club, alice)}


def _season_url(token: str) -> str:
    return f"/api/v1/public/seasons/{token}/standings/"


def test_a_published_seasons_standings_read_page_by_page_without_login(season_world):
    season = seasons.make_public(season_world["season"])
    anon = Client()
    first = anon.get(_season_url(season.public_token), {"page_size": 2}, HTTP_ORIGIN=ORIGIN)
    assert first.status_code == 200
    assert first["Access-Control-Allow-Origin"] == "*"
    assert 'rel="next"' in first["Link"] and first["Link"].startswith("<http")
    body = first.json()
    assert (body["name"], body["club_name"]) == ("Spring", "Bayou Club")
    assert body["starts_on"] == season.starts_on.isoformat()
    assert body["formula"] == {
        "points_scale": 10,
        "field_exponent": "0.50",
        "place_exponent": "0.50",
        "points_for_playing": 0,
    }
    got, page = [], body
    while True:
        assert len(page["results"]) <= 2
        got += page["results"]
        if not page["next"]:
            break
        page = anon.get(
            _season_url(season.public_token), {"page_size": 2, "cursor": page["next"]}
        ).json()
    assert page["previous"]
    # What the public page shows, in its order: no ids, no home-session money.
    shown = season_standings.public_rows(season_standings.standings(season))
    assert got == [
        {
            "rank": r.rank,
            "name": r.name,
            "points": r.points,
            "tournaments": r.tournaments,
            "best_place": r.best_place,
            "tie": r.tie,
            "above": r.above,
        }
        for r in shown
    ]
    assert len(got) == 5 and got[0]["points"] > 0
    bad = anon.get(_season_url(season.public_token), {"cursor": "bm9wZQ"})
    assert bad.status_code == 400 and bad["Content-Type"] == "application/problem+json"


def test_a_seasons_public_answer_names_no_money_ids_or_people(season_world, players, carol):
    players[0].user = carol
    players[0].save()
    season = seasons.make_public(season_world["season"])
    body = Client().get(_season_url(season.public_token)).json()
    keys = _keys(body)
    assert not keys & PRIVATE_KEYS, keys & PRIVATE_KEYS
    assert not keys & {"net", "net_won", "sessions", "events", "currency"}
    text = json.dumps(body)
    for user in User.objects.all():
        assert user.username not in text  # no handles either
        assert not user.email or user.email not in text


def test_the_home_sessions_tie_break_says_only_tie_break(club, alice, players):
    season = seasons.make_public(_season(club, alice))
    ann, ben, cal, _ = players
    # No tournament: everyone level on points and best place; home net orders them.
    _session(club, alice, [ann, ben, cal], ["ann", "ann", "ben"])
    rows = Client().get(_season_url(season.public_token)).json()["results"]
    assert [r["tie"] for r in rows] == ["", "tie_break", "tie_break"]
    assert [r["points"] for r in rows] == [0, 0, 0]


def test_only_a_season_the_club_publishes_is_reachable(season_world, running):
    season = season_world["season"]
    anon = Client()
    assert season.public_token is None
    # Unpublished: no token opens it (an empty one is not a token).
    assert anon.get(_season_url("None")).status_code == 404
    seasons.make_public(season)
    token = season.public_token
    assert anon.get(_season_url(token)).status_code == 200
    for wrong in (token[:-1], running.public_token):
        response = anon.get(_season_url(wrong))
        assert response.status_code == 404, wrong
        assert response["Content-Type"] == "application/problem+json"
    seasons.revoke_public(season)
    assert anon.get(_season_url(token)).status_code == 404
    assert Season.objects.get(pk=season.pk).public_token is None


def test_a_seasons_etag_answers_304_until_its_standings_change(season_world, club, alice):
    season = seasons.make_public(season_world["season"])
    anon = Client()
    url = _season_url(season.public_token)
    first = anon.get(url)
    again = anon.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again.content == b""
    # The owner changes the formula: every points figure moves.
    Season.objects.filter(pk=season.pk).update(points_scale=20)
    changed = anon.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]
    assert changed.json()["results"][0]["points"] > first.json()["results"][0]["points"]
    # A home session that closes in the season reorders nobody's points but adds a
    # player: the page changes, and so does the ETag.
    newcomer = club.players.create(name="fay")
    ann = club.players.get(name="ann")
    _session(club, alice, [ann, newcomer], ["fay"])
    later = anon.get(url, HTTP_IF_NONE_MATCH=changed["ETag"])
    assert later.status_code == 200
    assert "fay" in [r["name"] for r in later.json()["results"]]


def test_every_public_answer_is_exactly_its_documented_schema(running, played, bob, club, alice):
    """Validated against the served schema, where every public component is closed
    (`additionalProperties: false`): a key the server sends and the schema does not
    name fails here."""
    from drf_spectacular.generators import SchemaGenerator

    from .test_account_api import _json_schema

    schema = _json_schema(SchemaGenerator().get_schema(request=None, public=True))
    season = seasons.make_public(_season(club, alice))
    link = share.create_link(played, bob)
    answers = {
        "/api/v1/public/tournaments/{token}/": _tournament_urls(running.public_token)[0],
        "/api/v1/public/tournaments/{token}/standings/": _tournament_urls(running.public_token)[1],
        "/api/v1/public/tournaments/{token}/bracket/": _tournament_urls(running.public_token)[2],
        "/api/v1/public/tournaments/{token}/clock/": _tournament_urls(running.public_token)[3],
        "/api/v1/public/sessions/{token}/": f"/api/v1/public/sessions/{link.token}/",
        "/api/v1/public/seasons/{token}/standings/": _season_url(season.public_token),
    }
    for path, url in answers.items():
        documented = schema["paths"][path]["get"]["responses"]["200"]["content"]
        data = Client().get(url).json()
        jsonschema.validate(
            data, {**documented["application/json"]["schema"], "components": schema["components"]}
        )
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(
                {**data, "id": 1},
                {**documented["application/json"]["schema"], "components": schema["components"]},
            )
