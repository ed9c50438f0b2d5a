"""The tournament director's forms: settings, adding entrants, starting with a seed.

Money (buy-in, fee, add-on price, the prize rounding unit, a deal's custom shares) is
typed and shown in the tournament's currency ("25", "0.50") and kept in minor units
(games.money.MoneyField); chips (stacks, antes, the tables' pot limit) stay whole numbers.
A refused deal says its amounts in that currency too (format_money), and the dashboard
shows the form again with what was typed.

Labels, help texts and refusals are in the reader's language (gettext; the engine's
refusals through games.messages.render). The engine names its presets in English; the
form writes them in the reader's language from their numbers (``structure_words``,
``payout_words``), so a preset's description always says what it does.
"""

import json
from typing import Any

from django import forms
from django.db import models
from django.utils.translation import gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from games.engine import tournament_levels as levels
from games.engine import tournament_payouts as pay
from games.engine.rules import MAX_STAKE
from games.engine.tournament import TournamentError
from games.messages import render
from games.models import Entry, Player, Tournament
from games.money import Currency, MoneyField, format_count, format_money
from games.names import TITLE_MAX, clean_name
from games.tournaments import service as svc
from games.tournaments.deals import CHIP_CHOP_RULE, KIND_WORDS


def _int_list(text: str, refusal: str) -> list[int]:
    try:
        values = [int(x) for x in text.replace(",", " ").split()]
    except ValueError:
        raise forms.ValidationError(refusal) from None
    return values


OPTIONAL_NUMBERS = svc.OPTIONAL_NUMBERS


MONEY_FIELDS = ("buy_in", "fee", "addon_price", "payout_unit")


CUSTOM_STRUCTURE = _("Custom (below)")
CUSTOM_PAYOUTS = _("Custom table (below) or the default")
PRESET_NAMES = {"turbo": _("Turbo"), "standard": _("Standard"), "deep": _("Deep")}


def structure_words() -> list[tuple[str, str]]:
    """The structure presets in the reader's language, from their numbers."""
    out = []
    for key, p in levels.PRESETS.items():
        facts = {
            "name": PRESET_NAMES.get(key, key),
            "minutes": p.level_minutes,
            "pause": p.break_minutes,
            "every": p.break_every,
        }
        if p.break_every:
            text = gettext(
                "%(name)s (%(minutes)s-min levels, a %(pause)s-min break every %(every)s levels)"
            )
        else:
            text = gettext("%(name)s (%(minutes)s-min levels)")
        out.append((key, text % facts))
    return out


def preset_fields() -> str:
    """What each preset fills in the form (static/js/structure.js reads it): every field
    it names, hands per level set to 0 as its levels go by the clock."""
    return json.dumps(
        {
            key: {
                "antes_text": ", ".join(map(str, p.antes)),
                "level_minutes": p.level_minutes,
                "hands_per_level": 0,
                "break_every": p.break_every,
                "break_minutes": p.break_minutes,
            }
            for key, p in levels.PRESETS.items()
        }
    )


def payout_words() -> list[tuple[str, str]]:
    """The payout presets in the reader's language: "Top 10 % of the field, standard curve"."""
    return [
        (key, gettext("Top %(share)s %% of the field, standard curve") % {"share": share})
        for key, (_label, share) in pay.PAYOUT_PRESETS.items()
    ]


