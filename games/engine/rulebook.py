"""The rule wording the code uses, in one table keyed by RULES.md's numbers.

Every place that says a rule in words reads it from here: the engine's refusals
(``RULE_TEXT``: the short phrase after the rule number), the digital board's "why can't I
play this card" sentence (``why``, with ``{led}``, ``{trump}`` and ``{win}`` filled in by
the web layer) and the record form's note of the rule an engine error code breaks
(``CODE_RULES``). English here is the source text; the web layer renders it for people.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CODE_RULES", "RULES", "RULE_TEXT", "Rule", "why"]


@dataclass(frozen=True, slots=True)
class Rule:
    number: str
    short: str  # after "R21: " in a refusal
    why: str = ""  # a player's sentence on the digital board; "" → "R21: short."


RULES: dict[str, Rule] = {
    r.number: r
    for r in (
        Rule("R9", "a player may discard at most max_discard cards"),
        Rule("R12", "with an Ace up the dealer must play"),
        Rule("R13", "the up-card may not be discarded"),
        Rule("R16", "it is not your turn"),
        Rule(
            "R19",
            "follow suit",
            "Follow suit (R19): {led} were led and you hold {led}.",
        ),
        Rule(
            "R20",
            "void in the led suit: play a trump",
            "Trump (R20): you hold no {led}, so you must play a trump ({trump}).",
        ),
        Rule(
            "R21",
            "head the trick",
            "Head the trick (R21): you must beat {win} when you can.",
        ),
        Rule(
            "R22",
            "void and unable to overtrump: you must still play a trump",
            "Trump (R22): you hold no {led} and cannot overtrump, but must still play a trump.",
        ),
        Rule("R23", "any card"),
        Rule(
            "R26",
            "lead trump: every other player is known to hold none",
            "Lead trump (R26): every other player is known to hold no trump.",
        ),
        Rule(
            "R27",
            "you have a cinch: lead your highest trump",
            "Cinch (R27): you are sure of a majority of tricks, so lead your highest trump.",
        ),
        Rule(
            "R29",
            "you have a cinch: play your highest trump",
            "Cinch (R29): you are sure of a majority of tricks, so play your highest trump.",
        ),
    )
}

# The engine's refusals: "R21: head the trick — you may play …".
RULE_TEXT: dict[str, str] = {n: r.short for n, r in RULES.items()}

# The rule an engine error code is about, when its message does not name one.
CODE_RULES: dict[str, str] = {
    "bad_players": "R3",
    "hand_size": "R7",
    "tricks_total": "R7",
    "tricks_mismatch": "R7",
    "too_many_plays": "R7",
    "too_many_discards": "R9",
    "passed_player_played": "R10",
    "dealer_must_play": "R12",
    "up_card_misplaced": "R13",
    "bad_passed": "R14",
    "out_of_turn": "R17",
    "trump_mismatch": "R2",
    "missing_trump": "R2",
    "duplicate_card": "R1",
}


def why(rule: str, *, led: str, trump: str, win: str) -> str:
    """Why a card may not be played, in a player's words."""
    known = RULES.get(rule)
    if known is not None and known.why:
        return known.why.format(led=led, trump=trump, win=win)
    return f"{rule}: {known.short if known else 'not allowed now'}."
