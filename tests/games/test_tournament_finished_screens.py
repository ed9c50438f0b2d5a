"""The screens of a tournament that has finished or nearly so: a finished freeze-out's
round reads as finished everywhere (dashboard, bracket, public bracket, API), the deal
card's chip-chop line when the smallest prize left is nothing, and the wall screen's
list of eliminations saying the players went out."""

import pytest
from django.urls import reverse

from games.models import Round
from games.tournaments import service as svc

from .test_tournament_service import finished_freezeout, make_tournament

pytestmark = pytest.mark.django_db


def test_a_finished_freezeouts_round_reads_finished(club, alice, alice_client, client):
    t = finished_freezeout(club, alice)
    assert t.rounds.get().status == Round.Status.FINISHED
    for url, c in (
        (reverse("tournament_detail", args=[t.pk]), alice_client),
        (reverse("tournament_bracket", args=[t.pk]), alice_client),
        (reverse("tournament_public", args=[t.public_token]), client),
    ):
        page = c.get(url).content.decode()
        assert c.get(url).status_code == 200, url
        assert ">playing<" not in page.replace(" ", ""), url
    dashboard = alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()
    assert '<span class="badge">finished</span>' in dashboard
    api = alice_client.get(f"/api/v1/tournaments/{t.pk}/").json()
    assert [r["status"] for r in api["rounds"]] == ["finished"]


def test_a_round_stored_open_reads_finished_once_the_tournament_is(club, alice, alice_client):
    """Tournaments finished before rounds were closed with them kept an open round."""
    t = finished_freezeout(club, alice)
    t.rounds.update(status=Round.Status.PLAYING)
    dashboard = alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()
    assert '<span class="badge">finished</span>' in dashboard
    assert '<span class="badge">playing</span>' not in dashboard


def test_the_deal_card_says_a_chip_chop_is_all_by_chips_when_the_last_prize_is_nothing(
    club, alice, alice_client
):
    """Three left and one paid place: the smallest prize still to be won is 0, so "each
    gets $0" would be said; the card says the chip chop shares it all by chips."""
    t = make_tournament(
        club,
        alice,
        n=3,
        format="freezeout",
        buy_in=100,
        starting_chips=30,
        payout_percentages=[100],
    )
    svc.start(tournament_id=t.pk, user=alice)
    page = alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()
    assert "Make a deal" in page
    assert "Chip chop: all of it shared by chips." in page
    assert "each gets" not in page


def test_the_deal_card_names_the_smallest_prize_when_there_is_one(club, alice, alice_client):
    t = make_tournament(
        club,
        alice,
        n=3,
        format="freezeout",
        buy_in=1000,
        starting_chips=30,
        payout_percentages=[50, 30, 20],
    )
    svc.start(tournament_id=t.pk, user=alice)
    page = alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()
    assert "Chip chop: each gets $600 and the rest by chips." in page
    assert "all of it shared by chips" not in page


def test_the_wall_screen_says_where_players_went_out(club, alice, client):
    """ "p002 table 1" read like a seat assignment; the list says they went out there."""
    t = finished_freezeout(club, alice)
    out = t.entries.get(status="out")
    page = client.get(reverse("tournament_tv", args=[t.public_token])).content.decode()
    listed = page[page.index('id="tv-out"') :]
    assert f'{out.player.name}</span> <span class="tv-dim">out at table 1</span>' in listed
