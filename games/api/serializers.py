"""Explicit input and output serializers of the REST API, one pair per endpoint.

They only describe shapes (and document them in the OpenAPI schema): which fields, which
JSON types, which bounds. Everything that needs the database or the rules — does this
player belong to the club, is this hand legal, what does it pay — happens in the API view
and in `games.engine` / `ledger.postings`, never here (HackSoft style).
"""

from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, extend_schema_field
from rest_framework import serializers

from games.api.schema import ref
from games.models import GameSession, Hand, Player, Role
from games.money import CURRENCIES, Currency, as_currency, currency_for_symbol
from games.names import PLAYER_NAME_MAX, TITLE_MAX, clean_name

# Ids come from BigAutoField; a bigger number could not be looked up (and must be a 400,
# not a database overflow).
MAX_ID = 2**63 - 1
NAME_MAX = PLAYER_NAME_MAX
CARD_MAX = 8  # "10♥" and friends, generously


# An input serializer that rejects unknown fields instead of silently dropping them: a
# typo such as "pased" must not quietly change what gets recorded (the engine's verifier
# makes the same choice for hand records). A comment, not a docstring: drf-spectacular
# gives a class's docstring, inherited too, to every input schema as its description.
class StrictInputSerializer(serializers.Serializer):
    def to_internal_value(self, data: Any) -> Any:
        # Also runs for nested serializers, which have no initial_data of their own.
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields), key=str)
            if unknown:
                raise serializers.ValidationError(
                    {
                        str(key): [
                            serializers.ErrorDetail(gettext("Unknown field."), "unknown_field")
                        ]
                        for key in unknown
                    }
                )
        return super().to_internal_value(data)


# An output serializer whose schema says it has no other keys (`additionalProperties:
# false`): the public API's answers, where the schema itself promises that nothing else
# (no id, no e-mail) is in them, and a client validating against it sees any new key.
# A comment, not a docstring, for the same reason as above.
class ExactOutputSerializer(serializers.Serializer):
    pass


@extend_schema_field(ref("Rules"))
class RulesField(serializers.DictField):
    """House rules (the engine's `Rules` component); the engine validates them."""


@extend_schema_field(ref("Tricks"))
class TricksField(serializers.DictField):
    """Player name → tricks taken."""


@extend_schema_field(ref("CardsByPlayer"))
class CardsByPlayerField(serializers.DictField):
    """Player name → cards."""


@extend_schema_field(ref("AmountsByPlayer"))
class AmountsByPlayerField(serializers.DictField):
    """Player name → amount."""


@extend_schema_field(ref("AmountsById"))
class AmountsByIdField(serializers.DictField):
    """Player id → amount."""


@extend_schema_field(ref("CorrectionFixes"))
class CorrectionFixesField(serializers.DictField):
    """Later hand number → its corrected table record."""


@extend_schema_field(ref("HandRecord"))
class HandRecordField(serializers.JSONField):
    pass


@extend_schema_field(ref("Verdict"))
class VerdictField(serializers.JSONField):
    pass


@extend_schema_field(ref("HandResult"))
class HandResultField(serializers.JSONField):
    pass


class StrictIntegerField(serializers.IntegerField):
    """A JSON number that is a whole number: "3" and true are refused (with `code`), as
    the engine's verifier refuses them, so both ends of the API agree."""

    def __init__(self, *, code: str = "invalid", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.strict_code = code

    def to_internal_value(self, data: Any) -> int:
        if type(data) is not int:
            raise serializers.ValidationError(
                _("Must be a whole number (a JSON number, not a string)."), code=self.strict_code
            )
        return super().to_internal_value(data)


LOCATION_HEADER = OpenApiParameter(
    "Location",
    str,
    OpenApiParameter.HEADER,
    response=[201],
    description="The absolute URL of what was created.",
)


def etag_header(
    *codes: int,
    description: str = 'The session\'s version, e.g. "12": send it as If-None-Match or If-Match.',
) -> OpenApiParameter:
    return OpenApiParameter(
        "ETag", str, OpenApiParameter.HEADER, response=list(codes), description=description
    )


# --- problems (documentation of games.api_errors) -----------------------------------------


class ProblemErrorSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    field = serializers.CharField(required=False, help_text=_("Dotted path of the input field."))
    player = serializers.CharField(required=False)
    card = serializers.CharField(required=False)
    trick = serializers.IntegerField(required=False)
    key = serializers.CharField(required=False)


class ProblemSerializer(serializers.Serializer):
    """RFC 9457 problem details (`application/problem+json`)."""

    type = serializers.CharField(help_text=_('"about:blank" or "urn:bourre:problem:<kind>".'))
    title = serializers.CharField()
    status = serializers.IntegerField()
    detail = serializers.CharField()
    # The metaclass takes declared fields off the class, so this does not replace the
    # Serializer.errors property at runtime; the stubs cannot see that.
    errors = ProblemErrorSerializer(many=True)  # type: ignore[assignment]


class ConflictProblemSerializer(ProblemSerializer):
    """A 409: `type` says which (`…:stale-state`, `…:session-closed`, `…:void-refused`,
    or `about:blank` with `errors[].code` such as `idempotency_key_in_use`)."""

    current_version = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text=_("Only with type `urn:bourre:problem:stale-state`: the session's version now."),
    )


