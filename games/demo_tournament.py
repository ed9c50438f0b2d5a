"""Demo data for `manage.py seed_demo`: one running tournament, "Demo freeze-out".

Fourteen entrants (the demo roster and nine more club players) register, check in and
pay through the tournament service, the first draw seats them at two tables of seven,
and the engine's bots play twelve hands at each and on until somebody is out, each through the
service's ``autoplay`` (recorded by ``ledger.postings.record_hand`` with its seed and
actions, so the hand pages replay it) followed by the after-hand step (what the record
form's commit runs), so balancing, eliminations and the clock are the app's own. The
draw's seed and the hands' seeds are fixed, so the demo is the same every time; running
it again changes nothing (the tournament is found by its name).
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.urls import reverse

from games.engine.tournament import commitment
from games.models import Club, Entry, Player, Tournament, TournamentTable
from games.tournaments import service as svc
from ledger import postings

DEMO_TOURNAMENT = "Demo freeze-out"
DEMO_SEED = "bourre-demo-freeze-out-2026"
# The demo roster (seed_demo's five) plus nine: fourteen entrants, two tables of seven.
MORE_PLAYERS = ["Fatima", "Gus", "Hiro", "Ines", "Jamal", "Katya", "Luis", "Mei", "Nkechi"]
HANDS = 24  # twelve at each table, then on until somebody is out
# The hands' seeds include the table's session id (``autoplay``), so another database's
# ids deal other hands: past HANDS the bots play on until a player is out, up to this.
MAX_HANDS = 120


def demo_settings(club: Club) -> dict:
    """$20 in, $2 to the house (the stored amounts are minor units, games.money); a chip
    club pays 20 and 2 chips. Short stacks (20 chips) and antes rising every six hands,
    so the demo's hands move chips and put a couple of players out."""
    unit = club.currency.minor or 1
    return {
        "name": DEMO_TOURNAMENT,
        "format": Tournament.Format.FREEZEOUT,
        "buy_in": 20 * unit,
        "fee": 2 * unit,
        "starting_chips": 20,
        "hands_per_level": 6,
        "min_table": 4,
        "max_table": 7,
    }


def _bot_hand(table: TournamentTable, user: User) -> bool:
    """One hand dealt and played by the engine's bots at this table (the service's own
    ``autoplay``: a seed per hand and its actions kept, so the hand page can replay it);
    False if the table cannot deal now."""
    session = table.session
    session.refresh_from_db()
    if not session.is_open:
        return False
    if postings.table_deal_refusal(session) is not None:
        # A short table breaks or takes a player first: the director's "Check the tables".
        svc.sync(tournament_id=table.tournament_id, user=user)
        session.refresh_from_db()
        if not session.is_open or postings.table_deal_refusal(session) is not None:
            return False
    played = svc.autoplay(
        tournament_id=table.tournament_id, table_id=table.pk, hands=1, user=user, seed=DEMO_SEED
    )
    if played:
        # The record form's commit runs this (an on-commit hook); seed_demo is one
        # transaction, so the hook would wait for its end.
        svc.after_hand(session.pk)
    return bool(played)


def seed_tournament(club: Club, user: User, players: list[Player]) -> list[str]:
    """Create "Demo freeze-out", started with a few dozen hands played, unless the club
    already has it."""
    existing = Tournament.objects.filter(club=club, name=DEMO_TOURNAMENT).first()
    if existing is not None:
        return [f"Demo tournament {DEMO_TOURNAMENT!r} already there{_where(existing)}."]
    with transaction.atomic():
        roster = list(players) + [
            Player.objects.get_or_create(club=club, name=name)[0] for name in MORE_PLAYERS
        ]
        t = svc.create_tournament(club=club, user=user, **demo_settings(club))
        # The draw's seed, fixed before anyone registers (as if made at creation) so the
        # demo's tables are the same every time.
        Tournament.objects.filter(pk=t.pk).update(
            seed=DEMO_SEED, seed_commitment=commitment(DEMO_SEED)
        )
        for player in roster:
            entry = svc.register(tournament_id=t.pk, player=player, user=user)
            svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=user)
        svc.start(tournament_id=t.pk, user=user)
        played = 0
        for turn in range(3 * MAX_HANDS):  # a table that cannot deal passes its turn
            if played == MAX_HANDS or (
                played >= HANDS and t.entries.filter(status=Entry.Status.OUT).exists()
            ):
                break
            tables = list(
                t.tables.filter(status=TournamentTable.Status.PLAYING)
                .select_related("session")
                .order_by("number")
            )
            if not tables:
                break
            table = tables[turn % len(tables)]
            played += _bot_hand(table, user)
        t.refresh_from_db()
        out = t.entries.filter(status=Entry.Status.OUT).count()
    return [f"Demo tournament {DEMO_TOURNAMENT!r}: {played} hands played, {out} out{_where(t)}."]


def _where(t: Tournament) -> str:
    return (
        f" at {reverse('tournament_detail', args=[t.pk])}"
        f" (wall screen: {reverse('tournament_tv', args=[t.public_token])})"
    )
