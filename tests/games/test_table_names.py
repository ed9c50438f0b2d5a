"""A tournament table's session is stored under an English name ("Bayou Bracket · round 1 ·
table 1", made when the table is); pages show it in the reader's language
(``GameSession.display_name``), while the stored name, the API and the CSV keep it."""

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games.models import GameSession, TournamentTable
from games.tournaments import service as svc
from ledger import postings
from tests.api.conftest import token_client
from tests.factories import seeded

from .test_tournament_service import make_tournament

pytestmark = pytest.mark.django_db

SHOWN = {
    "fi": "Bayou Bracket · kierros 1 · pöytä 1",
    "ko": "Bayou Bracket · 1 라운드 · 1번 테이블",
}


@pytest.fixture
def table_session(club, alice) -> GameSession:
    t = make_tournament(club, alice, n=8, name="Bayou Bracket", starting_chips=20, antes=[1])
    svc.start(tournament_id=seeded(t.pk, "names"), user=alice)
    return TournamentTable.objects.get(tournament=t, round__number=1, number=1).session


def _speaking(user, language: str) -> Client:
    client = Client()
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client


@pytest.mark.parametrize("language", ["fi", "ko"])
def test_a_table_is_named_in_the_readers_language(table_session, alice, club, language):
    assert table_session.name == "Bayou Bracket · round 1 · table 1"  # stored as made
    client = _speaking(alice, language)
    pages = {
        "scoreboard": reverse("session_detail", args=[table_session.pk]),
        "club": reverse("club_detail", args=[club.pk]),
        "history": reverse("session_history", args=[table_session.pk]),
    }
    for what, url in pages.items():
        response = client.get(url)
        assert response.status_code == 200, what
        html = response.content.decode()
        assert SHOWN[language] in html, what
        assert "round 1 · table 1" not in html, what
    scoreboard = client.get(pages["scoreboard"]).content.decode()
    assert f"<h1>{SHOWN[language]}</h1>" in scoreboard
    # The API and the stored row keep the English name, whatever the reader's language.
    api = token_client(alice).get(
        reverse("api_session_detail", args=[table_session.pk]),
        headers={"accept-language": language},
    )
    assert api.json()["name"] == "Bayou Bracket · round 1 · table 1"
    table_session.refresh_from_db()
    assert table_session.name == "Bayou Bracket · round 1 · table 1"


def test_a_freeze_out_table_and_a_typed_name(club, alice, players, bob):
    t = make_tournament(
        club, alice, n=8, name="Bayou Bracket", format="freezeout", starting_chips=20, antes=[1]
    )
    svc.start(tournament_id=seeded(t.pk, "names"), user=alice)
    session = TournamentTable.objects.filter(tournament=t).order_by("number").first().session
    assert session.name == "Bayou Bracket · table 1"
    # A session the club named itself is shown as typed, even if it reads like a table's.
    typed = postings.start_session(
        club=club, name="Friday · round 3 · table 1", players=players, dealer=players[0],
        rules={}, currency=club.currency, user=bob,
    )  # fmt: skip
    with translation.override("ko"):
        assert session.display_name == "Bayou Bracket · 1번 테이블"
        assert typed.display_name == "Friday · round 3 · table 1"
    with translation.override("fi"):
        assert session.display_name == "Bayou Bracket · pöytä 1"
    with translation.override("en"):
        assert session.display_name == session.name
