"""The tournament pages players read, in Korean and in Finnish (long words), on a phone
(issue 19): the standings and the public bracket at 390×844 show the translated words and
never scroll sideways (the bracket's rounds scroll inside the bracket)."""

import pytest
from django.urls import reverse
from django.utils.translation import gettext, override

from games.models import Player
from games.tournaments import service as svc
from tests.factories import seeded

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _running_tournament(club, user):
    t = svc.create_tournament(
        club=club,
        user=user,
        name="Bayou Cup",
        buy_in=10,
        starting_chips=20,
        antes=[1, 2],
        min_table=4,
        max_table=4,
        hands_per_round=5,
        final_hands=4,
    )
    for name in ["Anneliese", "Björn-Erik", "Chantal", "Dominique", "Evangeline", "Fitzgerald"]:
        player = Player.objects.create(club=club, name=name)
        entry = svc.register(tournament_id=t.pk, player=player, user=user)
        svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=user)
    svc.start(tournament_id=seeded(t.pk, "languages"), user=user)
    t.refresh_from_db()
    return t


@pytest.mark.parametrize("code", ["ko", "fi"])
def test_standings_and_bracket_fit_a_phone_in_korean_and_finnish(
    live_server, phone, login, speak, club, alice, password, code
):
    t = _running_tournament(club, alice)
    page = phone
    login(page, "alice", password)
    speak(page, code)
    with override(code):
        standings, round_one, chips = gettext("Standings"), gettext("Round %(n)s"), gettext("Chips")
    assert standings != "Standings" and chips != "Chips"

    page.goto(live_server.url + reverse("tournament_standings", args=[t.pk]))
    assert page.evaluate("document.documentElement.lang") == code
    page.get_by_role("heading", name=standings).wait_for()
    page.get_by_role("columnheader", name=chips).wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    page.goto(f"{live_server.url}/t/{t.public_token}/")
    page.get_by_role("heading", name=round_one % {"n": 1}).wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


@pytest.mark.parametrize("code", ["ko", "fi"])
def test_the_directors_dashboard_fits_a_phone_in_korean_and_finnish(
    live_server, phone, login, speak, club, alice, password, code
):
    t = _running_tournament(club, alice)
    page = phone
    login(page, "alice", password)
    speak(page, code)
    with override(code):
        check_tables, prize_pool = gettext("Check the tables"), gettext("Prize pool")
    assert check_tables != "Check the tables"

    page.goto(live_server.url + t.get_absolute_url())
    page.get_by_role("button", name=check_tables).wait_for()
    page.get_by_role("heading", name=prize_pool).wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
