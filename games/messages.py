"""The refusals of the engine, the ledger and the services in the reader's language (issue 19).

The engine and the ledger raise ``BourreError`` with a ``message_id`` (its ``code``,
unless one code has several sentences) and ``params`` (player, card, trick, rule...);
their English ``str(error)`` is for the command line and the logs. People read what
``render`` makes of it here: the catalogue sentence of that id in the active language,
filled in with the params. In English the engine's own sentence is kept word for word
(it is often more precise than the catalogue's, and tests and API clients read it).

A sentence may come in several forms, tried in order: the first whose params are all
known is used (a renege names its player when the record says who). The catalogue never
speaks rule numbers: the "why?" link beside a refusal does that. Every id the engine, the
ledger and the services people meet (tournaments, digital hands, clubs: the block
``SERVICE_MESSAGES``) can raise has an entry here; tests/i18n/test_messages.py reads them
from the source and fails on a missing one. An error whose params carry a ``reason_id``
is rendered as its sentence followed by that reason's (a broken later hand, a table that
cannot deal).

The "why?" links: a refusal or form error may end with its rule in brackets ("… took no
tricks (R10).", "R21: head the trick", "(R13: up-card kept)"). ``rule_references``
separates the sentence from those rules once, here, so the ``why`` template filter only
formats a typed ``RuleReferences``; ``rule_book_parts`` splits a rule book entry into text,
switch names (in backticks) and rule numbers for the ``rule_text`` filter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from django.utils.functional import Promise
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from games.engine.errors import BourreError

__all__ = [
    "MESSAGES",
    "SERVICE_MESSAGES",
    "RuleBookPart",
    "RuleReferences",
    "render",
    "render_error",
    "rule_book_parts",
    "rule_references",
]

Sentence = Promise | tuple[Promise, ...]

MESSAGES: dict[str, Sentence] = {
    # -- playing a hand on the phones ------------------------------------------------------
    "already_declared": _("%(player)s has already declared."),
    "declare_out_of_turn": _("It is %(expected)s's turn to declare, not %(player)s's."),
    "out_of_turn": (
        _("Trick %(trick)s: it was not %(player)s's turn to play."),
        _("It is %(expected)s's turn to play, not %(player)s's."),
        _("A card was played out of turn."),
    ),
    "dealer_must_play": (
        _("With an Ace up the dealer %(player)s must play."),
        _("With an Ace up (%(card)s) the dealer must play."),
    ),
    "cannot_discard_up_card": _("The dealer may not discard the up-card under these house rules."),
    "too_many_discards": (
        _("%(player)s discarded too many cards."),
        _("Discard at most %(limit)s cards."),
    ),
    "card_not_in_hand": (
        _("Trick %(trick)s: %(player)s played %(card)s, which is not in their hand."),
        _("%(card)s is not in %(player)s's hand."),
    ),
    "illegal_card": _("%(card)s breaks a rule of play here. You may play %(legal)s."),
    "passed_player_played": (
        _("%(player)s passed and is out of this hand."),
        _("A player who passed is out of this hand."),
    ),
    "hand_over": _("The hand is over."),
    "cards_after_declaring": _("Cards are played after everyone has declared."),
    "declaring_over": _("Declaring is over; play a card."),
    "no_card_now": _("No card can be played now."),
    "unknown_player": (
        _("%(player)s is not one of the players."),
        _("A player named here is not one of the players."),
    ),
    "unknown_action": _("That move is not known; pass, play or play a card."),
    "bad_action": _("That move is not understood."),
    "discard_not_list": _("Name the cards to discard."),
    "duplicate_card": (
        _("%(card)s is named twice."),
        _("A card is named twice."),
    ),
    "not_a_card": _("%(text)s is not a card (write rank then suit, like AS, TH, 10H)."),
    "card_not_text": _("Write a card as rank then suit, like AS, TH, 10H."),
    "not_a_suit": _("%(text)s is not a suit (use S, H, D or C)."),
    "suit_not_text": _("Write a suit as S, H, D or C."),
    "card_index": _("That is not a card."),
    "bad_card": _("A card is not written as a card (like AS, TH, 10H)."),
    "bad_suit": _("The trump is not a suit (S, H, D or C)."),
    # -- a hand's record -------------------------------------------------------------------
    "bad_record": _("The hand's record is not in the expected form."),
    "unknown_field": _("The hand's record has a field this app does not know."),
    "bad_players": _("A hand needs 2 to 8 players."),
    "players_not_list": _("Give the players as a list of names."),
    "players_empty": _("Every player needs a name."),
    "players_not_distinct": _("Two players have the same name."),
    "duplicate_player": (
        _("%(player)s is listed twice."),
        _("A player is listed twice."),
    ),
    "bad_dealer": _("The dealer must be one of the players."),
    "bad_carry": _("The pot carried in must be a whole amount of 0 or more."),
    "excused_not_seated": _("%(player)s is excused from the ante but not seated."),
    "missing_trump": _("Give the up-card or the trump suit."),
    "trump_mismatch": _("The trump is not the suit of the up-card."),
    "bad_passed": _("Everybody passed: that is possible only when everyone declares at once."),
    "bad_renege": (
        _("The renege of %(player)s is not possible in this hand."),
        _("A renege in the record is not possible in this hand."),
    ),
    "bad_tricks": _("Tricks must be whole numbers from 0 to the hand size."),
    "hand_size": (
        _("%(player)s's hand does not have the right number of cards."),
        _("A hand does not have the right number of cards."),
    ),
    "hands_required": _("A partial card log needs %(player)s's hand."),
    "too_many_plays": _("More cards are played than the hands hold."),
    "up_card_misplaced": _("The up-card %(card)s belongs to the dealer's hand."),
    "tricks_total": _("The tricks do not add up to the tricks of a hand."),
    "tricks_mismatch": _("The tricks do not match the card log."),
    "incomplete": _("The hand is not finished yet: give the tricks or the rest of the card log."),
    "internal_error": _("The hand could not be checked; nothing was saved."),
    "pot_over_cap": _(
        "This hand would bring the next pot past the largest pot these books keep: set a pot "
        "limit so that a bourré costs less, then record the hand again."
    ),
    "balance_over_cap": _(
        "This hand would bring %(player)s's total past the largest balance these books keep: "
        "close this session and start a new one."
    ),
    "forfeit_removed": _(
        "A table can add a forfeited deal for a declaration out of turn, never remove one."
    ),
    "session_mismatch": _("The hand says %(field)s differently from this session."),
    "hand_rejected": _("The hand was not recorded: the record is not valid for this session."),
    "later_hand_broken": _("Hand %(number)s no longer stands after this correction."),
    "needs_confirmation": _("Check this hand before it is saved: %(reasons)s"),
    "bad_json": _("The hand's record is not valid JSON."),
    # -- sessions, seats, chips ------------------------------------------------------------
    "session_players": _("A session needs 2 to 8 players."),
    "players_not_on_roster": _("Every player must be on the club's roster."),
    "player_not_on_roster": _("The player is not on the club's roster."),
    "chips_not_seated": _("Chips were given for a player who is not seated."),
    "bad_mode": _("That is not a way to play this session."),
    "bad_policy": _("That is not a way to settle the pot left at the end."),
    "bad_name": _("The session needs a name of at most 100 characters."),
    "bad_currency": _("The currency unit is 1 to 8 characters."),
    "already_seated": _("%(player)s is already seated."),
    "too_many_players": _("A table seats at most 8 players."),
    "too_few_players": _("A hand needs at least 2 players: close the session instead."),
    "bad_position": _("The seat must be a whole number of 0 or more."),
    "not_seated": _("That player has no seat in this session."),
    "not_chip_limited": _("Only a tournament table's pot can be awarded."),
    "not_enough_chips": _("Only %(stack)s in front of that player."),
    "bad_amount": _("The amount must be a whole number above 0 and at most %(max)s."),
    "bad_key": _("The idempotency key is longer than 80 characters."),
    "bad_kind": _("That is not a kind of hand."),
    "bad_hand": _("There is no such hand in this session."),
    "stale_state": _("The session changed meanwhile; reload it and submit again."),
    "session_closed": _("This session is closed."),
    "table_must_break": _(
        "Table %(table)s has %(players)s players, fewer than the minimum of %(min)s: it "
        "breaks up before it deals again. The tournament dashboard says where each player "
        "goes; the director's “Check the tables” does it now."
    ),
    "table_must_wait": _(
        "Table %(table)s has %(players)s players, fewer than the minimum of %(min)s: a "
        "player joins it before it deals again. The tournament dashboard says from which "
        "table and when; between hands there, the director's “Check the tables” does it now."
    ),
    # -- the club's tab (issue #34) --
    "tab_session_open": _("Close the session first: only a final settlement goes on the tab."),
    "tab_no_transfer": _("That transfer is no longer part of the settlement."),
    "tab_paid_tonight": _("%(payer)s → %(payee)s is ticked paid tonight: clear the tick first."),
    "tab_on_tab": _("That transfer is on the club's tab: take it off the tab first."),
    "tab_bad_method": _("Choose how it was paid."),
    "tab_same_player": _("Choose two different players."),
    "tab_payment_reversed": _("That payment was reversed; record it again if it was made."),
    "digital_hand_in_progress": _(
        "A digital hand is being played at this table; finish or cancel it first."
    ),
    "hand_in_play": _("This hand is still being played."),
    "not_latest": _("Only the latest hand can be undone; undo the later ones first."),
    "not_recorded": _("Hand %(number)s is not a recorded hand of this session."),
    "tournament_table": _(
        "A tournament table's chips have moved on since; only its latest hand can be undone."
    ),
    "bad_rule_value": (
        _("The house rule %(key)s has a value that is not allowed."),
        _("A house rule has a value that is not allowed."),
    ),
    "unknown_rule": _("There is no house rule %(key)s."),
    "rules_not_object": _("The house rules are not in the expected form."),
    # -- tournaments -----------------------------------------------------------------------
    "table_size": _(
        "Table sizes must satisfy %(smallest)s ≤ minimum ≤ maximum ≤ %(largest)s "
        "(Bourré seats 2 to 8 players)."
    ),
    "table_too_few": _("A table needs at least two players."),
    "round_too_few": _("A round needs at least two players."),
    "duplicate": _("A player can only be drawn once."),
    "sizes": _("Table sizes do not add up to the players."),
    "tiebreak": _("Unknown tie-break %(tiebreak)s."),
    "break_pot": _(
        "A short table's pot either moves with its players or is played out: not %(choice)s."
    ),
    "antes": _("The ante schedule is empty."),
    "level_minutes": _("A timed structure needs minutes per level."),
    "pay_one_place": _("Pay at least one place."),
    "payout_percent_positive": _("Each paid place needs a whole percentage above 0."),
    "payout_percent_sum": _("The percentages add up to %(sum)s, not 100."),
    "payout_order": _("A lower place cannot pay more than a higher one."),
    "payout_too_many_places": _(
        "%(places)s places are paid but only %(entrants)s players entered."
    ),
    "payout_few_finishers": _("Fewer finishers than paid places."),
    "pool": _("The prize pool cannot be negative."),
    "payout_unit": _("The rounding unit must be at least 1."),
    "deal_needs_players": _("A deal needs players."),
    "deal_nothing_left": _("Nothing is left to share by chips."),
    "deal_every_player": _("Give an amount to every player still in, and to nobody else."),
    "deal_whole_amounts": _("Each amount must be a whole amount of 0 or more."),
    "deal_total": _("The amounts add up to %(sum)s, not the %(total)s left to win."),
}


# -- the services' refusals: tournaments, digital hands, clubs (issue 19, G-refusals) --------
# Kept as their own block so that the catalogue above and this one merge apart.
SERVICE_MESSAGES: dict[str, Sentence] = {
    # -- a tournament's settings (games.tournaments.validation) --
    "unknown_format": _("There is no tournament format %(format)s."),
    "unknown_table_mode": _("%(mode)s is not a way to play the tables."),
    "buy_in_range": _("The buy-in must be an amount from 0 to %(max)s."),
    "fee_range": _("The fee must be an amount from 0 to %(max)s."),
    "starting_chips": _("The starting chips must be above 0 and at most %(max)s."),
    "antes_whole": _("Each ante must be a whole number above 0."),
    "antes_max": _("An ante can be at most %(max)s."),
    "antes_rising": _("The antes cannot go down from one level to the next."),
    "hands_per_round": _("A round needs at least one hand."),
    "advance_per_table": _(
        "From a table of at least %(smallest)s players, between 1 and %(most)s can go on to "
        "the next round."
    ),
    "payout_preset": _("There is no prize split called %(preset)s."),
    "structure_preset": _("There is no level structure called %(preset)s."),
    "addon_price": _("The add-on price must be a whole amount of 0 or more."),
    "levels": _("A freeze-out needs rising antes: set minutes per level or hands per level."),
    "levels_both": _(
        "Levels go by minutes or by hands, not both: set one of minutes per level and hands "
        "per level to 0."
    ),
    "break_minutes": _("Say how long the breaks are."),
    "unknown_settings": _("These settings are not known: %(names)s."),
    # -- registration and the start --
    "seed_fixed": _("The draw's seed is fixed once the first player registers."),
    "settings_fixed": _("The settings are fixed once the tournament starts."),
    "paid": _("Players have paid already: the buy-in and fee cannot change now."),
    "registration_closed": (
        _("Registration closed after level %(level)s."),
        _("Registration closed when the first round started."),
    ),
    "enter_roster_only": _("Only players on the club's roster can enter."),
    "entered": _("%(player)s is already entered."),
    "check_in_closed": _("Check-in closed when the tournament started."),
    "waiting": _(
        "%(player)s is on the waiting list: the field is full (%(max)s players). They can "
        "check in when a place frees up."
    ),
    "not_registered": _("%(player)s is not registered."),
    "cap_fixed": _("The field cap can change before the start or while late registration is open."),
    "cap_number": _("The field cap is a whole number (0: no cap)."),
    "cap_below": _("%(n)s places are taken: the cap cannot go below that."),
    "during_break": _(
        "%(tournament)s is on a break (%(left)s left): nothing was saved. If this hand was "
        'played before the break began, send it again with "during_break": true.'
    ),
    "withdraw_closed": _(
        "After the start nobody withdraws: a player is out when their chips are gone."
    ),
    "started_already": _("The tournament has started already."),
    "too_few": _("At least two checked-in players are needed."),
    "no_entry": _("That player is not entered in this tournament."),
    # -- rounds and tables --
    "rounds_not_running": _("Only a running tournament has rounds."),
    "freezeout_one_round": _("A freeze-out has a single round."),
    "playing": _("Round %(number)s is still being played."),
    "not_running": _("The tournament is not running."),
    "freezeout_tables_end": _("Freeze-out tables end when they break up."),
    "not_started": _("No round has started."),
    "bots_digital_only": _("Only digital tables are played by bots."),
    # -- the clock --
    "unknown_clock_action": _("The clock has no button %(action)s."),
    "clock_stopped": _("The tournament is over: the clock has stopped."),
    "clock_by_hands": _("Levels go by hands here, not by the clock: set minutes per level first."),
    "clock_running": _("The clock is already running."),
    "clock_not_started": _("Start the clock first."),
    "clock_seconds": _("Move the clock by whole seconds, at most a day."),
    # -- a deal at the final table --
    "deal_not_running": _("Deals are made while the tournament runs."),
    "not_final": _("Deals are made at the final table."),
    "pot": _(
        "There are still chips in the pot (%(pot)s): play the hand that wins it, then make "
        "the deal."
    ),
    "unknown_deal": _("That is not a kind of deal: split evenly, by chips, by ICM, or as agreed."),
    "deal_agreed": (
        _("Every player still in must agree to the deal (not yet: %(names)s)."),
        _("Every player still in must agree to the deal."),
    ),
    # -- late entries, re-entries, rebuys, the add-on --
    "late_freezeout_only": _(
        "Re-entries, rebuys and the add-on are for freeze-outs: in table rounds each round's "
        "draw decides who plays."
    ),
    "reentry_closed": (
        _("Re-entry closed after level %(level)s."),
        _("Re-entry closed at the start."),
    ),
    "rebuy_closed": (
        _("Rebuys closed after level %(level)s."),
        _("Rebuys closed at the start."),
    ),
    "addon_closed": (
        _("The add-on closed after level %(level)s."),
        _("The add-on closed at the start."),
    ),
    "reentry_limit": (
        _("%(player)s has used every re-entry allowed (%(limit)s)."),
        _("This tournament has no re-entries."),
    ),
    "rebuy_limit": (
        _("%(player)s has used every rebuy allowed (%(limit)s)."),
        _("This tournament has no rebuys."),
    ),
    "still_in": _("%(player)s is still in: only a busted player re-enters."),
    "no_seat_in_play": _("%(player)s has no seat at a table in play."),
    "busy": _("A hand is being played at that table: buy chips between hands."),
    "rebuy_out": _("%(player)s is not playing: a busted player re-enters instead."),
    "rebuy_stack": _(
        "%(player)s has a stack of %(stack)s: a rebuy is for a stack of %(limit)s or less."
    ),
    "no_addon": _("This tournament has no add-on."),
    "addon_out": _("%(player)s is not playing."),
    "addon_taken": _("%(player)s has taken the add-on already."),
    # -- digital hands on the phones (games.digital.service) --
    "no_digital_hand": _("There is no such digital hand at this table."),
    "no_hand_in_play": _("No digital hand is being played."),
    "no_seat": _("There is no such seat at this table."),
    "hand_in_progress": _("A digital hand is already being played at this table."),
    "bad_setup": _("This table cannot deal a hand."),
    "deal_pot_over_cap": _(
        "The pot is so large that with bourrés this hand could bring it past the largest pot "
        "these books keep. Set a pot limit in the session's rules, or record the next hand as "
        "a reported hand."
    ),
    "wrong_seat": _("This link is %(player)s's seat; it cannot play for %(claimed)s."),
    "stale": _("The table moved on; here is where it stands now."),
    "not_dealt_in": _("%(player)s is not dealt into this hand."),
    "hand_cancelled_closed": _(
        "The session was closed while this hand was being played; no money moved."
    ),
    "hand_cancelled": _(
        "The table changed while this hand was being played (a hand was recorded, a seat or "
        "the rules changed), so it was cancelled; no money moved."
    ),
    "bad_level": _("Choose how well the bot plays: easy, normal, careful or expert."),
    "settle_failed": _("The hand is over but could not be settled; nothing was saved."),
    # -- a club's members and players (games.clubs.service) --
    "invite_used": _("This invitation was already used or has expired."),
    "keep_an_owner": _("A club needs at least one owner. Make someone else owner first."),
    "last_owner": _("The last owner cannot be removed."),
    "player_seated": _(
        "%(player)s has a seat in the open session “%(session)s”. Close that session first, "
        "then archive them."
    ),
}
MESSAGES.update(SERVICE_MESSAGES)


def _english() -> bool:
    return (get_language() or "en").split("-")[0] == "en"


def _fill(message_id: str, params: Mapping[str, Any]) -> str | None:
    sentence = MESSAGES.get(message_id)
    if sentence is None:
        return None
    for form in sentence if isinstance(sentence, tuple) else (sentence,):
        try:
            return str(form) % params
        except (KeyError, TypeError, ValueError):
            continue
    return None


def render_error(error: Mapping[str, Any]) -> str:
    """One of the engine's error dicts (``{code, message, player?, card?, trick?...}``) in
    the active language."""
    english = str(error.get("message") or "")
    if _english():
        return english
    facts = {k: v for k, v in error.items() if k not in ("code", "message")}
    return _fill(str(error.get("code") or ""), facts) or english


def render(error: BourreError) -> str:
    """A refusal in the active language (English: the engine's own sentence)."""
    if _english():
        return str(error)
    params = dict(error.params)
    if params.get("reason_id"):
        # A sentence and its why, both in the reader's language: "Hand 12 no longer stands
        # after this correction." + the later hand's refusal; "This table cannot deal a
        # hand." + the rule it breaks.
        reason = _fill(str(params["reason_id"]), params)
        head = _fill(error.message_id, params) or str(error)
        return f"{head} {reason}" if reason else head
    return _fill(error.message_id, params) or str(error)


# -- rule references in a sentence -----------------------------------------------------------

_RULE_REFS = re.compile(r"\s*\((R\d+)(?:[,/ ]+R\d+)*\)|^(R\d+): ")
_RULE_WORDS = re.compile(r"\((R\d+):\s*([^)]+)\)")
_RULE_BOOK_PARTS = re.compile(r"`([^`]+)`|\b(R\d+)\b")


@dataclass(frozen=True)
class RuleReferences:
    """A sentence without its rule numbers (its first letter capitalised) and the rules it
    cited, each once, in the order cited."""

    text: str
    rules: tuple[str, ...]


def rule_references(message: object) -> RuleReferences:
    """ "ben passed, so ben took no tricks (R10)." → ("Ben passed, so ben took no tricks.",
    ("R10",)); "(R13: up-card kept)" keeps its words: "(up-card kept)"."""
    text = str(message)
    rules: list[str] = []

    def drop(match: re.Match[str]) -> str:
        rules.append(match.group(1) or match.group(2))
        return ""

    def keep_words(match: re.Match[str]) -> str:
        rules.append(match.group(1))
        return f"({match.group(2).strip()})"

    text = _RULE_WORDS.sub(keep_words, text)
    text = _RULE_REFS.sub(drop, text).strip()
    if text[:1].islower():
        text = text[0].upper() + text[1:]
    return RuleReferences(text=text, rules=tuple(dict.fromkeys(rules)))


@dataclass(frozen=True)
class RuleBookPart:
    """A piece of a rule book entry: plain text, a switch name (``code``) or a rule number."""

    kind: Literal["text", "code", "rule"]
    text: str


def rule_book_parts(text: object) -> tuple[RuleBookPart, ...]:
    """A rule book entry split at its `switch names` and rule numbers (R21)."""
    source = str(text)
    parts: list[RuleBookPart] = []
    end = 0
    for match in _RULE_BOOK_PARTS.finditer(source):
        if match.start() > end:
            parts.append(RuleBookPart("text", source[end : match.start()]))
        if match.group(1) is not None:
            parts.append(RuleBookPart("code", match.group(1)))
        else:
            parts.append(RuleBookPart("rule", match.group(2)))
        end = match.end()
    if end < len(source):
        parts.append(RuleBookPart("text", source[end:]))
    return tuple(parts)
