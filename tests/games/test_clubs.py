import re
from urllib.parse import quote

import pytest
from django.urls import reverse

from games.models import Club, Hand, Invite, Membership, Player, Role
from games.money import CURRENCIES

pytestmark = pytest.mark.django_db


def test_landing_for_anonymous(client):
    response = client.get(reverse("home"))
    assert response.status_code == 200
    assert b"Create an account" in response.content


def test_home_lists_my_clubs_only(alice_client, club, mallory):
    other = Club.objects.create(name="Elsewhere")
    Membership.objects.create(club=other, user=mallory, role=Role.OWNER)
    response = alice_client.get(reverse("home"))
    assert [m.club for m in response.context["memberships"]] == [club]


def test_create_club_makes_owner(mallory_client, mallory):
    response = mallory_client.post(reverse("club_create"), {"name": "New Table", "currency": "$"})
    club = Club.objects.get(name="New Table")
    assert response.status_code == 302 and response["Location"] == club.get_absolute_url()
    assert Membership.objects.get(club=club, user=mallory).role == Role.OWNER


def test_create_club_requires_name(mallory_client):
    response = mallory_client.post(reverse("club_create"), {"name": "", "currency": "$"})
    assert response.status_code == 422
    assert "name" in response.context["form"].errors
    assert not Club.objects.exists()


def test_create_club_requires_login(client):
    response = client.get(reverse("club_create"))
    assert response.status_code == 302


@pytest.mark.parametrize(
    "name",
    ["club_detail", "player_list", "member_list", "club_edit"],
)
def test_stranger_gets_404_on_club_urls(mallory_client, club, name):
    assert mallory_client.get(reverse(name, args=[club.pk])).status_code == 404


def test_stranger_gets_404_on_club_posts(mallory_client, club, players):
    assert (
        mallory_client.post(reverse("player_list", args=[club.pk]), {"name": "x"}).status_code
        == 404
    )
    assert (
        mallory_client.post(
            reverse("invite_create", args=[club.pk]), {"role": "member"}
        ).status_code
        == 404
    )
    membership = club.memberships.first()
    assert (
        mallory_client.post(
            reverse("member_role", args=[club.pk, membership.pk]), {"role": "owner"}
        ).status_code
        == 404
    )
    assert (
        mallory_client.post(reverse("member_remove", args=[club.pk, membership.pk])).status_code
        == 404
    )
    assert mallory_client.get(reverse("player_edit", args=[players[0].pk])).status_code == 404


def test_anonymous_is_sent_to_login(client, club):
    response = client.get(reverse("club_detail", args=[club.pk]))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_member_sees_club(carol_client, club, players):
    response = carol_client.get(reverse("club_detail", args=[club.pk]))
    assert response.status_code == 200
    assert list(response.context["players"]) == sorted(players, key=lambda p: p.name)
    assert response.context["can_score"] is False


def test_scorekeeper_adds_player(bob_client, club):
    response = bob_client.post(reverse("player_list", args=[club.pk]), {"name": "  Zed   Z "})
    assert response.status_code == 302
    assert Player.objects.filter(club=club, name="Zed Z").exists()


