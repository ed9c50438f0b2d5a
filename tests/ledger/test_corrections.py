"""Correcting any earlier hand (issue 14): ``postings.correct_hand``.

The property: in a random 30-hand evening, correcting a random earlier hand gives the
same books and the same table (nets, carry, excused, dealer, forfeits) as recording the
corrected sequence from scratch in a second session; when the corrected chain makes a
later hand impossible, recording from scratch fails at that same hand. The books are
checked after every step.
"""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import Hand, SessionEvent
from ledger import postings
from ledger.models import Posting
from ledger.postings.corrections import table_part
from tests.factories import PlayerFactory

from .conftest import nets, new_key, playout, record
from .test_property import summary_entry

HANDS = 30


def random_entry(state: dict, rng: random.Random) -> dict:
    """A summary record, now and then a full card log (which a changed dealer breaks)."""
    if rng.random() < 0.1:
        full = playout(state, rng)
        return table_part(full)
    return summary_entry(state, rng)


def table(session) -> dict:
    """What the next hand starts from, by name (comparable between sessions)."""
    session.refresh_from_db()
    state = postings.session_state(session)
    return {k: state[k] for k in ("players", "dealer", "carry", "excused", "forfeits")}


def replay_from_scratch(start, seated, rules, entries, toggles) -> tuple[object, int | None]:
    """Record ``entries`` in a new session; (session, number of the first hand refused)."""
    session = start(seated=seated, dealer=seated[0], rules=rules, name="From scratch")
    for n, entry in enumerate(entries, start=1):
        if n in toggles:
            postings.set_seat_active(
                session_id=session.pk, player_id=toggles[n], active=False, user=None
            )
        try:
            postings.record_hand(
                session_id=session.pk,
                entry=entry,
                idempotency_key=new_key(),
                expected_version=None,
                user=None,
            )
        except postings.HandRejected:
            return session, n
        postings.check_invariants(session)
    return session, None


@pytest.fixture
def six(club, players):
    return [*players, PlayerFactory(club=club, name="eve"), PlayerFactory(club=club, name="fay")]


@pytest.mark.django_db
@settings(
    max_examples=5,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**32), ante=st.integers(1, 5))
def test_correcting_a_hand_equals_recording_the_corrected_evening(start, six, alice, seed, ante):
    rng = random.Random(seed)
    seated = six[: rng.choice([3, 4, 5, 6])]
    session = start(seated=seated, dealer=seated[0], rules={"ante": ante})
    # Now and then a player leaves mid-evening (the chain then has two seatings).
    toggles = {}
    if len(seated) > 3 and rng.random() < 0.5:
        toggles[rng.randint(2, HANDS)] = rng.choice(seated).pk
    entries = []
    for n in range(1, HANDS + 1):
        if n in toggles:
            postings.set_seat_active(
                session_id=session.pk, player_id=toggles[n], active=False, user=alice
            )
            postings.check_invariants(session)
        entry = random_entry(postings.session_state(session), rng)
        entries.append(entry)
        record(session, **entry)

    number = rng.randint(1, HANDS - 1)
    hand = session.hands.get(number=number)
    then = hand.record
    new = summary_entry({k: then[k] for k in ("players", "dealer", "rules")}, rng)
    corrected = [*entries[: number - 1], new, *entries[number:]]
    scratch, refused_at = replay_from_scratch(start, seated, {"ante": ante}, corrected, toggles)

    version = session.version
    try:
        result = postings.correct_hand(
            session_id=session.pk, number=number, entry=new, user=alice, expected_version=version
        )
    except postings.ChainBroken as broken:
        assert broken.number == refused_at
        session.refresh_from_db()
        assert session.version == version  # nothing was written
        postings.check_invariants(session)
        return
    postings.check_invariants(session)
    assert refused_at is None
    assert nets(session) == nets(scratch)
    assert table(session) == table(scratch)
    assert result.nets_after == nets(session)
    live = list(session.hands.filter(status=Hand.Status.RECORDED).order_by("number"))
    assert [h.number for h in live] == list(range(1, HANDS + 1))  # numbers are kept
    fresh = list(scratch.hands.order_by("number"))
    assert [h.result for h in live] == [h.result for h in fresh]


