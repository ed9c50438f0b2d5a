"""Public, read-only JSON for league websites: what the public pages show, by the same
unguessable tokens, under `/api/v1/public/…`.

- `tournaments/{token}/` (summary and links), `…/standings/`, `…/bracket/`, `…/clock/`:
  by the tournament's public token, the one in the bracket, wall screen (TV) and print
  links (`/t/{token}/…`);
- `sessions/{token}/`: the scoreboard of a session's share link (`/share/{token}/`);
  revoking the link (or making a new one) shuts this out too;
- season standings will join here as `seasons/{token}/standings/` when seasons have a
  public link (see urls.py): the same rules apply to them.

The rules, for every view here (`PublicApiView`):
- no authentication at all: a token or a login cookie is not even read, so every caller
  gets the same answer (and a browser's cookies make no difference);
- names and numbers only: no player, user, club, session or tournament ids, no e-mail, no
  token, no seed (tests/api/test_public.py walks every answer for them);
- CORS for GET from any origin on these paths only (settings.CORS_URLS_REGEX,
  django-cors-headers), never with credentials;
- an `ETag` on every answer and 304 for `If-None-Match` while nothing changed (the clock's
  is weak: its `server_time` moves, the state it describes does not);
- rate limited per client address at the `public` rate (RateLimit-* headers, 429);
- a token that opens nothing (wrong, revoked) is the same 404 problem as any other.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.http import parse_etags
from django.utils.translation import get_language, gettext_lazy
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api.base import ApiRateThrottle, ApiView, problems
from games.api.serializers import CurrencySerializer
from games.api.tournament_actions import ClockOutputSerializer
from games.models import GameSession, ShareLink, Tournament
from games.ratelimit import client_ip, network_of
from games.sessions import selectors as session_selectors
from games.tournaments import clock, screens, selectors
from ledger import books

PUBLIC_TAG = "public"


class PublicThrottle(ApiRateThrottle):
    """Per client address (an IPv6 one by its /64) at the `public` rate: a league
    website's visitors each count for themselves."""

    def scope_of(self, request: Request, view: APIView) -> tuple[str, str]:
        return "public", network_of(client_ip(request))


_ETAG = OpenApiParameter(
    "ETag",
    str,
    OpenApiParameter.HEADER,
    response=[200, 304],
    description="Send it back in `If-None-Match`: 304 while nothing changed.",
)
_IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    str,
    OpenApiParameter.HEADER,
    description="The ETag of the copy you have: 304 with no body while it is current.",
)


