"""``manage.py check_books`` (issue 17, item 7): 0 when every book balances, 1 with the
session named when a running total or a posting drifted."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from games.models import GameSession, Tournament
from ledger.models import Leg

pytestmark = pytest.mark.django_db


def _run(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("check_books", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def demo():
    call_command("seed_demo", stdout=io.StringIO())
    return GameSession.objects.get(name="Demo night")


def test_balanced_books_pass(demo):
    out, err = _run()
    # The demo's evening and its freeze-out's tables are sessions; every one is checked.
    sessions, tournaments = GameSession.objects.count(), Tournament.objects.count()
    assert tournaments >= 1
    assert f"{sessions} sessions and {tournaments} tournaments checked: every book balances." in out
    assert err == ""


def test_json_lists_every_balance(demo):
    out, _ = _run("--json")
    data = json.loads(out)
    assert sum(data["accounts"].values()) == 0
    assert data["accounts"][str(demo.pot_account_id)] == demo.carry


def test_a_drifted_running_total_fails_and_names_the_session(demo):
    key = next(iter(demo.nets))
    demo.nets[key] += 1
    GameSession.objects.filter(pk=demo.pk).update(nets=demo.nets)
    with pytest.raises(CommandError) as failed:
        _run()
    assert failed.value.returncode == 1


@pytest.mark.django_db(transaction=False)
def test_an_unbalanced_posting_fails(demo, settings):
    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        pytest.skip("PostgreSQL's triggers refuse the unbalanced leg this test writes")
    leg = Leg.objects.filter(posting__session=demo).first()
    Leg.objects.create(posting=leg.posting, account=leg.account, amount=5)
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("check_books", stdout=io.StringIO(), stderr=err)
    assert f"session {demo.pk} (Demo night)" in err.getvalue()
