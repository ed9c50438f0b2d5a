"""Forms of the session pages: starting a session, house rules, recording a hand.

The house-rule fields are built from `games.engine.rules.RULE_FIELDS` (games.sessions.
rule_fields), so a switch added to the engine shows up here with its label, default and
help text; a new table's ante starts at the club's latest home session's ante (one whole
unit of its currency at a club's first table). A session counts in its club's minor unit
(the picker offers only those currencies). The hand form turns a few taps per player
into the table's part of a hand record (HAND_RECORD.md); the engine stays the judge, but
the obvious slips (more tricks than a hand has, a passer with tricks) are caught here
first, so the player reads them in table words beside the row, each naming its rule once
(``with_rule``). What the taps mean for the record (a renege named for a passer under an
Ace up, R38; calls out of turn added to the forfeits owed, R16) is
``games.engine.hand_meaning``'s: the form collects, the engine decides. Its fields are
built once per players, hand size and language and copied shallowly into each form
(``_hand_fields``; building them was an eighth of a record POST).

Every label, help text and refusal is in the reader's language (issue 19): the
module-level choices are lazy texts, the per-player fields are built per language, and
the engine's refusals go through ``games.messages``. A new session's default name, the
day, is written in the reader's word order (a translated date format).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import re
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils import dateformat, timezone
from django.utils.translation import get_language, gettext_lazy, ngettext, pgettext, pgettext_lazy
from django.utils.translation import gettext as _

from games.engine.cards import CARD_NAMES, CardError, parse_card, parse_suit
from games.engine.hand_meaning import (
    RenegeClaim,
    claimed_reneges,
    excused_from_ante,
    forfeits_after,
)
from games.engine.rulebook import CODE_RULES
from games.engine.rules import Rules
from games.formtext import own_messages
from games.messages import render_error
from games.models import Club, GameSession, Player
from games.money import CurrencyField
from games.names import TITLE_MAX, clean_name
from games.sessions.card_log import parse_card_log, plays_text
from games.sessions.rule_fields import RulesForm
from games.templatetags.bourre import SUITS as SUIT_NAMES

MAX_SEATS = 8
SUITS = [
    ("S", gettext_lazy("Spades")),
    ("H", gettext_lazy("Hearts")),
    ("D", gettext_lazy("Diamonds")),
    ("C", gettext_lazy("Clubs")),
]


def _last_ante(club: Club) -> int | None:
    """The ante the club's latest home session played at last (its rules after any
    change), for the next one to start from: most tables keep their stake week to week
    (a quarter, not the one whole unit a club's first table starts at). A tournament
    table's ante is a level of chips, not a stake, so it is never the one carried."""
    rules = (
        club.sessions.filter(chip_limited=False)
        .order_by("-created_at", "-id")
        .values_list("rules", flat=True)
        .first()
    )
    ante = (rules or {}).get("ante") if isinstance(rules, dict) else None
    return ante if isinstance(ante, int) and ante > 0 else None


class SessionForm(RulesForm):
    """Start a session: name, seats in order, first dealer, currency and house rules."""

    name = forms.CharField(label=gettext_lazy("Name"), max_length=100)
    new_players = forms.CharField(
        required=False,
        max_length=400,
        label=gettext_lazy("New players"),
        help_text=gettext_lazy(
            "Names not on the roster yet, separated by commas. They join the roster "
            "and sit after the seats above."
        ),
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "placeholder": gettext_lazy("e.g. Eve, Fay")}
        ),
    )
    dealer = forms.ModelChoiceField(
        queryset=Player.objects.none(),
        required=False,
        label=gettext_lazy("First dealer"),
        empty_label=gettext_lazy("Seat 1 deals"),
        help_text=gettext_lazy("Must be seated. The player on the dealer's left leads."),
    )
    currency = CurrencyField(
        label=gettext_lazy("Currency"),
        help_text=gettext_lazy(
            "What every amount is counted in: the club's money, or another counted the "
            "same way (dollars or euros, both in cents)."
        ),
    )
    leftover_policy = forms.ChoiceField(
        choices=GameSession.LeftoverPolicy.choices,
        label=gettext_lazy("Pot left at the end"),
        help_text=gettext_lazy(
            "What happens to a pot still on the table when the session closes "
            "(you can change it when closing)."
        ),
    )

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        # The amounts (ante, pot limit) are read in the currency being chosen: the one
        # posted if it is one of ours, else the club's.
        data = args[0] if args else kwargs.get("data")
        kwargs.setdefault("currency", CurrencyField.posted(data, club.currency))
        super().__init__(*args, **kwargs)
        self.club = club
        currency_field = self.fields["currency"]
        assert isinstance(currency_field, CurrencyField)  # declared above
        currency_field.set_own(club.currency, same_exponent=True)
        # Archived players keep their books but are not offered for a new table.
        active = club.players.filter(archived_at__isnull=True)
        roster = list(active)
        self.roster = roster
        by_id = {p.pk: p for p in roster}
        for i in range(1, MAX_SEATS + 1):
            field = forms.ModelChoiceField(
                queryset=active,
                required=False,
                label=_("Seat %(n)s") % {"n": i},
                empty_label=_("— empty —"),
            )
            # A roster of up to eight is usually the whole table: seat it in roster order.
            if len(roster) <= MAX_SEATS and i <= len(roster):
                field.initial = roster[i - 1].pk
            self.fields[f"seat_{i}"] = field
        dealer = self.fields["dealer"]
        assert isinstance(dealer, forms.ModelChoiceField)  # declared above
        dealer.queryset = active
        # The day names the new session in the reader's word order ("11월 30일 월요일", not
        # "월요일 30 11월"): the format is the translators' (Django date letters).
        name_format = pgettext(
            "date format of a new session's default name (Django date letters)", "l j F"
        )
        self.fields["name"].initial = dateformat.format(timezone.localdate(), name_format)
        self.fields["leftover_policy"].initial = GameSession.LeftoverPolicy.CARRY_TO_CLUB
        last_ante = _last_ante(club)
        if last_ante is not None:
            self.fields["ante"].initial = last_ante
        self._by_id = by_id
        own_messages(self)

    def clean_name(self) -> str:
        return clean_name(self.cleaned_data["name"], max_length=TITLE_MAX, what="session name")

    def seat_fields(self) -> list[forms.BoundField]:
        return [self[f"seat_{i}"] for i in range(1, MAX_SEATS + 1)]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        assert cleaned is not None  # forms.Form.clean() returns cleaned_data
        seating: list[Player | str] = []
        seen: dict[str, str] = {}
        for i in range(1, MAX_SEATS + 1):
            player = cleaned.get(f"seat_{i}")
            if player is None:
                continue
            key = player.name.lower()
            if key in seen:
                self.add_error(
                    f"seat_{i}",
                    _("%(player)s is already in %(place)s.")
                    % {"player": player.name, "place": seen[key]},
                )
                continue
            seen[key] = _("seat %(n)s") % {"n": i}
            seating.append(player)
        roster_by_name = {p.name.lower(): p for p in self.roster}
        for raw in re.split(r"[,\n;]+", cleaned.get("new_players") or ""):
            if not raw.strip():
                continue
            try:
                name = clean_name(raw)
            except ValidationError as refused:
                self.add_error(
                    "new_players",
                    _("“%(name)s”: %(problem)s")
                    % {"name": raw.strip()[:40], "problem": refused.messages[0]},
                )
                continue
            key = name.lower()
            if key in seen:
                self.add_error("new_players", _("%(player)s is already seated.") % {"player": name})
                continue
            seen[key] = _("the new players")
            seating.append(roster_by_name.get(key, name))
        if not 2 <= len(seating) <= MAX_SEATS and not self.errors:
            self.add_error(
                None,
                ngettext(
                    "A game needs 2 to 8 players (R3); %(n)s is seated.",
                    "A game needs 2 to 8 players (R3); %(n)s are seated.",
                    len(seating),
                )
                % {"n": len(seating)},
            )
        dealer = cleaned.get("dealer")
        if dealer is not None and dealer not in seating:
            self.add_error("dealer", _("%(player)s is not seated.") % {"player": dealer.name})
        cleaned["seating"] = seating
        return cleaned


