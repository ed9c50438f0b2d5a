"""The coach (games.engine.coach): a hint is the expert's appraisal of the seat's own
view read into public facts, so the same view gives the same hint whatever the hidden
cards; ``judge`` prices a decision against the appraisal of the view it was made from."""

from __future__ import annotations

import copy

from games.engine.cards import CARD_LOOKUP
from games.engine.coach import _unseen, appraise, hint, judge
from games.engine.expert import Appraisal, Option
from games.engine.state import HandState

from .helpers import rigged_deal

P4 = ("ann", "ben", "cal", "dee")
ANN = "AH 9H KS 4D 7C"
UP = "3H"  # dee deals; 3H is dee's last card, hearts are trumps
WORLD_A = ["2S 3S 4S 5S 6S", "2D 3D 5D 6D 8D", "2C 3C 4C 5C"]
WORLD_B = ["QH JH TH 8H 7H", "AS QS JS TS 9S", "AD KD QD JD"]


def _deal(others: list[str]) -> HandState:
    hands = {"ann": ANN, "ben": others[0], "cal": others[1], "dee": others[2] + " " + UP}
    return rigged_deal(P4, 3, hands, seed=5)


def _all_play(state: HandState) -> HandState:
    for p in P4:
        state.apply({"type": "play", "player": p, "discard": []})
    return state


def _card(card: str, gain: float = 1.0) -> Option:
    return Option({"type": "card", "player": "ann", "card": card}, gain, 64)


def test_same_view_same_hint_whatever_the_hidden_cards() -> None:
    # Two worlds where every card ann cannot see differs: ann's views are equal, and so
    # are the hints, declaring and leading (the seed is public: hand id and move count).
    for prepare in (lambda s: s, _all_play):
        views = [prepare(_deal(w)).view_for("ann") for w in (WORLD_A, WORLD_B)]
        assert views[0] == views[1]
        hints = [hint(v, appraise(copy.deepcopy(v), "coach:7:0")) for v in views]
        assert hints[0] == hints[1]
        assert hints[0].samples > 0


def test_declaring_hint_states_trumps_players_to_declare_and_pot() -> None:
    view = _deal(WORLD_A).view_for("ann")
    h = hint(view, appraise(view, "coach:1:0"))
    assert h.kind in ("pass", "play")
    assert h.trumps == 2 and h.best_trump == "AH"  # AH 9H: the best first
    assert h.to_declare == 3  # ann declares first of four
    assert h.pot == view["pot"] / view["rules"]["ante"]
    assert h.reason == ("play_strong" if h.kind == "play" else "pass_weak")
    assert h.runner_up is not None and h.gain >= (h.runner_up_gain or 0.0)


def test_a_weak_hand_is_told_to_pass_and_what_playing_loses() -> None:
    base = _deal(WORLD_A).view_for("ann")
    weak = dict(
        base, hand=["2S", "3D", "4C", "5D", "7S"], declare=dict(base["declare"], max_discard=0)
    )
    h = hint(weak, appraise(weak, "coach:1:0"))  # type: ignore[arg-type]
    assert (h.kind, h.reason, h.trumps, h.best_trump) == ("pass", "pass_weak", 0, None)
    assert h.gain == 0.0 and h.runner_up_gain is not None and h.runner_up_gain < 0


def test_the_top_trump_cannot_be_beaten_a_king_of_a_side_suit_can() -> None:
    view = _all_play(_deal(WORLD_A)).view_for("ann")
    assert view["legal"] and not view["trick"]
    ante = view["rules"]["ante"]
    top = hint(view, Appraisal((_card("AH"), _card("KS", 0.5)), ante))
    assert (top.kind, top.reason, top.card) == ("card", "unbeatable", "AH")
    # AS and every trump but ann's are unseen: the KS can be beaten
    king = hint(view, Appraisal((_card("KS"), _card("AH", 0.5)), ante))
    assert king.reason == "best_odds"
    assert king.to_declare == 0 and king.runner_up == _card("AH").action


def test_when_no_legal_card_takes_the_trick_the_hint_says_so() -> None:
    # ann leads the AH (trumps): ben holds spades only and cannot take it.
    state = _all_play(_deal(WORLD_A))
    state.apply({"type": "card", "player": "ann", "card": "AH"})
    view = state.view_for("ben")
    assert len(view["legal"]) == 5
    options = tuple(
        Option({"type": "card", "player": "ben", "card": c}, 1.0 - i, 8)
        for i, c in enumerate(view["legal"])
    )
    h = hint(view, Appraisal(options, view["rules"]["ante"]))
    assert (h.reason, h.trumps) == ("cannot_win", 0)


def test_judge_prices_a_different_choice_and_matches_the_best() -> None:
    ante = 2
    appraisal = Appraisal(
        (_card("AH", 3.0), _card("KS", 1.0), _card("7C", -1.0)),
        ante,
    )
    best = judge(appraisal, {"type": "card", "player": "ann", "card": "AH"})
    assert best.matched and best.cost == 0.0
    worse = judge(appraisal, {"type": "card", "player": "ann", "card": "7c"})  # any spelling
    assert not worse.matched and worse.cost == 2.0  # (3 - -1) chips / 2 per ante
    assert worse.best == _card("AH").action


def test_judge_scores_play_or_pass_when_the_discard_was_not_weighed() -> None:
    play = {"type": "play", "player": "ann", "discard": ["7C"]}
    appraisal = Appraisal(
        (
            Option({"type": "pass", "player": "ann"}, 0.0, 32),
            Option(play, -2.0, 32),  # type: ignore[arg-type]
        ),
        1,
    )
    other = judge(appraisal, {"type": "play", "player": "ann", "discard": ["4D", "KS"]})
    assert not other.matched and other.cost == 2.0 and not other.discard_scored
    same = judge(appraisal, {"type": "play", "player": "ann", "discard": ["7C"]})
    assert same.discard_scored and same.cost == 2.0
    assert judge(appraisal, {"type": "pass", "player": "ann"}).matched


def test_the_up_card_counts_as_unseen_while_the_dealer_still_holds_it() -> None:
    # dee deals and keeps the up-card 3H (a trump): a card of ann's could still meet
    # it; once dee has played it, it threatens nothing.
    state = rigged_deal(
        P4, 3, {"ann": "2H 9S KS 4D 7C", "ben": "AH KH QH JH TH", "cal": "9H 8H 7H 6H 5H",
                "dee": "4H AS AD AC 3H"}, seed=5,
    )  # fmt: skip
    _all_play(state)
    up = 1 << CARD_LOOKUP["3H"]
    assert _unseen(state.view_for("ann")) & up
    for p, c in (("ann", "2H"), ("ben", "AH"), ("cal", "5H"), ("dee", "3H")):
        state.apply({"type": "card", "player": p, "card": c})
    assert not _unseen(state.view_for("ann")) & up
    assert not _unseen(state.view_for("dee")) & (1 << CARD_LOOKUP["4H"])  # dee's own
