"""Double-entry ledger: append-only postings whose legs sum to zero.

Sign convention: an account's balance is what it holds. A player account's balance is the
player's net (negative: the player is down); the pot account holds the chips in the pot;
the bank account is the other side of buy-ins and cash-outs; the club's carry account holds
a closed session's leftover pot until the next session takes it. Every balance of a club
sums to zero.

The prize ledger of a tournament (``Prize*``: entrants, the prize pool, the house's fees)
is a second, separate set of books with the same discipline: its balances also sum to zero
per tournament, and tournament chips (the tables' sessions) never mix with it.

The kinds' labels are in the reader's language (``pgettext_lazy``, context "posting kind"
and the like): pages show ``get_kind_display``; the CSVs and the API write the codes.

A posting's memo is data (``ledger.memos``, issue #31): ``memo_kind`` and ``memo_params``
say what it is, and ``memo`` keeps its English sentence (what the CSVs and the API write),
which ``ledger.invariants`` holds to ``memos.english(memo_kind, memo_params)``. Pages show
``memos.shown``, in the reader's language.

The club's tab (issue #34) is more of the same books: each player has a ``TAB`` account
(what the club's players owe each other across sessions; positive: is owed). A settlement
transfer put on the tab is a ``TAB`` posting (payer's tab −, payee's tab +, linked to its
session); a payment between players is a ``TAB_PAYMENT`` posting (the other way round); a
reversal undoes either. Tab legs never touch the table's accounts, so a session's nets,
pot and statistics are what they were. ``TabPayment`` (who reported it, who confirmed it)
and ``TabSettings``/``TabReminder`` (the reminders) are notes about money, not money.

Only `ledger.postings` writes here. Rows are never updated or deleted: a correction is a
reversing posting. On PostgreSQL triggers enforce both rules, for the session ledger
(migration 0002) and the prize ledger (migration 0005).
"""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from ledger.memos import MEMO_LENGTH, MemoKind


class Account(models.Model):
    class Kind(models.TextChoices):
        PLAYER = "player", pgettext_lazy("account kind", "Player")
        POT = "pot", pgettext_lazy("account kind", "Session pot")
        BANK = "bank", pgettext_lazy("account kind", "Bank")
        CARRY = "carry", pgettext_lazy("account kind", "Club carry-over")
        TAB = "tab", pgettext_lazy("account kind", "Tab")

    club = models.ForeignKey("games.Club", on_delete=models.PROTECT, related_name="accounts")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    player = models.ForeignKey(
        "games.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="accounts"
    )
    session = models.ForeignKey(
        "games.GameSession",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="accounts",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["player"], condition=models.Q(kind="player"), name="one_account_per_player"
            ),
            models.UniqueConstraint(
                fields=["player"], condition=models.Q(kind="tab"), name="one_tab_per_player"
            ),
            models.UniqueConstraint(
                fields=["session"], condition=models.Q(kind="pot"), name="one_pot_per_session"
            ),
            models.UniqueConstraint(
                fields=["club", "kind"],
                condition=models.Q(kind__in=["bank", "carry"]),
                name="one_bank_and_carry_per_club",
            ),
        ]

    def __str__(self) -> str:
        if self.kind == self.Kind.PLAYER:
            return f"player:{self.player_id}"
        if self.kind == self.Kind.POT:
            return f"pot:{self.session_id}"
        return f"{self.kind}:{self.club_id}"


