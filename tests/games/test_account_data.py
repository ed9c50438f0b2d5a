"""The account a person controls (issue #33 item 6): "Download my data" and "Delete my
account", on the web (games.clubs.account_views) and in the services under them.

alice owns the Bayou Club (bob keeps score, carol is a member) and is "ann" on its
roster; two hands were played by ann, ben, cal and dee. mallory is a stranger."""

import io
import json

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from games.clubs import account_service
from games.clubs.anonymise import renamed
from games.models import (
    ApiToken,
    Club,
    GameSession,
    Hand,
    Membership,
    Player,
    Role,
    ShareLink,
    WebhookEndpoint,
)
from ledger import postings
from ledger.models import Leg, Posting
from tests.factories import PASSWORD, ClubFactory, MembershipFactory, PlayerFactory

pytestmark = pytest.mark.django_db

FIRST_HAND = {"up_card": "QH", "passed": ["ben"], "tricks": {"ann": 3, "cal": 2, "dee": 0}}
SECOND_HAND = {"trump": "S", "tricks": {"ann": 1, "ben": 1, "cal": 1, "dee": 2}}


def _record(session, entry, user, key):
    postings.record_hand(
        session_id=session.pk, entry=entry, idempotency_key=key, expected_version=None, user=user
    )


@pytest.fixture
def ann(players, alice):
    ann = players[0]
    ann.user = alice
    ann.save()
    return ann


@pytest.fixture
def game(club, players, alice, bob, ann):
    game = postings.start_session(
        club=club,
        name="Thursday",
        players=players,
        dealer=players[-1],
        rules={},
        currency=club.currency,
        user=alice,
    )
    _record(game, FIRST_HAND, bob, "one")
    _record(game, SECOND_HAND, alice, "two")
    game.refresh_from_db()
    return game


@pytest.fixture
def closed(game, alice):
    postings.close_session(session_id=game.pk, user=alice)
    game.refresh_from_db()
    return game


def _export(client) -> dict:
    response = client.get(reverse("account_data"))
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"].startswith("application/json")
    assert "attachment" in response["Content-Disposition"]
    return json.loads(b"".join(response.streaming_content))


def _balances(club) -> dict[int, int]:
    rows = Leg.objects.filter(account__club=club).values_list("account_id", "amount")
    out: dict[int, int] = {}
    for account, amount in rows:
        out[account] = out.get(account, 0) + amount
    return out


def _books_pass() -> None:
    out = io.StringIO()
    call_command("check_books", stdout=out)
    assert "every book balances" in out.getvalue()


def _hand_text(club) -> str:
    return json.dumps(
        list(
            Hand.objects.filter(session__club=club).values_list(
                "record", "verdict", "before", "corrections"
            )
        )
    )


def _delete(client, **fields):
    return client.post(reverse("account_delete"), {"password": PASSWORD, **fields})


# --- download my data -------------------------------------------------------------------


def test_the_export_holds_everything_about_the_account_and_no_secret(alice_client, alice, game):
    token, key = ApiToken.issue(alice, "club spreadsheet")
    hook = WebhookEndpoint.objects.create(club=game.club, url="https://example.com/bourre")
    data = _export(alice_client)

    assert data["format"] == "bourre-account-export" and data["version"] == 1
    assert data["profile"]["username"] == "alice"
    assert data["memberships"] == [
        {
            "club": {"id": game.club_id, "name": "Bayou Club"},
            "role": "owner",
            "since": data["memberships"][0]["since"],
        }
    ]
    [owned] = data["clubs_owned"]
    assert owned["webhooks"][0]["url"] == "https://example.com/bourre"
    assert owned["members"] == 3
    assert [t["name"] for t in data["api_tokens"]] == ["club spreadsheet"]
    assert data["api_tokens"][0]["status"] == "active"
    assert [p["name"] for p in data["players"]] == ["ann"]
    assert [(s["name"], s["seat"]["position"]) for s in data["sessions"]] == [("Thursday", 0)]
    assert [h["number"] for h in data["hands"]] == [1, 2]
    assert data["hands"][0]["record"]["players"] == ["ann", "ben", "cal", "dee"]
    ann_postings = Posting.objects.filter(legs__account__player__user=alice).distinct()
    assert sorted(p["id"] for p in data["postings"]) == sorted(
        ann_postings.values_list("id", flat=True)
    )
    assert data["postings"] and all(
        sum(leg["amount"] for leg in p["legs"]) == 0 for p in data["postings"]
    )

    text = json.dumps(data)
    for secret in (
        key,
        token.key_hash,
        token.hint,
        token.password_fingerprint,
        hook.secret,
        alice.password,
    ):
        assert secret not in text


