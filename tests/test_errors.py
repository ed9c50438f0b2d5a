"""One error family: every refusal of the project is a BourreError with a code, a field
and an HTTP status, so views and the API can map them in one place each."""

import pytest

from games.clubs.service import ClubError
from games.digital.service import DigitalError
from games.engine import CardError, HandError, IllegalAction, RuleError, parse_card
from games.engine.errors import BourreError
from games.engine.tournament import TournamentError
from games.errors import form_error
from games.sessions.rule_fields import RulesForm
from ledger.errors import HandRejected, SessionClosed, SetupError, StaleState, VoidRefused

FAMILY = [
    CardError,
    RuleError,
    HandError,
    IllegalAction,
    TournamentError,
    DigitalError,
    HandRejected,
    StaleState,
    SessionClosed,
    SetupError,
    VoidRefused,
    ClubError,
]


@pytest.mark.parametrize("cls", FAMILY, ids=lambda c: c.__name__)
def test_every_refusal_is_a_bourre_error(cls):
    assert issubclass(cls, BourreError)
    assert issubclass(cls, ValueError)  # bad input is a value error (python-chess style)


@pytest.mark.parametrize(
    ("error", "code", "field", "status"),
    [
        (
            RuleError("bad_rule_value", "ante", "ante must be at least 0"),
            "bad_rule_value",
            "ante",
            400,
        ),
        (SetupError("bad_dealer", "the dealer has no seat", "dealer"), "bad_dealer", "dealer", 400),
        (StaleState(3, 2), "stale_state", None, 409),
        (SessionClosed("closed"), "session_closed", None, 409),
        (VoidRefused("not_latest", "only the latest hand"), "not_latest", None, 409),
        (DigitalError("not your turn", "out_of_turn", "R17"), "out_of_turn", None, 409),
        (DigitalError("no such seat", "wrong_seat"), "wrong_seat", None, 403),
        (DigitalError("bad card", "illegal_card", "R19"), "illegal_card", None, 400),
        (TournamentError("no", code="status"), "status", None, 409),  # the moment: a conflict
        (TournamentError("no", code="antes"), "antes", None, 400),
        (HandError("two dealers"), "bad_setup", None, 400),
        (ClubError("last owner", code="last_owner"), "last_owner", None, 409),
    ],
)
def test_errors_carry_code_field_and_status(error, code, field, status):
    assert (error.code, error.field, error.status) == (code, field, status)


def test_a_card_error_is_raised_as_one():
    with pytest.raises(BourreError) as caught:
        parse_card("ZZ")
    assert caught.value.code == "bad_card"


def test_form_error_lands_on_the_field_it_names():
    form = RulesForm({}, rules={})
    form.is_valid()
    form_error(form, RuleError("bad_rule_value", "ante", "Ante: too big."))
    form_error(form, SetupError("bad_dealer", "No such dealer.", "no_such_field"))
    assert "Ante: too big." in form.errors["ante"]
    assert "No such dealer." in form.non_field_errors()
