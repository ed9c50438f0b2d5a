"""Session pages: start, scoreboard (full page, htmx partial, ETag/304), seats, rules,
close, history and club statistics, with the forbidden cases of each (strangers 404,
members 403 on writes, anonymous users sent to log in)."""

import re
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from games.engine.rulebook import SWITCHES
from games.engine.rules import RULE_FIELDS
from games.models import GameSession, Hand, Player, Seat, SessionEvent
from games.money import CHIPS, format_money
from games.sessions import share
from ledger import postings

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


# -- helpers shared by the session test modules ---------------------------------------------


def start_table(club, players, user, name="Friday"):
    """ann, ben, cal, dee in that order; dee deals first, so ann leads. Ante 1, $."""
    return postings.start_session(
        club=club,
        name=name,
        players=players,
        dealer=players[3],
        rules={},
        currency=club.currency,
        user=user,
    )


@pytest.fixture
def table(club, players, bob):
    return start_table(club, players, bob)


def hand_data(session, *, trump="H", tricks=None, passed=(), reneges=None, key=None, **extra):
    """The POST body of the record form, as the page sends it."""
    state = postings.session_state(session)
    data = {
        "idempotency_key": key or uuid.uuid4().hex,
        "version": state["version"],
        "trump": trump,
    }
    tricks = tricks or {}
    reneges = reneges or {}
    for i, name in enumerate(state["players"]):
        data[f"player_{i}"] = name
        data[f"play_{i}"] = "pass" if name in passed else "play"
        data[f"tricks_{i}"] = tricks.get(name, 0)
        data[f"renege_{i}"] = reneges.get(name, "")
    data.update({k: v for k, v in extra.items() if v is not None})
    return data


def record(client, session, htmx=False, **kwargs):
    url = reverse("hand_record", args=[session.pk])
    return client.post(url, hand_data(session, **kwargs), **(HTMX if htmx else {}))


def record_direct(session, user=None, **entry):
    """Record a hand through the ledger (setup for page tests)."""
    if "up_card" not in entry:
        entry.setdefault("trump", "H")
    hand, created = postings.record_hand(
        session_id=session.pk,
        entry=entry,
        idempotency_key=uuid.uuid4().hex,
        expected_version=None,
        user=user,
    )
    assert created
    session.refresh_from_db()
    return hand


WIN_ANN = {"tricks": {"ann": 3, "ben": 1, "cal": 1, "dee": 0}}  # ann wins 4, dee bourré


def new_session_data(players, **overrides):
    data = {
        "name": "Thursday game",
        "currency": "$",
        "leftover_policy": "carry_to_club",
        "dealer": "",
        "new_players": "",
    }
    for spec in RULE_FIELDS:
        if spec.type == "bool":
            if spec.default:
                data[spec.key] = "on"
        elif spec.default is not None:
            data[spec.key] = spec.default
    for i, player in enumerate(players, start=1):
        data[f"seat_{i}"] = player.pk
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


# -- starting a session ----------------------------------------------------------------------


def test_new_session_form_has_every_house_rule_with_help(bob_client, club, players):
    response = bob_client.get(reverse("session_new", args=[club.pk]))
    assert response.status_code == 200
    form = response.context["form"]
    for spec in RULE_FIELDS:
        assert spec.key in form.fields, spec.key
        assert form.fields[spec.key].help_text == spec.help
        assert form.fields[spec.key].initial == spec.default
    html = response.content.decode()
    assert "In turn, from the dealer&#x27;s left" in html  # readable choice labels
    # A roster of four is seated in roster order by default.
    assert [form.fields[f"seat_{i}"].initial for i in range(1, 5)] == [p.pk for p in players]


