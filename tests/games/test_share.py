"""Share links (a read-only scoreboard without an account), players' statements ("Me")
and each hand's money on the result screen (issue 12).

Personas: bob keeps score, carol is a member, mallory a stranger; ``client`` is a phone
with no account that was handed the share link.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Hand, ShareLink
from games.models.share import SELECTOR_LENGTH, VERIFIER_LENGTH
from games.money import format_money
from games.sessions import share, statements
from ledger import postings

from .test_session_views import HTMX, WIN_ANN, hand_data, record_direct, start_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(club, players, bob):
    return start_table(club, players, bob)


def _link(bob_client, table) -> str:
    """Create the share link as the host does (the page's button) and read it back."""
    url = reverse("session_share", args=[table.pk])
    assert bob_client.post(url, {"action": "create"}).status_code == 302
    page = bob_client.get(url).content.decode()
    found = re.search(r'value="http://testserver(/share/[^"]+/)"', page)
    assert found, "the share page shows the link"
    return found.group(1)


# -- the host's side -----------------------------------------------------------------------


def test_scorekeeper_creates_a_link_with_its_qr_code(bob_client, table):
    assert "Share link" in bob_client.get(table.get_absolute_url()).content.decode()
    url = _link(bob_client, table)
    page = bob_client.get(reverse("session_share", args=[table.pk])).content.decode()
    assert "<svg" in page and "Revoke" in page
    token = url.split("/")[2]
    assert len(token) == SELECTOR_LENGTH + VERIFIER_LENGTH
    # At least 128 random bits in the part compared in constant time (6 bits a character).
    assert VERIFIER_LENGTH * 6 >= 128


def test_members_cannot_create_and_strangers_get_404(carol_client, mallory_client, table):
    url = reverse("session_share", args=[table.pk])
    assert carol_client.post(url, {"action": "create"}).status_code == 403
    assert mallory_client.post(url, {"action": "create"}).status_code == 404
    assert mallory_client.get(url).status_code == 404
    assert not ShareLink.objects.exists()


# -- the watcher's side --------------------------------------------------------------------


def test_share_link_shows_names_and_amounts_without_an_account(bob_client, client, table, bob):
    record_direct(table, bob, **WIN_ANN)
    url = _link(bob_client, table)
    response = client.get(url)
    assert response.status_code == 200
    body = response.content.decode()
    for seat in table.seats.select_related("player"):
        assert seat.player.name in body
        assert seat.secret not in body  # no seat links
        assert f"player={seat.player_id}" not in body
    nets = table.net_by_player()
    assert any(x for x in nets.values())  # money moved: the amounts are there to see
    assert "+$" in body and "−$" in body
    # No actions and no member pages: nothing to record, no links into the club.
    assert "Record hand" not in body and "<form" not in body.split("</header>")[1]
    assert f"/sessions/{table.pk}/" not in body
    assert response["Cache-Control"] == "no-store, private"


def test_share_board_polls_with_etag_and_304(bob_client, client, table, bob):
    url = _link(bob_client, table)
    first = client.get(url, **HTMX)
    assert first.status_code == 200 and first["ETag"]
    again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **HTMX)
    assert again.status_code == 304 and again.content == b""
    record_direct(table, bob, **WIN_ANN)
    moved = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **HTMX)
    assert moved.status_code == 200 and moved["ETag"] != first["ETag"]
    assert 'id="board"' in moved.content.decode()
    # The members' ETag and the share link's differ: the pages differ.
    member = bob_client.get(table.get_absolute_url(), **HTMX)
    assert member["ETag"] != moved["ETag"]


def test_revoked_wrong_and_truncated_tokens_get_the_same_plain_404(bob_client, client, table):
    url = _link(bob_client, table)
    token = url.split("/")[2]
    assert client.get(url).status_code == 200
    # Wrong, truncated, the right selector with a wrong verifier: no difference shown.
    wrong = client.get(reverse("share_board", args=["x" * len(token)]))
    truncated = client.get(reverse("share_board", args=[token[:-1]]))
    forged = client.get(reverse("share_board", args=[token[:SELECTOR_LENGTH] + "A" * 24]))
    share_page = reverse("session_share", args=[table.pk])
    assert bob_client.post(share_page, {"action": "revoke"}).status_code == 302
    revoked = client.get(url)

    def page(response) -> str:
        # The 404 page echoes only the asked path (the language switcher comes back to it)
        # and a CSRF token masked afresh for every response.
        text = response.content.decode().replace(response.request["PATH_INFO"], "PATH")
        return re.sub(r'(X-CSRFToken": "|name="csrfmiddlewaretoken" value=")\w+', r"\1T", text)

    for response in (wrong, truncated, forged, revoked):
        assert response.status_code == 404
        assert page(response) == page(wrong)
    assert client.get(url + "me/?name=ann").status_code == 404
    assert client.get(url + "history/").status_code == 404


