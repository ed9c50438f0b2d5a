"""The session's running totals (nets, stacks) and the plain-SQL write path.

``GameSession.nets``/``stacks`` are kept by ``ledger.postings`` next to every posting;
``check_invariants`` (run by the helpers after every step) re-sums the legs and compares.
These tests make the comparison explicit for every kind of money move, and check the
pieces that replaced ORM calls on the hot path.
"""

import pytest
from django.db import transaction
from django.utils import timezone

from games.digital import service as digital
from games.models import GameSession, Hand, HandAction, Player
from games.sql import insert_rows
from ledger import postings
from ledger.models import Posting

from .conftest import record, void


def _ledger(session) -> tuple[dict[int, int], dict[int, int]]:
    return (
        postings.ledger_sums(session, postings.TABLE_KINDS),
        postings.ledger_sums(session, Posting.Kind.values),
    )


def test_totals_follow_every_kind_of_money_move(start, players, alice):
    ann, ben, cal, dee = players
    session = start(rules={"ante": 2})
    assert session.net_by_player() == dict.fromkeys([p.pk for p in players], 0)
    postings.buy_in(session_id=session.pk, player_id=ann.pk, amount=40, user=alice)
    record(session, tricks={"ann": 3, "ben": 2, "cal": 0, "dee": 0})  # two bourrés (R21)
    hand = record(session, tricks={"ann": 1, "ben": 2, "cal": 2, "dee": 0})  # split (R23)
    void(session, hand)
    postings.cash_out(session_id=session.pk, player_id=ann.pk, amount=10, user=alice)
    eve = Player.objects.create(club=session.club, name="eve")
    postings.add_seat(session_id=session.pk, player=eve, user=alice)
    postings.close_session(session_id=session.pk, user=alice, leftover_policy="share_equally")
    session.refresh_from_db()

    nets, stacks = _ledger(session)
    assert session.net_by_player() == nets
    assert session.stack_by_player() == stacks
    # The bank moves show in the stack only.
    assert stacks[ann.pk] - nets[ann.pk] == 40 - 10
    assert postings.session_balances(session) == nets
    assert postings.player_stacks(session) == stacks
    assert sum(nets.values()) + postings.pot_balance(session) + postings.kitty_balance(session) == 0


def test_check_invariants_catches_a_total_that_drifted_from_the_ledger(start):
    session = start()
    record(session, tricks={"ann": 5, "ben": 0, "cal": 0, "dee": 0})
    key = next(iter(session.nets))
    GameSession.objects.filter(pk=session.pk).update(nets={**session.nets, key: 999})
    with pytest.raises(AssertionError, match="session nets"):
        postings.check_invariants(session)


def test_seats_and_pot_carry_their_account_ids(start, players):
    session = start()
    assert session.pot_account.kind == "pot"
    assert session.pot_account.session_id == session.pk
    for seat in session.seats.select_related("account"):
        assert seat.account.kind == "player"
        assert seat.account.player_id == seat.player_id


def test_record_hand_returns_the_session_as_the_hand_left_it(start):
    session = start()

    def submit():
        return postings.record_hand(
            session_id=session.pk,
            entry={"trump": "S", "tricks": {"ann": 5, "ben": 0, "cal": 0, "dee": 0}},
            idempotency_key="k1",
            expected_version=session.version,
            user=None,
        )

    hand, created = submit()
    fresh = GameSession.objects.get(pk=session.pk)
    assert created and hand.session.version == fresh.version == session.version + 1
    assert hand.session.nets == fresh.nets
    # A retry hands back the same hand and the current session.
    again, created = submit()
    assert not created and again.pk == hand.pk and again.session.version == fresh.version


@pytest.mark.django_db(transaction=True)
def test_complete_hand_needs_the_callers_transaction(start):
    # A transactional test: outside it no transaction is open (pytest-django's usual
    # test transaction would hide the mistake).
    session = start(mode="digital")
    table = digital.start_hand(session_id=session.pk)
    with pytest.raises(RuntimeError, match="locked transaction"):
        postings.complete_hand(session=session, hand=table.hand, entry={}, user=None)
    assert Hand.objects.get(pk=table.hand.pk).status == Hand.Status.IN_PROGRESS


def test_complete_hand_leaves_a_finished_hand_alone(start):
    session = start(mode="digital")
    table = digital.start_hand(session_id=session.pk)
    digital.cancel_hand(session_id=session.pk)
    hand = Hand.objects.get(pk=table.hand.pk)
    with transaction.atomic():
        locked = postings.lock_session(session.pk)
        same = postings.complete_hand(session=locked, hand=hand, entry={}, user=None)
    assert same.status == Hand.Status.VOIDED and same.number is None
    assert not Posting.objects.filter(hand=hand).exists()


def test_insert_rows_adapts_values_and_returns_ids_in_order(start):
    session = start(mode="digital")
    hand = digital.start_hand(session_id=session.pk).hand
    before = HandAction.objects.filter(hand=hand).count()
    now = timezone.now()
    actions = [{"type": "pass", "player": "zed", "n": i} for i in range(3)]
    ids = insert_rows(
        HandAction,
        ("hand", "seq", "action", "created_at"),
        [(hand.pk, 100 + i, a, now) for i, a in enumerate(actions)],
        returning=True,
    )
    rows = list(HandAction.objects.filter(pk__in=ids).order_by("seq"))
    assert [r.pk for r in rows] == ids  # RETURNING keeps the order of VALUES
    assert [r.action for r in rows] == actions  # JSON round trip
    assert all(r.created_at == now for r in rows)  # aware datetimes on both databases
    assert HandAction.objects.filter(hand=hand).count() == before + 3
    assert insert_rows(HandAction, ("hand", "seq", "action"), []) == []


def test_lock_session_of_a_missing_session_raises(db):
    with pytest.raises(GameSession.DoesNotExist):
        postings.lock_session(10**12)
