"""A club's season (issue #35 item 6; games.seasons): tournament points by the published
formula, home-session nets from the ledger, ties, who may see and edit what, the public
link and its revocation, and the CSV's sums.

The expected points are computed here from the formula as games/seasons/points.py and the
season page document it (round half up of scale × field^a ÷ place^b, plus points for
playing), never copied from the code under test; the expected nets are summed from the
ledger's legs (``books.ledger_sums``), not from the session row the standings read."""

import csv
import datetime
import io
import math
import random
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from games.models import Entry, GameSession, Player, Season, Tournament
from games.seasons import standings as st
from games.seasons.points import DEFAULT, Formula, points
from games.tournaments import service as svc
from ledger import books, postings
from tests.factories import seeded

from .test_tournament_service import check_books, play_to_the_end, win

pytestmark = pytest.mark.django_db


def documented(place: int, field: int, scale=10, a=0.5, b=0.5, extra=0) -> int:
    """The published formula, written out again: 10 × √field ÷ √place by default."""
    return math.floor(scale * field**a / place**b + 0.5) + extra


# -- the formula -------------------------------------------------------------------------


@pytest.mark.parametrize("field", [1, 2, 7, 10, 24, 100])
def test_default_points_are_the_documented_square_root_formula(field):
    for place in range(1, field + 1):
        assert points(DEFAULT, place, field) == documented(place, field)
    # Higher places never score less, bigger fields never less for the same place.
    assert [points(DEFAULT, p, field) for p in range(1, field + 1)] == sorted(
        (points(DEFAULT, p, field) for p in range(1, field + 1)), reverse=True
    )


def test_a_seasons_own_parameters_change_the_points():
    flat = Formula(scale=100, field_exponent=Decimal("0"), place_exponent=Decimal("1"))
    assert [points(flat, p, 8) for p in (1, 2, 4)] == [
        documented(p, 8, scale=100, a=0, b=1) for p in (1, 2, 4)
    ]
    bonus = Formula(points_for_playing=5)
    assert points(bonus, 3, 9) == documented(3, 9, extra=5)


def test_points_round_half_up_not_to_even():
    # 5 × 1 ÷ 2 = 2.5 → 3 (Python's round() would give 2).
    half = Formula(scale=5, field_exponent=Decimal("0"), place_exponent=Decimal("1"))
    assert points(half, 2, 4) == 3 == documented(2, 4, scale=5, a=0, b=1)


# -- the standings over two tournaments and two home sessions ----------------------------


def _tournament(club, user, roster, seed):
    t = svc.create_tournament(
        club=club,
        user=user,
        name=f"Cup {seed}",
        format="freezeout",
        buy_in=10,
        starting_chips=6,
        antes=[1, 2, 3],
        hands_per_level=3,
        min_table=2,
        max_table=7,
    )
    for player in roster:
        entry = svc.register(tournament_id=t.pk, player=player, user=user)
        svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=user)
    svc.start(tournament_id=seeded(t.pk, seed), user=user)
    t = play_to_the_end(t, user, random.Random(seed))
    check_books(t)
    return t


def _session(club, user, roster, winners):
    """A closed home session: each name in ``winners`` wins one hand, the others pass."""
    session = postings.start_session(
        club=club,
        name="Friday",
        players=roster,
        dealer=roster[-1],
        rules={},
        currency=club.currency,
        user=user,
    )
    names = [p.name for p in roster]
    for winner in winners:
        others = [n for n in names if n != winner]
        entry = win(names, winner, {others[0]: 2})
        postings.record_hand(
            session_id=session.pk,
            entry=entry,
            idempotency_key="",
            expected_version=None,
            user=user,
        )
        session.refresh_from_db()
        postings.check_invariants(session)
    session = postings.close_session(session_id=session.pk, user=user)
    postings.check_invariants(session)
    return session


def _season(club, user, **kwargs):
    today = timezone.localdate()
    return Season.objects.create(
        club=club,
        name="Spring",
        starts_on=today - datetime.timedelta(days=10),
        ends_on=today + datetime.timedelta(days=10),
        created_by=user,
        **kwargs,
    )


