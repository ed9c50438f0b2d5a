"""Real stakes (issue #14): every amount in the currency's minor unit.

A club's, session's and tournament's one-string ``currency`` ("$", "€", "chips") becomes a
code, an exponent and a symbol (games.money). Money that was kept in whole dollars, euros
or pounds is now kept in cents: every amount of a row whose currency was one of those is
multiplied by 100. Chips and any other word ("points") keep exponent 0 and their amounts.

The unit is decided per row that owns amounts: a session's legs, carry, nets, stacks,
rules, hands and events by the session's currency (a tournament's tables play for chips
and stay as they are); the club's own postings (bank moves of no session, the carried
pot) by the club's; a tournament's money (buy-in, fee, add-on price, prize unit, prizes,
the deal, the prize ledger) by the tournament's. Players' club totals are recounted from
the converted legs. Stored API responses for idempotency keys are deleted, not converted:
they hold the old shape (``currency`` a string, whole units) and a retry after the
upgrade is answered afresh.

On PostgreSQL the ledger's append-only triggers (ledger 0002 and 0005) refuse UPDATE on
legs; they are disabled for this transaction's updates and enabled again before it ends
(the migration runs in one transaction, so nobody else sees the ledger unguarded).

Backwards divides by 100 and puts the symbol back. It refuses (and changes nothing) when
a ledger leg in cents is not a whole dollar: rounding legs one by one would leave
postings that no longer balance, so books with a quarter ante cannot go back to whole
units; other amounts (a hand record's, a tournament's) round towards zero.
"""

from django.db import migrations, models
from django.db.models import F
from django.db.models.functions import Mod

# The migration keeps its own copy of what games.money says today, so it means the same
# thing whatever that module becomes.
CENTS = {"$": ("USD", "$"), "US$": ("USD", "$"), "€": ("EUR", "€"), "£": ("GBP", "£")}
CENTS |= {"CA$": ("CAD", "CA$"), "A$": ("AUD", "A$"), "USD": ("USD", "$")}
CENTS |= {"EUR": ("EUR", "€"), "GBP": ("GBP", "£")}

# Keys of the JSON blobs (hand records, verdicts, states before a hand, corrections,
# session events, rules) whose value is an amount, a {player: amount} map or a list of
# amounts (a "rules_changed" event's {"ante": [old, new]}). "changes" is a
# "hand_corrected" event's {player: change of net}.
MONEY_KEYS = {
    "amount",
    "ante",
    "antes",
    "carried_in",
    "carry",
    "changes",
    "leftover",
    "next_carry",
    "payouts",
    "penalties",
    "pot",
    "pot_limit",
    "remainder",
    "shares",
    "to_club",
    "nets",
    "stacks",
}
LEDGER_TRIGGERS = [
    ("ledger_leg", "ledger_leg_append_only"),
    ("ledger_prizeleg", "ledger_prizeleg_append_only"),
]


def _scale_number(value, scale):
    if isinstance(value, bool) or not isinstance(value, int):
        return value
    return scale(value)


