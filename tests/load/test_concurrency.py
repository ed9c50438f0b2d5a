"""Concurrency and database-enforced integrity, on PostgreSQL.

Real threads, each with its own database connection, hit one session at the same moment
(a barrier releases them together). SQLite ignores row locks, so these tests skip there.
"""

import threading
from collections.abc import Callable

import pytest
from django.db import IntegrityError, connection, connections, transaction

from games.models import Hand
from ledger import postings
from ledger.models import Account, Leg, Posting
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="row locks and the ledger's triggers exist only on PostgreSQL",
    ),
    pytest.mark.django_db(transaction=True),
]

THREADS = 20
ENTRY = {"trump": "H", "tricks": {"ann": 3, "ben": 1, "cal": 1, "dee": 0}}


def run_together(n: int, work: Callable[[int], object]) -> list[object]:
    """Run work(i) in n threads released at once; return results or exceptions."""
    barrier = threading.Barrier(n)
    results: list[object] = [None] * n

    def target(i: int) -> None:
        try:
            barrier.wait()
            results[i] = work(i)
        except Exception as exc:  # collected and asserted on by the test
            results[i] = exc
        finally:
            connections.close_all()  # this thread's own connection

    threads = [threading.Thread(target=target, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread hung (deadlock?)"
    return results


@pytest.fixture
def table():
    user = UserFactory(username="host")
    club = ClubFactory(name="Load club")
    seated = [PlayerFactory(club=club, name=n) for n in ("ann", "ben", "cal", "dee")]
    session = postings.start_session(
        club=club,
        name="Busy night",
        players=seated,
        dealer=seated[-1],
        rules={},
        currency=club.currency,
        user=user,
    )
    return session, user, seated


# One submission tapped by every thread: the same hand, key and expected version.
SAME_TAP = {"entry": ENTRY, "idempotency_key": "same-tap", "expected_version": 1}


def _assert_one_hand_from_taps(results: list[object], session) -> None:
    """Every tap answered, one created and the others "already saved", one hand written
    and the session moved on once."""
    errors = [r for r in results if isinstance(r, Exception)]
    assert not errors, errors
    assert sorted(created for _, created in results) == [False] * (THREADS - 1) + [True]
    assert Hand.objects.count() == 1
    session.refresh_from_db()
    assert session.version == 2 and session.hands_count == 1
    postings.check_invariants(session)


def test_twenty_taps_of_one_submission_record_one_hand(table):
    session, user, _ = table

    def submit(i: int):
        return postings.record_hand(session_id=session.pk, user=user, **SAME_TAP)

    results = run_together(THREADS, submit)
    _assert_one_hand_from_taps(results, session)
    assert len({hand.pk for hand, _ in results}) == 1
    assert Posting.objects.filter(hand__isnull=False).count() == 3


def test_twenty_taps_through_the_record_posts_path_record_one_hand(table):
    """The record POST's own path (games.sessions.views._record_post): the access check
    locks the row and the ledger reads the seats and hands after the lock's wait, with
    its own snapshot: every tap after the first sees the hand the first one
    committed and is answered "already saved", none collides on the idempotency key."""
    from games.access import session_for
    from games.models import Role

    session, user, _ = table
    MembershipFactory(club=session.club, user=user, role=Role.OWNER)

    def submit(i: int):
        with transaction.atomic():
            locked, _ = session_for(user, session.pk, Role.SCOREKEEPER, lock=True)
            return postings.record_hand(
                session_id=session.pk,
                user=user,
                locked=locked,
                **SAME_TAP,
            )

    _assert_one_hand_from_taps(run_together(THREADS, submit), session)


def test_twenty_different_hands_against_one_state_record_exactly_one(table):
    session, user, _ = table

    def submit(i: int):
        return postings.record_hand(
            session_id=session.pk,
            entry=ENTRY,
            idempotency_key=f"phone-{i}",
            expected_version=1,
            user=user,
        )

    results = run_together(THREADS, submit)
    recorded = [r for r in results if isinstance(r, tuple)]
    stale = [r for r in results if isinstance(r, postings.StaleState)]
    assert len(recorded) == 1 and recorded[0][1] is True
    assert len(stale) == THREADS - 1
    assert all(s.current_version == 2 for s in stale)
    assert Hand.objects.count() == 1
    postings.check_invariants(session)


def test_concurrent_undo_taps_void_once(table):
    session, user, _ = table
    hand, _ = postings.record_hand(
        session_id=session.pk, entry=ENTRY, idempotency_key="h", expected_version=None, user=user
    )

    results = run_together(
        10, lambda i: postings.void_hand(session_id=session.pk, hand_id=hand.pk, user=user)
    )
    assert all(isinstance(r, Hand) and r.pk == hand.pk for r in results), results
    assert Posting.objects.filter(kind=Posting.Kind.REVERSAL).count() == 3
    session.refresh_from_db()
    assert session.version == 3
    postings.check_invariants(session)


def test_a_carried_pot_is_pulled_into_one_new_session_only(table):
    session, user, seated = table
    postings.record_hand(
        session_id=session.pk,
        entry={"trump": "S", "tricks": {"ann": 2, "ben": 2, "cal": 1, "dee": 0}},
        idempotency_key="split",
        expected_version=None,
        user=user,
    )
    postings.close_session(session_id=session.pk, user=user)  # 8 to the club
    club = session.club

    def start(i: int):
        return postings.start_session(
            club=club,
            name=f"Table {i}",
            players=seated,
            dealer=seated[0],
            rules={},
            currency=club.currency,
            user=user,
        )

    results = run_together(8, start)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sorted(s.carry for s in results) == [0] * 7 + [8]
    for s in results:
        postings.check_invariants(s)


def test_the_database_refuses_an_unbalanced_posting(table):
    session, _, _ = table
    pot = Account.objects.get(session=session, kind=Account.Kind.POT)
    before = Posting.objects.count()
    with pytest.raises(IntegrityError, match="unbalanced"), transaction.atomic():
        posting = Posting.objects.create(club=session.club, session=session, kind="ante")
        Leg.objects.create(posting=posting, account=pot, amount=5)
    assert Posting.objects.count() == before


def test_the_database_refuses_to_update_or_delete_ledger_rows(table):
    session, user, _ = table
    postings.record_hand(
        session_id=session.pk, entry=ENTRY, idempotency_key="h", expected_version=None, user=user
    )
    leg = Leg.objects.first()
    posting = leg.posting
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        Leg.objects.filter(pk=leg.pk).update(amount=leg.amount + 1)
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        leg.delete()
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        Posting.objects.filter(pk=posting.pk).update(memo="edited")
    leg.refresh_from_db()
    postings.check_invariants(session)
