"""The record POST's idempotency key as the form cleans it. (The tests of psycopg's
pipeline mode, which sent the record path's statements in one round trip, went with it
in issue #31: it saved under 10 % of a record POST, bench/devices.py.)"""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.urls import reverse

from games.models import Hand
from ledger import postings

from .games.test_session_views import HTMX, hand_data, start_table

pytestmark = pytest.mark.django_db

POSTGRES = connection.vendor == "postgresql"
TRICKS = {"ann": 3, "ben": 1, "cal": 1, "dee": 0}


@pytest.fixture
def table(club, players, bob):
    return start_table(club, players, bob)


def test_a_key_the_form_cleans_is_looked_up_again(bob_client, table):
    """The table read sent with the lock is for the key as posted; when the form cleans
    the key (spaces stripped) the ledger looks the cleaned key up itself, so a retry of
    the same hand is still recognised."""
    url = reverse("hand_record", args=[table.pk])
    data = hand_data(table, trump="H", tricks=TRICKS, confirmed="1")
    key = uuid.uuid4().hex
    data["idempotency_key"] = f"  {key} "
    first = bob_client.post(url, data, **HTMX)
    assert first.status_code == 200 and "Hand 1 saved" in first.content.decode()
    assert Hand.objects.get(session=table).idempotency_key == key
    again = bob_client.post(url, data, **HTMX)
    assert again.status_code == 200 and "already saved" in again.content.decode()
    assert Hand.objects.filter(session=table).count() == 1
    postings.check_invariants(table)
