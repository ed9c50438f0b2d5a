"""Tournament pages: who may see and do what, the forms, the dashboard, the bracket (with
its public link, htmx partial, ETag/304 and flat query count), standings and prizes."""

import csv
import io
import re
from collections import Counter
from html.parser import HTMLParser

import pytest
from django.db import connection, reset_queries
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import Entry, Player, ShareLink, Tournament, TournamentTable
from games.tournaments import service as svc
from ledger import books, postings
from tests.factories import seeded

from .test_tournament_service import make_players, make_tournament, names, record, win

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def cup(club, alice):
    return make_tournament(club, alice, n=8, buy_in=20, fee=2, starting_chips=20, antes=[1])


@pytest.fixture
def running(cup, alice):
    svc.start(tournament_id=seeded(cup.pk, "view-seed"), user=alice)
    cup.refresh_from_db()
    return cup


def page_urls(t: Tournament) -> list[str]:
    return [
        reverse("tournament_detail", args=[t.pk]),
        reverse("tournament_bracket", args=[t.pk]),
        reverse("tournament_standings", args=[t.pk]),
        reverse("tournament_prizes", args=[t.pk]),
        reverse("tournament_prizes_csv", args=[t.pk]),
        reverse("tournament_standings_csv", args=[t.pk]),
    ]


def post_urls(t: Tournament) -> list[str]:
    entry = t.entries.first()
    x = TournamentTable.objects.filter(tournament=t).first()
    urls = [
        reverse("tournament_entry_add", args=[t.pk]),
        reverse("tournament_checkin_all", args=[t.pk]),
        reverse("tournament_entry_action", args=[t.pk, entry.pk, "checkin"]),
        reverse("tournament_entry_action", args=[t.pk, entry.pk, "withdraw"]),
        reverse("tournament_start", args=[t.pk]),
        reverse("tournament_next_round", args=[t.pk]),
        reverse("tournament_end_round", args=[t.pk]),
        reverse("tournament_sync", args=[t.pk]),
        reverse("tournament_edit", args=[t.pk]),
        reverse("tournament_clock", args=[t.pk]),
        reverse("tournament_reseed", args=[t.pk]),
        reverse("tournament_roster", args=[t.pk]),
        reverse("tournament_deal", args=[t.pk]),
        reverse("tournament_entry_action", args=[t.pk, entry.pk, "reenter"]),
    ]
    if x:
        urls += [
            reverse("tournament_table_end", args=[t.pk, x.pk]),
            reverse("tournament_table_autoplay", args=[t.pk, x.pk]),
        ]
    return urls


# -- access ----------------------------------------------------------------------------------


def test_strangers_get_404_everywhere(running, mallory_client, club):
    for url in [reverse("tournament_list", args=[club.pk]), *page_urls(running)]:
        assert mallory_client.get(url).status_code == 404, url
    for url in [*post_urls(running), reverse("tournament_create", args=[club.pk])]:
        assert mallory_client.post(url).status_code == 404, url
    assert not running.moves.exists()


def test_anonymous_visitors_are_sent_to_log_in(running, client):
    for url in page_urls(running):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_members_read_but_cannot_direct(running, carol_client, club):
    for url in [reverse("tournament_list", args=[club.pk]), *page_urls(running)]:
        assert carol_client.get(url).status_code == 200, url
    for url in [*post_urls(running), reverse("tournament_create", args=[club.pk])]:
        assert carol_client.post(url).status_code == 403, url
    page = carol_client.get(reverse("tournament_detail", args=[running.pk])).content.decode()
    assert "End now" not in page and "Check the tables" not in page


def test_scorekeepers_direct(cup, bob_client):
    committed = cup.seed
    # A seed sent with the form is ignored: the draw uses the one committed at creation.
    response = bob_client.post(reverse("tournament_start", args=[cup.pk]), {"seed": "bob"})
    assert response.status_code == 302
    cup.refresh_from_db()
    assert cup.status == Tournament.Status.RUNNING and cup.rounds.get().seed == committed


# -- setup and registration ------------------------------------------------------------------


def test_club_page_links_to_tournaments(alice_client, club):
    page = alice_client.get(reverse("club_detail", args=[club.pk])).content.decode()
    assert reverse("tournament_list", args=[club.pk]) in page