def test_hands_the_player_sat_out_are_not_in_the_export(alice_client, club, players, alice, ann):
    others = postings.start_session(
        club=club,
        name="Without ann",
        players=players[1:],
        dealer=players[1],
        rules={},
        currency=club.currency,
        user=alice,
    )
    _record(others, {"trump": "H", "tricks": {"ben": 3, "cal": 1, "dee": 1}}, alice, "x")
    data = _export(alice_client)
    assert data["sessions"] == [] and data["hands"] == [] and data["postings"] == []
    assert [p["name"] for p in data["players"]] == ["ann"]


def test_a_stranger_s_export_holds_nothing_of_another_club(mallory_client, game):
    data = _export(mallory_client)
    assert data["profile"]["username"] == "mallory"
    text = json.dumps(data)
    assert "Bayou Club" not in text and "ann" not in text
    assert data["memberships"] == data["players"] == data["hands"] == data["postings"] == []


def test_the_account_pages_need_a_login_and_refuse_a_post_to_the_download(alice_client):
    for name in ("account", "account_data", "account_delete"):
        response = Client().get(reverse(name))
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert alice_client.post(reverse("account_data")).status_code == 405
    page = alice_client.get(reverse("account")).content.decode()
    assert reverse("account_data") in page and reverse("account_delete") in page
    # The user menu links the page.
    assert f'href="{reverse("account")}"' in alice_client.get(reverse("home")).content.decode()


# --- the confirmation page --------------------------------------------------------------


def test_the_delete_page_says_what_happens_and_names_open_sessions(alice_client, game, alice):
    ApiToken.issue(alice, "laptop")
    page = alice_client.get(reverse("account_delete")).content.decode()
    assert "You can no longer sign in as alice" in page
    assert "Your API tokens stop working." in page
    assert (
        f"“ann” in Bayou Club becomes “Former member {game.seats.get(position=0).player_id}”"
        in page
    )
    assert "Bayou Club: you are its only owner" in page
    assert "Open sessions:" in page and "Thursday" in page
    assert f'name="club_{game.club_id}" value="hand_over"' in page
    assert f'<option value="{Membership.objects.get(user__username="bob").pk}">bob</option>' in page
    assert reverse("api_club_export", args=[game.club_id]) in page


def test_a_club_someone_else_also_owns_is_simply_left(alice_client, alice, bob, club, ann):
    Membership.objects.filter(user=bob).update(role=Role.OWNER)
    page = alice_client.get(reverse("account_delete")).content.decode()
    assert "You leave Bayou Club." in page and "only owner" not in page
    assert _delete(alice_client).status_code == 200
    assert Club.objects.get(pk=club.pk).archived_at is None
    assert list(
        club.memberships.values_list("user__username", flat=True).order_by("user__username")
    ) == ["bob", "carol"]


def test_a_wrong_password_deletes_nothing(alice_client, alice, club):
    response = _delete(alice_client, password="wrong", **{f"club_{club.pk}": "delete"})
    assert response.status_code == 422
    assert "That is not your password." in response.content.decode()
    alice.refresh_from_db()
    assert alice.is_active and alice.username == "alice"
    assert Club.objects.get(pk=club.pk).archived_at is None


def test_a_hand_over_needs_someone_to_take_over(alice_client, alice, club):
    response = _delete(alice_client, **{f"club_{club.pk}": "hand_over"})
    assert response.status_code == 422
    assert "Choose who takes over Bayou Club." in response.content.decode()
    assert User.objects.get(pk=alice.pk).is_active


def test_a_club_with_an_open_session_cannot_be_deleted(alice_client, alice, game):
    response = _delete(alice_client, **{f"club_{game.club_id}": "delete"})
    assert response.status_code == 422
    assert (
        "Bayou Club has open sessions (“Thursday”): close them first, or hand the club over."
        in response.content.decode()
    )
    assert User.objects.get(pk=alice.pk).is_active
    assert Club.objects.get(pk=game.club_id).archived_at is None


