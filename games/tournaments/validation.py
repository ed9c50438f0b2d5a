"""A tournament's settings checked before they are saved or the event starts.

Every refusal is a ``TournamentError`` with its own sentence id and facts, so the
director reads it in their language (games.messages); ``str(error)`` stays English for
the logs. Amounts stay within engine.rules' bounds (MAX_STAKE), so no level, prize or
stack can push a table's books past a 64-bit column or the verifier's caps.
"""

from __future__ import annotations

from games.engine import MAX_STAKE, RuleError, Rules
from games.engine import tournament as logic
from games.engine import tournament_levels as levels
from games.engine import tournament_payouts as pay
from games.engine.tournament import TournamentError
from games.models import GameSession, Tournament
from games.money import format_money

__all__ = ["validate"]


def validate(t: Tournament) -> None:
    """Raise TournamentError unless the settings make a playable event.

    The checks run in a fixed order (the first refusal is the one the director sees),
    one helper per part of the settings.
    """
    logic.check_limits(t.min_table, t.max_table)
    _check_choices(t)
    _check_amounts(t)
    antes = _check_antes(t)
    _check_rounds(t)
    _check_presets(t)
    _check_units(t)
    _check_levels(t)
    _check_rules(t, antes)


def _check_choices(t: Tournament) -> None:
    """The format, table mode and tie-break are among the known values."""
    if t.format not in Tournament.Format.values:
        raise TournamentError(
            f"Unknown format {t.format!r}.",
            code="format",
            message_id="unknown_format",
            params={"format": t.format},
        )
    if t.table_mode not in GameSession.Mode.values:
        raise TournamentError(
            f"Unknown table mode {t.table_mode!r}.",
            code="table_mode",
            message_id="unknown_table_mode",
            params={"mode": t.table_mode},
        )
    if t.tiebreak not in Tournament.Tiebreak.values:
        raise TournamentError(
            f"Unknown tie-break {t.tiebreak!r}.", code="tiebreak", params={"tiebreak": t.tiebreak}
        )
    if t.break_pot not in Tournament.BreakPot.values:
        raise TournamentError(
            f"Unknown choice for a short table's pot {t.break_pot!r}: move or play_out.",
            code="break_pot",
            params={"choice": t.break_pot},
        )


def _check_amounts(t: Tournament) -> None:
    """The buy-in, fee and starting stack are whole amounts within MAX_STAKE."""
    # Amounts stay within engine.rules' bounds (MAX_STAKE), so no level, prize or stack
    # can push a table's books past a 64-bit column or the verifier's caps.
    most = {"max": format_money(MAX_STAKE, t.currency)}
    # One raise per field: each has its own sentence (games.messages).
    if type(t.buy_in) is not int or not 0 <= t.buy_in <= MAX_STAKE:
        raise TournamentError(
            f"The buy-in must be an amount from 0 to {most['max']}.",
            code="buy_in",
            message_id="buy_in_range",
            params=most,
        )
    if type(t.fee) is not int or not 0 <= t.fee <= MAX_STAKE:
        raise TournamentError(
            f"The fee must be an amount from 0 to {most['max']}.",
            code="fee",
            message_id="fee_range",
            params=most,
        )
    if type(t.starting_chips) is not int or not 0 < t.starting_chips <= MAX_STAKE:
        raise TournamentError(
            f"Starting chips must be above 0 and at most {MAX_STAKE}.",
            code="starting_chips",
            params={"max": MAX_STAKE},
        )


def _check_antes(t: Tournament) -> list[int]:
    """The ante schedule: whole, positive, at most MAX_STAKE, never going down."""
    antes = t.antes
    if not isinstance(antes, list) or not antes or any(type(a) is not int or a <= 0 for a in antes):
        raise TournamentError(
            "The ante schedule needs whole antes above 0.", code="antes", message_id="antes_whole"
        )
    if any(a > MAX_STAKE for a in antes):
        raise TournamentError(
            f"An ante can be at most {MAX_STAKE}.",
            code="antes",
            message_id="antes_max",
            params={"max": MAX_STAKE},
        )
    if any(a > b for a, b in zip(antes, antes[1:], strict=False)):
        raise TournamentError(
            "Antes cannot go down from one level to the next.",
            code="antes",
            message_id="antes_rising",
        )
    return antes


def _check_rounds(t: Tournament) -> None:
    """A rounds event plays at least one hand a round and shrinks its field."""
    if not t.is_rounds:
        return
    if t.hands_per_round < 1:
        raise TournamentError("A round needs at least one hand.", code="hands_per_round")
    if not 1 <= t.advance_per_table < t.min_table:
        raise TournamentError(
            f"Between 1 and {t.min_table - 1} players can advance from a table of at "
            f"least {t.min_table} (fewer than sit there, or the field never shrinks).",
            code="advance_per_table",
            params={"most": t.min_table - 1, "smallest": t.min_table},
        )


def _check_presets(t: Tournament) -> None:
    """The payout split and the named payout and structure presets exist."""
    if t.payout_percentages:
        logic.validate_payout_percentages(t.payout_percentages)
    if t.payout_preset and t.payout_preset not in pay.PAYOUT_PRESETS:
        raise TournamentError(
            f"Unknown payout preset {t.payout_preset!r}.",
            code="payout_preset",
            params={"preset": t.payout_preset},
        )
    if t.structure_preset and t.structure_preset not in levels.PRESETS:
        raise TournamentError(
            f"Unknown structure {t.structure_preset!r}.",
            "structure_preset",
            params={"preset": t.structure_preset},
        )


def _check_units(t: Tournament) -> None:
    """The prize rounding unit and the add-on price are whole amounts."""
    if type(t.payout_unit) is not int or t.payout_unit < 1:
        raise TournamentError("Round prizes to a unit of 1 or more.", code="payout_unit")
    if type(t.addon_price) is not int or t.addon_price < 0:
        raise TournamentError(
            "The add-on price must be a whole amount of 0 or more.", code="addon_price"
        )


def _check_levels(t: Tournament) -> None:
    """A freeze-out's antes rise, by minutes or by hands (never both), and breaks have a
    length."""
    if not t.is_rounds and t.level_minutes <= 0 and t.hands_per_level <= 0:
        raise TournamentError(
            "A freeze-out needs rising antes: levels by minutes or by hands.", code="levels"
        )
    if t.level_minutes > 0 and t.hands_per_level > 0:
        # The clock would win and the hands be ignored: say so instead.
        raise TournamentError(
            "Levels go by minutes or by hands, not both: set one of minutes per level and "
            "hands per level to 0.",
            code="levels_both",
        )
    if t.break_every and not t.break_minutes:
        raise TournamentError("Say how long the breaks are.", code="break_minutes")


def _check_rules(t: Tournament, antes: list[int]) -> None:
    """The house rules make valid engine Rules at the first level's ante."""
    if not isinstance(t.rules, dict):
        raise TournamentError(
            "The house rules are not in the expected form.",
            code="rules",
            message_id="rules_not_object",
        )
    try:
        Rules.from_dict({**t.rules, "ante": antes[0]})
    except RuleError as exc:
        # The rule's own sentence and facts: the reader sees which rule and why.
        raise TournamentError(
            f"House rules: {exc}", code="rules", message_id=exc.message_id, params=exc.params
        ) from exc
