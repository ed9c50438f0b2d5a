"""Flat costs on the record path (issue #20): recording a hand, the scoreboard's poll and
its re-render run the same statements at 5 hands as at 60; a club without webhook
endpoints records a hand without asking for them, and the club's flag follows every
way an endpoint is created, disabled or deleted.

Counts, not timings (bench/floor.py and bench/flat.py time them)."""

from __future__ import annotations

import re
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import GameSession, WebhookDelivery, WebhookEndpoint, WebhookEvent
from games.sessions.statements import hand_legs
from ledger import postings

from .games.test_session_views import HTMX, hand_data, start_table

pytestmark = pytest.mark.django_db

SMALL, LARGE = 5, 60
SESSION_TABLE = GameSession._meta.db_table
# One htmx record POST: the login session; the login's user (Django's get_user); the
# access check that locks the session row (games.access.session_for(lock=True)); the
# seats and hand lookup; the club's webhook endpoints; the hand, its postings, their
# legs, the club totals and the session row written (one statement on PostgreSQL:
# ledger.sql.write_hand; five on SQLite); the transaction's two ends (a savepoint's
# inside the test's transaction). Issue #31 raised it by two (Django's get_user back, the
# webhook flag's read removed: under 10 % each). Lower it when a statement goes.
RECORD_POST_STATEMENTS = 8 if connection.vendor == "postgresql" else 12
USER_TABLE = get_user_model()._meta.db_table
ENDPOINT_TABLE = WebhookEndpoint._meta.db_table

# Hands that differ in who wins, who passes, who is bourré (a penalty posting) and
# whether the pot splits, so the larger session holds every kind of posting.
# whether the pot splits, so the larger session holds every kind of posting (a clean
# win after each bourré keeps the pots small).
TRICKS = [
    {"ann": 3, "ben": 1, "cal": 1, "dee": 0},
    {"ann": 3, "ben": 2},
    {"ann": 1, "ben": 2, "cal": 2},
    {"ben": 3, "cal": 2},
]


@pytest.fixture
def table(club, players, bob):
    return start_table(club, players, bob)


def _grow(session, user, count: int) -> None:
    """Record hands through the ledger until the session has ``count``."""
    session.refresh_from_db()
    while session.hands_count < count:
        postings.record_hand(
            session_id=session.pk,
            entry={"trump": "S", "tricks": TRICKS[session.hands_count % len(TRICKS)]},
            idempotency_key=uuid.uuid4().hex,
            expected_version=None,
            user=user,
        )
        session.refresh_from_db()
    postings.check_invariants(session)


def _post_hand(client, session) -> list[str]:
    """The statements of one htmx record POST (a plain win), checked to have saved it."""
    session.refresh_from_db()
    data = hand_data(session, trump="H", tricks=TRICKS[0], confirmed="1")
    url = reverse("hand_record", args=[session.pk])
    with CaptureQueriesContext(connection) as ctx:
        response = client.post(url, data, **HTMX)
    assert response.status_code == 200
    assert f"Hand {session.hands_count + 1} saved" in response.content.decode()
    postings.check_invariants(session)
    return [q["sql"] for q in ctx.captured_queries]


def _shape(sqls: list[str]) -> list[str]:
    """Each statement's first words, numbers blanked (savepoint names, ids): what it is,
    without its values."""
    return [re.sub(r"\d+", "N", " ".join(s.split()[:4])) for s in sqls]


def test_recording_a_hand_costs_the_same_statements_at_5_and_60_hands(
    bob, bob_client, table, club, players
):
    # A second table, grown to 60 hands; both get one hand through the record form.
    big = start_table(club, players, bob)
    _grow(table, bob, SMALL)
    _grow(big, bob, LARGE)
    small_sqls = _post_hand(bob_client, table)
    large_sqls = _post_hand(bob_client, big)
    assert _shape(small_sqls) == _shape(large_sqls), (small_sqls, large_sqls)
    assert len(large_sqls) == RECORD_POST_STATEMENTS, large_sqls
    # The login's user is read once, by Django's get_user.
    user_reads = [s for s in large_sqls if f'"{USER_TABLE}"' in s]
    assert len(user_reads) == 1 and SESSION_TABLE not in user_reads[0], user_reads
    # Nothing read back that the ledger just wrote: none of the hand's legs
    # (record_hand_with_legs hands them to the result screen).
    assert not [
        s for s in large_sqls if s.lstrip().upper().startswith("SELECT") and "ledger_leg" in s
    ]


