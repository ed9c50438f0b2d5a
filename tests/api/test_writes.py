"""Every write the web can do, through the API (issue 16), with the personas: strangers
404, members 403 on writes, and the ledger's invariants after every money operation."""

import pytest

from games.models import Club, Invite, Membership, Role
from ledger import postings
from ledger.models import Posting, SettlementMark
from ledger.tab import KITTY, session_tab, session_transfers, tab_balances

from .conftest import FIRST_HAND, SECOND_HAND, record


def _send(client, method, url, body=None):
    return getattr(client, method)(url, body or {}, content_type="application/json")


def test_creating_a_club_makes_me_its_owner(api_mallory, mallory):
    response = _send(api_mallory, "post", "/api/v1/clubs/", {"name": "Mallory's Den"})
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["role"], body["currency"]) == (
        "owner",
        {"code": "USD", "exponent": 2, "symbol": "$"},
    )
    assert Membership.objects.get(club_id=body["id"], user=mallory).role == Role.OWNER
    assert response["Location"].endswith(f"/api/v1/clubs/{body['id']}/")


@pytest.mark.parametrize(
    "given, currency",
    [
        ("EUR", {"code": "EUR", "exponent": 2, "symbol": "€"}),
        ("XXX", {"code": "XXX", "exponent": 0, "symbol": "chips"}),
        ("£", {"code": "GBP", "exponent": 2, "symbol": "£"}),  # an old symbol is still read
    ],
)
def test_a_club_is_created_in_a_currency_of_the_list(api_mallory, given, currency):
    response = _send(api_mallory, "post", "/api/v1/clubs/", {"name": "Den", "currency": given})
    assert response.status_code == 201, response.content
    assert response.json()["currency"] == currency
    assert Club.objects.get(pk=response.json()["id"]).currency.as_dict() == currency


def test_an_unknown_currency_is_refused_in_words(api_mallory):
    response = _send(api_mallory, "post", "/api/v1/clubs/", {"name": "Den", "currency": "BTC"})
    assert response.status_code == 400
    assert "Unknown currency 'BTC': use one of USD, EUR" in response.content.decode()
    assert not Club.objects.exists()


def test_a_club_with_games_keeps_its_minor_unit_through_the_api(api_alice, club, game):
    # The club counts whole units and has a session: cents would change every amount.
    url = f"/api/v1/clubs/{club.pk}/"
    response = _send(api_alice, "patch", url, {"currency": "USD"})
    assert response.status_code == 400
    assert "counted the same way only" in response.content.decode()


def test_only_the_owner_updates_the_club(api_alice, api_bob, api_mallory, club):
    url = f"/api/v1/clubs/{club.pk}/"
    assert _send(api_mallory, "patch", url, {"name": "Mine"}).status_code == 404
    assert _send(api_bob, "patch", url, {"name": "Mine"}).status_code == 403
    response = _send(api_alice, "patch", url, {"currency": "EUR"})
    assert response.status_code == 200, response.content
    assert Club.objects.get(pk=club.pk).currency.as_dict() == response.json()["currency"]
    assert response.json()["currency"] == {"code": "EUR", "exponent": 2, "symbol": "€"}


def test_members_roles_and_the_last_owner(api_alice, api_carol, club, carol, alice):
    members = api_carol.get(f"/api/v1/clubs/{club.pk}/members/").json()["results"]
    ids = {m["username"]: m["id"] for m in members}
    url = f"/api/v1/clubs/{club.pk}/members/{ids['carol']}/"
    assert _send(api_carol, "patch", url, {"role": "owner"}).status_code == 403
    assert _send(api_alice, "patch", url, {"role": "scorekeeper"}).json()["role"] == "scorekeeper"
    mine = f"/api/v1/clubs/{club.pk}/members/{ids['alice']}/"
    response = _send(api_alice, "patch", mine, {"role": "member"})
    assert response.status_code == 409
    assert response.json()["errors"][0]["code"] == "last_owner"
    assert api_alice.delete(url).status_code == 204
    assert not Membership.objects.filter(club=club, user=carol).exists()


