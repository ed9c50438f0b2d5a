"""``manage.py send_tab_reminders`` (issue #34): opt-in per club; members who owe more
than the threshold for more than the days; at most weekly; the amount, whom to pay and a
link to their tab; in the member's language."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.utils import timezone

from games.management.commands.send_tab_reminders import stretch_start
from games.models import LanguagePreference
from ledger import postings
from ledger.models import Posting, TabReminder, TabSettings
from tests.ledger.conftest import record

pytestmark = pytest.mark.django_db

EVENING = (
    {"ann": 5, "ben": 0, "cal": 0, "dee": 0},
    {"ann": 0, "ben": 3, "cal": 2, "dee": 0},
    {"ann": 3, "ben": 1, "cal": 1, "dee": 0},
)  # dee owes ann 17 and ben 1; cal owes ben 6


@pytest.fixture
def owing(club, players, alice, carol):
    carol.email = "carol@example.com"
    carol.save()
    dee = players[3]
    dee.user = carol
    dee.save()
    session = postings.start_session(
        club=club,
        name="Thursday",
        players=players,
        dealer=players[-1],
        rules={},
        currency=club.currency,
        user=alice,
    )
    for hand in EVENING:
        record(session, tricks=hand, trump="H")
    postings.close_session(session_id=session.pk, user=alice, leftover_policy="share_equally")
    postings.put_on_tab(session_id=session.pk, user=alice)
    postings.check_invariants(session)
    return session


def _run_at(monkeypatch, moment):
    """Run the command as if at ``moment`` (what it reads as now; the ledger's own
    timestamps are real)."""
    monkeypatch.setattr(timezone, "now", lambda: moment)
    call_command("send_tab_reminders", base_url="https://bourre.example.org")
    monkeypatch.undo()


def test_no_reminder_unless_the_club_opted_in(owing, monkeypatch):
    _run_at(monkeypatch, Posting.objects.last().created_at + timedelta(days=30))
    assert mail.outbox == []


def test_a_member_who_owes_long_enough_is_reminded_once_a_week(owing, club, players, monkeypatch):
    TabSettings.objects.create(club=club, reminders=True, threshold=10, days=14)
    start = Posting.objects.last().created_at
    _run_at(monkeypatch, start + timedelta(days=13))
    assert mail.outbox == []  # not yet 14 days
    _run_at(monkeypatch, start + timedelta(days=15))
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["carol@example.com"]
    assert "you owe $18" in message.subject
    assert "$17 to ann; $1 to ben" in message.body
    assert (
        f"https://bourre.example.org/clubs/{club.pk}/tab/players/{players[3].pk}/" in message.body
    )
    assert TabReminder.objects.get().amount == 18
    _run_at(monkeypatch, start + timedelta(days=20))
    assert len(mail.outbox) == 1  # a week has not passed
    _run_at(monkeypatch, start + timedelta(days=23))
    assert len(mail.outbox) == 2


def test_below_the_threshold_no_reminder(owing, club, monkeypatch):
    TabSettings.objects.create(club=club, reminders=True, threshold=18, days=1)
    start = Posting.objects.last().created_at
    _run_at(monkeypatch, start + timedelta(days=5))
    assert mail.outbox == []  # owes exactly 18: not more than the threshold


def test_the_stretch_of_owing_restarts_after_paying_down():
    day = timezone.now()
    lines = [
        (day, -18),  # owes 18: over 10 from day 0
        (day + timedelta(days=10), 10),  # pays 10: owes 8, under the threshold
        (day + timedelta(days=12), -10),  # reversed: over again from day 12
        (day + timedelta(days=13), 2),  # owes 16: still over, the stretch goes on
    ]
    assert stretch_start(lines, threshold=10) == day + timedelta(days=12)
    assert stretch_start(lines[:2], threshold=10) is None
    assert stretch_start(lines[:1], threshold=18) is None  # not more than 18


def test_the_reminder_speaks_the_members_language(owing, club, carol, monkeypatch):
    LanguagePreference.objects.create(user=carol, language="es")
    TabSettings.objects.create(club=club, reminders=True, threshold=0, days=1)
    _run_at(monkeypatch, Posting.objects.last().created_at + timedelta(days=2))
    body = mail.outbox[0].body
    assert "dee" in body and "ann" in body
    assert "On the" not in body  # not the English sentence


def test_the_reminder_carries_the_payees_handles(owing, club, players, monkeypatch):
    """The e-mail names how to pay each payee: an app link with the amount, the free text
    as saved (issue #34 item 4); a payee who saved nothing gets no line."""
    from games.models import PaymentHandles

    PaymentHandles.objects.create(player=players[0], venmo="ann-smith", other="IBAN DE89 3704")
    TabSettings.objects.create(club=club, reminders=True, threshold=0, days=1)
    _run_at(monkeypatch, Posting.objects.last().created_at + timedelta(days=2))
    body = mail.outbox[0].body
    assert "Pay ann $17 with Venmo: https://venmo.com/u/ann-smith?txn=pay&amount=17&note=" in body
    assert "ann's payment details: IBAN DE89 3704" in body
    assert "Pay ben" not in body and "ben's payment details" not in body
