"""Concurrent taps on one hand (PostgreSQL: SQLite ignores row locks)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections
from django.test import Client

from games.digital import service as digital
from games.models import HandAction

from .test_digital_support import make_session, seat_url, seats_of

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks need PostgreSQL (SQLite ignores them)"
    ),
]


def _race(posts: list[tuple[str, dict]], device: str = "") -> list[int]:
    """Post every (url, data) at the same moment from its own thread and connection;
    with ``device``, all from one phone (its device cookie: a seat link is held by the
    phone that opened it first)."""
    start = threading.Barrier(len(posts))
    codes: list[int] = [0] * len(posts)

    def run(i: int, url: str, data: dict) -> None:
        try:
            client = Client()
            if device:
                client.cookies["bourre_device"] = device
            start.wait()
            codes[i] = client.post(url, data, headers={"HX-Request": "true"}).status_code
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, *p)) for i, p in enumerate(posts)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return codes


def test_a_double_tap_is_written_once(club, players, bob):
    session = make_session(club, players, bob)
    seats = seats_of(session)
    table = digital.start_hand(session_id=session.pk)
    who = table.state.awaiting[0]
    data = {"hand": table.hand.pk, "seq": table.seq, "type": "play"}
    codes = _race([(seat_url(seats[who]), data)] * 4, device="one-phone-" + "x" * 32)
    assert codes == [200] * 4  # one applied, three answered as repeats
    log = list(HandAction.objects.filter(hand=table.hand).values_list("action", flat=True))
    assert [a["player"] for a in log].count(who) == 1


def test_two_seats_racing_for_one_turn_change_nothing_twice(club, players, bob):
    session = make_session(club, players, bob)
    seats = seats_of(session)
    table = digital.start_hand(session_id=session.pk)
    who = table.state.awaiting[0]
    other = next(p for p in seats if p != who)
    base = {"hand": table.hand.pk, "seq": table.seq}
    codes = _race(
        [
            (seat_url(seats[who]), base | {"type": "play"}),
            (seat_url(seats[other]), base | {"type": "play"}),
        ]
    )
    assert sorted(codes) == [200, 409]
    assert HandAction.objects.filter(hand=table.hand).count() == 1


def test_two_phones_opening_one_seat_link_at_once_one_holds_it(club, players, bob):
    session = make_session(club, players, bob)
    url = seat_url(seats_of(session)["ann"])
    start = threading.Barrier(4)
    codes: list[int] = [0] * 4

    def open_link(i: int) -> None:
        try:
            start.wait()
            codes[i] = Client().get(url).status_code
        finally:
            connections.close_all()

    threads = [threading.Thread(target=open_link, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(codes) == [200, 403, 403, 403]
