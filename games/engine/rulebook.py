"""The rule wording the code uses, in one table keyed by RULES.md's numbers.

Every place that says a rule in words reads it from here: the engine's refusals
(``RULE_TEXT``: the short phrase after the rule number), the digital board's "why can't I
play this card" sentence (``why``, with ``{led}``, ``{trump}`` and ``{win}`` filled in by
the web layer) and the record form's note of the rule an engine error code breaks
(``CODE_RULES``). English here is the source text; the web layer renders it for people.

It is also the rule book's data: each :class:`Rule` may carry a ``note`` (how the engine
reads it) and ``sources`` (which sources say what), and :data:`SWITCHES` explains each
value of the switches a table should see chosen (the session start screen shows them).
The shape only grows: fields are added with defaults, never renamed.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CODE_RULES",
    "RULES",
    "RULE_TEXT",
    "SWITCHES",
    "Choice",
    "Rule",
    "Source",
    "Switch",
    "why",
]


@dataclass(frozen=True, slots=True)
class Source:
    """What one source of the rules says on a point (the rule book's "who says what")."""

    name: str  # e.g. "Spanish Wikipedia, Bourré"
    says: str  # one sentence, in a player's words


@dataclass(frozen=True, slots=True)
class Rule:
    number: str
    short: str  # after "R21: " in a refusal
    why: str = ""  # a player's sentence on the digital board; "" → "R21: short."
    # Added for the rule-book page (fields are only ever added here, never renamed):
    note: str = ""  # how the engine reads the rule where RULES.md was unclear or changed
    sources: tuple[Source, ...] = ()  # which sources say what


@dataclass(frozen=True, slots=True)
class Choice:
    """One value of a house-rule switch, explained in one line."""

    value: object
    means: str


@dataclass(frozen=True, slots=True)
class Switch:
    """A house-rule switch as the rule book and the session start screen explain it."""

    key: str  # as in the rules object (rules.RULE_FIELDS)
    rules: tuple[str, ...]  # the numbered rules it changes
    choices: tuple[Choice, ...]
    sources: tuple[Source, ...] = ()


_ENGLISH_PAGE = "English rules page"
_SPANISH_WIKI = "Spanish Wikipedia, Bourré"
_HOUSE = "This app's rule book (RULES.md)"


RULES: dict[str, Rule] = {
    r.number: r
    for r in (
        Rule("R9", "a player may discard at most max_discard cards"),
        Rule(
            "R12",
            "with an Ace up the dealer must play",
            note="The dealer may still discard the Ace (R13) unless the house rule "
            "dealer_may_discard_upcard is off: the duty is to play the hand, not to keep "
            "the card. A table that confirms the dealer really folded with an Ace up "
            "records it as the dealer's renege (R38).",
        ),
        Rule("R13", "the up-card may not be discarded"),
        Rule(
            "R16",
            "it is not your turn",
            note="A table that calls a declaration out of turn adds a forfeited deal for "
            "that player at this hand; it can never remove one. The forfeit clears once the "
            "deal has skipped the player. When every seated player owes one, they cancel "
            "out: the deal passes as usual and all are cleared.",
        ),
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
            note="Only under the house rule undertrump_required (on by default).",
            sources=(
                Source(_SPANISH_WIKI, "Undertrumping is required: most tables play it."),
                Source(_ENGLISH_PAGE, "Undertrumping is not an obligation."),
            ),
        ),
        Rule("R23", "any card"),
        Rule(
            "R26",
            "lead trump: every other player is known to hold none",
            "Lead trump (R26): every other player is known to hold no trump.",
            note="A player is known to hold no trump from the cards they played, reneges "
            "included, except while they visibly still hold the up-card trump (the dealer "
            "who kept it); a player who then plays a trump is no longer counted void.",
        ),
        Rule(
            "R27",
            "you have a cinch: lead your highest trump",
            "Cinch (R27): you are sure of a majority of tricks, so lead your highest trump.",
        ),
        Rule(
            "R29",
            "you have a cinch: play your highest trump when it would win the trick",
            "Cinch (R29): you are sure of a majority of tricks and your highest trump would "
            "win this trick, so play it.",
            note="Changed: the duty applies only when the highest allowed trump would win "
            "the trick as it stands. Under an Ace of trump you keep your top trump.",
            sources=(
                Source(
                    _HOUSE,
                    "A cinch holder must take the sure tricks, never throw one away under "
                    "a higher trump.",
                ),
            ),
        ),
        Rule(
            "R38",
            "that play breaks a rule: it is a renege",
            note="A record showing the dealer passing with an Ace up is refused as a likely "
            "typo, unless it also lists the dealer's renege with rule R12.",
        ),
    )
}

# The switches a table should see chosen when a session starts, each value explained.
SWITCHES: dict[str, Switch] = {
    w.key: w
    for w in (
        Switch(
            "undertrump_required",
            ("R22",),
            (
                Choice(
                    True, "Out of the led suit and unable to overtrump: you still play a trump."
                ),
                Choice(False, "Out of the led suit and unable to overtrump: play any card."),
            ),
            sources=(
                Source(_SPANISH_WIKI, "Required: most tables play it (the default here)."),
                Source(_ENGLISH_PAGE, "Optional: undertrumping is not an obligation."),
            ),
        ),
        Switch(
            "cinch",
            ("R27", "R28", "R29", "R30", "R31"),
            (
                Choice(
                    "sure_tricks",
                    "Sure of a majority of tricks: lead your top trump, and play it when it "
                    "would win the trick.",
                ),
                Choice("off", "No cinch duty: sure tricks may be taken in any order."),
            ),
            sources=(Source(_HOUSE, "On: what a Louisiana home game plays."),),
        ),
        Switch(
            "cinch_equivalence",
            ("R30",),
            (
                Choice("sequence", "Any trump in an unbroken run with your top one counts as it."),
                Choice("adjacent", "Only the trump just below your top one counts as it."),
                Choice("none", "Only your top trump itself."),
            ),
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
    "forfeit_removed": "R16",
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
