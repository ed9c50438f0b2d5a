"""What the ledger refuses. Each is a ``BourreError`` (code, field, HTTP status), so the
views and the API map all of them, and the engine's errors, in one place each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from games.engine.contracts import Verdict
from games.engine.errors import BourreError

__all__ = [
    "ChainBroken",
    "CorrectionRefused",
    "HandRejected",
    "NeedsConfirmation",
    "SessionClosed",
    "SetupError",
    "StaleState",
    "TabConflict",
    "VoidRefused",
]


class HandRejected(BourreError):
    """The engine found the record invalid or not finished; nothing was written."""

    code = "hand_rejected"

    def __init__(
        self, verdict: Mapping[str, Any], errors: Sequence[Mapping[str, Any]] | None = None
    ) -> None:
        # A contracts.Verdict and its RecordErrors, kept as the plain dicts they are: the
        # session forms read them as such until they take on the typed contracts.
        self.verdict = cast(dict[str, Any], verdict)
        self.errors = cast(
            list[dict[str, Any]],
            errors if errors is not None else list(verdict.get("errors") or []),
        )
        first = self.errors[0]["message"] if self.errors else "the hand was rejected"
        # The first of the engine's errors is the sentence shown: its code and facts.
        head = self.errors[0] if self.errors else {}
        super().__init__(
            first,
            params={k: v for k, v in head.items() if k not in ("code", "message")},
            message_id=head.get("code") or "hand_rejected",
        )


class StaleState(BourreError):
    """The submission was made against an older version of the session."""

    code = "stale_state"
    status = 409

    def __init__(self, current_version: int, expected_version: int | None = None) -> None:
        self.current_version = current_version
        self.expected_version = expected_version
        super().__init__(
            f"the session changed meanwhile (now version {current_version}, "
            f"the submission was made against version {expected_version})",
            params={"current": current_version, "expected": expected_version},
        )


class SessionClosed(BourreError):
    """The session is closed: nothing more can be recorded or changed."""

    code = "session_closed"
    status = 409


class SetupError(BourreError):
    """Bad input to a session operation. ``code`` says what, ``key`` (the ``field``)
    which field."""

    def __init__(
        self,
        code: str,
        message: str,
        key: str | None = None,
        *,
        params: dict[str, object] | None = None,
        message_id: str | None = None,
    ) -> None:
        super().__init__(message, code=code, field=key, params=params, message_id=message_id)
        self.key = key


class VoidRefused(BourreError):
    """The hand cannot be voided (already replaced, the session closed...)."""

    status = 409

    def __init__(
        self,
        code: str,
        message: str,
        *,
        params: dict[str, object] | None = None,
        message_id: str | None = None,
    ) -> None:
        super().__init__(message, code=code, params=params, message_id=message_id)


class TabConflict(BourreError):
    """The club's tab cannot do that now (issue #34): the session is still open, the
    transfer is no longer asked for, ticked paid tonight or already on the tab, the
    payment was reversed."""

    status = 409

    def __init__(self, code: str, message: str, *, params: dict[str, object] | None = None) -> None:
        super().__init__(message, code=code, params=params)


class ChainBroken(HandRejected):
    """Correcting an earlier hand makes a later one impossible (the dealer changed under
    a card log, a player now owes a forfeited deal...). ``number`` is the later hand;
    ``errors`` say why, in the table's words. Nothing was written: the host fixes that
    hand too (``correct_hand(fixes={number: entry})``) and tries again."""

    code = "later_hand_broken"
    status = 409

    def __init__(
        self, number: int, verdict: Mapping[str, Any], errors: Sequence[Mapping[str, Any]]
    ) -> None:
        super().__init__(verdict, errors)
        self.number = number
        self.args = (f"hand {number} no longer stands: {self.errors[0]['message']}",)
        # Rendered as "hand N no longer stands:" + the later hand's own sentence.
        self.params["number"] = number
        self.params["reason_id"] = self.message_id
        self.message_id = "later_hand_broken"


class CorrectionRefused(BourreError):
    """This hand cannot be corrected (not recorded, a tournament table...)."""

    status = 409

    def __init__(self, code: str, message: str, *, params: dict[str, object] | None = None) -> None:
        super().__init__(message, code=code, params=params)


class NeedsConfirmation(BourreError):
    """The hand would charge three or more bourrés, or a penalty above ten antes: the
    caller asked to be stopped before such a hand is saved (nothing was written).
    ``verdict`` is the engine's verdict, so the table sees what it would cost whom."""

    code = "needs_confirmation"
    status = 409

    def __init__(self, verdict: Verdict, reasons: list[str]) -> None:
        # a plain dict to the session views, as HandRejected.verdict
        self.verdict = cast(dict[str, Any], verdict)
        self.reasons = reasons
        super().__init__("; ".join(reasons), params={"reasons": "; ".join(reasons)})
