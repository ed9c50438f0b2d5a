"""The recording path and the double-entry ledger (ledger.postings).

Every write goes through the conftest helpers, which run `check_invariants` after each
operation: legs of every posting sum to zero, the pot holds `session.carry` (the
engine's next_carry), all the club's balances sum to zero.
"""

import random

import pytest
from django.db import connection

from games.engine import RuleError
from games.models import GameSession, Hand, HandAction, Seat, SessionEvent
from games.money import CURRENCIES
from ledger import postings
from ledger.models import Account, Posting
from tests.factories import ClubFactory, PlayerFactory

from .conftest import hand_postings, ledger_size, legs_of, nets, playout, record, stacks, void

pytestmark = pytest.mark.django_db


def state(session):
    session.refresh_from_db()
    return postings.session_state(session)


# -- starting ---------------------------------------------------------------------------------


def test_start_session_seats_pot_dealer_and_event(start, players, alice):
    session = start(rules={"ante": 25}, dealer=players[1])

    assert [s.player.name for s in session.seats.all()] == ["ann", "ben", "cal", "dee"]
    assert Account.objects.filter(session=session, kind=Account.Kind.POT).count() == 1
    assert Account.objects.filter(kind=Account.Kind.PLAYER).count() == 4
    assert session.rules["ante"] == 25 and session.rules["split_pot"] == "carry"
    event = session.events.get()
    assert event.kind == "started" and event.created_by == alice
    assert state(session) == {
        "players": ["ann", "ben", "cal", "dee"],
        "dealer": "ben",
        "carry": 0,
        "excused": [],
        "forfeits": [],
        "rules": session.rules,
        "version": 1,
    }
    assert nets(session) == {"ann": 0, "ben": 0, "cal": 0, "dee": 0}


@pytest.mark.parametrize(
    ("rules", "code", "key"),
    [
        ({"antes": 1}, "unknown_rule", "antes"),
        ({"ante": 0}, "bad_rule_value", "ante"),
        ({"split_pot": "share"}, "bad_rule_value", "split_pot"),
    ],
)
def test_start_rejects_bad_rules_with_code_and_key(start, rules, code, key):
    with pytest.raises(ValueError) as info:
        start(rules=rules)
    assert isinstance(info.value, RuleError)
    assert (info.value.code, info.value.key) == (code, key)
    assert not GameSession.objects.exists()


def test_R3_start_needs_two_to_eight_distinct_players_of_the_club(start, club, players):
    with pytest.raises(postings.SetupError) as info:
        start(seated=players[:1])
    assert info.value.code == "bad_players"
    nine = players + [PlayerFactory(club=club) for _ in range(5)]
    with pytest.raises(postings.SetupError):
        start(seated=nine)
    with pytest.raises(postings.SetupError) as info:
        start(seated=[players[0], players[0]])
    assert info.value.code == "duplicate_player"
    stranger = PlayerFactory(club=ClubFactory())
    with pytest.raises(postings.SetupError) as info:
        start(seated=[players[0], stranger])
    assert info.value.code == "unknown_player"
    with pytest.raises(postings.SetupError) as info:
        start(seated=players[:2], dealer=players[3])
    assert info.value.code == "bad_dealer"
    assert not GameSession.objects.exists()


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"name": "  "}, "bad_name"),
        ({"name": "x" * 101}, "bad_name"),
        ({"currency": ""}, "bad_currency"),
        # The club counts whole dollars: a session in cents would mix the two units.
        ({"currency": CURRENCIES["USD"]}, "bad_currency"),
        ({"mode": "online"}, "bad_mode"),
        ({"leftover_policy": "burn"}, "bad_policy"),
    ],
)
def test_start_rejects_bad_fields(club, players, alice, kwargs, code):
    args = {"club": club, "name": "Thursday", "players": players, "dealer": players[0]}
    args |= {"rules": {}, "currency": club.currency, "user": alice}
    with pytest.raises(postings.SetupError) as info:
        postings.start_session(**(args | kwargs))
    assert info.value.code == code
    assert not GameSession.objects.exists()


# -- hands: every kind of posting -----------------------------------------------------------


def test_R33_R36_five_players_winner_takes_pot_bourres_pay_pot(start, players, eve):
    """RULES.md worked example: A3 B1 C1 D0 E0 → A takes 5; D and E pay 5 each."""
    session = start(seated=[*players, eve], dealer=eve)
    hand = record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0, "eve": 0})

    assert hand.number == 1 and hand.status == Hand.Status.RECORDED
    assert hand_postings(hand) == {
        "ante": {"ann": -1, "ben": -1, "cal": -1, "dee": -1, "eve": -1, "pot": 5},
        "payout": {"ann": 5, "pot": -5},
        "penalty": {"dee": -5, "eve": -5, "pot": 10},
    }
    assert nets(session) == {"ann": 4, "ben": -1, "cal": -1, "dee": -6, "eve": -6}
    assert session.carry == 10 == postings.pot_balance(session)
    s = state(session)
    assert s["excused"] == ["dee", "eve"] and s["dealer"] == "ann" and s["carry"] == 10
    assert hand.before["carry"] == 0 and hand.before["seats"]["eve"] == eve.pk


