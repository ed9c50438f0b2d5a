"""Property test: 500 random hands through record_hand (two evenings of 250), the books
checked after every step.

Hypothesis picks the house rules, whether the table is chip-limited and a seed; the seed
drives a random evening: summary records with random legal passes, trick counts, bourrés,
splits and reneges (corrected or not), now and then a full card log played by the
engine with random legal moves, and mixed in: voids of the latest hand, players leaving
and coming back, and rule changes. After every step `check_invariants` runs, and the
players' nets are compared with a model kept from the verdicts alone.
"""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import Hand, Seat
from ledger import postings

from .conftest import playout

HANDS = 250  # per example; max_examples=2 makes 500

RULES = st.fixed_dictionaries(
    {},
    optional={
        "ante": st.integers(1, 25),
        "hand_size": st.sampled_from([5, 4]),
        "pot_limit": st.integers(1, 60),
        "limit_caps_winner": st.booleans(),
        "double_ante": st.booleans(),
        "dealer_antes_for_all": st.booleans(),
        "split_pot": st.sampled_from(["carry", "divide"]),
        "tied_excused": st.booleans(),
        "ineligible_winner": st.sampled_from(["carry", "next_best"]),
    },
)


def summary_entry(state: dict, rng: random.Random) -> dict:
    """A random legal summary record for the session's next hand."""
    players, dealer = state["players"], state["dealer"]
    hand_size = state["rules"]["hand_size"]
    passed = [p for p in players if rng.random() < 0.3]
    if len(passed) == len(players):
        passed.remove(rng.choice(players))
    active = [p for p in players if p not in passed]
    entry: dict = {"trump": rng.choice("SHDC"), "passed": passed}
    if len(active) == 1:
        return entry  # uncontested (R14)
    tricks = dict.fromkeys(active, 0)
    for _ in range(hand_size):
        tricks[rng.choice(active)] += 1
    entry["tricks"] = tricks
    if rng.random() < 0.15:
        entry["reneges"] = [{"player": rng.choice(active), "corrected": rng.random() < 0.5}]
    assert dealer in players
    return entry


def apply_model(model: dict[str, int], result: dict, sign: int) -> None:
    for p, x in result["antes"].items():
        model[p] = model.get(p, 0) - sign * x
    for p, x in result["payouts"].items():
        model[p] = model.get(p, 0) + sign * x
    for p, x in result["penalties"].items():
        model[p] = model.get(p, 0) - sign * x


@pytest.mark.slow
@pytest.mark.django_db
@settings(
    max_examples=2,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(rules=RULES, chip_limited=st.booleans(), seed=st.integers(0, 2**32))
def test_random_evenings_keep_the_books(club, players, alice, rules, chip_limited, seed):
    rng = random.Random(seed)
    session = postings.start_session(
        club=club,
        name=f"Evening {seed}",
        players=players,
        dealer=players[0],
        rules=rules,
        currency=club.currency,
        user=alice,
        tournament_chips={p.pk: 2000 for p in players} if chip_limited else None,
    )
    postings.check_invariants(session)
    name_of = {p.pk: p.name for p in players}
    model: dict[str, int] = {}
    recorded = voided = 0
    for n in range(HANDS):
        session.refresh_from_db()
        state = postings.session_state(session)
        roll = rng.random()
        if len(state["players"]) < 2:
            # A chip-limited table down to one player: rebuy someone.
            out = Seat.objects.filter(session=session, active=False).first()
            postings.buy_in(session_id=session.pk, player_id=out.player_id, amount=500, user=alice)
            postings.set_seat_active(
                session_id=session.pk, player_id=out.player_id, active=True, user=alice
            )
        elif roll < 0.08 and session.hands_count:
            latest = session.hands.filter(status=Hand.Status.RECORDED).order_by("-number")[0]
            postings.void_hand(session_id=session.pk, hand_id=latest.pk, user=alice)
            apply_model(model, latest.result, -1)
            voided += 1
        elif roll < 0.11:
            seat = rng.choice(list(Seat.objects.filter(session=session)))
            try:
                postings.set_seat_active(
                    session_id=session.pk,
                    player_id=seat.player_id,
                    active=not seat.active,
                    user=alice,
                )
            except postings.SetupError as exc:
                assert exc.code in ("too_few_players", "too_many_players")
        elif roll < 0.12:
            postings.change_rules(
                session_id=session.pk,
                rules={**state["rules"], "ante": rng.randint(1, 25)},
                user=alice,
            )
        else:
            # Now and then a full card log played by the engine, else a summary.
            entry = playout(state, rng) if rng.random() < 0.1 else summary_entry(state, rng)
            hand, created = postings.record_hand(
                session_id=session.pk,
                entry=entry,
                idempotency_key=f"h{n}",
                expected_version=state["version"],
                user=alice,
            )
            assert created and hand.record["players"] == state["players"]
            apply_model(model, hand.result, +1)
            recorded += 1
        postings.check_invariants(session)
        if not chip_limited:
            # Nets from the verdicts alone agree with the ledger.
            balances = postings.session_balances(session)
            assert {name_of[k]: v for k, v in balances.items() if v or model.get(name_of[k])} == {
                k: v for k, v in model.items() if v
            }
        else:
            stacks = postings.player_stacks(session)
            assert min(stacks.values()) >= 0
    assert recorded > HANDS // 2 and voided > 0

    postings.close_session(
        session_id=session.pk,
        user=alice,
        leftover_policy=rng.choice(["carry_to_club", "share_equally"]),
    )
    postings.check_invariants(session)