@pytest.fixture
def season_world(club, alice, bob, players):
    ann, ben, cal, dee = players
    eve = Player.objects.create(club=club, name="eve")
    t1 = _tournament(club, alice, [ann, ben, cal, dee, eve], "s1")
    t2 = _tournament(club, alice, [ann, ben, cal], "s2")
    s1 = _session(club, bob, [ann, ben, cal, dee], ["ann", "dee", "ann"])
    s2 = _session(club, bob, [ben, cal, dee], ["cal", "cal"])
    # Outside the season: a tournament and a session of last year, an open session.
    t_old = _tournament(club, alice, [dee, eve], "old")
    s_old = _session(club, bob, [dee, eve, ann], ["dee"])
    past = timezone.now() - datetime.timedelta(days=400)
    Tournament.objects.filter(pk=t_old.pk).update(started_at=past)
    GameSession.objects.filter(pk=s_old.pk).update(created_at=past)
    postings.start_session(
        club=club,
        name="Still open",
        players=[ann, ben],
        dealer=ben,
        rules={},
        currency=club.currency,
        user=bob,
    )
    return {"tournaments": [t1, t2], "sessions": [s1, s2], "season": _season(club, alice)}


def _expected(world, formula_args=None):
    """Points, events and nets per player id, from the entries' places and the legs."""
    formula_args = formula_args or {}
    exp: dict[int, dict] = {}
    for t in world["tournaments"]:
        placed = list(Entry.objects.filter(tournament=t, place__isnull=False))
        for e in placed:
            row = exp.setdefault(e.player_id, {"points": 0, "t": 0, "s": 0, "net": 0})
            row["points"] += documented(e.place, len(placed), **formula_args)
            row["t"] += 1
    for s in world["sessions"]:
        for player_id, amount in books.ledger_sums(s, books.TABLE_KINDS).items():
            row = exp.setdefault(player_id, {"points": 0, "t": 0, "s": 0, "net": 0})
            row["net"] += amount
            row["s"] += 1
    return exp


def test_standings_add_two_tournaments_and_two_home_sessions(season_world):
    rows = st.standings(season_world["season"])
    exp = _expected(season_world)
    got = {
        r.player_id: {"points": r.points, "t": r.tournaments, "s": r.sessions, "net": r.net}
        for r in rows
    }
    assert got == exp
    # Someone won money, so the nets are not all zero, and the session outside the
    # season (dee won a hand there) is not in them.
    assert any(r.net for r in rows)
    assert [r.rank for r in rows if r.tie != st.Tie.SHARED] == sorted(
        r.rank for r in rows if r.tie != st.Tie.SHARED
    )
    points_in_order = [r.points for r in rows]
    assert points_in_order == sorted(points_in_order, reverse=True)


def test_a_seasons_edited_formula_changes_the_standings(season_world, bob_client):
    season = season_world["season"]
    response = bob_client.post(
        reverse("season_edit", args=[season.pk]),
        {
            "name": "Spring",
            "starts_on": season.starts_on.isoformat(),
            "ends_on": season.ends_on.isoformat(),
            "points_scale": "100",
            "field_exponent": "0",
            "place_exponent": "1",
            "points_for_playing": "3",
        },
    )
    assert response.status_code == 302
    season.refresh_from_db()
    exp = _expected(season_world, {"scale": 100, "a": 0, "b": 1, "extra": 3})
    assert {r.player_id: r.points for r in st.standings(season)} == {
        k: v["points"] for k, v in exp.items()
    }


@pytest.mark.parametrize(
    "field, value",
    [
        ("points_scale", "1001"),
        ("points_scale", "-1"),
        ("field_exponent", "2.5"),
        ("place_exponent", "0.125"),
        ("points_for_playing", "x"),
    ],
)
def test_the_formula_parameters_are_bounded(club, bob_client, field, value):
    data = {
        "name": "Fall",
        "starts_on": "2026-09-01",
        "ends_on": "2026-11-30",
        "points_scale": "10",
        "field_exponent": "0.5",
        "place_exponent": "0.5",
        "points_for_playing": "0",
        field: value,
    }
    response = bob_client.post(reverse("season_create", args=[club.pk]), data)
    assert response.status_code == 422
    assert response.context["form"].errors[field]
    assert not Season.objects.exists()