def test_R34_R35_split_pot_carries_and_tied_players_skip_the_ante(start, players):
    """RULES.md: 3 players A2 B2 C1 → 3 carries; A, B excused; next pot 3 + C's ante."""
    session = start(seated=players[:3])
    first = record(session, tricks={"ann": 2, "ben": 2, "cal": 1})
    assert first.result["outcome"] == "split"
    assert hand_postings(first) == {"ante": {"ann": -1, "ben": -1, "cal": -1, "pot": 3}}
    assert state(session)["excused"] == ["ann", "ben"]

    second = record(session, tricks={"ann": 3, "ben": 1, "cal": 1})
    assert second.result["pot"] == 4
    assert hand_postings(second)["ante"] == {"cal": -1, "pot": 1}
    assert hand_postings(second)["payout"] == {"ann": 4, "pot": -4}
    assert nets(session) == {"ann": 3, "ben": -1, "cal": -2}


def test_R34_divided_split_posts_a_split_and_carries_the_remainder(start, players):
    session = start(seated=players[:3], rules={"split_pot": "divide", "ante": 5})
    hand = record(session, tricks={"ann": 2, "ben": 2, "cal": 1})
    assert hand_postings(hand)["split"] == {"ann": 7, "ben": 7, "pot": -14}
    assert session.carry == 1
    assert state(session)["excused"] == []  # paid, so nobody is excused (R35)


def test_R37_pot_limit_with_a_carried_pot_from_the_club(start, players, alice):
    """RULES.md: pot_limit 10, carry 21, 4 players, A3 B2 C0 D0 → A takes 25; C and D
    pay 10 each; the next pot opens at 20. The 21 comes from last week's split pot,
    carried to the club when that session closed."""
    last_week = start(seated=players[:3], rules={"ante": 7}, name="Last week")
    record(last_week, tricks={"ann": 2, "ben": 2, "cal": 1})
    closed = postings.close_session(session_id=last_week.pk, user=alice)
    postings.check_invariants(closed)
    assert postings.kitty_balance(closed) == 21

    session = start(rules={"pot_limit": 10})
    carry_in = session.postings.get()
    assert carry_in.kind == Posting.Kind.CARRY_IN
    assert legs_of(carry_in) == {"carry": -21, "pot": 21}
    assert session.carry == 21 and postings.kitty_balance(session) == -21

    hand = record(session, tricks={"ann": 3, "ben": 2, "cal": 0, "dee": 0})
    assert hand_postings(hand)["payout"] == {"ann": 25, "pot": -25}
    assert hand_postings(hand)["penalty"] == {"cal": -10, "dee": -10, "pot": 20}
    assert session.carry == 20
    assert nets(session) == {"ann": 24, "ben": -1, "cal": -11, "dee": -11}


def test_double_ante_posts_second_antes_of_those_who_play(start):
    session = start(rules={"double_ante": True, "ante": 2})
    hand = record(session, passed=["ben"], tricks={"ann": 3, "cal": 1, "dee": 1})
    assert hand_postings(hand)["ante"] == {"ann": -4, "ben": -2, "cal": -4, "dee": -4, "pot": 14}
    assert hand_postings(hand)["payout"] == {"ann": 14, "pot": -14}
    assert state(session)["excused"] == []


def test_dealer_antes_for_all(start, players):
    session = start(rules={"dealer_antes_for_all": True}, dealer=players[2])
    hand = record(session, tricks={"ann": 1, "ben": 1, "cal": 3, "dee": 0})
    assert hand_postings(hand)["ante"] == {"cal": -4, "pot": 4}
    assert hand_postings(hand)["penalty"] == {"dee": -4, "pot": 4}
    assert state(session)["excused"] == []  # nobody is excused under this rule


def test_R39_uncorrected_renege_pays_the_pot_once_and_is_excused(start):
    session = start()
    hand = record(
        session,
        tricks={"ann": 2, "ben": 1, "cal": 2, "dee": 0},
        reneges=[{"player": "dee", "corrected": False}],
    )
    # dee reneged and was bourréd: pays once (R39); ann and cal tie: split, pot carries.
    assert hand.result["outcome"] == "split"
    assert hand_postings(hand)["penalty"] == {"dee": -4, "pot": 4}
    assert session.carry == 8
    assert state(session)["excused"] == ["ann", "cal", "dee"]


def test_R39_R8_corrected_renege_forfeits_the_next_deal(start, players):
    session = start(dealer=players[3])  # dee deals; ann would deal next
    record(
        session,
        tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0},
        reneges=[{"player": "ann", "corrected": True}],
    )
    s = state(session)
    # ann cannot win (R39): pot carries; ann's deal is skipped (R8): ben deals.
    assert s["dealer"] == "ben" and s["forfeits"] == [] and session.carry == 8


def test_R39_R8_forfeit_stays_pending_until_the_deal_reaches_the_player(start, players):
    session = start(dealer=players[3])
    record(
        session,
        tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0},
        reneges=[{"player": "cal", "corrected": True}],
    )
    assert state(session)["dealer"] == "ann"
    assert state(session)["forfeits"] == ["cal"]
    assert session.forfeits == [players[2].pk]
    record(session, tricks={"ann": 1, "ben": 3, "cal": 1, "dee": 0})
    assert state(session)["dealer"] == "ben"
    record(session, tricks={"ann": 1, "ben": 3, "cal": 1, "dee": 0})
    assert state(session)["dealer"] == "dee"  # cal skipped
    assert state(session)["forfeits"] == []


