"""A club with one of everything, and every URL of the site filled in with its ids.

Used by the tests that walk every route (tests/test_methods.py) and fuzz every form and
API write (tests/test_fuzz_forms.py, tests/api/test_fuzz_api.py): alice owns the club,
bob keeps score, carol is a member, mallory is a stranger. The club has a reported
table with a hand, a digital table with a hand being played, a tournament taking
entries and one running (round 1 drawn), a share link, an invite, an API token, a
webhook endpoint and a season with a public link.

``routes()`` lists the site's URL patterns (the admin's aside) as Django resolves them;
``World.fill(route)`` writes one with this world's ids.
"""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urljoin, urlsplit

from django.contrib.auth.tokens import default_token_generator
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from games.digital import service as digital
from games.models import (
    ApiToken,
    GameSession,
    Hand,
    Invite,
    Membership,
    Role,
    Season,
    Seat,
    ShareLink,
    Tournament,
    TournamentTable,
    WebhookEndpoint,
)
from games.models.season import new_season_token
from games.tournaments import service as svc
from ledger import postings
from tests.factories import seeded

from .games.test_tournament_service import bot_entry, make_tournament

PARAM = re.compile(r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>")


@dataclass(frozen=True)
class Route:
    name: str
    route: str  # as written in the URL modules, joined: "sessions/<id:session_id>/"


def routes() -> list[Route]:
    """Every named URL pattern of the site but the admin's."""

    def walk(patterns: list[Any], prefix: str) -> Iterator[Route]:
        for p in patterns:
            if isinstance(p, URLResolver):
                if str(p.pattern).startswith("admin/"):
                    continue
                yield from walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern) and p.name:
                yield Route(p.name, prefix + str(p.pattern))

    return list(walk(get_resolver().url_patterns, ""))


@dataclass
class World:
    club: Any
    alice: Any
    bob: Any
    carol: Any
    mallory: Any
    table: GameSession
    hand: Hand
    digital: GameSession
    seat: Seat
    cup: Tournament
    running: Tournament
    tournament_table: TournamentTable
    share_token: str
    invite_token: str
    api_key: str
    api_token_id: int
    endpoint_id: int
    membership_id: int  # carol's
    season: Season  # public by link
    payment_id: int = 0  # a tab payment, reported (issue #34)

    def value(self, name: str, route: str) -> Any:
        """This world's value for a URL parameter of ``route``."""
        if name == "session_id":
            return self.digital.pk if "/digital/" in route else self.table.pk
        if name == "tournament_id":
            # Registration's forms on the tournament taking entries, the rest on the
            # running one.
            taking_entries = ("/entries/", "/edit/", "/start/", "/roster/", "/reseed/")
            return self.cup.pk if any(part in route for part in taking_entries) else self.running.pk
        if name == "action":
            return "check-in" if route.startswith("api/") else "checkin"
        if name == "token":
            if route.startswith("share/"):
                return self.share_token
            if route.startswith("invite/"):
                return self.invite_token
            if route.startswith("t/"):
                return self.running.public_token
            if route.startswith("season/"):
                return self.season.public_token
            return default_token_generator.make_token(self.alice)
        return {
            "club_id": self.club.pk,
            "hand_id": self.hand.pk,
            "player_id": self.table.seats.first().player_id,
            "membership_id": self.membership_id,
            "table_id": self.tournament_table.pk,
            "entry_id": self.cup.entries.first().pk,
            "seat_id": self.seat.pk,
            "token_id": self.api_token_id,
            "endpoint_id": self.endpoint_id,
            "season_id": self.season.pk,
            "payment_id": self.payment_id,
            "uidb64": urlsafe_base64_encode(force_bytes(self.alice.pk)),
            "secret": self.seat.secret,
            "number": 1,
        }[name]

    def fill(self, route: str, **chosen: Any) -> str:
        """The path of a Django route (``<id:x>``) or an OpenAPI one (``{x}``); ``chosen``
        values stand in for this world's."""

        def value(name: str) -> str:
            return str(chosen[name] if name in chosen else self.value(name, route.lstrip("/")))

        path = PARAM.sub(lambda m: value(m["name"]), route)
        path = re.sub(r"\{(\w+)\}", lambda m: value(m[1]), path)
        return path if path.startswith("/") else "/" + path

    def sessions(self) -> list[GameSession]:
        """Every session whose books the checks read: the two tables and the running
        tournament's tables."""
        found = [self.table, self.digital]
        found += [x.session for x in self.running.tables.select_related("session")]
        return found