def test_new_session_shows_undertrump_and_cinch_with_each_choice_explained_R22_R29(
    bob_client, club
):
    html = bob_client.get(reverse("session_new", args=[club.pk])).content.decode()
    shown, house_rules = html.split('<details class="house-rules">')
    for key in ("undertrump_required", "cinch"):
        assert f'name="{key}"' in shown and f'name="{key}"' not in house_rules
        for choice in SWITCHES[key].choices:
            assert choice.means.replace("'", "&#x27;") in shown
    assert 'name="cinch_equivalence"' in house_rules  # the rest stays folded away
    assert "English rules page: Optional" in shown  # which sources say what


def test_start_session_stores_seats_dealer_rules_and_currency(bob_client, club, players, bob):
    ann, ben, cal, dee = players
    data = new_session_data(
        [cal, ann, dee],
        dealer=ann.pk,
        ante=5,
        pot_limit=20,
        split_pot="divide",
        currency="chips",
        leftover_policy="share_equally",
    )
    data.pop("tied_excused")  # unticked checkbox
    response = bob_client.post(reverse("session_new", args=[club.pk]), data)
    session = GameSession.objects.get()
    assert response.status_code == 302 and response["Location"] == session.get_absolute_url()
    assert [s.player.name for s in session.seats.order_by("position")] == ["cal", "ann", "dee"]
    assert session.next_dealer == ann
    assert session.currency == CHIPS and session.leftover_policy == "share_equally"
    assert session.rules["ante"] == 5 and session.rules["pot_limit"] == 20
    assert session.rules["split_pot"] == "divide" and session.rules["tied_excused"] is False
    assert session.created_by == bob
    assert SessionEvent.objects.filter(session=session, kind="started").exists()


def test_start_session_adds_new_names_to_the_roster(bob_client, club, players):
    data = new_session_data(players[:2], new_players="Eve,  fay , ANN")
    data.pop("seat_1")  # ann comes back through the new-names box, matched on the roster
    response = bob_client.post(reverse("session_new", args=[club.pk]), data)
    assert response.status_code == 302
    session = GameSession.objects.get()
    assert [s.player.name for s in session.seats.order_by("position")] == [
        "ben",
        "Eve",
        "fay",
        "ann",
    ]
    assert Player.objects.filter(club=club, name="Eve").exists()
    assert Player.objects.filter(club=club, name__iexact="ann").count() == 1
    assert session.next_dealer.name == "ben"  # empty dealer: seat 1 deals


