"""``manage.py send_tab_reminders``: e-mail the club members who owe on the tab (issue #34).

Opt-in per club (``ledger.models.TabSettings``, set by the owner on the Tab page): a member
whose player has owed more than the club's ``threshold`` for more than its ``days`` gets an
e-mail with the amount, whom to pay (the tab's clearing transfers), the payees' saved
payment handles (a "Pay … with …" link per app, the free-text one such as an IBAN as
text; ``games.clubs.payment_links``) and a link to their tab (``--base-url``, else
``settings.SITE_URL``), in their saved language. At most one a week
per player: each sent reminder is remembered (``TabReminder``). Members without an e-mail
address, and players without an account, get none (the Tab page's "copy a reminder" is
for them).

"Owed for more than the days": the current stretch of owing more than the threshold
started that long ago (read from the tab's history), so a debt paid down and run up again
counts from the new start.

Sent through Django's e-mail (the console backend unless an SMTP host is configured).
The club server runs it daily (deploy/systemd/bourre-tab-reminders.timer).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.core.management.base import BaseCommand, CommandParser
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from games.clubs.handles import for_players, pay_note
from games.clubs.payment_links import Handles, build
from games.models import Club, LanguagePreference, Player
from games.money import format_money
from ledger.models import TabReminder, TabSettings
from ledger.tab import clearing_transfers, history, tab_balances

WEEK = timedelta(days=7)


def stretch_start(lines: Iterable[tuple[datetime, int]], threshold: int) -> datetime | None:
    """When the current stretch of owing more than ``threshold`` began, from a tab's
    (moment, amount) lines in order; None when the tab does not owe that much now."""
    balance, since = 0, None
    for at, amount in lines:
        before = balance
        balance += amount
        if balance < -threshold and before >= -threshold:
            since = at
        elif balance >= -threshold:
            since = None
    return since


def owing_since(club_id: int, player_id: int, threshold: int) -> datetime | None:
    lines = ((line.at, line.amount) for line in history(club_id, player_id=player_id))
    return stretch_start(lines, threshold)


def _pay_lines(
    club: Club, pays: list[tuple[int, str, int]], saved: dict[int, Handles]
) -> list[str]:
    """Each payee's hand-off as plain text (an e-mail has no buttons): one line per app
    link, and the free-text handle (an IBAN) as it was saved. Built by the same
    ``payment_links.build`` as the pages' ``{% pay_links %}``, so the same checks apply."""
    note = pay_note(timezone.now(), club.time_zone)
    money = club.currency
    lines: list[str] = []
    for payee_id, name, amount in pays:
        pay = build(saved.get(payee_id, Handles()), amount, money.code, money.exponent, note)
        facts = {"name": name, "amount": format_money(amount, money)}
        for link in pay.links:
            lines.append(
                _("Pay %(name)s %(amount)s with %(app)s: %(url)s")
                % (facts | {"app": link.name, "url": link.url})
            )
        if pay.copy:
            lines.append(
                _("%(name)s's payment details: %(text)s") % {"name": name, "text": pay.copy.text}
            )
    return lines


def _body(
    club: Club,
    player: Player,
    owed: int,
    pays: list[tuple[int, str, int]],
    link: str,
    saved: dict[int, Handles],
) -> str:
    money = club.currency
    lines = [
        _("Hello %(name)s,") % {"name": player.name},
        "",
        _("On the %(club)s tab you owe %(amount)s.")
        % {"club": club.name, "amount": format_money(owed, money)},
    ]
    if pays:
        lines.append(
            _("To clear it: %(transfers)s.")
            % {
                "transfers": "; ".join(
                    _("%(amount)s to %(name)s") % {"amount": format_money(a, money), "name": n}
                    for _pid, n, a in pays
                )
            }
        )
    hand_off = _pay_lines(club, pays, saved)
    if hand_off:
        lines += ["", *hand_off]
    lines += ["", _("Your tab: %(link)s") % {"link": link}]
    return "\n".join(lines)


class Command(BaseCommand):
    help = "E-mail tab reminders to members who owe (clubs that opted in); at most weekly."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--base-url", default="", help="the address links start with")
        parser.add_argument("--dry-run", action="store_true", help="say who, send nothing")

    def handle(self, *args: Any, base_url: str = "", dry_run: bool = False, **options: Any) -> None:
        base = (base_url or settings.SITE_URL or "http://localhost:8000").rstrip("/")
        now = timezone.now()
        sent = 0
        for rules in TabSettings.objects.filter(reminders=True).select_related("club"):
            club = rules.club
            if club.archived_at is not None:
                continue
            balances = tab_balances(club.pk)
            owing = [pid for pid, x in balances.items() if x < -rules.threshold]
            players = {
                p.pk: p
                for p in Player.objects.filter(pk__in=owing, user__isnull=False)
                .exclude(user__email="")
                .select_related("user")
            }
            if not players:
                continue
            names = dict(Player.objects.filter(club=club).values_list("pk", "name"))
            transfers = clearing_transfers(balances)
            # The payees' saved handles, for the "Pay … with …" lines (one query).
            saved = for_players(int(t.payee) for t in transfers if t.payer in players)
            recent = set(
                TabReminder.objects.filter(
                    player_id__in=list(players), sent_at__gt=now - WEEK
                ).values_list("player_id", flat=True)
            )
            for pid, player in players.items():
                since = owing_since(club.pk, pid, rules.threshold)
                if pid in recent or since is None or since > now - timedelta(days=rules.days):
                    continue
                assert player.user is not None  # filtered above
                language = (
                    LanguagePreference.objects.filter(user=player.user)
                    .values_list("language", flat=True)
                    .first()
                ) or settings.LANGUAGE_CODE
                link = base + reverse("tab_player", args=[club.pk, pid])
                pays = [
                    (int(t.payee), names[int(t.payee)], t.amount)
                    for t in transfers
                    if t.payer == pid
                ]
                with translation.override(language):
                    subject = _("Your tab at %(club)s: you owe %(amount)s") % {
                        "club": club.name,
                        "amount": format_money(-balances[pid], club.currency),
                    }
                    body = _body(club, player, -balances[pid], pays, link, saved)
                self.stdout.write(f"{club.name}: {player.name} owes {-balances[pid]}")
                if dry_run:
                    continue
                send_mail(subject, body, None, [player.user.email])
                TabReminder.objects.create(player=player, amount=-balances[pid], sent_at=now)
                sent += 1
        self.stdout.write(f"{sent} reminder(s) sent.")
