"""Tournament round 2 pages: the wall screen (ETag polling, no inline script or style),
the print view (no site chrome), the draw's verification page (recomputes the draw,
detects a tampered entry list), roster paste, the clock buttons, deals, standings CSV,
and a finished table's undo refused with the reason."""

import csv
import io
import re

import pytest
from django.urls import reverse

from games.models import Entry, Hand, Player, Tournament, TournamentTable
from games.tournaments import service as svc
from ledger import books, postings
from tests.factories import seeded

from .test_tournament_service import finished_freezeout, make_tournament

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def running(club, alice):
    t = make_tournament(
        club, alice, n=10, format="freezeout", buy_in=20, fee=2, starting_chips=20, level_minutes=15
    )
    svc.start(tournament_id=seeded(t.pk, "screen"), user=alice)
    t.refresh_from_db()
    return t


def assert_no_inline_code(html: str) -> None:
    # The strict Content-Security-Policy: scripts from files only, no handlers, no styles.
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "inline <script>"
    assert not re.search(r"\son[a-z]+=", html), "on* handler"
    assert "style=" not in html


def test_the_wall_screen_polls_with_an_etag(running, client):
    url = reverse("tournament_tv", args=[running.public_token])
    response = client.get(url)  # public: no login, the unguessable link is the key
    html = response.content.decode()
    assert response.status_code == 200 and response["ETag"]
    for words in ("Level 1", "Ante", "Next ante", "Players left", "Average stack", "Tables"):
        assert words in html, words
    assert "data-clock" in html and 'src="/static/js/clock.js"' in html
    assert "topbar" not in html  # no site chrome
    assert_no_inline_code(html)
    again = client.get(url, headers={**HTMX, "If-None-Match": response["ETag"]})
    assert again.status_code == 304 and not again.content
    # A new level (the director moves the clock) changes the ETag: the screen refreshes.
    from games.tournaments import clock

    clock.clock_action(tournament_id=running.pk, action="start", user=None)
    clock.clock_action(tournament_id=running.pk, action="adjust", seconds=16 * 60, user=None)
    fresh = client.get(url, headers={**HTMX, "If-None-Match": response["ETag"]})
    assert fresh.status_code == 200 and "Level 2" in fresh.content.decode()
    assert client.get(reverse("tournament_tv", args=["nope"])).status_code == 404


@pytest.mark.parametrize("hands, big", [(1, "1 hand"), (5, "5 hands")])
def test_the_wall_screen_says_how_levels_rise_by_hands(club, alice, client, hands, big):
    """Read across a room: "5 hands" in big type, "per level" under it (it said "every 5
    hands", and "1 hands"); the next ante is called an ante, not a level."""
    t = make_tournament(club, alice, n=4, format="freezeout", hands_per_level=hands)
    svc.start(tournament_id=seeded(t.pk, "hands"), user=alice)
    html = client.get(reverse("tournament_tv", args=[t.public_token])).content.decode()
    assert re.search(
        rf'class="tv-clock tv-clock-hands">{big}</p>\s*<p class="tv-small">per level<', html
    )
    assert "Next ante" in html and "Next level" not in html


def test_the_print_view_has_no_site_chrome(running, client):
    html = client.get(reverse("tournament_print", args=[running.public_token])).content.decode()
    assert "topbar" not in html and "<nav" not in html and "<form" not in html
    assert running.seed_commitment in html and running.seed in html  # revealed at the draw
    assert_no_inline_code(html)


def test_the_verification_page_recomputes_the_draw(running, client):
    url = reverse("tournament_verify", args=[running.public_token])
    html = client.get(url).content.decode()
    assert "✔ The seed matches its commitment." in html
    assert "✔ Every draw comes out exactly as recorded" in html
    ids = sorted(running.entries.values_list("player_id", flat=True))
    # A player pastes the entry list they saw: it checks out.
    same = client.get(url, {"entrants": ", ".join(map(str, ids))}).content.decode()
    assert "✔ Every draw comes out exactly" in same
    # One entrant swapped for somebody else: the draw does not come out the same.
    stranger = Player.objects.create(club=running.club, name="Ringer")
    tampered = [*ids[:-1], stranger.pk]
    bad = client.get(url, {"entrants": " ".join(map(str, tampered))}).content.decode()
    assert "✘ A draw does NOT come out as recorded" in bad
    assert "The entry list differs from the one the draw was made from." in bad
    assert_no_inline_code(html)


