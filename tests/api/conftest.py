"""API fixtures: token-authenticated clients for the personas and a session with hands.

alice owns the club, bob keeps score, carol is a member, mallory is a stranger; each
`api_<name>` client sends `Authorization: Bearer <a fresh token of that user>`.
`api_revoked` carries bob's token after it was revoked.
"""

import itertools

import pytest
from django.test import Client
from django.utils import timezone

from games.models import ApiToken
from ledger import postings

# A summary record (HAND_RECORD.md's example) for ann, ben, cal, dee with dee dealing:
# ann wins the 4-chip pot, ben passed, dee is bourréd (pays 4, excused next hand).
FIRST_HAND = {"up_card": "QH", "passed": ["ben"], "tricks": {"ann": 3, "cal": 2, "dee": 0}}
# What fits the state after FIRST_HAND (ann deals, dee excused): dee wins 3 chips.
SECOND_HAND = {"trump": "S", "tricks": {"ann": 1, "ben": 1, "cal": 1, "dee": 2}}

_keys = itertools.count(1)


def token_client(user, enforce_csrf_checks: bool = False) -> Client:
    _, key = ApiToken.issue(user, "tests")
    return Client(
        headers={"Authorization": f"Bearer {key}"}, enforce_csrf_checks=enforce_csrf_checks
    )


@pytest.fixture
def api_anon() -> Client:
    return Client()


@pytest.fixture
def api_alice(alice, club) -> Client:
    return token_client(alice)


@pytest.fixture
def api_bob(bob, club) -> Client:
    return token_client(bob)


@pytest.fixture
def api_carol(carol, club) -> Client:
    return token_client(carol)


@pytest.fixture
def api_mallory(mallory) -> Client:
    return token_client(mallory)


@pytest.fixture
def api_revoked(bob, club) -> Client:
    token, key = ApiToken.issue(bob, "old laptop")
    token.revoked_at = timezone.now()
    token.save()
    return Client(headers={"Authorization": f"Bearer {key}"})


@pytest.fixture
def personas(api_anon, api_mallory, api_carol, api_bob, api_alice, api_revoked) -> dict:
    return {
        "anonymous": api_anon,
        "stranger": api_mallory,
        "member": api_carol,
        "scorekeeper": api_bob,
        "owner": api_alice,
        "revoked": api_revoked,
    }


@pytest.fixture
def game(club, players, alice):
    """An open session: ann, ben, cal, dee in that order, dee deals first, ante 1."""
    return postings.start_session(
        club=club,
        name="Thursday",
        players=players,
        dealer=players[-1],
        rules={},
        currency=club.currency,
        user=alice,
    )


def record(session, entry: dict, user=None):
    hand, _ = postings.record_hand(
        session_id=session.pk,
        entry=entry,
        idempotency_key=f"fixture-{next(_keys)}",
        expected_version=None,
        user=user,
    )
    session.refresh_from_db()
    return hand


@pytest.fixture
def played(game, bob):
    """`game` after two recorded hands (FIRST_HAND, SECOND_HAND)."""
    record(game, FIRST_HAND, bob)
    record(game, SECOND_HAND, bob)
    return game


@pytest.fixture
def other_club_game(mallory):
    """A session of a club only mallory belongs to."""
    from games.models import Role
    from tests.factories import ClubFactory, MembershipFactory, PlayerFactory

    club = ClubFactory(name="Mallory's")
    MembershipFactory(club=club, user=mallory, role=Role.OWNER)
    seated = [PlayerFactory(club=club, name=n) for n in ("xa", "xb", "xc")]
    session = postings.start_session(
        club=club,
        name="Elsewhere",
        players=seated,
        dealer=seated[0],
        rules={},
        currency=club.currency,
        user=mallory,
    )
    record(session, {"trump": "H", "tricks": {"xa": 3, "xb": 1, "xc": 1}}, mallory)
    return session