def test_create_a_tournament_with_the_form(alice_client, club):
    url = reverse("tournament_create", args=[club.pk])
    assert alice_client.get(url).status_code == 200
    data = {
        "name": "Spring Cup",
        "format": "rounds",
        "table_mode": "reported",
        "buy_in": "25",
        "fee": "5",
        "starting_chips": "40",
        "antes_text": "1, 2, 4",
        "hands_per_level": "0",
        "min_table": "4",
        "max_table": "7",
        "hands_per_round": "8",
        "advance_per_table": "2",
        "final_hands": "0",
        "tiebreak": "pots",
        "payouts_text": "60, 40",
        "pot_limit": "10",
    }
    response = alice_client.post(url, data)
    t = Tournament.objects.get()
    assert response.status_code == 302 and response["Location"] == t.get_absolute_url()
    assert (t.buy_in, t.fee, t.antes, t.payout_percentages) == (25, 5, [1, 2, 4], [60, 40])
    assert t.rules == {"pot_limit": 10}


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("max_table", "9", "Bourré seats 2 to 8"),  # R3
        ("antes_text", "1, x", "whole numbers"),
        ("payouts_text", "70, 20", "add up to 90"),
        ("advance_per_table", "4", "advance"),
    ],
)
def test_bad_settings_are_shown_beside_the_field_R3(alice_client, club, field, value, message):
    data = {
        "name": "Cup",
        "format": "rounds",
        "table_mode": "reported",
        "buy_in": "0",
        "fee": "0",
        "starting_chips": "40",
        "antes_text": "1, 2",
        "hands_per_level": "0",
        "min_table": "4",
        "max_table": "7",
        "hands_per_round": "8",
        "advance_per_table": "2",
        "final_hands": "0",
        "tiebreak": "pots",
        field: value,
    }
    response = alice_client.post(reverse("tournament_create", args=[club.pk]), data)
    assert response.status_code == 422
    assert message in response.content.decode()
    assert not Tournament.objects.exists()
    # The settings page of a tournament not started refuses it the same way, keeping
    # what was typed.
    cup = svc.create_tournament(club=club, user=None, name="Cup", buy_in=10)
    response = alice_client.post(reverse("tournament_edit", args=[cup.pk]), data)
    assert response.status_code == 422
    assert message in response.content.decode()
    assert f'value="{value}"' in response.content.decode()


def test_edit_settings_until_the_start(cup, alice_client):
    url = reverse("tournament_edit", args=[cup.pk])
    page = alice_client.get(url)
    assert page.status_code == 200 and "1" in page.content.decode()
    svc.start(tournament_id=seeded(cup.pk, "s"), user=None)
    response = alice_client.get(url)
    assert response.status_code == 302


def test_enter_check_in_and_withdraw_through_the_page(club, alice, alice_client):
    t = svc.create_tournament(club=club, user=alice, name="Cup", buy_in=10)
    ann, ben, cal = make_players(club, 3, prefix="x")
    response = alice_client.post(
        reverse("tournament_entry_add", args=[t.pk]), {"players": [ann.pk, ben.pk]}
    )
    assert response.status_code == 302
    assert set(t.entries.values_list("status", flat=True)) == {"registered"}
    alice_client.post(
        reverse("tournament_entry_add", args=[t.pk]), {"players": [cal.pk], "check_in": "on"}
    )
    alice_client.post(reverse("tournament_checkin_all", args=[t.pk]))
    assert not t.entries.filter(is_bot=True).exists()
    assert books.prize_balances(t)["pool"] == 30
    entry = t.entries.get(player=ben)
    alice_client.post(reverse("tournament_entry_action", args=[t.pk, entry.pk, "withdraw"]))
    entry.refresh_from_db()
    assert entry.status == Entry.Status.WITHDRAWN
    assert books.prize_balances(t)["pool"] == 20
    assert (
        alice_client.post(
            reverse("tournament_entry_action", args=[t.pk, entry.pk, "nonsense"])
        ).status_code
        == 404
    )
    page = alice_client.get(t.get_absolute_url()).content.decode()
    assert "Start: draw round 1 (2 players)" in page


