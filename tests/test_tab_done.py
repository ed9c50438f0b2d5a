"""Issue #34's "done when", from the outside: three sessions in one club, two put on the
tab (one by the close form, one from its settlement page), the third settled tonight; a
partial and a full payment, one of them reversed. After every step ``check_invariants``
holds for every session; at the end the Tab page's balances are the ledger's (summed here
from the legs, not through ``ledger.tab``), its clearing transfers clear every balance in
the fewest transfers (checked against a search of our own), and the tab's CSV sums to
zero."""

from __future__ import annotations

import csv
import io
import itertools
import re

import pytest
from django.db.models import Sum
from django.urls import reverse

from games.models import GameSession
from ledger import postings
from ledger.models import Account, Leg, TabPayment
from ledger.tab import session_tab, session_transfers
from tests.api.conftest import token_client
from tests.ledger.conftest import record

pytestmark = pytest.mark.django_db

NIGHTS = [
    # (seated, hands): who plays and the tricks of each hand
    (
        ("ann", "ben", "cal", "dee"),
        (
            {"ann": 5, "ben": 0, "cal": 0, "dee": 0},
            {"ann": 0, "ben": 3, "cal": 2, "dee": 0},
            {"ann": 3, "ben": 1, "cal": 1, "dee": 0},
        ),
    ),
    (("ann", "ben", "cal"), ({"ann": 3, "ben": 2, "cal": 0}, {"ann": 0, "ben": 1, "cal": 4})),
    (("ann", "ben", "cal", "dee"), ({"ann": 0, "ben": 0, "cal": 0, "dee": 5},)),
]


def _check_all(club) -> None:
    for session in GameSession.objects.filter(club=club):
        postings.check_invariants(session)


def _ledger_tab(club) -> dict[int, int]:
    """Each player's tab summed straight from the legs."""
    rows = (
        Leg.objects.filter(account__club=club, account__kind=Account.Kind.TAB)
        .values("account__player_id")
        .annotate(s=Sum("amount"))
    )
    return {r["account__player_id"]: r["s"] for r in rows if r["s"]}


def _fewest(balances: list[int]) -> int:
    """n − (most zero-sum groups the balances split into), by brute force."""
    values = [b for b in balances if b]

    def most_groups(rest: tuple[int, ...]) -> int:
        if not rest:
            return 0
        first, others = rest[0], rest[1:]
        best = 0
        for size in range(len(others) + 1):
            for combo in itertools.combinations(range(len(others)), size):
                if first + sum(others[i] for i in combo) == 0:
                    left = tuple(o for i, o in enumerate(others) if i not in combo)
                    best = max(best, 1 + most_groups(left))
        return best

    return len(values) - most_groups(tuple(values))


def test_three_sessions_two_on_the_tab_payments_and_a_reversal(
    club, players, alice, bob, alice_client
):
    by_name = {p.name: p for p in players}
    sessions = []
    for i, (seated, hands) in enumerate(NIGHTS):
        session = postings.start_session(
            club=club,
            name=f"Night {i + 1}",
            players=[by_name[n] for n in seated],
            dealer=by_name[seated[-1]],
            rules={},
            currency=club.currency,
            user=alice,
        )
        for hand in hands:
            record(session, tricks=hand, trump="H")
        sessions.append(session)
    _check_all(club)

    # Night 1: closed straight onto the tab (the close form's choice).
    first, second, third = sessions
    alice_client.post(
        reverse("session_close", args=[first.pk]),
        {"leftover_policy": "share_equally", "settle": "tab"},
    )
    _check_all(club)
    # Night 2: closed tonight, then the whole settlement put on the tab from its page.
    alice_client.post(
        reverse("session_close", args=[second.pk]),
        {"leftover_policy": "share_equally", "settle": "tonight"},
    )
    _check_all(club)
    alice_client.post(reverse("settlement_tab", args=[second.pk]), {"action": "all"})
    _check_all(club)
    # Night 3: settled tonight, every transfer ticked paid; nothing of it on the tab.
    alice_client.post(
        reverse("session_close", args=[third.pk]),
        {"leftover_policy": "share_equally", "settle": "tonight"},
    )
    for t in session_transfers(GameSession.objects.get(pk=third.pk)):
        if "kitty" not in (t.payer, t.payee):
            alice_client.post(
                reverse("settlement_mark", args=[third.pk]),
                {"payer": t.payer, "payee": t.payee, "paid": "1"},
            )
    _check_all(club)
    assert not session_tab(third.pk)
    on_tab = _ledger_tab(club)
    assert on_tab and sum(on_tab.values()) == 0

    # A partial payment through the API (retried with the same key: recorded once) ...
    debtor = min(on_tab, key=on_tab.get)
    creditor = max(on_tab, key=on_tab.get)
    owed = -on_tab[debtor]
    api = token_client(bob)
    body = {"payer": debtor, "payee": creditor, "amount": owed // 2, "method": "venmo"}
    for _ in range(2):
        response = api.post(
            f"/api/v1/clubs/{club.pk}/tab/payments/",
            body,
            content_type="application/json",
            headers={"Idempotency-Key": "partial-1"},
        )
        assert response.status_code == 201
    _check_all(club)
    partial = TabPayment.objects.get()
    # ... and the rest in full from the Tab page.
    alice_client.post(
        reverse("tab_pay", args=[club.pk]),
        {"payer": debtor, "payee": creditor, "amount": str(owed - owed // 2), "method": "cash"},
    )
    _check_all(club)
    # The partial one was never received: reversed; the debt is back.
    alice_client.post(reverse("tab_payment_reverse", args=[club.pk, partial.pk]))
    _check_all(club)
    assert TabPayment.objects.count() == 2

    ledger = _ledger_tab(club)
    assert ledger[debtor] == on_tab[debtor] + (owed - owed // 2)
    page = alice_client.get(reverse("club_tab", args=[club.pk]))
    html = page.content.decode()
    shown = {
        int(pid): int(amount)
        for pid, amount in re.findall(r'data-player="(\d+)"\s+data-amount="(-?\d+)"', html)
    }
    assert shown == ledger  # the page's balances are the ledger's

    clearing = page.context["tab"].clearing
    left = dict(ledger)
    for t in clearing:
        assert t.amount > 0
        left[t.payer_id] += t.amount
        left[t.payee_id] -= t.amount
    assert set(left.values()) == {0}  # they clear every balance and sum to zero
    assert len(clearing) == _fewest(list(ledger.values()))  # and no fewer would do

    response = api.get(f"/api/v1/clubs/{club.pk}/tab/history/csv/")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert rows and sum(int(r["amount_minor"]) for r in rows) == 0
    by_player: dict[int, int] = {}
    for r in rows:
        by_player[int(r["player_id"])] = by_player.get(int(r["player_id"]), 0) + int(
            r["amount_minor"]
        )
    assert {k: v for k, v in by_player.items() if v} == ledger
