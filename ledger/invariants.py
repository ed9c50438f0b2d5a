"""``check_invariants``: what must hold of the books after every operation (tests run it
after each step)."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet, Sum
from django.db.models.functions import Coalesce

from games.models import GameSession, Hand, Seat, Tournament, TournamentTable
from games.models.currency import Currency
from ledger.books import (
    BANK_KINDS,
    TABLE_KINDS,
    kitty_balance,
    ledger_sums,
    pot_balance,
    prize_balances,
)
from ledger.memos import Memo, MemoKind
from ledger.models import (
    Account,
    Leg,
    PlayerTotals,
    Posting,
    PrizePosting,
    SettlementMark,
    TabPayment,
)
from ledger.tab import TAB_KINDS, session_tab
from ledger.totals import recount_player_totals


def check_invariants(session: GameSession) -> None:
    """Raise AssertionError unless the books are right (used by tests after every step):

    - every posting of the club has legs summing to zero, and at least two legs;
    - the pot account holds ``session.carry`` (0 once closed), never less than 0;
    - the balances of all the club's accounts sum to zero;
    - Σ session_balances + pot + kitty_balance == 0 for this session;
    - on an open table with a live hand: ``carry`` is the engine's ``next_carry`` (on a
      chip-limited table, where shortfalls make them differ: no stack is negative);
    - ``hands_count`` is the number of live hands; every reversal reverses a posting of
      the same hand, leg for leg;
    - every memo of the session (and of the club outside sessions) is the English of its
      kind and parameters (``check_memos``);
    - at a tournament table, the tournament's prize ledger holds (``check_prize_ledger``);
    - the players' club totals are what the ledger and the hands recount
      (``check_player_totals``);
    - the club's tab holds (``check_tab``), and none of this session's transfers is on
      the tab for more than the session says.
    """
    session = GameSession.objects.get(pk=session.pk)

    def check(ok: bool, message: str) -> None:
        if not ok:
            raise AssertionError(message)

    bad = list(
        Posting.objects.filter(club_id=session.club_id)
        .annotate(total=Coalesce(Sum("legs__amount"), 0), n=Count("legs"))
        .filter(~Q(total=0) | Q(n__lt=2))
        .values_list("pk", "total", "n")
    )
    check(not bad, f"postings unbalanced or with fewer than two legs: {bad}")
    pot = pot_balance(session)
    check(pot == session.carry, f"pot holds {pot} but session.carry is {session.carry}")
    check(pot >= 0, f"pot is negative: {pot}")
    if not session.is_open:
        check(pot == 0, f"closed session still has {pot} in the pot")
    total = Leg.objects.filter(account__club_id=session.club_id).aggregate(
        s=Coalesce(Sum("amount"), 0)
    )["s"]
    check(total == 0, f"the club's balances sum to {total}, not 0")
    balances = ledger_sums(session, TABLE_KINDS)
    kitty = kitty_balance(session)
    check(
        sum(balances.values()) + pot + kitty == 0,
        f"session books do not balance: players {sum(balances.values())}, pot {pot}, kitty {kitty}",
    )
    # session_balances must match a sum over the ledger taken another way (from the
    # legs, not the seats).
    direct = dict(
        Leg.objects.filter(posting__session=session, account__kind=Account.Kind.PLAYER)
        .exclude(posting__kind__in=BANK_KINDS)
        .order_by()
        .values("account__player_id")
        .annotate(total=Sum("amount"))
        .values_list("account__player_id", "total")
    )
    for pid, net in balances.items():
        check(net == direct.get(pid, 0), f"session_balances[{pid}] = {net}, ledger says {direct}")
    check(set(direct) <= set(balances), "a player outside the session has legs in its postings")
    # The running totals on the session row are the ledger's sums, seat for seat.
    check(
        session.net_by_player() == balances,
        f"session nets {session.nets} but the ledger sums to {balances}",
    )
    stacks = ledger_sums(session, Posting.Kind.values)
    check(
        session.stack_by_player() == stacks,
        f"session stacks {session.stacks} but the ledger sums to {stacks}",
    )
    pot_account = Account.objects.get(session=session, kind=Account.Kind.POT)
    check(session.pot_account_id == pot_account.pk, "session.pot_account is not its pot")
    accounts = dict(
        Account.objects.filter(
            kind=Account.Kind.PLAYER, player__seats__session=session
        ).values_list("player_id", "pk")
    )
    seat_accounts = dict(Seat.objects.filter(session=session).values_list("player_id", "account"))
    check(seat_accounts == accounts, f"seat accounts {seat_accounts}, ledger {accounts}")

    live = Hand.objects.filter(session=session, status=Hand.Status.RECORDED)
    count = live.count()
    check(session.hands_count == count, f"hands_count is {session.hands_count}, {count} live hands")
    last = live.order_by("-number").only("number", "verdict").first()
    if session.is_open and last is not None:
        expected = last.result["next_carry"]
        if session.chip_limited:
            # What was really paid can differ from the verdict (shortfalls); the pot
            # check above already holds the real amounts.
            check(min(stacks.values(), default=0) >= 0, f"negative stack: {stacks}")
        else:
            # Closing and carry-ins move the pot outside hands; neither happens after a
            # live hand of an open session, so the pot is exactly the engine's next pot.
            check(
                session.carry == expected,
                f"carry {session.carry} but hand {last.number} said next_carry {expected}",
            )
    for rev in (
        Posting.objects.filter(session=session, kind=Posting.Kind.REVERSAL)
        .select_related("reverses")
        .prefetch_related("legs", "reverses__legs")
    ):
        orig = rev.reverses
        check(orig is not None and orig.hand_id == rev.hand_id, f"stray reversal {rev.pk}")
        assert orig is not None  # check() has just raised otherwise
        mine = sorted((leg.account_id, leg.amount) for leg in rev.legs.all())
        theirs = sorted((leg.account_id, -leg.amount) for leg in orig.legs.all())
        check(mine == theirs, f"reversal {rev.pk} does not mirror posting {orig.pk}")
    check_memos(
        Posting.objects.filter(
            Q(session=session) | Q(club_id=session.club_id, session__isnull=True)
        )
    )
    check_player_totals(session.club_id)
    check_tab(session.club_id)
    _check_session_tab(session, balances)
    # A tournament table's money is in its tournament's prize ledger: check that too.
    table = TournamentTable.objects.filter(session=session).select_related("tournament").first()
    if table is not None:
        check_prize_ledger(table.tournament)


def _check_session_tab(session: GameSession, nets: dict[int, int]) -> None:
    """What a session put on the tab: a live tab posting per transfer at most, never a
    transfer also ticked paid, and for each player no more than their net, on its side."""
    on_tab = session_tab(session.pk)
    marked = set(SettlementMark.objects.filter(session=session).values_list("payer_id", "payee_id"))
    both = marked & set(on_tab)
    if both:
        raise AssertionError(f"transfers both ticked paid and on the tab: {both}")
    live = Posting.objects.filter(
        session=session, kind=Posting.Kind.TAB, reversed_by__isnull=True
    ).count()
    if live != len(on_tab):
        raise AssertionError(f"{live} live tab postings for {len(on_tab)} transfers")
    moved: dict[int, int] = {}
    for (payer, payee), (amount, _posting) in on_tab.items():
        moved[payer] = moved.get(payer, 0) - amount
        moved[payee] = moved.get(payee, 0) + amount
    for pid, x in moved.items():
        net = nets.get(pid, 0)
        if not (x * net > 0 and abs(x) <= abs(net)):
            raise AssertionError(f"player {pid} has {x} on the tab from a net of {net}")


# One piece (radon D): a list of independent checks of one club's tab, read top to bottom
# like the docstring that lists them; each raises on its own.
def check_tab(club_id: int) -> None:
    """Raise AssertionError unless the club's tab holds (issue #34):

    - tab accounts are the club's players' and move only by tab postings and their
      reversals; every tab posting has exactly two legs, both on tab accounts, opposite;
    - the tab balances sum to zero;
    - a session's tab posting has its session; a payment's has none, and its
      ``TabPayment`` says the same payer, payee and amount as its legs;
    - every reversal of a tab posting mirrors it leg for leg;
    - every tab memo is its kind's sentence (``check_memos``, with the club's postings).
    """
    tab_legs = Leg.objects.filter(account__club_id=club_id, account__kind=Account.Kind.TAB)
    strays = list(
        tab_legs.exclude(posting__kind__in=[*TAB_KINDS, Posting.Kind.REVERSAL]).values_list(
            "pk", "posting__kind"
        )
    )
    if strays:
        raise AssertionError(f"tab accounts moved by other postings: {strays}")
    foreign = Account.objects.filter(kind=Account.Kind.TAB, club_id=club_id).exclude(
        player__club_id=club_id
    )
    if foreign.exists():
        raise AssertionError(f"tab accounts of players of another club: {list(foreign)}")
    total = tab_legs.aggregate(s=Coalesce(Sum("amount"), 0))["s"]
    if total != 0:
        raise AssertionError(f"the tab balances sum to {total}, not 0")
    sides: dict[int, list[tuple[int, int, int | None]]] = {}
    for posting_id, account_id, kind, amount in Leg.objects.filter(
        posting__club_id=club_id, posting__kind__in=TAB_KINDS
    ).values_list("posting_id", "account_id", "account__kind", "amount"):
        if kind != Account.Kind.TAB:
            raise AssertionError(f"tab posting {posting_id} has a leg on a {kind} account")
        sides.setdefault(posting_id, []).append((account_id, amount, None))
    for posting_id, legs in sides.items():
        if len(legs) != 2 or legs[0][1] != -legs[1][1]:
            raise AssertionError(f"tab posting {posting_id} is not two opposite legs: {legs}")
    for pk, kind, session_id in Posting.objects.filter(
        club_id=club_id, kind__in=TAB_KINDS
    ).values_list("pk", "kind", "session_id"):
        if (kind == Posting.Kind.TAB) != (session_id is not None):
            raise AssertionError(f"tab posting {pk} ({kind}) has session {session_id}")
    players_of = dict(
        Account.objects.filter(kind=Account.Kind.TAB, club_id=club_id).values_list(
            "pk", "player_id"
        )
    )
    for payment in TabPayment.objects.filter(club_id=club_id).select_related("posting"):
        got = {players_of.get(a): x for a, x, _ in sides.get(payment.posting_id, [])}
        want = {payment.payer_id: payment.amount, payment.payee_id: -payment.amount}
        if payment.posting.kind != Posting.Kind.TAB_PAYMENT or got != want:
            raise AssertionError(f"payment {payment.pk} says {want}, its posting {got}")
    for rev in (
        Posting.objects.filter(
            club_id=club_id, kind=Posting.Kind.REVERSAL, reverses__kind__in=TAB_KINDS
        )
        .select_related("reverses")
        .prefetch_related("legs", "reverses__legs")
    ):
        orig = rev.reverses
        assert orig is not None  # the filter follows it
        mine = sorted((leg.account_id, leg.amount) for leg in rev.legs.all())
        theirs = sorted((leg.account_id, -leg.amount) for leg in orig.legs.all())
        if mine != theirs or rev.session_id != orig.session_id:
            raise AssertionError(f"tab reversal {rev.pk} does not mirror posting {orig.pk}")


def check_prize_ledger(t: Tournament) -> None:
    """Raise AssertionError unless the prize ledger balances: every posting's legs sum
    to zero, all balances sum to zero, the pool is never negative and is empty once the
    prizes are paid; every memo is the English of its kind and parameters."""
    bad = list(
        PrizePosting.objects.filter(tournament=t)
        .annotate(total=Sum("legs__amount"), n=Count("legs"))
        .exclude(total=0, n__gte=2)
        .values_list("pk", "total", "n")
    )
    if bad:
        raise AssertionError(f"unbalanced prize postings: {bad}")
    balances = prize_balances(t)
    total = balances["pool"] + balances["house"] + sum(balances["entrants"].values())
    if total != 0:
        raise AssertionError(f"prize ledger sums to {total}")
    if balances["pool"] < 0:
        raise AssertionError(f"the pool is negative: {balances['pool']}")
    if t.status == Tournament.Status.FINISHED and balances["pool"] != 0:
        raise AssertionError(f"{balances['pool']} left in the pool after the prizes")
    check_memos(PrizePosting.objects.filter(tournament=t), t.currency)


def check_memos(
    postings: QuerySet[Posting] | QuerySet[PrizePosting], currency: Currency | None = None
) -> None:
    """Raise AssertionError unless every posting's ``memo`` is what ``ledger.memos`` writes
    for its ``memo_kind`` and ``memo_params`` (``currency``: a prize ledger's money)."""
    bad = []
    for pk, memo, kind, params in postings.values_list("pk", "memo", "memo_kind", "memo_params"):
        try:
            ok = memo == Memo(MemoKind(kind), params).stored(currency)
        except (KeyError, ValueError, TypeError):  # an unknown kind, a missing fact
            ok = False
        if not ok:
            bad.append((pk, memo, kind, params))
    if bad:
        raise AssertionError(f"memos that are not their kind's sentence: {bad}")


def check_player_totals(club_id: int) -> None:
    """Raise AssertionError unless every player's club totals (``PlayerTotals``, kept by
    ``ledger.postings``) equal a recount from the ledger and the recorded hands
    (``ledger.totals.recount_player_totals``). A player without a row counts as all
    zeros. Callable on its own (a books check of a whole club)."""
    kept = {
        row["player_id"]: {c: row[c] for c in PlayerTotals.COUNTERS}
        for row in PlayerTotals.objects.filter(club_id=club_id).values(
            "player_id", *PlayerTotals.COUNTERS
        )
    }
    zeros = dict.fromkeys(PlayerTotals.COUNTERS, 0)
    recount = recount_player_totals(club_id)
    for player_id in set(kept) | set(recount):
        have, want = kept.get(player_id, zeros), recount.get(player_id, zeros)
        if have != want:
            raise AssertionError(
                f"club totals of player {player_id} are {have} but the ledger says {want}"
            )
