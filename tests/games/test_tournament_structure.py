"""Presets that are what they say (issue #35, item 2): a preset is a clock with its
breaks, the structure shows as a table before Create, and minutes and hands per level
never silently disagree (refused, in the reader's language)."""

import pytest
from django.urls import reverse
from django.utils import translation

from games.engine import tournament_levels as levels
from games.engine.tournament import TournamentError
from games.messages import render
from games.tournaments import clock, structure
from games.tournaments import service as svc

pytestmark = pytest.mark.django_db


def test_a_15_minute_preset_runs_a_15_minute_clock_with_its_breaks(club, alice):
    t = svc.create_tournament(club=club, user=alice, name="P", structure_preset="standard")
    preset = levels.PRESETS["standard"]
    assert (t.level_minutes, t.hands_per_level) == (15, 0)
    assert (t.break_every, t.break_minutes) == (preset.break_every, preset.break_minutes)
    assert t.antes == list(preset.antes)
    assert clock.clock_state(t)["by"] == "minutes"
    # A preset chosen over a structure by hands replaces it wholly.
    t = svc.create_tournament(
        club=club, user=alice, name="Q", structure_preset="deep", hands_per_level=12
    )
    assert (t.level_minutes, t.hands_per_level) == (20, 0)


def test_minutes_and_hands_per_level_cannot_both_be_set(club, alice):
    with pytest.raises(TournamentError) as refused:
        svc.create_tournament(club=club, user=alice, name="X", level_minutes=15, hands_per_level=12)
    assert refused.value.code == "levels_both"
    with translation.override("es"):
        said = render(refused.value)
    assert said and "Levels go" not in said  # the Spanish sentence, not the English one


def test_the_structure_rows_show_levels_antes_minutes_and_breaks():
    s = structure.StructureSettings((1, 2, 3, 5, 8), 15, 0, 2, 10)
    got = [(r.level, r.is_break, r.ante, r.minutes, r.starts) for r in structure.rows(s)]
    assert got == [
        (1, False, 1, 15, "0:00"),
        (2, False, 2, 15, "0:15"),
        (3, True, 0, 10, "0:30"),  # the break before level 3
        (3, False, 3, 15, "0:40"),
        (4, False, 5, 15, "0:55"),
        (5, True, 0, 10, "1:10"),
        (5, False, 8, 15, "1:20"),
    ]
    # The clock agrees: 40 minutes in is level 3 (0-based 2), just after the break.
    pos = levels.clock_position(40 * 60, 15, 2, 10)
    assert (pos.level, pos.on_break) == (2, False)
    by_hands = structure.rows(structure.StructureSettings((1, 2), 0, 12, 0, 0))
    assert [(r.hands, r.starts) for r in by_hands] == [(12, ""), (12, "")]


def test_the_form_shows_the_structure_table_before_create(club, alice_client):
    page = alice_client.get(reverse("tournament_create", args=[club.pk])).content.decode()
    assert 'id="structure-table"' in page and "data-presets" in page
    url = reverse("tournament_structure")
    table = alice_client.get(url, {"structure_preset": "standard"}).content.decode()
    # Four 15-minute levels, then the 10-minute break at 1:00.
    assert table.count("15 min") == 10 and "10 min" in table and "1:00" in table
    custom = alice_client.get(
        url, {"antes_text": "1, 2, 4", "hands_per_level": "8", "format": "freezeout"}
    ).content.decode()
    assert custom.count("8 hands") == 3 and "Break" not in custom
    bad = alice_client.get(url, {"antes_text": "1, x"}).content.decode()
    assert "Write the antes as whole numbers above 0" in bad


def test_the_form_refuses_minutes_and_hands_together(club, alice_client):
    data = {
        "name": "Both",
        "format": "freezeout",
        "table_mode": "reported",
        "buy_in": "10",
        "fee": "0",
        "starting_chips": "100",
        "antes_text": "1, 2, 3",
        "level_minutes": "15",
        "hands_per_level": "12",
        "min_table": "4",
        "max_table": "7",
        "hands_per_round": "10",
        "advance_per_table": "1",
        "final_hands": "0",
        "tiebreak": "pots",
        "payout_unit": "1",
    }
    response = alice_client.post(reverse("tournament_create", args=[club.pk]), data)
    assert response.status_code == 422
    assert "not both" in response.content.decode()
