"""games 0005 fills in the running totals and account ids of sessions that existed before
it, from their legs (the ledger is only read)."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("games", "0004_tournaments"), ("ledger", "0003_settlement_mark")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_0005_fills_in_totals_and_account_ids_from_the_ledger():
    apps = _migrate(BEFORE)
    User = apps.get_model("auth", "User")
    Club = apps.get_model("games", "Club")
    Player = apps.get_model("games", "Player")
    GameSession = apps.get_model("games", "GameSession")
    Seat = apps.get_model("games", "Seat")
    Account = apps.get_model("ledger", "Account")
    Posting = apps.get_model("ledger", "Posting")
    Leg = apps.get_model("ledger", "Leg")

    user = User.objects.create(username="old")
    # In chips, so games 0015 (dollars to cents) leaves the amounts checked below alone.
    club = Club.objects.create(name="Old club", created_by=user, currency="chips")
    ann, ben = (Player.objects.create(club=club, name=n) for n in ("ann", "ben"))
    session = GameSession.objects.create(
        club=club, name="Old night", rules={}, carry=3, currency="chips"
    )
    for i, p in enumerate((ann, ben)):
        Seat.objects.create(session=session, player=p, position=i, secret=f"s{i}")
    pot = Account.objects.create(club=club, kind="pot", session=session)
    bank = Account.objects.create(club=club, kind="bank")
    acc = {p.pk: Account.objects.create(club=club, kind="player", player=p).pk for p in (ann, ben)}

    def post(kind, legs):
        posting = Posting.objects.create(club=club, session=session, kind=kind)
        Leg.objects.bulk_create(Leg(posting=posting, account_id=a, amount=x) for a, x in legs)

    post("buy_in", [(acc[ann.pk], 20), (bank.pk, -20)])
    post("ante", [(acc[ann.pk], -2), (acc[ben.pk], -2), (pot.pk, 4)])
    post("payout", [(pot.pk, -1), (acc[ben.pk], 1)])
    # Another session with no money at all.
    empty = GameSession.objects.create(club=club, name="Empty", rules={}, currency="chips")
    Seat.objects.create(session=empty, player=ann, position=0, secret="e0")
    Account.objects.create(club=club, kind="pot", session=empty)

    executor = MigrationExecutor(connection)
    apps = _migrate(executor.loader.graph.leaf_nodes())
    GameSession = apps.get_model("games", "GameSession")
    Seat = apps.get_model("games", "Seat")

    session = GameSession.objects.get(pk=session.pk)
    assert session.pot_account_id == pot.pk
    assert session.nets == {str(ann.pk): -2, str(ben.pk): -1}  # the buy-in is not a net
    assert session.stacks == {str(ann.pk): 18, str(ben.pk): -1}
    assert dict(Seat.objects.filter(session=session).values_list("player_id", "account_id")) == {
        ann.pk: acc[ann.pk],
        ben.pk: acc[ben.pk],
    }
    empty = GameSession.objects.get(pk=empty.pk)
    assert empty.nets == empty.stacks == {str(ann.pk): 0}
    assert empty.pot_account_id is not None
