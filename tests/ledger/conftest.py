"""Helpers for the ledger tests: start a session, record hands, read the books.

Every helper that writes checks `postings.check_invariants` afterwards, so each test
checks the books after every operation without saying so.
"""

import itertools

import pytest

from games.models import Hand
from ledger import postings
from ledger.models import Leg, Posting

_keys = itertools.count(1)


def new_key() -> str:
    return f"key-{next(_keys)}"


def record(session, user=None, expected_version=None, key=None, **entry) -> Hand:
    """Record a hand (a summary record unless `plays` is given); check the books."""
    if "up_card" not in entry:
        entry.setdefault("trump", "H")
    hand, created = postings.record_hand(
        session_id=session.pk,
        entry=entry,
        idempotency_key=key or new_key(),
        expected_version=expected_version,
        user=user,
    )
    assert created
    postings.check_invariants(session)
    session.refresh_from_db()
    return hand


def void(session, hand, user=None, **kwargs) -> Hand:
    hand = postings.void_hand(session_id=session.pk, hand_id=hand.pk, user=user, **kwargs)
    postings.check_invariants(session)
    session.refresh_from_db()
    return hand


def nets(session) -> dict[str, int]:
    """name → net won or lost in this session (what settlement uses)."""
    balances = postings.session_balances(session)
    return {s.player.name: balances[s.player_id] for s in session.seats.select_related("player")}


def stacks(session) -> dict[str, int]:
    balances = postings.player_stacks(session)
    return {s.player.name: balances[s.player_id] for s in session.seats.select_related("player")}


def legs_of(posting: Posting) -> dict[str, int]:
    """A posting's legs by account label: player names, "pot", "bank", "carry"."""
    out = {}
    for leg in posting.legs.select_related("account__player"):
        account = leg.account
        label = account.player.name if account.player_id else account.kind
        out[label] = out.get(label, 0) + leg.amount
    return out


def hand_postings(hand: Hand) -> dict[str, dict[str, int]]:
    """kind → legs, for the hand's postings."""
    return {p.kind: legs_of(p) for p in hand.postings.order_by("id")}


def ledger_size() -> tuple[int, int]:
    return Posting.objects.count(), Leg.objects.count()


@pytest.fixture
def start(club, players, alice):
    """start(rules=..., seated=..., dealer=..., **kwargs) → an open session."""

    def _start(rules=None, seated=None, dealer=None, **kwargs):
        seated = seated if seated is not None else players
        session = postings.start_session(
            club=kwargs.pop("club", club),
            name=kwargs.pop("name", "Thursday"),
            players=seated,
            dealer=dealer or seated[-1],
            rules=rules or {},
            currency=club.currency,
            user=alice,
            **kwargs,
        )
        postings.check_invariants(session)
        return session

    return _start


@pytest.fixture
def eve(club):
    from tests.factories import PlayerFactory

    return PlayerFactory(club=club, name="eve")


def playout(state: dict, rng, pass_rate: float = 0.25) -> dict:
    """Deal and play a digital hand from a session_state with random legal moves; return
    its HAND_RECORD.md record (engine's to_record)."""
    from games.engine import HandState

    game = HandState.new(
        state["players"], state["dealer"], state["rules"], rng, state["carry"], state["excused"]
    )
    while game.outcome() is None:
        actor = game.to_act or game.awaiting[0]
        actions = game.legal_actions(actor)
        passes = [a for a in actions if a["type"] == "pass"]
        if passes and rng.random() < pass_rate:
            game.apply(passes[0])
        else:
            game.apply(rng.choice([a for a in actions if a["type"] != "pass"] or actions))
    return game.to_record()
