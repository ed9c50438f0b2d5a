"""A tournament table's session on a 360 px phone in Finnish: the club page and the
scoreboard name it in the reader's words ("kierros", "pöytä"), and the club page's
"Resume" badge stays whole beside the long name."""

import pytest

from games.models import TournamentTable
from games.tournaments import service as svc
from tests.factories import seeded
from tests.games.test_tournament_service import make_tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_table_on_the_club_page_in_finnish_at_360(
    live_server, phone, login, speak, club, alice, password
):
    t = make_tournament(club, alice, n=8, name="Bayou Bracket", starting_chips=20, antes=[1])
    svc.start(tournament_id=seeded(t.pk, "names"), user=alice)
    table = TournamentTable.objects.get(tournament=t, round__number=1, number=1).session
    phone.set_viewport_size({"width": 360, "height": 740})
    login(phone, "alice", password)
    speak(phone, "fi")
    phone.goto(f"{live_server.url}/clubs/{club.pk}/")
    row = phone.locator(f'a[href="/sessions/{table.pk}/"]')
    assert "Bayou Bracket · kierros 1 · pöytä 1" in row.inner_text()
    badge = row.locator(".badge")
    assert badge.inner_text() == "Jatka"
    lines = badge.evaluate(
        "b => b.getBoundingClientRect().height / parseFloat(getComputedStyle(b).lineHeight)"
    )
    assert lines < 1.9, f"the badge wraps: {lines} lines"
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360
    row.click()
    assert phone.locator("h1").inner_text() == "Bayou Bracket · kierros 1 · pöytä 1"