def build_world(club, players, alice, bob, carol, mallory) -> World:
    ann, ben, cal, dee = players
    table = postings.start_session(
        club=club,
        name="Friday",
        players=players,
        dealer=dee,
        rules={},
        currency=club.currency,
        user=bob,
    )
    hand, _ = postings.record_hand(
        session_id=table.pk,
        entry={"trump": "H", "tricks": {"ann": 3, "ben": 1, "cal": 1, "dee": 0}},
        idempotency_key=uuid.uuid4().hex,
        expected_version=None,
        user=bob,
    )
    digital_table = postings.start_session(
        club=club,
        name="Digital night",
        players=players,
        dealer=dee,
        rules={},
        currency=club.currency,
        user=bob,
        mode="digital",
    )
    digital.start_hand(session_id=digital_table.pk, user=bob)
    cup = make_tournament(club, alice, n=3, check_in=False, prefix="r", name="Spring cup")
    running = make_tournament(
        club, alice, n=8, prefix="p", name="Cup", starting_chips=20, antes=[1], level_minutes=15
    )
    svc.start(tournament_id=seeded(running.pk, "world-seed"), user=alice)
    running.refresh_from_db()
    link = ShareLink.new(table, alice)
    link.save()
    _, invite_token = Invite.issue(club, Role.MEMBER, alice)
    token, key = ApiToken.issue(alice, "world")
    endpoint = WebhookEndpoint.objects.create(club=club, url="https://hooks.example.com/bourre")
    payment = postings.report_payment(
        club_id=club.pk, payer_id=dee.pk, payee_id=ann.pk, amount=1, method="cash", user=bob
    )
    table.refresh_from_db()
    return World(
        club=club,
        alice=alice,
        bob=bob,
        carol=carol,
        mallory=mallory,
        table=table,
        hand=hand,
        digital=digital_table,
        seat=digital_table.seats.get(player=ann),
        cup=cup,
        running=running,
        tournament_table=running.tables.order_by("number").first(),
        share_token=link.token,
        invite_token=invite_token,
        api_key=key,
        api_token_id=token.pk,
        endpoint_id=endpoint.pk,
        membership_id=Membership.objects.get(club=club, user=carol).pk,
        season=Season.objects.create(
            club=club,
            name="Spring",
            starts_on=timezone.localdate() - timedelta(days=30),
            ends_on=timezone.localdate() + timedelta(days=30),
            public_token=new_season_token(),
        ),
        payment_id=payment.pk,
    )


def next_hand_records(session: GameSession, seed: str) -> Hand | None:
    """Record the next hand a bot table would play on ``session`` (valid for whatever
    rules and seats the session has now); None when the table cannot play one (closed,
    fewer than two players in)."""
    session.refresh_from_db()
    state = postings.session_state(session)
    if not session.is_open or len(state["players"]) - len(state["excused"] or []) < 2:
        return None
    entry, _ = bot_entry(state, random.Random(seed))
    recorded, created = postings.record_hand(
        session_id=session.pk,
        entry=entry,
        idempotency_key=uuid.uuid4().hex,
        expected_version=None,
        user=None,
    )
    assert created
    return recorded


# --- the forms on the pages ----------------------------------------------------------------


@dataclass
class Form:
    """A ``<form method="post">`` as a browser would send it: each field's value as
    shown (the first of several) and the other values the page offers."""

    path: str
    fields: dict[str, list[str]]


class _FormParser(HTMLParser):
    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.page = page
        self.forms: list[Form] = []
        self._form: Form | None = None
        self._select: str | None = None
        self._textarea: str | None = None

    def _offer(self, name: str | None, value: str, first: bool = False) -> None:
        if self._form is None or not name:
            return
        values = self._form.fields.setdefault(name, [])
        if value in values:
            return
        if first:
            values.insert(0, value)
        else:
            values.append(value)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("method", "get").lower() == "post":
            action = urljoin(self.page, a.get("action") or self.page)
            self._form = Form(urlsplit(action).path, {})
            self.forms.append(self._form)
        elif tag == "input":
            kind = a.get("type", "text").lower()
            if kind in ("checkbox", "radio"):
                self._offer(a.get("name"), a.get("value", "on"), first="checked" in a)
            elif kind not in ("submit", "image", "reset", "file"):
                self._offer(a.get("name"), a.get("value", ""), first=True)
        elif tag == "button" and a.get("name"):
            self._offer(a.get("name"), a.get("value", ""))
        elif tag == "select":
            self._select = a.get("name")
        elif tag == "option" and self._select:
            self._offer(self._select, a.get("value", ""), first="selected" in a)
        elif tag == "textarea":
            self._textarea = a.get("name")
            self._offer(self._textarea, "", first=True)

    def handle_data(self, data: str) -> None:
        if self._textarea and self._form is not None and data.strip():
            self._form.fields[self._textarea][0] = data

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None


def forms_on(page_path: str, html: str) -> list[Form]:
    parser = _FormParser("http://testserver" + page_path)
    parser.feed(html)
    return parser.forms
