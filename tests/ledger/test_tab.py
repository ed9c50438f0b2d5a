"""The club's tab in the ledger (issue #34): a closed session's transfers put on it and
taken off, payments reported, confirmed and reversed; ``check_invariants`` (and with it
``check_tab``) after every step."""

from __future__ import annotations

import pytest

from ledger import postings
from ledger.errors import SetupError, TabConflict
from ledger.models import Account, Posting, SettlementMark, TabPayment
from ledger.tab import clearing_transfers, history, session_tab, session_transfers, tab_balances
from tests.ledger.conftest import record

pytestmark = pytest.mark.django_db


def _ids(players):
    return {p.name: p.pk for p in players}


# Three hands after which ann and ben are up, cal and dee down: three transfers between
# players once the pot left over is shared.
EVENING = (
    {"ann": 5, "ben": 0, "cal": 0, "dee": 0},
    {"ann": 0, "ben": 3, "cal": 2, "dee": 0},
    {"ann": 3, "ben": 1, "cal": 1, "dee": 0},
)


def _closed(start, alice, tricks=None, **kwargs):
    session = start(**kwargs)
    for hand in [tricks] if tricks else EVENING:
        record(session, tricks=hand)
    postings.close_session(session_id=session.pk, user=alice, leftover_policy="share_equally")
    postings.check_invariants(session)
    session.refresh_from_db()
    return session


def _named(club_id, players):
    ids = _ids(players)
    return {name: tab_balances(club_id).get(pid, 0) for name, pid in ids.items()}


def test_the_whole_settlement_goes_on_the_tab_and_balances_are_its_transfers(start, players, alice):
    session = _closed(start, alice, {"ann": 3, "ben": 2, "cal": 0, "dee": 0})
    transfers = [t for t in session_transfers(session) if "kitty" not in (t.payer, t.payee)]
    assert transfers  # the hand moved money between players
    written = postings.put_on_tab(session_id=session.pk, user=alice)
    postings.check_invariants(session)
    assert len(written) == len(transfers)
    assert all(p.kind == Posting.Kind.TAB and p.session_id == session.pk for p in written)
    want: dict[int, int] = {}
    for t in transfers:
        want[t.payer] = want.get(t.payer, 0) - t.amount
        want[t.payee] = want.get(t.payee, 0) + t.amount
    assert {k: v for k, v in tab_balances(session.club_id).items() if v} == want
    # A double tap writes nothing more.
    assert postings.put_on_tab(session_id=session.pk, user=alice) == []
    postings.check_invariants(session)
    # The table's own books did not move: nets are still the session's.
    assert Account.objects.filter(kind=Account.Kind.TAB).count() == len(want)


def test_an_open_session_cannot_go_on_the_tab(start, alice):
    session = start()
    record(session, tricks={"ann": 3, "ben": 2, "cal": 0, "dee": 0})
    with pytest.raises(TabConflict) as refused:
        postings.put_on_tab(session_id=session.pk, user=alice)
    assert refused.value.code == "tab_session_open"
    postings.check_invariants(session)


def test_one_transfer_on_the_tab_the_other_paid_tonight_and_never_both(start, players, alice):
    session = _closed(start, alice)
    first, second, *_ = [t for t in session_transfers(session) if "kitty" not in (t.payer, t.payee)]
    postings.mark_transfer_paid(
        session_id=session.pk,
        payer_id=first.payer,
        payee_id=first.payee,
        amount=first.amount,
        paid=True,
        user=alice,
    )
    with pytest.raises(TabConflict) as refused:
        postings.put_on_tab(
            session_id=session.pk, user=alice, transfers=[(first.payer, first.payee, first.amount)]
        )
    assert refused.value.code == "tab_paid_tonight"
    # The whole settlement: every transfer not ticked paid.
    written = postings.put_on_tab(session_id=session.pk, user=alice)
    postings.check_invariants(session)
    assert (first.payer, first.payee) not in session_tab(session.pk)
    assert (second.payer, second.payee) in session_tab(session.pk)
    assert len(written) >= 1
    with pytest.raises(TabConflict) as refused:
        postings.mark_transfer_paid(
            session_id=session.pk,
            payer_id=second.payer,
            payee_id=second.payee,
            amount=second.amount,
            paid=True,
            user=alice,
        )
    assert refused.value.code == "tab_on_tab"
    # Taken off the tab, it can be ticked paid.
    rev = postings.take_off_tab(
        session_id=session.pk, payer_id=second.payer, payee_id=second.payee, user=alice
    )
    postings.check_invariants(session)
    assert rev is not None and rev.kind == Posting.Kind.REVERSAL
    assert (
        postings.take_off_tab(
            session_id=session.pk, payer_id=second.payer, payee_id=second.payee, user=alice
        )
        is None
    )
    postings.mark_transfer_paid(
        session_id=session.pk,
        payer_id=second.payer,
        payee_id=second.payee,
        amount=second.amount,
        paid=True,
        user=alice,
    )
    postings.check_invariants(session)
    assert SettlementMark.objects.filter(session=session).count() == 2