def test_an_invitation_by_api_is_accepted_by_api(api_alice, api_mallory, club, mallory):
    created = _send(api_alice, "post", f"/api/v1/clubs/{club.pk}/invites/", {"role": "member"})
    assert created.status_code == 201
    token = created.json()["token"]
    assert created.json()["url"].startswith("http://testserver/invite/")
    joined = _send(api_mallory, "post", "/api/v1/invites/accept/", {"token": token})
    assert joined.status_code == 200
    assert joined.json()["role"] == "member"
    again = _send(api_mallory, "post", "/api/v1/invites/accept/", {"token": token})
    assert again.status_code == 409  # single use
    assert (
        _send(api_mallory, "post", "/api/v1/invites/accept/", {"token": "nope"}).status_code == 404
    )
    assert Invite.objects.get(club=club).used_by == mallory


def test_renaming_a_player(api_bob, api_carol, players):
    url = f"/api/v1/players/{players[0].pk}/"
    assert _send(api_carol, "patch", url, {"name": "Annie"}).status_code == 403
    assert _send(api_bob, "patch", url, {"name": " Annie  B "}).json()["name"] == "Annie B"


def test_changing_the_rules(api_bob, game):
    response = _send(api_bob, "put", f"/api/v1/sessions/{game.pk}/rules/", {"rules": {"ante": 2}})
    assert response.status_code == 200
    assert response.json()["rules"]["ante"] == 2
    bad = _send(api_bob, "put", f"/api/v1/sessions/{game.pk}/rules/", {"rules": {"ante": 0}})
    assert bad.status_code == 400
    assert bad.json()["errors"][0]["field"] == "rules.ante"


def test_seats_leave_and_come_back(api_bob, game, club):
    from tests.factories import PlayerFactory

    eve = PlayerFactory(club=club, name="eve")
    added = _send(api_bob, "post", f"/api/v1/sessions/{game.pk}/seats/", {"player": eve.pk})
    assert added.status_code == 201 and added.json()["position"] == 4
    url = f"/api/v1/sessions/{game.pk}/seats/{eve.pk}/"
    assert _send(api_bob, "patch", url, {"active": False}).json()["active"] is False
    assert _send(api_bob, "patch", url, {"active": True}).json()["active"] is True
    other = _send(api_bob, "post", f"/api/v1/sessions/{game.pk}/seats/", {"player": 999999})
    assert other.status_code == 400


def test_buy_in_and_cash_out_go_through_the_ledger(api_bob, game, players):
    ann = players[0]
    url = f"/api/v1/sessions/{game.pk}/"
    bought = _send(api_bob, "post", url + "buy-ins/", {"player": ann.pk, "amount": 500})
    assert bought.status_code == 201 and bought.json()["kind"] == "buy_in"
    postings.check_invariants(game)
    too_much = _send(api_bob, "post", url + "cash-outs/", {"player": ann.pk, "amount": 501})
    assert too_much.status_code == 400
    assert too_much.json()["errors"][0]["code"] == "not_enough_chips"
    cashed = _send(api_bob, "post", url + "cash-outs/", {"player": ann.pk, "amount": 200})
    assert cashed.status_code == 201
    postings.check_invariants(game)
    assert (
        _send(api_bob, "post", url + "buy-ins/", {"player": ann.pk, "amount": "5"}).status_code
        == 400
    )


def test_voiding_the_latest_hand_only(api_bob, api_carol, game, bob):
    first = record(game, FIRST_HAND, bob)
    second = record(game, SECOND_HAND, bob)
    assert _send(api_carol, "post", f"/api/v1/hands/{second.pk}/void/").status_code == 403
    refused = _send(api_bob, "post", f"/api/v1/hands/{first.pk}/void/")
    assert refused.status_code == 409
    assert refused.json()["errors"][0]["code"] == "not_latest"
    done = _send(api_bob, "post", f"/api/v1/hands/{second.pk}/void/", {"reason": "misdeal"})
    assert done.status_code == 200
    assert (done.json()["status"], done.json()["void_reason"]) == ("voided", "misdeal")
    postings.check_invariants(game)


