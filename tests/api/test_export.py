"""The club export: JSON Lines, streamed, the whole history of one club only."""

import json

from games.api import export
from ledger.models import Posting

from .conftest import FIRST_HAND, SECOND_HAND, record


def _lines(response) -> list[dict]:
    assert response.streaming
    return [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]


def test_the_export_holds_the_clubs_history(api_carol, played, other_club_game, club):
    response = api_carol.get(f"/api/v1/clubs/{club.pk}/export/")
    assert response.status_code == 200
    # One type a generated client reads, and keeps as bytes (issue 36).
    assert response["Content-Type"] == "application/octet-stream"
    assert response["Content-Disposition"] == f'attachment; filename="club-{club.pk}.jsonl"'
    lines = _lines(response)
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "club" and lines[0]["id"] == club.pk
    # In this order: club, players, sessions, hands, postings.
    assert kinds == sorted(kinds, key=["club", "player", "session", "hand", "posting"].index)
    hands = [line for line in lines if line["type"] == "hand"]
    assert [h["number"] for h in hands] == [1, 2]
    assert hands[0]["record"]["players"] == ["ann", "ben", "cal", "dee"]
    assert hands[0]["verdict"]["valid"] is True
    posted = [line for line in lines if line["type"] == "posting"]
    assert [p["id"] for p in posted] == list(
        Posting.objects.filter(club=club).order_by("id").values_list("id", flat=True)
    )
    for p in posted:
        assert sum(leg["amount"] for leg in p["legs"]) == 0
        assert p["created_at"].endswith("Z")
    # Nothing of the other club.
    assert other_club_game.pk not in [line["id"] for line in lines if line["type"] == "session"]


def test_the_export_reads_in_batches(api_carol, game, bob, club, monkeypatch):
    monkeypatch.setattr(export, "BATCH", 1)  # every keyset step is exercised
    for entry in (FIRST_HAND, SECOND_HAND):
        record(game, entry, bob)
    lines = _lines(api_carol.get(f"/api/v1/clubs/{club.pk}/export/"))
    assert len([line for line in lines if line["type"] == "hand"]) == 2
    assert len([line for line in lines if line["type"] == "player"]) == 4
    assert (
        len([line for line in lines if line["type"] == "posting"])
        == Posting.objects.filter(club=club).count()
    )


def test_a_stranger_gets_404(api_mallory, club):
    assert api_mallory.get(f"/api/v1/clubs/{club.pk}/export/").status_code == 404