class TournamentForm(forms.ModelForm):
    field_order = [
        "name",
        "format",
        "table_mode",
        "buy_in",
        "fee",
        "starting_chips",
        "structure_preset",
        "antes_text",
        "level_minutes",
        "hands_per_level",
        "break_every",
        "break_minutes",
        "min_table",
        "max_table",
        "hands_per_round",
        "advance_per_table",
        "final_hands",
        "tiebreak",
        "break_pot",
        "carry_stacks",
        "payout_preset",
        "payouts_text",
        "payout_unit",
        "late_until_level",
        "max_entries",
        "max_reentries",
        "max_rebuys",
        "addon_chips",
        "addon_price",
        "pot_limit",
    ]
    structure_preset = forms.ChoiceField(
        label=_("Structure"),
        required=False,
        choices=[("", CUSTOM_STRUCTURE)] + [(k, p.label) for k, p in levels.PRESETS.items()],
        # (the words are set per request: structure_words)
        help_text=_(
            "A preset fills the antes, the minutes per level and the breaks below (its "
            "levels go by the clock). Change any of them and the structure is your own."
        ),
    )
    payout_preset = forms.ChoiceField(
        label=_("Payouts"),
        required=False,
        choices=[("", CUSTOM_PAYOUTS)]
        + [(k, label) for k, (label, _share) in pay.PAYOUT_PRESETS.items()],
        # (the words are set per request: payout_words)
    )
    antes_text = forms.CharField(
        label=_("Ante schedule"),
        initial="1, 2, 3, 5, 8, 10, 15, 20",
        help_text=_("Ante per level; the last one stays."),
    )
    payouts_text = forms.CharField(
        label=_("Payouts (% by place)"),
        required=False,
        help_text=_("e.g. 50, 30, 20. Empty: the default for the field size."),
    )
    # Money, typed and shown in the club's currency ("25", "0.50"), kept in minor units.
    buy_in = MoneyField(
        label=_("Buy-in"), max_value=MAX_STAKE, help_text=_("Goes into the prize pool.")
    )
    fee = MoneyField(
        label=_("Fee"),
        max_value=MAX_STAKE,
        help_text=_("Paid on top of the buy-in, kept by the house."),
    )
    addon_price = MoneyField(label=_("Add-on price"), max_value=MAX_STAKE, required=False)
    payout_unit = MoneyField(
        label=_("Round prizes to"),
        min_value=1,
        max_value=10**9,  # an int column
        help_text=_(
            "Each prize is a multiple of it (1 = whole dollars, 0.01 = to the cent); "
            "what rounding leaves goes to 1st."
        ),
    )
    pot_limit = forms.IntegerField(
        label=_("Pot limit"),
        required=False,
        min_value=1,
        help_text=_("Caps what a bourré or renege costs (R37). Empty: no limit."),
    )

    class Meta:
        model = Tournament
        # Every setting of the service but the three written as text below.
        fields = tuple(k for k in svc.SETTINGS if k not in ("antes", "payout_percentages", "rules"))
        labels = {
            "name": _("Name"),
            "format": _("Format"),
            "starting_chips": _("Starting chips"),
            "buy_in": _("Buy-in"),
            "fee": _("Fee"),
            "hands_per_level": _("Raise the ante every … hands"),
            "min_table": _("Fewest players at a table"),
            "max_table": _("Most players at a table"),
            "hands_per_round": _("Hands per round"),
            "final_hands": _("Hands at the final table"),
            "advance_per_table": _("Players advancing from each table"),
            "carry_stacks": _("Stacks carry into the next round"),
            "break_pot": _("A table below the minimum"),
            "table_mode": _("Tables"),
            "tiebreak": _("Tie-break"),
            "level_minutes": _("Minutes per level"),
            "break_every": _("A break every … levels"),
            "break_minutes": _("Break length (minutes)"),
            "payout_unit": _("Round prizes to"),
            "late_until_level": _("Late registration through level"),
            "max_entries": _("Field cap"),
            "max_reentries": _("Re-entries per player"),
            "max_rebuys": _("Rebuys per player"),
            "addon_chips": _("Add-on chips"),
            "addon_price": _("Add-on price"),
        }
        help_texts = {
            "hands_per_level": _("0: the ante rises each round."),
            "hands_per_round": _("Table rounds: then play on until the pot is won."),
            "final_hands": _("0: until one player holds every chip."),
            "carry_stacks": _("Otherwise every round starts from the starting chips."),
            "break_pot": _(
                "Freeze-out: a table with fewer players than the minimum breaks before its "
                "next deal and the chips in its pot go with its players; or it plays on "
                "until its pot is won."
            ),
            "level_minutes": _("0: levels go by hands (or rounds), not by the clock."),
            "late_until_level": _(
                "Freeze-out: entries, re-entries, rebuys and the add-on stay "
                "open through this level. 0: closed at the start."
            ),
            "max_entries": _("0: no cap. Beyond it players join the waiting list."),
            "addon_chips": _("0: no add-on."),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        structure = self.fields["structure_preset"]
        assert isinstance(structure, forms.ChoiceField)
        structure.choices = [("", CUSTOM_STRUCTURE), *structure_words()]
        structure.widget.attrs["data-presets"] = preset_fields()
        payout = self.fields["payout_preset"]
        assert isinstance(payout, forms.ChoiceField)
        payout.choices = [("", CUSTOM_PAYOUTS), *payout_words()]
        t = self.instance
        currency = t.club.currency if t.pk is None else t.currency
        for name in MONEY_FIELDS:
            field = self.fields[name]
            assert isinstance(field, MoneyField)  # declared above
            field.currency = currency
        if t.pk is None and "payout_unit" not in kwargs.get("initial", {}):
            # A ModelForm's initial values come from the instance, whose model default
            # (one minor unit) would win over the field's: whole units of the money.
            self.initial["payout_unit"] = currency.minor
        if t.pk:
            self.fields["antes_text"].initial = ", ".join(map(str, t.antes))
            self.fields["payouts_text"].initial = ", ".join(map(str, t.payout_percentages))
            self.fields["pot_limit"].initial = (t.rules or {}).get("pot_limit")
        self.fields["starting_chips"].widget.attrs.update(inputmode="numeric", min=0)
        # The round-2 settings may be left out: their defaults mean "not used".
        for name in OPTIONAL_NUMBERS:
            self.fields[name].required = False
        # Left out (a form saved before it existed): the default, T1 ``move``.
        self.fields["break_pot"].required = False

    def clean_name(self) -> str:
        return clean_name(self.cleaned_data["name"], max_length=TITLE_MAX, what="tournament name")

    def clean_break_pot(self) -> str:
        return str(self.cleaned_data.get("break_pot") or Tournament.BreakPot.MOVE)

    def clean_antes_text(self) -> list[int]:
        return _int_list(
            self.cleaned_data["antes_text"],
            gettext("Write the antes as whole numbers, e.g. 1, 2, 3."),
        )

    def clean_payouts_text(self) -> list[int]:
        return _int_list(
            self.cleaned_data.get("payouts_text") or "",
            gettext("Write the percentages as whole numbers, e.g. 1, 2, 3."),
        )

    def settings(self) -> dict:
        data = {k: self.cleaned_data[k] for k in self.Meta.fields}
        if data.get("payout_unit") is None:  # left empty: whole units of the money
            payout_unit = self.fields["payout_unit"]
            assert isinstance(payout_unit, MoneyField)  # declared above
            data["payout_unit"] = payout_unit.currency.minor
        for name in OPTIONAL_NUMBERS:
            if data.get(name) is None:
                field = Tournament._meta.get_field(name)
                assert isinstance(field, models.Field)  # a plain column, never a relation
                data[name] = field.get_default()
        data["antes"] = self.cleaned_data["antes_text"]
        data["payout_percentages"] = self.cleaned_data["payouts_text"]
        rules = dict(self.instance.rules or {})
        rules.pop("pot_limit", None)
        if self.cleaned_data.get("pot_limit"):
            rules["pot_limit"] = self.cleaned_data["pot_limit"]
        data["rules"] = rules
        return data

    def add_service_error(self, exc: TournamentError) -> None:
        field = {
            "antes": "antes_text",
            "payouts": "payouts_text",
            "table_size": "max_table",
            "rules": "pot_limit",
            "levels_both": "hands_per_level",
        }.get(exc.code, exc.code)
        self.add_error(field if field in self.fields else None, render(exc))


class EntryForm(forms.Form):
    players = forms.ModelMultipleChoiceField(
        queryset=Player.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        label=_("Enter players"),
    )
    check_in = forms.BooleanField(required=False, label=_("Checked in and paid"))
    bots = forms.BooleanField(required=False, label=_("Bots play for them (digital tables)"))

    def __init__(self, *args: Any, tournament: Tournament, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # A withdrawn player or a no-show may enter again (a waiting one is on the list).
        entered = tournament.entries.exclude(
            status__in=[Entry.Status.WITHDRAWN, Entry.Status.NO_SHOW]
        ).values("player_id")
        players = self.fields["players"]
        assert isinstance(players, forms.ModelMultipleChoiceField)  # declared above
        players.queryset = tournament.club.players.filter(archived_at__isnull=True).exclude(
            pk__in=entered
        )


class RosterForm(forms.Form):
    names = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 6}),
        label=_("Paste a roster"),
        help_text=_(
            "One name per line (or separated by commas). New names join the club's roster."
        ),
    )
    check_in = forms.BooleanField(required=False, label=_("Checked in and paid"))


