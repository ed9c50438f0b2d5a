"""A session that starts with the pot the club's last session left (its leftover rule:
carry to the club) says so under the pot, on the record form and the scoreboard, with a
link to that session, until its first hand (selectors.carried_in)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.money import format_money
from ledger import postings
from tests.games.test_session_views import WIN_ANN, record_direct, start_table

pytestmark = pytest.mark.django_db

SPLIT = {"tricks": {"ann": 2, "ben": 2, "cal": 1, "dee": 0}}  # a tie: the pot carries (R34)


@pytest.fixture
def carried(club, players, bob):
    """Thursday's game ends on a split pot nobody won; Friday's starts with it."""
    thursday = start_table(club, players, bob, "Thursday")
    record_direct(thursday, bob, **SPLIT)
    left = thursday.carry
    assert left > 0
    postings.close_session(session_id=thursday.pk, user=bob)
    friday = start_table(club, players, bob, "Friday")
    assert friday.carry == left
    return thursday, friday


def _page(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def _line(page: str) -> str:
    start = page.index("data-carried-in>")
    return page[start : page.index("</", page.index("</a>", start) + 4)]


def test_the_record_form_and_scoreboard_say_where_a_carried_pot_came_from(bob_client, carried):
    thursday, friday = carried
    amount = format_money(friday.carry, friday.currency)
    link = f'<a href="{reverse("session_detail", args=[thursday.pk])}">Thursday</a>'
    for url in (
        reverse("hand_record", args=[friday.pk]),
        reverse("session_detail", args=[friday.pk]),
    ):
        page = _page(bob_client, url)
        assert f"Pot {amount} before antes" in page or f">{amount}<" in page
        line = _line(page)
        assert f"{amount} of it carried in from “{link}” (nobody won it)" in line, line


def test_the_line_goes_once_the_first_hand_is_recorded(bob_client, carried, bob):
    _, friday = carried
    record_direct(friday, bob, **WIN_ANN)
    for url in (
        reverse("hand_record", args=[friday.pk]),
        reverse("session_detail", args=[friday.pk]),
    ):
        page = _page(bob_client, url)
        assert "data-carried-in" not in page and "carried in from" not in page


def test_a_session_with_nothing_carried_in_has_no_line_and_reads_nothing_for_it(
    bob_client, club, players, bob
):
    fresh = start_table(club, players, bob, "Friday")
    assert fresh.carry == 0
    url = reverse("hand_record", args=[fresh.pk])
    with CaptureQueriesContext(connection) as queries:
        page = _page(bob_client, url)
    assert "data-carried-in" not in page and "carried in from" not in page
    assert not any("carry" in q["sql"] and "amount" in q["sql"] for q in queries.captured_queries)
    assert "carried in from" not in _page(bob_client, reverse("session_detail", args=[fresh.pk]))


def test_two_sessions_left_pots_the_line_names_the_latest_and_says_there_were_more(
    bob_client, club, players, bob
):
    # Both open at once (the kitty empty), both closed on a pot nobody won.
    tables = [start_table(club, players, bob, name) for name in ("Tuesday", "Thursday")]
    for s in tables:
        record_direct(s, bob, **SPLIT)
        postings.close_session(session_id=s.pk, user=bob)
    friday = start_table(club, players, bob, "Friday")
    line = _line(_page(bob_client, reverse("hand_record", args=[friday.pk])))
    amount = format_money(friday.carry, friday.currency)
    assert f"{amount} of it carried in from “<a href=" in line
    assert ">Thursday</a>” and earlier sessions (nobody won those pots)" in line
    assert "Tuesday" not in line


def test_the_line_in_spanish(bob_client, carried):
    _, friday = carried
    bob_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    amount = format_money(friday.carry, friday.currency, language="es")
    line = _line(_page(bob_client, reverse("hand_record", args=[friday.pk])))
    assert f"{amount} de este bote viene de «<a href=" in line
    assert ">Thursday</a>» (nadie lo ganó)" in line
