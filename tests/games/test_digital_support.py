"""Fixtures and helpers shared by the digital-hand tests (this module holds no tests).

Seat pages need no login: a seat's secret link is its key, so the phones here are plain
anonymous clients. ``Leakcheck`` wraps a client and, after every response, asserts that
the body names no card its viewer cannot see (RULES.md: other seats' hands, their
discards, the stock, passers' folded hands).
"""

from __future__ import annotations

import random
import re
from typing import Any

from django.test import Client
from django.urls import reverse

from games.digital import selectors as digital_reads
from games.digital import service as digital
from games.engine import CARD_NAMES, HandState
from games.models import GameSession, Hand, Seat
from ledger import postings

FACES = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def make_session(club, players, user) -> GameSession:
    """ann, ben, cal and dee at one table, dee dealing first."""
    ann, ben, cal, dee = players
    return postings.start_session(
        club=club,
        name="Digital night",
        players=[ann, ben, cal, dee],
        dealer=dee,
        rules={},
        currency=club.currency,
        user=user,
        mode="digital",
    )


def seats_of(session: GameSession) -> dict[str, Seat]:
    return {s.player.name: s for s in session.seats.select_related("player", "session")}


def make_bots(session: GameSession, *names: str) -> None:
    Seat.objects.filter(session=session, player__name__in=names).update(is_bot=True)


def deal(session: GameSession, user=None) -> Hand:
    return digital.start_hand(session_id=session.pk, user=user).hand


def seat_url(seat: Seat) -> str:
    return reverse("digital_seat", args=[seat.secret])


def state_url(seat: Seat) -> str:
    return reverse("digital_seat_state", args=[seat.secret])


def current_state(hand: Hand) -> HandState:
    return digital_reads.load_table(Hand.objects.get(pk=hand.pk)).state


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A scripted human's move from its own view: play (drawing a few) or pass, then a
    random legal card. None when it is not this seat's turn."""
    if view.get("declare"):
        if view["declare"]["can_pass"] and rng.random() < 0.15:
            return {"type": "pass"}
        keep = set(view["declare"]["keep"])
        options = [c for c in view["hand"] if c not in keep]
        k = rng.randint(0, min(len(options), view["declare"]["max_discard"], 3))
        return {"type": "play", "discard": rng.sample(options, k)}
    if view.get("legal"):
        return {"type": "card", "card": rng.choice(view["legal"])}
    return None


def form_data(hand_id: int, seq: int, move: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {"hand": hand_id, "seq": seq, "type": move["type"]}
    if "card" in move:
        data["card"] = move["card"]
    if "discard" in move:
        data["discard"] = move["discard"]
    return data


def play_out(phones: dict[str, Client], seats: dict[str, Seat], rng: random.Random) -> Hand:
    """Drive the hand in progress to its end through HTTP, humans moving in turn."""
    for _ in range(200):
        moved = False
        for name, phone in phones.items():
            data = phone.get(state_url(seats[name])).json()
            if data["status"] != "in_progress":
                return Hand.objects.get(pk=data["hand"])
            move = choose(data["view"], rng)
            if move is None:
                continue
            response = phone.post(
                seat_url(seats[name]),
                form_data(data["hand"], data["seq"], move),
                headers={"HX-Request": "true"},
            )
            assert response.status_code == 200, response.content.decode()[-800:]
            moved = True
        if not moved:
            raise AssertionError("nobody could move, yet the hand is in progress")
    raise AssertionError("the hand did not end")


# -- leak checks ----------------------------------------------------------------------------


def face(code: str) -> str:
    rank = "10" if code[0] == "T" else code[0]
    return rank + FACES[code[1]]


def visible_to(state: HandState, viewer: str | None) -> set[str]:
    """Cards ``viewer`` may know: the up-card, every card played face up, and (a seat)
    its own hand and discards. Everything else is hidden from it."""
    view = state.public_view()
    seen = {view["up_card"]}
    for trick in view["tricks_played"]:
        seen |= {c["card"] for c in trick["cards"]}
    seen |= {c["card"] for c in view["trick"]}
    if viewer is not None and viewer in state.seat_of:
        mine = state.view_for(viewer)
        seen |= set(mine["hand"]) | set(mine["own_discards"])
    return seen


_TOKEN = re.compile(r'(csrfmiddlewaretoken" value="|X-CSRFToken": ")[^"]+')


def leaked(body: str, hidden: set[str], secrets_: list[str]) -> list[str]:
    """Hidden cards named in ``body``: as a code (``AS``) or as a face (``A♠``)."""
    body = _TOKEN.sub(r"\1", body)
    for s in secrets_:
        body = body.replace(s, "")
    text = re.sub(r"<[^>]+>", "", body)
    found = []
    for code in hidden:
        if re.search(rf"(?<![A-Za-z0-9]){code}(?![A-Za-z0-9])", body) or face(code) in text:
            found.append(code)
    return sorted(found)


class Leakcheck:
    """A client whose every response is checked for cards its viewer may not see."""

    def __init__(self, client: Client, session: GameSession, viewer: str | None = None):
        self.client = client
        self.session = session
        self.viewer = viewer
        self.responses = 0
        # Seat links are random text; strip them so that a "-AS-" inside one is no alarm.
        self.secrets = [s.secret for s in session.seats.all()]

    def _check(self, response):
        if response.status_code in (301, 302, 303, 304):
            return response
        hand = digital_reads.latest_hand(self.session.pk)
        if hand is None:
            return response
        state = digital_reads.load_table(hand).state
        hidden = set(CARD_NAMES) - visible_to(state, self.viewer)
        bad = leaked(response.content.decode(), hidden, self.secrets)
        assert not bad, f"{self.viewer or 'spectator'} was shown hidden cards {bad}"
        self.responses += 1
        return response

    def get(self, *args, **kwargs):
        return self._check(self.client.get(*args, **kwargs))

    def post(self, *args, **kwargs):
        return self._check(self.client.post(*args, **kwargs))