def test_without_a_decision_for_a_sole_owned_club_nothing_happens(alice, club):
    with pytest.raises(account_service.AccountError) as refused:
        account_service.delete_account(alice, {})
    assert "Choose what happens to Bayou Club" in str(refused.value)
    assert User.objects.get(pk=alice.pk).is_active


# --- deleting, with the club handed over ------------------------------------------------


def test_deleting_with_the_club_handed_over(alice_client, alice, bob, game, password):
    club = game.club
    _, key = ApiToken.issue(alice, "laptop")
    elsewhere = Client()
    elsewhere.force_login(alice)
    balances, hands, posted = _balances(club), game.hands.count(), Posting.objects.count()
    bob_client = Client()
    bob_client.force_login(bob)
    board_before = bob_client.get(reverse("session_detail", args=[game.pk]))
    heir = Membership.objects.get(club=club, user=bob)

    response = _delete(alice_client, **{f"club_{club.pk}": "hand_over", f"heir_{club.pk}": heir.pk})

    assert response.status_code == 200
    assert "Bayou Club now belongs to bob." in response.content.decode()
    heir.refresh_from_db()
    assert heir.role == Role.OWNER
    # The account: scrubbed, no way in, no token, no session.
    alice.refresh_from_db()
    assert alice.username == f"former member {alice.pk}"
    assert (alice.email, alice.first_name, alice.last_name) == ("", "", "")
    assert not alice.is_active and not alice.has_usable_password()
    assert not Membership.objects.filter(user=alice).exists()
    assert not ApiToken.objects.filter(user=alice).exists()
    assert not Client().login(username="alice", password=password)
    login = Client().post(reverse("login"), {"username": "alice", "password": password})
    assert login.status_code == 422
    assert (
        Client(headers={"Authorization": f"Bearer {key}"}).get("/api/v1/clubs/").status_code == 401
    )
    for browser in (alice_client, elsewhere):
        assert browser.get(reverse("account")).status_code == 302
    # ann: renamed on the roster and in every hand; the books did not move.
    ann = Player.objects.get(
        club=club, name=f"Former member {game.seats.get(position=0).player_id}"
    )
    assert ann.user is None
    assert '"ann"' not in _hand_text(club)
    assert Hand.objects.get(session=game, number=1).record["players"][0] == ann.name
    assert _balances(club) == balances
    assert game.hands.count() == hands and Posting.objects.count() == posted
    postings.check_invariants(game)
    _books_pass()
    # bob sees the same session: the same numbers, ann's new name.
    board_after = bob_client.get(reverse("session_detail", args=[game.pk]))
    assert board_after.status_code == board_before.status_code == 200
    assert board_after.content.decode().count("Former member") >= 1


def test_whoever_corrected_a_hand_is_renamed_in_its_history(alice, bob, game):
    postings.correct_hand(
        session_id=game.pk,
        number=2,
        entry={"trump": "S", "tricks": {"ann": 2, "ben": 1, "cal": 1, "dee": 1}},
        user=alice,
        reason="miscounted",
    )
    assert Hand.objects.get(session=game, number=2).corrections[0]["by"] == "alice"
    heir = Membership.objects.get(club=game.club, user=bob)
    account_service.delete_account(
        alice, {game.club_id: account_service.Decision("hand_over", heir.pk)}
    )
    hand = Hand.objects.get(session=game, number=2)
    assert hand.corrections[0]["by"] == f"former member {alice.pk}"
    assert "ann" not in json.dumps(hand.corrections)
    postings.check_invariants(game)


# --- deleting, with the club deleted ----------------------------------------------------


