"""Forms of the club pages: sign-up, the club (name, money, time zone), players, members.

The club's money is picked from games.money.CURRENCIES (USD preselected: one tap for the
common case); once the club has games it may only change to a currency counted in the same
minor unit, since the stored integers would otherwise change value. A club without a zone
of its own (the server's) is edited with the server's zone chosen, not the list's first
entry, so saving the settings untouched keeps its times.

Labels, help texts and refusals are in the reader's language (issue 19); the roles'
names too (``ROLE_CHOICES``: the model's own choices, whose labels are translated).
"""

import re
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import timezones
from games.clubs import payment_links
from games.formtext import own_messages
from games.models import Club, Membership, PaymentHandles, Player, Role
from games.money import Currency, CurrencyField
from games.names import TITLE_MAX, clean_name


class SignupForm(UserCreationForm):
    email = forms.EmailField(
        label=gettext_lazy("Email"),
        required=False,
        help_text=gettext_lazy("Optional; for password resets later."),
    )

    error_messages = {
        **UserCreationForm.error_messages,
        "password_mismatch": gettext_lazy(
            "The two passwords are not the same: type the same one twice."
        ),
    }

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        own_messages(self)
        # The project's words, not Django's ("Required. 150 characters or fewer…", the
        # password validators' list, "Enter the same password as before…").
        self.fields["username"].help_text = _(
            "Up to 150 characters: letters, digits and @ . + - _ (no spaces)."
        )
        self.fields["password1"].help_text = _(
            "At least 8 characters, not only digits, not a common password, and not like "
            "your username or email."
        )
        self.fields["password2"].help_text = _("The same password again, to be sure of it.")

    def clean_username(self) -> str:
        # Before Django's check, which says "A user with that username already exists."
        # (the same test: names that differ only in case are one name).
        username = self.cleaned_data.get("username")
        model = self._meta.model
        if username and model.objects.filter(username__iexact=username).exists():
            raise ValidationError(_("That username is taken: choose another one."), code="unique")
        return str(super().clean_username())


class LoginForm(AuthenticationForm):
    """The login form with the project's words for a wrong name or password (Django's
    says "Please enter a correct username and password. Note that both fields may be
    case-sensitive.", in Spanish with "usted")."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": gettext_lazy(
            "That username and password do not match. Check both and try again."
        ),
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        own_messages(self)


NUMERIC = re.compile(r"[+-]?(\d+[.,]?\d*|[.,]\d+)([eE][+-]?\d+)?")


class ClubForm(forms.ModelForm):
    currency = CurrencyField(
        label=gettext_lazy("Money"),
        help_text=gettext_lazy("What the table plays for. Amounts are typed like 0.25 or 5."),
    )
    time_zone = forms.ChoiceField(
        required=False,  # none given: the server's zone
        label=gettext_lazy("Time zone"),
        help_text=gettext_lazy(
            "Times of the club's games are shown in it. A new club starts from this phone's zone."
        ),
    )

    class Meta:
        model = Club
        fields = ("name", "time_zone")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        zone = self.fields["time_zone"]
        assert isinstance(zone, forms.ChoiceField)  # declared above
        zone.choices = timezones.choices()
        zone.initial = self.instance.time_zone or settings.TIME_ZONE
        # The instance's empty zone would otherwise be the form's value: no option matches it,
        # so the phone shows (and saves) the list's first zone, Africa/Abidjan.
        if not self.initial.get("time_zone"):
            self.initial["time_zone"] = zone.initial
        if not self.instance.pk:
            # Filled in from the browser's zone by static/js/app.js (a new club only).
            zone.widget.attrs["data-browser-tz"] = "1"
        currency = self.fields["currency"]
        assert isinstance(currency, CurrencyField)  # declared above
        currency.set_own(self.instance.currency)
        own_messages(self)

    def clean_name(self) -> str:
        return clean_name(self.cleaned_data["name"], max_length=TITLE_MAX, what="club name")

    def clean_currency(self) -> Currency:
        new = self.cleaned_data["currency"]
        old = self.instance.currency
        club = self.instance
        if (
            club.pk
            and new.exponent != old.exponent
            and (club.sessions.exists() or club.tournaments.exists())
        ):
            # Stored amounts are counts of the old minor unit: they would change value.
            if old.exponent:
                sentence = _(
                    "The club's books are kept in %(symbol)s to the cent; it can change to a "
                    "currency counted the same way only. Start a new club for the other one."
                )
            else:
                sentence = _(
                    "The club's books are kept in %(symbol)s whole units; it can change to a "
                    "currency counted the same way only. Start a new club for the other one."
                )
            raise forms.ValidationError(sentence % {"symbol": old.symbol})
        club.currency = new
        return new


class PlayerForm(forms.ModelForm):
    class Meta:
        model = Player
        fields = ("name",)
        widgets = {
            "name": forms.TextInput(
                attrs={"autocomplete": "off", "placeholder": gettext_lazy("Name")}
            )
        }

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.club = club
        own_messages(self)

    def clean_name(self) -> str:
        name = clean_name(self.cleaned_data["name"])
        clash = Player.objects.filter(club=self.club, name__iexact=name).exclude(
            pk=self.instance.pk
        )
        if clash.exists():
            raise forms.ValidationError(
                _("%(name)s is already on the roster.") % {"name": name}, code="duplicate_name"
            )
        # A name that is only a number ("7", "-6.16e+277") is almost always a client
        # mixing up an id or an amount with a name: refused, with a way on.
        if NUMERIC.fullmatch(name):
            raise forms.ValidationError(
                _("A name cannot be just a number; add a letter, e.g. “Player 7”."),
                code="numeric_name",
            )
        return name

    def save(self, commit: bool = True) -> Player:
        self.instance.club = self.club
        return super().save(commit)


class MemberChoiceField(forms.ModelChoiceField):
    """A club membership, shown as its user's name."""

    def label_from_instance(self, obj: Membership) -> str:
        return obj.user.username