# The record form (an htmx GET): the login session; the login's user (Django's
# get_user); the session with the membership; the seats with the next hand's number and
# a digital hand in progress (ledger.postings.table_state: one statement); the latest
# hand's players. (4 before issue #31, which put Django's get_user back.)
RECORD_FORM_STATEMENTS = 5


def _form(client, session) -> tuple[str, list[str]]:
    url = reverse("hand_record", args=[session.pk])
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url, **HTMX)
    assert response.status_code == 200
    return response.content.decode(), [q["sql"] for q in ctx.captured_queries]


def test_the_record_form_costs_the_same_statements_at_5_and_60_hands(
    bob, bob_client, table, club, players
):
    big = start_table(club, players, bob)
    _grow(table, bob, SMALL)
    _grow(big, bob, LARGE)
    small_page, small_sqls = _form(bob_client, table)
    large_page, large_sqls = _form(bob_client, big)
    assert _shape(small_sqls) == _shape(large_sqls), (small_sqls, large_sqls)
    assert len(large_sqls) == RECORD_FORM_STATEMENTS, large_sqls
    assert f'data-next-number="{SMALL + 1}"' in small_page
    assert f'data-next-number="{LARGE + 1}"' in large_page
    assert "A digital hand is being played" not in large_page


def test_the_record_form_numbers_past_an_undone_hand_and_warns_of_a_digital_hand(
    bob, bob_client, club, players
):
    """The next number and the digital hand's warning come from the seats' statement
    (``table_state``): an undone hand keeps its number, and a digital hand in progress
    (no number yet) is named above the form."""
    from games.digital import service as digital

    from .games.test_digital_support import make_session

    session = make_session(club, players, bob)
    _grow(session, bob, 2)
    session.refresh_from_db()
    latest = session.hands.get(number=2)
    postings.void_hand(session_id=session.pk, hand_id=latest.pk, user=bob)
    postings.check_invariants(session)
    page, _ = _form(bob_client, session)
    assert 'data-next-number="3"' in page  # hand 2 was undone and keeps its number
    assert "A digital hand is being played" not in page
    digital.start_hand(session_id=session.pk, user=bob)
    page, sqls = _form(bob_client, session)
    assert "A digital hand is being played" in page
    assert 'data-next-number="3"' in page and len(sqls) == RECORD_FORM_STATEMENTS
    postings.check_invariants(session)


def test_a_record_post_reads_the_session_row_once(bob_client, table):
    """The access check and the ledger's lock are one statement (``session_for(lock=True)``
    and ``record_hand(locked=...)``): the session row is selected once, locked."""
    sqls = _post_hand(bob_client, table)
    reads = [s for s in sqls if s.lstrip().upper().startswith("SELECT") and SESSION_TABLE in s]
    assert len(reads) == 1, reads
    assert '"games_membership"' in reads[0]
    if connection.features.has_select_for_update:
        assert "FOR UPDATE" in reads[0]


def test_a_record_post_by_a_stranger_or_a_member_writes_nothing(
    bob_client, carol_client, mallory_client, client, table
):
    """The folded access check keeps its answers: a stranger 404, a member without the
    scorekeeper role 403, an anonymous phone sent to log in; none writes anything or
    keeps the row locked (the scorekeeper records right after)."""
    url = reverse("hand_record", args=[table.pk])
    data = hand_data(table, trump="H", tricks=TRICKS[0], confirmed="1")
    assert mallory_client.post(url, data, **HTMX).status_code == 404
    assert carol_client.post(url, data, **HTMX).status_code == 403
    anonymous = client.post(url, data, **HTMX)
    assert anonymous.status_code == 302 and "login" in anonymous["Location"]
    table.refresh_from_db()
    assert table.hands_count == 0 and table.version == data["version"]
    postings.check_invariants(table)
    _post_hand(bob_client, table)
    table.refresh_from_db()
    assert table.hands_count == 1


