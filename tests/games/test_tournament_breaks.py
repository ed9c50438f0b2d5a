"""Tables that break, in the database (RULES.md T1, T2; games.tournaments.tables,
ledger.postings.move_pot): a short table breaks before its next deal and the chips of its
pot arrive at the tables that receive its players; a short table that must break or wait
for a player is refused a hand with a message pointing to the instruction; an ICM deal
is paid as shown, in whole prize units."""

import json
import random

import pytest
from django.urls import reverse
from django.utils import translation

from games.digital import service as digital
from games.engine import tournament_payouts as pay
from games.engine.tournament_breaks import pot_shares
from games.messages import render as say
from games.models import GameSession, SeatMove, Tournament, TournamentTable
from games.money import CURRENCIES, format_money
from games.tournaments import deals, selectors, tables
from games.tournaments import service as svc
from ledger import books, postings
from ledger.errors import HandRejected
from ledger.models import PrizePosting
from tests.factories import seeded

from .test_tournament_api import token_client
from .test_tournament_service import (
    check_books,
    make_tournament,
    names,
    play_bot_hand,
    record,
    started_freezeout,
    table,
    win,
)

pytestmark = pytest.mark.django_db


def alive_names(x: TournamentTable) -> list[str]:
    info = tables.table_infos([x])[x.pk]
    return [r["player__name"] for r in info.seats if r["player_id"] in info.alive]


