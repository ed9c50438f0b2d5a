"""The API's part of issue #35: a hand sent to a tournament table during a scheduled break
asks for one confirmation (409 ``during_break`` unless the body says ``"during_break":
true``), as the record form does; the field cap changes through the API while late
registration is open, and the waiting list moves up."""

import random

import pytest
from django.urls import reverse

from games.engine.tournament_errors import CONFLICT_CODES
from games.models import Entry, Hand
from games.tournaments import clock
from games.tournaments import service as svc
from ledger import postings
from tests.factories import seeded

from .test_tournament_api_run import PROBLEM, api, post, said
from .test_tournament_service import bot_entry, make_players, make_tournament

pytestmark = pytest.mark.django_db


def _on_break(club, alice):
    """A running freeze-out with 15-minute levels and a break after level 1, on it now."""
    t = make_tournament(
        club,
        alice,
        n=4,
        format="freezeout",
        starting_chips=30,
        antes=[1, 2],
        hands_per_level=0,
        level_minutes=15,
        break_every=1,
        break_minutes=10,
    )
    svc.start(tournament_id=seeded(t.pk, "api-break"), user=alice)
    clock.clock_action(tournament_id=t.pk, action="start", user=alice)
    clock.clock_action(tournament_id=t.pk, action="adjust", seconds=16 * 60, user=alice)
    return t


def test_a_hand_during_a_break_is_409_until_the_body_confirms_it(club, alice):
    t = _on_break(club, alice)
    session = t.tables.get().session
    entry, _ = bot_entry(postings.session_state(session), random.Random(2))
    client = api(alice)
    url = reverse("api_tournament_table_hands", args=[t.pk, 1])
    refused = post(client, url, entry, **{"Idempotency-Key": "brk-1"})
    assert refused.status_code == 409 and refused["Content-Type"] == PROBLEM
    assert refused.json()["errors"][0]["code"] == "during_break"
    assert "on a break" in said(refused) and '"during_break": true' in said(refused)
    assert not Hand.objects.filter(session=session).exists()
    # The same hand, confirmed (the same key: a refusal is not kept with it).
    saved = post(client, url, {**entry, "during_break": True}, **{"Idempotency-Key": "brk-1"})
    assert saved.status_code == 201, saved.content
    assert Hand.objects.filter(session=session).count() == 1
    postings.check_invariants(session)


def test_the_break_confirmation_is_asked_only_during_a_break(club, alice):
    t = make_tournament(
        club, alice, n=4, format="freezeout", starting_chips=30, antes=[1, 2], hands_per_level=5
    )
    svc.start(tournament_id=t.pk, user=alice)
    session = t.tables.get().session
    entry, _ = bot_entry(postings.session_state(session), random.Random(3))
    answer = post(api(alice), reverse("api_hand_list", args=[session.pk]), entry)
    assert answer.status_code == 201, answer.content
    assert "during_break" in CONFLICT_CODES


def test_the_schema_documents_during_break_and_still_refuses_unknown_fields(club, alice):
    schema = api(alice).get(reverse("api_schema"), {"format": "json"}).json()
    body = schema["components"]["schemas"]["HandCreateInput"]
    assert body["properties"]["during_break"]["type"] == "boolean"
    assert body.get("additionalProperties") is False
    assert "/api/v1/tournaments/{tournament_id}/cap/" in schema["paths"]


def _capped(club, alice):
    t = make_tournament(
        club,
        alice,
        n=4,
        format="freezeout",
        starting_chips=30,
        antes=[1, 2],
        hands_per_level=5,
        late_until_level=2,
        max_entries=4,
    )
    for p in make_players(club, 3, prefix="wait"):
        svc.register(tournament_id=t.pk, player=p, user=alice)
    return t


def test_raising_the_cap_moves_the_waiting_list_up(club, alice):
    t = _capped(club, alice)
    svc.start(tournament_id=t.pk, user=alice)
    client = api(alice)
    url = reverse("api_tournament_cap", args=[t.pk])
    answer = post(client, url, {"max_entries": 6})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["max_entries"] == 6 and body["places_taken"] == 6
    assert [e["player"]["name"] for e in body["moved_up"]] == ["wait001", "wait002"]
    assert [e["status"] for e in body["moved_up"]] == ["registered", "registered"]
    assert [e["player"]["name"] for e in body["waiting"]] == ["wait003"]
    assert answer["ETag"]
    # Below the places taken: 400; an unknown field: 400 too.
    low = post(client, url, {"max_entries": 5})
    assert low.status_code == 400 and low.json()["errors"][0]["code"] == "cap_below"
    assert post(client, url, {"max_entries": 7, "cap": 1}).status_code == 400
    # Checked in, a moved-up entry plays.
    moved = t.entries.get(player__name="wait001")
    checked = post(
        client, reverse("api_tournament_entry_action", args=[t.pk, moved.pk, "check-in"])
    )
    assert checked.status_code == 200 and checked.json()["status"] == Entry.Status.PLAYING


def test_the_cap_is_fixed_once_late_registration_is_closed(club, alice, carol, mallory):
    t = _capped(club, alice)
    t.late_until_level = 0
    t.save(update_fields=["late_until_level"])
    svc.start(tournament_id=t.pk, user=alice)
    url = reverse("api_tournament_cap", args=[t.pk])
    fixed = post(api(alice), url, {"max_entries": 6})
    assert fixed.status_code == 409 and fixed.json()["errors"][0]["code"] == "cap_fixed"
    assert post(api(carol), url, {"max_entries": 6}).status_code == 403  # a member only
    assert post(api(mallory), url, {"max_entries": 6}).status_code == 404  # a stranger
