"""The house-rule switches as form fields: labels for their values, the page's groups.

Built from `games.engine.rules.RULE_FIELDS`, so a switch added to the engine shows up
with its label, default and help text. The switches that are amounts (``MONEY_RULES``:
ante, pot limit) are typed and shown in the session's currency ("0.25", "$1") and kept in
its minor unit (games.money.MoneyField); the others are counts and choices.

Labels, help texts, value words and group titles are in the reader's language: the
engine's English is marked there (``rulebook.gettext_noop``) and translated here, lazily,
when a page renders.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.engine.rulebook import SWITCHES
from games.engine.rules import RULE_FIELDS, RuleError, RuleField, Rules
from games.formtext import own_messages
from games.messages import render
from games.money import DEFAULT_CURRENCY, MONEY_RULES, Currency, MoneyField
from games.rulebook_text import tr

# Readable words for the values of the choice switches (RULES.md names on the right).
CHOICE_LABELS: dict[str, dict[Any, Promise]] = {
    "hand_size": {5: _("5 cards"), 4: _("4 cards (four-card Bourré)")},
    "declaration": {
        "sequential": _("In turn, from the dealer's left"),
        "simultaneous": _("Everybody at once"),
    },
    "cinch": {
        "sure_tricks": _("On: a sure majority leads its top trump"),
        "off": pgettext_lazy("a house rule switch", "Off"),
    },
    "cinch_equivalence": {
        "sequence": _("Any trump in an unbroken run with the top one"),
        "adjacent": _("Only the trump just below the top one"),
        "none": _("The top trump only"),
    },
    "split_pot": {
        "carry": _("The pot carries to the next hand"),
        "divide": _("The tied players share it"),
    },
    "ineligible_winner": {
        "carry": _("The pot carries to the next hand"),
        "next_best": _("The best eligible player takes it"),
    },
    "stock_refill": {
        "discards_except_current": _("Discards, except the player being served"),
        "discards_all": _("All discards"),
        "folded_then_discards": _("Folded hands first, then discards"),
    },
}

# How the switches are grouped on the page; a switch the engine adds later lands in "Other".
RULE_GROUPS: list[tuple[Promise, list[str]]] = [
    (
        _("Stakes"),
        ["ante", "pot_limit", "limit_caps_winner", "double_ante", "dealer_antes_for_all"],
    ),
    (_("When nobody wins outright"), ["split_pot", "tied_excused", "ineligible_winner"]),
    (
        _("Deal and draw"),
        ["hand_size", "max_discard", "declaration", "stock_refill", "dealer_may_discard_upcard"],
    ),
    (
        _("Trick play"),
        [
            "undertrump_required",
            "head_led_suit_after_trump",
            "lead_trump_when_others_void",
            "cinch",
            "cinch_equivalence",
        ],
    ),
]
RULE_KEYS = [spec.key for spec in RULE_FIELDS]
# Switches where tables differ most: the start screen shows them open, every value explained.
FEATURED_RULES = ("undertrump_required", "cinch")


def _number_widget() -> forms.NumberInput:
    return forms.NumberInput(attrs={"inputmode": "numeric"})


def rule_form_field(spec: RuleField, currency: Currency | None = None) -> forms.Field:
    """One form field for one house-rule switch, labelled and explained for a player."""
    common: dict[str, Any] = {"label": _(spec.label), "help_text": _(spec.help)}
    if spec.key in MONEY_RULES:
        return MoneyField(
            currency=currency or DEFAULT_CURRENCY,
            required=spec.type != "optional_int",
            min_value=spec.min or 0,
            max_value=spec.max,
            **common,
        )
    labels = CHOICE_LABELS.get(spec.key, {})
    if spec.type == "bool":
        return forms.BooleanField(required=False, **common)
    if spec.type == "choice":
        assert spec.choices is not None  # a "choice" switch always lists its values
        choices = [(v, labels.get(v, str(v).replace("_", " ").capitalize())) for v in spec.choices]
        # Radios, not a select: these values are sentences ("On: a sure majority leads its
        # top trump"), which a select cuts off at a phone's width and a label wraps.
        return forms.ChoiceField(choices=choices, widget=forms.RadioSelect, **common)
    if spec.choices is not None:
        choices = [(v, labels.get(v, str(v))) for v in spec.choices]
        return forms.TypedChoiceField(choices=choices, coerce=int, **common)
    return forms.IntegerField(
        required=spec.type != "optional_int",
        min_value=spec.min,
        max_value=spec.max,
        widget=_number_widget(),
        **common,
    )


def current_rules(rules: dict | None) -> dict[str, Any]:
    """Every switch with its value: the stored ones over the defaults."""
    try:
        return dict(Rules.from_dict(rules or {}).to_dict())  # a RulesDict, as a plain dict
    except RuleError:
        # A stored rules object the engine no longer accepts: show defaults plus what fits.
        return Rules().to_dict() | {k: v for k, v in (rules or {}).items() if k in RULE_KEYS}


def rules_of(rules: dict | None) -> Rules:
    """The stored rules as the engine's value; the defaults for an object the engine no
    longer accepts (as ``current_rules`` shows it)."""
    try:
        return Rules.from_dict(rules or {})
    except RuleError:
        return Rules()


# The featured switches' on/off words (the rules page says them the same way).
_ON = pgettext_lazy("a house rule switch", "On")
_OFF = pgettext_lazy("a house rule switch", "Off")


class RulesForm(forms.Form):
    """Every house-rule switch of RULES.md, with the session's (or the default) values."""

    def __init__(
        self,
        *args: Any,
        rules: dict | None = None,
        currency: Currency | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        cur = self.amounts_in = currency or DEFAULT_CURRENCY
        values = current_rules(rules)
        if not rules:
            # A new table antes one whole unit ($1, 1 chip), not the engine's default of
            # one minor unit (a cent).
            values["ante"] = cur.minor
        for spec in RULE_FIELDS:
            field = rule_form_field(spec, cur)
            field.initial = values.get(spec.key, spec.default)
            self.fields[spec.key] = field
        own_messages(self)

    def rule_groups(self) -> list[tuple[str | Promise, list[forms.BoundField]]]:
        placed: set[str] = set()
        groups: list[tuple[str | Promise, list[forms.BoundField]]] = []
        for title, keys in RULE_GROUPS:
            present = [k for k in keys if k in self.fields]
            placed.update(present)
            if present:
                groups.append((title, [self[k] for k in present]))
        rest = [k for k in RULE_KEYS if k not in placed]
        if rest:
            groups.append((_("Other"), [self[k] for k in rest]))
        return groups

    def featured_rules(
        self,
    ) -> list[tuple[forms.BoundField, list[tuple[str, str]], list[tuple[str, str]]]]:
        """The switches tables disagree on, each with a one-line meaning per value and
        which sources say what (``rulebook.SWITCHES``)."""
        out = []
        for key in FEATURED_RULES:
            if key not in self.fields:
                continue
            labels = CHOICE_LABELS.get(key, {})
            meanings = []
            for choice in SWITCHES[key].choices:
                if isinstance(choice.value, bool):
                    label = str(_ON if choice.value else _OFF)
                else:
                    label = str(labels.get(choice.value, choice.value))
                meanings.append((label, tr(choice.means)))
            sources = [(tr(src.name), tr(src.says)) for src in SWITCHES[key].sources]
            out.append((self[key], meanings, sources))
        return out

    def other_rule_groups(self) -> list[tuple[str | Promise, list[forms.BoundField]]]:
        """:meth:`rule_groups` without the featured switches (shown on their own)."""
        groups = []
        for title, fields in self.rule_groups():
            rest = [f for f in fields if f.name not in FEATURED_RULES]
            if rest:
                groups.append((title, rest))
        return groups

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        assert cleaned is not None  # forms.Form.clean() returns cleaned_data
        if any(key in self.errors for key in RULE_KEYS):
            return cleaned
        rules = {key: cleaned.get(key) for key in RULE_KEYS}
        try:
            Rules.from_dict(rules)
        except RuleError as error:
            self.add_error(error.key if error.key in self.fields else None, render(error))
        else:
            cleaned["rules"] = rules
        return cleaned

    def rules(self) -> dict[str, Any]:
        return self.cleaned_data["rules"]
