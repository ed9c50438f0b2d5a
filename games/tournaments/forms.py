"""The tournament director's forms: settings, adding entrants, starting with a seed."""

from django import forms

from games.engine.tournament import TournamentError
from games.models import Entry, Player, Tournament
from games.names import TITLE_MAX, clean_name
from games.tournaments import service as svc


def _int_list(text: str, label: str) -> list[int]:
    try:
        values = [int(x) for x in text.replace(",", " ").split()]
    except ValueError:
        raise forms.ValidationError(f"Write the {label} as whole numbers, e.g. 1, 2, 3.") from None
    return values


class TournamentForm(forms.ModelForm):
    field_order = [
        "name",
        "format",
        "table_mode",
        "buy_in",
        "fee",
        "starting_chips",
        "antes_text",
        "hands_per_level",
        "min_table",
        "max_table",
        "hands_per_round",
        "advance_per_table",
        "final_hands",
        "tiebreak",
        "carry_stacks",
        "payouts_text",
        "pot_limit",
    ]
    antes_text = forms.CharField(
        label="Ante schedule",
        initial="1, 2, 3, 5, 8, 10, 15, 20",
        help_text="Ante per level; the last one stays.",
    )
    payouts_text = forms.CharField(
        label="Payouts (% by place)",
        required=False,
        help_text="e.g. 50, 30, 20. Empty: the default for the field size.",
    )
    pot_limit = forms.IntegerField(
        label="Pot limit",
        required=False,
        min_value=1,
        help_text="Caps what a bourré or renege costs (R37). Empty: no limit.",
    )

    class Meta:
        model = Tournament
        # Every setting of the service but the three written as text below.
        fields = tuple(k for k in svc.SETTINGS if k not in ("antes", "payout_percentages", "rules"))
        labels = {
            "buy_in": "Buy-in",
            "fee": "Fee",
            "hands_per_level": "Raise the ante every … hands",
            "min_table": "Fewest players at a table",
            "max_table": "Most players at a table",
            "hands_per_round": "Hands per round",
            "final_hands": "Hands at the final table",
            "advance_per_table": "Players advancing from each table",
            "carry_stacks": "Stacks carry into the next round",
            "table_mode": "Tables",
            "tiebreak": "Tie-break",
        }
        help_texts = {
            "buy_in": "Whole amount in the club's currency; goes into the prize pool.",
            "fee": "Paid on top of the buy-in, kept by the house.",
            "hands_per_level": "0: the ante rises each round.",
            "hands_per_round": "Table rounds: then play on until the pot is won.",
            "final_hands": "0: until one player holds every chip.",
            "carry_stacks": "Otherwise every round starts from the starting chips.",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        t = self.instance
        if t.pk:
            self.fields["antes_text"].initial = ", ".join(map(str, t.antes))
            self.fields["payouts_text"].initial = ", ".join(map(str, t.payout_percentages))
            self.fields["pot_limit"].initial = (t.rules or {}).get("pot_limit")
        for name in ("buy_in", "fee", "starting_chips"):
            self.fields[name].widget.attrs.update(inputmode="numeric", min=0)

    def clean_name(self) -> str:
        return clean_name(self.cleaned_data["name"], max_length=TITLE_MAX, what="tournament name")

    def clean_antes_text(self) -> list[int]:
        return _int_list(self.cleaned_data["antes_text"], "antes")

    def clean_payouts_text(self) -> list[int]:
        return _int_list(self.cleaned_data.get("payouts_text") or "", "percentages")

    def settings(self) -> dict:
        data = {k: self.cleaned_data[k] for k in self.Meta.fields}
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
        }.get(exc.code, exc.code)
        self.add_error(field if field in self.fields else None, str(exc))


class EntryForm(forms.Form):
    players = forms.ModelMultipleChoiceField(
        queryset=Player.objects.none(), widget=forms.CheckboxSelectMultiple, label="Enter players"
    )
    check_in = forms.BooleanField(required=False, label="Checked in and paid")
    bots = forms.BooleanField(required=False, label="Bots play for them (digital tables)")

    def __init__(self, *args, tournament: Tournament, **kwargs):
        super().__init__(*args, **kwargs)
        entered = tournament.entries.exclude(status=Entry.Status.WITHDRAWN).values("player_id")
        players = self.fields["players"]
        assert isinstance(players, forms.ModelMultipleChoiceField)  # declared above
        players.queryset = tournament.club.players.exclude(pk__in=entered)


class StartForm(forms.Form):
    seed = forms.CharField(
        required=False,
        max_length=64,
        help_text="Empty: a random seed. It is stored and shown so the draw can be checked.",
    )


# -- pages ----------------------------------------------------------------------------------