def test_add_player_htmx_returns_roster_partial(bob_client, club):
    response = bob_client.post(
        reverse("player_list", args=[club.pk]), {"name": "Zed"}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="roster">')
    assert "Zed" in body and "<html" not in body
    # The name field keeps the focus (the phone keyboard stays open), emptied.
    assert re.search(
        r'<input type="text" name="name"[^>]*value=""[^>]*autofocus data-keep-focus', body
    )
    assert "Start a session" not in body  # one player is not a table yet
    second = bob_client.post(
        reverse("player_list", args=[club.pk]), {"name": "Amy"}, headers={"HX-Request": "true"}
    ).content.decode()
    assert f'href="{reverse("session_new", args=[club.pk])}">Start a session</a>' in second


def test_the_roster_page_focuses_the_name_only_after_an_add(bob_client, club):
    page = bob_client.get(reverse("player_list", args=[club.pk])).content.decode()
    assert "autofocus" not in page
    added = bob_client.post(reverse("player_list", args=[club.pk]), {"name": "Zed"}, follow=True)
    assert "autofocus" in added.content.decode()


def test_duplicate_player_name_rejected_case_insensitively(bob_client, club, players):
    response = bob_client.post(
        reverse("player_list", args=[club.pk]), {"name": "ANN"}, headers={"HX-Request": "true"}
    )
    # 422, which htmx swaps in (base.html's htmx-config); a 400 only raised the banner.
    assert response.status_code == 422
    assert "already on the roster" in response.content.decode()
    assert Player.objects.filter(club=club).count() == 4


def test_member_cannot_add_player(carol_client, club):
    response = carol_client.post(reverse("player_list", args=[club.pk]), {"name": "Zed"})
    assert response.status_code == 403
    assert not Player.objects.filter(name="Zed").exists()


def test_player_link_to_member(bob_client, club, players, carol):
    carol_membership = club.memberships.get(user=carol)
    response = bob_client.post(
        reverse("player_edit", args=[players[2].pk]),
        {"p-name": "cal", "l-member": carol_membership.pk},
    )
    assert response.status_code == 302
    players[2].refresh_from_db()
    assert players[2].user == carol


def test_player_link_rejects_second_player_for_same_member(bob_client, club, players, carol):
    m = club.memberships.get(user=carol)
    bob_client.post(
        reverse("player_edit", args=[players[0].pk]), {"p-name": "ann", "l-member": m.pk}
    )
    response = bob_client.post(
        reverse("player_edit", args=[players[1].pk]), {"p-name": "ben", "l-member": m.pk}
    )
    assert response.status_code == 422
    assert "already linked" in response.content.decode()


def test_owner_creates_single_use_invite(alice_client, club, mallory_client, mallory):
    response = alice_client.post(
        reverse("invite_create", args=[club.pk]), {"role": Role.SCOREKEEPER}
    )
    assert response.status_code == 200
    link = response.context["link"]
    path = link.split("testserver", 1)[1]
    invite = Invite.objects.get()
    assert invite.token_hash not in link  # only the hash is stored, never the token
    assert mallory_client.get(path).status_code == 200
    assert mallory_client.post(path).status_code == 302
    assert Membership.objects.get(club=club, user=mallory).role == Role.SCOREKEEPER
    # Single use: a second person cannot use the same link.
    from django.test import Client

    from tests.factories import UserFactory

    eve = Client()
    eve.force_login(UserFactory(username="eve"))
    assert eve.post(path).status_code == 410
    assert not Membership.objects.filter(user__username="eve").exists()


def test_invite_unknown_token_404(mallory_client):
    assert mallory_client.get(reverse("invite_accept", args=["nope"])).status_code == 404


def test_invite_anonymous_is_offered_signup(client, club, alice):
    _, token = Invite.issue(club, Role.MEMBER, alice)
    response = client.get(reverse("invite_accept", args=[token]))
    assert response.status_code == 200
    assert b"Sign up" in response.content
    # Every sign-up and log-in link on the page keeps the invitation, the header's too.
    html = response.content.decode()
    keep = "?next=" + quote(reverse("invite_accept", args=[token]))
    for name in ("signup", "login"):
        links = re.findall(rf'href="{reverse(name)}[^"]*"', html)
        assert len(links) == 2 and all(keep in link for link in links), links


def test_non_owner_cannot_invite(bob_client, club):
    assert (
        bob_client.post(reverse("invite_create", args=[club.pk]), {"role": "member"}).status_code
        == 403
    )
    assert not Invite.objects.exists()


def test_owner_sets_role(alice_client, club, carol):
    m = club.memberships.get(user=carol)
    response = alice_client.post(
        reverse("member_role", args=[club.pk, m.pk]), {"role": Role.SCOREKEEPER}
    )
    assert response.status_code == 302
    m.refresh_from_db()
    assert m.role == Role.SCOREKEEPER


def test_last_owner_cannot_demote_self(alice_client, club, alice):
    m = club.memberships.get(user=alice)
    alice_client.post(reverse("member_role", args=[club.pk, m.pk]), {"role": Role.MEMBER})
    m.refresh_from_db()
    assert m.role == Role.OWNER


def test_scorekeeper_cannot_set_roles(bob_client, club, carol):
    m = club.memberships.get(user=carol)
    assert (
        bob_client.post(reverse("member_role", args=[club.pk, m.pk]), {"role": "owner"}).status_code
        == 403
    )
    m.refresh_from_db()
    assert m.role == Role.MEMBER


def test_owner_removes_member(alice_client, club, carol):
    m = club.memberships.get(user=carol)
    assert alice_client.post(reverse("member_remove", args=[club.pk, m.pk])).status_code == 302
    assert not Membership.objects.filter(pk=m.pk).exists()


def test_member_list_visible_to_member(carol_client, club):
    response = carol_client.get(reverse("member_list", args=[club.pk]))
    assert response.status_code == 200
    assert len(response.context["members"]) == 3
    assert response.context["invites"] == []


def test_club_edit_owner_only(alice_client, bob_client, club):
    assert bob_client.get(reverse("club_edit", args=[club.pk])).status_code == 403
    response = alice_client.post(
        reverse("club_edit", args=[club.pk]), {"name": "Renamed", "currency": "€"}
    )
    assert response.status_code == 302
    club.refresh_from_db()
    assert club.name == "Renamed" and club.currency == CURRENCIES["EUR"]
    assert club.currency.symbol == "€" and club.currency.exponent == 2


@pytest.mark.parametrize(
    "path",
    [
        "/clubs/99999999999999999999/",
        "/clubs/9223372036854775808/players/",
        "/sessions/99999999999999999999/",
        "/api/v1/sessions/99999999999999999999/",
    ],
)
def test_ids_past_64_bits_are_404_not_500(alice_client, club, path):
    assert alice_client.get(path).status_code == 404


def test_role_change_needs_its_own_tap(alice_client, club):
    """Choosing in the role list changes nothing by itself (no onchange submit): the
    owner confirms with the "Change role" button (and no inline script, for the CSP)."""
    html = alice_client.get(reverse("member_list", args=[club.pk])).content.decode()
    assert "onchange" not in html and "style=" not in html
    assert html.count(">Change role</button>") == 3  # alice, bob, carol


# -- a time zone per club (issue 14) --------------------------------------------------------


def test_club_form_asks_the_zone_starting_from_the_browser(mallory_client, mallory):
    page = mallory_client.get(reverse("club_create")).content.decode()
    assert 'name="time_zone"' in page and "data-browser-tz" in page
    assert '<option value="Europe/Paris">Europe / Paris</option>' in page
    response = mallory_client.post(
        reverse("club_create"),
        {"name": "Paris table", "currency": "€", "time_zone": "Europe/Paris"},
    )
    assert response.status_code == 302
    assert Club.objects.get(name="Paris table").time_zone == "Europe/Paris"


def test_times_are_shown_in_the_clubs_zone_with_the_zone(bob_client, club, players, bob):
    from datetime import UTC, datetime

    from ledger import postings

    club.time_zone = "Asia/Tokyo"
    club.save()
    session = postings.start_session(
        club=club,
        name="Late",
        players=players,
        dealer=players[0],
        rules={},
        currency=club.currency,
        user=bob,
    )
    hand, _ = postings.record_hand(
        session_id=session.pk,
        entry={"trump": "H", "tricks": {"ann": 5, "ben": 0}, "passed": ["cal", "dee"]},
        idempotency_key="tz",
        expected_version=None,
        user=bob,
    )
    Hand.objects.filter(pk=hand.pk).update(created_at=datetime(2026, 1, 2, 23, 30, tzinfo=UTC))
    html = bob_client.get(reverse("hand_detail", args=[hand.pk])).content.decode()
    assert "Jan 3, 08:30 JST" in html  # 23:30 UTC is 08:30 the next day in Tokyo
    csv = bob_client.get(reverse("ledger_csv", args=[session.pk])).getvalue().decode()
    assert "+09:00" in csv.splitlines()[1]  # ISO 8601 with the club's offset


def test_a_club_on_the_servers_zone_is_edited_with_that_zone_chosen(alice_client, club):
    """An empty zone (the server's) matched no option, so the phone showed the list's first
    zone and saving the settings untouched moved the club to Africa/Abidjan."""
    from django.conf import settings

    assert club.time_zone == ""
    page = alice_client.get(reverse("club_edit", args=[club.pk])).content.decode()
    chosen = re.findall(r'<option value="([^"]+)"[^>]*selected>', page)
    assert settings.TIME_ZONE in chosen
    assert "Africa/Abidjan" not in chosen


def test_refused_club_settings_answer_422_with_errors_and_what_was_typed(alice_client, club):
    """The club settings form answered 200 on errors, unlike the app's other forms."""
    url = reverse("club_edit", args=[club.pk])
    response = alice_client.post(url, {"name": "", "currency": "EUR", "time_zone": "Europe/Oslo"})
    assert response.status_code == 422
    assert "name" in response.context["form"].errors
    html = response.content.decode()
    assert 'id="id_name_errors"' in html
    assert '<option value="EUR" selected>' in html
    assert '<option value="Europe/Oslo" selected>' in html
    # The heading names the club as it is stored; nothing was saved.
    assert f"Edit {club.name}" in html
    club.refresh_from_db()
    assert club.time_zone != "Europe/Oslo" and club.currency.code != "EUR"


def test_refused_new_club_and_player_edit_answer_422(alice_client, bob_client, players):
    response = alice_client.post(reverse("club_create"), {"name": "", "currency": "$"})
    assert response.status_code == 422 and "name" in response.context["form"].errors
    assert not Club.objects.filter(name="").exists()
    response = bob_client.post(reverse("player_edit", args=[players[0].pk]), {"p-name": ""})
    assert response.status_code == 422 and "name" in response.context["form"].errors