def test_deleting_a_club_with_books_archives_it(alice_client, alice, bob, closed, players):
    club = closed.club
    WebhookEndpoint.objects.create(club=club, url="https://example.com/bourre")
    ShareLink.objects.create(session=closed, selector="s" * 12, verifier="v" * 24)
    seat_secrets = set(closed.seats.values_list("secret", flat=True))
    balances, posted = _balances(club), Posting.objects.count()
    page = alice_client.get(reverse("account_delete")).content.decode()
    assert "Its books cannot be erased" in page and "Download its books first" in page

    response = _delete(alice_client, **{f"club_{club.pk}": "delete"})

    assert response.status_code == 200
    assert "Bayou Club is closed" in response.content.decode()
    club.refresh_from_db()
    assert club.archived_at is not None and club.name == f"Deleted club {club.pk}"
    assert club.created_by is None and not club.memberships.exists()
    assert not WebhookEndpoint.objects.filter(club=club).exists()
    assert not ShareLink.objects.filter(session__club=club).exists()
    assert not seat_secrets & set(closed.seats.values_list("secret", flat=True))
    assert sorted(Player.objects.filter(club=club).values_list("name", flat=True)) == sorted(
        f"Player {p.pk}" for p in players
    )
    text = _hand_text(club)
    assert not any(f'"{name}"' in text for name in ("ann", "ben", "cal", "dee"))
    # The books: every row kept, every balance the same, still provable.
    assert _balances(club) == balances and Posting.objects.count() == posted
    postings.check_invariants(closed)
    _books_pass()
    # Nobody can open it any more.
    bob_client = Client()
    bob_client.force_login(bob)
    assert bob_client.get(reverse("club_detail", args=[club.pk])).status_code == 404
    assert bob_client.get(reverse("session_detail", args=[closed.pk])).status_code == 404


def test_deleting_a_club_without_books_erases_it(alice_client, alice, club):
    empty = ClubFactory(name="Empty", created_by=alice)
    MembershipFactory(club=empty, user=alice, role=Role.OWNER)
    seated = [PlayerFactory(club=empty, name=n) for n in ("xa", "xb")]
    session = postings.start_session(
        club=empty,
        name="Never played",
        players=seated,
        dealer=seated[0],
        rules={},
        currency=empty.currency,
        user=alice,
    )
    postings.close_session(session_id=session.pk, user=alice)
    assert not account_service.has_books(empty)
    heir = Membership.objects.get(club=club, user__username="bob")

    response = _delete(
        alice_client,
        **{
            f"club_{empty.pk}": "delete",
            f"club_{club.pk}": "hand_over",
            f"heir_{club.pk}": heir.pk,
        },
    )

    assert response.status_code == 200
    assert "Empty is erased." in response.content.decode()
    assert not Club.objects.filter(pk=empty.pk).exists()
    assert not GameSession.objects.filter(pk=session.pk).exists()
    assert not Player.objects.filter(pk__in=[p.pk for p in seated]).exists()
    _books_pass()


def test_a_second_post_after_the_deletion_changes_nothing(alice_client, alice, club):
    heir = Membership.objects.get(club=club, user__username="bob")
    fields = {f"club_{club.pk}": "hand_over", f"heir_{club.pk}": heir.pk}
    assert _delete(alice_client, **fields).status_code == 200
    again = _delete(alice_client, **fields)
    assert again.status_code == 302 and "/accounts/login/" in again["Location"]
    with pytest.raises(account_service.AccountError):
        account_service.delete_account(User.objects.get(pk=alice.pk), {})


def test_a_forged_post_without_the_csrf_token_deletes_nothing(alice, club):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    assert _delete(browser, **{f"club_{club.pk}": "delete"}).status_code == 403
    assert User.objects.get(pk=alice.pk).is_active


def test_a_member_deleting_their_account_leaves_the_club_as_it_was(carol_client, carol, club, game):
    balances = _balances(club)
    assert _delete(carol_client).status_code == 200
    assert not Membership.objects.filter(user=carol).exists()
    assert Club.objects.get(pk=club.pk).archived_at is None
    assert club.memberships.count() == 2 and _balances(club) == balances
    postings.check_invariants(game)


# --- the renamer ------------------------------------------------------------------------


def test_names_are_renamed_only_where_the_record_puts_a_name():
    record = {
        "players": ["S", "win", "ben"],
        "dealer": "S",
        "trump": "S",
        "passed": ["win"],
        "plays": [["S", "AS"], ["ben", "KS"]],
        "tricks": {"S": 3, "ben": 2},
        "reneges": [{"player": "S", "rule": "R19", "card": "S"}],
    }
    verdict = {"result": {"outcome": "win", "winner": "S", "antes": {"S": 1, "win": 1}}}
    names = {"S": "Former member 1", "win": "Former member 2"}
    assert renamed(record, names) == {
        "players": ["Former member 1", "Former member 2", "ben"],
        "dealer": "Former member 1",
        "trump": "S",
        "passed": ["Former member 2"],
        "plays": [["Former member 1", "AS"], ["ben", "KS"]],
        "tricks": {"Former member 1": 3, "ben": 2},
        "reneges": [{"player": "Former member 1", "rule": "R19", "card": "S"}],
    }
    assert renamed(verdict, names) == {
        "result": {
            "outcome": "win",
            "winner": "Former member 1",
            "antes": {"Former member 1": 1, "Former member 2": 1},
        }
    }


