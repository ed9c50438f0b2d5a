"""Amounts that cannot wedge a session (issue 17, item 3).

The bounds live in ``games.engine.rules`` (MAX_STAKE for antes and pot limits, MAX_POT
for a pot, MAX_BALANCE for a running total, on the stored integer). The properties: any
hand the verifier accepts leaves a next pot the verifier accepts as a carry (so the next
hand can always be checked) and every amount fits a 64-bit column; a hand that would pass
the cap is refused with a message naming the pot and the way on (a pot limit, R37).
"""

import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import MAX_POT, MAX_STAKE, Rules, verify, worst_next_carry
from games.engine.errors import BourreError
from games.models import GameSession
from ledger import postings
from ledger.invariants import check_invariants
from ledger.models import Leg
from tests.factories import PlayerFactory

INT64 = 2**63 - 1
NAMES = ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"]


@st.composite
def hands(draw):
    n = draw(st.integers(2, 8))
    players = NAMES[:n]
    rules = {
        "ante": draw(st.sampled_from([1, 7, MAX_STAKE // 3, MAX_STAKE])),
        "pot_limit": draw(st.sampled_from([None, 1, MAX_STAKE // 2, MAX_STAKE])),
        "double_ante": draw(st.booleans()),
        "dealer_antes_for_all": draw(st.booleans()),
        "split_pot": draw(st.sampled_from(["carry", "divide"])),
    }
    carry = draw(st.sampled_from([0, 1, MAX_POT // 8, MAX_POT // 2, MAX_POT - 1, MAX_POT]))
    passed = [p for p in players[1:] if draw(st.booleans())]
    active = [p for p in players if p not in passed]
    tricks = dict.fromkeys(active, 0)
    for _ in range(5):
        tricks[draw(st.sampled_from(active))] += 1
    reneges = [{"player": p, "corrected": False} for p in active if draw(st.booleans())][:2]
    record = {
        "players": players,
        "dealer": players[-1],
        "carry": carry,
        "trump": "H",
        "passed": passed,
        "tricks": tricks if len(active) > 1 else {},
        "reneges": reneges if len(active) > 1 else [],
        "rules": rules,
    }
    return record


@settings(max_examples=300, deadline=None)
@given(hands())
def test_an_accepted_hand_leaves_a_pot_the_next_hand_accepts(record):
    verdict = verify(record)
    if not verdict["valid"]:
        codes = {e["code"] for e in verdict["errors"]}
        if "pot_over_cap" in codes:
            (error,) = verdict["errors"]
            assert "pot limit" in error["message"] and str(MAX_POT) in error["message"]
        return
    result = verdict["result"]
    assert result["next_carry"] <= MAX_POT
    amounts = [result["pot"], result["next_carry"], *result["antes"].values()]
    amounts += [*result["payouts"].values(), *result["penalties"].values()]
    assert all(0 <= a <= INT64 for a in amounts)
    # The next hand can always be checked: its carry is never a bad_carry.
    follow = {**record, "carry": result["next_carry"], "reneges": [], "passed": []}
    follow["tricks"] = {record["players"][0]: 5}
    codes = {e["code"] for e in verify(follow).get("errors", [])}
    assert "bad_carry" not in codes


@settings(max_examples=200, deadline=None)
@given(hands())
def test_the_worst_case_bounds_every_accepted_hand(record):
    verdict = verify({**record, "carry": min(record["carry"], MAX_POT // 100)})
    if verdict["valid"]:
        rules = Rules.from_dict(record["rules"])
        worst = worst_next_carry(
            min(record["carry"], MAX_POT // 100), rules, len(record["players"])
        )
        assert verdict["result"]["next_carry"] <= worst


def _high_stakes(club, bob, players, **extra):
    """A session at the largest ante, no pot limit; the last player deals first."""
    return postings.start_session(
        club=club,
        name="High stakes",
        players=players,
        dealer=players[-1],
        rules={"ante": MAX_STAKE},
        currency=club.currency,
        user=bob,
        **extra,
    )


def _all_bourre(session, names, winner, user):
    """One hand where ``winner`` takes every trick and everybody else is bourré (R36)."""
    entry = {"trump": "S", "tricks": {p: (5 if p == winner else 0) for p in names}}
    postings.record_hand(
        session_id=session.pk,
        entry=entry,
        idempotency_key=uuid.uuid4().hex,
        expected_version=None,
        user=user,
    )
    return entry


@pytest.mark.django_db
def test_a_thousand_all_bourre_hands_at_the_largest_ante_never_wedge(club, bob):
    players = [PlayerFactory(club=club, name=name) for name in NAMES]
    session = _high_stakes(club, bob, players)
    recorded = refused = 0
    for i in range(1000):
        try:
            _all_bourre(session, NAMES, NAMES[i % 8], bob)
            recorded += 1
        except postings.HandRejected as rejected:
            # A clear refusal that names the pot and the way on, never a bare bad_carry.
            (error,) = rejected.errors
            assert error["code"] == "pot_over_cap", error
            assert "next pot to " in error["message"] and "pot limit" in error["message"]
            refused += 1
            assert refused == 1, "the table set a pot limit: it must not be refused again"
            postings.change_rules(
                session_id=session.pk, rules={"ante": MAX_STAKE, "pot_limit": MAX_STAKE}, user=bob
            )
        if i % 100 == 0:
            session.refresh_from_db()
            check_invariants(session)
    session.refresh_from_db()
    check_invariants(session)
    assert refused == 1 and recorded == 999
    assert session.carry <= MAX_POT
    assert max(abs(x) for x in session.nets.values()) <= INT64
    assert (
        max(abs(a) for a in Leg.objects.values_list("amount", flat=True))
        <= MAX_POT + 16 * MAX_STAKE
    )


@pytest.mark.django_db
def test_ante_and_pot_limit_beyond_the_bounds_are_refused_clearly(club, bob, players):
    for rules in ({"ante": MAX_STAKE + 1}, {"pot_limit": MAX_STAKE + 1}):
        with pytest.raises(BourreError) as refused:
            postings.start_session(
                club=club,
                name="x",
                players=players,
                dealer=players[0],
                rules=rules,
                currency=club.currency,
                user=bob,
            )
        assert f"at most {MAX_STAKE}" in str(refused.value)


@pytest.mark.django_db
def test_a_digital_deal_that_could_pass_the_cap_asks_for_a_pot_limit(club, bob, players):
    from games.digital.service import DigitalError, start_hand

    session = _high_stakes(club, bob, players, mode="digital")
    names = [p.name for p in players]
    for winner in names:  # all bourré: the pot triples and more each hand
        _all_bourre(session, names, winner, bob)
    with pytest.raises(DigitalError) as refused:
        start_hand(session_id=session.pk, user=bob)
    assert refused.value.code == "pot_over_cap" and "pot limit" in str(refused.value)
    postings.change_rules(
        session_id=session.pk, rules={"ante": MAX_STAKE, "pot_limit": MAX_STAKE}, user=bob
    )
    assert start_hand(session_id=session.pk, user=bob).hand.pk


def _near_the_cap(club, bob, players):
    session = _high_stakes(club, bob, players)
    names = [p.name for p in players]
    for i in range(100):  # all-bourré hands until the next one is refused
        try:
            _all_bourre(session, names, names[i % len(names)], bob)
        except postings.HandRejected:
            session.refresh_from_db()
            winner = names[i % len(names)]
            return session, {"trump": "S", "tricks": {p: (5 if p == winner else 0) for p in names}}
    raise AssertionError("the pot never reached the cap")


@pytest.mark.django_db
def test_the_refusal_on_the_record_page_and_the_api_is_a_clear_4xx(club, bob, bob_client, players):
    from tests.api.conftest import token_client
    from tests.games.test_session_views import hand_data

    session, entry = _near_the_cap(club, bob, players)
    url = f"/sessions/{session.pk}/record/"
    response = bob_client.post(url, hand_data(session, trump="S", tricks=entry["tricks"]))
    assert response.status_code == 422  # the form again, with the reason
    page = response.content.decode()
    assert "largest pot these books keep" in page and "pot limit" in page
    assert session.hands_count == GameSession.objects.get(pk=session.pk).hands_count

    api = token_client(bob)
    response = api.post(
        f"/api/v1/sessions/{session.pk}/hands/", entry, content_type="application/json"
    )
    assert response.status_code == 400, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    errors = response.json()["errors"]
    assert errors[0]["code"] == "pot_over_cap" and "next pot to" in errors[0]["message"]
