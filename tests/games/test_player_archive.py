"""Archiving a player (issue 16's "players: rename, archive", web and API): off the roster
pickers, never out of the books; refused while the player holds a seat in an open session."""

import pytest
from django.urls import reverse

from games.clubs import service
from games.models import Player
from ledger import postings

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(club, players, alice):
    return postings.start_session(
        club=club,
        name="Thursday",
        players=players[:3],  # ann, ben, cal; dee sits out
        dealer=players[2],
        rules={},
        currency=club.currency,
        user=alice,
    )


def test_a_seated_player_cannot_be_archived_until_the_session_closes(game, players, alice):
    ann = players[0]
    with pytest.raises(service.ClubError) as refused:
        service.archive_player(ann, True)
    assert refused.value.code == "player_seated" and refused.value.status == 409
    assert "Thursday" in str(refused.value)
    assert Player.objects.get(pk=ann.pk).archived_at is None

    postings.close_session(session_id=game.pk, user=alice)
    postings.check_invariants(game)
    assert service.archive_player(ann, True).archived_at is not None
    assert service.archive_player(ann, False).archived_at is None


def test_archived_players_leave_the_pickers_but_keep_their_page(bob_client, club, players):
    dee = players[3]
    response = bob_client.post(reverse("player_archive", args=[dee.pk]), {"archived": "1"})
    assert response.status_code == 302
    assert Player.objects.get(pk=dee.pk).archived_at is not None

    roster = bob_client.get(reverse("player_list", args=[club.pk])).content.decode()
    active_part, archived_part = roster.split("Archived (1)")
    assert "dee" not in active_part and "dee" in archived_part

    new_session = bob_client.get(reverse("session_new", args=[club.pk])).content.decode()
    assert f'<option value="{players[0].pk}">ann</option>' in new_session
    assert f'<option value="{dee.pk}">dee</option>' not in new_session

    page = bob_client.get(reverse("player_edit", args=[dee.pk])).content.decode()
    assert "Bring back to the roster" in page
    bob_client.post(reverse("player_archive", args=[dee.pk]), {"archived": "0"})
    new_session = bob_client.get(reverse("session_new", args=[club.pk])).content.decode()
    assert f'<option value="{dee.pk}">dee</option>' in new_session


def test_the_web_refusal_says_why(bob_client, game, players):
    response = bob_client.post(
        reverse("player_archive", args=[players[0].pk]), {"archived": "1"}, follow=True
    )
    assert "has a seat in the open session" in response.content.decode()
    assert Player.objects.get(pk=players[0].pk).archived_at is None


def test_members_cannot_archive(carol_client, players):
    response = carol_client.post(reverse("player_archive", args=[players[3].pk]), {"archived": "1"})
    assert response.status_code in (403, 404)
    assert Player.objects.get(pk=players[3].pk).archived_at is None