def test_closing_with_a_leftover_policy(api_bob, game, bob):
    record(game, FIRST_HAND, bob)  # dee's bourré leaves 4 in the pot
    response = _send(
        api_bob, "post", f"/api/v1/sessions/{game.pk}/close/", {"leftover_policy": "share_equally"}
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["leftover_policy"], body["pot"]) == ("closed", "share_equally", 0)
    postings.check_invariants(game)
    late = _send(api_bob, "post", f"/api/v1/sessions/{game.pk}/hands/", SECOND_HAND)
    assert late.status_code == 409
    assert late.json()["type"] == "urn:bourre:problem:session-closed"


def test_closing_to_the_tab_puts_the_whole_settlement_on_it_once(api_bob, played, bob):
    """Issue #34 through the API: the close page's "Put it all on the club's tab" choice."""
    url = f"/api/v1/sessions/{played.pk}/close/"
    wrong = _send(api_bob, "post", url, {"settle": "later"})
    assert wrong.status_code == 400
    played.refresh_from_db()
    assert played.is_open  # a refused close closes nothing
    closed = _send(api_bob, "post", url, {"settle": "tab"})
    assert closed.status_code == 200 and closed.json()["status"] == "closed"
    played.refresh_from_db()
    owed = {
        (int(t.payer), int(t.payee)): t.amount
        for t in session_transfers(played)
        if KITTY not in (t.payer, t.payee)
    }
    assert owed and set(session_tab(played.pk)) == set(owed)
    balances = tab_balances(played.club_id)
    assert sum(balances.values()) == 0
    for (payer, payee), amount in owed.items():
        assert balances[payee] > 0 and balances[payer] < 0, amount
    postings.check_invariants(played)
    # a retry of the same close (its answer lost) writes nothing more
    before = Posting.objects.count()
    again = _send(api_bob, "post", url, {"settle": "tab"})
    assert again.status_code == 200 and Posting.objects.count() == before


def test_marking_a_transfer_paid(api_bob, played, bob):
    transfers = api_bob.get(f"/api/v1/sessions/{played.pk}/settlement/").json()["transfers"]
    t = next(t for t in transfers if t["payer"]["kind"] == t["payee"]["kind"] == "player")
    url = f"/api/v1/sessions/{played.pk}/settlement/marks/"
    body = {"payer": t["payer"]["id"], "payee": t["payee"]["id"], "paid": True}
    response = _send(api_bob, "post", url, body)
    assert response.status_code == 200
    marked = [x for x in response.json()["transfers"] if x["payer"] == t["payer"]]
    assert marked[0]["paid"] is True
    assert SettlementMark.objects.filter(session=played).count() == 1
    assert _send(api_bob, "post", url, {**body, "paid": False}).json()["transfers"]
    assert SettlementMark.objects.filter(session=played).count() == 0
    wrong = _send(api_bob, "post", url, {"payer": t["payee"]["id"], "payee": t["payer"]["id"]})
    assert wrong.status_code == 409


def test_a_mark_from_before_the_books_changed_is_listed_and_can_be_cleared(
    api_bob, api_carol, played, bob
):
    """As on the settlement page: a tick whose transfer the settlement no longer lists is
    shown apart (or somebody pays twice) and can only be cleared."""
    page = f"/api/v1/sessions/{played.pk}/settlement/"
    url = f"/api/v1/sessions/{played.pk}/settlement/marks/"
    first = api_bob.get(page).json()
    assert first["earlier_marks"] == []
    t = next(t for t in first["transfers"] if t["payer"]["kind"] == t["payee"]["kind"] == "player")
    payer, payee = t["payee"]["id"], t["payer"]["id"]  # the other way round: not listed now
    postings.mark_transfer_paid(
        session_id=played.pk, payer_id=payer, payee_id=payee, amount=150, paid=True, user=bob
    )
    body = api_bob.get(page).json()
    [earlier] = body["earlier_marks"]
    assert (earlier["payer"]["id"], earlier["payee"]["id"], earlier["amount"]) == (
        payer,
        payee,
        150,
    )
    assert earlier["payer"]["name"] == t["payee"]["name"] and earlier["paid_at"].endswith("Z")
    assert not any(x["paid"] for x in body["transfers"])
    again = _send(api_bob, "post", url, {"payer": payer, "payee": payee, "paid": True})
    assert again.status_code == 409
    assert [e["code"] for e in again.json()["errors"]] == ["no_such_transfer"]
    forbidden = _send(api_carol, "post", url, {"payer": payer, "payee": payee, "paid": False})
    assert forbidden.status_code == 403
    assert SettlementMark.objects.filter(session=played).count() == 1
    cleared = _send(api_bob, "post", url, {"payer": payer, "payee": payee, "paid": False})
    assert cleared.status_code == 200, cleared.content
    assert cleared.json()["earlier_marks"] == []
    assert not SettlementMark.objects.filter(session=played).exists()
    postings.check_invariants(played)