def test_the_dashboards_ids_are_unique(cup, alice_client, club):
    """The entry form and the pasted roster both have a check-in box: one id each, so
    each label ticks its own box."""
    Player.objects.create(club=club, name="zed")  # not entered: the entry form shows

    class Ids(HTMLParser):
        def __init__(self):
            super().__init__()
            self.ids: list[str] = []

        def handle_starttag(self, tag, attrs):
            self.ids += [value for name, value in attrs if name == "id" and value]

    page = alice_client.get(reverse("tournament_detail", args=[cup.pk])).content.decode()
    parser = Ids()
    parser.feed(page)
    assert "id_check_in" in parser.ids and "id_roster_check_in" in parser.ids
    assert [i for i, n in Counter(parser.ids).items() if n > 1] == []


def test_errors_come_back_as_messages(running, alice_client):
    response = alice_client.post(reverse("tournament_start", args=[running.pk]), follow=True)
    assert "It has started already." in response.content.decode()


# -- the dashboard --------------------------------------------------------------------------


def test_dashboard_shows_tables_and_what_blocks_the_round(running, alice_client):
    page = alice_client.get(reverse("tournament_detail", args=[running.pk])).content.decode()
    assert "What the round is waiting for" in page
    assert "Table 1: hand 1 of 10." in page
    assert "view-seed" in page  # the seed is shown
    for x in running.tables.all():
        assert reverse("session_detail", args=[x.session_id]) in page
    assert running.public_token in page and "<svg" in page  # link + QR code


def test_dashboard_partial_polls_with_etag(running, alice_client, alice):
    url = reverse("tournament_detail", args=[running.pk]) + "?part=dashboard"
    first = alice_client.get(url, headers=HTMX)
    assert first.status_code == 200
    body = first.content.decode()
    assert body.lstrip().startswith('<div id="dashboard"') and "<html" not in body
    etag = first["ETag"]
    same = alice_client.get(url, headers={**HTMX, "If-None-Match": etag})
    assert same.status_code == 304 and same.content == b""
    x = running.tables.get(number=1)
    seats = list(names(x.session))
    record(x.session, win(seats, seats[0], {seats[1]: 2}), alice)
    changed = alice_client.get(url, headers={**HTMX, "If-None-Match": etag})
    assert changed.status_code == 200 and changed["ETag"] != etag


def test_director_buttons_end_a_table_and_draw_the_next_round(running, alice_client):
    x = running.tables.get(number=1)
    alice_client.post(reverse("tournament_table_end", args=[running.pk, x.pk]), {"now": "1"})
    x.refresh_from_db()
    assert x.status == TournamentTable.Status.FINISHED
    alice_client.post(reverse("tournament_end_round", args=[running.pk]), {"now": "1"})
    page = alice_client.get(reverse("tournament_detail", args=[running.pk])).content.decode()
    assert "Round 1 is over: draw round 2." in page
    response = alice_client.post(
        reverse("tournament_next_round", args=[running.pk]), {"seed": "final-seed"}
    )
    assert response.status_code == 302
    assert running.rounds.get(number=2).seed == running.seed  # the committed seed again


def test_bots_only_play_digital_tables(running, alice_client):
    x = running.tables.get(number=1)
    response = alice_client.post(
        reverse("tournament_table_autoplay", args=[running.pk, x.pk]), {"hands": "2"}, follow=True
    )
    assert "Only digital tables" in response.content.decode()
    assert not x.session.hands.exists()


def test_bots_play_a_digital_table_from_the_dashboard(club, alice, alice_client):
    t = make_tournament(club, alice, n=3, table_mode="digital", starting_chips=30)
    bot = Player.objects.create(club=club, name="robo")
    alice_client.post(
        reverse("tournament_entry_add", args=[t.pk]),
        {"players": [bot.pk], "check_in": "on", "bots": "on"},
    )
    assert t.entries.get(player=bot).is_bot
    svc.start(tournament_id=seeded(t.pk, "d"), user=alice)
    x = t.tables.get()
    assert list(x.session.seats.filter(is_bot=True).values_list("player", flat=True)) == [bot.pk]
    alice_client.post(reverse("tournament_table_autoplay", args=[t.pk, x.pk]), {"hands": "2"})
    assert x.session.hands.filter(status="recorded", kind="digital").count() == 2


# -- the bracket ----------------------------------------------------------------------------