def test_a_transfer_the_books_do_not_ask_for_is_refused(start, players, alice):
    session = _closed(start, alice, {"ann": 3, "ben": 2, "cal": 0, "dee": 0})
    t = next(t for t in session_transfers(session) if "kitty" not in (t.payer, t.payee))
    with pytest.raises(TabConflict) as refused:
        postings.put_on_tab(
            session_id=session.pk, user=alice, transfers=[(t.payer, t.payee, t.amount + 1)]
        )
    assert refused.value.code == "tab_no_transfer"
    postings.check_invariants(session)


def test_payments_partial_full_confirmed_and_reversed(start, players, alice, bob):
    ann, _ben, _cal, dee = players
    session = _closed(start, alice)
    postings.put_on_tab(session_id=session.pk, user=alice)
    postings.check_invariants(session)
    before = tab_balances(session.club_id)
    # EVENING: dee pays ann 17 and ben 1.
    assert before[dee.pk] == -18 and before[ann.pk] == 17
    part = postings.report_payment(
        club_id=session.club_id,
        payer_id=dee.pk,
        payee_id=ann.pk,
        amount=1,
        method="cash",
        user=bob,
    )
    postings.check_invariants(session)
    assert part.confirmed_at is None  # reported
    assert tab_balances(session.club_id)[dee.pk] == -17
    postings.confirm_payment(payment_id=part.pk, user=alice)
    postings.check_invariants(session)
    rest = postings.report_payment(
        club_id=session.club_id,
        payer_id=dee.pk,
        payee_id=ann.pk,
        amount=16,
        method="venmo",
        user=bob,
    )
    postings.check_invariants(session)
    assert tab_balances(session.club_id)[dee.pk] == -1  # still owes ben 1
    assert tab_balances(session.club_id)[ann.pk] == 0
    postings.reverse_payment(payment_id=rest.pk, user=alice)
    postings.check_invariants(session)
    assert tab_balances(session.club_id)[dee.pk] == -17
    # Reversing twice changes nothing; a reversed payment cannot be confirmed.
    postings.reverse_payment(payment_id=rest.pk, user=alice)
    postings.check_invariants(session)
    with pytest.raises(TabConflict) as refused:
        postings.confirm_payment(payment_id=rest.pk, user=alice)
    assert refused.value.code == "tab_payment_reversed"
    lines = list(history(session.club_id, player_id=dee.pk))
    assert sum(line.amount for line in lines) == tab_balances(session.club_id)[dee.pk]
    assert [line.status for line in lines if line.payment_id] == [
        "confirmed",
        "reversed",
        "reversed",
    ]
    assert sum(line.amount for line in history(session.club_id)) == 0
    assert TabPayment.objects.count() == 2


@pytest.mark.parametrize(
    ("payer", "payee", "amount", "method", "code"),
    [
        ("ben", "ben", 100, "cash", "tab_same_player"),
        ("ben", "ann", 0, "cash", "bad_amount"),
        ("ben", "ann", 100, "gold", "tab_bad_method"),
    ],
)
def test_a_bad_payment_is_refused_and_writes_nothing(
    start, players, alice, payer, payee, amount, method, code
):
    session = _closed(start, alice)
    ids = _ids(players)
    count = Posting.objects.count()
    with pytest.raises(SetupError) as refused:
        postings.report_payment(
            club_id=session.club_id,
            payer_id=ids[payer],
            payee_id=ids[payee],
            amount=amount,
            method=method,
            user=alice,
        )
    assert refused.value.code == code
    assert Posting.objects.count() == count
    postings.check_invariants(session)


def test_a_player_of_another_club_cannot_be_paid(start, players, alice):
    from tests.factories import ClubFactory, PlayerFactory

    session = _closed(start, alice)
    stranger = PlayerFactory(club=ClubFactory(), name="zed")
    with pytest.raises(SetupError) as refused:
        postings.report_payment(
            club_id=session.club_id,
            payer_id=players[1].pk,
            payee_id=stranger.pk,
            amount=5,
            method="cash",
            user=alice,
        )
    assert refused.value.code == "player_not_on_roster"


def test_clearing_transfers_are_the_settlement_algorithm_on_the_balances():
    # -6 -4 +3 +3 +2 +2: greedy needs 5, the exact method 4 ({-6 +3 +3} and {-4 +2 +2}).
    balances = {1: -6, 2: -4, 3: 3, 4: 3, 5: 2, 6: 2, 7: 0}
    transfers = clearing_transfers(balances)
    assert len(transfers) == 4
    left = dict(balances)
    for t in transfers:
        left[t.payer] += t.amount
        left[t.payee] -= t.amount
    assert set(left.values()) == {0}


def test_check_tab_catches_a_payment_row_that_disagrees_with_its_posting(start, players, alice):
    ann, ben, *_ = players
    session = _closed(start, alice)
    payment = postings.report_payment(
        club_id=session.club_id,
        payer_id=ben.pk,
        payee_id=ann.pk,
        amount=3,
        method="cash",
        user=alice,
    )
    TabPayment.objects.filter(pk=payment.pk).update(amount=4)  # not money: a row can drift
    with pytest.raises(AssertionError, match="payment"):
        postings.check_invariants(session)
