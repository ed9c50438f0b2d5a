"""Starting, seating, rules, closing a session, and settlement marks."""

from __future__ import annotations

from django.db import transaction
from django.db.models import F, Max, Q
from django.utils import timezone

from games.engine import Rules
from games.models import Club, GameSession, Hand, Player, Seat
from games.models.currency import Currency, as_currency
from ledger.errors import SetupError, TabConflict
from ledger.memos import Memo, MemoKind
from ledger.models import Account, Leg, Posting, SettlementMark
from ledger.postings._common import (
    BOOK_FIELDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Actor,
    _balance,
    _check_amount,
    _club_account,
    _dealt_in,
    _event,
    _keep_dealer_valid,
    _player_accounts,
    _post,
    _require_open,
    _rules_dict,
    _seat_account,
    _seats,
    actor,
    announce_change,
    free_position,
    lock_session,
    seat_back,
)
from ledger.tab import session_tab

# -- starting a session -----------------------------------------------------------------------


def start_session(
    *,
    club: Club,
    name: str,
    players: list[Player],
    dealer: Player,
    rules: dict,
    currency: Currency | str,
    user: Actor,
    mode: str = "reported",
    leftover_policy: str = "carry_to_club",
    tournament_chips: dict[int, int] | None = None,
) -> GameSession:
    """Open a session: seats in the given clockwise order, the pot account, the club's
    carried-over pot pulled in (CARRY_IN), the first dealer; a "started" event.

    Raises RuleError (ValueError with .code/.key) for bad rules and SetupError for
    anything else that is wrong.
    """
    rules_dict = _rules_dict(rules)
    # A tournament table may open with one player (a late entrant when every table is
    # full): it deals once balancing has seated a second (games.tournaments.entries).
    ids = _seated_ids(club, players, dealer, fewest=1 if tournament_chips else MIN_PLAYERS)
    _check_options(name, mode, leftover_policy)
    cur = _session_currency(club, currency, chip_limited=bool(tournament_chips))
    chips = _table_chips(tournament_chips, ids)
    with transaction.atomic():
        session = GameSession.objects.create(
            club=club,
            name=name.strip(),
            **cur.fields(),
            rules=rules_dict,
            mode=mode,
            leftover_policy=leftover_policy,
            chip_limited=bool(tournament_chips),
            next_dealer=dealer,
            created_by=actor(user),
        )
        pot = Account.objects.create(club=club, kind=Account.Kind.POT, session=session)
        accounts = _player_accounts(club.pk, ids)
        Seat.objects.bulk_create(
            [
                Seat(session=session, player_id=pid, position=i, account_id=accounts[pid])
                for i, pid in enumerate(ids)
            ]
        )
        session.pot_account = pot
        session.nets = {str(pid): 0 for pid in ids}
        session.stacks = dict(session.nets)
        entries, carried = _opening_entries(session, pot.pk, ids, accounts, chips)
        _post(
            session,
            club.pk,
            entries,
            user,
            owners={a: p for p, a in accounts.items()},
            counts={pid: {"sessions": 1} for pid in ids},
        )
        session.carry = carried
        session.save(update_fields=["carry", "pot_account", *BOOK_FIELDS])
        _event(
            session,
            "started",
            {
                "players": ids,
                "dealer": dealer.pk,
                "rules": rules_dict,
                "carried_in": carried,
                "chips": {str(k): v for k, v in chips.items()},
                "leftover_policy": leftover_policy,
            },
            user,
        )
    return session


def _seated_ids(
    club: Club, players: list[Player], dealer: Player | None, *, fewest: int = MIN_PLAYERS
) -> list[int]:
    """The players' ids in seat order, once each, all on the club's roster, the dealer
    among them (R3; ``fewest`` is 1 for a tournament table, see ``start_session``)."""
    ids = [p.pk for p in players]
    if not fewest <= len(ids) <= MAX_PLAYERS:
        raise SetupError(
            "bad_players",
            "a session needs 2 to 8 players (R3)",
            "players",
            message_id="session_players",
        )
    if len(set(ids)) != len(ids):
        raise SetupError("duplicate_player", "a player can have only one seat", "players")
    if any(p.club_id != club.pk for p in players):
        raise SetupError(
            "unknown_player",
            "every player must be on the club's roster",
            "players",
            message_id="players_not_on_roster",
        )
    if dealer is None or dealer.pk not in ids:
        raise SetupError("bad_dealer", "the first dealer must be one of the players", "dealer")
    return ids


