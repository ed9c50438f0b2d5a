"""Deleting an account (issue #33 item 6): what happens, and doing it in one transaction.

``plan_for(user)`` says what deleting the account would do: the clubs the user alone owns
(each needs a decision: hand it to another member, who becomes owner, or delete it), the
clubs they simply leave, the players linked to them, their API tokens.
``delete_account(user, decisions)`` does it, all or nothing.

What "deleted" means, and why:

- Where the person was paid goes: their payment handles, and any a club saved for their
  players before the link (issue #34), are deleted, not kept under the anonymous name.

- The books never lose a row. Postings and legs are append-only (PostgreSQL triggers,
  ledger migrations 0002 and 0005), and they point at players, sessions, clubs and at the
  user who wrote them (``created_by``). So:
- The ``User`` row stays, deactivated and scrubbed: username ``former member <id>`` (no
  sign-up can pick a name with spaces), no e-mail or names, an unusable password, no staff
  rights, groups or permissions. Deleting it would set ``Posting.created_by`` to NULL, an
  UPDATE the ledger's trigger refuses. The unusable password changes Django's session
  hash, so every browser signed in to the account is signed out; ``is_active`` off means
  the login form and the session middleware both refuse it. API tokens and idempotency
  records (stored responses) are deleted; the language preference too.
- Players linked to the user are renamed "Former member <player id>" (in the server's
  language, ``settings.LANGUAGE_CODE``: a stored name cannot follow each reader's
  language, and the server's is the one its host chose for the table), unlinked, and
  renamed in every stored hand of their club (``games.clubs.anonymise``), so no hand page
  shows the old name. The numbers do not move: ``check_invariants`` and ``check_books``
  hold after, and the other members see the same balances and hands.
- A club the user alone owns, when they choose to delete it:
  - with no books at all (no posting, no prize posting) it is really deleted, rows and
    all: nothing in the ledger points at it;
  - with books it is *archived*: the ledger cannot let its rows go, and a club's books
    are half of every other member's history too. The club keeps its sessions, hands and
    postings, loses every member, invitation, webhook endpoint and event, share link and
    seat link, and is renamed "Deleted club <id>", its players "Player <id>" (hands
    rewritten alike). With no member left nobody can open it (games.access answers 404),
    and ``Club.archived_at`` says why it has none. ``check_books`` still proves it.
  - a club with an open session is neither: its pot and seats are still moving money.
    The confirmation page says so; close the sessions or hand the club over.

The prize ledger's memos (tournament entries, prizes, deals) name entrants: the renamed
players' names are replaced there too (``ledger.postings.rename_in_prize_memos``: only
the memo and its parameters change, never a leg or an amount; ``check_books`` holds).
Session and tournament names are the club's words and are kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext, pgettext

from games.clubs.anonymise import rename_in_hands
from games.models import (
    ApiToken,
    Club,
    GameSession,
    IdempotencyRecord,
    Invite,
    LanguagePreference,
    Membership,
    PaymentHandles,
    Player,
    Role,
    Seat,
    ShareLink,
    Tournament,
    WebhookEndpoint,
    WebhookEvent,
)
from games.models.session import new_seat_secret
from ledger import postings
from ledger.models import Account, Posting, PrizePosting

__all__ = [
    "AccountError",
    "Decision",
    "Deleted",
    "Plan",
    "SoleClub",
    "delete_account",
    "plan_for",
]

Action = Literal["hand_over", "delete"]


class AccountError(ValueError):
    """The account cannot be deleted as asked; ``str()`` is the reader's sentence."""


@dataclass(frozen=True)
class SoleClub:
    """A club the user alone owns, and what deciding its fate needs."""

    club: Club
    heirs: list[Membership]  # the other members, any of whom may take it over
    open_sessions: list[GameSession]
    has_books: bool


@dataclass(frozen=True)
class Plan:
    """What deleting the account would do."""

    sole_clubs: list[SoleClub]
    left_clubs: list[Club]  # clubs the user leaves: someone else owns them
    players: list[Player]  # linked to the user: renamed "Former member <id>"
    tokens: int


@dataclass(frozen=True)
class Decision:
    """The user's choice for one club they alone own."""

    action: Action
    heir: int | None = None  # the membership id of the new owner, for "hand_over"


