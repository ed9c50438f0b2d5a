from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm

from games.models import Club, Membership, Player, Role
from games.names import TITLE_MAX, clean_name


class SignupForm(UserCreationForm):
    email = forms.EmailField(required=False, help_text="Optional; for password resets later.")

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")


class ClubForm(forms.ModelForm):
    class Meta:
        model = Club
        fields = ("name", "currency")

    def clean_name(self) -> str:
        return clean_name(self.cleaned_data["name"], max_length=TITLE_MAX, what="club name")


class PlayerForm(forms.ModelForm):
    class Meta:
        model = Player
        fields = ("name",)
        widgets = {"name": forms.TextInput(attrs={"autocomplete": "off", "placeholder": "Name"})}

    def __init__(self, *args, club: Club, **kwargs):
        super().__init__(*args, **kwargs)
        self.club = club

    def clean_name(self) -> str:
        name = clean_name(self.cleaned_data["name"])
        clash = Player.objects.filter(club=self.club, name__iexact=name).exclude(
            pk=self.instance.pk
        )
        if clash.exists():
            raise forms.ValidationError(f"{name} is already on the roster.")
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
        queryset=Membership.objects.none(), required=False, empty_label="— not linked —"
    )

    def __init__(self, *args, club: Club, **kwargs):
        super().__init__(*args, **kwargs)
        member = self.fields["member"]
        assert isinstance(member, MemberChoiceField)  # declared above
        member.queryset = club.memberships.select_related("user")


class InviteForm(forms.Form):
    role = forms.ChoiceField(choices=Role.choices, initial=Role.MEMBER)


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=Role.choices)
