"""The session page ties in digital hands and tournament tables."""

import pytest
from django.urls import reverse

from games.digital import service as digital
from games.models import TournamentTable
from games.tournaments import service as svc
from ledger import postings
from tests.factories import seeded

from .test_tournament_service import make_tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(club, players, bob):
    return postings.start_session(
        club=club,
        name="Friday",
        players=players,
        dealer=players[3],
        rules={},
        currency=club.currency,
        user=bob,
    )


@pytest.fixture
def tournament_session(club, alice):
    t = make_tournament(club, alice, n=8)
    svc.start(tournament_id=seeded(t.pk, "fixed-seed"), user=alice)
    return TournamentTable.objects.filter(tournament=t).select_related("session").first().session


def test_scorekeeper_sees_deal_on_phones(bob_client, table):
    body = bob_client.get(reverse("session_detail", args=[table.pk])).content.decode()
    assert reverse("digital_table", args=[table.pk]) in body
    assert reverse("hand_record", args=[table.pk]) in body


def test_digital_hand_in_progress_replaces_record_button(bob_client, carol_client, table, bob):
    digital.start_hand(session_id=table.pk, user=bob)
    body = bob_client.get(reverse("session_detail", args=[table.pk])).content.decode()
    assert "Digital hand in progress" in body
    assert reverse("digital_watch", args=[table.pk]) in body
    member = carol_client.get(reverse("session_detail", args=[table.pk])).content.decode()
    assert reverse("digital_watch", args=[table.pk]) in member
    assert f'href="{reverse("digital_table", args=[table.pk])}"' not in member


def test_record_post_refused_while_digital_hand_in_progress(bob_client, table, bob):
    digital.start_hand(session_id=table.pk, user=bob)
    table.refresh_from_db()
    form = bob_client.get(reverse("hand_record", args=[table.pk])).context["form"]
    data = {k: v for k, v in form.initial.items() if v is not None}
    data.update({"trump": "H"})
    response = bob_client.post(reverse("hand_record", args=[table.pk]), data)
    assert response.status_code in (409, 422)
    assert table.hands.filter(status="recorded").count() == 0


def test_tournament_table_links_back_and_hides_director_actions(alice_client, tournament_session):
    body = alice_client.get(
        reverse("session_detail", args=[tournament_session.pk])
    ).content.decode()
    tt = tournament_session.tournament_table
    assert reverse("tournament_detail", args=[tt.tournament_id]) in body
    assert reverse("session_close", args=[tournament_session.pk]) not in body
    assert reverse("session_seats", args=[tournament_session.pk]) not in body


@pytest.mark.parametrize("name", ["session_close", "session_rules", "session_seats"])
def test_tournament_table_refuses_seat_rule_and_close_changes(
    alice_client, tournament_session, name
):
    response = alice_client.post(reverse(name, args=[tournament_session.pk]), {})
    assert response.status_code == 403
    tournament_session.refresh_from_db()
    assert tournament_session.is_open
