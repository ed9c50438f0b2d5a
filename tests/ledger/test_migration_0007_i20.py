"""ledger 0007_i20 backfills the players' club totals of clubs that played before it, from
the ledger and the hands (the ledger is only read)."""

import importlib

import pytest
from django.apps import apps

from ledger import postings
from ledger.invariants import check_player_totals
from ledger.models import PlayerTotals

from .conftest import record, void

pytestmark = pytest.mark.django_db

backfill = importlib.import_module("ledger.migrations.0007_i20_player_totals").backfill


def _totals():
    return sorted(PlayerTotals.objects.values_list("player_id", "club_id", *PlayerTotals.COUNTERS))


def test_backfill_rebuilds_what_the_ledger_kept(start, club, players, alice):
    """Totals wiped as if the table had just been created: the backfill rebuilds exactly
    what the ledger's writer kept through records, a void, a buy-in, a tournament table
    and a closed session."""
    first = start(name="One")
    record(first, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    hand = record(first, tricks={"ann": 1, "ben": 3, "cal": 1, "dee": 0})
    void(first, hand)
    record(first, tricks={"ann": 1, "ben": 1, "cal": 3, "dee": 0},
           reneges=[{"player": "ann", "corrected": False}])  # fmt: skip
    postings.buy_in(session_id=first.pk, player_id=players[0].pk, amount=50, user=alice)
    postings.close_session(session_id=first.pk, user=alice, leftover_policy="share_equally")
    chips = {p.pk: 10 for p in players}
    table = start(name="Table", tournament_chips=chips)
    record(table, tricks={"ann": 3, "ben": 2, "cal": 0, "dee": 0})
    kept = _totals()
    assert kept and any(row[2] for row in kept)  # nets moved: not a trivial case
    PlayerTotals.objects.all().delete()
    backfill(apps, None)
    assert _totals() == kept
    check_player_totals(club.pk)
