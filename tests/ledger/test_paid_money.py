"""A chip-limited hand's money as it really moved, read back from the verdict and the
shortfalls the ledger kept (``paid_money``), agrees with the ledger's own computation
from the stacks (``_money``) on random hands and random short stacks (R14 bourré,
R39 renege penalties, capped by the chips a player has)."""

from __future__ import annotations

import random

import pytest

from games.engine import Rules, settle
from ledger.postings.hands import _money, paid_money

NAMES = ["A", "B", "C", "D", "E"]


def _random_hand(rng: random.Random) -> tuple[dict, int]:
    players = NAMES[: rng.randint(2, 5)]
    carry = rng.choice([0, 0, 3, 7, 20])
    playing = [p for p in players if rng.random() < 0.8] or players[:1]
    tricks = dict.fromkeys(playing, 0)
    for _ in range(5):
        tricks[rng.choice(playing)] += 1
    passed = [p for p in players if p not in playing]
    reneges = [(p, rng.random() < 0.3) for p in playing if rng.random() < 0.15]
    rules = Rules(ante=rng.choice([1, 2, 5]))
    result = settle(
        players, players[-1], rules, tricks=tricks, passed=passed, carry=carry, reneges=reneges
    )
    return result, carry


@pytest.mark.parametrize("seed", range(40))
def test_R14_R39_paid_money_from_shortfalls_is_what_the_stacks_allowed(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(50):
        result, carry = _random_hand(rng)
        players = set(result["antes"]) | set(result["payouts"]) | set(result["penalties"])
        stacks = {p: rng.choice([0, 1, 2, 3, 5, 8, 40]) for p in players}
        moved = _money(result, carry, stacks)
        assert paid_money(result, carry, moved.shortfalls) == moved, (result, stacks)


def test_R14_a_short_bourre_pays_what_is_left_and_the_next_pot_says_so() -> None:
    # B has 3 chips: antes 1, then owes a 4-chip bourré and pays the 2 left.
    result = settle(["A", "B", "C", "D"], "D", Rules(), tricks={"A": 3, "C": 2})
    moved = paid_money(result, 0, {"B": 2})
    assert result["penalties"] == {"B": 4, "D": 4} and result["next_carry"] == 8
    assert moved.penalties == {"B": 2, "D": 4} and moved.next_carry == 6


@pytest.mark.django_db
def test_R14_a_tournament_hand_page_says_what_a_short_stack_really_paid(
    start, players, alice, client
):
    from django.urls import reverse

    from ledger import postings

    from .conftest import record

    chips = {players[0].pk: 10, players[1].pk: 3, players[2].pk: 10, players[3].pk: 10}
    session = start(tournament_chips=chips)
    hand = record(session, tricks={"ann": 3, "ben": 0, "cal": 2, "dee": 0})
    postings.check_invariants(session)
    assert hand.result["penalties"] == {"ben": 4, "dee": 4}  # asked; ben had 2 left
    client.force_login(alice)
    response = client.get(reverse("hand_detail", args=[hand.pk]))
    html = response.content.decode()
    assert "<strong>ben</strong> pays $2 (all they had); <strong>dee</strong> pays $4 into" in html
    next_pot = html.split("Next pot</dt><dd")[1].split("</dd>")[0]
    assert ">$6" in next_pot and "8" not in next_pot
    session.refresh_from_db()
    assert session.carry == 6


def test_R14_a_bourre_with_no_chips_left_after_the_ante_says_so(start, players, alice, client):
    """The ante took ben's last chip: his bourré pays nothing, and the page says that in
    words (it read "ben pays $0 (all they had)")."""
    from django.urls import reverse

    from ledger import postings

    from .conftest import record

    chips = {players[0].pk: 10, players[1].pk: 1, players[2].pk: 10, players[3].pk: 10}
    session = start(tournament_chips=chips)
    hand = record(session, tricks={"ann": 3, "ben": 0, "cal": 2, "dee": 0})
    postings.check_invariants(session)
    client.force_login(alice)
    html = client.get(reverse("hand_detail", args=[hand.pk])).content.decode()
    assert "<strong>ben</strong> had no chips left to pay; <strong>dee</strong> pays $4" in html
    assert "pays $0" not in html
