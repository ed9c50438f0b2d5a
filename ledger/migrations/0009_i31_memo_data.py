"""Memos are data (issue #31): every posting says what its memo is.

``Posting`` and ``PrizePosting`` gain ``memo_kind`` (a ``ledger.memos.MemoKind``) and
``memo_params`` (JSON: a hand's number, a reversed posting's kind, a player's name, a
place, amounts in minor units). ``memo`` keeps its English text, unchanged: the CSV exports
and the API go on writing it, and ``ledger.invariants`` holds it to
``memos.english(memo_kind, memo_params)`` from now on.

Existing rows are converted here, the one place that ever reads a memo's text: each old
memo is matched against the sentences the ledger wrote before this migration (the
migration keeps its own copy of them, so it means the same whatever ``ledger.memos``
becomes), and a prize memo's amounts, written locale-free (``games.money.PLAIN``), are read
back in the tournament's money. A row is given its kind only when ``ledger.memos.english``
writes its memo back exactly, character for character; anything else (a memo of another
shape, one cut at the column's 200 characters, an amount that does not read back) becomes
``text`` with ``{"text": memo}``, shown as stored, as pages showed it before.

On PostgreSQL the ledger's append-only triggers (ledger 0002 and 0005) refuse UPDATE on
postings; they are disabled for this transaction's updates and enabled again before it
ends (the migration runs in one transaction, so nobody else sees the ledger unguarded).

Backwards drops the two columns; ``memo`` was never changed.
"""

import re

from django.db import migrations, models

POSTING_TRIGGERS = [
    ("ledger_posting", "ledger_posting_append_only"),
    ("ledger_prizeposting", "ledger_prizeposting_append_only"),
]

# The session ledger's sentences before issue #31 (ledger.postings).
FIXED = {
    "Pot carried in": "carry_in",
    "Pot carried to the club": "carry_out",
    "Pot awarded": "pot_awarded",
    "Alone at the table": "alone_at_table",
    "Alone at a broken table": "alone_at_broken_table",
    "Leftover pot shared": "leftover_shared",
    "Leftover pot shared; the odd remainder to the club": "leftover_remainder",
    "Dead tournament pot returned to the bank": "dead_pot",
    "Tournament chips": "tournament_chips",
    "buy-in": "buy_in",
    "cash-out": "cash_out",
}
HAND_PARTS = {
    "antes": "hand_antes",
    "pot won": "hand_pot_won",
    "split pot divided": "hand_split",
    "bourré and renege penalties": "hand_penalties",
}
HAND = re.compile(r"^Hand (?P<hand>\d+): (?P<what>.+)$")
REVERSAL = re.compile(r"^Hand (?P<hand>\d+) (?P<why>voided|corrected): reverses (?P<kind>.+)$")
# Posting kinds by their English label, lower case, as a reversal memo named them.
POSTING_KINDS = {
    "antes": "ante",
    "pot won": "payout",
    "split pot divided": "split",
    "bourré and renege penalties": "penalty",
    "buy-in": "buy_in",
    "cash-out": "cash_out",
    "pot carried in from the club": "carry_in",
    "pot carried to the club": "carry_out",
    "leftover pot shared": "leftover",
    "reversal": "reversal",
}
# The prize ledger's (games.tournaments). A name may hold ": " itself, so each pattern is
# anchored at the fixed text after the name (the name is greedy).
PRIZE = [
    ("fee", r"^(?P<name>.+): fee to the house$"),
    ("prize", r"^(?P<name>.+): prize for place (?P<place>\d+)$"),
    ("refund", r"^(?P<name>.+) withdrew: buy-in and fee refunded$"),
    (
        "reentry",
        r"^(?P<name>.+): re-entry (?P<number>\d+), buy-in (?P<buy_in>.+?) \+ fee (?P<fee>.+)$",
    ),
    ("rebuy", r"^(?P<name>.+): rebuy (?P<number>\d+), buy-in (?P<buy_in>.+?) \+ fee (?P<fee>.+)$"),
    ("entry", r"^(?P<name>.+): buy-in (?P<buy_in>.+?) \+ fee (?P<fee>.+)$"),
    ("addon", r"^(?P<name>.+): add-on, (?P<price>.+)$"),
]
PRIZE_PATTERNS = [(kind, re.compile(pattern)) for kind, pattern in PRIZE]
DEALS = {"even chop": "even", "chip chop": "chips", "custom deal": "custom"}
DEAL = re.compile(
    r"^Deal \((?P<label>even chop|chip chop|custom deal)\) agreed by (?P<rest>.+) "
    r"takes (?P<amount>.+)$"
)
NUMBERS = ("hand", "place", "number")
AMOUNTS = ("buy_in", "fee", "price", "amount")


