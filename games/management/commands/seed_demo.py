"""Load demo data idempotently: a demo club with a login, players, a played session and a
running tournament.

Running it again changes nothing that is already there.
"""

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from games.demo import seed_sessions
from games.demo_tournament import seed_tournament
from games.models import Club, Membership, Player, Role

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "bourre-demo-2026"
DEMO_CLUB = "Bayou Thursday Game"
DEMO_PLAYERS = ["Ann", "Ben", "Cal", "Dee", "Eve"]


class Command(BaseCommand):
    help = "Create a demo club, login and players (safe to run repeatedly)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--url",
            default="http://127.0.0.1:8000/",
            help="Where the server answers (the login address printed), e.g. the "
            "Wi-Fi address `make run` serves on.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        base = options["url"].rstrip("/")
        with transaction.atomic():
            User = get_user_model()
            user, created = User.objects.get_or_create(username=DEMO_USERNAME)
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save()
            club = Club.objects.filter(name=DEMO_CLUB, memberships__user=user).first()
            if club is None:
                club = Club.objects.create(name=DEMO_CLUB, created_by=user)
            Membership.objects.get_or_create(club=club, user=user, defaults={"role": Role.OWNER})
            players = [
                Player.objects.get_or_create(club=club, name=name)[0] for name in DEMO_PLAYERS
            ]
            extra = seed_hooks(club, user, players)
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo data ready: log in at {base}/accounts/login/ as "
                f"'{DEMO_USERNAME}' with password '{DEMO_PASSWORD}' (club: {DEMO_CLUB})."
            )
        )
        for line in extra:
            self.stdout.write(line)


def seed_hooks(club: Club, user: User, players: list[Player]) -> list[str]:
    """The demo session and tournament (idempotent)."""
    return seed_sessions(club, user, players) + seed_tournament(club, user, players)