class BadRequestProblemSerializer(ProblemSerializer):
    """A 400: `type` is `urn:bourre:problem:validation` (field errors) or, when recording
    a hand, `urn:bourre:problem:hand-rejected` (the engine's errors, and its verdict)."""

    verdict = VerdictField(
        required=False,
        allow_null=True,
        help_text=_("Only with type `urn:bourre:problem:hand-rejected`: the engine's verdict."),
    )


class InvalidRecordProblemSerializer(ProblemSerializer):
    """The verifier's 400: the problem members plus the verdict (`valid` is false)."""

    valid = serializers.BooleanField()


# --- currencies --------------------------------------------------------------------------


class CurrencySerializer(serializers.Serializer):
    """A club's (session's, tournament's) currency; every amount is in its minor unit."""

    code = serializers.CharField(help_text=_("ISO 4217 code (USD, EUR…); XXX for chips, no money."))
    exponent = serializers.IntegerField(
        help_text=_(
            "Amounts are integers of 10^-exponent of the unit: 2 means cents "
            "(150 is $1.50), 0 whole units (chips)."
        )
    )
    symbol = serializers.CharField(help_text=_('Shown with amounts: "$", "€", "chips".'))


@extend_schema_field(
    {
        "type": "string",
        "enum": list(CURRENCIES),
        "description": "A currency code from the list (XXX: chips, no money); the old "
        'symbols "$", "€", "£" and "chips" are read as USD, EUR, GBP and XXX.',
    }
)
class CurrencyCodeField(serializers.Field):
    """A currency in a request: a code of ``CURRENCIES`` (or an old symbol); → Currency."""

    default_error_messages = {"unknown": _("Unknown currency {value}: use one of {codes}.")}

    def to_internal_value(self, data: Any) -> Currency:
        text = str(data.get("code", "") if isinstance(data, dict) else data).strip()
        cur = CURRENCIES.get(text)
        if cur is None:
            mapped = currency_for_symbol(text)
            if CURRENCIES.get(mapped.code) != mapped:
                self.fail("unknown", value=repr(text)[:40], codes=", ".join(CURRENCIES))
            cur = mapped
        return cur

    def to_representation(self, value: Currency | dict | str | None) -> str:
        return as_currency(value).code


# --- clubs and players -------------------------------------------------------------------


class ClubOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    currency = CurrencySerializer()
    role = serializers.ChoiceField(choices=Role.choices, help_text=_("Your role in this club."))
    created_at = serializers.DateTimeField()


class ClubInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=100)
    currency = CurrencyCodeField(required=False, help_text=_("Default USD (dollars and cents)."))


class ClubUpdateInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=100, required=False)
    currency = CurrencyCodeField(
        required=False,
        help_text=_("Once the club has games, only to a currency with the same exponent."),
    )


class PlayerOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    club = serializers.IntegerField(source="club_id")
    name = serializers.CharField()
    member = serializers.CharField(
        source="user.username", allow_null=True, help_text=_("The linked member's username.")
    )
    created_at = serializers.DateTimeField()
    archived = serializers.SerializerMethodField(
        help_text=_("Archived players are off the roster pickers; their books are kept.")
    )

    def get_archived(self, player: Player) -> bool:
        return player.archived_at is not None


class PlayerCreateInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=NAME_MAX)

    def validate_name(self, value: str) -> str:
        return clean_name(value, max_length=NAME_MAX)


class PlayerUpdateInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=NAME_MAX, required=False)
    archived = serializers.BooleanField(required=False)

    def validate_name(self, value: str) -> str:
        return clean_name(value, max_length=NAME_MAX)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs:
            raise serializers.ValidationError(_("Send a name, archived, or both."), code="empty")
        return attrs


class PlayerRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


# --- sessions ----------------------------------------------------------------------------


class SessionOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    club = serializers.IntegerField(source="club_id")
    name = serializers.CharField()
    currency = CurrencySerializer()
    mode = serializers.ChoiceField(choices=GameSession.Mode.choices)
    status = serializers.ChoiceField(choices=GameSession.Status.choices)
    version = serializers.IntegerField()
    hands_count = serializers.IntegerField()
    carry = serializers.IntegerField(help_text=_("The pot before the next hand's antes."))
    created_at = serializers.DateTimeField()
    closed_at = serializers.DateTimeField(allow_null=True)


class SeatOutputSerializer(serializers.Serializer):
    player = PlayerRefSerializer()
    position = serializers.IntegerField()
    active = serializers.BooleanField()


class BalanceOutputSerializer(serializers.Serializer):
    player = PlayerRefSerializer()
    net = serializers.IntegerField(help_text=_("Minor units; negative: the player is down."))


class NextHandSerializer(serializers.Serializer):
    """What the next hand needs (ledger.postings.session_state)."""

    players = serializers.ListField(child=serializers.CharField())
    dealer = serializers.CharField(allow_null=True)
    carry = serializers.IntegerField()
    excused = serializers.ListField(child=serializers.CharField())
    forfeits = serializers.ListField(
        child=serializers.CharField(), required=False, help_text=_("Owe a forfeited deal (R16).")
    )
    rules = RulesField()
    version = serializers.IntegerField()


class SessionDetailOutputSerializer(SessionOutputSerializer):
    rules = RulesField()
    leftover_policy = serializers.ChoiceField(choices=GameSession.LeftoverPolicy.choices)
    pot = serializers.IntegerField(help_text=_("What the pot account holds now."))
    dealer = PlayerRefSerializer(allow_null=True, help_text=_("Who deals the next hand."))
    excused = PlayerRefSerializer(
        source="excused_players", many=True, help_text=_("Excused from the next ante.")
    )
    seats = SeatOutputSerializer(source="seat_list", many=True)
    balances = BalanceOutputSerializer(many=True)
    next_hand = NextHandSerializer()


class SessionCreateInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=TITLE_MAX)

    def validate_name(self, value: str) -> str:
        return clean_name(value, max_length=TITLE_MAX, what="session name")

    players = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        min_length=2,
        max_length=8,
        help_text=_("Player ids in clockwise seat order."),
    )
    dealer = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, help_text=_("Player id of the first dealer.")
    )
    rules = RulesField(required=False, default=dict, help_text=_("House-rule switches (RULES.md)."))
    currency = CurrencyCodeField(required=False, help_text=_("Defaults to the club's currency."))
    mode = serializers.ChoiceField(
        choices=GameSession.Mode.choices, default=GameSession.Mode.REPORTED
    )
    leftover_policy = serializers.ChoiceField(
        choices=GameSession.LeftoverPolicy.choices,
        default=GameSession.LeftoverPolicy.CARRY_TO_CLUB,
    )


# --- hands -------------------------------------------------------------------------------


class HandOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    session = serializers.IntegerField(source="session_id")
    number = serializers.IntegerField(
        allow_null=True, help_text=_("Null while a digital hand is played.")
    )
    kind = serializers.ChoiceField(choices=Hand.Kind.choices)
    status = serializers.ChoiceField(choices=Hand.Status.choices)
    outcome = serializers.ChoiceField(
        choices=["uncontested", "all_passed", "win", "split", "ineligible"],
        source="result.outcome",
        allow_null=True,
        default=None,
    )
    winner = serializers.CharField(source="result.winner", allow_null=True, default=None)
    pot = serializers.IntegerField(source="result.pot", allow_null=True, default=None)
    next_carry = serializers.IntegerField(source="result.next_carry", allow_null=True, default=None)
    created_at = serializers.DateTimeField()


class HandDetailOutputSerializer(HandOutputSerializer):
    record = HandRecordField(help_text=_("The full hand record (HAND_RECORD.md)."))
    verdict = VerdictField(help_text=_("The engine's verdict (HAND_RECORD.md)."))
    voided_at = serializers.DateTimeField(allow_null=True)
    void_reason = serializers.CharField(allow_blank=True)
    shortfalls = AmountsByPlayerField(
        child=serializers.IntegerField(),
        help_text=_("Chip-limited tables: {player: what they could not pay}."),
    )