def test_R14_uncontested_hand_pays_the_pot_without_penalties(start):
    session = start()
    hand = record(session, passed=["ann", "ben", "cal"])
    assert hand.result["outcome"] == "uncontested"
    assert hand_postings(hand) == {
        "ante": {"ann": -1, "ben": -1, "cal": -1, "dee": -1, "pot": 4},
        "payout": {"dee": 4, "pot": -4},
    }
    assert session.carry == 0


def test_R40_all_passed_pot_carries_untouched(start):
    session = start(rules={"declaration": "simultaneous"})
    hand = record(session, up_card="9C", passed=["ann", "ben", "cal", "dee"])
    assert hand.result["outcome"] == "all_passed"
    assert set(hand_postings(hand)) == {"ante"}
    assert session.carry == 4 and state(session)["excused"] == []


def test_a_full_card_log_from_an_engine_playout_records(start, players):
    """A digital hand dealt from session_state records with the same verdict."""
    session = start()
    record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    s = state(session)
    rec = playout(s, random.Random(7))
    hand = record(session, **rec)  # the session's own fields are accepted when they agree
    assert hand.record == rec
    assert hand.verdict["result"]["pot"] == 4 + 3  # carry 4 + antes of ann, ben, cal


# -- rejected submissions -------------------------------------------------------------------------


def test_invalid_record_is_rejected_with_errors_and_nothing_is_written(start):
    session = start()
    before = ledger_size()
    with pytest.raises(postings.HandRejected) as info:
        postings.record_hand(
            session_id=session.pk,
            entry={"trump": "H", "tricks": {"ann": 2, "ben": 1, "cal": 1, "dee": 0}},
            idempotency_key="bad",
            expected_version=1,
            user=None,
        )
    assert info.value.verdict["valid"] is False
    assert info.value.errors and all("code" in e and "message" in e for e in info.value.errors)
    assert ledger_size() == before and not Hand.objects.exists()
    assert state(session)["version"] == 1
    postings.check_invariants(session)


def test_an_unfinished_hand_is_rejected(start):
    session = start()
    with pytest.raises(postings.HandRejected) as info:
        postings.record_hand(
            session_id=session.pk,
            entry={"up_card": "QH", "passed": ["ben"]},
            idempotency_key="x",
            expected_version=None,
            user=None,
        )
    assert info.value.errors[0]["code"] == "incomplete"
    assert not Hand.objects.exists()


def test_an_entry_that_contradicts_the_session_is_rejected(start):
    session = start()
    with pytest.raises(postings.HandRejected) as info:
        postings.record_hand(
            session_id=session.pk,
            entry={"dealer": "ann", "trump": "H", "tricks": {"ann": 5}},
            idempotency_key="x",
            expected_version=None,
            user=None,
        )
    assert info.value.errors[0] | {"message": ""} == {
        "code": "session_mismatch",
        "field": "dealer",
        "message": "",
    }


# -- idempotency, stale state, closed sessions --------------------------------------------------


def test_a_retried_submission_records_once_and_returns_the_same_hand(start, alice):
    session = start()
    entry = {"trump": "S", "tricks": {"ann": 3, "ben": 1, "cal": 1, "dee": 0}}
    hand, created = postings.record_hand(
        session_id=session.pk, entry=entry, idempotency_key="tap", expected_version=1, user=alice
    )
    assert created
    size = ledger_size()
    # The retry carries the version it was made against (now stale): still the same hand.
    again, created = postings.record_hand(
        session_id=session.pk, entry=entry, idempotency_key="tap", expected_version=1, user=alice
    )
    assert (again.pk, created) == (hand.pk, False)
    assert again.verdict == hand.verdict
    assert ledger_size() == size
    assert state(session)["version"] == 2 and session.hands_count == 1
    postings.check_invariants(session)