def _session_memo(memo: str) -> tuple[str, dict] | None:
    if memo in FIXED:
        return FIXED[memo], {}
    if (found := HAND.match(memo)) and found["what"] in HAND_PARTS:
        return HAND_PARTS[found["what"]], {"hand": int(found["hand"])}
    if (found := REVERSAL.match(memo)) and found["kind"] in POSTING_KINDS:
        kind = "hand_voided" if found["why"] == "voided" else "hand_corrected"
        return kind, {"hand": int(found["hand"]), "reverses": POSTING_KINDS[found["kind"]]}
    return None


def _deal_memo(found: re.Match) -> tuple[str, dict] | None:
    # "agreed by <everyone>: <name>": the split is the first ": " whose right-hand name is
    # among those who agreed (joined with ", ").
    rest, at = found["rest"], 0
    while (at := rest.find(": ", at)) != -1:
        who, name = rest[:at], rest[at + 2 :]
        if f", {who}, ".find(f", {name}, ") != -1:
            deal = DEALS[found["label"]]
            return "deal", {"deal": deal, "agreed": who, "name": name, "amount": found["amount"]}
        at += 2
    return None


def _prize_memo(memo: str) -> tuple[str, dict] | None:
    """The kind and the facts, amounts still as written (read by ``_amounts``)."""
    if found := DEAL.match(memo):
        return _deal_memo(found)
    for kind, pattern in PRIZE_PATTERNS:
        if found := pattern.match(memo):
            facts = found.groupdict()
            for key in NUMBERS:
                if key in facts:
                    facts[key] = int(facts[key])
            return kind, facts
    return None


def _amounts(facts: dict, currency) -> dict | None:
    from games.money import PLAIN, MoneyError, parse_amount

    out = dict(facts)
    for key in AMOUNTS:
        if key in out:
            try:
                out[key] = parse_amount(out[key], currency, language=PLAIN)
            except MoneyError:
                return None
    return out


def _as_data(memo: str, parsed: tuple[str, dict] | None, currency=None) -> tuple[str, dict]:
    """(memo_kind, memo_params): the parsed ones if they write ``memo`` back exactly."""
    from ledger.memos import english

    if parsed is not None:
        kind, params = parsed
        try:
            if english(kind, params, currency) == memo:
                return kind, params
        except (KeyError, ValueError):  # a fact missing or of no known kind
            pass
    return "text", {"text": memo}


def _triggers(schema_editor, enable: bool) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    verb = "ENABLE" if enable else "DISABLE"
    for table, trigger in POSTING_TRIGGERS:
        schema_editor.execute(f"ALTER TABLE {table} {verb} TRIGGER {trigger}", params=None)


def _convert(rows, read, batch: int = 1000) -> None:
    """Give each posting of ``rows`` its kind and params, ``read(posting)`` deciding."""
    changed = []
    for posting in rows.iterator(chunk_size=batch):
        posting.memo_kind, posting.memo_params = read(posting)
        changed.append(posting)
        if len(changed) == batch:
            rows.model.objects.bulk_update(changed, ["memo_kind", "memo_params"])
            changed = []
    if changed:
        rows.model.objects.bulk_update(changed, ["memo_kind", "memo_params"])


def forward(apps, schema_editor):
    from games.models.currency import Currency

    Posting = apps.get_model("ledger", "Posting")  # noqa: N806
    PrizePosting = apps.get_model("ledger", "PrizePosting")  # noqa: N806
    Tournament = apps.get_model("games", "Tournament")  # noqa: N806
    _triggers(schema_editor, enable=False)
    read = {}  # memo → data: a long ledger repeats its memos

    def session_memo(posting):
        if posting.memo not in read:
            read[posting.memo] = _as_data(posting.memo, _session_memo(posting.memo))
        return read[posting.memo]

    _convert(Posting.objects.only("pk", "memo").order_by("pk"), session_memo)
    currencies = {
        t.pk: Currency(t.currency_code, t.currency_exponent, t.currency_symbol)
        for t in Tournament.objects.only(
            "pk", "currency_code", "currency_exponent", "currency_symbol"
        )
    }

    def prize_memo(posting):
        currency = currencies[posting.tournament_id]
        parsed = _prize_memo(posting.memo)
        if parsed is not None:
            facts = _amounts(parsed[1], currency)
            parsed = None if facts is None else (parsed[0], facts)
        return _as_data(posting.memo, parsed, currency)

    _convert(PrizePosting.objects.only("pk", "memo", "tournament_id").order_by("pk"), prize_memo)
    _triggers(schema_editor, enable=True)


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0008_i20_no_duplicate_indexes"),
        ("games", "0015_i14_real_stakes"),
    ]

    operations = [
        migrations.AddField(
            model_name="posting",
            name="memo_kind",
            field=models.CharField(default="text", max_length=24),
        ),
        migrations.AddField(
            model_name="posting",
            name="memo_params",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name="prizeposting",
            name="memo_kind",
            field=models.CharField(default="text", max_length=24),
        ),
        migrations.AddField(
            model_name="prizeposting",
            name="memo_params",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(forward, migrations.RunPython.noop),
    ]