class DealForm(forms.Form):
    """A final-table deal: the kind, who agreed (every player still in), custom amounts."""

    kind = forms.ChoiceField(
        label=pgettext_lazy("a final-table agreement", "Deal"),
        choices=list(KIND_WORDS.items()),
        widget=forms.RadioSelect,
        initial="chips",
    )

    def __init__(
        self,
        *args: Any,
        terms: dict[str, Any],
        names: dict[int, str],
        currency: Currency,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.terms, self.names, self.currency = terms, names, currency
        for p, chips in sorted(terms["chips"].items(), key=lambda x: -x[1]):
            name = names.get(p, "?")
            self.fields[f"agree_{p}"] = forms.BooleanField(
                required=False,
                # The stack grouped like the tournament pages' ("12,000"; "12 000" in fi).
                label=ngettext(
                    "%(name)s agrees (%(chips)s chip)", "%(name)s agrees (%(chips)s chips)", chips
                )
                % {"name": name, "chips": format_count(chips)},
            )
            self.fields[f"amount_{p}"] = MoneyField(
                currency=currency,
                required=False,
                label=gettext("%(name)s's share (custom)") % {"name": name},
            )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        amounts = self.amounts() if data.get("kind") else None
        if amounts is not None and sum(amounts.values()) != self.terms["total"]:
            # The service checks it again under the lock; here the form says it in the
            # tournament's money and keeps what was typed.
            raise forms.ValidationError(
                gettext("The amounts add up to %(sum)s, not the %(total)s left to win.")
                % {
                    "sum": format_money(sum(amounts.values()), self.currency),
                    "total": format_money(self.terms["total"], self.currency),
                }
            )
        return data

    def rule(self) -> str:
        return str(CHIP_CHOP_RULE) % {"unit": format_money(self.terms["unit"], self.currency)}

    def preview(self) -> list[dict]:
        """What each player takes in an even chop, a chip chop and an ICM deal, biggest
        stack first: the director reads the shares (and the rounding rule) before recording
        a deal — the same shares ``deals.propose`` pays."""
        terms = self.terms
        if not terms["chips"]:
            return []
        unit = terms["unit"]
        even = pay.even_chop(terms["total"], terms["chips"], terms["seats"], unit)
        try:
            chop: dict[int, int] | None = pay.chip_chop(
                terms["total"], terms["floor"], terms["chips"], terms["seats"], unit
            )
        except TournamentError:
            chop = None
        try:
            icm: dict[int, int] | None = pay.icm_deal(
                terms["prizes"], terms["chips"], terms["seats"], unit
            )
        except TournamentError:
            icm = None
        return [
            {
                "name": self.names.get(p, "?"),
                "seat": terms["seats"].get(p),
                "chips": chips,
                "even": even[p],
                "chop": chop[p] if chop else None,
                "icm": icm[p] if icm else None,
            }
            for p, chips in sorted(
                terms["chips"].items(), key=lambda x: (-x[1], terms["seats"].get(x[0], 0))
            )
        ]

    def agreed(self) -> list[int]:
        return [p for p in self.terms["chips"] if self.cleaned_data.get(f"agree_{p}")]

    def amounts(self) -> dict[int, int] | None:
        if self.cleaned_data.get("kind") != "custom":
            return None
        return {p: self.cleaned_data.get(f"amount_{p}") or 0 for p in self.terms["chips"]}

    def first_error(self) -> str:
        for errors in self.errors.values():
            return str(errors[0])
        return gettext("Check the deal.")


# -- pages ----------------------------------------------------------------------------------
