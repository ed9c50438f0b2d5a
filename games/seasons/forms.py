"""The season form: its name and days (in the club's time zone) and the four parameters
of its points formula (games.seasons.points: bounds in ``points.LIMITS``). Refusals are
the app's own words in the reader's language (games.formtext)."""

from typing import TYPE_CHECKING, Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.formtext import own_messages
from games.models import Season
from games.names import TITLE_MAX, clean_name
from games.seasons.points import DEFAULT, LIMITS

if TYPE_CHECKING:
    from django_stubs_ext import StrPromise

_DATE = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")


def _decimal(label: "StrPromise", help_text: "StrPromise", name: str) -> forms.DecimalField:
    low, high = LIMITS[name]
    return forms.DecimalField(
        label=label,
        help_text=help_text,
        min_value=low,
        max_value=high,
        initial=getattr(DEFAULT, name),
        max_digits=3,
        decimal_places=2,
        localize=True,
        widget=forms.TextInput(attrs={"inputmode": "decimal"}),
    )


def _whole(label: "StrPromise", help_text: "StrPromise", name: str) -> forms.IntegerField:
    low, high = LIMITS[name]
    return forms.IntegerField(
        label=label,
        help_text=help_text,
        min_value=int(low),
        max_value=int(high),
        initial=DEFAULT.scale if name == "points_scale" else DEFAULT.points_for_playing,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )


class SeasonForm(forms.ModelForm):
    points_scale = _whole(
        gettext_lazy("Points scale"),
        gettext_lazy("0 to 1000. The winner of a one-player field gets it."),
        "points_scale",
    )
    points_for_playing = _whole(
        gettext_lazy("Points for playing"),
        gettext_lazy("0 to 1000, added to every finish."),
        "points_for_playing",
    )
    field_exponent = _decimal(
        gettext_lazy("Field exponent"),
        gettext_lazy("0 to 2. 0.5: a field four times bigger gives twice the points."),
        "field_exponent",
    )
    place_exponent = _decimal(
        gettext_lazy("Place exponent"),
        gettext_lazy("0 to 2. 0.5: 1st earns about 1.41 times what 2nd earns."),
        "place_exponent",
    )

    class Meta:
        model = Season
        fields = (
            "name",
            "starts_on",
            "ends_on",
            "points_scale",
            "field_exponent",
            "place_exponent",
            "points_for_playing",
        )
        widgets = {"starts_on": _DATE, "ends_on": _DATE}
        labels = {
            "starts_on": gettext_lazy("First day"),
            "ends_on": gettext_lazy("Last day"),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        own_messages(self)

    def clean_name(self) -> str:
        return clean_name(self.cleaned_data["name"], max_length=TITLE_MAX)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        starts, ends = data.get("starts_on"), data.get("ends_on")
        if starts and ends and ends < starts:
            self.add_error("ends_on", _("The last day cannot come before the first day."))
        return data