def _check_options(name: str, mode: str, leftover_policy: str) -> None:
    """A known mode and leftover policy, and a name of 1 to 100 characters."""
    if mode not in GameSession.Mode.values:
        raise SetupError("bad_mode", f"unknown mode {mode!r}", "mode", params={"mode": mode})
    if leftover_policy not in GameSession.LeftoverPolicy.values:
        raise SetupError(
            "bad_policy",
            f"unknown leftover policy {leftover_policy!r}",
            "policy",
            params={"policy": leftover_policy},
        )
    if not (name or "").strip() or len(name.strip()) > 100:
        raise SetupError("bad_name", "the session needs a name of at most 100 characters", "name")


def _session_currency(club: Club, currency: Currency | str, *, chip_limited: bool) -> Currency:
    """The session's money: a Currency (games.money), or a code/old symbol read as
    ``as_currency`` reads it, counted in the club's minor unit unless a tournament's."""
    if isinstance(currency, str):
        currency = currency.strip()
    cur = as_currency(currency)
    if not cur.symbol or len(cur.symbol) > 8 or not 0 <= cur.exponent <= 4:
        raise SetupError("bad_currency", "the currency unit is 1 to 8 characters", "currency")
    if not chip_limited and cur.exponent != club.currency.exponent:
        # The club's carried pot and its bank are counted in the club's minor unit: a
        # session counted in another (chips in a club of cents) would mix the two.
        raise SetupError(
            "bad_currency",
            f"the club counts in {club.currency.symbol} "
            f"{'cents' if club.currency.exponent else 'whole units'}; a session must count "
            "the same way (a chip game needs a chip club)",
            "currency",
        )
    return cur


def _table_chips(tournament_chips: dict[int, int] | None, ids: list[int]) -> dict[int, int]:
    """A tournament table's starting chips by player id, every one seated and in bounds."""
    chips = dict(tournament_chips or {})
    for pid, amount in chips.items():
        if pid not in ids:
            raise SetupError(
                "unknown_player",
                "chips for a player who is not seated",
                "chips",
                message_id="chips_not_seated",
            )
        _check_amount(amount, "chips")
    return chips


def _opening_entries(
    session: GameSession,
    pot: int,
    ids: list[int],
    accounts: dict[int, int],
    chips: dict[int, int],
) -> tuple[list[tuple[str, dict[int, int], Memo]], int]:
    """A new session's first postings for ``_post`` and the pot it starts with: the
    club's carried-over pot (a cash table), each seat's tournament chips (a tournament's)."""
    entries: list[tuple[str, dict[int, int], Memo]] = []
    carried = 0
    if not session.chip_limited:
        kitty = _club_account(session.club_id, Account.Kind.CARRY, lock=True)
        carried = _balance(kitty.pk)
        if carried:
            entries.append(
                (Posting.Kind.CARRY_IN, {kitty.pk: -carried, pot: carried}, Memo(MemoKind.CARRY_IN))
            )
    if chips:
        bank = _club_account(session.club_id, Account.Kind.BANK)
        for pid in ids:  # in seat order
            if chips.get(pid):
                entries.append(
                    (
                        Posting.Kind.BUY_IN,
                        {accounts[pid]: chips[pid], bank.pk: -chips[pid]},
                        Memo(MemoKind.TOURNAMENT_CHIPS),
                    )
                )
    return entries, carried


# -- rules and seats ----------------------------------------------------------------------------------


def change_rules(*, session_id: int, rules: dict, user: Actor) -> GameSession:
    """New house rules from the next hand on; a "rules_changed" event with old and new.
    Raises RuleError (ValueError with .code/.key) for bad rules."""
    new = _rules_dict(rules)
    with transaction.atomic():
        session = lock_session(session_id)
        _require_open(session)
        old = dict(session.rules)
        if Rules.from_dict(old).to_dict() == new:
            return session
        changed = {k: [old.get(k), v] for k, v in new.items() if old.get(k) != v}
        session.rules = new
        session.bump()
        session.save(update_fields=["rules", "version"])
        _event(session, "rules_changed", {"old": old, "new": new, "changed": changed}, user)
    return session


def _active_count(session: GameSession) -> int:
    return Seat.objects.filter(session=session, active=True).count()


def _fix_dealer(session: GameSession) -> None:
    seats = _seats(session)
    eligible = {s.player_id for s in _dealt_in(session, seats)}
    dealer_id, forfeits = _keep_dealer_valid(
        seats, session.next_dealer_id, eligible, list(session.forfeits)
    )
    session.next_dealer_id = dealer_id
    session.forfeits = forfeits