class Posting(models.Model):
    class Kind(models.TextChoices):
        ANTE = "ante", pgettext_lazy("posting kind", "Antes")
        PAYOUT = "payout", pgettext_lazy("posting kind", "Pot won")
        SPLIT = "split", pgettext_lazy("posting kind", "Split pot divided")
        PENALTY = "penalty", pgettext_lazy("posting kind", "Bourré and renege penalties")
        BUY_IN = "buy_in", pgettext_lazy("posting kind", "Buy-in")
        CASH_OUT = "cash_out", pgettext_lazy("posting kind", "Cash-out")
        CARRY_IN = "carry_in", pgettext_lazy("posting kind", "Pot carried in from the club")
        CARRY_OUT = "carry_out", pgettext_lazy("posting kind", "Pot carried to the club")
        LEFTOVER = "leftover", pgettext_lazy("posting kind", "Leftover pot shared")
        REVERSAL = "reversal", pgettext_lazy("posting kind", "Reversal")
        TAB = "tab", pgettext_lazy("posting kind", "Put on the tab")
        TAB_PAYMENT = "tab_payment", pgettext_lazy("posting kind", "Tab payment")

    club = models.ForeignKey("games.Club", on_delete=models.PROTECT, related_name="postings")
    # No index of its own: the (session, id) index below serves every lookup by session
    # (its first column), and each recorded hand's postings would update both (issue #20).
    session = models.ForeignKey(
        "games.GameSession",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="postings",
        db_index=False,
    )
    hand = models.ForeignKey(
        "games.Hand", null=True, blank=True, on_delete=models.PROTECT, related_name="postings"
    )
    kind = models.CharField(max_length=12, choices=Kind.choices)
    memo = models.CharField(max_length=MEMO_LENGTH, blank=True, default="")
    # What the memo is (a ledger.memos.MemoKind) and its parameters; ``memo`` is their English.
    memo_kind = models.CharField(max_length=24, default=MemoKind.TEXT.value)
    memo_params = models.JSONField(default=dict, blank=True)
    reverses = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="reversed_by"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["session", "id"]),
            # A session's money outside hands (carry-ins, buy-ins, leftovers) is a handful
            # of postings among thousands: the history page finds them without a scan.
            models.Index(
                fields=["session"],
                condition=models.Q(hand__isnull=True),
                name="posting_outside_hands",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk}"

    def get_kind_display(self) -> str:  # type: ignore[no-redef]  # the stubs declare Django's
        """The kind in the reader's language, as Django's own ``get_kind_display`` (which
        this replaces) says it. That one builds a dict of every choice on each call and
        hashes the ten lazy labels, translating each: about 12 % of a history page, which
        names some twenty postings (issue #20)."""
        try:
            return str(self.Kind(self.kind).label)
        except ValueError:  # not a kind (Django's shows the stored value)
            return self.kind


class Leg(models.Model):
    posting = models.ForeignKey(Posting, on_delete=models.PROTECT, related_name="legs")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="legs")
    amount = models.BigIntegerField()

    class Meta:
        ordering = ["posting", "id"]
        constraints = [
            models.CheckConstraint(condition=~models.Q(amount=0), name="leg_amount_nonzero"),
        ]

    def __str__(self) -> str:
        return f"{self.account}: {self.amount}"


