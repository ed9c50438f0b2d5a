"""The rule wording the code uses, in one table keyed by RULES.md's numbers.

Every place that says a rule in words reads it from here: the engine's refusals
(``RULE_TEXT``: the short phrase after the rule number), the digital board's "why can't I
play this card" sentence (``why``, with ``{led}``, ``{trump}`` and ``{win}`` filled in by
the web layer) and the record form's note of the rule an engine error code breaks
(``CODE_RULES``), and the in-app rule book (``BOOK``: every numbered rule in full, by
section, rendered at ``/rules/`` with each rule addressable as ``/rules/#R29``; its
wording is RULES.md's). English here is the source text; the web layer renders it for
people. Backticks mark the name of a house-rule switch.

Every text is marked with this module's own ``gettext_noop`` (a no-op: the engine imports
no Django) so that ``makemessages`` extracts it into locale/*.po;
``games.rulebook_text`` translates it when a page renders, keeping the rule numbers and
anchors. The command line keeps English.

It is also the rule book's data: each :class:`Rule` may carry a ``note`` (how the engine
reads it) and ``sources`` (which sources say what), and :data:`SWITCHES` explains each
value of the switches a table should see chosen (the session start screen shows them).
The shape only grows: fields are added with defaults, never renamed.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "BOOK",
    "CODE_RULES",
    "RULES",
    "RULE_TEXT",
    "SWITCHES",
    "Choice",
    "Entry",
    "Rule",
    "Section",
    "Source",
    "Switch",
    "entry",
    "why",
]


@dataclass(frozen=True, slots=True)
class Source:
    """What one source of the rules says on a point (the rule book's "who says what")."""

    name: str  # e.g. "Spanish Wikipedia, Bourré"
    says: str  # one sentence, in a player's words

    def __str__(self) -> str:
        return f"{self.name}: {self.says}"


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


def gettext_noop(text: str) -> str:
    """Marks a text for translation and returns it unchanged (the engine imports no
    Django; the web layer translates when it renders, and ``makemessages`` finds these by
    this name)."""
    return text


_ENGLISH_PAGE = gettext_noop("English rules page")
_SPANISH_WIKI = gettext_noop("Spanish Wikipedia, Bourré")
_HOUSE = gettext_noop("This app's rule book (RULES.md)")


RULES: dict[str, Rule] = {
    r.number: r
    for r in (
        Rule("R9", gettext_noop("a player may discard at most max_discard cards")),
        Rule(
            "R12",
            gettext_noop("with an Ace up the dealer must play"),
            note=gettext_noop(
                "The dealer may still discard the Ace (R13) unless the house rule "
                "dealer_may_discard_upcard is off: the duty is to play the hand, not to keep "
                "the card. A table that confirms the dealer really folded with an Ace up "
                "records it as the dealer's renege (R38)."
            ),
        ),
        Rule("R13", gettext_noop("the up-card may not be discarded")),
        Rule(
            "R16",
            gettext_noop("it is not your turn"),
            note=gettext_noop(
                "A table that calls a declaration out of turn adds a forfeited deal for "
                "that player at this hand; it can never remove one. The forfeit clears once the "
                "deal has skipped the player. When every seated player owes one, they cancel "
                "out: the deal passes as usual and all are cleared."
            ),
        ),
        Rule(
            "R19",
            gettext_noop("follow suit"),
            gettext_noop("Follow suit (R19): {led} were led and you hold {led}."),
        ),
        Rule(
            "R20",
            gettext_noop("void in the led suit: play a trump"),
            gettext_noop("Trump (R20): you hold no {led}, so you must play a trump ({trump})."),
        ),
        Rule(
            "R21",
            gettext_noop("head the trick"),
            gettext_noop("Head the trick (R21): you must beat {win} when you can."),
        ),
        Rule(
            "R22",
            gettext_noop("void and unable to overtrump: you must still play a trump"),
            gettext_noop(
                "Trump (R22): you hold no {led} and cannot overtrump, but must still play a trump."
            ),
            note=gettext_noop("Only under the house rule undertrump_required (on by default)."),
            sources=(
                Source(
                    _SPANISH_WIKI, gettext_noop("Undertrumping is required: most tables play it.")
                ),
                Source(_ENGLISH_PAGE, gettext_noop("Undertrumping is not an obligation.")),
            ),
        ),
        Rule("R23", gettext_noop("any card")),
        Rule(
            "R26",
            gettext_noop("lead trump: every other player is known to hold none"),
            gettext_noop("Lead trump (R26): every other player is known to hold no trump."),
            note=gettext_noop(
                "A player is known to hold no trump from the cards they played, reneges "
                "included, except while they visibly still hold the up-card trump (the dealer "
                "who kept it); a player who then plays a trump is no longer counted void."
            ),
        ),
        Rule(
            "R27",
            gettext_noop("you have a cinch: lead your highest trump"),
            gettext_noop(
                "Cinch (R27): you are sure of a majority of tricks, so lead your highest trump."
            ),
        ),
        Rule(
            "R29",
            gettext_noop("you have a cinch: play your highest trump when it would win the trick"),
            gettext_noop(
                "Cinch (R29): you are sure of a majority of tricks and your highest trump would "
                "win this trick, so play it."
            ),
            note=gettext_noop(
                "Changed: the duty applies only when the highest allowed trump would win "
                "the trick as it stands. Under an Ace of trump you keep your top trump."
            ),
            sources=(
                Source(
                    _HOUSE,
                    gettext_noop(
                        "A cinch holder must take the sure tricks, never throw one away under "
                        "a higher trump."
                    ),
                ),
            ),
        ),
        Rule(
            "R38",
            gettext_noop("that play breaks a rule: it is a renege"),
            note=gettext_noop(
                "A record showing the dealer passing with an Ace up is refused as a likely "
                "typo, unless it also lists the dealer's renege with rule R12."
            ),
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
                    True,
                    gettext_noop(
                        "Out of the led suit and unable to overtrump: you still play a trump."
                    ),
                ),
                Choice(
                    False,
                    gettext_noop("Out of the led suit and unable to overtrump: play any card."),
                ),
            ),
            sources=(
                Source(
                    _SPANISH_WIKI, gettext_noop("Required: most tables play it (the default here).")
                ),
                Source(
                    _ENGLISH_PAGE, gettext_noop("Optional: undertrumping is not an obligation.")
                ),
            ),
        ),
        Switch(
            "cinch",
            ("R27", "R28", "R29", "R30", "R31"),
            (
                Choice(
                    "sure_tricks",
                    gettext_noop(
                        "Sure of a majority of tricks: lead your top trump, and play it when it "
                        "would win the trick."
                    ),
                ),
                Choice(
                    "off", gettext_noop("No cinch duty: sure tricks may be taken in any order.")
                ),
            ),
            sources=(Source(_HOUSE, gettext_noop("On: what a Louisiana home game plays.")),),
        ),
        Switch(
            "cinch_equivalence",
            ("R30",),
            (
                Choice(
                    "sequence",
                    gettext_noop("Any trump in an unbroken run with your top one counts as it."),
                ),
                Choice(
                    "adjacent", gettext_noop("Only the trump just below your top one counts as it.")
                ),
                Choice("none", gettext_noop("Only your top trump itself.")),
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


# -- the rule book ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entry:
    number: str
    title: str  # a rule's name where it has one ("Follow suit"), else ""
    text: str


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    entries: tuple[Entry, ...]


BOOK: tuple[Section, ...] = (
    Section(
        gettext_noop("Deck, players, deal"),
        (
            Entry("R1", "", gettext_noop("One 52-card pack.")),
            Entry("R3", "", gettext_noop("2–8 players; reject anything else.")),
            Entry(
                "R2",
                "",
                gettext_noop(
                    "The dealer's last card is dealt face up: its suit is trump for the hand. Any trump beats any card of another suit."
                ),
            ),
            Entry(
                "R5",
                "",
                gettext_noop(
                    "Before the deal every seated player antes `ante`, except players excused by the previous hand (R35, R36, R39). A player who then passes loses the ante."
                ),
            ),
            Entry(
                "R7",
                "",
                gettext_noop(
                    "Five cards each (`hand_size`), one at a time, clockwise from the dealer's left."
                ),
            ),
            Entry(
                "R8",
                "",
                gettext_noop(
                    "After the hand the deal passes to the next seat on the left, skipping a player who forfeited a deal (R39, R16)."
                ),
            ),
        ),
    ),
    Section(
        gettext_noop("Declaring and drawing"),
        (
            Entry(
                "R9",
                "",
                gettext_noop(
                    "Clockwise from the dealer's left, each player declares PASS or PLAY; a player who plays names how many cards to discard (0..`max_discard`) and is dealt that many from the stock. The dealer declares last."
                ),
            ),
            Entry(
                "R10",
                "",
                gettext_noop(
                    "A passer is out of the hand: cannot win, cannot be bourréd, pays nothing more."
                ),
            ),
            Entry("R12", "", gettext_noop("If the up-card is an Ace the dealer must PLAY.")),
            Entry(
                "R13",
                "",
                gettext_noop(
                    "The up-card belongs to the dealer's hand. If the dealer discards it, it is set aside face up (so every player knows it is dead); trump does not change."
                ),
            ),
            Entry(
                "R14",
                "",
                gettext_noop(
                    "As soon as every player but one has passed, the remaining player (dealer included) takes all tricks and the pot without play. Nobody is bourréd."
                ),
            ),
            Entry(
                "R15",
                "",
                gettext_noop(
                    "If the stock runs out during the draw, the discards — except those of the player being served — are shuffled to form a new stock (`stock_refill`)."
                ),
            ),
            Entry(
                "R16",
                "",
                gettext_noop(
                    "Declaring or announcing a discard count out of turn forfeits your next deal."
                ),
            ),
        ),
    ),
    Section(
        gettext_noop("Trick play"),
        (
            Entry(
                "R17",
                "",
                gettext_noop(
                    "The first active player left of the dealer leads trick 1; each trick's winner leads the next."
                ),
            ),
            Entry(
                "R18",
                "",
                gettext_noop(
                    "The highest trump wins; with no trump, the highest card of the led suit wins. A card of any other suit never wins."
                ),
            ),
            Entry(
                "R19",
                gettext_noop("Follow suit"),
                gettext_noop(
                    "if able — even when the trick is already trumped. Never trump while holding the led suit."
                ),
            ),
            Entry(
                "R20",
                gettext_noop("Void in the led suit → trump"),
                gettext_noop("if you hold one."),
            ),
            Entry(
                "R21",
                gettext_noop("Head the trick."),
                gettext_noop(
                    "If any of the cards still allowed would beat the card currently winning the trick, you must play one of those. So: beat the highest card of the led suit while the trick is untrumped; on a trump lead play a higher trump; void and the trick is trumped → overtrump. When you follow suit to a trumped trick nothing can win, so any card of the led suit is allowed (`head_led_suit_after_trump`)."
                ),
            ),
            Entry(
                "R22",
                "",
                gettext_noop(
                    "Void, holding trump, and unable to overtrump: you must still play a trump (`undertrump_required`)."
                ),
            ),
            Entry("R23", "", gettext_noop("Neither the led suit nor trump: any card.")),
            Entry("R25", "", gettext_noop("Any card may be led, except:")),
            Entry(
                "R26",
                "",
                gettext_noop(
                    "A leader who holds trump must lead trump when every other active player is known to hold none (`lead_trump_when_others_void`). A player is known to be trump-void once they played a non-trump to a trump lead, or played neither the led suit nor trump where the rules would have forced a trump had they held one (always under the default `undertrump_required`; with it off, only when no trump had yet been played to that trick). Everybody is known void when no trump remains unseen from the leader's view."
                ),
            ),
        ),
    ),
    Section(
        gettext_noop("The cinch (`cinch`)"),
        (
            Entry(
                "R28",
                "",
                gettext_noop(
                    "A player has a cinch when `tricks already won + sure trump tricks ≥ 3` (a majority: `hand_size // 2 + 1`). Sure trump tricks are computed only from what that player can know at that moment:\n- dead cards: cards already played, the player's own discards, an up-card set aside;\n- unseen trumps `U`: trumps neither in the player's hand nor dead (empty if every other active player is known trump-void);\n- kills: the size of a maximum matching that pairs each unseen trump with a distinct lower trump of the player (greedy: take the player's trumps from the lowest up, pair each with the lowest unused higher unseen trump);\n- `sure = number of the player's trumps − kills`. Side-suit aces never count. Examples: A-K-Q of trump from the deal → sure 3; one trick won and A-K → cinch; two won and the A → cinch; one won and A-Q-J with the K unseen → 1 + 2 = cinch."
                ),
            ),
            Entry(
                "R27",
                "",
                gettext_noop(
                    "A cinch holder who leads and holds trump must lead the highest trump (or an equivalent, R30)."
                ),
            ),
            Entry(
                "R29",
                "",
                gettext_noop(
                    "A cinch holder who follows and is not last to play, when the highest trump still allowed (after R19–R23) would win the trick as it stands, must play that trump or an equivalent. When no allowed trump can win the trick (an Ace of trump led, or already played, above all of theirs), R29 asks nothing: the holder keeps the top trump and may play any card R19–R23 allow. The cinch is a promise of sure tricks; the rule makes the holder take them now, never throw one away."
                ),
            ),
            Entry(
                "R30",
                "",
                gettext_noop(
                    'Equivalence (`cinch_equivalence`): a trump is equivalent to the highest one when every trump ranked between them is in the player\'s hand or dead (`sequence`, default); `adjacent`: only the card exactly one rank below; `none`: the highest only. The must-head filter (R21) is applied first, so an "equivalent" card that cannot win stays illegal.'
                ),
            ),
            Entry(
                "R31",
                "",
                gettext_noop(
                    "A cinch holder who plays last only has to win the trick if able (R21 already says so); no highest-trump duty."
                ),
            ),
        ),
    ),
    Section(
        gettext_noop("Payout"),
        (
            Entry(
                "R33",
                "",
                gettext_noop(
                    "The player with strictly more tricks than every other player wins the whole pot (two tricks can win: 2-1-1-1)."
                ),
            ),
            Entry(
                "R34",
                "",
                gettext_noop(
                    'A tie for most tricks (2-2-1, 1-1-1-1-1, …) is a split pot: nobody wins and the whole pot carries over (`split_pot: "carry"`; `"divide"` shares it equally among the tied players, the indivisible remainder carried).'
                ),
            ),
            Entry(
                "R35",
                "",
                gettext_noop(
                    'Players tied for most skip the next ante (`tied_excused`) when the pot carried over; under `"divide"` they were paid, so nobody is excused for the tie.'
                ),
            ),
            Entry(
                "R36",
                gettext_noop("Bourré"),
                gettext_noop(
                    "A player who played and took no trick pays `min(pot, pot_limit)` into the next pot instead of an ante, and is excused from the next ante. Several bourrés each pay in full."
                ),
            ),
            Entry(
                "R37",
                "",
                gettext_noop(
                    "`pot_limit` caps what a bourré or renege costs. It does not cap what the winner takes unless `limit_caps_winner` is on (then the winner takes `min(pot, pot_limit)` and the rest carries)."
                ),
            ),
            Entry(
                "R38",
                gettext_noop("Renege"),
                gettext_noop(
                    'Any play that breaks R19–R31 (or R12, R26, R27 for declarations and leads). A record that shows the dealer passing with an Ace up is refused (`dealer_must_play`, a typo guard) unless it also lists that breach as the dealer\'s renege (`rule: "R12"`): a table that confirms the dealer really folded records it as an uncorrected renege.'
                ),
            ),
            Entry(
                "R39",
                "",
                gettext_noop(
                    'A renege not corrected before the next player plays: the offender pays `min(pot, pot_limit)` into the next pot (once, even if also bourréd), cannot win the pot, and is excused from the next ante. A renege corrected in time: the card goes back, the offender cannot win this pot and forfeits their next deal, but pays nothing extra. If the player with most tricks is ineligible, or ties with anyone at the top, the pot carries over (`ineligible_winner: "carry"`; `"next_best"` awards it to a strict plurality among eligible players). Eligible players tied at the top are excused (R35).'
                ),
            ),
            Entry(
                "R40",
                "",
                gettext_noop(
                    'If every player passes (possible only with `declaration: "simultaneous"`): with an Ace up-card the dealer is deemed to play and wins uncontested (R12, R14); otherwise the pot carries over untouched and nobody is excused.'
                ),
            ),
        ),
    ),
)

_BY_NUMBER: dict[str, Entry] = {e.number: e for section in BOOK for e in section.entries}


def entry(number: str) -> Entry | None:
    """The rule book's entry for a rule number ("R29"), or None."""
    return _BY_NUMBER.get(number)