def test_a_tampered_entry_list_in_the_database_is_detected(running, client):
    url = reverse("tournament_verify", args=[running.public_token])
    # Someone slips an extra entrant into the event after the draw.
    ringer = Player.objects.create(club=running.club, name="Ringer")
    Entry.objects.create(tournament=running, player=ringer, status=Entry.Status.PLAYING)
    html = client.get(url).content.decode()
    assert "✘ A draw does NOT come out as recorded" in html
    # And a draw rewritten by hand is caught too.
    Entry.objects.filter(player=ringer).delete()
    rnd = running.rounds.get()
    tables = rnd.draw["tables"]
    tables[0][0], tables[1][0] = tables[1][0], tables[0][0]
    rnd.save(update_fields=["draw"])
    assert "✘ A draw does NOT" in client.get(url).content.decode()


def test_before_the_draw_only_the_commitment_is_shown(club, alice, client):
    t = make_tournament(club, alice, n=4)
    html = client.get(reverse("tournament_verify", args=[t.public_token])).content.decode()
    assert t.seed_commitment in html and t.seed not in html
    detail = client.get(reverse("tournament_print", args=[t.public_token])).content.decode()
    assert t.seed not in detail


def test_roster_paste_enters_everyone(club, alice, alice_client):
    t = svc.create_tournament(club=club, user=alice, name="Paste", max_entries=3)
    Player.objects.create(club=club, name="Ann")
    response = alice_client.post(
        reverse("tournament_roster", args=[t.pk]),
        {"names": "ann\nBen\nCal, Dee\n\nben", "check_in": "on"},
        follow=True,
    )
    html = response.content.decode()
    assert "Entered 3: Ann, Ben, Cal." in html
    assert "Waiting list (the field is full): Dee (1st)." in html
    # "Ben" and "ben": said, not skipped in silence.
    assert "Listed more than once, entered once: Ben." in html
    statuses = dict(t.entries.values_list("player__name", "status"))
    assert statuses == {
        "Ann": "checked_in",
        "Ben": "checked_in",
        "Cal": "checked_in",
        "Dee": "waiting",
    }
    assert Player.objects.filter(club=club, name__in=["Ben", "Cal", "Dee"]).count() == 3
    postings.check_prize_ledger(t)


def test_clock_buttons(running, alice_client):
    url = reverse("tournament_clock", args=[running.pk])
    page = alice_client.post(url, {"action": "pause"}, follow=True).content.decode()
    assert "Start the clock first." in page
    page = alice_client.post(url, {"action": "start"}, follow=True).content.decode()
    assert "Clock started." in page and "data-clock" in page
    page = alice_client.post(url, {"action": "adjust", "minutes": "20"}, follow=True)
    assert "Level 2" in page.content.decode()


def test_a_deal_from_the_dashboard(club, alice, alice_client):
    t = make_tournament(club, alice, n=3, format="freezeout", buy_in=100, starting_chips=30)
    svc.start(tournament_id=t.pk, user=alice)
    page = alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()
    assert "Make a deal" in page
    ids = list(t.entries.values_list("player_id", flat=True))
    data = {"kind": "even", **{f"agree_{p}": "on" for p in ids[:2]}}
    page = alice_client.post(reverse("tournament_deal", args=[t.pk]), data, follow=True)
    assert "Every player still in must agree" in page.content.decode()
    data[f"agree_{ids[2]}"] = "on"
    page = alice_client.post(reverse("tournament_deal", args=[t.pk]), data, follow=True)
    assert "Deal recorded" in page.content.decode()
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    assert sorted(t.entries.values_list("prize", flat=True)) == [100, 100, 100]
    bracket = alice_client.get(reverse("tournament_bracket", args=[t.pk])).content.decode()
    assert "Winner" in bracket and "$1" in bracket  # the banner with the prizes


def test_standings_csv_page(running, alice_client):
    response = alice_client.get(reverse("tournament_standings_csv", args=[running.pk]))
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == [
        "place",
        "player",
        "status",
        "chips",
        "out_table",
        "out_at",
        "prize",
        "prize_due",
    ]
    assert len(rows) == 11


def test_a_finished_tables_undo_is_refused_with_the_reason(club, alice, alice_client):
    t = finished_freezeout(club, alice)
    x = TournamentTable.objects.select_related("session").get(tournament=t)
    last = Hand.objects.filter(session=x.session, status="recorded").order_by("-number").first()
    before = books.prize_balances(t)
    page = alice_client.post(reverse("hand_void", args=[last.pk]), follow=True).content.decode()
    assert f"Table 1 of {t.name} has finished" in page
    assert "so its hands can no longer be undone" in page and t.get_absolute_url() in page
    last.refresh_from_db()
    assert last.status == "recorded" and books.prize_balances(t) == before
    postings.check_invariants(x.session)
    postings.check_prize_ledger(t)