def test_bracket_page_and_partial(running, carol_client):
    url = reverse("tournament_bracket", args=[running.pk])
    page = carol_client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'class="bracket"' in html and "Round 1" in html and "view-seed" in html
    for name in Player.objects.filter(entries__tournament=running).values_list("name", flat=True):
        assert name in html
    assert page["Cache-Control"] == "private, no-store"
    partial = carol_client.get(url, headers=HTMX)
    assert partial.content.decode().lstrip().startswith('<section id="bracket"')
    assert partial["ETag"] == page["ETag"]


def test_bracket_answers_304_until_a_hand_is_recorded(running, carol_client, alice):
    url = reverse("tournament_bracket", args=[running.pk])
    etag = carol_client.get(url, headers=HTMX)["ETag"]
    response = carol_client.get(url, headers={**HTMX, "If-None-Match": etag})
    assert response.status_code == 304 and response.content == b""
    x = running.tables.get(number=2)
    seats = list(names(x.session))
    record(x.session, win(seats, seats[1], {seats[0]: 2}), alice)
    response = carol_client.get(url, headers={**HTMX, "If-None-Match": etag})
    assert response.status_code == 200 and response["ETag"] != etag


def test_public_bracket_needs_no_login_and_an_exact_token(running, client):
    response = client.get(reverse("tournament_public", args=[running.pk and running.public_token]))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'class="bracket"' in html and "End now" not in html
    assert len(running.public_token) >= 24
    assert (
        client.get(reverse("tournament_public", args=["nope" + running.public_token])).status_code
        == 404
    )
    partial = client.get(reverse("tournament_public", args=[running.public_token]), headers=HTMX)
    assert partial.status_code == 200


def _bracket_queries(client, t) -> int:
    reset_queries()  # the request clears the log: count from empty
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(reverse("tournament_bracket", args=[t.pk])).status_code == 200
    return len(ctx)


def test_bracket_query_count_does_not_grow_with_entrants(club, alice, alice_client):
    small = make_tournament(club, alice, n=8, name="small")
    svc.start(tournament_id=seeded(small.pk, "a"), user=alice)
    from tests.factories import ClubFactory, MembershipFactory

    other = ClubFactory()
    MembershipFactory(club=other, user=alice, role="owner")
    big = make_tournament(other, alice, n=60, name="big")
    svc.start(tournament_id=seeded(big.pk, "b"), user=alice)
    x = big.tables.first()
    seats = list(names(x.session))
    record(x.session, win(seats, seats[0], {seats[1]: 2}), alice)
    assert big.tables.count() > 3 * small.tables.count()
    assert _bracket_queries(alice_client, small) == _bracket_queries(alice_client, big) > 0


# -- standings and prizes -------------------------------------------------------------------


def test_standings_and_prize_pages(running, alice_client):
    x = running.tables.get(number=1)
    alice_client.post(reverse("tournament_table_end", args=[running.pk, x.pk]), {"now": "1"})
    page = alice_client.get(reverse("tournament_standings", args=[running.pk])).content.decode()
    assert "playing" in page and "table 1" in page
    prizes = alice_client.get(reverse("tournament_prizes", args=[running.pk])).content.decode()
    assert "Buy-in" in prizes and "Fee" in prizes and "$160" in prizes


def test_prize_ledger_csv_one_row_per_leg(running, alice_client):
    Player.objects.filter(pk=running.entries.first().player_id).update(name="=cmd()")
    response = alice_client.get(reverse("tournament_prizes_csv", args=[running.pk]))
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["posting", "date", "kind", "player", "account", "amount", "currency", "memo"]
    assert len(rows) == 1 + 8 * 4  # buy-in (2 legs) and fee (2 legs) per entrant
    assert sum(int(r[5]) for r in rows[1:]) == 0
    assert any(r[3] == "'=cmd()" for r in rows[1:])  # never a formula


