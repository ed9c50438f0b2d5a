"""Demo data: games.demo.seed_sessions, games.demo_tournament and the seed_demo command."""

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import reverse

from games.demo import DEMO_SESSION, seed_sessions
from games.demo_tournament import DEMO_SEED, DEMO_TOURNAMENT, HANDS, MAX_HANDS
from games.management.commands.seed_demo import DEMO_CLUB, DEMO_USERNAME
from games.models import Entry, GameSession, Hand, Player, Tournament, TournamentTable
from ledger import postings
from ledger.invariants import check_prize_ledger
from ledger.models import Posting, PrizePosting

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


def _counts() -> dict[str, int]:
    return {
        "tournaments": Tournament.objects.count(),
        "entries": Entry.objects.count(),
        "players": Player.objects.count(),
        "sessions": GameSession.objects.count(),
        "hands": Hand.objects.count(),
        "postings": Posting.objects.count(),
        "prize postings": PrizePosting.objects.count(),
    }


def test_seed_demo_starts_a_freeze_out_with_hands_played_and_players_out(capsys):
    call_command("seed_demo")
    t = Tournament.objects.get(name=DEMO_TOURNAMENT)
    assert t.club.name == DEMO_CLUB and t.status == Tournament.Status.RUNNING
    assert t.format == Tournament.Format.FREEZEOUT and t.seed == DEMO_SEED
    assert t.entries.count() == 14
    tables = list(t.tables.select_related("session").order_by("number"))
    assert [x.number for x in tables] == [1, 2]
    assert all(x.status == TournamentTable.Status.PLAYING for x in tables)
    assert HANDS <= sum(x.session.hands_count for x in tables) <= MAX_HANDS
    assert t.entries.filter(status=Entry.Status.OUT).exists()  # somebody is already out
    for table in tables:
        postings.check_invariants(table.session)
    check_prize_ledger(t)
    out = io.StringIO()
    call_command("check_books", stdout=out)  # raises CommandError on a drifted book
    assert "every book balances" in out.getvalue()
    printed = capsys.readouterr().out
    assert reverse("tournament_detail", args=[t.pk]) in printed
    assert reverse("tournament_tv", args=[t.public_token]) in printed


def test_seed_demo_run_again_adds_nothing_to_the_tournament(capsys):
    call_command("seed_demo")
    before = _counts()
    call_command("seed_demo")
    assert _counts() == before
    assert "already there" in capsys.readouterr().out.splitlines()[-1]


def test_the_demo_user_sees_the_tournament_on_its_pages(client):
    """The dashboard (its tables and who sits there), the standings and the wall screen
    (who went out) have the demo's content."""
    call_command("seed_demo", stdout=io.StringIO())
    t = Tournament.objects.get(name=DEMO_TOURNAMENT)
    client.force_login(User.objects.get(username=DEMO_USERNAME))
    entries = t.entries.select_related("player")
    playing = entries.filter(status=Entry.Status.PLAYING).order_by("player__name").first()
    out = entries.filter(status=Entry.Status.OUT).order_by("player__name").first()
    assert playing is not None and out is not None
    left = str(entries.exclude(status=Entry.Status.OUT).count())
    pages = {
        "dashboard": (reverse("tournament_detail", args=[t.pk]), ["Table 1", "Table 2"]),
        "standings": (reverse("tournament_standings", args=[t.pk]), [out.player.name]),
        "tv": (reverse("tournament_tv", args=[t.public_token]), ["Players left", left]),
    }
    for name, (url, words) in pages.items():
        response = client.get(url)
        html = response.content.decode()
        assert response.status_code == 200, name
        for word in [DEMO_TOURNAMENT, *words]:
            assert word in html, (name, word)
    for name in ("dashboard", "standings"):
        assert playing.player.name in client.get(pages[name][0]).content.decode(), name
    assert out.player.name in client.get(pages["tv"][0]).content.decode()
    # A demo hand keeps its seed and actions, so its page replays it trick by trick.
    hand = Hand.objects.filter(session__tournament_table__tournament=t).first()
    assert hand is not None and hand.seed and hand.actions
    assert client.get(reverse("hand_replay", args=[hand.pk])).status_code == 200
