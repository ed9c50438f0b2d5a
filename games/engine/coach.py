"""The coach: what the expert would do from one seat's view, and why, as typed facts.

A hint is :meth:`ExpertBot.appraise` of the seat's own view (``HandState.view_for``),
read into a :class:`Hint`: the best action, its gain in antes, the runner-up's, and the
public facts that explain it (trumps held and the best of them, players still to
declare, the pot in antes, whether the card can be beaten by any card the seat has not
seen). Nothing here reads hidden cards: the appraisal's randomness is seeded by the
caller from public facts (the digital tables use the hand's id and the number of moves
so far), so the same view and seed give the same hint whatever the other seats hold.

No sentences live here: ``reason`` is a code and the facts are numbers and card codes;
the pages say them in the reader's language (templates/games/digital_hint.html).

:func:`judge` compares a decision a player made with the appraisal of the view they
made it from: matched, or what it cost in antes (the best option's gain minus the chosen
one's). A PLAY is judged as play-or-pass: when its discard is not one of the few the
expert weighed, it is valued as the expert's best PLAY (``discard_scored`` False).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .cards import CARD_LOOKUP, SUIT_CHARS
from .contracts import Action, SeatView
from .expert import Appraisal, ExpertBot, Option
from .legal import trick_winner

__all__ = ["Decision", "Hint", "appraise", "hint", "judge"]

Kind = Literal["pass", "play", "card"]
# Why the best action is best, as a code the page turns into a sentence.
Reason = Literal[
    "must_play",  # the seat may not pass (R12): play, drawing the best number
    "pass_weak",  # passing beats every PLAY: the hand loses on average
    "play_strong",  # a PLAY beats passing
    "only_card",  # one legal card
    "unbeatable",  # no card the seat has not seen can beat it
    "cheapest_winner",  # last to play: the lowest card that takes the trick
    "cannot_win",  # no legal card takes the trick: give the least useful one
    "best_odds",  # none of the above: it scores best over the sampled deals
]

# Gains closer than this (in chips) count as a tie: the choice matched the expert.
_TIE = 1e-9


@dataclass(frozen=True)
class Hint:
    """What the expert would do from this view, and the public facts that say why.

    Gains are in antes (mean chips over passing / the ante). ``runner_up`` is the
    second-best option (None when there is one option only).
    """

    kind: Kind
    reason: Reason
    action: Action
    gain: float
    runner_up: Action | None
    runner_up_gain: float | None
    samples: int
    # Facts from the view.
    trumps: int  # trumps in the seat's hand
    best_trump: str | None  # the highest of them
    to_declare: int  # other players still to declare
    playing: int  # other players who declared PLAY (when public)
    pot: float  # the pot in antes
    draw: int  # cards the PLAY draws (0 for a pass or a card)
    card: str | None  # the card to play


@dataclass(frozen=True)
class Decision:
    """A move a player made, against the appraisal of the view they made it from."""

    kind: Kind
    chosen: dict[str, Any]
    best: Action
    best_gain: float  # antes
    chosen_gain: float  # antes
    matched: bool
    discard_scored: bool

    @property
    def cost(self) -> float:
        """Antes the choice gave up on average (0 when it matched)."""
        return 0.0 if self.matched else max(self.best_gain - self.chosen_gain, 0.0)


def appraise(view: SeatView, seed: str, field: Mapping[str, str] | None = None) -> Appraisal:
    """The expert's appraisal of ``view``, its randomness seeded by ``seed`` (which the
    caller builds from public facts only); ``field`` names the bots' levels (player →
    level, as the table shows them), so the expert models careful bots as careful."""
    return ExpertBot(random.Random(seed), field=field).appraise(view)


def _antes(chips: float, ante: int) -> float:
    return chips / ante if ante else chips


def _kind(action: Mapping[str, Any]) -> Kind:
    kind = action.get("type")
    if kind == "card":
        return "card"
    return "play" if kind == "play" else "pass"


def _trumps(view: SeatView) -> list[str]:
    """The seat's trumps, best first (the view lists trumps first, high to low)."""
    return [c for c in view["hand"] if c[1] == view["trump"]]