def test_the_pages_speak_the_readers_language_and_the_new_names_the_servers(
    alice_client, alice, bob, game, settings
):
    page = alice_client.get(reverse("account_delete"), HTTP_ACCEPT_LANGUAGE="fi")
    assert "Poista tilini" in page.content.decode()
    assert "Avoimet istunnot:" in page.content.decode()
    settings.LANGUAGE_CODE = "es"
    heir = Membership.objects.get(club=game.club, user=bob)
    account_service.delete_account(
        alice, {game.club_id: account_service.Decision("hand_over", heir.pk)}
    )
    ann = game.seats.get(position=0).player
    ann.refresh_from_db()
    assert ann.name == f"Exmiembro {ann.pk}"
    postings.check_invariants(game)


def test_archiving_a_club_keeps_its_prize_ledger_provable(alice, club):
    from ledger.models import PrizePosting

    from .test_tournament_service import make_tournament

    t = make_tournament(club, alice, n=4, buy_in=500, fee=50, starting_chips=20, antes=[1])
    linked = Player.objects.get(club=club, name="p001")
    linked.user = alice
    linked.save()
    prize_rows = list(PrizePosting.objects.filter(tournament=t).values_list("id", "memo"))
    assert prize_rows

    done = account_service.delete_account(alice, {club.pk: account_service.Decision("delete")})

    assert done.archived == ["Bayou Club"]
    assert Club.objects.get(pk=club.pk).archived_at is not None
    assert Player.objects.get(pk=linked.pk).name == f"Player {linked.pk}"
    # The prize ledger keeps every row; its memos name the archived players' new names
    # (issue #33), each still the English of its kind and parameters (check_prize_ledger).
    after = list(PrizePosting.objects.filter(tournament=t).values_list("id", "memo"))
    assert [pk for pk, _ in after] == [pk for pk, _ in prize_rows]
    assert not any("p00" in memo for _, memo in after)
    assert any(memo.startswith(f"Player {linked.pk}: buy-in") for _, memo in after)
    postings.check_prize_ledger(t)
    _books_pass()


def test_the_exports_queries_do_not_grow_with_the_history(alice_client, alice, game, bob):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            _export(alice_client)
        return len(captured)

    before = queries()
    for i in range(4):
        game.refresh_from_db()
        _record(
            game,
            {"trump": "C", "tricks": {"ann": 3, "ben": 1, "cal": 1, "dee": 0}},
            bob,
            f"more-{i}",
        )
    assert len(_export(alice_client)["hands"]) == 6
    assert queries() == before, before


def test_an_account_without_a_password_confirms_with_its_username(carol):
    carol.set_unusable_password()
    carol.save()
    browser = Client()
    browser.force_login(carol)
    page = browser.get(reverse("account_delete")).content.decode()
    assert 'name="username"' in page and 'name="password"' not in page
    wrong = browser.post(reverse("account_delete"), {"username": "Carol"})
    assert wrong.status_code == 422
    assert "Type your username exactly as it is." in wrong.content.decode()
    assert browser.post(reverse("account_delete"), {"username": "carol"}).status_code == 200
    assert not User.objects.get(pk=carol.pk).is_active


def test_a_member_removed_from_a_club_no_longer_exports_its_books(bob_client, bob, players, game):
    from games.clubs.service import remove_member

    players[1].user = bob
    players[1].save()
    before = _export(bob_client)
    assert before["hands"] and before["postings"]
    remove_member(Membership.objects.get(club=game.club, user=bob))
    after = _export(bob_client)
    assert after["memberships"] == [] and after["hands"] == [] and after["postings"] == []
    postings.check_invariants(game)