def scale_json(value, scale):
    """``value`` with every amount under a MONEY_KEYS key passed through ``scale``."""
    if isinstance(value, list):
        return [scale_json(v, scale) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        if key in MONEY_KEYS and isinstance(item, dict):
            out[key] = {k: _scale_number(v, scale) for k, v in item.items()}
        elif key in MONEY_KEYS and isinstance(item, list):
            out[key] = [_scale_number(v, scale) for v in item]
        elif key in MONEY_KEYS:
            out[key] = _scale_number(item, scale)
        else:
            out[key] = scale_json(item, scale)
    return out


def _triggers(schema_editor, enable: bool) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    verb = "ENABLE" if enable else "DISABLE"
    for table, trigger in LEDGER_TRIGGERS:
        schema_editor.execute(f"ALTER TABLE {table} {verb} TRIGGER {trigger}", params=None)


def _refuse_cents(*legs) -> None:
    """Going back to whole units: refuse if a leg holds cents (its posting would not balance)."""
    for qs in legs:
        if qs.annotate(cents=Mod("amount", 100)).exclude(cents=0).exists():
            raise RuntimeError(
                "games 0015 cannot be reversed: the ledger holds amounts that are not whole "
                "dollars (euros, pounds), which whole units cannot keep without unbalancing "
                "postings."
            )


def _convert(apps, schema_editor, forward: bool) -> None:
    Club = apps.get_model("games", "Club")  # noqa: N806 (model classes)
    GameSession = apps.get_model("games", "GameSession")  # noqa: N806
    Hand = apps.get_model("games", "Hand")  # noqa: N806
    SessionEvent = apps.get_model("games", "SessionEvent")  # noqa: N806
    Tournament = apps.get_model("games", "Tournament")  # noqa: N806
    Entry = apps.get_model("games", "Entry")  # noqa: N806
    IdempotencyRecord = apps.get_model("games", "IdempotencyRecord")  # noqa: N806
    Leg = apps.get_model("ledger", "Leg")  # noqa: N806
    PrizeLeg = apps.get_model("ledger", "PrizeLeg")  # noqa: N806
    SettlementMark = apps.get_model("ledger", "SettlementMark")  # noqa: N806
    PlayerTotals = apps.get_model("ledger", "PlayerTotals")  # noqa: N806

    def scale(x: int) -> int:
        # Backwards: towards zero in integers (a float division loses digits past 2**53).
        return x * 100 if forward else (x // 100 if x >= 0 else -(-x // 100))

    def cents(model) -> list[int]:
        """Set every row's code, exponent and symbol; the ids of those now in cents."""
        ids = []
        for row in model.objects.all().only("pk", "currency_symbol", "currency_exponent"):
            symbol = (row.currency_symbol or "").strip()
            if forward:
                code, shown = CENTS.get(symbol, ("XXX", symbol or "chips"))
                exponent = 2 if symbol in CENTS else 0
                model.objects.filter(pk=row.pk).update(
                    currency_code=code, currency_exponent=exponent, currency_symbol=shown
                )
            else:
                exponent = row.currency_exponent
            if exponent == 2:
                ids.append(row.pk)
        return ids

    clubs, sessions, tournaments = cents(Club), cents(GameSession), cents(Tournament)
    if forward:
        IdempotencyRecord.objects.all().delete()
    if not forward:
        _refuse_cents(
            Leg.objects.filter(posting__session_id__in=sessions),
            Leg.objects.filter(posting__session__isnull=True, posting__club_id__in=clubs),
            PrizeLeg.objects.filter(posting__tournament_id__in=tournaments),
        )
    _triggers(schema_editor, enable=False)
    op = (lambda f: F(f) * 100) if forward else None

    def bulk(qs, field):
        if op is not None:
            qs.update(**{field: op(field)})
        else:  # backwards: Python's rounding, the same on every database
            for pk, value in qs.values_list("pk", field):
                qs.model.objects.filter(pk=pk).update(**{field: scale(value)})

    bulk(Leg.objects.filter(posting__session_id__in=sessions), "amount")
    bulk(Leg.objects.filter(posting__session__isnull=True, posting__club_id__in=clubs), "amount")
    bulk(SettlementMark.objects.filter(session_id__in=sessions), "amount")
    bulk(PrizeLeg.objects.filter(posting__tournament_id__in=tournaments), "amount")
    _triggers(schema_editor, enable=True)

    for s in GameSession.objects.filter(pk__in=sessions):
        s.carry = scale(s.carry)
        s.nets = {k: scale(v) for k, v in (s.nets or {}).items()}
        s.stacks = {k: scale(v) for k, v in (s.stacks or {}).items()}
        s.rules = scale_json(s.rules or {}, scale)
        s.save(update_fields=["carry", "nets", "stacks", "rules"])
    for h in Hand.objects.filter(session_id__in=sessions).iterator():
        for field in ("record", "verdict", "before", "corrections"):
            setattr(h, field, scale_json(getattr(h, field), scale))
        h.save(update_fields=["record", "verdict", "before", "corrections"])
    for e in SessionEvent.objects.filter(session_id__in=sessions).iterator():
        e.data = scale_json(e.data, scale)
        e.save(update_fields=["data"])
    for t in Tournament.objects.filter(pk__in=tournaments):
        t.buy_in, t.fee, t.addon_price = scale(t.buy_in), scale(t.fee), scale(t.addon_price)
        t.payout_unit = max(1, scale(t.payout_unit))
        if t.deal:
            t.deal = dict(
                t.deal, amounts={k: scale(v) for k, v in t.deal.get("amounts", {}).items()}
            )
        t.save(update_fields=["buy_in", "fee", "addon_price", "payout_unit", "deal"])
    bulk(Entry.objects.filter(tournament_id__in=tournaments), "prize")

    from ledger.totals import recount_player_totals

    for club_id in clubs:
        for pid, values in recount_player_totals(club_id, apps).items():
            PlayerTotals.objects.filter(player_id=pid).update(
                net=values["net"], biggest_pot=values["biggest_pot"]
            )


def forward(apps, schema_editor):
    _convert(apps, schema_editor, forward=True)


def backward(apps, schema_editor):
    _convert(apps, schema_editor, forward=False)


def _currency_fields(model: str) -> list:
    return [
        migrations.RenameField(model, "currency", "currency_symbol"),
        migrations.AlterField(
            model,
            "currency_symbol",
            models.CharField(
                default="$", help_text="Shown with amounts: $, €, chips.", max_length=8
            ),
        ),
        migrations.AddField(
            model,
            "currency_code",
            models.CharField(default="USD", help_text="ISO 4217; XXX for chips.", max_length=8),
        ),
        migrations.AddField(
            model,
            "currency_exponent",
            models.PositiveSmallIntegerField(
                default=2,
                help_text="Decimal places of the minor unit amounts are stored in (2: cents).",
            ),
        ),
    ]


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0014_player_archived"),
        ("ledger", "0007_i20_player_totals"),
    ]

    operations = [
        *_currency_fields("club"),
        *_currency_fields("gamesession"),
        *_currency_fields("tournament"),
        migrations.RunPython(forward, backward),
    ]