def public_etag(*parts: object, weak: bool = False) -> str:
    """An ETag that names no row: a digest of what identifies this state."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()[:24]
    return f'W/"{digest}"' if weak else f'"{digest}"'


class PublicApiView(ApiView):
    # No authentication: who asks changes nothing (and no cookie is read).
    authentication_classes: list[type[BaseAuthentication]] = []
    permission_classes = [AllowAny]
    throttle_classes = [PublicThrottle]

    def answer(self, request: Request, etag: str, body: Callable[[], Any]) -> Response:
        """200 with `body()` and the ETag, or 304 when the caller's copy is current
        (weak comparison, RFC 9110 §13.1.2: GET compares weakly)."""
        wanted = {
            tag.removeprefix("W/") for tag in parse_etags(request.headers.get("If-None-Match", ""))
        }
        if etag.removeprefix("W/") in wanted or "*" in wanted:
            response = Response(status=304)
        else:
            response = Response(body())
        response["ETag"] = etag
        # Stored by a browser only to be checked again (the ETag makes that cheap).
        response["Cache-Control"] = "no-cache"
        response["X-Robots-Tag"] = "noindex"
        patch_vary_headers(response, ["Origin"])
        return response


def _tournament(token: str) -> Tournament:
    t = Tournament.objects.filter(public_token=token).first() if token else None
    if t is None:
        raise exceptions.NotFound()
    return t


# -- output ---------------------------------------------------------------------------------


class PublicLinksSerializer(serializers.Serializer):
    standings = serializers.URLField()
    bracket = serializers.URLField()
    clock = serializers.URLField()
    page = serializers.URLField(help_text=gettext_lazy("The public bracket page."))
    tv = serializers.URLField(help_text=gettext_lazy("The wall screen."))


class PublicTournamentSerializer(serializers.Serializer):
    name = serializers.CharField()
    format = serializers.ChoiceField(choices=Tournament.Format.choices)
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    currency = CurrencySerializer()
    buy_in = serializers.IntegerField(help_text=gettext_lazy("Minor units."))
    fee = serializers.IntegerField(help_text=gettext_lazy("Minor units, on top of the buy-in."))
    starting_chips = serializers.IntegerField()
    entrants = serializers.IntegerField()
    players_left = serializers.IntegerField()
    prize_pool = serializers.IntegerField(
        help_text=gettext_lazy("Minor units: what the pool holds now (0 once paid out).")
    )
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    links = PublicLinksSerializer()


class PublicStandingSerializer(serializers.Serializer):
    place = serializers.IntegerField(
        allow_null=True, help_text=gettext_lazy("Null: still playing.")
    )
    name = serializers.CharField()
    status = serializers.CharField()
    chips = serializers.IntegerField(
        allow_null=True, help_text=gettext_lazy("Now, or when they went out.")
    )
    busted = serializers.BooleanField(help_text=gettext_lazy("Knocked out (no chips left)."))
    out_round = serializers.IntegerField(allow_null=True)
    out_table = serializers.IntegerField(allow_null=True)
    out_at = serializers.DateTimeField(allow_null=True)
    prize = serializers.IntegerField(help_text=gettext_lazy("Minor units, paid."))
    prize_due = serializers.IntegerField(
        help_text=gettext_lazy(
            "Minor units: while the tournament runs, what the place of a player who went "
            "out pays at the end; 0 otherwise."
        )
    )
    reentries = serializers.IntegerField()


class PublicStandingsSerializer(serializers.Serializer):
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    final = serializers.BooleanField()
    currency = CurrencySerializer()
    standings = PublicStandingSerializer(many=True)


class PublicSeatSerializer(serializers.Serializer):
    name = serializers.CharField()
    chips = serializers.IntegerField(allow_null=True)
    out = serializers.BooleanField()
    advanced = serializers.BooleanField()
    moved = serializers.BooleanField()


class PublicTableSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.CharField()
    hands = serializers.IntegerField()
    hand_limit = serializers.IntegerField(help_text=gettext_lazy("0: no limit."))
    pot = serializers.IntegerField()
    ante = serializers.IntegerField(allow_null=True)
    players = PublicSeatSerializer(many=True)


class PublicRoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.CharField()
    is_final = serializers.BooleanField()
    byes = serializers.ListField(child=serializers.CharField())
    tables = PublicTableSerializer(many=True)


class PublicBracketSerializer(serializers.Serializer):
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    rounds = PublicRoundSerializer(many=True)


class PublicScoreboardPlayerSerializer(serializers.Serializer):
    name = serializers.CharField()
    active = serializers.BooleanField(help_text=gettext_lazy("False: left the table."))
    net = serializers.IntegerField(help_text=gettext_lazy("Minor units won (+) or lost (−)."))
    stack = serializers.IntegerField(
        help_text=gettext_lazy("A tournament table's chips in front of the player; else 0.")
    )
    dealer = serializers.BooleanField(help_text=gettext_lazy("Deals the next hand."))
    excused = serializers.BooleanField(help_text=gettext_lazy("Excused from the next ante."))


class PublicPayoutSerializer(serializers.Serializer):
    name = serializers.CharField()
    amount = serializers.IntegerField()


class PublicHandSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    outcome = serializers.CharField(
        help_text=gettext_lazy("win, uncontested, split, ineligible or all_passed.")
    )
    winner = serializers.CharField(allow_null=True)
    won = serializers.IntegerField(allow_null=True)
    pot = serializers.IntegerField(allow_null=True)
    trump = serializers.CharField()
    payouts = PublicPayoutSerializer(many=True)
    bourre = serializers.ListField(
        child=serializers.CharField(), help_text=gettext_lazy("Who was bourréd.")
    )


class PublicScoreboardSerializer(serializers.Serializer):
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=GameSession.Status.choices)
    closed_at = serializers.DateTimeField(allow_null=True)
    currency = CurrencySerializer()
    chip_limited = serializers.BooleanField(
        help_text=gettext_lazy("A tournament table: read `stack`, not `net`.")
    )
    pot = serializers.IntegerField(help_text=gettext_lazy("What the pot holds now."))
    next_hand = serializers.IntegerField()
    players = PublicScoreboardPlayerSerializer(many=True)
    recent_hands = PublicHandSerializer(many=True, help_text=gettext_lazy("Newest first."))


# -- views ----------------------------------------------------------------------------------


def _schema(operation_id: str, summary: str, response: type[serializers.Serializer]) -> Any:
    return extend_schema(
        operation_id=operation_id,
        summary=summary,
        auth=[],
        parameters=[_IF_NONE_MATCH, _ETAG],
        responses={200: response, 304: None, **problems(404, 406)},
        tags=[PUBLIC_TAG],
    )


def _links(request: HttpRequest, token: str) -> dict[str, str]:
    def url(name: str) -> str:
        return request.build_absolute_uri(reverse(name, args=[token]))

    return {
        "standings": url("api_public_tournament_standings"),
        "bracket": url("api_public_tournament_bracket"),
        "clock": url("api_public_tournament_clock"),
        "page": url("tournament_public"),
        "tv": url("tournament_tv"),
    }


class PublicTournamentApi(PublicApiView):
    @_schema(
        "public_tournament",
        "A published tournament: status, field, prize pool, links (no login)",
        PublicTournamentSerializer,
    )
    def get(self, request: Request, token: str) -> Response:
        t = _tournament(token)

        def body() -> dict[str, Any]:
            tv = screens.tv_context(t)
            return PublicTournamentSerializer(
                {
                    "name": t.name,
                    "format": t.format,
                    "status": t.status,
                    "currency": t.currency,
                    "buy_in": t.buy_in,
                    "fee": t.fee,
                    "starting_chips": t.starting_chips,
                    "entrants": tv["entrants"],
                    "players_left": tv["players_left"],
                    "prize_pool": books.prize_balances(t)["pool"],
                    "started_at": t.started_at,
                    "finished_at": t.finished_at,
                    "links": _links(request, token),
                }
            ).data

        return self.answer(request, public_etag("t", selectors.etag(t)), body)


class PublicStandingsApi(PublicApiView):
    @_schema(
        "public_tournament_standings",
        "A published tournament's standings (provisional while it runs; no login)",
        PublicStandingsSerializer,
    )
    def get(self, request: Request, token: str) -> Response:
        t = _tournament(token)

        def body() -> dict[str, Any]:
            rows = [{**row, "name": row["player"]["name"]} for row in selectors.standings(t)]
            return PublicStandingsSerializer(
                {
                    "name": t.name,
                    "status": t.status,
                    "final": t.status == Tournament.Status.FINISHED,
                    "currency": t.currency,
                    "standings": rows,
                }
            ).data

        return self.answer(request, public_etag("s", selectors.etag(t)), body)


class PublicBracketApi(PublicApiView):
    @_schema(
        "public_tournament_bracket",
        "A published tournament's rounds, tables and chips (no login)",
        PublicBracketSerializer,
    )
    def get(self, request: Request, token: str) -> Response:
        t = _tournament(token)

        def body() -> dict[str, Any]:
            rounds = [
                {
                    **rnd,
                    "byes": [bye["name"] for bye in rnd["byes"]],
                    "tables": [{**box, "hand_limit": box["limit"]} for box in rnd["tables"]],
                }
                for rnd in selectors.bracket(t)["rounds"]
            ]
            return PublicBracketSerializer(
                {"name": t.name, "status": t.status, "rounds": rounds}
            ).data

        return self.answer(request, public_etag("b", selectors.etag(t)), body)


class PublicClockApi(PublicApiView):
    @_schema(
        "public_tournament_clock",
        "A published tournament's clock: level, ante, seconds left (no login)",
        ClockOutputSerializer,
    )
    def get(self, request: Request, token: str) -> Response:
        t = _tournament(token)
        # Weak: `server_time` and `seconds_left` move every moment, but a copy with its own
        # server_time still tells the same clock until a level, a break or the director
        # changes it (all in tv_etag: the version rises with every clock button).
        etag = public_etag("c", screens.tv_etag(t), weak=True)
        return self.answer(request, etag, lambda: ClockOutputSerializer(clock.clock_state(t)).data)


class PublicScoreboardApi(PublicApiView):
    @_schema(
        "public_session_scoreboard",
        "A session's scoreboard by its share link (no login)",
        PublicScoreboardSerializer,
    )
    def get(self, request: Request, token: str) -> Response:
        link = ShareLink.live(token)
        if link is None:
            raise exceptions.NotFound()  # wrong, truncated or revoked: one answer
        session = link.session

        def body() -> dict[str, Any]:
            board = session_selectors.board_context(session, _NOBODY)
            hands = []
            for hand in board["recent"]:
                facts = session_selectors.hand_facts(hand)
                hands.append(
                    {
                        "number": hand.number,
                        "outcome": facts.outcome,
                        "winner": facts.winner,
                        "won": facts.won,
                        "pot": facts.pot,
                        "trump": facts.trump,
                        "payouts": [{"name": p, "amount": x} for p, x in facts.payouts],
                        "bourre": [p for p, _x in facts.bourre],
                    }
                )
            return PublicScoreboardSerializer(
                {
                    "name": session.display_name,
                    "status": session.status,
                    "closed_at": session.closed_at,
                    "currency": session.currency,
                    "chip_limited": session.chip_limited,
                    "pot": session.carry,
                    "next_hand": board["next_number"],
                    "players": board["rows"],
                    "recent_hands": hands,
                }
            ).data

        # The language is in the digest: a tournament table's name is the reader's.
        etag = public_etag("p", session.pk, session.version, get_language())
        return self.answer(request, etag, body)


class _Nobody:
    """The scoreboard's reader through the public API: no role, no right to anything."""

    role = "public"

    def has_role(self, role: str) -> bool:
        return False


_NOBODY = _Nobody()