def add_seat(
    *,
    session_id: int,
    player: Player,
    user: Actor,
    position: int | None = None,
    free_seat: bool = False,
) -> Seat:
    """Seat a player between hands: at the end of the table (on the last seat's left), or
    at ``position`` (the seats from there on move one place left), or with ``free_seat``
    in the lowest seat nobody in play holds (``free_position``: a tournament table, whose
    players keep the seat numbers they were told). A player who left is seated again
    (moved to ``position`` or the free seat if asked)."""
    with transaction.atomic():
        session = lock_session(session_id)
        _require_open(session)
        if player.club_id != session.club_id:
            raise SetupError(
                "unknown_player",
                "the player is not on the club's roster",
                "player",
                message_id="player_not_on_roster",
            )
        seat = Seat.objects.filter(session=session, player=player).first()
        if seat is not None and seat.active:
            raise SetupError(
                "already_seated",
                f"{player.name} is already seated",
                "player",
                params={"player": player.name},
            )
        if _active_count(session) >= MAX_PLAYERS:
            raise SetupError("too_many_players", "a table seats at most 8 players (R3)", "player")
        if free_seat:
            position = free_position(session)
        elif position is not None:
            if type(position) is not int or position < 0:
                raise SetupError("bad_position", "position must be a whole number ≥ 0", "position")
            others = Seat.objects.filter(session=session, position__gte=position)
            if seat is not None:
                others = others.exclude(pk=seat.pk)
            others.update(position=F("position") + 1)
        else:
            position = (
                Seat.objects.filter(session=session).aggregate(m=Max("position"))["m"] or 0
            ) + 1
        if seat is None:
            account = _player_accounts(session.club_id, [player.pk])[player.pk]
            seat = Seat.objects.create(
                session=session, player=player, position=position, account_id=account
            )
            event = "seat_added"
            # No money moves, but the player has one more session (club totals).
            _post(session, session.club_id, [], user, counts={player.pk: {"sessions": 1}})
        else:
            seat.position = position if position is not None else seat.position
            seat.active, seat.left_at, seat.eliminated_at = True, None, None
            seat.save(update_fields=["position", "active", "left_at", "eliminated_at"])
            event = "seat_returned"
        key = str(player.pk)
        session.nets.setdefault(key, 0)
        session.stacks.setdefault(key, 0)
        _fix_dealer(session)
        session.bump()
        session.save(update_fields=["next_dealer", "forfeits", "version", *BOOK_FIELDS])
        _event(session, event, {"player": player.pk, "position": seat.position}, user)
    return seat


def set_seat_active(*, session_id: int, player_id: int, active: bool, user: Actor) -> Seat:
    """A player leaves the table (not dealt in) or comes back, between hands. If the next
    dealer leaves, the deal passes to the next active seat on the left (R8)."""
    with transaction.atomic():
        session = lock_session(session_id)
        _require_open(session)
        seat = Seat.objects.filter(session=session, player_id=player_id).first()
        if seat is None:
            raise SetupError("not_seated", "that player has no seat in this session", "player")
        if seat.active == bool(active):
            return seat
        count = _active_count(session)
        if active and count >= MAX_PLAYERS:
            raise SetupError("too_many_players", "a table seats at most 8 players (R3)", "player")
        # A home table needs two players; a tournament table (chip-limited) is emptied
        # by the tournament's own seat moves, so it may go below.
        if not active and count <= MIN_PLAYERS and not session.chip_limited:
            raise SetupError(
                "too_few_players", "a hand needs at least 2 players (R3): close instead", "player"
            )
        now = timezone.now()
        seat.active = bool(active)
        seat.left_at = None if active else now
        if active:
            seat.eliminated_at = None
        seat.save(update_fields=["active", "left_at", "eliminated_at"])
        if active:
            seat_back(session, [seat])
        _fix_dealer(session)
        session.bump()
        session.save(update_fields=["next_dealer", "forfeits", "version"])
        _event(session, "seat_returned" if active else "seat_left", {"player": player_id}, user)
    return seat


# -- closing ----------------------------------------------------------------------------------------


