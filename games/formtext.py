"""The app's own words for a form field's refusals, in place of Django's defaults
("Ensure this value is less than or equal to 5.", "This field is required.").

``own_messages(form)`` rewrites every field's default messages with its label in them;
messages a form set itself are kept. Forms call it at the end of ``__init__``.
"""

from __future__ import annotations

from django import forms

__all__ = ["own_messages"]


def _messages(label: str) -> dict[str, str]:
    return {
        "required": f"Fill in {label}.",
        "invalid": f"{label} does not look right: check it and try again.",
        "max_value": f"{label} can be at most %(limit_value)s.",
        "min_value": f"{label} must be at least %(limit_value)s.",
        "max_length": f"{label} is too long: at most %(limit_value)d characters.",
        "min_length": f"{label} is too short: at least %(limit_value)d characters.",
        "invalid_choice": f"Pick one of the offered choices for {label}.",
        "max_digits": f"{label} has too many digits.",
        "max_decimal_places": f"{label} has too many decimals.",
        "step_size": f"{label} must be a multiple of %(limit_value)s.",
    }


# Django's own texts, as a field's defaults read: only these are replaced.
_DEFAULTS: dict[str, set[str]] = {}


def _defaults(field: forms.Field) -> set[str]:
    key = type(field).__name__
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
            field.error_messages["required"] = "This page is out of date: reload it and try again."