class SettlementMark(models.Model):
    """A settlement transfer marked as paid ("ben pays ann $14" ✓).

    Not money: the transfers are recomputed from the ledger; a mark only remembers that
    one of them was settled in cash. ``amount`` is the amount that was marked, so a mark
    whose transfer has since changed (a late void, a reopened debt) can be shown as stale
    instead of silently ticking a different sum.
    """

    session = models.ForeignKey(
        "games.GameSession", on_delete=models.CASCADE, related_name="settlement_marks"
    )
    payer = models.ForeignKey("games.Player", on_delete=models.PROTECT, related_name="+")
    payee = models.ForeignKey("games.Player", on_delete=models.PROTECT, related_name="+")
    amount = models.BigIntegerField()
    paid_at = models.DateTimeField(default=timezone.now)
    paid_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["session", "payer", "payee"]
        constraints = [
            models.UniqueConstraint(
                fields=["session", "payer", "payee"], name="one_mark_per_transfer"
            ),
            models.CheckConstraint(condition=models.Q(amount__gt=0), name="mark_amount_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.payer_id} paid {self.payee_id} {self.amount}"


class TabPayment(models.Model):
    """A payment between two players of the club's tab ("ben paid ann $14"): its money is
    ``posting`` (a ``TAB_PAYMENT``, written when the payment is reported); this row
    remembers how it was paid, who reported it and whether the payee (or a scorekeeper)
    confirmed it. A reversed payment keeps its row; its posting has ``reversed_by``."""

    class Method(models.TextChoices):
        CASH = "cash", pgettext_lazy("payment method", "Cash")
        VENMO = "venmo", "Venmo"
        PAYPAL = "paypal", "PayPal"
        CASH_APP = "cashapp", "Cash App"
        REVOLUT = "revolut", "Revolut"
        BANK = "bank", pgettext_lazy("payment method", "Bank transfer")
        OTHER = "other", pgettext_lazy("payment method", "Other app")

    club = models.ForeignKey("games.Club", on_delete=models.PROTECT, related_name="tab_payments")
    posting = models.OneToOneField(Posting, on_delete=models.PROTECT, related_name="payment")
    payer = models.ForeignKey("games.Player", on_delete=models.PROTECT, related_name="+")
    payee = models.ForeignKey("games.Player", on_delete=models.PROTECT, related_name="+")
    amount = models.BigIntegerField()
    method = models.CharField(max_length=12, choices=Method.choices, default=Method.CASH)
    reported_at = models.DateTimeField(default=timezone.now)
    reported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    confirmed_at = models.DateTimeField(null=True, blank=True)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The one-time token of the HTML form that recorded it (empty from the API, which has
    # its Idempotency-Key): a second submit of the same form (a double tap, a resent POST)
    # finds this row and records nothing (``ledger.postings.report_payment``).
    form_token = models.CharField(max_length=32, blank=True, default="")

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["club", "form_token"],
                condition=~models.Q(form_token=""),
                name="tab_payment_form_once",
            ),
            models.CheckConstraint(condition=models.Q(amount__gt=0), name="tab_payment_positive"),
            models.CheckConstraint(
                condition=~models.Q(payer=models.F("payee")), name="tab_payment_two_players"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.payer_id} paid {self.payee_id} {self.amount}"

    @property
    def confirmed(self) -> bool:
        return self.confirmed_at is not None


class TabSettings(models.Model):
    """A club's tab reminders (opt-in): e-mail a member who has owed more than
    ``threshold`` (minor units) for more than ``days`` days, at most once a week."""

    club = models.OneToOneField("games.Club", on_delete=models.CASCADE, related_name="tab_settings")
    reminders = models.BooleanField(default=False)
    threshold = models.BigIntegerField(default=0)
    days = models.PositiveSmallIntegerField(default=14)

    def __str__(self) -> str:
        return f"tab settings of club {self.club_id}"


class TabReminder(models.Model):
    """A reminder e-mail sent (``send_tab_reminders``): when, to whom, for how much."""

    player = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="+")
    amount = models.BigIntegerField()
    sent_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["player", "-sent_at"]
        indexes = [models.Index(fields=["player", "sent_at"])]

    def __str__(self) -> str:
        return f"reminder to player {self.player_id} at {self.sent_at}"


class PrizeAccount(models.Model):
    class Kind(models.TextChoices):
        ENTRANT = "entrant", pgettext_lazy("prize account kind", "Entrant")
        POOL = "pool", pgettext_lazy("prize account kind", "Prize pool")
        HOUSE = "house", pgettext_lazy("prize account kind", "House (fees)")

    tournament = models.ForeignKey(
        "games.Tournament", on_delete=models.CASCADE, related_name="prize_accounts"
    )
    kind = models.CharField(max_length=8, choices=Kind.choices)
    player = models.ForeignKey(
        "games.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"],
                condition=models.Q(kind="entrant"),
                name="one_prize_account_per_entrant",
            ),
            models.UniqueConstraint(
                fields=["tournament", "kind"],
                condition=models.Q(kind__in=["pool", "house"]),
                name="one_pool_and_house_per_tournament",
            ),
            models.CheckConstraint(
                condition=models.Q(kind="entrant", player__isnull=False)
                | (~models.Q(kind="entrant") & models.Q(player__isnull=True)),
                name="prize_account_player_iff_entrant",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind}:{self.player_id}" if self.player_id else self.kind