def test_a_new_link_kills_the_old_one(bob_client, client, table):
    old = _link(bob_client, table)
    new = _link(bob_client, table)
    assert old != new
    assert client.get(old).status_code == 404
    assert client.get(new).status_code == 200
    assert ShareLink.objects.filter(revoked_at__isnull=True).count() == 1


def test_share_history_lists_every_hand(bob_client, client, table, bob):
    record_direct(table, bob, **WIN_ANN)
    record_direct(table, bob, trump="S", tricks={"ben": 3, "cal": 2}, passed=["ann", "dee"])
    body = client.get(_link(bob_client, table) + "history/").content.decode()
    assert "#1" in body and "#2" in body


# -- statements ------------------------------------------------------------------------------


def _play_evening(table, bob) -> None:
    record_direct(table, bob, **WIN_ANN)  # ann wins, dee is bourréd
    record_direct(table, bob, trump="S", tricks={"ben": 3, "cal": 2}, passed=["ann", "dee"])
    hand = record_direct(table, bob, trump="C", tricks={"ann": 2, "ben": 2, "cal": 1})
    postings.void_hand(
        session_id=table.pk, hand_id=hand.pk, user=bob, reason="", expected_version=None
    )
    table.refresh_from_db()
    postings.check_invariants(table)


def test_each_statement_runs_to_the_players_net(table, bob):
    _play_evening(table, bob)
    nets = table.net_by_player()
    for seat in table.seats.select_related("player"):
        lines = statements.statement(table, seat.player_id, seat.player.name)
        assert lines, seat.player.name
        assert lines[-1].net == nets[seat.player_id]
        running = 0
        for line in lines:
            assert line.delta == sum(x for _, x in line.parts)
            running += line.delta
            assert line.net == running


def test_statement_says_ante_win_bourre_and_undone_in_words(table, bob, players):
    _play_evening(table, bob)
    ann, dee = players[0], players[3]
    ann_words = [w for line in statements.statement(table, ann.pk, "ann") for w, _ in line.parts]
    assert "ante" in ann_words and "won the pot" in ann_words
    dee_lines = statements.statement(table, dee.pk, "dee")
    assert "bourré" in [w for w, _ in dee_lines[0].parts]
    assert dee_lines[0].label == "Hand 1"
    undone = [line for line in statements.statement(table, ann.pk, "ann") if line.undone]
    assert undone and undone[0].label == "Hand 3 undone"
    assert all("given back" in w or "taken back" in w for w, _ in undone[0].parts)


def test_me_page_from_the_share_link_and_from_the_members_page(
    bob_client, carol_client, client, table, bob, players
):
    _play_evening(table, bob)
    url = _link(bob_client, table) + "me/"
    picker = client.get(url).content.decode()
    assert "Who are you?" in picker and "?name=ann" in picker
    mine = client.get(url, {"name": "dee"}).content.decode()
    assert "dee's money" in mine and "bourré" in mine
    assert "Nobody called" in client.get(url, {"name": "zed"}).content.decode()
    member = carol_client.get(reverse("session_me", args=[table.pk]), {"name": "dee"})
    assert member.status_code == 200 and "dee's money" in member.content.decode()


def test_member_linked_to_a_player_goes_straight_to_their_statement(carol_client, carol, table):
    seat = table.seats.select_related("player").first()
    seat.player.user = carol
    seat.player.save()
    response = carol_client.get(reverse("session_me", args=[table.pk]))
    assert response.status_code == 302 and f"name={seat.player.name}" in response["Location"]


def test_me_page_is_for_members_only(mallory_client, table):
    assert mallory_client.get(reverse("session_me", args=[table.pk])).status_code == 404


