"""The engine's and the ledger's refusals in the reader's language (issue 19, item 3).

The engine raises codes with params and keeps English for the command line; the web
layer (games.messages) renders the sentence. Every message id that can be raised has a
sentence, every sentence's params are ones the raise sites give, and English stays the
engine's own wording."""

from __future__ import annotations

import re

import pytest
from django import forms
from django.utils.translation import gettext, override

from games.engine import HandState, IllegalAction
from games.engine.errors import BourreError
from games.engine.tournament import validate_payout_percentages
from games.errors import form_error
from games.messages import MESSAGES, render, render_error
from ledger.errors import ChainBroken, SetupError, StaleState

from .raised import collect

PARAM = re.compile(r"%\((\w+)\)s")


def test_every_message_id_the_engine_and_ledger_raise_has_a_sentence():
    found, dynamic = collect()
    assert not dynamic, f"raise sites whose message id is not a literal: {dynamic}"
    assert len(found) > 80  # the collector sees the whole engine and ledger
    missing = {code: where for code, where in found.items() if code not in MESSAGES}
    assert not missing, f"no sentence in games/messages.py for: {missing}"


def test_the_catalogue_has_no_sentence_for_a_code_nobody_raises():
    found, _ = collect()
    assert sorted(set(MESSAGES) - set(found)) == []


def test_sentences_never_speak_rule_numbers():
    for message_id, sentence in MESSAGES.items():
        for form in sentence if isinstance(sentence, tuple) else (sentence,):
            assert not re.search(r"\bR\d+\b", str(form)), message_id


def _illegal_card() -> IllegalAction:
    """Play a seeded hand until someone holds a card the rules forbid, and try it."""
    for seed in range(50):
        state = HandState.new(["ann", "ben", "cal"], "cal", rng=seed)
        while state.to_act is not None:
            actor = state.to_act
            if state.phase == "declare":
                state.apply({"type": "play", "player": actor, "discard": []})
                continue
            forbidden = state.illegal_reasons(actor)
            if forbidden:
                try:
                    state.apply({"type": "card", "player": actor, "card": next(iter(forbidden))})
                except IllegalAction as exc:
                    return exc
            state.apply({"type": "card", "player": actor, "card": state.legal_cards(actor)[0]})
    raise AssertionError("no seeded hand met a forbidden card")


def test_an_illegal_card_keeps_its_english_and_names_its_card_in_spanish():
    exc = _illegal_card()
    assert exc.code == "illegal_card" and exc.params["rule"] == exc.rule
    english = str(exc)
    assert english.startswith(f"{exc.rule}: ")  # the command line's sentence, unchanged
    with override("en"):
        assert render(exc) == english
    with override("es"):
        spanish = render(exc)
        expected = gettext(str(MESSAGES["illegal_card"])) % exc.params
    assert spanish == expected and spanish != english
    assert str(exc.params["card"]) in spanish and exc.rule not in spanish


def test_a_sentence_falls_back_to_a_form_without_the_missing_fact():
    error = {"code": "duplicate_card", "message": "QH is in two hands"}
    with override("fi"):
        assert render_error(error) == gettext("A card is named twice.")
        assert render_error({**error, "card": "Q♥"}) == gettext("%(card)s is named twice.") % {
            "card": "Q♥"
        }
    assert render_error(error) == "QH is in two hands"  # English: the engine's own


def test_an_unknown_id_or_missing_translation_is_never_blank():
    error = BourreError("something odd", code="never_heard_of_it")
    with override("ko"):
        assert render(error) == "something odd"


def test_a_broken_later_hand_says_which_and_why_in_the_readers_language():
    why = {"code": "out_of_turn", "message": "trick 2: ann played QH but it was ben's turn (R17)"}
    exc = ChainBroken(12, {"valid": False}, [{**why, "player": "ann", "trick": 2, "card": "Q♥"}])
    assert str(exc).startswith("hand 12 no longer stands: trick 2")
    with override("es"):
        said = render(exc)
        head = gettext("Hand %(number)s no longer stands after this correction.") % {"number": 12}
        reason = gettext("Trick %(trick)s: it was not %(player)s's turn to play.") % {
            "trick": 2,
            "player": "ann",
        }
    assert said == f"{head} {reason}"


def test_prize_errors_and_stale_states_carry_their_facts():
    with pytest.raises(BourreError) as caught:
        validate_payout_percentages([50, 30])
    assert caught.value.message_id == "payout_percent_sum" and caught.value.params == {"sum": 80}
    stale = StaleState(7, 5)
    assert stale.params == {"current": 7, "expected": 5}


class _Form(forms.Form):
    name = forms.CharField()


def test_form_error_shows_the_refusal_on_its_field_in_the_readers_language():
    form = _Form(data={"name": "x"})
    form.is_valid()
    error = SetupError("bad_name", "the session needs a name of at most 100 characters", "name")
    with override("fi"):
        form_error(form, error)
        expected = gettext("The session needs a name of at most 100 characters.")
    assert form.errors["name"] == [expected]
    assert expected != "The session needs a name of at most 100 characters."
