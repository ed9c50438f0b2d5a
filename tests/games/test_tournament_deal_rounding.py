"""Chip chop rounding (games.engine.tournament_payouts.chip_chop, games.tournaments.deals):
whole minor units that add up exactly to what the places pay, the units left over by
largest remainder (ties: the bigger stack, then the lower seat), and the shares shown
on the deal card before the director records the deal — against the real prize ledger."""

import random
from fractions import Fraction

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from games.engine import tournament_payouts as pay
from games.models import Entry, Tournament
from games.money import CURRENCIES, format_money
from games.tournaments import deals
from games.tournaments import service as svc
from ledger import books
from ledger.models import PrizePosting

from .test_tournament_service import check_books, make_tournament, play_bot_hand, table


def largest_remainder(total: int, floor: int, chips: dict, seats: dict) -> dict:
    """The rule written out with exact fractions, independently of the engine."""
    extra = total - floor * len(chips)
    exact = {p: Fraction(extra * c, sum(chips.values())) for p, c in chips.items()}
    out = {p: floor + int(x) for p, x in exact.items()}
    order = sorted(chips, key=lambda p: (-(exact[p] - int(exact[p])), -chips[p], seats[p]))
    for p in order[: total - sum(out.values())]:
        out[p] += 1
    return out


def test_the_unit_left_over_goes_to_the_largest_remainder_not_the_biggest_stack():
    # 7 units by chips 6:3:1 are exactly 4.2, 2.1 and 0.7: the one unit left after
    # rounding down belongs to the short stack (0.7), not the chip leader (0.2).
    assert pay.chip_chop(3007, 1000, {1: 6, 2: 3, 3: 1}) == {1: 1004, 2: 1002, 3: 1001}


def test_equal_remainders_go_to_the_bigger_stack_then_the_lower_seat():
    # 2 units by chips 1:3 are 0.5 and 1.5: equal remainders, the bigger stack wins,
    # even from the higher seat.
    assert pay.chip_chop(2, 0, {1: 1, 2: 3}, {1: 1, 2: 6}) == {1: 0, 2: 2}
    # Three equal stacks, 1000 units: 333 each and the one left to the lowest seat.
    shares = pay.chip_chop(1000, 0, {7: 5, 8: 5, 9: 5}, {7: 3, 8: 1, 9: 2})
    assert shares == {7: 333, 8: 334, 9: 333}
    # Two left over among three equal stacks: seats 1 and 2.
    shares = pay.chip_chop(3302, 100, {7: 9, 8: 9, 9: 9}, {7: 3, 8: 1, 9: 2})
    assert shares == {7: 1100, 8: 1101, 9: 1101}


@given(
    chips=st.lists(st.integers(1, 10_000), min_size=1, max_size=9),
    floor=st.integers(0, 5_000),
    extra=st.integers(0, 1_000_000),
    seed=st.integers(0, 1_000),
)
def test_chip_chop_shares_add_up_and_follow_the_stated_rule(chips, floor, extra, seed):
    players = list(range(1, len(chips) + 1))
    seats = dict(zip(players, random.Random(seed).sample(range(1, 10), len(players)), strict=True))
    stacks = dict(zip(players, chips, strict=True))
    total = floor * len(players) + extra
    shares = pay.chip_chop(total, floor, stacks, seats)
    assert sum(shares.values()) == total and all(type(x) is int for x in shares.values())
    assert shares == largest_remainder(total, floor, stacks, seats)
    # Never less for more chips.
    for a in players:
        for b in players:
            if stacks[a] > stacks[b]:
                assert shares[a] >= shares[b]


@pytest.fixture
def three_left(club, alice):
    """Three players at the final table of a $10.01 freeze-out paying 50/30/20 to the
    cent: $30.03 to share, stacks made unequal by a few hands."""
    club.currency = CURRENCIES["USD"]
    club.save()
    t = make_tournament(
        club,
        alice,
        n=3,
        format="freezeout",
        buy_in=1001,
        starting_chips=40,
        payout_percentages=[50, 30, 20],
        payout_unit=1,
    )
    svc.start(tournament_id=t.pk, user=alice)
    rng = random.Random(5)
    for _ in range(60):
        play_bot_hand(table(t, 1), rng, alice)
        t.refresh_from_db()
        chips = deals.deal_terms(t)["chips"] if _between_hands(t) else {}
        if len(chips) == 3 and len(set(chips.values())) == 3:
            break
    assert len(set(deals.deal_terms(t)["chips"].values())) == 3
    check_books(t)
    return t


def _between_hands(t: Tournament) -> bool:
    x = table(t, 1)
    return x.session.carry == 0


@pytest.mark.django_db
def test_a_chip_chop_pays_exactly_the_shares_shown_before_it_is_recorded(
    three_left, alice, alice_client
):
    t = three_left
    terms = deals.deal_terms(t)
    assert terms["total"] == 3003 and terms["floor"] == 600  # 1502/901/600 to the cent
    expected = largest_remainder(terms["total"], terms["floor"], terms["chips"], terms["seats"])
    # The deal card shows each player's chip chop share and the rule, before anything moves.
    page = alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()
    for amount in expected.values():
        assert format_money(amount, t.currency) in page
    assert "the units left over go one each to the players whose share lost the most" in page
    assert not PrizePosting.objects.filter(tournament=t, kind="deal").exists()

    t = deals.make_deal(tournament_id=t.pk, kind="chips", agreed=list(terms["chips"]), user=alice)
    check_books(t)
    paid = {p: x for p, x in t.deal["amounts"].items()}
    assert {int(p): x for p, x in paid.items()} == expected
    assert sum(paid.values()) == 3003
    legs = {
        posting.player_id: sum(leg.amount for leg in posting.legs.all() if leg.amount > 0)
        for posting in PrizePosting.objects.filter(tournament=t, kind="deal").prefetch_related(
            "legs"
        )
    }
    assert legs == expected
    assert books.prize_balances(t)["pool"] == 0
    prizes = dict(Entry.objects.filter(tournament=t).values_list("player_id", "prize"))
    assert prizes == expected


@pytest.mark.django_db
def test_the_api_proposes_the_same_shares(three_left, alice_client):
    t = three_left
    terms = deals.deal_terms(t)
    expected = largest_remainder(terms["total"], terms["floor"], terms["chips"], terms["seats"])
    body = alice_client.get(reverse("api_tournament_deal", args=[t.pk])).json()
    assert {int(p): x for p, x in body["chips_chop"].items()} == expected
    assert sum(body["even"].values()) == terms["total"]
