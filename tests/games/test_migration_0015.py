"""games 0015 (real stakes, issue #14) turns whole dollars into cents, and back.

Real data is made by the real recording path (a cash session in dollars with a split pot
carried and a bourré, a buy-in, a paid settlement mark; a chip game; a tournament played to
its prizes), in round dollars. Migrating back to 0014 must give the old whole-unit books
(every dollar amount / 100, chips untouched, the currency a symbol again); migrating
forward from there — the previous state with real data in it — must give every amount
×100 of that state, the currency as code + exponent + symbol, stored API responses gone,
and books that pass every check. Runs on SQLite and on PostgreSQL (whose append-only
ledger triggers the migration lifts for its own transaction only).
"""

import random
import uuid

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games.models import Entry, GameSession, Hand, IdempotencyRecord, Tournament
from games.money import CHIPS, CURRENCIES
from ledger import postings
from ledger.models import Leg, PlayerTotals, PrizeLeg, SettlementMark
from tests.factories import ClubFactory, PlayerFactory, seeded
from tests.games.test_tournament_service import make_tournament, play_bot_hand

BEFORE = [("games", "0014_player_archived"), ("ledger", "0007_i20_player_totals")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def _leaf():
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()


def _record(session, user, **entry):
    entry.setdefault("trump", "H")
    postings.record_hand(
        session_id=session.pk, entry=entry, idempotency_key=uuid.uuid4().hex,
        expected_version=None, user=user,
    )  # fmt: skip
    session.refresh_from_db()
    postings.check_invariants(session)


def _snapshot(apps, sessions, t_id, club_id):
    GameSession = apps.get_model("games", "GameSession")  # noqa: N806
    Hand = apps.get_model("games", "Hand")  # noqa: N806
    Tournament = apps.get_model("games", "Tournament")  # noqa: N806
    Entry = apps.get_model("games", "Entry")  # noqa: N806
    Leg = apps.get_model("ledger", "Leg")  # noqa: N806
    PrizeLeg = apps.get_model("ledger", "PrizeLeg")  # noqa: N806
    Mark = apps.get_model("ledger", "SettlementMark")  # noqa: N806
    Totals = apps.get_model("ledger", "PlayerTotals")  # noqa: N806
    Event = apps.get_model("games", "SessionEvent")  # noqa: N806
    out = {}
    for name, pk in sessions.items():
        s = GameSession.objects.get(pk=pk)
        out[name] = {
            "carry": s.carry,
            "nets": s.nets,
            "stacks": s.stacks,
            "ante": s.rules.get("ante"),
            "legs": sorted(Leg.objects.filter(posting__session_id=pk).values_list("pk", "amount")),
            "payouts": [h.verdict["result"]["payouts"] for h in Hand.objects.filter(session_id=pk)],
            "record_carry": [h.record.get("carry") for h in Hand.objects.filter(session_id=pk)],
            "marks": sorted(Mark.objects.filter(session_id=pk).values_list("amount", flat=True)),
            "rules_changed": [
                e.data["changed"]
                for e in Event.objects.filter(session_id=pk, kind="rules_changed").order_by("pk")
            ],
            "hand_corrected": [
                e.data["changes"]
                for e in Event.objects.filter(session_id=pk, kind="hand_corrected").order_by("pk")
            ],
        }
    t = Tournament.objects.get(pk=t_id)
    out["tournament"] = {
        "money": (t.buy_in, t.fee, t.payout_unit),
        "antes": t.antes,
        "prizes": sorted(Entry.objects.filter(tournament_id=t_id).values_list("prize", flat=True)),
        "prize_legs": sorted(PrizeLeg.objects.filter(posting__tournament_id=t_id).values_list("pk", "amount")),
    }  # fmt: skip
    out["totals"] = sorted(
        Totals.objects.filter(club_id=club_id).values_list("player_id", "net", "biggest_pot")
    )
    out["chip_totals"] = sorted(
        Totals.objects.exclude(club_id=club_id).values_list("player_id", "net", "biggest_pot")
    )
    return out


def _scaled(snapshot, f):
    """The snapshot with every dollar amount divided by ``f`` (chips untouched)."""

    def d(x):
        return x // f

    cash = snapshot["cash"]
    t = snapshot["tournament"]
    return {
        **snapshot,
        "cash": {
            "carry": d(cash["carry"]),
            "nets": {k: d(v) for k, v in cash["nets"].items()},
            "stacks": {k: d(v) for k, v in cash["stacks"].items()},
            "ante": d(cash["ante"]),
            "legs": [(pk, d(x)) for pk, x in cash["legs"]],
            "payouts": [{k: d(v) for k, v in p.items()} for p in cash["payouts"]],
            "record_carry": [d(x) if x is not None else None for x in cash["record_carry"]],
            "marks": [d(x) for x in cash["marks"]],
            "rules_changed": [
                {
                    k: [d(x) if k in ("ante", "pot_limit") and x is not None else x for x in pair]
                    for k, pair in changed.items()
                }
                for changed in cash["rules_changed"]
            ],
            "hand_corrected": [{k: d(v) for k, v in c.items()} for c in cash["hand_corrected"]],
        },
        "tournament": {
            **t,
            "money": tuple(d(x) for x in t["money"]),
            "prizes": [d(x) for x in t["prizes"]],
            "prize_legs": [(pk, d(x)) for pk, x in t["prize_legs"]],
        },
        "totals": [(p, d(n), d(b)) for p, n, b in snapshot["totals"]],
    }


@pytest.mark.django_db(transaction=True)
def test_0015_turns_whole_dollars_into_cents_with_the_books_intact(club, alice, bob):
    club.currency = CURRENCIES["USD"]
    club.save()
    ann, ben, cal = (PlayerFactory(club=club, name=n) for n in ("ann", "ben", "cal"))
    # A cash evening in round dollars ($1 ante, $5 limit): a split pot carried (R34), then
    # a win with a bourré; a $20 buy-in; one transfer marked paid.
    cash = postings.start_session(
        club=club, name="Friday", players=[ann, ben, cal], dealer=ann,
        rules={"ante": 100, "pot_limit": 500}, currency=club.currency, user=bob,
    )  # fmt: skip
    _record(cash, bob, tricks={"ann": 2, "ben": 2, "cal": 1})
    assert cash.carry == 300  # the split pot carries
    _record(cash, bob, tricks={"ann": 3, "ben": 2, "cal": 0})
    postings.buy_in(session_id=cash.pk, player_id=ben.pk, amount=2000, user=bob)
    # Hand 2 corrected (cal took the trick ben had), then the ante raised to $2: events
    # whose amounts sit in a {player: change} map and an {"ante": [old, new]} pair.
    postings.correct_hand(
        session_id=cash.pk, number=2, entry={"trump": "H", "tricks": {"ann": 3, "ben": 1, "cal": 1}},
        user=bob, reason="miscounted",
    )  # fmt: skip
    postings.change_rules(session_id=cash.pk, rules={"ante": 200, "pot_limit": 500}, user=bob)
    cash.refresh_from_db()
    postings.check_invariants(cash)
    SettlementMark.objects.create(session=cash, payer=cal, payee=ann, amount=100)
    # A chip club's game keeps its amounts.
    chip_club = ClubFactory(name="Chip club", currency=CHIPS)
    zed, yan = (PlayerFactory(club=chip_club, name=n) for n in ("zed", "yan"))
    chips = postings.start_session(
        club=chip_club, name="Chips", players=[zed, yan], dealer=zed, rules={"ante": 3},
        currency=CHIPS, user=bob,
    )  # fmt: skip
    _record(chips, bob, tricks={"zed": 3, "yan": 2})
    # A tournament in dollars played to its prizes; its tables play for chips.
    t = make_tournament(
        club, alice, n=4, buy_in=1000, fee=100, starting_chips=10, antes=[1, 2],
        min_table=4, max_table=4, hands_per_round=2, final_hands=2, prefix="t",
    )  # fmt: skip
    from games.tournaments import service as svc

    svc.start(tournament_id=seeded(t.pk, "m"), user=alice)
    rng = random.Random(3)
    for _ in range(100):
        t.refresh_from_db()
        if t.status == Tournament.Status.FINISHED:
            break
        for x in t.tables.filter(status="playing").select_related("session"):
            play_bot_hand(x, rng, alice)
    assert t.status == Tournament.Status.FINISHED
    assert sum(Entry.objects.filter(tournament=t).values_list("prize", flat=True)) == 4000
    assert t.payout_unit == 100  # prizes in whole dollars

    sessions = {"cash": cash.pk, "chips": chips.pk}
    from django.apps import apps as current

    now = _snapshot(current, sessions, t.pk, club.pk)
    assert all(x % 100 == 0 for _, x in now["cash"]["legs"])  # round dollars throughout
    assert now["chip_totals"] and now["totals"]
    assert now["cash"]["rules_changed"] == [{"ante": [100, 200]}]
    assert any(now["cash"]["hand_corrected"][0].values())

    old_apps = _migrate(BEFORE)
    old = _snapshot(old_apps, sessions, t.pk, club.pk)
    assert old == _scaled(now, 100)
    OldClub = old_apps.get_model("games", "Club")  # noqa: N806
    OldSession = old_apps.get_model("games", "GameSession")  # noqa: N806
    assert OldClub.objects.get(pk=club.pk).currency == "$"
    assert OldSession.objects.get(pk=chips.pk).currency == "chips"
    # An API response stored for an idempotency key, in the old shape.
    old_apps.get_model("games", "IdempotencyRecord").objects.create(
        user_id=bob.pk, scope=f"{bob.pk}:-", key="k", fingerprint="f", status=201,
        body={"currency": "$", "carry": 3},
    )  # fmt: skip

    # Forward from the previous state, with its whole-dollar data.
    new_apps = _migrate(_leaf())
    assert _snapshot(new_apps, sessions, t.pk, club.pk) == now
    assert not IdempotencyRecord.objects.exists()  # purged, not converted

    cash = GameSession.objects.get(pk=cash.pk)
    assert cash.currency == CURRENCIES["USD"] and cash.carry % 100 == 0
    assert GameSession.objects.get(pk=chips.pk).currency == CHIPS
    assert Tournament.objects.get(pk=t.pk).currency == CURRENCIES["USD"]
    for session in GameSession.objects.all():
        postings.check_invariants(session)
    postings.check_prize_ledger(Tournament.objects.get(pk=t.pk))
    assert Leg.objects.exists() and PrizeLeg.objects.exists() and PlayerTotals.objects.exists()
    assert Hand.objects.filter(session=cash).count() == 2
    call_command("check_books")


@pytest.mark.django_db(transaction=True)
def test_0015_refuses_to_go_back_when_the_ledger_holds_cents(club, bob):
    # A quarter ante cannot be kept in whole dollars: rounding each leg towards zero would
    # leave postings that do not balance, so going back is refused and nothing changes.
    club.currency = CURRENCIES["USD"]
    club.save()
    ann, ben = (PlayerFactory(club=club, name=n) for n in ("ann", "ben"))
    session = postings.start_session(
        club=club, name="Quarters", players=[ann, ben], dealer=ann, rules={"ante": 25},
        currency=club.currency, user=bob,
    )  # fmt: skip
    _record(session, bob, tricks={"ann": 3, "ben": 2})
    legs = sorted(Leg.objects.values_list("pk", "amount"))
    assert any(x % 100 for _, x in legs)
    try:
        with pytest.raises(RuntimeError, match="not whole dollars"):
            _migrate(BEFORE)
    finally:
        # The later migrations went back before 0015 refused: forward again for the next test.
        _migrate(_leaf())
    assert sorted(Leg.objects.values_list("pk", "amount")) == legs
    postings.check_invariants(GameSession.objects.get(pk=session.pk))