def test_a_corrected_hand_keeps_its_number_and_history(start, players, alice):
    session = start(rules={"ante": 1})
    ann, ben, cal, dee = (p.name for p in players)
    record(session, tricks={ann: 3, ben: 2, cal: 0, dee: 0})  # cal and dee bourré
    record(session, tricks={ann: 1, ben: 4, cal: 0, dee: 0})
    third = record(session, tricks={ann: 5, ben: 0, cal: 0, dee: 0})
    before = nets(session)
    postings_before = Posting.objects.count()

    preview = postings.correct_hand(
        session_id=session.pk,
        number=1,
        entry={"trump": "H", "passed": [cal, dee], "tricks": {ann: 3, ben: 2}},
        user=alice,
        apply=False,
    )
    assert not preview.applied and Posting.objects.count() == postings_before
    postings.check_invariants(session)

    done = postings.correct_hand(
        session_id=session.pk,
        number=1,
        entry={"trump": "H", "passed": [cal, dee], "tricks": {ann: 3, ben: 2}},
        user=alice,
        reason="cal and dee passed",
    )
    postings.check_invariants(session)
    assert done.applied and done.changes == preview.changes
    after = nets(session)
    assert {p: after[p] - before[p] for p in after} == done.changes
    # No bourrés in hand 1 any more: cal and dee each paid 4 less into the next pots.
    assert done.changes[cal] > 0 and done.changes[dee] > 0
    hands = {h.number: h for h in session.hands.all()}
    assert sorted(hands) == [1, 2, 3] and session.hands_count == 3
    first = hands[1]
    assert first.corrected and first.corrections[0]["reason"] == "cal and dee passed"
    assert first.corrections[0]["record"]["tricks"][cal] == 0
    assert first.record["passed"] == [cal, dee]
    # The later pots changed with the carry; hand 3 re-settled, its id kept.
    assert hands[3].pk == third.pk and hands[3].corrected
    assert "re-settled after hand 1" in hands[3].corrections[0]["reason"]
    # The ledger keeps both versions: the old postings, their reversals, the new ones.
    first_postings = Posting.objects.filter(hand=first)
    assert first_postings.filter(kind=Posting.Kind.REVERSAL).count() == 3
    assert first_postings.filter(reversed_by__isnull=True).exclude(kind="reversal").count() == 2
    assert SessionEvent.objects.filter(session=session, kind="hand_corrected").exists()


def test_a_later_hand_broken_by_the_new_dealer_is_named_and_fixed(start, players, alice, rng):
    session = start(rules={"ante": 1})
    ann, ben, cal, dee = (p.name for p in players)
    record(session, tricks={ann: 3, ben: 2, cal: 0, dee: 0})
    state = postings.session_state(session)
    log = playout(state, rng, pass_rate=0.0)
    second = record(session, **table_part(log))
    # A corrected renege in hand 1 costs ann her deal (R39), so hand 2 has another
    # dealer and its card log's first lead is now out of turn.
    fix = {"trump": "H", "tricks": {ann: 3, ben: 2, cal: 0, dee: 0},
           "reneges": [{"player": ann, "corrected": True}]}  # fmt: skip
    version = session.version
    with pytest.raises(postings.ChainBroken) as broken:
        postings.correct_hand(session_id=session.pk, number=1, entry=fix, user=alice)
    assert broken.value.number == 2
    session.refresh_from_db()
    assert session.version == version
    postings.check_invariants(session)

    tricks = dict(second.verdict["tricks"])
    done = postings.correct_hand(
        session_id=session.pk,
        number=1,
        entry=fix,
        fixes={2: {"trump": "S", "tricks": tricks}},
        user=alice,
    )
    postings.check_invariants(session)
    assert [c.number for c in done.hands] == [1, 2]
    assert all(c.corrected for c in done.hands)
    second.refresh_from_db()
    assert second.number == 2 and second.record["tricks"] == tricks


def test_refusals(start, players, alice):
    session = start()
    ann, ben, *_ = (p.name for p in players)
    hand = record(session, tricks={ann: 5, ben: 0}, passed=[p.name for p in players[2:]])
    with pytest.raises(postings.CorrectionRefused):
        postings.correct_hand(session_id=session.pk, number=2, entry={}, user=alice)
    with pytest.raises(postings.StaleState):
        postings.correct_hand(
            session_id=session.pk, number=1, entry={}, user=alice, expected_version=1
        )
    postings.void_hand(session_id=session.pk, hand_id=hand.pk, user=alice)
    with pytest.raises(postings.CorrectionRefused):
        postings.correct_hand(session_id=session.pk, number=1, entry={}, user=alice)
    postings.check_invariants(session)


@pytest.fixture
def rng():
    return random.Random(14)