def award_pot(
    *, session_id: int, player_id: int, user: Actor, memo: MemoKind = MemoKind.POT_AWARDED
) -> Posting | None:
    """Pay the whole pot of a chip-limited (tournament) table to one seated player, e.g.
    the last player left at a table (``memo``: why, ``ALONE_AT_TABLE`` and the like).
    Returns None when the pot is empty."""
    with transaction.atomic():
        session = lock_session(session_id)
        _require_open(session)
        if not session.chip_limited:
            raise SetupError(
                "not_chip_limited", "only a tournament table's pot can be awarded", "session"
            )
        account = _seat_account(session, player_id)
        pot = session.pot_account_id
        assert pot is not None  # open_session creates the pot with the session
        amount = _balance(pot)
        if amount == 0:
            return None
        (posting,) = _post(
            session,
            session.club_id,
            [(Posting.Kind.PAYOUT, {pot: -amount, account: amount}, Memo(memo))],
            user,
            owners={account: player_id},
        )
        session.carry = 0
        session.bump()
        session.save(update_fields=["carry", "version", *BOOK_FIELDS])
        _event(session, "pot_awarded", {"player": player_id, "amount": amount}, user)
    return posting


def move_pot(*, session_id: int, amount: int, into: bool, user: Actor) -> Posting | None:
    """Tournament chips of a broken table's carried pot (RULES.md T1 ``move``) between a
    chip-limited table's pot and the bank that issued the chips: ``into=False`` takes
    ``amount`` out of the broken table's pot, ``into=True`` puts it into a receiving
    table's pot (its next hand plays for it). Each is one balanced posting, and the
    session's ``carry`` follows its pot account. None when ``amount`` is 0."""
    if amount == 0:
        return None
    _check_amount(amount)
    with transaction.atomic():
        session = lock_session(session_id)
        _require_open(session)
        if not session.chip_limited:
            raise SetupError(
                "not_chip_limited", "only a tournament table's pot can move", "session"
            )
        pot = session.pot_account_id
        assert pot is not None  # open_session creates the pot with the session
        held = _balance(pot)
        if not into and amount > held:
            raise SetupError(
                "not_enough_chips", f"only {held} in the pot", "amount", params={"stack": held}
            )
        bank = _club_account(session.club_id, Account.Kind.BANK)
        sign = 1 if into else -1
        kind = Posting.Kind.CARRY_IN if into else Posting.Kind.CARRY_OUT
        memo = MemoKind.POT_FROM_BROKEN if into else MemoKind.POT_TO_TABLES
        (posting,) = _post(
            session,
            session.club_id,
            [(kind, {pot: sign * amount, bank.pk: -sign * amount}, Memo(memo))],
            user,
        )
        session.carry = held + sign * amount
        session.bump()
        session.save(update_fields=["carry", "version", *BOOK_FIELDS])
        _event(session, "pot_moved", {"amount": sign * amount}, user)
    return posting


def _pot_contributors(session: GameSession, pot_account_id: int) -> list[int]:
    """Players who paid antes or penalties into the pot since it was last empty, in the
    order they first paid (live hands only)."""
    legs = (
        Leg.objects.filter(posting__session=session)
        .filter(Q(posting__hand__isnull=True) | Q(posting__hand__status=Hand.Status.RECORDED))
        .filter(Q(account_id=pot_account_id) | Q(account__kind=Account.Kind.PLAYER))
        .order_by("posting_id", "id")
        .values_list("posting_id", "posting__kind", "account_id", "account__player_id", "amount")
    )
    pot = 0
    contributors: dict[int, None] = {}
    current = None
    for posting_id, kind, account_id, player_id, amount in legs:
        if posting_id != current:
            if current is not None and pot == 0:
                contributors.clear()
            current = posting_id
        if account_id == pot_account_id:
            pot += amount
        elif kind in (Posting.Kind.ANTE, Posting.Kind.PENALTY) and amount < 0:
            contributors.setdefault(player_id)
    if pot == 0:
        contributors.clear()
    return list(contributors)


def _leftover_shares(
    session: GameSession, pot: int, leftover: int, policy: str
) -> tuple[dict[int, int], int]:
    """How a closing session's leftover pot goes: equal shares by player id (to those who
    paid into it, ``share_equally``) and what goes to the club (the rest, or all of it)."""
    shares: dict[int, int] = {}
    to_club = leftover
    # A tournament table's dead pot is never shared: it goes back to the bank (chips).
    if leftover and not session.chip_limited and policy == GameSession.LeftoverPolicy.SHARE_EQUALLY:
        players = _pot_contributors(session, pot)
        if players:
            share = leftover // len(players)
            shares = dict.fromkeys(players, share) if share else {}
            to_club = leftover - share * len(shares)
    return shares, to_club


