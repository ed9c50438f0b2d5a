"""Names people type: one validator (games.names.clean_name) at every entry point, and
every CSV cell escaped (issue 17, item 6)."""

import csv
import io

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from games.models import Club, GameSession, Player, Tournament
from games.models.currency import Currency
from games.names import PLAYER_NAME_MAX, clean_name
from ledger import postings
from ledger.exports import csv_cell

from ..api.conftest import token_client
from .test_session_views import WIN_ANN, new_session_data, record_direct, start_table

pytestmark = pytest.mark.django_db

ZWSP, RLO, LRI, PDI = "\u200b", "\u202e", "\u2066", "\u2069"


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("  ann  ", "ann"),
        ("Ann  Marie\tB", "Ann Marie B"),
        ("e\u0301ve", "\u00e9ve"),  # NFC: one é however it was typed
        (f"a{ZWSP}nn", "ann"),  # an invisible space inside is dropped
        (
            "\U0001f468\u200d\U0001f469\u200d\U0001f467",
            "\U0001f468\u200d\U0001f469\u200d\U0001f467",
        ),
        ("x" * PLAYER_NAME_MAX, "x" * PLAYER_NAME_MAX),
    ],
)
def test_names_are_normalised(typed, kept):
    assert clean_name(typed) == kept


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        (ZWSP, "blank"),
        (f" {ZWSP}\u200d ", "blank"),
        ("", "blank"),
        (f"{RLO}nna", "bidi_control"),
        (f"ann{LRI}x{PDI}", "bidi_control"),
        ("a\x00b", "control_character"),
        ("a\x1bb", "control_character"),
        ("x" * (PLAYER_NAME_MAX + 1), "max_length"),
    ],
)
def test_names_are_refused_with_a_reason(typed, code):
    with pytest.raises(ValidationError) as refused:
        clean_name(typed)
    assert refused.value.code == code
    assert refused.value.messages[0].endswith((".", "it."))


BAD = [ZWSP, f"{RLO}nna"]


@pytest.mark.parametrize("bad", BAD)
def test_player_form(alice_client, club, bad):
    response = alice_client.post(reverse("player_list", args=[club.pk]), {"name": bad})
    assert response.status_code == 422
    assert not Player.objects.filter(club=club).exists()
    alice_client.post(reverse("player_list", args=[club.pk]), {"name": "e\u0301ve"})
    assert Player.objects.get(club=club).name == "\u00e9ve"


@pytest.mark.parametrize("bad", BAD)
def test_club_form(mallory_client, bad):
    response = mallory_client.post(reverse("club_create"), {"name": bad, "currency": "$"})
    assert response.status_code == 422
    assert "visible" in response.content.decode() or "direction" in response.content.decode()
    assert not Club.objects.exists()


@pytest.mark.parametrize("bad", BAD)
def test_session_form_name_and_new_players(bob_client, club, players, bad):
    url = reverse("session_new", args=[club.pk])
    response = bob_client.post(url, new_session_data(players, name=bad))
    assert response.status_code == 422 and not GameSession.objects.exists()
    response = bob_client.post(url, new_session_data(players[:2], new_players=f"Eve, {bad}"))
    assert response.status_code == 422 and not GameSession.objects.exists()
    assert "new_players" in response.context["form"].errors


def test_session_seats_add_by_name(bob_client, club, players, bob):
    table = start_table(club, players, bob)
    url = reverse("session_seats", args=[table.pk])
    bob_client.post(url, {"action": "add", "player": "", "name": f"{RLO}oeZ"})
    assert not Player.objects.filter(name__contains="oeZ").exists()


@pytest.mark.parametrize("bad", BAD)
def test_tournament_form(alice_client, club, bad):
    response = alice_client.post(
        reverse("tournament_create", args=[club.pk]),
        {
            "name": bad,
            "format": "rounds",
            "table_mode": "reported",
            "buy_in": "0",
            "fee": "0",
            "starting_chips": "40",
            "antes_text": "1",
            "hands_per_level": "0",
            "min_table": "4",
            "max_table": "7",
            "hands_per_round": "8",
            "advance_per_table": "2",
            "final_hands": "0",
            "tiebreak": "pots",
        },
    )
    assert response.status_code == 422
    assert "name" in response.context["form"].errors
    assert not Tournament.objects.exists()


@pytest.mark.parametrize("bad", BAD)
def test_api_player_and_session(alice, club, players, bad):
    api = token_client(alice)
    response = api.post(
        reverse("api_player_list", args=[club.pk]), {"name": bad}, content_type="application/json"
    )
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/problem+json")
    assert response.json()["errors"][0]["field"] == "name"
    response = api.post(
        reverse("api_session_list", args=[club.pk]),
        {"name": bad, "players": [p.pk for p in players]},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert not GameSession.objects.exists()


# -- CSV: every cell escaped, the currency included -----------------------------------------


@pytest.mark.parametrize("cell", ["=1+1", "+1", "-1", "@SUM(A1)", "\t=1", " =1", "\uff1d1"])
def test_formula_cells_are_escaped(cell):
    assert csv_cell(cell).startswith("'")


def test_plain_cells_are_left_alone():
    assert csv_cell("ann") == "ann" and csv_cell("1.5") == "1.5" and csv_cell("") == ""


def test_ledger_and_settlement_csv_escape_the_currency(alice_client, club, players, bob):
    table = postings.start_session(
        club=club,
        name="Csv",
        players=players,
        dealer=players[3],
        rules={},
        # The CSVs write the currency's code: escaped like any text cell, even one that
        # never came from the list of codes.
        currency=Currency("=1+1", 0, "=1+1"),
        user=bob,
    )
    record_direct(table, user=bob, **WIN_ANN)
    for name in ("ledger_csv", "settlement_csv"):
        body = alice_client.get(reverse(name, args=[table.pk])).getvalue().decode()
        rows = list(csv.reader(io.StringIO(body)))
        cells = [c for row in rows[1:] for c in row]
        assert "'=1+1" in cells, name
        assert not any(c.startswith(("=", "+", "@")) for c in cells), name
        # Amounts stay numbers: a negative amount is not escaped.
        if name == "ledger_csv":
            assert any(c.startswith("-") and c[1:].isdigit() for c in cells)
