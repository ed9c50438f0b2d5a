"""The tournament logic's refusal (shared by ``tournament``, ``tournament_levels`` and
``tournament_payouts``)."""

from collections.abc import Mapping

from .errors import BourreError

# Refusals because of the moment (not the input): the API answers 409 Conflict.
CONFLICT_CODES = frozenset(
    {
        "status",
        "playing",
        "late_closed",
        "seed_fixed",
        "pot",
        "not_final",
        "waiting",
        "busy",
        "entered",
        "during_break",
        "cap_fixed",
    }
)


class TournamentError(BourreError):
    """A setting or request the tournament cannot honour; ``code`` names it."""

    def __init__(
        self,
        message: str,
        code: str = "invalid",
        *,
        params: Mapping[str, object] | None = None,
        message_id: str | None = None,
    ) -> None:
        super().__init__(
            message,
            code=code,
            status=409 if code in CONFLICT_CODES else 400,
            params=params,
            message_id=message_id,
        )
