"""Several tables recording at the same moment (PostgreSQL: real row locks, one thread and
one connection per table). Each recorded hand runs the after-hand step, which locks the
tournament row and then table sessions; nothing deadlocks, no player is seated twice and
every book still balances."""

import random
import threading

import pytest
from django.db import connection, connections

from games.models import Seat, Tournament, TournamentTable
from games.tournaments import service as svc
from ledger import postings
from tests.factories import seeded

from .test_tournament_service import bot_entry, check_books, make_tournament

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="SQLite has no row locks to race on"
    ),
]


def _play(table_id: int, seed: int, hands: int, errors: list) -> None:
    rng = random.Random(seed)
    try:
        for _ in range(hands * 3):
            if hands <= 0:
                break
            table = TournamentTable.objects.select_related("session").get(pk=table_id)
            if table.status != TournamentTable.Status.PLAYING:
                break
            state = postings.session_state(table.session)
            if len(state["players"]) < 2:
                break
            entry, _ = bot_entry(state, rng)
            try:
                postings.record_hand(
                    session_id=table.session_id,
                    entry=entry,
                    idempotency_key="",
                    expected_version=state["version"],
                    user=None,
                )
            except (postings.StaleState, postings.SessionClosed):
                continue  # a player moved in or out meanwhile: deal again
            svc.after_hand(table.session_id)
            hands -= 1
    except Exception as exc:  # surfaced by the test
        errors.append(exc)
    finally:
        connections.close_all()


def test_tables_recording_at_once_keep_the_tournament_consistent(club, alice):
    t = make_tournament(
        club,
        alice,
        n=20,
        format="freezeout",
        starting_chips=6,
        antes=[1, 2, 3],
        hands_per_level=3,
    )
    svc.start(tournament_id=seeded(t.pk, "race"), user=alice)
    tables = list(t.tables.values_list("pk", flat=True))
    errors: list = []
    threads = [
        threading.Thread(target=_play, args=(pk, i, 12, errors)) for i, pk in enumerate(tables)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=240)
    assert not any(thread.is_alive() for thread in threads)
    assert not errors, errors
    t.refresh_from_db()
    assert t.status in (Tournament.Status.RUNNING, Tournament.Status.FINISHED)
    # Nobody holds chips at two playing tables.
    seated = list(
        Seat.objects.filter(
            session__tournament_table__tournament=t,
            session__tournament_table__status="playing",
            active=True,
        ).values_list("player_id", flat=True)
    )
    assert len(seated) == len(set(seated))
    check_books(t)