def test_the_last_day_cannot_come_before_the_first(club, bob_client):
    data = {
        "name": "Fall",
        "starts_on": "2026-09-01",
        "ends_on": "2026-08-01",
        "points_scale": "10",
        "field_exponent": "0,5",
        "place_exponent": "0.5",
        "points_for_playing": "0",
    }
    response = bob_client.post(reverse("season_create", args=[club.pk]), data)
    assert response.status_code == 422
    assert "cannot come before" in response.content.decode()


def test_the_season_days_are_the_clubs_days(club, alice, players):
    """A session started at 23:30 on the last day in the club's zone counts; UTC says it
    is already the next day."""
    club.time_zone = "America/Chicago"
    club.save()
    ann, ben = players[:2]
    season = Season.objects.create(
        club=club,
        name="June",
        starts_on=datetime.date(2026, 6, 1),
        ends_on=datetime.date(2026, 6, 30),
    )
    session = _session(club, alice, [ann, ben, players[2]], ["ann"])
    late = datetime.datetime(
        2026, 6, 30, 23, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=-5))
    )
    GameSession.objects.filter(pk=session.pk).update(created_at=late)
    assert {r.name for r in st.standings(season)} == {"ann", "ben", "cal"}
    GameSession.objects.filter(pk=session.pk).update(created_at=late + datetime.timedelta(hours=1))
    assert st.standings(season) == []


# -- ties ---------------------------------------------------------------------------------


def _row(pid, name, pts, best, net):
    return st.Standing(player_id=pid, name=name, points=pts, best_place=best, net=net)


def test_ties_break_on_best_place_then_home_net_then_share_the_rank():
    rows = st._ranked(
        [
            _row(1, "zed", 20, 2, 0),
            _row(2, "amy", 20, 1, -50),  # same points, better best place: above zed
            _row(3, "bo", 9, 3, 5),
            _row(4, "cy", 9, 3, 40),  # same points and best place, more net: above bo
            _row(5, "di", 0, None, 7),
            _row(6, "ed", 0, None, 7),  # level on everything: shares di's rank
            _row(7, "fay", 1, None, -100),
        ]
    )
    assert [(r.name, r.rank, r.tie.value, r.above) for r in rows] == [
        ("amy", 1, "", ""),
        ("zed", 2, "best_finish", "amy"),
        ("cy", 3, "", ""),
        ("bo", 4, "net", "cy"),
        ("fay", 5, "", ""),
        ("di", 6, "", ""),
        ("ed", 6, "shared", "di"),
    ]


def test_the_page_says_why_a_tied_player_is_below(club, alice, carol_client, players):
    season = _season(club, alice)
    ann, ben, cal, _ = players
    # ann and ben win one hand each against the same loser: level on net, no points.
    _session(club, alice, [ann, ben, cal], ["ann", "ben"])
    body = carol_client.get(reverse("season_standings", args=[season.pk])).content.decode()
    rows = st.standings(season)
    level = [r for r in rows if r.tie != st.Tie.NONE]
    assert level, [(r.name, r.points, r.net) for r in rows]
    for r in level:
        assert r.above in body
    assert "Level" in body


# -- who sees and edits what -------------------------------------------------------------


def _urls(season):
    return {
        "list": reverse("season_list", args=[season.club_id]),
        "standings": reverse("season_standings", args=[season.pk]),
        "csv": reverse("season_csv", args=[season.pk]),
        "new": reverse("season_create", args=[season.club_id]),
        "edit": reverse("season_edit", args=[season.pk]),
    }