def test_t1_a_broken_tables_pot_arrives_at_the_tables_that_receive_its_players(club, alice):
    """Three tables of 5 (minimum 4, maximum 7). Two players bourré at table 3 with
    fewer chips than the pot: both are out, their penalties stay in its pot, and 3 are
    left. Table 3 breaks at once (its own hand just ended): two of its players go to one
    table and one to the other, and the pot is shared 2:1, the odd chips to the table of
    the first player in seat order — each move a balanced posting."""
    t = make_tournament(
        club, alice, n=15, format="freezeout", starting_chips=4, antes=[1],
        hands_per_level=100, min_table=4, max_table=7,
    )  # fmt: skip
    svc.start(tournament_id=seeded(t.pk, "pots"), user=alice)
    three = table(t, 3)
    before = {n: GameSession.objects.get(pk=table(t, n).session_id).carry for n in (1, 2)}
    seated = alive_names(three)
    seat_order = [names(three.session)[n] for n in seated[:3]]
    record(
        three.session,
        {
            "trump": "C",
            "passed": [seated[2]],
            "tricks": {seated[0]: 3, seated[1]: 2, seated[3]: 0, seated[4]: 0},
        },
    )
    three.refresh_from_db()
    assert three.status == TournamentTable.Status.BROKEN
    pot = three.result["pot"]
    assert pot > 0 and not three.result["pot_awarded"]
    moves = {m.player_id: m.target.number for m in SeatMove.objects.filter(source=three)}
    receivers = [moves[p] for p in seat_order]
    assert sorted(receivers.count(n) for n in (1, 2)) == [1, 2]
    expected = pot_shares(pot, receivers)
    assert sum(expected.values()) == pot
    assert three.result["pot_moved"] == {str(n): x for n, x in expected.items()}
    for n in (1, 2):
        now = GameSession.objects.get(pk=table(t, n).session_id).carry
        assert now == before[n] + expected.get(n, 0)
    # The remainder rule: the table of the first player in seat order has the odd chip.
    first, other = receivers[0], ({1, 2} - {receivers[0]}).pop()
    share_first = pot * receivers.count(first) // 3
    assert expected[first] == share_first + (pot - share_first - pot * receivers.count(other) // 3)
    # Chips in play are conserved (the chip report counts the moved pot once).
    (row,) = selectors.chip_report(t)
    assert row["now"] == row["start"] == 15 * 4
    check_books(t)
    # The receiving tables play for it: the next hand at table 1 starts with it.
    one = table(t, 1)
    assert postings.session_state(one.session)["carry"] == before[1] + expected.get(1, 0)


def test_t1_a_void_at_a_receiving_table_keeps_the_moved_pot(club, alice):
    """Undo the last hand recorded at a table before a broken table's pot arrived: its
    pot goes back to what it was before that hand plus the chips that moved in."""
    t, _ = started_freezeout(club, alice, max_table=8)  # 5 and 4
    one = table(t, 1)
    s1 = list(names(one.session))
    hand = record(one.session, win(s1, s1[0], {s1[1]: 2}))
    two = table(t, 2)
    s2 = alive_names(two)
    # A bourré at table 2 leaves 3 there (room at table 1): it breaks, pot and all.
    record(two.session, {"trump": "C", "passed": [s2[2]], "tricks": {s2[0]: 3, s2[1]: 2, s2[3]: 0}})
    two.refresh_from_db()
    assert two.status == TournamentTable.Status.BROKEN and two.result["pot"] > 0
    moved = two.result["pot_moved"]["1"]
    postings.void_hand(session_id=one.session_id, hand_id=hand.pk, user=alice)
    session = GameSession.objects.get(pk=one.session_id)
    assert session.carry == hand.before["carry"] + moved
    check_books(t)


def test_t2_a_short_table_is_refused_a_hand_until_a_player_joins_it(club, alice, alice_client):
    """Tables of 5 and 4 (maximum 7): a bourré leaves 3 at table 2 and no room at
    table 1 (5 + 3 > 7). Table 2 must not deal with three: its next hand is refused with
    a message that points to the balancing instruction, in the table's language, until
    table 1's next hand sends a player over."""
    t, _ = started_freezeout(club, alice)
    two = table(t, 2)
    s2 = alive_names(two)
    record(two.session, {"trump": "C", "passed": [s2[2]], "tricks": {s2[0]: 3, s2[1]: 2, s2[3]: 0}})
    left = alive_names(two)
    assert len(left) == 3
    with pytest.raises(HandRejected) as refused:
        record(two.session, win(left, left[0], {left[1]: 2}))
    assert refused.value.errors[0]["code"] == "table_must_wait"
    with translation.override("en"):
        text = say(refused.value)
    assert text.startswith("Table 2 has 3 players, fewer than the minimum of 4")
    assert "“Check the tables”" in text
    with translation.override("es"):
        assert "2" in say(refused.value) and "Table" not in say(refused.value)
    # A digital hand is refused the same way.
    with pytest.raises(digital.DigitalError) as digital_refused:
        digital.start_hand(session_id=two.session_id, user=alice)
    assert digital_refused.value.code == "table_must_wait"
    # The dashboard's instruction is the one the message points to.
    t.refresh_from_db()
    (note,) = tables.balance_outlook(t)
    assert (note.kind, note.table, note.target) == ("move", 1, 2)
    # Table 1's next hand (its pot won clean) sends a player over; table 2 deals again.
    one = table(t, 1)
    s1 = alive_names(one)
    record(one.session, win(s1, s1[0], {s1[1]: 2}))
    assert len(alive_names(table(t, 2))) == 4
    left = alive_names(table(t, 2))
    record(table(t, 2).session, win(left, left[0], {left[1]: 2}))
    check_books(t)


def test_t1_the_create_form_and_the_api_offer_the_pot_choice(club, alice, alice_client):
    page = alice_client.get(reverse("tournament_create", args=[club.pk])).content.decode()
    assert 'name="break_pot"' in page and 'value="play_out"' in page
    api = token_client(alice)
    made = api.post(
        reverse("api_tournament_list"),
        json.dumps(
            {"club": club.pk, "name": "Play it out", "format": "freezeout", "break_pot": "play_out"}
        ),
        content_type="application/json",
    )
    assert made.status_code == 201, made.content
    t = Tournament.objects.get(name="Play it out")
    assert t.break_pot == "play_out"
    body = api.get(reverse("api_tournament_detail", args=[t.pk])).json()
    assert body["break_pot"] == "play_out"
    default = svc.create_tournament(club=club, user=alice, name="Default", format="freezeout")
    assert default.break_pot == Tournament.BreakPot.MOVE
    bad = api.post(
        reverse("api_tournament_list"),
        json.dumps({"club": club.pk, "name": "Bad", "format": "freezeout", "break_pot": "award"}),
        content_type="application/json",
    )
    assert bad.status_code == 400


@pytest.fixture
def three_left_dollars(club, alice):
    """Three players at the final table, prizes rounded to $1 (the default unit)."""
    club.currency = CURRENCIES["USD"]
    club.save()
    t = make_tournament(
        club,
        alice,
        n=3,
        format="freezeout",
        buy_in=10_01,
        starting_chips=40,
        payout_percentages=[50, 30, 20],
    )
    assert t.payout_unit == 100
    svc.start(tournament_id=t.pk, user=alice)
    rng = random.Random(5)
    for _ in range(80):
        play_bot_hand(table(t, 1), rng, alice)
        t.refresh_from_db()
        if table(t, 1).session.carry == 0:
            chips = deals.deal_terms(t)["chips"]
            if len(chips) == 3 and len(set(chips.values())) == 3:
                break
    assert len(set(deals.deal_terms(t)["chips"].values())) == 3
    return t


def test_an_icm_deal_is_shown_before_it_is_agreed_and_paid_in_whole_dollars(
    three_left_dollars, alice, alice_client
):
    t = three_left_dollars
    terms = deals.deal_terms(t)
    assert terms["prizes"] == [15_03, 9_00, 6_00] and terms["total"] == 30_03
    shares = pay.icm_deal(terms["prizes"], terms["chips"], terms["seats"], 100)
    # Whole dollars but the 3 cents below a dollar, which go to the biggest stack.
    biggest = max(terms["chips"], key=terms["chips"].get)
    assert {p: x % 100 for p, x in shares.items()} == {p: 3 if p == biggest else 0 for p in shares}
    # The deal card shows every player's ICM share before anyone agrees.
    page = alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()
    assert "ICM deal" in page
    for amount in shares.values():
        assert format_money(amount, t.currency) in page
    assert not PrizePosting.objects.filter(tournament=t, kind="deal").exists()
    # The API proposes the same.
    body = alice_client.get(reverse("api_tournament_deal", args=[t.pk])).json()
    assert {int(p): x for p, x in body["icm"].items()} == shares and body["unit"] == 100
    t = deals.make_deal(tournament_id=t.pk, kind="icm", agreed=list(terms["chips"]), user=alice)
    assert {int(p): x for p, x in t.deal["amounts"].items()} == shares
    assert books.prize_balances(t)["pool"] == 0
    memos = PrizePosting.objects.filter(tournament=t, kind="deal").values_list("memo", flat=True)
    assert all("Deal (ICM deal) agreed by" in m for m in memos)
    check_books(t)


def test_a_chip_chop_rounds_to_the_prize_unit(three_left_dollars, alice):
    t = three_left_dollars
    terms = deals.deal_terms(t)
    t = deals.make_deal(tournament_id=t.pk, kind="chips", agreed=list(terms["chips"]), user=alice)
    paid = {int(p): x for p, x in t.deal["amounts"].items()}
    biggest = max(terms["chips"], key=terms["chips"].get)
    assert sum(paid.values()) == 30_03
    assert all(x % 100 == (3 if p == biggest else 0) for p, x in paid.items())
    check_books(t)