class HandWriteOutputSerializer(HandDetailOutputSerializer):
    """A hand after a write (recorded, replayed, voided), with the session's version."""

    version = serializers.IntegerField(
        help_text=_(
            "The session's version after this write (also the ETag): send it as "
            "`session_version` or `If-Match` with the next write."
        )
    )


class RenegeInputSerializer(StrictInputSerializer):
    player = serializers.CharField(max_length=NAME_MAX)
    corrected = serializers.BooleanField(default=False)
    trick = serializers.IntegerField(required=False, min_value=1, max_value=5)
    card = serializers.CharField(required=False, max_length=CARD_MAX)
    rule = serializers.CharField(required=False, max_length=4)


def _cards(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=serializers.CharField(max_length=CARD_MAX), **kwargs)


class HandCreateInputSerializer(StrictInputSerializer):
    """The table's part of a hand record (HAND_RECORD.md); the session supplies the rest."""

    up_card = serializers.CharField(required=False, allow_null=True, max_length=CARD_MAX)
    trump = serializers.CharField(required=False, allow_null=True, max_length=CARD_MAX)
    passed = serializers.ListField(
        child=serializers.CharField(max_length=NAME_MAX), required=False, max_length=8
    )
    discards = CardsByPlayerField(child=_cards(max_length=5), required=False)
    hands = CardsByPlayerField(child=_cards(max_length=5), required=False)
    plays = serializers.ListField(
        child=serializers.ListField(
            child=serializers.CharField(max_length=NAME_MAX), min_length=2, max_length=2
        ),
        required=False,
        max_length=40,
        help_text=_('Cards played in order: [["ann", "QH"], ["cal", "2H"], …].'),
    )
    tricks = TricksField(
        child=StrictIntegerField(code="bad_tricks", min_value=0, max_value=5), required=False
    )
    reneges = RenegeInputSerializer(many=True, required=False)
    session_version = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_ID,
        help_text=_("The session version the record was made against; 409 if it changed."),
    )
    during_break = serializers.BooleanField(
        required=False,
        help_text=_(
            "A tournament table only: true records a hand played before the tournament's "
            "scheduled break began; without it, a hand sent during a break is 409 "
            "`during_break` and nothing is saved."
        ),
    )
    # Fields the session supplies; a client may repeat them (e.g. a record it checked with
    # the verifier) but record_hand rejects them unless they agree (session_mismatch).
    players = serializers.ListField(child=serializers.CharField(), required=False)
    dealer = serializers.CharField(required=False)
    carry = StrictIntegerField(code="bad_carry", required=False)
    excused = serializers.ListField(child=serializers.CharField(), required=False)
    rules = RulesField(required=False)
    forfeits = serializers.ListField(
        child=serializers.CharField(max_length=NAME_MAX),
        required=False,
        max_length=8,
        help_text=_(
            "Players who owe a forfeited deal: the session's pending ones (see "
            "next_hand.forfeits) plus anyone whose declaration out of turn was called at this "
            "hand (R16). A table can add a forfeit, never remove one (forfeit_removed)."
        ),
    )


# --- the verifier ------------------------------------------------------------------------


class NextActionField(serializers.Serializer):
    player = serializers.CharField()
    legal = serializers.ListField(child=serializers.CharField(), allow_null=True)


class RenegeFoundField(serializers.Serializer):
    player = serializers.CharField()
    trick = serializers.IntegerField(allow_null=True, required=False)
    card = serializers.CharField(allow_null=True, required=False)
    rule = serializers.CharField(allow_null=True, required=False)
    legal = serializers.ListField(child=serializers.CharField(), allow_null=True, required=False)
    corrected = serializers.BooleanField(required=False)


class VerdictSerializer(serializers.Serializer):
    """The verdict of HAND_RECORD.md."""

    valid = serializers.BooleanField()
    # The metaclass takes declared fields off the class, so this does not replace the
    # Serializer.errors property at runtime; the stubs cannot see that.
    errors = ProblemErrorSerializer(many=True)  # type: ignore[assignment]
    complete = serializers.BooleanField(required=False)
    next = NextActionField(required=False, allow_null=True)
    tricks = TricksField(child=serializers.IntegerField(), required=False)
    reneges = RenegeFoundField(many=True, required=False)
    result = HandResultField(required=False, allow_null=True)