def test_strangers_get_404_members_read_and_scorekeepers_edit(
    club, alice, mallory_client, carol_client, bob_client, client
):
    season = _season(club, alice)
    urls = _urls(season)
    for url in urls.values():
        assert mallory_client.get(url).status_code == 404, url
    assert (
        mallory_client.post(
            reverse("season_share", args=[season.pk]), {"action": "public"}
        ).status_code
        == 404
    )
    for name in ("list", "standings", "csv"):
        assert carol_client.get(urls[name]).status_code == 200, name
    for name in ("new", "edit"):
        assert carol_client.get(urls[name]).status_code == 403, name
    assert (
        carol_client.post(
            reverse("season_share", args=[season.pk]), {"action": "public"}
        ).status_code
        == 403
    )
    season.refresh_from_db()
    assert season.public_token is None
    # A visitor is sent to log in.
    assert client.get(urls["standings"]).status_code == 302
    for name in ("new", "edit"):
        assert bob_client.get(urls[name]).status_code == 200, name
    # The member's page offers no edit, the scorekeeper's does.
    assert urls["edit"] not in carol_client.get(urls["standings"]).content.decode()
    assert urls["edit"] in bob_client.get(urls["standings"]).content.decode()
    # The club's page leads to the seasons.
    assert urls["list"] in carol_client.get(reverse("club_detail", args=[club.pk])).content.decode()


def test_a_scorekeeper_creates_a_season_with_the_default_formula(club, bob_client):
    page = bob_client.get(reverse("season_create", args=[club.pk])).content.decode()
    assert "√field ÷ √place" in page
    response = bob_client.post(
        reverse("season_create", args=[club.pk]),
        {
            "name": "Fall 2026",
            "starts_on": "2026-09-01",
            "ends_on": "2026-11-30",
            "points_scale": "10",
            "field_exponent": "0.50",
            "place_exponent": "0.50",
            "points_for_playing": "0",
        },
    )
    season = Season.objects.get()
    assert response.status_code == 302 and response["Location"] == season.get_absolute_url()
    assert st.formula_of(season) == DEFAULT


# -- the public link ---------------------------------------------------------------------


def test_a_public_link_shows_no_money_and_revoking_it_closes_it(season_world, bob_client, client):
    season = season_world["season"]
    share = reverse("season_share", args=[season.pk])
    assert bob_client.post(share, {"action": "public"}).status_code == 302
    season.refresh_from_db()
    token = season.public_token
    assert token and len(token) >= 24
    page = client.get(reverse("season_public", args=[token]))
    assert page.status_code == 200
    body = page.content.decode()
    rows = st.standings(season)
    for r in rows:
        assert r.name in body
    assert "Home net" not in body and "$" not in body
    # The scorekeeper's page shows the link; a guessed one opens nothing.
    assert token in bob_client.get(season.get_absolute_url()).content.decode()
    assert client.get(reverse("season_public", args=[token[:-1] + "x"])).status_code == 404
    assert bob_client.post(share, {"action": "revoke"}).status_code == 302
    assert client.get(reverse("season_public", args=[token])).status_code == 404
    bob_client.post(share, {"action": "public"})
    season.refresh_from_db()
    assert season.public_token and season.public_token != token
    assert client.get(reverse("season_public", args=[token])).status_code == 404
    assert client.get(reverse("season_public", args=[season.public_token])).status_code == 200


def test_an_unknown_share_action_says_so(club, alice, bob_client):
    season = _season(club, alice)
    response = bob_client.post(
        reverse("season_share", args=[season.pk]), {"action": "x"}, follow=True
    )
    assert "Choose to share the standings or to revoke the link." in response.content.decode()


# -- the CSV -----------------------------------------------------------------------------