def _post_leftover(
    session: GameSession,
    user: Actor,
    pot_and_kitty: tuple[int, int],
    leftover: int,
    shares: dict[int, int],
    to_club: int,
) -> None:
    """Post the leftover pot (``pot_and_kitty``: its account and the one ``to_club``
    goes to, the club's carry account or a tournament table's bank): the shares to the
    players, the rest to the kitty."""
    pot, kitty = pot_and_kitty
    accounts = _player_accounts(session.club_id, shares) if shares else {}
    legs = {pot: -leftover, kitty: to_club}
    for pid, x in shares.items():
        legs[accounts[pid]] = x
    kind = Posting.Kind.LEFTOVER if shares else Posting.Kind.CARRY_OUT
    if session.chip_limited:
        memo = MemoKind.DEAD_POT
    elif shares:
        # The legs carry the amounts, in the session's money: the memo names none.
        memo = MemoKind.LEFTOVER_REMAINDER if to_club else MemoKind.LEFTOVER_SHARED
    else:
        memo = MemoKind.CARRY_OUT
    owners = {a: pid for pid, a in accounts.items()}
    _post(session, session.club_id, [(kind, legs, Memo(memo))], user, owners=owners)


def close_session(
    *, session_id: int, user: Actor, leftover_policy: str | None = None
) -> GameSession:
    """Freeze the session. The pot left over goes by policy: ``carry_to_club`` (the
    club's carry account; the club's next session pulls it in) or ``share_equally`` (equal
    shares to the players who paid into it, the remainder to the club). Closing a closed
    session returns it unchanged."""
    with transaction.atomic():
        session = lock_session(session_id)
        if not session.is_open:
            return session
        policy = leftover_policy or session.leftover_policy
        if policy not in GameSession.LeftoverPolicy.values:
            raise SetupError(
                "bad_policy",
                f"unknown leftover policy {policy!r}",
                "policy",
                params={"policy": policy},
            )
        pot = session.pot_account_id
        assert pot is not None  # open_session creates the pot with the session
        leftover = _balance(pot)
        # Tournament chips must never turn into a cash pot: a chip-limited table's dead pot
        # goes back to the bank that issued the chips, whatever the policy.
        kitty = _club_account(
            session.club_id,
            Account.Kind.BANK if session.chip_limited else Account.Kind.CARRY,
            lock=True,
        )
        shares, to_club = _leftover_shares(session, pot, leftover, policy)
        if leftover:
            _post_leftover(session, user, (pot, kitty.pk), leftover, shares, to_club)
        session.status = GameSession.Status.CLOSED
        session.closed_at = timezone.now()
        session.leftover_policy = policy
        session.carry = 0
        session.bump()
        session.save(
            update_fields=[
                "status",
                "closed_at",
                "leftover_policy",
                "carry",
                "version",
                *BOOK_FIELDS,
            ]
        )
        _event(
            session,
            "closed",
            {
                "leftover": leftover,
                "policy": policy,
                "shares": {str(k): v for k, v in shares.items()},
                "remainder": to_club if shares else 0,
                "to_club": to_club,
            },
            user,
        )
    return session


def mark_transfer_paid(
    *, session_id: int, payer_id: int, payee_id: int, amount: int, paid: bool, user: Actor
) -> SettlementMark | None:
    """Tick (or untick) a settlement transfer as paid. Not money: only a note. A transfer
    on the club's tab cannot be ticked (``tab_on_tab``): take it off the tab first."""
    with transaction.atomic():
        session = lock_session(session_id)
        marks = SettlementMark.objects.filter(session=session, payer_id=payer_id, payee_id=payee_id)
        if not paid:
            marks.delete()
            announce_change(
                session,
                "settlement_marked",
                {"payer": payer_id, "payee": payee_id, "amount": amount, "paid": False},
            )
            return None
        _check_amount(amount)
        # A transfer is settled tonight or put on the club's tab, not both (issue #34).
        if (payer_id, payee_id) in session_tab(session.pk):
            raise TabConflict(
                "tab_on_tab", "That transfer is on the club's tab: take it off the tab first."
            )
        mark, _ = SettlementMark.objects.update_or_create(
            session=session,
            payer_id=payer_id,
            payee_id=payee_id,
            defaults={"amount": amount, "paid_at": timezone.now(), "paid_by": actor(user)},
        )
        announce_change(
            session,
            "settlement_marked",
            {"payer": payer_id, "payee": payee_id, "amount": amount, "paid": True},
        )
    return mark
