"""Several tables recording at the same moment (PostgreSQL: real row locks, one thread and
one connection per table). Each recorded hand runs the after-hand step, which locks the
tournament row and then table sessions; nothing deadlocks, no player is seated twice and
every book still balances."""

import random
import threading

import pytest
from django.db import connection, connections

from games.models import Seat, Tournament, TournamentTable
from games.tournaments import deals
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


def test_a_hand_committed_while_the_tables_are_read_waits_for_the_after_hand_step(club, alice):
    """The after-hand step reads every table's session, seats and stacks, then decides
    who moves with how many chips. Here a hand at table 2 leaves one player there, and
    the recording thread gets its chance to commit exactly while the step reads seats
    (after the sessions). Read half before and half after that hand, table 2 looked
    like one player with their old stack: it broke, the player moved with that stack,
    and the chips they had just won stayed behind at the closed table (seen in CI).
    The step now locks the tables' sessions first, so the hand waits and the step sees
    the tables as they were, or the hand's result whole."""
    t = make_tournament(
        club,
        alice,
        n=4,
        format="freezeout",
        starting_chips=2,
        antes=[1],
        hands_per_level=0,
        min_table=2,
        max_table=3,
    )
    svc.start(tournament_id=seeded(t.pk, "read"), user=alice)
    one, two = (t.tables.select_related("session").get(number=n) for n in (1, 2))
    a, b = list(Seat.objects.filter(session=two.session).values_list("player__name", flat=True))
    # a takes every trick and b none: b's bourré costs b's last chip, b is out.
    entry = {"trump": "H", "passed": [], "tricks": {a: 5, b: 0}}

    go, done = threading.Event(), threading.Event()
    errors: list = []

    def hand_at_table_two() -> None:
        go.wait(10)
        try:
            postings.record_hand(
                session_id=two.session_id,
                entry=entry,
                idempotency_key="",
                expected_version=None,
                user=None,
            )
        except Exception as exc:  # surfaced by the test
            errors.append(exc)
        finally:
            done.set()
            connections.close_all()

    def at_the_seats(execute, sql, params, many, context):
        if '"games_seat"' in sql and not go.is_set():
            go.set()
            # Unlocked, the hand commits here; locked out, it waits until this step ends.
            done.wait(3)
        return execute(sql, params, many, context)

    thread = threading.Thread(target=hand_at_table_two)
    thread.start()
    with connection.execute_wrapper(at_the_seats):
        svc.after_hand(one.session_id)
    thread.join(timeout=30)
    assert not thread.is_alive() and not errors, errors
    assert go.is_set()  # the step did read seats: the hand had its chance
    svc.sync(tournament_id=t.pk, user=alice)
    two.refresh_from_db()
    assert Seat.objects.get(session=two.session, player__name=b).eliminated_at is not None
    check_books(t)  # nothing stays behind at a table that has stopped playing


def test_a_page_reads_the_final_tables_terms_outside_a_transaction(club, alice, client):
    """Only a write (in its transaction, under the tournament lock) locks the tables'
    sessions; the tournament page and the API read the deal's terms without one."""
    t = make_tournament(club, alice, n=3, format="freezeout", starting_chips=30, buy_in=100)
    svc.start(tournament_id=t.pk, user=alice)
    t.refresh_from_db()
    terms = deals.deal_terms(t)
    assert sorted(terms["chips"].values()) == [30, 30, 30]
    client.force_login(alice)
    page = client.get(t.get_absolute_url())
    assert page.status_code == 200 and "Make a deal" in page.content.decode()