@dataclass
class Deleted:
    """What ``delete_account`` did (for the page that says goodbye, and the tests)."""

    handed_over: list[tuple[str, str]] = field(default_factory=list)  # (club, new owner)
    archived: list[str] = field(default_factory=list)  # club names as they were
    deleted: list[str] = field(default_factory=list)
    players_renamed: int = 0
    hands_rewritten: int = 0
    prize_memos_rewritten: int = 0


def has_books(club: Club) -> bool:
    return (
        Posting.objects.filter(club=club).exists()
        or PrizePosting.objects.filter(tournament__club=club).exists()
    )


def plan_for(user: User) -> Plan:
    memberships = list(
        Membership.objects.filter(user=user).select_related("club").order_by("club__name")
    )
    owned = [m.club_id for m in memberships if m.role == Role.OWNER]
    other_owners = set(
        Membership.objects.filter(club_id__in=owned, role=Role.OWNER)
        .exclude(user=user)
        .values_list("club_id", flat=True)
    )
    sole, left = [], []
    for m in memberships:
        if m.role != Role.OWNER or m.club_id in other_owners:
            left.append(m.club)
            continue
        heirs = list(
            m.club.memberships.exclude(user=user).select_related("user").order_by("user__username")
        )
        open_sessions = list(
            GameSession.objects.filter(club=m.club, status=GameSession.Status.OPEN).order_by("id")
        )
        sole.append(SoleClub(m.club, heirs, open_sessions, has_books(m.club)))
    players = list(Player.objects.filter(user=user).select_related("club").order_by("club__name"))
    return Plan(sole, left, players, ApiToken.objects.filter(user=user).count())


def _free_name(club_id: int, wanted: str, exclude: int) -> str:
    """``wanted``, or ``wanted (2)``... if another player of the club has that name (the
    roster's names are unique regardless of case)."""
    name, n = wanted, 1
    taken = Player.objects.filter(club_id=club_id).exclude(pk=exclude)
    while taken.filter(name__iexact=name).exists():
        n += 1
        name = f"{wanted} ({n})"
    return name


def _decide(plan: Plan, decisions: Mapping[int, Decision]) -> dict[int, Decision]:
    """Check a decision for every sole-owned club against the plan as it is now."""
    checked = {}
    for sole in plan.sole_clubs:
        decision = decisions.get(sole.club.pk)
        if decision is None:
            raise AccountError(
                gettext("Choose what happens to %(club)s: hand it over or delete it.")
                % {"club": sole.club.name}
            )
        if decision.action == "hand_over":
            if decision.heir not in {m.pk for m in sole.heirs}:
                raise AccountError(
                    gettext("Choose who takes over %(club)s.") % {"club": sole.club.name}
                )
        elif sole.open_sessions:
            raise AccountError(open_sessions_sentence(sole))
        checked[sole.club.pk] = decision
    return checked


def open_sessions_sentence(sole: SoleClub) -> str:
    names = ", ".join(f"“{s.name}”" for s in sole.open_sessions)
    return gettext(
        "%(club)s has open sessions (%(sessions)s): close them first, or hand the club over."
    ) % {"club": sole.club.name, "sessions": names}


def delete_account(user: User, decisions: Mapping[int, Decision]) -> Deleted:
    """Delete ``user``'s account as the module docstring says, all or nothing."""
    with transaction.atomic():
        # One deletion at a time for this user (a double tap sends two).
        user = User.objects.select_for_update().get(pk=user.pk)
        if not user.is_active:
            raise AccountError(gettext("This account was already deleted."))
        # The clubs' rows, so no owner change in them runs while this decides who owns them.
        club_ids = list(Membership.objects.filter(user=user).values_list("club_id", flat=True))
        list(Club.objects.select_for_update().filter(pk__in=club_ids).values_list("pk"))
        plan = plan_for(user)
        checked = _decide(plan, decisions)
        done = Deleted()
        names: dict[int, dict[str, str]] = {}
        new_names: dict[int, dict[int, str]] = {}  # club id -> {player id: new name}
        with translation.override(settings.LANGUAGE_CODE):
            for sole in plan.sole_clubs:
                _settle_club(sole, checked[sole.club.pk], done, names, new_names)
            renamed: list[int] = []
            for player in Player.objects.filter(user=user):
                renamed.append(player.pk)
                new = _free_name(
                    player.club_id,
                    gettext("Former member %(number)s") % {"number": player.pk},
                    player.pk,
                )
                names.setdefault(player.club_id, {})[player.name] = new
                new_names.setdefault(player.club_id, {})[player.pk] = new
                player.name, player.user = new, None
                player.save(update_fields=["name", "user"])
                done.players_renamed += 1
        # Where they were paid (their own handles, and any a club saved for their
        # players before the link) goes with the account: no anonymous name keeps it.
        PaymentHandles.objects.filter(Q(user=user) | Q(player_id__in=renamed)).delete()
        old_username = user.get_username()
        _scrub(user)
        # Every club the user was in may keep hands they corrected ("by": their username);
        # the clubs of renamed players keep their old names.
        done.hands_rewritten = rename_in_hands(
            sorted(set(club_ids) | set(names)), names, {old_username: user.get_username()}
        )
        for club_id in sorted(new_names):
            done.prize_memos_rewritten += postings.rename_in_prize_memos(
                club_id, names.get(club_id, {}), new_names[club_id]
            )
    return done


