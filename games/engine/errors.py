"""The one error family of the project.

Every refusal a user can meet — a bad card, a rule value, an illegal move, a hand the
engine rejects, a stale or closed session, a tournament request — is a
:class:`BourreError`. It subclasses ``ValueError`` (python-chess style: bad input is a
value error) and carries what the web layer needs to answer without guessing:

- ``code``: a stable machine word (``illegal_card``, ``stale``, ``bad_rule_value``...);
- ``field``: the input it concerns, when there is one (a rule switch, a form field);
- ``status``: the HTTP status the API answers with (400 bad input, 409 conflict);
- ``params``: the facts the sentence names (``player``, ``card``, ``trick``, ``rule``,
  ``limit``...), as plain strings and numbers;
- ``message_id``: which sentence it is, when one ``code`` has several (defaults to
  ``code``).

The message itself (``str(error)``) stays English: the command line and logs speak it.
People read the sentence the web layer renders in their language from ``message_id`` and
``params`` (``games.messages``), so the engine stays free of any language machinery. A test
(tests/i18n/test_messages.py) requires a sentence for every ``message_id`` raised here,
in the ledger and in the services (tournaments, digital hands, clubs).

Views and the API catch ``BourreError`` (never bare ``ValueError``, which would hide a
programming error) and map it in one place each: ``games.api.errors`` for problem+json,
the form helpers for HTML. Pure: the engine imports this, so it uses no Django.
"""

from __future__ import annotations

from collections.abc import Mapping

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
        params: Mapping[str, object] | None = None,
        message_id: str | None = None,
    ) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.field = field
        self.params: dict[str, object] = dict(params or {})
        self.message_id: str = message_id or self.code

    @property
    def message(self) -> str:
        return str(self)