def test_the_export_holds_the_persons_payment_handles(alice_client, alice, game, ann, players):
    """Where the person is paid (issue #34) is their data: the account's own handles, and
    what the club saved for their roster entry before it was linked. Nobody else's."""
    from games.models import PaymentHandles

    assert _export(alice_client)["payment_handles"] is None
    PaymentHandles.objects.create(user=alice, venmo="alice-b", other="IBAN DE89 3704")
    PaymentHandles.objects.create(player=ann, paypal="AnnTyped")
    PaymentHandles.objects.create(player=players[1], venmo="ben-b")  # ben's, not alice's
    data = _export(alice_client)
    own = data["payment_handles"]
    assert (own["venmo"], own["other"], own["paypal"]) == ("alice-b", "IBAN DE89 3704", "")
    assert own["updated_at"].endswith("Z")
    [player] = data["players"]
    assert player["payment_handles"]["paypal"] == "AnnTyped"
    assert "ben-b" not in json.dumps(data)


def test_the_prize_ledger_forgets_a_deleted_members_name(alice_client, alice, bob, club):
    """Issue #33: a tournament's prize memos named the entrant ("p001: buy-in $5 + fee
    $0.50"). Deleting the account (the club handed over) renames p001 there too; only memo
    and memo_params change, the prize ledger still balances and every memo is still its
    kind's sentence."""
    from ledger.models import PrizeLeg, PrizePosting

    from .test_tournament_service import make_tournament

    t = make_tournament(club, alice, n=4, buy_in=500, fee=50, starting_chips=20, antes=[1])
    linked = Player.objects.get(club=club, name="p001")
    linked.user = alice
    linked.save()
    assert PrizePosting.objects.filter(tournament=t, memo__startswith="p001:").exists()
    legs = sorted(PrizeLeg.objects.filter(posting__tournament=t).values_list("pk", "amount"))
    heir = Membership.objects.get(club=club, user=bob)

    _delete(alice_client, **{f"club_{club.pk}": "hand_over", f"heir_{club.pk}": heir.pk})

    linked.refresh_from_db()
    assert linked.name == f"Former member {linked.pk}"
    memos = list(PrizePosting.objects.filter(tournament=t).values_list("memo", "memo_params"))
    assert not any("p001" in memo or "p001" in json.dumps(params) for memo, params in memos)
    assert any(memo.startswith(f"Former member {linked.pk}: buy-in") for memo, _ in memos)
    # The other entrants' memos and every leg are as they were.
    assert {memo.split(":")[0] for memo, _ in memos} >= {"p002", "p003", "p004"}
    assert (
        sorted(PrizeLeg.objects.filter(posting__tournament=t).values_list("pk", "amount")) == legs
    )
    postings.check_prize_ledger(t)
    _books_pass()


def test_renamed_prize_memo_params_replace_names_only_where_a_name_stands():
    from ledger.memos import MemoKind, renamed_params

    names = {"ann": "Former member 7"}
    deal = {"deal": "even", "agreed": "ben, ann, annie", "name": "ann", "amount": 500}
    assert renamed_params(MemoKind.DEAL, deal, names) == {
        **deal,
        "agreed": "ben, Former member 7, annie",
        "name": "Former member 7",
    }
    # The posting's own player wins over the name map (renamed since the tournament).
    fee = {"name": "annette", "fee": 100}
    assert renamed_params(MemoKind.FEE, fee, names, "Former member 7")["name"] == (
        "Former member 7"
    )
    assert renamed_params(MemoKind.TEXT, {"text": "ann"}, names) == {"text": "ann"}


def test_the_only_member_who_could_take_over_is_chosen_already(alice_client, club, bob, carol):
    """A new user's finding (issue #33): with one candidate the "New owner" select began
    at "—". One candidate: chosen; several: the person still picks."""
    heirs_field = f"heir_{club.pk}"

    def select() -> str:
        page = alice_client.get(reverse("account_delete")).content.decode()
        start = page.index(f'name="{heirs_field}"')
        return page[start : page.index("</select>", start)]

    several = select()
    assert '<option value="" selected>—</option>' in several
    assert "bob" in several and "carol" in several
    Membership.objects.filter(club=club, user=carol).delete()
    one = select()
    bob_pk = Membership.objects.get(club=club, user=bob).pk
    assert f'<option value="{bob_pk}" selected>bob</option>' in one and "—" not in one
