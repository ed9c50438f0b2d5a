"""Forms of the club's Tab pages (issue #34): a payment between two players, and the
owner's reminder settings. Labels and refusals in the reader's language. Every payment
form drawn carries a fresh one-time token (``form_token``; ``{% form_token %}`` for the
"Paid in full" buttons) so that submitting it twice records one payment."""

from __future__ import annotations

from typing import Any
from uuid import uuid4

from django import forms
from django.utils.translation import gettext_lazy

from games.formtext import own_messages
from games.models import Club, Player
from games.money import MoneyField
from ledger.models import TabPayment, TabSettings


def form_token() -> str:
    """A one-time token for a payment form (32 hex digits, never reused)."""
    return uuid4().hex


class PaymentForm(forms.Form):
    """ "ben paid ann $14": the whole debt or a part, cash or an app."""

    payer = forms.ModelChoiceField(queryset=Player.objects.none(), label=gettext_lazy("Who paid"))
    payee = forms.ModelChoiceField(queryset=Player.objects.none(), label=gettext_lazy("Paid to"))
    amount = MoneyField(label=gettext_lazy("Amount"), min_value=1)
    method = forms.ChoiceField(
        choices=TabPayment.Method.choices,
        initial=TabPayment.Method.CASH,
        label=gettext_lazy("How"),
    )
    # A fresh one-time token each time the form is drawn: a second submit of the same
    # form records nothing (``ledger.postings.report_payment``'s ``form_token``).
    once = forms.CharField(
        required=False, max_length=32, widget=forms.HiddenInput, initial=form_token
    )

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        players = Player.objects.filter(club=club).order_by("name", "id")
        for name in ("payer", "payee"):
            field = self.fields[name]
            assert isinstance(field, forms.ModelChoiceField)
            field.queryset = players
        amount = self.fields["amount"]
        assert isinstance(amount, MoneyField)
        amount.currency = club.currency
        own_messages(self)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("payer") and data.get("payer") == data.get("payee"):
            self.add_error("payee", gettext_lazy("Choose two different players."))
        return data


class TabSettingsForm(forms.ModelForm):
    """The club's reminders: opt-in, above an amount, after a number of days."""

    threshold = MoneyField(
        label=gettext_lazy("Remind when someone owes more than"), min_value=0, required=True
    )
    days = forms.IntegerField(
        label=gettext_lazy("…for more than this many days"), min_value=1, max_value=365
    )

    class Meta:
        model = TabSettings
        fields = ["reminders", "threshold", "days"]
        labels = {
            "reminders": gettext_lazy("E-mail reminders to members who owe"),
        }

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        threshold = self.fields["threshold"]
        assert isinstance(threshold, MoneyField)
        threshold.currency = club.currency
        own_messages(self)