def test_start_session_needs_two_players_R3(bob_client, club, players):
    response = bob_client.post(
        reverse("session_new", args=[club.pk]), new_session_data(players[:1])
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "2 to 8 players" in html and "(R3)" not in html and 'href="/rules/#R3"' in html
    assert not GameSession.objects.exists()


def test_start_session_rejects_a_player_in_two_seats(bob_client, club, players):
    data = new_session_data(players[:3], seat_3=players[0].pk)
    response = bob_client.post(reverse("session_new", args=[club.pk]), data)
    assert response.status_code == 422
    assert response.context["form"].errors["seat_3"] == ["ann is already in seat 1."]
    assert not GameSession.objects.exists()


def test_start_session_rejects_unseated_dealer_and_bad_ante(bob_client, club, players):
    data = new_session_data(players[:2], dealer=players[3].pk, ante=0)
    response = bob_client.post(reverse("session_new", args=[club.pk]), data)
    assert response.status_code == 422
    errors = response.context["form"].errors
    assert errors["dealer"] == ["dee is not seated."]
    assert "ante" in errors
    assert not GameSession.objects.exists()
    assert not Player.objects.exclude(pk__in=[p.pk for p in players]).exists()


def test_start_session_forbidden(carol_client, mallory_client, client, club, players):
    url = reverse("session_new", args=[club.pk])
    assert carol_client.get(url).status_code == 403
    assert carol_client.post(url, new_session_data(players)).status_code == 403
    assert mallory_client.get(url).status_code == 404
    assert mallory_client.post(url, new_session_data(players)).status_code == 404
    assert client.get(url).status_code == 302
    assert not GameSession.objects.exists()


# -- the scoreboard --------------------------------------------------------------------------


def test_scoreboard_full_page_dealer_R8_excused_R36(bob_client, table):
    record_direct(table, **WIN_ANN)  # ann +3, dee bourré: pot opens at 4, dee excused
    response = bob_client.get(reverse("session_detail", args=[table.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html and 'id="board"' in html
    assert "data-pot>$4<" in html
    rows = {r["name"]: r for r in response.context["rows"]}
    assert rows["ann"]["net"] == 3 and rows["dee"]["net"] == -5
    assert rows["ann"]["dealer"] and not rows["ben"]["dealer"]  # R8: ann deals next
    assert rows["dee"]["excused"]
    assert "+$3" in html and "\u2212$5" in html
    assert 'class="money net pos"' in html and 'class="money net neg"' in html
    assert "excused</span>" in html
    assert "Record hand" in html
    # Polls only while visible: app.js cancels the request of a hidden page (no eval
    # under the Content-Security-Policy, so no hx-trigger filter).
    assert 'hx-trigger="every 3s, visibilitychange from:document" data-poll-visible' in html


def test_scoreboard_member_reads_without_record_button(carol_client, table):
    response = carol_client.get(reverse("session_detail", args=[table.pk]))
    assert response.status_code == 200
    assert "Record hand" not in response.content.decode()


def test_scoreboard_forbidden(mallory_client, client, table):
    url = reverse("session_detail", args=[table.pk])
    assert mallory_client.get(url).status_code == 404
    assert mallory_client.get(url, **HTMX).status_code == 404
    assert client.get(url).status_code == 302


def test_scoreboard_partial_for_htmx_with_etag(carol, carol_client, table):
    response = carol_client.get(reverse("session_detail", args=[table.pk]), **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html and html.lstrip().startswith('<section id="board"')
    # The viewer's id rides along: the poll's one statement reads that member (games.polling).
    assert response["ETag"] == f'"board-{table.pk}-{table.version}-member-{carol.pk}"'
    assert "no-store" in response["Cache-Control"]
    assert "HX-Request" in response["Vary"]
    # The poll sends the ETag it was rendered with.
    assert "If-None-Match" in html and f"board-{table.pk}-{table.version}" in html


def test_scoreboard_poll_answers_304_until_the_session_changes(carol_client, table, bob):
    url = reverse("session_detail", args=[table.pk])
    etag = carol_client.get(url, **HTMX)["ETag"]
    unchanged = carol_client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert unchanged.status_code == 304
    assert unchanged.content == b""
    assert unchanged["ETag"] == etag
    record_direct(table, user=bob, **WIN_ANN)
    changed = carol_client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert changed.status_code == 200
    assert changed["ETag"] != etag
    assert "#1" in changed.content.decode()


def test_scoreboard_etag_depends_on_role(bob_client, carol_client, table):
    url = reverse("session_detail", args=[table.pk])
    member_etag = carol_client.get(url, **HTMX)["ETag"]
    # A scorekeeper's board has the record button: a member's ETag must not match it.
    assert bob_client.get(url, HTTP_IF_NONE_MATCH=member_etag, **HTMX).status_code == 200


def test_stranger_cannot_probe_etag(mallory_client, carol_client, table):
    url = reverse("session_detail", args=[table.pk])
    etag = carol_client.get(url, **HTMX)["ETag"]
    assert mallory_client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 404


def _count_queries(client, url, **headers) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url, **headers).status_code == 200
    return len(ctx.captured_queries)


def _play(session, hands: int) -> None:
    rounds = [
        {"tricks": {"ann": 3, "ben": 1, "cal": 1, "dee": 0}},
        {"tricks": {"ann": 2, "ben": 2, "cal": 1, "dee": 0}},
        {"passed": ["ben", "cal"], "tricks": {"ann": 3, "dee": 2}},
    ]
    for i in range(hands):
        record_direct(session, **rounds[i % 3])


def test_scoreboard_query_count_does_not_grow_with_hands(
    bob_client, club, players, bob, django_assert_num_queries
):
    small = postings.start_session(
        club=club,
        name="small",
        players=players,
        dealer=players[3],
        rules={},
        currency=club.currency,
        user=bob,
    )
    big = postings.start_session(
        club=club,
        name="big",
        players=players,
        dealer=players[3],
        rules={},
        currency=club.currency,
        user=bob,
    )
    _play(small, 3)
    _play(big, 30)
    for headers in ({}, HTMX):
        expected = _count_queries(bob_client, reverse("session_detail", args=[small.pk]), **headers)
        with django_assert_num_queries(expected):
            bob_client.get(reverse("session_detail", args=[big.pk]), **headers)


# -- seats -----------------------------------------------------------------------------------


def test_seat_leaves_and_comes_back(bob_client, table, players):
    url = reverse("session_seats", args=[table.pk])
    ben = players[1]
    response = bob_client.post(url, {"action": "leave", "player": ben.pk})
    assert response.status_code == 302
    assert not Seat.objects.get(session=table, player=ben).active
    assert "ben" not in postings.session_state(table)["players"]
    response = bob_client.post(url, {"action": "return", "player": ben.pk}, **HTMX)
    assert response.status_code == 200
    assert "ben is back" in response.content.decode()
    assert Seat.objects.get(session=table, player=ben).active


def test_add_seat_from_roster_and_new_name(bob_client, club, players, bob):
    session = postings.start_session(
        club=club,
        name="s",
        players=players[:2],
        dealer=players[0],
        rules={},
        currency=club.currency,
        user=bob,
    )
    url = reverse("session_seats", args=[session.pk])
    assert bob_client.post(url, {"action": "add", "player": players[2].pk}).status_code == 302
    response = bob_client.post(url, {"action": "add", "player": "", "name": "Zoe"}, **HTMX)
    assert response.status_code == 200
    assert "Zoe sits down" in response.content.decode()
    assert postings.session_state(session)["players"] == ["ann", "ben", "cal", "Zoe"]


def test_seat_refusal_is_shown_R3(bob_client, club, players, bob):
    session = postings.start_session(
        club=club,
        name="s",
        players=players[:2],
        dealer=players[0],
        rules={},
        currency=club.currency,
        user=bob,
    )
    url = reverse("session_seats", args=[session.pk])
    response = bob_client.post(url, {"action": "leave", "player": players[0].pk}, **HTMX)
    assert response.status_code == 409
    assert "at least 2 players (R3)" in response.content.decode()
    assert Seat.objects.get(session=session, player=players[0]).active


def test_a_refused_new_seat_leaves_no_name_on_the_roster_R3(bob_client, club, bob):
    """A ninth player is refused (R3); the new name typed for them is not kept."""
    eight = [Player.objects.create(club=club, name=f"p{i}") for i in range(8)]
    session = postings.start_session(
        club=club,
        name="full",
        players=eight,
        dealer=eight[0],
        rules={},
        currency=club.currency,
        user=bob,
    )
    url = reverse("session_seats", args=[session.pk])
    response = bob_client.post(url, {"action": "add", "player": "", "name": "Zoe"}, **HTMX)
    assert response.status_code == 409
    assert "Zoe sits down" not in response.content.decode()
    assert not club.players.filter(name="Zoe").exists()
    assert len(postings.session_state(session)["players"]) == 8
    postings.check_invariants(session)


def test_seats_forbidden(carol_client, mallory_client, table, players):
    url = reverse("session_seats", args=[table.pk])
    assert carol_client.get(url).status_code == 200
    assert "Leaves" not in carol_client.get(url).content.decode()
    assert carol_client.post(url, {"action": "leave", "player": players[1].pk}).status_code == 403
    assert mallory_client.get(url).status_code == 404
    assert mallory_client.post(url, {"action": "leave", "player": players[1].pk}).status_code == 404
    assert Seat.objects.get(session=table, player=players[1]).active


# -- rules -----------------------------------------------------------------------------------


def _rules_data(**overrides):
    data = {}
    for spec in RULE_FIELDS:
        if spec.type == "bool":
            if spec.default:
                data[spec.key] = "on"
        elif spec.default is not None:
            data[spec.key] = spec.default
    data.update(overrides)
    return data


def test_rule_change_applies_from_next_hand_and_is_in_history_R5(bob_client, table):
    record_direct(table, **WIN_ANN)
    first = Hand.objects.get()
    response = bob_client.post(reverse("session_rules", args=[table.pk]), _rules_data(ante=2))
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.rules["ante"] == 2
    event = SessionEvent.objects.get(session=table, kind="rules_changed")
    assert event.data["changed"]["ante"] == [1, 2]
    assert first.record["rules"]["ante"] == 1  # the hand already played keeps its rules
    follow = bob_client.get(response["Location"])
    assert "Ante: $1 → $2" in follow.content.decode()
    response = record(bob_client, table, tricks={"ann": 3, "ben": 1, "cal": 1})
    second = Hand.objects.get(number=2)
    assert second.record["rules"]["ante"] == 2
    assert second.result["antes"] == {"ann": 2, "ben": 2, "cal": 2}  # dee excused (R36)
    history = bob_client.get(reverse("session_history", args=[table.pk])).content.decode()
    assert "House rules changed: Ante: $1 → $2" in history  # the form's name, not the key
    finnish = bob_client.get(
        reverse("session_history", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="fi"
    ).content.decode()
    with translation.override("fi"):
        changed, ante = gettext("House rules changed:"), gettext("Ante")
        before, after = format_money(1, table.currency), format_money(2, table.currency)
    assert (ante, before) != ("Ante", "$1")
    assert f"{changed} {ante}: {before} → {after}" in finnish


def test_rule_change_bad_value_is_shown(bob_client, table):
    response = bob_client.post(
        reverse("session_rules", args=[table.pk]), _rules_data(max_discard=9)
    )
    assert response.status_code == 422
    assert "max_discard" in response.context["form"].errors
    table.refresh_from_db()
    assert table.rules["max_discard"] == 5


def test_rules_forbidden(carol_client, mallory_client, table):
    url = reverse("session_rules", args=[table.pk])
    page = carol_client.get(url)
    assert page.status_code == 200 and "<form" not in page.content.decode().split("</header>")[1]
    assert carol_client.post(url, _rules_data(ante=3)).status_code == 403
    assert mallory_client.get(url).status_code == 404
    assert mallory_client.post(url, _rules_data(ante=3)).status_code == 404
    table.refresh_from_db()
    assert table.rules["ante"] == 1


# -- closing ---------------------------------------------------------------------------------


def test_close_session_freezes_it(bob_client, table):
    record_direct(table, **WIN_ANN)  # 4 left in the pot (dee's bourré)
    page = bob_client.get(reverse("session_close", args=[table.pk]))
    assert page.status_code == 200
    assert page.context["form"]["leftover_policy"].value() == "carry_to_club"
    response = bob_client.post(
        reverse("session_close", args=[table.pk]), {"leftover_policy": "share_equally"}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("session_settlement", args=[table.pk])
    table.refresh_from_db()
    assert not table.is_open and table.leftover_policy == "share_equally"
    postings.check_invariants(table)
    board = bob_client.get(reverse("session_detail", args=[table.pk])).content.decode()
    assert "This session is closed" in board
    assert "Record hand" not in board and "Close session" not in board
    assert "hx-trigger" not in board  # nothing left to poll for
    # Record, seats and rules actions are refused now.
    refused = bob_client.post(reverse("hand_record", args=[table.pk]), hand_data(table))
    assert refused.status_code == 302 and Hand.objects.count() == 1
    refused = bob_client.post(reverse("hand_record", args=[table.pk]), hand_data(table), **HTMX)
    assert refused.status_code == 409 and "is closed" in refused.content.decode()
    seats = bob_client.get(reverse("session_seats", args=[table.pk])).content.decode()
    assert "Leaves" not in seats and "Add a seat" not in seats
    rules = bob_client.get(reverse("session_rules", args=[table.pk])).content.decode()
    assert "Save rules" not in rules and "closed" in rules


def test_close_twice_goes_to_settlement(bob_client, table):
    url = reverse("session_close", args=[table.pk])
    bob_client.post(url, {"leftover_policy": "carry_to_club"})
    again = bob_client.post(url, {"leftover_policy": "carry_to_club"})
    assert again.status_code == 302 and "settlement" in again["Location"]


def test_close_forbidden(carol_client, mallory_client, table):
    url = reverse("session_close", args=[table.pk])
    assert carol_client.get(url).status_code == 403
    assert carol_client.post(url, {"leftover_policy": "carry_to_club"}).status_code == 403
    assert mallory_client.get(url).status_code == 404
    assert mallory_client.post(url, {"leftover_policy": "carry_to_club"}).status_code == 404
    table.refresh_from_db()
    assert table.is_open


# -- history and statistics ------------------------------------------------------------------


def test_history_shows_hands_postings_chart_and_undone_hands(carol_client, table, bob):
    record_direct(table, **WIN_ANN)
    second = record_direct(table, tricks={"ann": 2, "ben": 2, "cal": 1})
    postings.void_hand(session_id=table.pk, hand_id=second.pk, user=bob)
    ann = table.seats.get(player__name="ann").player_id
    postings.buy_in(session_id=table.pk, player_id=ann, amount=20, user=bob)
    response = carol_client.get(reverse("session_history", args=[table.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    # Money outside hands has its own list; the hands keep only their own postings.
    assert [p.kind for p in response.context["other_postings"]] == ["buy_in"]
    assert all(p.hand_id == h.pk for h in response.context["hands"] for p in h.posting_list)
    assert "Other money" in html
    chart_url = reverse("session_history_chart", args=[table.pk])
    assert f'hx-get="{chart_url}"' in html and f'href="{chart_url}"' in html
    # The chart loads on its own: an htmx partial, or a page without JavaScript.
    partial = carol_client.get(chart_url, **HTMX).content.decode()
    assert partial.lstrip().startswith('<svg class="net-chart"') and "<html" not in partial
    page = carol_client.get(chart_url).content.decode()
    assert '<svg class="net-chart"' in page and '<title id="chart-title">' in page
    for name in ("ann", "ben", "cal", "dee"):
        assert name in html
    assert "undone</span>" in html  # the voided hand is listed, marked
    assert "Pot won" in html and "Reversal" in html  # postings with their legs
    assert "Hand 2 undone" in html  # the event list


def test_history_times_read_like_the_hand_pages(carol_client, table, club):
    """The event list gives times in the hand page's format ("Dec 3, 20:56 CST"), in
    the club's time zone (it used the short numeric format, "12/03/2026 8:56 p.m.")."""
    from django.utils import dateformat

    from games import timezones

    club.time_zone = "America/Chicago"
    club.save()
    hand = record_direct(table, **WIN_ANN)
    history = carol_client.get(reverse("session_history", args=[table.pk])).content.decode()
    page = carol_client.get(reverse("hand_detail", args=[hand.pk])).content.decode()
    for event in table.events.all():
        when = dateformat.format(
            event.created_at.astimezone(timezones.zone(club.time_zone)), "M j, H:i T"
        )
        assert f'<span class="row-sub">{when}' in history
    recorded = dateformat.format(
        hand.created_at.astimezone(timezones.zone(club.time_zone)), "M j, H:i T"
    )
    assert f"Recorded {recorded}" in page


def test_history_says_every_event_in_words(carol_client, table, bob):
    """Buy-ins, cash-outs and corrections are sentences in the event list, in the
    reader's language (they showed their codes: "buy_in", "cash_out")."""
    ann = table.seats.get(player__name="ann").player_id
    record_direct(table, **WIN_ANN)
    postings.buy_in(session_id=table.pk, player_id=ann, amount=20, user=bob)
    postings.cash_out(session_id=table.pk, player_id=ann, amount=5, user=bob)
    postings.correct_hand(
        session_id=table.pk, number=1, entry={"trump": "H", "tricks": {"ann": 5}}, user=bob
    )
    url = reverse("session_history", args=[table.pk])
    html = carol_client.get(url).content.decode()
    kinds = set(table.events.values_list("kind", flat=True))
    assert {"buy_in", "cash_out", "hand_corrected"} <= kinds
    for kind in kinds:
        assert f">{kind}<" not in html and f"> {kind}<" not in html, kind
    assert "ann bought in: $20" in html and "ann cashed out: $5" in html
    assert "Hand 1 corrected" in html
    spanish = carol_client.get(url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    # US dollars in Spanish as US Spanish writes them (games.money.CURRENCY_STYLE).
    assert "ann compró fichas: $20" in spanish and "bought in" not in spanish
    # Spanish writes a month in lower case ("3 dic", not "3 Dic").
    assert re.search(r"\d+ [a-z]{3}, \d\d:\d\d", spanish)


def test_history_chart_leaves_out_voided_hands(table, bob):
    from games.sessions.selectors import net_series

    record_direct(table, **WIN_ANN)
    second = record_direct(table, tricks={"ann": 1, "ben": 3, "cal": 1})
    postings.void_hand(session_id=table.pk, hand_id=second.pk, user=bob)
    seats = list(table.seats.select_related("player"))
    labels, series = net_series(table, seats)
    assert labels == ["start", "1"]
    assert dict(series) == {"ann": [0, 3], "ben": [0, -1], "cal": [0, -1], "dee": [0, -5]}


def test_history_forbidden(mallory_client, client, table):
    for name in ("session_history", "session_history_chart"):
        url = reverse(name, args=[table.pk])
        assert mallory_client.get(url).status_code == 404
        assert client.get(url).status_code == 302


def test_history_pages_render_a_fixed_number_of_hands(carol_client, table, bob):
    from games.sessions.views import HISTORY_PAGE

    for _ in range(HISTORY_PAGE + 1):
        record_direct(table, **WIN_ANN)
    url = reverse("session_history", args=[table.pk])
    first = carol_client.get(url)
    assert len(first.context["hands"]) == HISTORY_PAGE
    assert first.context["hands"][0].number == HISTORY_PAGE + 1
    older = carol_client.get(url + "?page=2")
    assert [h.number for h in older.context["hands"]] == [1]
    assert "Older hands" in first.content.decode()
    # An undone hand keeps its number and its place; the page costs the same queries.
    with CaptureQueriesContext(connection) as before:
        carol_client.get(url)
    latest = table.hands.order_by("-number").first()
    postings.void_hand(session_id=table.pk, hand_id=latest.pk, user=bob)
    for _ in range(HISTORY_PAGE):
        record_direct(table, **WIN_ANN)
    with CaptureQueriesContext(connection) as after:
        again = carol_client.get(url + "?page=2")
    assert len(after.captured_queries) == len(before.captured_queries)
    numbers = [h.number for h in again.context["hands"]]
    assert numbers == list(range(HISTORY_PAGE + 1, 1, -1))
    assert again.context["hands"][0].status == Hand.Status.VOIDED


def test_club_stats(carol_client, club, table):
    record_direct(table, **WIN_ANN)
    response = carol_client.get(reverse("club_stats", args=[club.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Player statistics" in html
    assert '<th scope="row">ann</th>' in html and "+$3" in html
    assert "Bourrés" in html
    # Net right after the name (visible on a phone); "dealt in", not "played".
    heads = re.findall(r'<th scope="col"[^>]*>([^<]+)</th>', html)
    assert heads[:2] == ["Name", "Net"]
    assert "Dealt in" in heads and "Passed" in heads and "Hands played" not in heads


def test_club_stats_forbidden(mallory_client, client, club):
    url = reverse("club_stats", args=[club.pk])
    assert mallory_client.get(url).status_code == 404
    assert client.get(url).status_code == 302


def test_club_page_links_to_new_session_and_stats(bob_client, club):
    html = bob_client.get(reverse("club_detail", args=[club.pk])).content.decode()
    assert reverse("session_new", args=[club.pk]) in html
    assert reverse("club_stats", args=[club.pk]) in html


def test_every_memo_the_ledger_writes_for_a_session_reads_in_the_readers_language(
    carol_client, table, bob
):
    """The ledger stores its memos in English; pages show each in the reader's language
    (the ``memo`` filter). A new memo shape the filter does not know fails here."""
    from games.templatetags.bourre import memo
    from ledger.models import Posting

    record_direct(table, bob, **WIN_ANN)  # antes, pot won, bourré penalty
    record_direct(table, bob, tricks={"ann": 2, "ben": 2, "cal": 1, "dee": 0})  # split
    last = record_direct(table, bob, tricks={"ann": 3, "ben": 2, "cal": 0, "dee": 0})
    postings.void_hand(session_id=table.pk, hand_id=last.pk, user=bob, reason="misdeal")
    postings.close_session(session_id=table.pk, user=bob, leftover_policy="share_equally")
    postings.check_invariants(table)
    # One posting of each memo: the filter reads its kind and parameters, not the text.
    postings_of = {p.memo: p for p in Posting.objects.filter(session=table)}
    memos = set(postings_of)
    assert {"Hand 1: antes", "Hand 3 voided: reverses antes"} <= memos
    with translation.override("fi"):
        shown = {text: memo(p) for text, p in postings_of.items() if text}
    assert all(shown[text] != text for text in shown), shown
    page = carol_client.get(
        reverse("hand_detail", args=[Hand.objects.get(session=table, number=1).pk]),
        HTTP_ACCEPT_LANGUAGE="fi",
    ).content.decode()
    assert shown["Hand 1: antes"] in page and "Hand 1: antes" not in page


def test_after_an_undo_the_scoreboard_and_the_record_form_name_the_same_next_hand(
    bob_client, client, table, bob
):
    """An undone hand keeps its number, so the next hand is not 'hands counted + 1': the
    scoreboard, the share link's board and the record form all say hand 3."""
    record_direct(table, **WIN_ANN)
    second = record_direct(table, tricks={"ann": 2, "ben": 2, "cal": 1})
    postings.void_hand(session_id=table.pk, hand_id=second.pk, user=bob)
    postings.check_invariants(table)
    board = bob_client.get(reverse("session_detail", args=[table.pk])).content.decode()
    assert "Hand 3 · <strong>" in board and "Hand 2 · <strong>" not in board
    form = bob_client.get(reverse("hand_record", args=[table.pk])).content.decode()
    assert "Record hand 3" in form
    link = share.create_link(table, bob)
    shared = client.get(reverse("share_board", args=[link.token])).content.decode()
    assert "Hand 3 · <strong>" in shared


def test_undo_from_a_hand_page_goes_to_the_record_form_as_a_whole_page(bob_client, table):
    hand = record_direct(table, **WIN_ANN)
    page = bob_client.get(reverse("hand_detail", args=[hand.pk])).content.decode()
    form = page.split(f'action="{reverse("hand_void", args=[hand.pk])}"')[1].split(">")[0]
    assert "hx-post" not in form  # a plain POST: no swap under this page's heading
    after = bob_client.post(
        reverse("hand_void", args=[hand.pk]),
        {"version": table.version, "next": reverse("hand_record", args=[table.pk])},
        follow=True,
    )
    html = after.content.decode()
    assert 'data-next-number="2">Record hand 2</h1>' in html  # the form under its own heading
    postings.check_invariants(table)