def _unseen(view: SeatView) -> int:
    """Cards the seat has not seen, as a mask: what another player may still hold (the
    up-card counts as held by the dealer until it is played or set aside)."""
    seen = 0
    for code in view["hand"]:
        seen |= 1 << CARD_LOOKUP[code]
    for code in view.get("own_discards") or []:
        seen |= 1 << CARD_LOOKUP[code]
    for trick in view.get("tricks_played") or []:
        for x in trick["cards"]:
            seen |= 1 << CARD_LOOKUP[x["card"]]
    for x in view.get("trick") or []:
        seen |= 1 << CARD_LOOKUP[x["card"]]
    up = 1 << CARD_LOOKUP[view["up_card"]]
    dealer_holds_up = (
        not view.get("up_card_dead")
        and view["dealer"] in view["active"]
        and view["dealer"] != view["seat"]
        and not seen & up  # not played yet
    )
    if not dealer_holds_up:
        seen |= up  # set aside, with a player who passed, played, or in our own hand
    return ((1 << 52) - 1) & ~seen


def _card_reason(view: SeatView, appraisal: Appraisal, code: str) -> Reason:
    legal = view["legal"]
    if len(legal) == 1:
        return "only_card"
    trump = SUIT_CHARS.index(view["trump"])
    trick = [CARD_LOOKUP[x["card"]] for x in view.get("trick") or []]
    card = CARD_LOOKUP[code]

    def wins_now(c: int) -> bool:
        if not trick:
            return True
        return trick_winner([*trick, c], trump) == len(trick)

    unseen = _unseen(view)
    if wins_now(card):
        suit = card // 13
        higher = sum(1 << (suit * 13 + r) for r in range(card % 13 + 1, 13))
        threats = (
            higher if suit == trump else higher | sum(1 << (trump * 13 + r) for r in range(13))
        )
        if not threats & unseen:
            return "unbeatable"
        if trick and len(trick) == len(view["active"]) - 1:
            return "cheapest_winner"
    elif not any(wins_now(CARD_LOOKUP[c]) for c in legal):
        return "cannot_win"
    return "best_odds"


def hint(view: SeatView, appraisal: Appraisal) -> Hint:
    """The appraisal's best option, with the runner-up and the public facts behind it."""
    options = appraisal.options
    best = options[0]
    runner: Option | None = options[1] if len(options) > 1 else None
    ante = appraisal.ante
    action = best.action
    kind = _kind(action)
    trumps = _trumps(view)
    declared = set(view.get("declared") or [])
    declarations = view.get("declarations") or {}
    to_declare = sum(1 for p in view["players"] if p != view["seat"] and p not in declared)
    playing = sum(1 for p, d in declarations.items() if d == "play" and p != view["seat"])
    card: str | None = None
    draw = 0
    if kind == "card":
        card = str(action.get("card"))
        reason: Reason = _card_reason(view, appraisal, card)
    else:
        draw = len(action["discard"]) if action["type"] == "play" else 0
        declare = view.get("declare")
        if declare is not None and not declare["can_pass"]:
            reason = "must_play"
        else:
            reason = "pass_weak" if kind == "pass" else "play_strong"
    return Hint(
        kind=kind,
        reason=reason,
        action=action,
        gain=_antes(best.gain, ante),
        runner_up=runner.action if runner else None,
        runner_up_gain=_antes(runner.gain, ante) if runner else None,
        samples=best.samples,
        trumps=len(trumps),
        best_trump=trumps[0] if trumps else None,
        to_declare=to_declare,
        playing=playing,
        pot=_antes(int(view.get("pot") or 0), ante),
        draw=draw,
        card=card,
    )


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    if a.get("type") != b.get("type"):
        return False
    if a.get("type") == "card":
        return CARD_LOOKUP[str(a.get("card"))] == CARD_LOOKUP[str(b.get("card"))]
    if a.get("type") == "play":
        return {CARD_LOOKUP[str(c)] for c in a.get("discard") or []} == {
            CARD_LOOKUP[str(c)] for c in b.get("discard") or []
        }
    return True


def judge(appraisal: Appraisal, chosen: Mapping[str, Any]) -> Decision:
    """``chosen`` against the appraisal of the view it was made from."""
    best = appraisal.options[0]
    ante = appraisal.ante
    kind = _kind(chosen)
    found = next((o for o in appraisal.options if _same(o.action, chosen)), None)
    scored = True
    if found is None and kind == "play":
        # A discard the expert did not weigh: judged as play-or-pass only.
        found = next((o for o in appraisal.options if o.action["type"] == "play"), None)
        scored = False
    chosen_gain = found.gain if found is not None else best.gain
    matched = found is None or best.gain - chosen_gain <= _TIE
    return Decision(
        kind=kind,
        chosen=dict(chosen),
        best=best.action,
        best_gain=_antes(best.gain, ante),
        chosen_gain=_antes(chosen_gain, ante),
        matched=matched,
        discard_scored=scored,
    )
