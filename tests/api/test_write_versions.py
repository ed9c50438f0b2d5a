"""Every write that changes a session answers the session's new version and its ETag
(issue 36): a client chains `If-Match` from any write's answer. A correction used to
answer the version it was checked against (3 while the session was at 4), so the next
write with that `If-Match` was a 409."""

import pytest

from games.models import GameSession
from ledger import postings

from .conftest import FIRST_HAND, SECOND_HAND, record

pytestmark = pytest.mark.django_db

# What fits after FIRST_HAND, SECOND_HAND (ben deals next): ann wins the pot.
THIRD_HAND = {"trump": "C", "tricks": {"ann": 3, "ben": 1, "cal": 1, "dee": 0}}


def _send(client, method, url, body=None, **headers):
    return getattr(client, method)(
        url, body or {}, content_type="application/json", headers=headers
    )


def _now(session) -> int:
    return GameSession.objects.values_list("version", flat=True).get(pk=session.pk)


def _answers_the_new_version(response, session, before: int, status: int = 200) -> int:
    assert response.status_code == status, response.content
    version = response.json()["version"]
    assert version == _now(session) > before
    assert response["ETag"] == f'"{version}"'
    return version


def test_seat_writes_answer_the_new_version(api_bob, game, club):
    from tests.factories import PlayerFactory

    eve = PlayerFactory(club=club, name="eve")
    before = _now(game)
    added = _send(api_bob, "post", f"/api/v1/sessions/{game.pk}/seats/", {"player": eve.pk})
    version = _answers_the_new_version(added, game, before, 201)
    assert added.json()["player"] == eve.pk
    url = f"/api/v1/sessions/{game.pk}/seats/{eve.pk}/"
    left = _send(api_bob, "patch", url, {"active": False})
    version = _answers_the_new_version(left, game, version)
    assert left.json()["active"] is False
    back = _send(api_bob, "patch", url, {"active": True})
    _answers_the_new_version(back, game, version)
    postings.check_invariants(game)


def test_bank_moves_answer_the_new_version(api_bob, game, players):
    ann = players[0]
    url = f"/api/v1/sessions/{game.pk}/"
    before = _now(game)
    bought = _send(api_bob, "post", url + "buy-ins/", {"player": ann.pk, "amount": 500})
    version = _answers_the_new_version(bought, game, before, 201)
    assert (bought.json()["kind"], bought.json()["amount"]) == ("buy_in", 500)
    postings.check_invariants(game)
    cashed = _send(api_bob, "post", url + "cash-outs/", {"player": ann.pk, "amount": 200})
    _answers_the_new_version(cashed, game, version, 201)
    postings.check_invariants(game)
    # A refusal changes nothing: the version stays.
    kept = _now(game)
    refused = _send(api_bob, "post", url + "cash-outs/", {"player": ann.pk, "amount": 10**6})
    assert refused.status_code == 400 and _now(game) == kept


def test_a_settlement_mark_answers_the_sessions_version(api_bob, played):
    """A mark is a note, not money: the session's version stays, and the answer says
    which it is, so the next write chains from it."""
    transfers = api_bob.get(f"/api/v1/sessions/{played.pk}/settlement/").json()["transfers"]
    t = next(t for t in transfers if t["payer"]["kind"] == t["payee"]["kind"] == "player")
    url = f"/api/v1/sessions/{played.pk}/settlement/marks/"
    body = {"payer": t["payer"]["id"], "payee": t["payee"]["id"], "paid": True}
    for paid in (True, False):
        marked = _send(api_bob, "post", url, {**body, "paid": paid})
        assert marked.status_code == 200, marked.content
        version = marked.json()["version"]
        assert version == _now(played) and marked["ETag"] == f'"{version}"'
    hands = f"/api/v1/sessions/{played.pk}/hands/"
    chained = _send(api_bob, "post", hands, THIRD_HAND, **{"If-Match": f'"{version}"'})
    assert chained.status_code == 201, chained.content
    postings.check_invariants(played)


def test_a_corrections_version_is_the_sessions_and_chains_into_the_next_write(api_bob, game, bob):
    """The answered version equals the session's afterwards, and a hand recorded with
    `If-Match` of that version is accepted (it was a 409)."""
    first = record(game, FIRST_HAND, bob)
    record(game, SECOND_HAND, bob)
    url = f"/api/v1/hands/{first.pk}/correct/"
    fixed = {"up_card": "QH", "passed": ["ben"], "tricks": {"ann": 2, "cal": 3, "dee": 0}}
    checked_at = _now(game)
    preview = _send(api_bob, "post", url, {**fixed, "dry_run": True})
    assert preview.status_code == 200
    # A dry run writes nothing: its version is the one it checked against, still current.
    assert preview.json()["version"] == checked_at == _now(game)
    assert preview["ETag"] == f'"{checked_at}"'
    done = _send(api_bob, "post", url, {**fixed, "session_version": checked_at})
    version = _answers_the_new_version(done, game, checked_at)
    assert done.json()["applied"] is True
    postings.check_invariants(game)
    hands = f"/api/v1/sessions/{game.pk}/hands/"
    chained = _send(api_bob, "post", hands, THIRD_HAND, **{"If-Match": f'"{version}"'})
    assert chained.status_code == 201, chained.content
    postings.check_invariants(game)
    stale = _send(api_bob, "post", hands, THIRD_HAND, **{"If-Match": f'"{version}"'})
    assert stale.status_code == 409  # the hand moved the version on
