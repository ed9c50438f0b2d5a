"""Payouts, R5 and R33–R40, and the next deal (R8): every switch, money conserved."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import Rules, settle

from .helpers import conserved

ABCDE = ["A", "B", "C", "D", "E"]


def run(
    players: list[str],
    tricks: dict[str, int] | None,
    *,
    rules: Rules | None = None,
    dealer: str | None = None,
    carry: int = 0,
    **kw: Any,
) -> dict[str, Any]:
    result = settle(
        players, dealer or players[-1], rules or Rules(), tricks=tricks, carry=carry, **kw
    )
    assert conserved(result, carry), result
    return result


# -- RULES.md and HAND_RECORD.md worked examples ------------------------------------------


def test_worked_example_bourre_R33_R36() -> None:
    r = run(ABCDE, {"A": 3, "B": 1, "C": 1, "D": 0, "E": 0})
    assert r["outcome"] == "win" and r["winner"] == "A"
    assert r["pot"] == 5 and r["payouts"] == {"A": 5}
    assert r["bourre"] == ["D", "E"] and r["penalties"] == {"D": 5, "E": 5}
    assert r["next_carry"] == 10
    assert r["excused_next"] == ["D", "E"]


def test_worked_example_split_R34_R35() -> None:
    r = run(["A", "B", "C"], {"A": 2, "B": 2, "C": 1})
    assert r["outcome"] == "split" and r["winner"] is None
    assert r["payouts"] == {} and r["next_carry"] == 3
    assert r["excused_next"] == ["A", "B"]
    # next pot: 3 carried + C's ante
    nxt = run(["A", "B", "C"], {"A": 5}, carry=r["next_carry"], excused=r["excused_next"])
    assert nxt["pot"] == 4 and nxt["antes"] == {"C": 1}


def test_worked_example_pot_limit_R37() -> None:
    r = run(
        ["A", "B", "C", "D"], {"A": 3, "B": 2, "C": 0, "D": 0}, carry=21, rules=Rules(pot_limit=10)
    )
    assert r["pot"] == 25 and r["payouts"] == {"A": 25}
    assert r["penalties"] == {"C": 10, "D": 10}
    assert r["next_carry"] == 20


def test_hand_record_example() -> None:
    r = run(
        ["ann", "ben", "cal", "dee"],
        {"ann": 3, "cal": 2, "dee": 0},
        dealer="dee",
        passed=["ben"],
    )
    assert r["outcome"] == "win" and r["winner"] == "ann"
    assert r["pot"] == 4 and r["payouts"] == {"ann": 4}
    assert r["bourre"] == ["dee"] and r["penalties"] == {"dee": 4}
    assert r["next_carry"] == 4 and r["excused_next"] == ["dee"]
    assert r["next_dealer"] == "ann"


# -- antes R5, double_ante, dealer_antes_for_all -----------------------------------------


def test_R5_excused_players_skip_the_ante_passers_lose_theirs() -> None:
    r = run(["A", "B", "C", "D"], {"A": 3, "B": 2}, passed=["C", "D"], excused=["B"])
    assert r["antes"] == {"A": 1, "C": 1, "D": 1}
    assert r["pot"] == 3 and r["payouts"] == {"A": 3}


def test_R5_ante_amount() -> None:
    r = run(["A", "B", "C"], {"A": 3, "B": 1, "C": 1}, rules=Rules(ante=25))
    assert r["antes"] == {"A": 25, "B": 25, "C": 25} and r["pot"] == 75


def test_double_ante_second_ante_from_players_who_play_nobody_excused() -> None:
    rules = Rules(double_ante=True)
    r = run(
        ["A", "B", "C", "D"],
        {"A": 3, "B": 2, "C": 0},
        rules=rules,
        passed=["D"],
        excused=["B", "D"],  # ignored: nobody is ever excused
    )
    assert r["antes"] == {"A": 2, "B": 2, "C": 2, "D": 1}
    assert r["pot"] == 7 and r["penalties"] == {"C": 7}
    assert r["excused_next"] == []


def test_dealer_antes_for_all() -> None:
    rules = Rules(dealer_antes_for_all=True, ante=2)
    r = run(
        ["A", "B", "C", "D"],
        {"A": 2, "B": 1, "C": 1, "D": 1},
        rules=rules,
        dealer="C",
        excused=["C"],
    )
    assert r["antes"] == {"C": 8} and r["pot"] == 8
    assert r["excused_next"] == []


def test_dealer_antes_for_all_with_a_split_nobody_excused() -> None:
    rules = Rules(dealer_antes_for_all=True)
    r = run(["A", "B", "C"], {"A": 2, "B": 2, "C": 1}, rules=rules)
    assert r["outcome"] == "split" and r["excused_next"] == []


def test_double_ante_with_dealer_antes_for_all() -> None:
    rules = Rules(dealer_antes_for_all=True, double_ante=True)
    r = run(["A", "B", "C"], {"A": 3, "B": 2}, rules=rules, dealer="C", passed=["C"])
    assert r["antes"] == {"A": 1, "B": 1, "C": 3} and r["pot"] == 5


# -- R33 win, R34/R35 splits ---------------------------------------------------------------


def test_R33_two_tricks_can_win() -> None:
    r = run(["A", "B", "C", "D"], {"A": 2, "B": 1, "C": 1, "D": 1})
    assert r["winner"] == "A" and r["bourre"] == []


@pytest.mark.parametrize(
    ("tricks", "tied"),
    [
        pytest.param({"A": 2, "B": 2, "C": 1}, ["A", "B"], id="R34-2-2-1"),
        pytest.param({"A": 1, "B": 1, "C": 1, "D": 1, "E": 1}, ABCDE, id="R34-1-1-1-1-1"),
    ],
)
def test_R34_split_carries_R35_tied_excused(tricks: dict[str, int], tied: list[str]) -> None:
    players = sorted(tricks)
    r = run(players, tricks)
    assert r["outcome"] == "split" and r["next_carry"] == r["pot"]
    assert r["excused_next"] == tied


def test_R35_tied_excused_off() -> None:
    r = run(["A", "B", "C"], {"A": 2, "B": 2, "C": 1}, rules=Rules(tied_excused=False))
    assert r["excused_next"] == []


def test_R34_divide_equal_shares_remainder_carried_nobody_excused() -> None:
    r = run(
        ["A", "B", "C", "D", "E"],
        {"A": 2, "B": 2, "C": 1, "D": 0},
        passed=["E"],
        rules=Rules(split_pot="divide"),
    )
    assert r["pot"] == 5 and r["payouts"] == {"A": 2, "B": 2}
    assert r["next_carry"] == 1 + 5  # remainder plus D's bourré
    assert r["excused_next"] == ["D"]


def test_R34_divide_with_limit_caps_winner() -> None:
    rules = Rules(split_pot="divide", pot_limit=6, limit_caps_winner=True)
    r = run(["A", "B", "C"], {"A": 2, "B": 2, "C": 1}, rules=rules, carry=20)
    assert r["pot"] == 23 and r["payouts"] == {"A": 3, "B": 3}
    assert r["next_carry"] == 17


# -- R36 bourré, R37 pot limit --------------------------------------------------------------


def test_R36_several_bourres_each_pay_in_full() -> None:
    r = run(["A", "B", "C", "D", "E", "F"], {"A": 5}, carry=4)
    assert r["pot"] == 10
    assert r["bourre"] == ["B", "C", "D", "E", "F"]
    assert all(v == 10 for v in r["penalties"].values())
    assert r["next_carry"] == 50


def test_R37_pot_limit_caps_bourre_not_winner() -> None:
    r = run(["A", "B", "C"], {"A": 4, "B": 1, "C": 0}, carry=30, rules=Rules(pot_limit=8))
    assert r["payouts"] == {"A": 33} and r["penalties"] == {"C": 8}


def test_R37_limit_caps_winner() -> None:
    rules = Rules(pot_limit=8, limit_caps_winner=True)
    r = run(["A", "B", "C"], {"A": 4, "B": 1, "C": 0}, carry=30, rules=rules)
    assert r["payouts"] == {"A": 8}
    assert r["next_carry"] == 25 + 8


def test_R37_limit_above_pot_changes_nothing() -> None:
    r = run(
        ["A", "B", "C"],
        {"A": 4, "B": 1, "C": 0},
        rules=Rules(pot_limit=100, limit_caps_winner=True),
    )
    assert r["payouts"] == {"A": 3} and r["penalties"] == {"C": 3}


# -- R39 reneges -----------------------------------------------------------------------------


def test_R39_uncorrected_renege_pays_once_cannot_win_is_excused() -> None:
    r = run(["A", "B", "C"], {"A": 3, "B": 2}, reneges=[("A", False)], rules=Rules(pot_limit=2))
    assert r["outcome"] == "ineligible" and r["winner"] is None
    assert r["penalties"] == {"A": 2, "C": 2}
    assert r["excused_next"] == ["A", "C"]
    assert r["next_carry"] == 3 + 4


def test_R39_uncorrected_renege_and_bourre_pays_once() -> None:
    r = run(
        ["A", "B", "C"],
        {"A": 3, "B": 2, "C": 0},
        reneges=[{"player": "C", "corrected": False}, ("C", False)],
    )
    assert r["winner"] == "A"
    assert r["bourre"] == ["C"] and r["penalties"] == {"C": 3}


def test_R39_corrected_renege_cannot_win_forfeits_deal_pays_nothing() -> None:
    r = run(
        ["A", "B", "C", "D"],
        {"A": 3, "B": 1, "C": 1},
        passed=["D"],
        dealer="D",
        reneges=[("A", True)],
    )
    assert r["outcome"] == "ineligible" and r["penalties"] == {}
    assert r["next_dealer"] == "B"  # A forfeits the deal (R8)
    assert r["forfeits_next"] == []
    assert r["excused_next"] == []


def test_R39_ineligible_tied_at_top_eligible_tied_are_excused() -> None:
    r = run(["A", "B", "C"], {"A": 2, "B": 2, "C": 1}, reneges=[("A", True)])
    assert r["outcome"] == "ineligible" and r["excused_next"] == ["B"]


def test_R39_ineligible_winner_next_best() -> None:
    rules = Rules(ineligible_winner="next_best")
    r = run(
        ["A", "B", "C", "D"], {"A": 3, "B": 1, "C": 1, "D": 0}, reneges=[("A", False)], rules=rules
    )
    # B and C tie among the eligible: a split among them
    assert r["outcome"] == "split" and r["excused_next"] == ["A", "B", "C", "D"]
    r = run(
        ["A", "B", "C", "D"],
        {"A": 2, "B": 2, "C": 1},
        passed=["D"],
        reneges=[("A", False)],
        rules=rules,
    )
    assert r["outcome"] == "win" and r["winner"] == "B" and r["payouts"] == {"B": 4}
    assert r["penalties"] == {"A": 4}


def test_R39_next_best_with_nobody_eligible() -> None:
    rules = Rules(ineligible_winner="next_best")
    r = run(["A", "B"], {"A": 3, "B": 2}, reneges=[("A", False), ("B", True)], rules=rules)
    assert r["outcome"] == "ineligible" and r["next_carry"] == 2 + 2


def test_R39_next_best_split_divides_under_divide() -> None:
    rules = Rules(ineligible_winner="next_best", split_pot="divide")
    r = run(
        ["A", "B", "C", "D"], {"A": 3, "B": 1, "C": 1, "D": 0}, reneges=[("A", True)], rules=rules
    )
    assert r["outcome"] == "split" and r["payouts"] == {"B": 2, "C": 2}


# -- R14 uncontested, R40 all passed ---------------------------------------------------------


def test_R14_uncontested_nobody_bourred() -> None:
    r = run(["A", "B", "C"], None, passed=["A", "B"], dealer="C")
    assert r["outcome"] == "uncontested" and r["winner"] == "C"
    assert r["payouts"] == {"C": 3} and r["bourre"] == [] and r["penalties"] == {}


def test_R14_uncontested_double_ante() -> None:
    r = run(["A", "B", "C"], None, passed=["A", "B"], dealer="C", rules=Rules(double_ante=True))
    assert r["antes"] == {"A": 1, "B": 1, "C": 2} and r["payouts"] == {"C": 4}


def test_R40_all_passed_pot_carries_untouched_nobody_excused() -> None:
    r = run(["A", "B", "C"], None, passed=["A", "B", "C"], carry=7, excused=["A"])
    assert r["outcome"] == "all_passed" and r["winner"] is None
    assert r["pot"] == 9 and r["next_carry"] == 9 and r["excused_next"] == []


def test_R40_all_passed_with_an_ace_up_dealer_wins() -> None:
    r = run(["A", "B", "C"], None, passed=["A", "B", "C"], dealer="B", ace_up=True)
    assert r["outcome"] == "uncontested" and r["winner"] == "B" and r["payouts"] == {"B": 3}


# -- R8, R16 the next deal --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dealer", "forfeits", "next_dealer", "pending"),
    [
        pytest.param("D", [], "A", [], id="R8-wraps-left"),
        pytest.param("A", ["B"], "C", [], id="R8-R16-skip-forfeiter"),
        pytest.param("A", ["B", "C"], "D", [], id="R8-skip-two"),
        pytest.param("A", ["D"], "B", ["D"], id="R8-forfeit-pending-until-their-turn"),
        # R16: every seated player owes one: they cancel out, the deal passes, all clear
        pytest.param("A", ["A", "B", "C", "D"], "B", [], id="R8-R16-all-forfeit-cancel-out"),
    ],
)
def test_R8_next_dealer(
    dealer: str, forfeits: list[str], next_dealer: str, pending: list[str]
) -> None:
    r = run(["A", "B", "C", "D"], {"A": 5}, dealer=dealer, forfeits=forfeits)
    assert r["next_dealer"] == next_dealer and r["forfeits_next"] == pending


def test_settle_rejects_inputs_that_are_not_a_hand() -> None:
    with pytest.raises(ValueError):
        settle(["A"], "A", Rules(), tricks={"A": 5})
    with pytest.raises(ValueError):
        settle(["A", "B"], "Z", Rules(), tricks={"A": 5})
    with pytest.raises(ValueError):
        settle(["A", "B"], "A", Rules(), tricks={"A": 4})
    with pytest.raises(ValueError):
        settle(["A", "B"], "A", Rules(), tricks={"A": 5}, passed=["Q"])