def test_the_csv_sums_to_the_formulas_points_and_the_ledgers_nets(season_world, carol_client):
    season = season_world["season"]
    response = carol_client.get(reverse("season_csv", args=[season.pk]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    table = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert tuple(table[0]) == st.CSV_COLUMNS
    exp = _expected(season_world)
    assert sum(int(r["points"]) for r in table) == sum(v["points"] for v in exp.values())
    # Whole dollars in the test club: the major unit is the minor unit.
    assert sum(Decimal(r["net_won"]) for r in table) == sum(v["net"] for v in exp.values())
    assert sum(int(r["events"]) for r in table) == sum(v["t"] + v["s"] for v in exp.values())
    for r in table:
        assert int(r["events"]) == int(r["tournaments"]) + int(r["sessions"])
        assert r["currency"] == "USD"
    assert [int(r["rank"]) for r in table] == sorted(int(r["rank"]) for r in table)


# -- the API -----------------------------------------------------------------------------


def test_the_api_pages_the_standings_with_a_cursor(season_world, carol, mallory):
    from tests.api.conftest import token_client

    season = season_world["season"]
    url = reverse("api_season_standings", args=[season.pk])
    assert token_client(mallory).get(url).status_code == 404
    api = token_client(carol)
    whole = st.standings(season)
    first = api.get(url, {"page_size": 2})
    assert 'rel="next"' in first["Link"]
    got, page = [], first.json()
    while True:
        assert len(page["results"]) <= 2
        got += page["results"]
        if not page["next"]:
            break
        page = api.get(url, {"page_size": 2, "cursor": page["next"]}).json()
    assert page["previous"]
    assert [(r["rank"], r["player"]["id"], r["points"], r["net_won"]) for r in got] == [
        (r.rank, r.player_id, r.points, r.net) for r in whole
    ]
    assert page["currency"]["code"] == "USD"
    assert api.get(url, {"cursor": "bm9wZQ"}).status_code == 400
    listing = api.get(reverse("api_season_list", args=[season.club_id])).json()
    assert [s["id"] for s in listing["results"]] == [season.pk]
    assert listing["results"][0]["formula"]["field_exponent"] == "0.50"


def test_the_public_page_names_a_home_game_tie_break_without_its_money(
    club, alice, bob_client, client, players
):
    season = _season(club, alice)
    ann, ben, cal, _ = players
    # No tournament: everyone level on points and best place; home net orders them.
    _session(club, alice, [ann, ben, cal], ["ann", "ann", "ben"])
    rows = st.standings(season)
    assert [r.tie for r in rows[1:]] == [st.Tie.NET, st.Tie.NET]
    members = bob_client.get(season.get_absolute_url()).content.decode()
    assert "behind on home-game net won" in members
    bob_client.post(reverse("season_share", args=[season.pk]), {"action": "public"})
    season.refresh_from_db()
    response = client.get(reverse("season_public", args=[season.public_token]))
    shown = response.context["rows"]
    assert all(isinstance(r, st.PublicStanding) for r in shown)
    assert [r.tie for r in shown[1:]] == ["tie_break", "tie_break"]
    body = response.content.decode()
    assert "behind on the club's tie-break" in body
    assert "net won" not in body and "$" not in body


@pytest.mark.parametrize("code", ["en", "es", "fi", "sq", "ko", "su"])
def test_the_season_pages_speak_the_readers_language(club, alice, bob_client, settings, code):
    from django.utils import translation

    season = _season(club, alice)
    bob_client.cookies[settings.LANGUAGE_COOKIE_NAME] = code
    with translation.override(code):
        words = [translation.gettext(w) for w in ("How it counts", "Make a public link", "Seasons")]
    if code != "en":
        assert words[0] != "How it counts"
    page = bob_client.get(season.get_absolute_url()).content.decode()
    assert words[0] in page and words[1] in page
    listing = bob_client.get(reverse("season_list", args=[club.pk])).content.decode()
    assert words[2] in listing


def test_the_csv_writes_home_net_in_the_major_unit_of_a_club_in_cents(club, alice):
    from games.money import CURRENCIES
    from ledger import exports

    club.currency = CURRENCIES["USD"]
    club.save()
    season = _season(club, alice)
    row = st.Standing(player_id=1, name="=ann", net=-1250, tournaments=1, sessions=2)
    (cells,) = st.csv_rows(season, [row])
    out = dict(zip(st.CSV_COLUMNS, cells, strict=True))
    assert out["net_won"] == Decimal("-12.50") and out["currency"] == "USD"
    assert out["events"] == 3
    # A name a spreadsheet would run as a formula is written as text (ledger.exports).
    buffer = io.StringIO()
    exports.writer(buffer).writerow(cells)
    assert "'=ann" in buffer.getvalue()