def test_a_submission_against_an_older_version_is_refused(start):
    session = start()
    record(session, expected_version=1, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    size = ledger_size()
    with pytest.raises(postings.StaleState) as info:
        record(session, expected_version=1, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    assert info.value.current_version == 2
    assert ledger_size() == size
    postings.check_invariants(session)


def test_a_closed_session_refuses_every_change(start, players, alice, eve):
    session = start()
    hand = record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    postings.close_session(session_id=session.pk, user=alice)
    sid = session.pk
    calls = [
        lambda: record(session, tricks={"ann": 5}),
        lambda: postings.void_hand(session_id=sid, hand_id=hand.pk, user=alice),
        lambda: postings.change_rules(session_id=sid, rules={"ante": 2}, user=alice),
        lambda: postings.add_seat(session_id=sid, player=eve, user=alice),
        lambda: postings.set_seat_active(
            session_id=sid, player_id=players[0].pk, active=False, user=alice
        ),
        lambda: postings.buy_in(session_id=sid, player_id=players[0].pk, amount=5, user=alice),
    ]
    for call in calls:
        with pytest.raises(postings.SessionClosed):
            call()
    # A retry of a hand recorded before the close still gets its answer.
    again, created = postings.record_hand(
        session_id=sid,
        entry={},
        idempotency_key=hand.idempotency_key,
        expected_version=None,
        user=alice,
    )
    assert (again.pk, created) == (hand.pk, False)
    postings.check_invariants(session)


def test_an_in_progress_digital_hand_is_completed_not_duplicated(start, alice):
    session = start()
    pending = Hand.objects.create(
        session=session,
        number=None,
        kind=Hand.Kind.DIGITAL,
        status=Hand.Status.IN_PROGRESS,
        idempotency_key="digital-1",
    )
    actions = [{"type": "pass", "player": "ann"}]
    hand, created = postings.record_hand(
        session_id=session.pk,
        entry={"trump": "H", "passed": ["ann", "ben", "cal"]},
        idempotency_key="digital-1",
        expected_version=None,
        user=alice,
        kind="digital",
        seed="42",
        actions=actions,
    )
    assert created and hand.pk == pending.pk
    hand.refresh_from_db()
    assert (hand.number, hand.status, hand.seed) == (1, Hand.Status.RECORDED, "42")
    assert list(HandAction.objects.filter(hand=hand).values_list("action", flat=True)) == actions
    postings.check_invariants(session)
    # An in-progress hand does not count as a hand and is never "the latest" to void.
    assert Hand.objects.count() == 1


def test_an_in_progress_hand_named_by_hand_id_is_completed_once(start, alice):
    session = start()
    pending = Hand.objects.create(
        session=session, number=None, kind=Hand.Kind.DIGITAL, status=Hand.Status.IN_PROGRESS
    )
    entry = {"trump": "H", "passed": ["ann", "ben", "cal"]}
    kwargs = {"session_id": session.pk, "entry": entry, "expected_version": None, "user": alice}
    hand, created = postings.record_hand(
        idempotency_key="k1", kind="digital", hand_id=pending.pk, **kwargs
    )
    assert created and hand.pk == pending.pk and hand.number == 1
    again, created = postings.record_hand(idempotency_key="k2", hand_id=pending.pk, **kwargs)
    assert (again.pk, created) == (pending.pk, False)
    with pytest.raises(postings.SetupError):
        postings.record_hand(idempotency_key="k3", hand_id=10**6, **kwargs)
    assert Hand.objects.count() == 1
    postings.check_invariants(session)


# -- undo ----------------------------------------------------------------------------------------------


def test_void_reverses_the_latest_hand_and_restores_the_state(start, alice):
    session = start()
    first = record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    after_first = (state(session), nets(session))
    second = record(session, tricks={"ann": 1, "ben": 1, "cal": 3, "dee": 0})
    assert nets(session) != after_first[1]

    voided = void(session, second, user=alice, reason="wrong tricks")
    assert voided.status == Hand.Status.VOIDED and voided.void_reason == "wrong tricks"
    reversals = second.postings.filter(kind=Posting.Kind.REVERSAL)
    assert reversals.count() == 3
    for reversal in reversals:
        assert legs_of(reversal) == {k: -v for k, v in legs_of(reversal.reverses).items()}
    now = state(session)
    assert nets(session) == after_first[1]
    assert {k: v for k, v in now.items() if k != "version"} == {
        k: v for k, v in after_first[0].items() if k != "version"
    }
    assert now["version"] == after_first[0]["version"] + 2
    assert session.hands_count == 1
    assert session.events.filter(kind="hand_voided").count() == 1

    # An edit is a void plus a new record: the new hand gets the next number.
    third = record(session, tricks={"ann": 1, "ben": 3, "cal": 1, "dee": 0})
    assert third.number == 3 and session.hands_count == 2
    with pytest.raises(postings.VoidRefused) as info:
        postings.void_hand(session_id=session.pk, hand_id=first.pk, user=alice)
    assert info.value.code == "not_latest"
    void(session, third)
    void(session, first)
    assert nets(session) == {"ann": 0, "ben": 0, "cal": 0, "dee": 0}
    assert session.carry == 0 and state(session)["dealer"] == "dee"


def test_voiding_twice_is_a_double_tapped_undo(start):
    session = start()
    hand = record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    void(session, hand)
    size, version = ledger_size(), state(session)["version"]
    again = void(session, hand)
    assert again.status == Hand.Status.VOIDED
    assert ledger_size() == size and state(session)["version"] == version


def test_void_refuses_a_stale_version_and_a_retry_never_rerecords(start):
    session = start()
    hand = record(session, key="once", tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    with pytest.raises(postings.StaleState):
        postings.void_hand(session_id=session.pk, hand_id=hand.pk, user=None, expected_version=1)
    void(session, hand, expected_version=2)
    again, created = postings.record_hand(
        session_id=session.pk, entry={}, idempotency_key="once", expected_version=None, user=None
    )
    assert (again.pk, created, again.status) == (hand.pk, False, Hand.Status.VOIDED)
    assert session.hands_count == 0
    postings.check_invariants(session)


# -- rules ------------------------------------------------------------------------------------------


def test_a_rule_change_applies_from_the_next_hand_and_is_in_the_history(start, alice):
    session = start()
    first = record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    postings.change_rules(session_id=session.pk, rules={"ante": 2, "pot_limit": 3}, user=alice)
    postings.check_invariants(session)
    event = session.events.get(kind="rules_changed")
    assert event.data["old"]["ante"] == 1 and event.data["new"]["ante"] == 2
    assert event.data["changed"] == {"ante": [1, 2], "pot_limit": [None, 3]}
    second = record(session, tricks={"ann": 1, "ben": 3, "cal": 1, "dee": 0})
    assert first.record["rules"]["ante"] == 1 and second.record["rules"]["ante"] == 2
    assert hand_postings(second)["ante"] == {"ann": -2, "ben": -2, "cal": -2, "pot": 6}
    assert hand_postings(second)["penalty"] == {"dee": -3, "pot": 3}  # capped (R37)

    with pytest.raises(RuleError):
        postings.change_rules(session_id=session.pk, rules={"ante": -1}, user=alice)
    assert session.events.filter(kind="rules_changed").count() == 1


# -- seats ------------------------------------------------------------------------------------------


def test_R8_when_the_next_dealer_leaves_the_deal_passes_left(start, players, alice):
    session = start(dealer=players[3])
    record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    assert state(session)["dealer"] == "ann"
    postings.set_seat_active(
        session_id=session.pk, player_id=players[0].pk, active=False, user=alice
    )
    postings.check_invariants(session)
    s = state(session)
    assert s["players"] == ["ben", "cal", "dee"] and s["dealer"] == "ben"
    hand = record(session, tricks={"ben": 3, "cal": 2, "dee": 0})
    assert hand.record["players"] == ["ben", "cal", "dee"]
    assert state(session)["dealer"] == "cal"

    # ann comes back: seated where she was, dealt in, and the deal goes on from cal.
    postings.set_seat_active(
        session_id=session.pk, player_id=players[0].pk, active=True, user=alice
    )
    assert state(session)["players"] == ["ann", "ben", "cal", "dee"]
    assert state(session)["dealer"] == "cal"
    kinds = list(session.events.values_list("kind", flat=True))
    assert kinds == ["started", "seat_left", "seat_returned"]


def test_R3_seat_changes_keep_two_to_eight_players(start, club, players, alice):
    session = start(seated=players[:2])
    with pytest.raises(postings.SetupError) as info:
        postings.set_seat_active(
            session_id=session.pk, player_id=players[0].pk, active=False, user=alice
        )
    assert info.value.code == "too_few_players"
    for p in [players[2], players[3], *(PlayerFactory(club=club) for _ in range(4))]:
        postings.add_seat(session_id=session.pk, player=p, user=alice)
    with pytest.raises(postings.SetupError) as info:
        postings.add_seat(session_id=session.pk, player=PlayerFactory(club=club), user=alice)
    assert info.value.code == "too_many_players"
    assert len(state(session)["players"]) == 8
    postings.check_invariants(session)


def test_add_seat_at_a_position_and_refusals(start, players, alice, eve):
    session = start()
    seat = postings.add_seat(session_id=session.pk, player=eve, user=alice, position=1)
    assert seat.active and Account.objects.filter(player=eve).exists()
    assert state(session)["players"] == ["ann", "eve", "ben", "cal", "dee"]
    hand = record(session, tricks={"ann": 1, "eve": 3, "ben": 1, "cal": 0, "dee": 0})
    assert hand_postings(hand)["ante"]["eve"] == -1
    with pytest.raises(postings.SetupError) as info:
        postings.add_seat(session_id=session.pk, player=eve, user=alice)
    assert info.value.code == "already_seated"
    with pytest.raises(postings.SetupError) as info:
        postings.add_seat(session_id=session.pk, player=PlayerFactory(), user=alice)
    assert info.value.code == "unknown_player"
    # A player who left is seated again by add_seat too.
    postings.set_seat_active(session_id=session.pk, player_id=eve.pk, active=False, user=alice)
    postings.add_seat(session_id=session.pk, player=eve, user=alice)
    assert "eve" in state(session)["players"]
    postings.check_invariants(session)


def test_void_after_a_seat_change_keeps_the_dealer_valid_R8(start, players, alice):
    session = start(dealer=players[2])  # cal deals; dee next
    hand = record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    postings.set_seat_active(
        session_id=session.pk, player_id=players[2].pk, active=False, user=alice
    )
    # Undo: the state before the hand had cal dealing, but cal has left: dee deals.
    void(session, hand)
    assert state(session)["dealer"] == "dee"


# -- buy-ins, cash-outs, stacks ---------------------------------------------------------------------


def test_buy_in_and_cash_out_move_stacks_not_table_nets(start, players, alice):
    session = start()
    ann = players[0]
    posting = postings.buy_in(session_id=session.pk, player_id=ann.pk, amount=50, user=alice)
    postings.check_invariants(session)
    assert legs_of(posting) == {"ann": 50, "bank": -50}
    record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    assert nets(session)["ann"] == 3 and stacks(session)["ann"] == 53
    with pytest.raises(postings.SetupError) as info:
        postings.cash_out(session_id=session.pk, player_id=ann.pk, amount=54, user=alice)
    assert info.value.code == "not_enough_chips"
    posting = postings.cash_out(session_id=session.pk, player_id=ann.pk, amount=53, user=alice)
    postings.check_invariants(session)
    assert legs_of(posting) == {"ann": -53, "bank": 53}
    assert stacks(session)["ann"] == 0 and nets(session)["ann"] == 3
    with pytest.raises(postings.SetupError):
        postings.buy_in(session_id=session.pk, player_id=ann.pk, amount=0, user=alice)


# -- closing ------------------------------------------------------------------------------------------


def test_close_carries_the_leftover_to_the_club_and_freezes(start, alice):
    session = start()
    record(session, tricks={"ann": 2, "ben": 2, "cal": 1, "dee": 0})  # split: 4 + dee's 4
    closed = postings.close_session(session_id=session.pk, user=alice)
    postings.check_invariants(closed)
    assert closed.status == GameSession.Status.CLOSED and closed.closed_at
    assert closed.carry == 0 and postings.pot_balance(closed) == 0
    carry_out = closed.postings.get(kind=Posting.Kind.CARRY_OUT)
    assert legs_of(carry_out) == {"pot": -8, "carry": 8}
    assert postings.kitty_balance(closed) == 8
    assert sum(postings.session_balances(closed).values()) == -8
    event = closed.events.get(kind="closed")
    assert event.data["leftover"] == 8 and event.data["policy"] == "carry_to_club"
    # Closing again (a double tap) changes nothing.
    size = ledger_size()
    assert postings.close_session(session_id=session.pk, user=alice).version == closed.version
    assert ledger_size() == size


def test_close_shares_the_leftover_equally_remainder_to_the_club(start, alice):
    session = start(rules={"ante": 5, "pot_limit": 3})
    record(session, tricks={"ann": 2, "ben": 2, "cal": 1, "dee": 0})  # 20 carries + dee's 3
    closed = postings.close_session(
        session_id=session.pk, user=alice, leftover_policy="share_equally"
    )
    postings.check_invariants(closed)
    leftover = closed.postings.get(kind=Posting.Kind.LEFTOVER)
    assert legs_of(leftover) == {"ann": 5, "ben": 5, "cal": 5, "dee": 5, "pot": -23, "carry": 3}
    # The memo names no amount: a number there would be in minor units ("3" for 3 cents).
    assert leftover.memo == "Leftover pot shared; the odd remainder to the club"
    event = closed.events.get(kind="closed")
    assert event.data["remainder"] == 3 and event.data["policy"] == "share_equally"
    assert closed.leftover_policy == "share_equally"
    assert nets(closed) == {"ann": 0, "ben": 0, "cal": 0, "dee": -3}


def test_share_equally_goes_to_those_who_paid_since_the_pot_was_won(start, alice):
    session = start()
    record(session, tricks={"ann": 3, "ben": 2, "cal": 0, "dee": 0})  # cal, dee pay 4 each
    closed = postings.close_session(
        session_id=session.pk, user=alice, leftover_policy="share_equally"
    )
    postings.check_invariants(closed)
    assert legs_of(closed.postings.get(kind=Posting.Kind.LEFTOVER)) == {
        "cal": 4,
        "dee": 4,
        "pot": -8,
    }


def test_share_equally_with_only_a_carried_in_pot_returns_it_to_the_club(start, players, alice):
    old = start(seated=players[:3], name="Old")
    record(old, tricks={"ann": 2, "ben": 2, "cal": 1})
    postings.close_session(session_id=old.pk, user=alice)
    session = start()
    assert session.carry == 3
    closed = postings.close_session(
        session_id=session.pk, user=alice, leftover_policy="share_equally"
    )
    postings.check_invariants(closed)
    assert legs_of(closed.postings.get(kind=Posting.Kind.CARRY_OUT)) == {"pot": -3, "carry": 3}


def test_close_rejects_an_unknown_policy(start, alice):
    session = start()
    with pytest.raises(postings.SetupError):
        postings.close_session(session_id=session.pk, user=alice, leftover_policy="burn")
    assert state(session)["version"] == 1


# -- chip-limited tables ------------------------------------------------------------------------------


def test_tournament_chips_are_bought_in_and_the_kitty_is_left_alone(start, players, alice):
    old = start(seated=players[:3], name="Cash game")
    record(old, tricks={"ann": 2, "ben": 2, "cal": 1})
    postings.close_session(session_id=old.pk, user=alice)
    chips = {p.pk: 100 for p in players}
    session = start(tournament_chips=chips, name="Table 1")
    assert session.chip_limited and session.carry == 0
    assert list(session.postings.values_list("kind", flat=True)) == ["buy_in"] * 4
    assert stacks(session) == {"ann": 100, "ben": 100, "cal": 100, "dee": 100}
    assert nets(session) == {"ann": 0, "ben": 0, "cal": 0, "dee": 0}
    assert postings.kitty_balance(session) == 0


def test_chip_limited_penalty_shortfall_is_recorded_and_eliminates(start, players, alice):
    chips = {players[0].pk: 10, players[1].pk: 3, players[2].pk: 10, players[3].pk: 10}
    session = start(tournament_chips=chips)
    hand = record(session, tricks={"ann": 3, "ben": 0, "cal": 2, "dee": 0})
    # ben: 3 chips, antes 1, owes a 4 penalty, pays the 2 left; dee pays 4 in full.
    assert hand_postings(hand)["penalty"] == {"ben": -2, "dee": -4, "pot": 6}
    assert hand.shortfalls == {"ben": 2}
    assert hand.result["next_carry"] == 8 and session.carry == 6
    seat = Seat.objects.get(session=session, player=players[1])
    assert not seat.active and seat.eliminated_at is not None
    assert stacks(session) == {"ann": 13, "ben": 0, "cal": 9, "dee": 5}
    assert state(session)["players"] == ["ann", "cal", "dee"]
    assert hand.before["eliminated"] == [players[1].pk]

    # Undo seats ben again.
    void(session, hand)
    seat.refresh_from_db()
    assert seat.active and seat.eliminated_at is None
    assert stacks(session) == {"ann": 10, "ben": 3, "cal": 10, "dee": 10}


def test_chip_limited_short_ante_caps_the_pot_the_winner_takes(start, players):
    chips = {players[0].pk: 3, players[1].pk: 20, players[2].pk: 20}
    session = start(seated=players[:3], tournament_chips=chips, rules={"ante": 5})
    hand = record(session, tricks={"ann": 3, "ben": 1, "cal": 1})
    assert hand_postings(hand)["ante"] == {"ann": -3, "ben": -5, "cal": -5, "pot": 13}
    assert hand_postings(hand)["payout"] == {"ann": 13, "pot": -13}
    assert hand.shortfalls == {"ann": 2}
    # ann won the pot, so she has chips and stays in.
    assert stacks(session) == {"ann": 13, "ben": 15, "cal": 15}
    assert state(session)["players"] == ["ann", "ben", "cal"]


def test_chip_limited_player_without_chips_is_not_dealt_in_R8(start, players, alice):
    chips = {p.pk: 10 for p in players}
    session = start(tournament_chips=chips, dealer=players[3])  # ann deals next
    postings.cash_out(session_id=session.pk, player_id=players[0].pk, amount=10, user=alice)
    s = state(session)
    assert s["players"] == ["ben", "cal", "dee"] and s["dealer"] == "dee"
    hand = record(session, tricks={"ben": 3, "cal": 1, "dee": 1})
    assert "ann" not in hand_postings(hand)["ante"]
    assert state(session)["dealer"] == "ben"


def test_a_tournament_table_may_be_emptied_by_seat_moves(start, players, alice):
    session = start(seated=players[:2], tournament_chips={players[0].pk: 5, players[1].pk: 5})
    postings.set_seat_active(
        session_id=session.pk, player_id=players[0].pk, active=False, user=alice
    )
    assert state(session)["players"] == ["ben"]
    postings.check_invariants(session)


def test_award_pot_pays_the_last_player_at_a_tournament_table(start, players, alice):
    chips = {players[0].pk: 10, players[1].pk: 10, players[2].pk: 10}
    session = start(seated=players[:3], tournament_chips=chips)
    record(session, tricks={"ann": 2, "ben": 2, "cal": 1})  # split: 3 carries (R34)
    assert session.carry == 3
    posting = postings.award_pot(session_id=session.pk, player_id=players[0].pk, user=alice)
    postings.check_invariants(session)
    session.refresh_from_db()
    assert legs_of(posting) == {"ann": 3, "pot": -3}
    assert session.carry == 0 and postings.pot_balance(session) == 0
    assert stacks(session) == {"ann": 12, "ben": 9, "cal": 9}
    assert postings.award_pot(session_id=session.pk, player_id=players[0].pk, user=alice) is None


def test_award_pot_refused_at_a_cash_table(start, players, alice):
    session = start(seated=players[:3])
    record(session, tricks={"ann": 2, "ben": 2, "cal": 1})
    with pytest.raises(postings.SetupError) as info:
        postings.award_pot(session_id=session.pk, player_id=players[0].pk, user=alice)
    assert info.value.code == "not_chip_limited"
    postings.check_invariants(session)


def test_closing_a_tournament_table_returns_a_dead_pot_to_the_bank_not_the_kitty(
    start, players, alice
):
    chips = {players[0].pk: 10, players[1].pk: 10, players[2].pk: 10}
    session = start(seated=players[:3], tournament_chips=chips)
    record(session, tricks={"ann": 2, "ben": 2, "cal": 1})
    postings.close_session(session_id=session.pk, user=alice, leftover_policy="carry_to_club")
    postings.check_invariants(session)
    closing = session.postings.order_by("-id").first()
    assert legs_of(closing) == {"pot": -3, "bank": 3}
    # The next cash game does not pull tournament chips in as money.
    cash = start(seated=players[:3], name="Cash game")
    assert cash.carry == 0
    assert not cash.postings.filter(kind="carry_in").exists()


# -- reading ------------------------------------------------------------------------------------------


def test_balances_and_pot_are_one_query_each(start, django_assert_num_queries):
    session = start()
    for _ in range(3):
        record(session, tricks={"ann": 1, "ben": 3, "cal": 1, "dee": 0})
    with django_assert_num_queries(1):
        balances = postings.session_balances(session)
    with django_assert_num_queries(1):
        postings.player_stacks(session)
    with django_assert_num_queries(1):
        pot = postings.pot_balance(session)
    with django_assert_num_queries(1):
        kitty = postings.kitty_balance(session)
    assert sum(balances.values()) + pot + kitty == 0


def _record_queries(session, django_assert_num_queries, n: int, players: list[str]) -> None:
    tricks = dict.fromkeys(players, 0)
    tricks[players[0]] = 3
    tricks[players[1]] = 2
    with django_assert_num_queries(n):
        postings.record_hand(
            session_id=session.pk,
            entry={"trump": "H", "tricks": tricks},
            idempotency_key=f"q{session.hands_count}",
            expected_version=None,
            user=None,
        )
    session.refresh_from_db()


# SAVEPOINT + lock + seats and hand lookup + the club's webhook endpoints + insert hand +
# insert postings + insert legs + the club totals' upsert + update session + RELEASE
# SAVEPOINT (the test runs inside a transaction). On PostgreSQL the hand, postings, legs,
# totals and session row are one statement (ledger.sql.write_hand). (5 and 9 before
# issue #31, whose lock no longer reads the club's webhook flag along.)
RECORD_QUERIES = 6 if connection.vendor == "postgresql" else 10


@pytest.mark.parametrize("chip_limited", [False, True], ids=["cash", "chip-limited"])
def test_record_hand_uses_a_flat_number_of_queries(
    start, club, players, django_assert_num_queries, chip_limited
):
    extra = [PlayerFactory(club=club) for _ in range(4)]

    def chips(seated):
        return {"tournament_chips": {p.pk: 10**6 for p in seated}} if chip_limited else {}

    small = start(seated=players, **chips(players))
    big = start(seated=players + extra, name="Big", **chips(players + extra))
    small_names = [p.name for p in players]
    big_names = [p.name for p in players + extra]
    # A chip-limited table asks once whether it is a tournament table that must break or
    # take a player before it deals (postings.on_table_deal, RULES.md T1–T2).
    queries = RECORD_QUERIES + (1 if chip_limited else 0)
    _record_queries(small, django_assert_num_queries, queries, small_names)
    for i in range(30):
        postings.record_hand(
            session_id=small.pk,
            entry={"trump": "S", "tricks": {"ann": 3, "ben": 1, "cal": 1, "dee": 0}},
            idempotency_key=f"many{i}",
            expected_version=None,
            user=None,
        )
    small.refresh_from_db()
    _record_queries(small, django_assert_num_queries, queries, small_names)
    _record_queries(big, django_assert_num_queries, queries, big_names)
    postings.check_invariants(small)
    postings.check_invariants(big)


def test_mark_transfer_paid(start, players, alice):
    session = start()
    ann, ben = players[:2]
    mark = postings.mark_transfer_paid(
        session_id=session.pk, payer_id=ben.pk, payee_id=ann.pk, amount=14, paid=True, user=alice
    )
    assert (mark.amount, mark.paid_by) == (14, alice)
    again = postings.mark_transfer_paid(
        session_id=session.pk, payer_id=ben.pk, payee_id=ann.pk, amount=15, paid=True, user=alice
    )
    assert again.pk == mark.pk and again.amount == 15
    postings.mark_transfer_paid(
        session_id=session.pk, payer_id=ben.pk, payee_id=ann.pk, amount=15, paid=False, user=alice
    )
    assert not session.settlement_marks.exists()


def test_check_invariants_catches_a_pot_out_of_step(start):
    """The checker itself can fail: a session whose carry disagrees with its pot."""
    session = start()
    record(session, tricks={"ann": 2, "ben": 2, "cal": 1, "dee": 0})
    GameSession.objects.filter(pk=session.pk).update(carry=7)
    with pytest.raises(AssertionError, match="pot holds 8"):
        postings.check_invariants(session)


def test_events_record_who_did_what(start, players, alice, bob):
    session = start()
    postings.change_rules(session_id=session.pk, rules={"ante": 3}, user=bob)
    assert SessionEvent.objects.get(kind="rules_changed").created_by == bob


def test_a_reported_hand_is_refused_while_a_digital_hand_is_in_progress(start, alice):
    from games.digital import service as digital

    session = start()
    table = digital.start_hand(session_id=session.pk, user=alice)
    session.refresh_from_db()
    before = ledger_size()
    with pytest.raises(postings.HandRejected) as info:
        postings.record_hand(
            session_id=session.pk,
            entry={"trump": "H", "tricks": {"ann": 3, "ben": 1, "cal": 1, "dee": 0}},
            idempotency_key="reported-1",
            expected_version=None,
            user=alice,
        )
    assert info.value.errors[0]["code"] == "digital_hand_in_progress"
    assert ledger_size() == before
    # Once the digital hand is cancelled the table records again.
    digital.cancel_hand(session_id=session.pk, user=alice)
    record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    assert session.hands.get(pk=table.hand.pk).status == "voided"
    assert session.hands.filter(status="recorded").count() == 1


def test_R16_table_adds_a_forfeit_for_a_declaration_out_of_turn(start, players):
    session = start(dealer=players[3])  # dee deals; ann would deal next
    # ann declared out of turn at this hand: the table adds her forfeit (R16)
    record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0}, forfeits=["ann"])
    s = state(session)
    assert s["dealer"] == "ben" and s["forfeits"] == []  # skipped once, so cleared
    # dee's call comes when dee's deal is not next: it stays pending until skipped (R8)
    record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0}, forfeits=["dee"])
    assert state(session)["forfeits"] == ["dee"]


def test_R16_a_table_cannot_remove_a_pending_forfeit(start, players):
    session = start(dealer=players[3])
    record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0}, forfeits=["cal"])
    assert state(session)["forfeits"] == ["cal"]
    version = session.version
    with pytest.raises(postings.HandRejected) as caught:
        record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0}, forfeits=["ben"])
    assert caught.value.errors[0]["code"] == "forfeit_removed"
    assert "cal still owes a forfeited deal" in caught.value.errors[0]["message"]
    session.refresh_from_db()
    assert session.version == version and state(session)["forfeits"] == ["cal"]
    # repeating the pending one and adding another is fine
    record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0}, forfeits=["cal", "ben"])
    assert state(session)["dealer"] == "dee"  # after ann: ben, cal skipped (R8)
    assert state(session)["forfeits"] == []


def test_R16_every_seated_player_owing_a_forfeit_cancels_out(start, players):
    session = start(dealer=players[3])
    everyone = ["ann", "ben", "cal", "dee"]
    record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0}, forfeits=everyone)
    s = state(session)
    assert s["dealer"] == "ann" and s["forfeits"] == []  # the deal passes as usual
