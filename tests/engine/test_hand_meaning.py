"""What a hand means to the table (games.engine.hand_meaning), rule by rule: each test
names its rule and pins a case where a plausible slip would give another answer."""

from __future__ import annotations

from games.engine.hand_meaning import (
    RenegeClaim,
    called_out_of_turn,
    claimed_reneges,
    deal_forfeits,
    excused_from_ante,
    first_reneges,
    forfeits_after,
    same_result,
    seat_order,
    tied_at_top,
    who_antes_next,
)
from games.engine.rules import Rules
from games.engine.verify import verify


def test_R38_R12_a_named_renege_of_a_passer_stands_only_under_an_ace_up() -> None:
    """R38 with R12: under an Ace up the dealer must play, so the renege named for a
    player the table shows passing is that breach; under any other up-card a passer
    cannot renege and the named one is dropped."""
    named = RenegeClaim("dee", corrected=False)
    assert claimed_reneges([], named, active={"ann", "ben"}, up_card="AH") == [named]
    assert claimed_reneges([], named, active={"ann", "ben"}, up_card="KH") == []
    assert claimed_reneges([], named, active={"ann", "ben"}, up_card="") == []


def test_R38_a_named_renege_of_a_player_who_played_stands_with_any_up_card() -> None:
    named = RenegeClaim("ann", corrected=True)
    assert claimed_reneges([], named, active={"ann", "ben"}, up_card="") == [named]


def test_R38_a_player_marked_per_seat_is_not_claimed_twice() -> None:
    """The renege named under "More" for a player already marked per seat adds nothing:
    the seat's mark (here caught in time) is the one the record keeps."""
    marked = [RenegeClaim("ann", corrected=True)]
    named = RenegeClaim("ann", corrected=False)
    assert claimed_reneges(marked, named, active={"ann"}, up_card="") == marked
    other = RenegeClaim("ben", corrected=False)
    assert claimed_reneges(marked, other, active={"ann", "ben"}, up_card="") == [*marked, other]


def test_R38_a_claim_is_written_as_the_records_renege_item() -> None:
    assert RenegeClaim("ann", corrected=True).as_record() == {"player": "ann", "corrected": True}


def test_R16_a_call_out_of_turn_adds_to_the_forfeits_owed_once() -> None:
    """R16: the forfeits owed before stay first, in order; a new caller is added after
    them, and one already owing is not owed twice."""
    assert forfeits_after(["cal"], ["ann", "cal"]) == ["cal", "ann"]
    assert forfeits_after([], ["ben"]) == ["ben"]


def test_R16_nobody_called_leaves_the_pending_forfeits_alone() -> None:
    """R16: with no call the record carries no forfeit list at all (an empty list would
    drop the pending ones, which the session refuses)."""
    assert forfeits_after(["cal"], []) is None


def test_R16_who_called_out_of_turn_is_what_the_record_adds_to_what_was_owed() -> None:
    """R16: the hand page names only the players whose forfeit this hand brought in; the
    state before names an owed forfeit by seat id or by name."""
    seats = {"ann": 1, "ben": 2, "cal": 3}
    assert called_out_of_turn(["ann", "ben", "cal"], {1, "cal"}, seats) == ["ben"]
    assert called_out_of_turn(["dee"], set(), seats) == ["dee"]
    assert called_out_of_turn([], {1}, seats) == []


def test_R39_R16_deal_forfeits_name_a_corrected_renege_then_a_new_pending_forfeit() -> None:
    """R39: a renege caught in time forfeits a deal; R16: a forfeit the verdict leaves
    pending counts only when this hand brought it in. Each player is named once."""
    reneges = [
        {"player": "ann", "corrected": True},
        {"player": "ben", "corrected": False},
    ]
    assert deal_forfeits(reneges, ["cal", "ann", "dee"], ["dee"]) == ["ann", "cal"]
    assert deal_forfeits([], ["dee"], ["dee"]) == []


def test_R39_each_player_is_named_by_their_first_renege_only() -> None:
    """R39: a player who reneged twice pays once; the page names them once, by the first
    renege the verdict lists."""
    first = {"player": "ann", "corrected": True, "rule": "R21"}
    again = {"player": "ann", "corrected": False, "rule": "R22"}
    ben = {"player": "ben", "corrected": False, "rule": "R21"}
    assert first_reneges([first, ben, again]) == [first, ben]