def test_the_ledger_records_in_the_same_statements_at_5_and_60_hands(bob, table, club, players):
    big = start_table(club, players, bob)
    _grow(table, bob, SMALL)
    _grow(big, bob, LARGE)

    def one(session) -> list[str]:
        with CaptureQueriesContext(connection) as ctx:
            postings.record_hand(
                session_id=session.pk,
                entry={"trump": "S", "tricks": TRICKS[0]},
                idempotency_key=uuid.uuid4().hex,
                expected_version=None,
                user=bob,
            )
        postings.check_invariants(session)
        return [q["sql"] for q in ctx.captured_queries]

    small, large = one(table), one(big)
    assert _shape(small) == _shape(large), (small, large)


def test_poll_and_board_cost_the_same_statements_at_5_and_60_hands(
    bob, carol_client, table, club, players
):
    big = start_table(club, players, bob)
    _grow(table, bob, SMALL)
    _grow(big, bob, LARGE)

    def costs(session) -> tuple[list[str], list[str]]:
        url = reverse("session_detail", args=[session.pk])
        with CaptureQueriesContext(connection) as board:
            response = carol_client.get(url, **HTMX)
        assert response.status_code == 200
        assert f"#{session.hands_count}" in response.content.decode()
        with CaptureQueriesContext(connection) as poll:
            unchanged = carol_client.get(url, HTTP_IF_NONE_MATCH=response["ETag"], **HTMX)
        assert unchanged.status_code == 304
        return (
            [q["sql"] for q in board.captured_queries],
            [q["sql"] for q in poll.captured_queries],
        )

    small_board, small_poll = costs(table)
    large_board, large_poll = costs(big)
    # One statement: the login session's row and the board together
    # (games.sql.login_board_poll). Lower it if it ever goes; never raise it.
    assert _shape(small_poll) == _shape(large_poll) and len(large_poll) == 1
    assert _shape(small_board) == _shape(large_board), (small_board, large_board)
    # The re-render: the login session; the login's user (Django's get_user); the session
    # with the membership; the seats with a digital hand in progress, the latest hands
    # and the tournament table (selectors.board_reads). Lower it when a statement goes.
    assert len(large_board) == BOARD_STATEMENTS, large_board
    assert not [s for s in large_board if "EXISTS" in s.upper()]


# 5 before issue #31, which put Django's get_user back.
BOARD_STATEMENTS = 6


# -- webhook events of a recorded hand -------------------------------------------------------


def test_a_club_with_an_endpoint_still_gets_its_hand_event(bob, bob_client, table, club):
    WebhookEndpoint.objects.create(club=club, url="https://example.com/hook")
    sqls = _post_hand(bob_client, table)
    assert [s for s in sqls if ENDPOINT_TABLE in s]  # the hand asked for the endpoints
    event = WebhookEvent.objects.get(club=club, type="hand.recorded")
    hand = table.hands.get(number=1)
    assert event.payload["hand"] == hand.pk
    assert WebhookDelivery.objects.filter(event=event).count() == 1
    # And the legs the result screen showed are the ledger's.
    assert hand_legs(hand)


def test_an_endpoint_for_other_events_only_writes_no_hand_event(bob, bob_client, table, club):
    WebhookEndpoint.objects.create(
        club=club, url="https://example.com/h", events=["session.closed"]
    )
    _post_hand(bob_client, table)
    assert not WebhookEvent.objects.filter(type="hand.recorded").exists()


def test_record_hand_refuses_a_locked_row_of_another_session(bob, table, club, players):
    """``record_hand(locked=...)`` settles in the caller's transaction: handed another
    session's row it refuses before writing anything."""
    from django.db import transaction

    other = start_table(club, players, bob)
    with pytest.raises(RuntimeError), transaction.atomic():
        locked = postings.lock_session(other.pk)
        postings.record_hand(
            session_id=table.pk,
            entry={"trump": "S", "tricks": TRICKS[0]},
            idempotency_key=uuid.uuid4().hex,
            expected_version=None,
            user=bob,
            locked=locked,
        )
    for session in (table, other):
        session.refresh_from_db()
        assert session.hands_count == 0
        postings.check_invariants(session)
