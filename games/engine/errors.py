"""The one error family of the project.

Every refusal a user can meet — a bad card, a rule value, an illegal move, a hand the
engine rejects, a stale or closed session, a tournament request — is a
:class:`BourreError`. It subclasses ``ValueError`` (python-chess style: bad input is a
value error) and carries what the web layer needs to answer without guessing:

- ``code``: a stable machine word (``illegal_card``, ``stale``, ``bad_rule_value``...);
- ``field``: the input it concerns, when there is one (a rule switch, a form field);
- ``status``: the HTTP status the API answers with (400 bad input, 409 conflict).

Views and the API catch ``BourreError`` (never bare ``ValueError``, which would hide a
programming error) and map it in one place each: ``games.api.errors`` for problem+json,
the form helpers for HTML. Pure: the engine imports this, so it uses no Django.
"""

from __future__ import annotations

__all__ = ["BourreError"]


class BourreError(ValueError):
    """A refusal with a ``code``, the ``field`` it concerns and an HTTP ``status``."""

    code: str = "invalid"
    status: int = 400

    def __init__(
        self,
        message: str = "",
        *,
        code: str | None = None,
        field: str | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.field = field

    @property
    def message(self) -> str:
        return str(self)