def test_dashboard_lists_seat_moves_and_the_final_result(club, alice, alice_client):
    t = make_tournament(club, alice, n=9, format="freezeout", starting_chips=4, antes=[1])
    svc.start(tournament_id=seeded(t.pk, "fz"), user=alice)
    one, two = t.tables.get(number=1), t.tables.get(number=2)
    s2 = list(names(two.session))
    record(two.session, {"trump": "C", "passed": [s2[2]], "tricks": {s2[0]: 3, s2[1]: 2, s2[3]: 0}})
    s1 = list(names(one.session))
    record(one.session, win(s1, s1[0], {s1[1]: 2}))
    move = t.moves.get()
    page = alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()
    assert "Seat moves" in page
    assert f"{move.player.name}: table 1 → table 2" in page and f"{move.chips} chips" in page

    final = make_tournament(club, alice, n=4, prefix="q", name="Quick", starting_chips=2, antes=[1])
    svc.start(tournament_id=seeded(final.pk, "q"), user=alice)
    x = final.tables.get()
    a, b, c, d = names(x.session)
    record(x.session, {"trump": "S", "passed": [], "tricks": {a: 5, b: 0, c: 0, d: 0}})
    page = alice_client.get(reverse("tournament_detail", args=[final.pk])).content.decode()
    assert "Final result" in page and f"1. {a}" in page


@pytest.mark.parametrize("language, shown", [("en", "12,000"), ("fi", "12\u00a0000")])
def test_stacks_are_grouped_in_the_readers_language(club, alice, alice_client, language, shown):
    """A stack of 12000 reads "12,000" (Finnish: "12 000", a no-break space) on every
    tournament page; the CSV keeps the plain number for programs."""
    t = make_tournament(club, alice, n=4, starting_chips=12000, antes=[1000], level_minutes=15)
    svc.start(tournament_id=seeded(t.pk, "grouped"), user=alice)
    ante = "1,000" if language == "en" else "1\u00a0000"
    dashboard = reverse("tournament_detail", args=[t.pk])
    clock = alice_client.get(dashboard, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert 'id="clock-h"' in clock and ante in clock.split('id="clock-h"')[1].split("</h2>")[0]
    pages = [
        reverse(name, args=[t.pk])
        for name in ("tournament_detail", "tournament_bracket", "tournament_standings")
    ]
    for url in [*pages, reverse("tournament_tv", args=[t.public_token])]:
        page = alice_client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert shown in page, url
    csv_text = alice_client.get(reverse("tournament_standings_csv", args=[t.pk])).content.decode()
    assert "12000" in csv_text and shown not in csv_text


# -- a table's own scoreboard ---------------------------------------------------------------


def _seat_figures(page: str) -> dict[str, str]:
    rows = re.findall(
        r'<span class="seat-name">([^<]+).*?<span class="money (?:stack|net[^"]*)">([^<]+)</span>',
        page,
        re.S,
    )
    return {name.strip(): figure.strip() for name, figure in rows}


def test_a_tables_scoreboard_shows_the_stacks_in_front_of_the_players(running, alice_client, alice):
    """A tournament table plays for chips: its seats show each player's stack, as the
    standings do (it showed '0 chips' for everyone at the start, then the change)."""
    x = running.tables.order_by("number").first()
    session = x.session
    url = reverse("session_detail", args=[session.pk])
    start = _seat_figures(alice_client.get(url).content.decode())
    assert start and set(start.values()) == {"20 chips"}  # the starting chips
    seats = names(session)
    players = sorted(seats)
    record(session, win(players, players[0]), user=alice)
    session.refresh_from_db()
    after = _seat_figures(alice_client.get(url, headers=HTMX).content.decode())
    stacks = session.stack_by_player()
    assert after == {p: f"{stacks[seats[p]]} chips" for p in start}
    assert stacks[seats[players[0]]] > 20  # the winner's stack grew
    # The share link's board says the same.
    link = ShareLink.new(session)
    link.save()
    shared = alice_client.get(reverse("share_board", args=[link.token])).content.decode()
    assert re.findall(r'class="money stack">([^<]+)<', shared) == list(after.values())
    postings.check_invariants(session)


def test_the_brackets_key_says_advances_for_rounds_and_winner_for_a_freeze_out(
    running, club, alice, alice_client
):
    rounds = alice_client.get(reverse("tournament_bracket", args=[running.pk])).content.decode()
    assert "▲ advances" in rounds
    freeze = make_tournament(
        club, alice, n=6, prefix="f", name="Freeze", format="freezeout", antes=[1]
    )
    svc.start(tournament_id=freeze.pk, user=alice)
    page = alice_client.get(reverse("tournament_bracket", args=[freeze.pk])).content.decode()
    assert "▲ winner" in page and "advances" not in page