class PrizePosting(models.Model):
    class Kind(models.TextChoices):
        BUY_IN = "buy_in", pgettext_lazy("prize posting kind", "Buy-in")
        FEE = "fee", pgettext_lazy("prize posting kind", "Fee")
        REFUND = "refund", pgettext_lazy("prize posting kind", "Refund (withdrawn)")
        PRIZE = "prize", pgettext_lazy("prize posting kind", "Prize")
        REENTRY = "reentry", pgettext_lazy("prize posting kind", "Re-entry")
        REBUY = "rebuy", pgettext_lazy("prize posting kind", "Rebuy")
        ADDON = "addon", pgettext_lazy("prize posting kind", "Add-on")
        DEAL = "deal", pgettext_lazy("prize posting kind", "Deal")

    tournament = models.ForeignKey(
        "games.Tournament", on_delete=models.CASCADE, related_name="prize_postings"
    )
    kind = models.CharField(max_length=8, choices=Kind.choices)
    player = models.ForeignKey(
        "games.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    memo = models.CharField(max_length=MEMO_LENGTH, blank=True, default="")
    # What the memo is (a ledger.memos.MemoKind) and its parameters; ``memo`` is their English.
    memo_kind = models.CharField(max_length=24, default=MemoKind.TEXT.value)
    memo_params = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk}"


class PrizeLeg(models.Model):
    posting = models.ForeignKey(PrizePosting, on_delete=models.PROTECT, related_name="legs")
    account = models.ForeignKey(PrizeAccount, on_delete=models.PROTECT, related_name="legs")
    amount = models.BigIntegerField()

    class Meta:
        ordering = ["posting", "id"]
        constraints = [
            models.CheckConstraint(condition=~models.Q(amount=0), name="prize_leg_nonzero"),
        ]

    def __str__(self) -> str:
        return f"{self.account}: {self.amount}"


class PlayerTotals(models.Model):
    """A player's running totals over the club's whole history (club statistics).

    Kept by ``ledger.postings`` only, in the same transaction as the postings and hands
    they count (like a session's ``nets``/``stacks``), so the statistics page reads one
    row per player however many sessions the club has played; reversals are postings like
    any other and subtract through the same writer. ``ledger.invariants.check_player_totals``
    recounts them from the ledger and the hands. Money figures leave out tournament
    tables (chips, not money) and bank moves; hand counts count every recorded hand.
    """

    player = models.OneToOneField(
        "games.Player", primary_key=True, on_delete=models.CASCADE, related_name="totals"
    )
    club = models.ForeignKey("games.Club", on_delete=models.CASCADE, related_name="+")
    net = models.BigIntegerField(default=0, help_text=_("Won − lost at the table, cash sessions."))
    pots_won = models.IntegerField(default=0, help_text=_("Pots taken alone, not reversed."))
    biggest_pot = models.BigIntegerField(default=0, help_text=_("Largest of those pots."))
    hands_played = models.IntegerField(default=0, help_text=_("Recorded hands dealt in."))
    hands_passed = models.IntegerField(default=0)
    bourres = models.IntegerField(default=0)
    reneges = models.IntegerField(default=0)
    sessions = models.IntegerField(default=0, help_text=_("Sessions seated in."))

    # The counters in the order ledger.sql.add_player_totals takes them.
    COUNTERS = (
        "net",
        "pots_won",
        "biggest_pot",
        "hands_played",
        "hands_passed",
        "bourres",
        "reneges",
        "sessions",
    )

    def __str__(self) -> str:
        return f"totals of player {self.player_id}"
