"""The web pages' one place that shows a refusal (``BourreError``) to a person.

The API maps the same errors in ``games.api.errors``. Views catch ``BourreError`` only:
a bare ``ValueError`` is a bug and must reach the error page and the log. The sentence is
the reader's language (``games.messages.render``: the error's ``message_id`` and
``params``); in English it is the engine's own.
"""

from __future__ import annotations

from django import forms

from games.engine.errors import BourreError
from games.messages import render

__all__ = ["BourreError", "form_error"]


def form_error(form: forms.BaseForm, error: BourreError) -> None:
    """Show the refusal on the field it concerns when the form has that field, else at
    the top of the form."""
    field = error.field if error.field in form.fields else None
    form.add_error(field, render(error))
