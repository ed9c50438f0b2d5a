"""Club-wide player statistics (ledger.stats.club_player_stats)."""

import pytest

from ledger import postings
from ledger.stats import club_player_stats
from tests.factories import PlayerFactory

from .conftest import record, void

pytestmark = pytest.mark.django_db


def by_name(club):
    return {row["name"]: row for row in club_player_stats(club)}


def test_stats_count_sessions_hands_pots_bourres_reneges_and_net(start, club, players, alice):
    first = start(name="One")
    record(first, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})  # ann wins 4, dee bourré
    record(first, passed=["ann"], tricks={"ben": 2, "cal": 2, "dee": 1})  # split
    record(
        first,
        tricks={"ann": 1, "ben": 1, "cal": 3, "dee": 0},
        reneges=[{"player": "ann", "corrected": False}],
    )
    postings.close_session(session_id=first.pk, user=alice)
    second = start(seated=players[:2], name="Two")
    record(second, passed=["ann"])  # uncontested: ben
    postings.buy_in(session_id=second.pk, player_id=players[0].pk, amount=100, user=alice)

    stats = by_name(club)
    ann, ben, cal, dee = (stats[n] for n in ("ann", "ben", "cal", "dee"))
    assert (ann["sessions"], ben["sessions"], cal["sessions"]) == (2, 2, 1)
    assert (ann["hands_played"], ann["hands_passed"], cal["hands_played"]) == (4, 2, 3)
    assert (ann["pots_won"], ben["pots_won"], cal["pots_won"]) == (1, 1, 1)
    assert (dee["bourres"], ann["reneges"], ann["bourres"]) == (2, 1, 0)
    # ben took the 18 carried in (ann's renege and dee's bourré) + 2 antes, uncontested.
    assert (ann["biggest_pot"], cal["biggest_pot"], ben["biggest_pot"]) == (4, 9, 20)
    # Nets are the table's, not the bank's: ann's buy-in is not counted.
    for row in stats.values():
        nets = [postings.session_balances(s).get(row["player_id"], 0) for s in (first, second)]
        assert row["net"] == sum(nets)
    rows = club_player_stats(club)
    assert [r["net"] for r in rows] == sorted((r["net"] for r in rows), reverse=True)
    assert rows[0]["name"] == "ben"  # best net first


def test_voided_hands_count_for_nothing(start, club):
    session = start()
    record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    hand = record(session, tricks={"ann": 1, "ben": 3, "cal": 1, "dee": 0})
    void(session, hand)
    ben = by_name(club)["ben"]
    assert (ben["hands_played"], ben["pots_won"], ben["biggest_pot"], ben["net"]) == (1, 0, 0, -1)


def test_stats_take_one_query_however_much_was_played(
    start, club, players, django_assert_num_queries
):
    session = start()
    record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    with django_assert_num_queries(1):
        small = club_player_stats(club)
    for _ in range(10):
        record(session, tricks={"ann": 1, "ben": 1, "cal": 3, "dee": 0})
    PlayerFactory(club=club, name="zed")
    with django_assert_num_queries(1):
        big = club_player_stats(club)
    assert len(big) == len(small) + 1
    assert by_name(club)["zed"] | {"player_id": 0} == {
        "player_id": 0,
        "name": "zed",
        "sessions": 0,
        "hands_played": 0,
        "hands_passed": 0,
        "pots_won": 0,
        "bourres": 0,
        "reneges": 0,
        "net": 0,
        "biggest_pot": 0,
    }


def test_stats_survive_a_renamed_player(start, club, players):
    session = start()
    record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    players[3].name = "dolores"
    players[3].save()
    assert by_name(club)["dolores"]["bourres"] == 1


def test_tournament_chips_are_not_money_in_stats(start, club, players):
    cash = start(seated=players[:3], name="Cash")
    record(cash, tricks={"ann": 3, "ben": 1, "cal": 1})  # ann +2
    table = start(
        seated=players[:3], name="Table 1", tournament_chips={p.pk: 50 for p in players[:3]}
    )
    record(table, tricks={"ann": 1, "ben": 3, "cal": 1})  # ben wins 3 chips
    stats = by_name(club)
    assert (stats["ann"]["net"], stats["ben"]["net"], stats["cal"]["net"]) == (2, -1, -1)
    assert stats["ben"]["pots_won"] == 0 and stats["ben"]["biggest_pot"] == 0
    assert stats["ben"]["hands_played"] == 2  # hands still count as hands played


# -- the running totals behind the statistics (issue #20) -------------------------------------


def test_totals_follow_records_voids_and_a_new_seat(start, club, players, alice):
    """The players' club totals are kept by the ledger's one writer: a recorded hand adds,
    its void (reversal postings) takes exactly that away again, the biggest pot falls back
    to the largest pot still standing, and a seat added later is one more session.
    check_invariants recounts them after every step."""
    from ledger.invariants import check_player_totals
    from ledger.models import PlayerTotals

    ann = players[0]
    session = start()
    record(session, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    first = by_name(club)
    # A bigger pot for ann (the pot carries dee's bourré penalty), then undone.
    hand = record(session, tricks={"ann": 3, "ben": 2, "cal": 0, "dee": 0})
    grown = by_name(club)
    assert grown["ann"]["pots_won"] == 2
    assert grown["ann"]["biggest_pot"] > first["ann"]["biggest_pot"]
    assert grown["ann"]["hands_played"] == 2
    postings.void_hand(session_id=session.pk, hand_id=hand.pk, user=alice)
    postings.check_invariants(session)
    assert by_name(club) == first
    eve = PlayerFactory(club=club, name="eve")
    postings.add_seat(session_id=session.pk, player=eve, user=alice)
    postings.check_invariants(session)
    assert by_name(club)["eve"]["sessions"] == 1
    # The check sees a total that drifted from the ledger.
    PlayerTotals.objects.filter(player=ann).update(net=999)
    with pytest.raises(AssertionError, match="club totals"):
        check_player_totals(club.pk)
