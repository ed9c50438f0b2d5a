"""Final-table deals (writes): the players still in agree to share what their places
would pay — even chop, chip chop, ICM (Malmuth–Harville, from the stacks and the
prizes of the places still to be won) or custom amounts — and the tournament ends there.

Each share is a ``deal`` posting of the prize ledger (pool → player) whose memo names
the kind and who agreed; ``Tournament.deal`` keeps the whole agreement. The players who
went out before are then paid by the payout table as usual (``tables._finish_tournament``).
A deal is made between hands with an empty pot at the last table: the same moment a
table may end (see ``service``). Custom amounts that do not add up are refused in the
tournament's money, formatted like every amount (games.money.format_money), never in
minor units (``total_refusal``).

Rounding (``games.engine.tournament_payouts``): every share of an even chop, a chip chop
or an ICM deal is a multiple of the event's prize unit (``payout_unit``: $1 unless the
director chose cents), as the prizes are, and the shares add up to exactly what the places
pay. Each share is rounded down to the unit; the units left over go one each by largest
remainder (equal remainders to the bigger stack, then the lower seat at the final table);
what is below one unit (the 1st prize's odd cents, if any) to the biggest stack, as the
payout table gives it to 1st. The dashboard's deal card shows each player's share of each
kind, and this rule (``CHIP_CHOP_RULE``), before the director records it.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.engine import tournament as logic
from games.engine import tournament_payouts as pay
from games.engine.tournament import TournamentError
from games.engine.tournament_payouts import PayoutError
from games.models import Player, Round, Tournament, TournamentTable
from games.money import PLAIN, format_money
from games.tournaments import payouts
from games.tournaments.locks import locked
from games.tournaments.tables import TableInfo, finish_round, finish_table, table_infos
from ledger import books, postings
from ledger.memos import DEAL_LABELS, DEAL_WORDS, deal_memo
from ledger.models import PrizePosting

# The English label is kept in the deal and its ledger memos (locale-free); pages name the
# kind with the deal form's words, in the reader's language (the ``deal_label`` filter).
# Both tables are the ledger's memos' (ledger.memos), which show a deal's share.
KIND_LABELS = DEAL_LABELS
KIND_WORDS = DEAL_WORDS
CHIP_CHOP_RULE = _(
    "Each share is rounded down to the prize unit (%(unit)s); the units left over go one "
    "each to the players whose share lost the most in rounding (if equal: the bigger "
    "stack, then the lower seat), anything smaller to the biggest stack. ICM: each "
    "player's chance of each place follows the stacks (Malmuth–Harville), times what the "
    "place pays. The shares always add up to the total."
)


def _final_table(t: Tournament) -> tuple[Round, TournamentTable, TableInfo]:
    rnd = t.rounds.order_by("-number").first()
    tables = (
        list(rnd.tables.filter(status=TournamentTable.Status.PLAYING).select_related("session"))
        if rnd
        else []
    )
    if t.status != Tournament.Status.RUNNING or rnd is None:
        raise TournamentError(
            "Deals are made while the tournament runs.",
            code="status",
            message_id="deal_not_running",
        )
    if len(tables) != 1 or (t.is_rounds and not rnd.is_final):
        raise TournamentError("Deals are made at the final table.", code="not_final")
    info = table_infos(tables)[tables[0].pk]
    if info.in_progress or info.pot:
        raise TournamentError(
            f"The pot holds {info.pot} chips: play the hand that wins it, then make the deal.",
            code="pot",
            params={"pot": info.pot},
        )
    return rnd, tables[0], info


def deal_terms(t: Tournament) -> dict:
    """What a deal would share now: the players still in with their chips and seats (the
    seat breaks ties in rounding), the total their places pay and the smallest of those
    prizes."""
    _, _, info = _final_table(t)
    chips = {p: info.stacks.get(p, 0) for p in info.alive}
    seat = {r["player_id"]: r["position"] + 1 for r in info.seats}
    entrants = payouts.entrants_count(t)
    weights = payouts.payout_weights(t, entrants)
    pool = books.prize_balances(t)["pool"]
    amounts = logic.prize_amounts(pool, weights, t.payout_unit or 1) if pool else []
    amounts += [0] * max(len(chips) - len(amounts), 0)
    n = len(chips)
    return {
        "chips": chips,
        "seats": {p: seat.get(p, 0) for p in chips},
        "total": sum(amounts[:n]),
        "floor": amounts[n - 1] if n else 0,
        "prizes": amounts[:n],  # what 1st, 2nd, … of the players still in would be paid
        "unit": t.payout_unit or 1,
    }


def total_refusal(t: Tournament, typed: int, total: int) -> TournamentError:
    """Custom amounts that do not add up to what the places pay, in the tournament's money
    ("$450, not the $440"): the engine counts minor units, people read dollars. The
    sentence (games.messages ``deal_total``) fills in the reader's language; the English
    one is the logs' and the API's."""
    return TournamentError(
        f"The amounts add up to {format_money(typed, t.currency, language=PLAIN)}, "
        f"not the {format_money(total, t.currency, language=PLAIN)} left to win.",
        code="deal_total",
        params={"sum": format_money(typed, t.currency), "total": format_money(total, t.currency)},
    )


def propose(
    t: Tournament, kind: str, custom: dict[int, int] | None = None, terms: dict | None = None
) -> dict[int, int]:
    """The shares of a deal of this ``kind`` (``terms``: ``deal_terms`` read already)."""
    terms = terms or deal_terms(t)
    unit = terms["unit"]
    if kind == "even":
        return pay.even_chop(terms["total"], terms["chips"], terms["seats"], unit)
    if kind == "chips":
        return pay.chip_chop(terms["total"], terms["floor"], terms["chips"], terms["seats"], unit)
    if kind == "icm":
        return pay.icm_deal(terms["prizes"], terms["chips"], terms["seats"], unit)
    if kind == "custom":
        try:
            return pay.custom_deal(terms["total"], custom or {}, terms["chips"])
        except PayoutError as exc:
            if exc.code != "deal_total":
                raise
            typed = sum((custom or {}).values())
            raise total_refusal(t, typed, terms["total"]) from None
    raise TournamentError(
        f"Unknown deal {kind!r}: even, chips, icm or custom.",
        code="deal",
        message_id="unknown_deal",
        params={"kind": kind},
    )


def make_deal(
    *,
    tournament_id: int,
    kind: str,
    agreed: list[int],
    user: User,
    amounts: dict[int, int] | None = None,
) -> Tournament:
    """Record the deal every remaining player agreed to, pay it, and end the tournament."""
    with transaction.atomic():
        t = locked(tournament_id)
        rnd, table, info = _final_table(t)
        still = set(info.alive)
        if set(agreed) != still:
            missing = Player.objects.filter(pk__in=still - set(agreed)).values_list(
                "name", flat=True
            )
            raise TournamentError(
                "Every player still in must agree to a deal"
                + (f" (not yet: {', '.join(sorted(missing))})." if missing else "."),
                code="deal_agreed",
                params={"names": ", ".join(sorted(missing))} if missing else {},
            )
        shares = propose(t, kind, amounts)
        names = dict(Player.objects.filter(pk__in=still).values_list("pk", "name"))
        who = ", ".join(sorted(names.values(), key=str.lower))
        label = KIND_LABELS[kind]
        accounts = postings.prize_accounts(t, list(shares))
        for player_id, amount in sorted(shares.items(), key=lambda x: -x[1]):
            postings.post_prize(
                t,
                PrizePosting.Kind.DEAL,
                {accounts["pool"]: -amount, accounts[player_id]: amount},
                user,
                player=player_id,
                memo=deal_memo(kind, who, names[player_id], amount),
            )
        t.deal = {
            "kind": kind,
            "label": label,
            "amounts": {str(p): x for p, x in shares.items()},
            "chips": {str(p): info.stacks.get(p, 0) for p in still},
            "agreed": sorted(names.values(), key=str.lower),
            "at": timezone.now().isoformat(),
            "by": getattr(user, "username", "") or "",
        }
        t.bump()
        t.save(update_fields=["deal", "version"])
        finish_table(t, rnd, table, info, user, reason="deal")
        if t.is_rounds:
            rnd.refresh_from_db()
            if rnd.status != rnd.Status.FINISHED:
                finish_round(t, rnd, user)
    t.refresh_from_db()
    return t