class CloseForm(forms.Form):
    leftover_policy = forms.ChoiceField(
        choices=GameSession.LeftoverPolicy.choices,
        widget=forms.RadioSelect,
        label=gettext_lazy("The pot left on the table"),
    )
    # Issue #34: settled tonight (each transfer ticked paid, as before) or the whole
    # settlement on the club's tab at once; one transfer at a time on the settlement page.
    settle = forms.ChoiceField(
        choices=[
            ("tonight", gettext_lazy("Tonight: tick each transfer when it is paid")),
            ("tab", gettext_lazy("Put it all on the club's tab")),
        ],
        widget=forms.RadioSelect,
        initial="tonight",
        required=False,
        label=gettext_lazy("Who owes what is paid"),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        own_messages(self)


# --- the record form's built sentences ----------------------------------------------------
# A message that names its rule once ("… (R10)."), and what an unfinished card log still
# lacks. The words are in the reader's language (the rule numbers stay: the page turns
# them into "why?" links).

RULE_IN_TEXT = re.compile(r"\(R\d{1,2}\)")


def _sentence(text: str, capitalize: bool = True) -> str:
    text = text.strip()
    if not text:
        return text
    if capitalize:
        text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def with_rule(message: str, rule: str | None, capitalize: bool = False) -> str:
    """A message that names its rule once: "… (R10)."; player names keep their case."""
    message = message.strip().rstrip(".")
    if rule and not RULE_IN_TEXT.search(message):
        # A question keeps its mark last ("… the other 1 (R7)?"), so the page, which
        # turns "(R7)" into a "why?" link, never shows "1?.".
        if message.endswith(("?", "!")):
            message = f"{message[:-1]} ({rule}){message[-1]}"
        else:
            message = f"{message} ({rule})"
    return _sentence(message, capitalize)


def incomplete_message(verdict: dict[str, Any]) -> str:
    """What an unfinished hand still lacks: who plays next (and may play what), or the
    tricks."""
    nxt = verdict.get("next") or {}
    who = nxt.get("player")
    if who:
        legal = nxt.get("legal")
        if legal:
            return _(
                "The card log stops before the hand is over: %(player)s plays next (they may "
                "play %(cards)s). Add the remaining cards, or enter the tricks with the steppers."
            ) % {"player": who, "cards": ", ".join(legal)}
        return _(
            "The card log stops before the hand is over: %(player)s plays next. "
            "Add the remaining cards, or enter the tricks with the steppers."
        ) % {"player": who}
    return _("The hand is not over yet: enter the tricks, or the whole card log.")


# --- recording a hand ---------------------------------------------------------------------

PLAY, PASS = "play", "pass"
NO_RENEGE, CORRECTED, UNCORRECTED = "", "corrected", "uncorrected"
RENEGE_CHOICES = [
    (NO_RENEGE, gettext_lazy("No renege")),
    (CORRECTED, gettext_lazy("Caught in time (card taken back)")),
    (UNCORRECTED, gettext_lazy("Not corrected (pays the pot)")),
]

RENEGE_KINDS = [
    (UNCORRECTED, gettext_lazy("not corrected (pays)")),
    (CORRECTED, gettext_lazy("caught in time")),
]

ROW_PREFIXES = ("play_", "tricks_", "renege_")
# Where an engine error about the tricks' total goes: beside the tricks counter, not a field.
COUNTER = "__counter__"


class HandForm(forms.Form):
    """The record screen: trump, then per player Play/Pass, tricks and a renege flag.

    Rows are indexed by seat; the names travel in hidden fields, so a retried submission
    describes the same players even after the table moved on (the ledger then finds the
    hand by its idempotency key).
    """

    trump = forms.ChoiceField(
        label=gettext_lazy("Trump"), choices=SUITS, required=False, widget=forms.RadioSelect
    )
    up_card = forms.CharField(
        required=False,
        max_length=4,
        label=gettext_lazy("Up-card"),
        help_text=gettext_lazy(
            "Optional: the dealer's face-up card, like QH. An Ace up makes the dealer play (R12)."
        ),
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "autocapitalize": "characters", "placeholder": "QH"}
        ),
    )
    card_log = forms.CharField(
        required=False,
        max_length=4000,
        label=gettext_lazy("Card log"),
        help_text=gettext_lazy(
            "Every card in the order played: “ann AS, ben KS, cal 2S, …”, or a JSON piece "
            "of a hand record (plays, hands, discards). The engine finds reneges in it."
        ),
        widget=forms.Textarea(attrs={"rows": 4, "autocomplete": "off", "spellcheck": "false"}),
    )
    idempotency_key = forms.CharField(max_length=80, widget=forms.HiddenInput)
    version = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)

    def __init__(
        self,
        *args: Any,
        state: dict[str, Any],
        prefill: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        # Django's __init__ deep-copies the declared fields, which are replaced just below
        # by copies of the built ones: it copies none (an instance attribute hides the
        # class's for that call only; issue #20).
        self.__dict__["base_fields"] = {}
        super().__init__(*args, **kwargs)
        del self.__dict__["base_fields"]
        self.state = state
        self.rules = Rules.from_dict(state.get("rules") or {})
        self.hand_size = self.rules.hand_size
        self.players = self._players(state)
        self.dealer = state.get("dealer")
        self.excused = excused_from_ante(state.get("excused") or [], self.rules)
        # Every field, built for these names and this hand size once per process (building
        # ~27 fields and rewriting their messages was an eighth of a record POST; issue
        # #20); each form gets its own shallow copies, so an attribute set on one form's
        # field (like the version's initial below) stays that form's.
        built = _hand_fields(tuple(self.players), self.hand_size, get_language())
        self.fields = {name: _shallow_copy(field) for name, field in built.items()}
        self.fields["version"].initial = state.get("version")
        if prefill:
            self._prefill(prefill)
        self.notice = ""

    def _players(self, state: dict[str, Any]) -> list[str]:
        if self.is_bound:
            posted = []
            for i in range(MAX_SEATS):
                name = self.data.get(f"player_{i}")
                if not name:
                    break
                posted.append(str(name)[:40])
            if len(posted) >= 2:
                return posted
        return list(state.get("players") or [])

    def _prefill(self, entry: dict[str, Any]) -> None:
        """Fill the form from an earlier hand's record (Edit = void + this form)."""
        self._prefill_trump(entry)
        self._prefill_rows(entry)
        self._prefill_card_log(entry)

    def _prefill_trump(self, entry: dict[str, Any]) -> None:
        # The suit buttons show the up-card's suit when only the up-card was recorded.
        up = entry.get("up_card")
        trump = entry.get("trump")
        if up:
            self.initial["up_card"] = up
            with contextlib.suppress(CardError):
                trump = trump or "SHDC"[parse_card(up) // 13]
        if trump:
            with contextlib.suppress(CardError):
                self.initial["trump"] = "SHDC"[parse_suit(trump)]

    def _prefill_rows(self, entry: dict[str, Any]) -> None:
        """Each seat's Play/Pass, tricks, renege and call out of turn, as recorded."""
        index = {name: i for i, name in enumerate(self.players)}
        passed = entry.get("passed") or []
        for i, name in enumerate(self.players):
            self.initial[f"play_{i}"] = PASS if name in passed else PLAY
        for name, count in (entry.get("tricks") or {}).items():
            if name in index:
                self.initial[f"tricks_{index[name]}"] = count
        self._prefill_reneges(entry.get("reneges") or [], index)
        # Only the calls made at that hand are ticked (R16): the forfeits the table owed
        # before it are the session's, not this hand's.
        owed = set(self.state.get("forfeits") or [])
        for name in entry.get("forfeits") or []:
            if name in index and name not in owed:
                self.initial[f"out_of_turn_{index[name]}"] = True

    def _prefill_reneges(self, reneges: list[Any], index: dict[str, int]) -> None:
        """Each renege in its player's row; the first one also under "More"."""
        for renege in reneges:
            who = renege.get("player") if isinstance(renege, dict) else None
            if who in index:
                kind = CORRECTED if renege.get("corrected") else UNCORRECTED
                self.initial[f"renege_{index[who]}"] = kind
                if "renege_who" not in self.initial:
                    self.initial["renege_who"], self.initial["renege_kind"] = who, kind

    def _prefill_card_log(self, entry: dict[str, Any]) -> None:
        """The card log as typed: a JSON piece when the record has hands or discards,
        else the plays as text; with plays and no tricks the steppers stay at zero."""
        extra = {k: entry[k] for k in ("hands", "discards") if entry.get(k)}
        if extra:
            if entry.get("plays"):
                extra["plays"] = entry["plays"]
            self.initial["card_log"] = json.dumps(extra)
        elif entry.get("plays"):
            self.initial["card_log"] = plays_text(entry["plays"])
        if entry.get("plays") and not entry.get("tricks"):
            for i in range(len(self.players)):
                self.initial[f"tricks_{i}"] = 0

    # -- presentation ---------------------------------------------------------------------

    def rows(self) -> list[dict[str, Any]]:
        """One row per player with plain values: the template writes these inputs itself
        (Django's per-widget templates cost more than the rest of the page together)."""
        slots = self.error_slots()
        # Each tricks button's label for screen readers ("ann took 3"), translated once
        # per page instead of by a blocktranslate per button (six buttons a seat: about
        # a quarter of the record form's rendering, issue #20).
        took = _("%(name)s took %(tricks)s")
        rows = []
        for i, name in enumerate(self.players):
            renege = self._value(f"renege_{i}") or NO_RENEGE
            tricks = _as_int(self._value(f"tricks_{i}"))
            if self.is_bound:
                tricks_set = self.data.get(f"tricks_{i}") not in (None, "")
            else:
                tricks_set = f"tricks_{i}" in self.initial
            rows.append(
                {
                    "index": i,
                    "name": name,
                    "dealer": name == self.dealer,
                    "excused": name in self.excused,
                    "passed": not self._played(i),
                    "tricks": tricks,
                    "tricks_set": tricks_set,
                    # (value, label, checked) per button, the numbers already text.
                    "trick_options": [
                        (str(n), took % {"name": name, "tricks": n}, tricks_set and tricks == n)
                        for n in range(self.hand_size + 1)
                    ],
                    "renege": renege,
                    "reneged": bool(renege),
                    "out_of_turn": bool(self._value(f"out_of_turn_{i}")),
                    "renege_choices": RENEGE_CHOICES,
                    "errors": slots["rows"].get(i, []),
                }
            )
        return rows

    def _played(self, i: int) -> bool:
        """Whether row ``i`` played: ticked ("play"), or not marked "pass" and given
        tricks or named as the renege (what the phone sends when a host taps a tricks
        count or a reneging player without ticking the name first)."""
        value = self._value(f"play_{i}")
        if value in (PLAY, PASS):
            return value == PLAY
        if not self.is_bound:
            return False
        try:
            tricks = int(self.data.get(f"tricks_{i}") or 0)
        except (TypeError, ValueError):
            tricks = 0
        return tricks > 0 or self.data.get("renege_who") == self.players[i]

    def set_table(self, state: dict[str, Any]) -> None:
        """Who deals and who is excused, for showing the form (a POST is parsed without
        them: the names travel in the form)."""
        self.state = state
        self.dealer = state.get("dealer")
        # Under double_ante (or dealer_antes_for_all) nobody is excused, even a player a
        # hand before the switch excused (R5): the heading and the marks say so.
        rules = Rules.from_dict(state.get("rules") or {})
        self.excused = excused_from_ante(state.get("excused") or [], rules)

    def _value(self, name: str) -> Any:
        return self[name].value()

    def out_of_turn_called(self) -> bool:
        """Is a declaration out of turn (R16) ticked for anyone? (keeps "More" open)"""
        return any(self._value(f"out_of_turn_{i}") for i in range(len(self.players)))

    def counted(self) -> int:
        total = 0
        for i in range(len(self.players)):
            if not self._played(i):
                continue
            with contextlib.suppress(TypeError, ValueError):
                total += int(self._value(f"tricks_{i}") or 0)
        return total

    def error_slots(self) -> dict[str, Any]:
        """Errors grouped by where they are shown: the suit buttons, a row, the counter,
        the card log, or the top of the form."""
        slots: dict[str, Any] = {"top": [], "suit": [], "counter": [], "card_log": [], "rows": {}}
        if not self.is_bound:
            return slots
        for field, errors in self.errors.as_data().items():
            for error in errors:
                for message in error.messages:
                    if field == "__all__":
                        slot = slots["counter"] if error.code == "tricks_total" else slots["top"]
                    elif field in ("trump", "up_card"):
                        slot = slots["suit"]
                    elif field == "card_log":
                        slot = slots["card_log"]
                    elif (row := _row_of(field)) is not None:
                        slot = slots["rows"].setdefault(row, [])
                    else:
                        slot = slots["top"]
                    if message not in slot:
                        slot.append(message)
        return slots

    # -- validation -----------------------------------------------------------------------

    def clean(self) -> dict[str, Any]:
        """The obvious slips, caught before the engine judges the hand: a card log that
        does not parse, a missing or contradicted trump (R2), a passer with tricks (R10),
        more or fewer tricks than the hand has (R7)."""
        cleaned = super().clean()
        assert cleaned is not None  # forms.Form.clean() returns cleaned_data
        n = len(self.players)
        for i in range(n):
            if cleaned.get(f"play_{i}") not in (PLAY, PASS) and f"play_{i}" not in self.errors:
                cleaned[f"play_{i}"] = PLAY if self._played(i) else PASS
        fragment: dict[str, Any] = {}
        if "card_log" not in self.errors:
            try:
                fragment = parse_card_log(cleaned.get("card_log", ""), self.players)
            except forms.ValidationError as error:
                self.add_error("card_log", error)
        cleaned["fragment"] = fragment
        self._clean_trump(cleaned, fragment)
        if any(f"tricks_{i}" in self.errors or f"play_{i}" in self.errors for i in range(n)):
            return cleaned
        passed = {i for i in range(n) if cleaned.get(f"play_{i}") == PASS}
        row_error = self._clean_passers(cleaned, passed)
        active = [i for i in range(n) if i not in passed]
        # With a card log the engine counts the tricks from the plays.
        has_log = bool(fragment.get("plays")) or "tricks" in fragment
        if len(active) >= 2 and not has_log:
            self._clean_tricks(cleaned, active, row_error)
        return cleaned

    def _clean_trump(self, cleaned: dict[str, Any], fragment: dict[str, Any]) -> None:
        """R2: the up-card, when typed, is a card and names the trump tapped; without it a
        suit is tapped (or the card log gives one)."""
        up_card = (cleaned.get("up_card") or "").strip()
        trump = cleaned.get("trump") or ""
        if not up_card:
            if not trump and not ({"trump", "up_card"} & fragment.keys()):
                self.add_error(
                    "trump", with_rule(_("Tap the trump suit (or type the up-card)"), "R2", True)
                )
            return
        try:
            up_index = parse_card(up_card)
        except CardError:
            self.add_error(
                "up_card",
                _("“%(card)s” is not a card: write rank then suit, like QH or 10♥.")
                % {"card": up_card},
            )
            return
        cleaned["up_card"] = CARD_NAMES[up_index]
        up_suit = "SHDC"[up_index // 13]
        if trump and trump != up_suit:
            self.add_error(
                "trump",
                with_rule(
                    _("The up-card %(card)s makes %(suit)s trump, but %(tapped)s is tapped")
                    % {
                        "card": CARD_NAMES[up_index],
                        "suit": SUIT_NAMES[up_suit][1],
                        "tapped": SUIT_NAMES[trump][1],
                    },
                    "R2",
                ),
            )

    def _clean_passers(self, cleaned: dict[str, Any], passed: set[int]) -> bool:
        """R10: a passer takes no tricks. Whether a row was refused."""
        row_error = False
        for i in sorted(passed):
            if cleaned.get(f"tricks_{i}"):
                name = self.players[i]
                self.add_error(
                    f"tricks_{i}",
                    with_rule(
                        _("%(player)s passed, so %(player)s took no tricks") % {"player": name},
                        "R10",
                    ),
                )
                row_error = True
        return row_error

    def _clean_tricks(self, cleaned: dict[str, Any], active: list[int], row_error: bool) -> None:
        """R7: the players' tricks add up to the hand size, no row past what is left."""
        hs = self.hand_size
        counted = 0
        for i in active:
            name = self.players[i]
            tricks = cleaned.get(f"tricks_{i}") or 0
            left = max(0, hs - counted)
            if tricks and tricks > left:
                row_error = True
                if left == 0:
                    message = _(
                        "%(player)s has no tricks left to give — %(size)s tricks are already counted"
                    ) % {"player": name, "size": hs}
                else:
                    message = _(
                        "%(player)s can have at most %(left)s — %(counted)s of %(size)s tricks "
                        "are already counted"
                    ) % {"player": name, "left": left, "counted": counted, "size": hs}
                self.add_error(f"tricks_{i}", with_rule(message, "R7"))
            counted += tricks
        if row_error or counted >= hs:
            return
        missing = hs - counted
        self.add_error(
            None,
            forms.ValidationError(
                with_rule(
                    _(
                        "Only %(counted)s of %(size)s tricks are counted — who took the other "
                        "%(missing)s?"
                    )
                    % {"counted": counted, "size": hs, "missing": missing},
                    "R7",
                ),
                code="tricks_total",
            ),
        )

    def entry(self) -> dict[str, Any]:
        """The table's part of the hand record (the session supplies the rest); what the
        taps mean for reneges (R38) and forfeits (R16) is the engine's to say
        (games.engine.hand_meaning)."""
        cleaned = self.cleaned_data
        entry = self._trump_entry()
        rows = range(len(self.players))
        passed = [self.players[i] for i in rows if cleaned.get(f"play_{i}") == PASS]
        if passed:
            entry["passed"] = passed
        played = [i for i in rows if cleaned.get(f"play_{i}") != PASS]
        active = [self.players[i] for i in played]
        fragment = cleaned.get("fragment") or {}
        tricks = self._tricks_entry(played, fragment)
        if tricks is not None:
            entry["tricks"] = tricks
        reneges = claimed_reneges(
            self._seat_reneges(), self._named_renege(), active, str(cleaned.get("up_card") or "")
        )
        if reneges:
            entry["reneges"] = [r.as_record() for r in reneges]
        called = [self.players[i] for i in rows if cleaned.get(f"out_of_turn_{i}")]
        forfeits = forfeits_after(list(self.state.get("forfeits") or []), called)
        if forfeits is not None:
            entry["forfeits"] = forfeits
        entry.update(fragment)
        return entry

    def _trump_entry(self) -> dict[str, Any]:
        # The up-card says the trump too: the record keeps one of them (HAND_RECORD.md).
        if self.cleaned_data.get("up_card"):
            return {"up_card": self.cleaned_data["up_card"]}
        if self.cleaned_data.get("trump"):
            return {"trump": self.cleaned_data["trump"]}
        return {}

    def _tricks_entry(self, played: list[int], fragment: dict[str, Any]) -> dict[str, int] | None:
        """The tricks each player who played (by row) took, or None when they are not
        the record's to say: fewer than two played, or a card log counts them (the
        steppers left at zero)."""
        tricks: dict[str, int] = {
            self.players[i]: self.cleaned_data.get(f"tricks_{i}") or 0 for i in played
        }
        counted = sum(tricks.values())
        if len(played) >= 2 and (counted or not fragment.get("plays")):
            return tricks
        return None

    def _seat_reneges(self) -> list[RenegeClaim]:
        """The reneges marked in the rows of players who played."""
        cleaned = self.cleaned_data
        return [
            RenegeClaim(self.players[i], cleaned.get(f"renege_{i}") == CORRECTED)
            for i in range(len(self.players))
            if cleaned.get(f"renege_{i}") and cleaned.get(f"play_{i}") != PASS
        ]

    def _named_renege(self) -> RenegeClaim | None:
        """The renege entered under "More" (who, and whether caught in time)."""
        who = self.cleaned_data.get("renege_who")
        if who not in self.players:
            return None
        return RenegeClaim(who, self.cleaned_data.get("renege_kind") == CORRECTED)

    def add_engine_errors(self, errors: list[dict[str, Any]], verdict: dict | None = None) -> None:
        """Put each engine error beside the field it concerns, naming its rule."""
        for error in errors:
            if not isinstance(error, dict):
                continue
            code = error.get("code", "")
            rule = error.get("rule") or CODE_RULES.get(code)
            text = render_error(error) or str(code)
            starts_with_name = any(text.startswith(name) for name in self.players)
            message = with_rule(text, rule, capitalize=not starts_with_name)
            target = self._engine_error_target(error)
            if target == COUNTER:
                self._add_counter_error(message)
            else:
                self.add_error(target, message)
        if not errors and verdict is not None:
            self.add_error(None, incomplete_message(verdict))

    def _engine_error_target(self, error: dict[str, Any]) -> str | None:
        """Where an engine error is shown: a field's name, ``COUNTER`` (the tricks
        counter) or None (the top of the form)."""
        code = error.get("code", "")
        field = error.get("field")
        log_given = bool((self.cleaned_data or {}).get("fragment"))
        if code == "incomplete":
            return "card_log" if log_given else None
        if field in ("up_card", "trump") or code in ("missing_trump", "bad_suit"):
            return "up_card" if field == "up_card" and self.data.get("up_card") else "trump"
        if field in ("plays", "hands", "discards") or (
            log_given and (error.get("card") or error.get("trick"))
        ):
            return "card_log"
        player = error.get("player")
        if player in self.players:
            i = self.players.index(player)
            if code in ("dealer_must_play", "bad_passed") or field == "passed":
                return f"play_{i}"
            return f"renege_{i}" if field == "reneges" else f"tricks_{i}"
        return COUNTER if code == "tricks_total" else None

    def _add_counter_error(self, message: str) -> None:
        self.add_error(None, forms.ValidationError(message, code="tricks_total"))


def _row_of(field: str) -> int | None:
    """The seat row a field belongs to (``tricks_2`` → 2), or None for a form-wide field:
    "renege_who" and "renege_kind" share a row field's prefix but sit under "More", so
    their refusals go to the top of the form (a crafted value there was a 500)."""
    prefix, _sep, index = field.rpartition("_")
    if f"{prefix}_" in ROW_PREFIXES and index.isdecimal() and index.isascii():
        return int(index)
    return None


def _as_int(value: Any) -> int | str:
    """A posted count as a number (so the page re-checks its button); text stays text."""
    if value in (None, ""):
        return 0
    try:
        return int(value)
    except (TypeError, ValueError):
        return str(value)


def _shallow_copy(field: forms.Field) -> forms.Field:
    """``copy.copy(field)`` without the reduce protocol (a form field is a plain object
    with a ``__dict__``; its widget stays shared, as with ``copy.copy``)."""
    clone = object.__new__(type(field))
    clone.__dict__.update(field.__dict__)
    return clone


@functools.lru_cache(maxsize=256)
def _hand_fields(
    players: tuple[str, ...], hand_size: int, language: str | None
) -> dict[str, forms.Field]:
    """HandForm's fields for these players and hand size, their messages in the app's own
    words (``own_messages``), built once per process and language. Never changed after:
    each form takes shallow copies (``HandForm.__init__``)."""
    form = HandForm.__new__(HandForm)
    form.fields = copy.deepcopy(HandForm.base_fields)
    hs = hand_size
    for i, name in enumerate(players):
        form.fields[f"player_{i}"] = forms.CharField(
            max_length=40, initial=name, widget=forms.HiddenInput
        )
        # The phone sends "play" for a ticked name and nothing for the others; an
        # explicit "pass" is accepted too. A name left unticked with tricks counted
        # played (tapping a player's tricks is how most hands are entered).
        form.fields[f"play_{i}"] = forms.ChoiceField(
            choices=[
                (PLAY, pgettext_lazy("declare", "Play")),
                (PASS, pgettext_lazy("declare", "Pass")),
            ],
            initial=PASS,
            required=False,
            widget=forms.RadioSelect,
            label=_("%(player)s plays or passes") % {"player": name},
        )
        form.fields[f"tricks_{i}"] = forms.IntegerField(
            min_value=0,
            max_value=hs,
            required=False,
            initial=0,
            label=_("Tricks %(player)s took") % {"player": name},
            # The validators format these again with their parameters: a "%" in a name
            # is doubled (else that formatting fails).
            error_messages={
                "max_value": _("%(player)s cannot take more than %(size)s tricks")
                % {"player": name.replace("%", "%%"), "size": hs},
                "min_value": _("%(player)s cannot take fewer than 0 tricks")
                % {"player": name.replace("%", "%%")},
                "invalid": _("Tricks for %(player)s are a whole number, like 2") % {"player": name},
            },
            widget=forms.NumberInput(
                attrs={"inputmode": "numeric", "class": "stepper-value", "min": 0, "max": hs}
            ),
        )
        form.fields[f"renege_{i}"] = forms.ChoiceField(
            choices=RENEGE_CHOICES,
            required=False,
            widget=forms.RadioSelect,
            label=_("Did %(player)s renege?") % {"player": name},
        )
        form.fields[f"out_of_turn_{i}"] = forms.BooleanField(
            required=False,
            label=_("%(player)s declared out of turn (forfeits the next deal)") % {"player": name},
        )
    # One renege is entered with two taps under "More" (who, and whether it was
    # caught in time); more than one goes in the card log or the per-seat fields.
    form.fields["renege_who"] = forms.ChoiceField(
        choices=[("", _("nobody")), *[(n, n) for n in players]],
        required=False,
        label=_("Who reneged?"),
    )
    form.fields["renege_kind"] = forms.ChoiceField(
        choices=RENEGE_KINDS, required=False, initial=UNCORRECTED, label=_("The renege was")
    )
    own_messages(form)
    return form.fields
