"""``manage.py check_books``: prove the books, for a scheduled job.

Re-sums every session's ledger and compares it with the session's running totals, pot
and hands (``ledger.invariants.check_invariants``), and checks every tournament's prize
ledger (``check_prize_ledger``). Prints one line per problem and exits 1 when anything
drifted, 0 when every book balances. ``--json`` prints the balances it found (every
account's sum of legs, every prize account's), which is how a restored backup is
compared with the original.

Every run leaves its result (when, how many books drifted) in ``BOURRE_BOOKS_CHECK_FILE``
for ``/metrics`` (bourre_site/books_check.py, metrics.py); a file it cannot write is
reported on stderr and does not change the exit status, which is the books' answer.

Run it nightly, e.g. from cron: ``15 3 * * * cd /srv/bourre && .venv/bin/python
manage.py check_books --quiet || mail -s "Bourré books drifted" ops@example.com``.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Manager, Sum

from bourre_site import books_check
from games.models import GameSession, Tournament
from ledger.invariants import check_invariants, check_prize_ledger
from ledger.models import Leg, PrizeLeg


def _sums(legs: Manager[Leg] | Manager[PrizeLeg]) -> dict[str, int]:
    by_account = legs.order_by().values("account_id").annotate(s=Sum("amount"))
    return {str(a): int(s) for a, s in by_account.values_list("account_id", "s")}


def balances() -> dict[str, dict[str, int]]:
    """Every account's balance (sum of its legs), session ledger and prize ledger."""
    return {"accounts": _sums(Leg.objects), "prize_accounts": _sums(PrizeLeg.objects)}


class Command(BaseCommand):
    help = "Re-sum every ledger and running total; exit 1 if any book drifted."
    # A scheduled job and the restore check: they must run whatever the serving config.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--json", dest="as_json", action="store_true", help="print the balances as JSON"
        )
        parser.add_argument("--quiet", action="store_true", help="print problems only")

    def handle(
        self, *args: Any, as_json: bool = False, quiet: bool = False, **options: Any
    ) -> None:
        problems: list[str] = []
        sessions = GameSession.objects.order_by("pk").only("pk", "name")
        for session in sessions.iterator():
            try:
                check_invariants(session)
            except AssertionError as drift:
                problems.append(f"session {session.pk} ({session.name}): {drift}")
        tournaments = Tournament.objects.order_by("pk")
        for t in tournaments.iterator():
            try:
                check_prize_ledger(t)
            except AssertionError as drift:
                problems.append(f"tournament {t.pk} ({t.name}): {drift}")
        for line in problems:
            self.stderr.write(line)
        try:
            books_check.save(len(problems), sessions.count(), tournaments.count())
        except OSError as error:
            self.stderr.write(f"The result was not kept for /metrics: {error}")
        if as_json:
            self.stdout.write(json.dumps(balances(), sort_keys=True))
        elif not quiet:
            self.stdout.write(
                f"{sessions.count()} sessions and {tournaments.count()} tournaments checked: "
                + (f"{len(problems)} drifted." if problems else "every book balances.")
            )
        if problems:
            raise CommandError(f"{len(problems)} book(s) drifted", returncode=1)
