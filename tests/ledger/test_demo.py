"""Demo data: games.demo.seed_sessions and the seed_demo command."""

import pytest
from django.core.management import call_command

from games.demo import DEMO_SESSION, seed_sessions
from games.models import GameSession, Hand
from ledger import postings

pytestmark = pytest.mark.django_db


def test_demo_night_has_twelve_hands_with_a_bourre_a_split_and_an_uncontested_hand(
    club, players, eve, alice
):
    lines = seed_sessions(club, alice, [*players, eve])
    session = GameSession.objects.get(club=club, name=DEMO_SESSION)
    assert "12 hands" in lines[0]
    assert session.hands_count == 12 and session.is_open
    outcomes = [h.result["outcome"] for h in session.hands.all()]
    assert {"win", "split", "uncontested"} <= set(outcomes)
    assert any(h.result["bourre"] for h in session.hands.all())
    assert any(h.verdict["reneges"] for h in session.hands.all())
    postings.check_invariants(session)

    again = seed_sessions(club, alice, [*players, eve])
    assert "already there" in again[0]
    assert GameSession.objects.filter(name=DEMO_SESSION).count() == 1
    assert Hand.objects.count() == 12


def test_seed_demo_command_is_idempotent(capsys):
    call_command("seed_demo")
    call_command("seed_demo")
    session = GameSession.objects.get(name=DEMO_SESSION)
    assert session.hands_count == 12
    # A new club keeps cents: the demo antes a quarter, bourrés capped at $2.50.
    assert session.currency.as_dict() == {"code": "USD", "exponent": 2, "symbol": "$"}
    assert (session.rules["ante"], session.rules["pot_limit"]) == (25, 250)
    postings.check_invariants(session)
    assert DEMO_SESSION in capsys.readouterr().out