@pytest.mark.parametrize(
    "method, path, body",
    [
        ("put", "/api/v1/sessions/{s}/rules/", {"rules": {}}),
        ("post", "/api/v1/sessions/{s}/close/", {}),
        ("post", "/api/v1/sessions/{s}/buy-ins/", {"player": 1, "amount": 1}),
        ("post", "/api/v1/sessions/{s}/settlement/marks/", {"payer": 1, "payee": 2}),
        ("post", "/api/v1/hands/{h}/void/", {}),
    ],
)
def test_strangers_get_404_on_every_write(api_mallory, played, method, path, body):
    url = path.format(s=played.pk, h=played.hands.first().pk)
    assert _send(api_mallory, method, url, body).status_code == 404


def test_correcting_an_earlier_hand_resettles_the_later_ones(api_bob, api_carol, game, bob):
    first = record(game, FIRST_HAND, bob)
    record(game, SECOND_HAND, bob)
    url = f"/api/v1/hands/{first.pk}/correct/"
    # cal, not ann, took three tricks: cal wins the first pot.
    fixed = {"up_card": "QH", "passed": ["ben"], "tricks": {"ann": 2, "cal": 3, "dee": 0}}
    assert _send(api_carol, "post", url, fixed).status_code == 403
    preview = _send(api_bob, "post", url, {**fixed, "dry_run": True})
    assert preview.status_code == 200, preview.content
    assert preview.json()["applied"] is False
    assert preview.json()["changes"]["cal"] > 0 > preview.json()["changes"]["ann"]
    game.refresh_from_db()
    version = game.version
    done = _send(api_bob, "post", url, {**fixed, "reason": "miscounted"})
    assert done.status_code == 200
    body = done.json()
    assert body["applied"] is True and body["number"] == 1
    assert body["changes"] == preview.json()["changes"]
    game.refresh_from_db()
    assert game.version > version  # phones watching the table see the change
    postings.check_invariants(game)
    stale = _send(api_bob, "post", url, {**fixed, "session_version": version})
    assert stale.status_code == 409
    assert stale.json()["type"] == "urn:bourre:problem:stale-state"


def test_strangers_cannot_correct(api_mallory, played):
    url = f"/api/v1/hands/{played.hands.first().pk}/correct/"
    assert _send(api_mallory, "post", url, FIRST_HAND).status_code == 404


def test_a_player_is_archived_and_restored_by_api(api_bob, api_carol, game, players):
    ann, dee = players[0], players[3]
    url = f"/api/v1/players/{ann.pk}/"
    seated = _send(api_bob, "patch", url, {"archived": True})
    assert seated.status_code == 409  # ann holds a seat in the open session
    assert seated.json()["errors"][0]["code"] == "player_seated"

    postings.close_session(session_id=game.pk, user=game.created_by)
    postings.check_invariants(game)
    assert _send(api_carol, "patch", url, {"archived": True}).status_code == 403
    archived = _send(api_bob, "patch", url, {"archived": True, "name": "Annie"})
    assert archived.status_code == 200, archived.content
    assert (archived.json()["archived"], archived.json()["name"]) == (True, "Annie")
    listed = {
        p["name"]: p["archived"]
        for p in api_bob.get(f"/api/v1/clubs/{game.club_id}/players/").json()["results"]
    }
    assert listed["Annie"] is True and listed[dee.name] is False
    restored = _send(api_bob, "patch", url, {"archived": False})
    assert restored.json()["archived"] is False
    assert _send(api_bob, "patch", url, {}).status_code == 400  # nothing to change
