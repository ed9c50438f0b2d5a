"""The app's own words for a form field's refusals, in place of Django's defaults
("Ensure this value is less than or equal to 5.", "This field is required.").

``own_messages(form)`` rewrites every field's default messages with its label in them;
messages a form set itself are kept. Forms call it at the end of ``__init__``. The words
are in the language active then (issue 19); Django's defaults are recognised in that
language too (they are translated), so they are read once per language.
"""

from __future__ import annotations

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext as _

__all__ = ["own_messages"]


def _messages(label: str) -> dict[str, str]:
    # The validators fill in limit_value later: it stays a placeholder here. Those
    # messages are formatted again with their parameters, so a "%" in the label (a
    # player's name in it) is doubled in them, or that second formatting fails (a 500).
    said = {"label": label, "limit_value": "%(limit_value)s"}
    again = {**said, "label": label.replace("%", "%%")}
    return {
        "required": _("Fill in %(label)s.") % said,
        "invalid": _("%(label)s does not look right: check it and try again.") % said,
        "max_value": _("%(label)s can be at most %(limit_value)s.") % again,
        "min_value": _("%(label)s must be at least %(limit_value)s.") % again,
        "max_length": _("%(label)s is too long: at most %(limit_value)s characters.") % again,
        "min_length": _("%(label)s is too short: at least %(limit_value)s characters.") % again,
        "invalid_choice": _("Pick one of the offered choices for %(label)s.") % again,
        "max_digits": _("%(label)s has too many digits.") % again,
        "max_decimal_places": _("%(label)s has too many decimals.") % again,
        "step_size": _("%(label)s must be a multiple of %(limit_value)s.") % again,
    }


# Django's own texts, as a field's defaults read: only these are replaced.
_DEFAULTS: dict[tuple[str, str | None], set[str]] = {}


def _defaults(field: forms.Field) -> set[str]:
    key = (type(field).__name__, get_language())
    if key not in _DEFAULTS:
        fresh = type(field).__mro__
        texts: set[str] = set()
        for cls in reversed(fresh):
            texts.update(str(m) for m in getattr(cls, "default_error_messages", {}).values())
        _DEFAULTS[key] = texts
    return _DEFAULTS[key]


def own_messages(form: forms.BaseForm) -> None:
    for name, field in form.fields.items():
        label = str(field.label or name.replace("_", " ")).rstrip(":")
        label = label[:1].upper() + label[1:]
        defaults = _defaults(field)
        for code, text in _messages(label).items():
            current = field.error_messages.get(code)
            # Validators (min/max value, length) read the field's message by code, so a
            # missing code is set too; a message the form wrote itself is kept.
            if current is None or str(current) in defaults:
                field.error_messages[code] = text
        if field.widget.is_hidden:
            field.error_messages["required"] = _(
                "This page is out of date: reload it and try again."
            )