# -- each hand's money on the result screen --------------------------------------------------


def test_result_shows_each_players_change_and_the_standings_after(bob_client, table):
    before = table.net_by_player()
    response = bob_client.post(
        reverse("hand_record", args=[table.pk]), hand_data(table, **WIN_ANN), **HTMX
    )
    assert response.status_code == 200
    table.refresh_from_db()
    after = table.net_by_player()
    hand = Hand.objects.get(session=table, number=1)
    rows = statements.hand_deltas(table, hand, latest=True)
    names = dict(table.seats.values_list("player__name", "player_id"))
    assert {r["name"] for r in rows} == set(names)
    for r in rows:
        pid = names[r["name"]]
        assert r["delta"] == after[pid] - before.get(pid, 0)
        assert r["net"] == after[pid]
    dee = next(r for r in rows if r["name"] == "dee")
    assert ("bourré", -hand.result["penalties"]["dee"]) in dee["parts"]
    body = response.content.decode()
    assert "Net after" in body and "bourré" in body
    for r in rows:
        assert format_money(r["delta"], table.currency, signed=True) in body


def test_an_older_hand_shows_the_standings_as_they_were_after_it(carol_client, table, bob):
    first = record_direct(table, bob, **WIN_ANN)
    after_first = table.net_by_player()
    record_direct(table, bob, trump="S", tricks={"ben": 3, "cal": 2}, passed=["ann", "dee"])
    assert table.net_by_player() != after_first
    response = carol_client.get(reverse("hand_detail", args=[first.pk]))
    names = dict(table.seats.values_list("player__name", "player_id"))
    for r in response.context["deltas"]:
        assert r["net"] == after_first[names[r["name"]]]
    # The first hand started from zero: its change is the net after it.
    for r in statements.hand_deltas(table, first, latest=False):
        assert r["delta"] == r["net"] == after_first[names[r["name"]]]
    postings.check_invariants(table)


def test_share_module_revokes_every_live_link(table, bob):
    share.create_link(table, bob)
    assert share.revoke_links(table) == 1
    assert share.current_link(table) is None
    assert share.revoke_links(table) == 0


def test_the_share_viewer_may_do_nothing():
    from games.sessions.share_views import VIEWER

    assert not VIEWER.has_role("member")


def test_a_client_without_cookies_can_follow(bob_client, table):
    url = _link(bob_client, table)
    fresh = Client(enforce_csrf_checks=True)
    assert fresh.get(url).status_code == 200
    assert "sessionid" not in fresh.cookies


def test_share_board_costs_the_same_whatever_the_hands_and_a_304_one_query(
    bob_client, client, club, players, bob, django_assert_num_queries
):
    from .test_session_views import _count_queries, _play

    small = start_table(club, players, bob)
    big = start_table(club, players, bob)
    _play(small, 3)
    _play(big, 30)
    small_url, big_url = _link(bob_client, small), _link(bob_client, big)
    for headers in ({}, HTMX):
        expected = _count_queries(client, small_url, **headers)
        with django_assert_num_queries(expected):
            client.get(big_url, **headers)
    etag = client.get(big_url, **HTMX)["ETag"]
    with django_assert_num_queries(1):  # the link with its session, in one join
        assert client.get(big_url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 304


def test_demo_data_prints_the_address_the_server_uses(db, capsys):
    from django.core.management import call_command

    call_command("seed_demo", url="http://10.0.0.2:8123/")
    assert "log in at http://10.0.0.2:8123/accounts/login/" in capsys.readouterr().out


def test_a_shared_leftover_pot_is_a_line_at_the_close(table, bob, players):
    record_direct(table, bob, tricks={"ann": 2, "ben": 2, "cal": 1, "dee": 0})  # pot carries
    table.refresh_from_db()
    assert table.carry > 0
    postings.close_session(session_id=table.pk, user=bob, leftover_policy="share_equally")
    table.refresh_from_db()
    postings.check_invariants(table)
    ann = players[0]
    lines = statements.statement(table, ann.pk, "ann")
    assert lines[-1].label == "At the close"
    assert lines[-1].parts[0][0] == "share of the leftover pot"
    assert lines[-1].net == table.net_by_player()[ann.pk]