def _settle_club(
    sole: SoleClub,
    decision: Decision,
    done: Deleted,
    names: dict[int, dict[str, str]],
    new_names: dict[int, dict[int, str]],
) -> None:
    club = sole.club
    if decision.action == "hand_over":
        heir = next(m for m in sole.heirs if m.pk == decision.heir)  # checked by _decide
        heir.role = Role.OWNER
        heir.save(update_fields=["role"])
        done.handed_over.append((club.name, heir.user.get_username()))
    elif has_books(club):
        done.archived.append(club.name)
        names[club.pk] = _archive(club)
        new_names[club.pk] = dict(Player.objects.filter(club=club).values_list("pk", "name"))
        done.players_renamed += len(names[club.pk])
    else:
        done.deleted.append(club.name)
        _purge(club)


def _archive(club: Club) -> dict[str, str]:
    """Hide a club whose books must stay: no members, links or hooks; names anonymised.
    Returns its players' {old name: new name}."""
    club.memberships.all().delete()
    Invite.objects.filter(club=club).delete()
    WebhookEndpoint.objects.filter(club=club).delete()
    WebhookEvent.objects.filter(club=club).delete()
    ShareLink.objects.filter(session__club=club).delete()
    # Seat links of digital hands: nobody's phone may reach the club again.
    seats = list(Seat.objects.filter(session__club=club).only("id"))
    for seat in seats:
        seat.secret, seat.claimed_by = new_seat_secret(), ""
    Seat.objects.bulk_update(seats, ["secret", "claimed_by"], batch_size=500)
    players = list(Player.objects.filter(club=club).only("id", "name", "user"))
    old = {p.pk: p.name for p in players}
    # Two steps: a new name may be another player's current one (the roster's names are
    # unique at every row written), so every player first gets a name nobody types.
    for p in players:
        p.name = f"#{p.pk}#"
    Player.objects.bulk_update(players, ["name"], batch_size=500)
    for p in players:
        p.name = pgettext("an archived club's player", "Player %(number)s") % {"number": p.pk}
        p.user = None
    Player.objects.bulk_update(players, ["name", "user"], batch_size=500)
    club.name = gettext("Deleted club %(number)s") % {"number": club.pk}
    club.created_by = None
    club.archived_at = timezone.now()
    club.save(update_fields=["name", "created_by", "archived_at"])
    return {old[p.pk]: p.name for p in players}


def _purge(club: Club) -> None:
    """Really delete a club that has nothing in the ledger, in an order its foreign keys
    allow (tables and accounts are PROTECTed against casual deletion)."""
    Tournament.objects.filter(club=club).delete()
    Seat.objects.filter(session__club=club).delete()
    GameSession.objects.filter(club=club).update(pot_account=None)
    Account.objects.filter(club=club).delete()
    GameSession.objects.filter(club=club).delete()  # before its players (next_dealer)
    club.delete()


def _scrub(user: User) -> None:
    user.username = f"former member {user.pk}"
    user.email = user.first_name = user.last_name = ""
    user.set_unusable_password()
    user.is_active = user.is_staff = user.is_superuser = False
    user.last_login = None
    user.save()
    user.groups.clear()
    user.user_permissions.clear()
    Membership.objects.filter(user=user).delete()
    ApiToken.objects.filter(user=user).delete()
    IdempotencyRecord.objects.filter(user=user).delete()
    LanguagePreference.objects.filter(user=user).delete()
