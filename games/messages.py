"""The refusals of the engine and the ledger in the reader's language (issue 19).

The engine and the ledger raise ``BourreError`` with a ``message_id`` (its ``code``,
unless one code has several sentences) and ``params`` (player, card, trick, rule...);
their English ``str(error)`` is for the command line and the logs. People read what
``render`` makes of it here: the catalogue sentence of that id in the active language,
filled in with the params. In English the engine's own sentence is kept word for word
(it is often more precise than the catalogue's, and tests and API clients read it).

A sentence may come in several forms, tried in order: the first whose params are all
known is used (a renege names its player when the record says who). The catalogue never
speaks rule numbers: the "why?" link beside a refusal does that. Every id the engine and
the ledger can raise has an entry here; tests/i18n/test_messages.py reads them from the
source and fails on a missing one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from games.engine.errors import BourreError

__all__ = ["MESSAGES", "render", "render_error"]

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
    if error.message_id == "later_hand_broken":
        # "Hand 12 no longer stands after this correction." + why, in the same language.
        reason = _fill(str(params.get("reason_id") or ""), params)
        head = _fill("later_hand_broken", params) or str(error)
        return f"{head} {reason}" if reason else head
    return _fill(error.message_id, params) or str(error)