class PlayerLinkForm(forms.Form):
    member = MemberChoiceField(
        label=gettext_lazy("Member"),
        queryset=Membership.objects.none(),
        required=False,
        empty_label=gettext_lazy("— not linked —"),
    )

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        member = self.fields["member"]
        assert isinstance(member, MemberChoiceField)  # declared above
        member.queryset = club.memberships.select_related("user")


# The roles in the reader's language (the model's labels are translated), in its order.
ROLE_CHOICES = Role.choices


class InviteForm(forms.Form):
    role = forms.ChoiceField(label=gettext_lazy("Role"), choices=ROLE_CHOICES, initial=Role.MEMBER)


class RoleForm(forms.Form):
    role = forms.ChoiceField(label=gettext_lazy("Role"), choices=ROLE_CHOICES)


class HandlesForm(forms.ModelForm):
    """A player's payment handles (games.clubs.payment_links checks each format). The
    fields take a little more than the stored length, so "@ann" or a pasted IBAN with
    spaces is judged by the format's own sentence rather than a bare length limit."""

    class Meta:
        model = PaymentHandles
        fields = ("venmo", "paypal", "cashtag", "revolut", "other")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        hints = {
            "venmo": "@ann-smith",
            "paypal": "AnnSmith",
            "cashtag": "$AnnSmith",
            "revolut": "@annsmith",
            "other": "IBAN DE89 3704 0044 0532 0130 00",
        }
        for name, field in self.fields.items():
            assert isinstance(field, forms.CharField)  # the model's CharFields
            field.max_length = 200
            field.validators = []
            field.widget.attrs.update(
                {
                    "maxlength": "200",
                    "placeholder": hints[name],
                    "autocomplete": "off",
                    "autocapitalize": "none",
                    "spellcheck": "false",
                }
            )
        own_messages(self)

    def _checked(self, app: str) -> str:
        try:
            return payment_links.check(app, self.cleaned_data.get(app) or "")
        except payment_links.HandleRefused as refused:
            raise forms.ValidationError(_handle_sentence(refused), code=refused.code) from None

    def clean_venmo(self) -> str:
        return self._checked("venmo")

    def clean_paypal(self) -> str:
        return self._checked("paypal")

    def clean_cashtag(self) -> str:
        return self._checked("cashtag")

    def clean_revolut(self) -> str:
        return self._checked("revolut")

    def clean_other(self) -> str:
        return self._checked("other")


def _handle_sentence(refused: payment_links.HandleRefused) -> str:
    """Why a handle was refused, in the reader's language, with what to type instead."""
    limits = {"low": refused.low, "high": refused.high}
    if refused.code == "invisible":
        return _(
            "This text has invisible or control characters (perhaps pasted with it): type it again."
        )
    if refused.app == "other":
        return _("Keep it to %(high)s characters.") % limits
    if refused.code == "letter":
        return _("A $cashtag needs at least one letter, e.g. $Ann7.")
    if refused.app == "venmo":
        return (
            _(
                "A Venmo username is %(low)s to %(high)s letters, digits, hyphens or "
                "underscores, without spaces."
            )
            % limits
        )
    if refused.app == "paypal":
        return (
            _(
                "A PayPal.Me name is up to %(high)s letters and digits: no spaces, dots or "
                "hyphens. Type what comes after paypal.me/."
            )
            % limits
        )
    if refused.app == "cashtag":
        return _("A $cashtag is up to %(high)s letters and digits, without spaces.") % limits
    return (
        _(
            "A Revolut username is %(low)s to %(high)s letters, digits, dots, hyphens or "
            "underscores. Type what comes after revolut.me/."
        )
        % limits
    )