def test_R35_R39_who_tied_at_the_top_is_named_only_when_the_pot_did_not_go_to_them() -> None:
    """R35 (a split) and R39 (the best player reneged): the players at the top are named;
    after a plain win nobody is, though the top count is the same."""
    tricks = {"ann": 2, "ben": 2, "cal": 1}
    assert tied_at_top(tricks, "split") == (2, ["ann", "ben"])
    assert tied_at_top(tricks, "ineligible") == (2, ["ann", "ben"])
    assert tied_at_top(tricks, "win") == (2, [])
    assert tied_at_top({}, "all_passed") == (0, [])


def test_R7_tricks_are_shown_in_seat_order_not_the_order_of_play() -> None:
    """R7: play goes round from the dealer's left; the page lists the seats as seated,
    and a name the seats do not hold keeps its place after them."""
    tricks = {"cal": 3, "ann": 1, "ben": 1, "zed": 0}
    assert list(seat_order(tricks, ["ann", "ben", "cal"])) == ["ann", "ben", "cal", "zed"]


def test_R10_the_same_result_ignores_zero_tricks_and_order() -> None:
    """R10 (a passer takes no tricks, so a zero is no claim): a hand typed twice is the same result when trump, passers, tricks taken and
    reneges agree; a zero-trick entry and the order of lists do not matter."""
    typed = {
        "trump": "H",
        "passed": ["cal", "ben"],
        "tricks": {"ann": 5, "dee": 0},
        "reneges": [{"player": "dee"}, {"player": "ann", "corrected": True}],
    }
    record = {
        "trump": "H",
        "passed": ["ben", "cal"],
        "tricks": {"ann": 5},
        "reneges": [{"player": "ann", "corrected": True}, {"player": "dee", "corrected": False}],
        "plays": [["ann", "AH"]],
    }
    assert same_result(typed, record)


def test_R2_R39_a_different_count_trump_or_renege_is_another_result() -> None:
    base = {"up_card": "QH", "tricks": {"ann": 3, "ben": 2}}
    assert not same_result(base, {**base, "tricks": {"ann": 2, "ben": 3}})
    assert not same_result(base, {**base, "up_card": "QS"})
    assert not same_result(base, {**base, "reneges": [{"player": "ben", "corrected": True}]})
    assert not same_result(base, {**base, "passed": ["cal"]})
    assert not same_result(base, None)


def test_R5_the_next_antes_skip_the_excused_or_fall_to_the_dealer_alone() -> None:
    """R5: every seated player antes except those the last hand excused, in seat order;
    under ``dealer_antes_for_all`` the dealer antes for everyone, excused or not."""
    seats = ["ann", "ben", "cal", "dee"]
    plain = Rules()
    assert who_antes_next(seats, "cal", ["dee", "ben"], plain) == ["ann", "cal"]
    assert who_antes_next(seats, "cal", ["cal"], Rules(dealer_antes_for_all=True)) == ["cal"]
    assert who_antes_next(seats, "cal", [], plain) == seats


def test_R5_double_ante_excuses_nobody_even_players_left_excused_by_an_earlier_rule() -> None:
    """RULES.md, ``double_ante``: nobody is ever excused. A table that turns it on after
    a hand that excused ben and dee (R36) still has them excused in its state; the engine
    ignores them (payout._antes), so the next antes are everyone's, and the marks the
    pages show ("excused") are nobody's either."""
    seats = ["ann", "ben", "cal", "dee"]
    double = Rules(double_ante=True)
    assert who_antes_next(seats, "cal", ["dee", "ben"], double) == seats
    assert excused_from_ante(["dee", "ben"], double) == []
    assert excused_from_ante(["dee", "ben"], Rules(dealer_antes_for_all=True)) == []
    assert excused_from_ante(["dee", "ben"], Rules()) == ["dee", "ben"]
    # What the verifier charges agrees: all four ante, the excused ones included.
    verdict = verify(
        {
            "players": seats,
            "dealer": "cal",
            "excused": ["dee", "ben"],
            "rules": {"double_ante": True},
            "trump": "H",
            "passed": ["ben", "cal", "dee"],
        }
    )
    assert sorted(verdict["result"]["antes"]) == sorted(
        who_antes_next(seats, "cal", ["dee", "ben"], double)
    )
