"""Public, read-only JSON for league websites: what the public pages show, by the same
unguessable tokens, under `/api/v1/public/…`.

- `tournaments/{token}/` (summary and links), `…/standings/`, `…/bracket/`, `…/clock/`:
  by the tournament's public token, the one in the bracket, wall screen (TV) and print
  links (`/t/{token}/…`);
- `sessions/{token}/`: the scoreboard of a session's share link (`/share/{token}/`);
  revoking the link (or making a new one) shuts this out too;
- `seasons/{token}/standings/`: a season's standings by its public link
  (`/season/{token}/`), only while the club publishes it (revoking empties the token):
  rank, name, points, tournaments and best place, as the public page shows them (no
  home-session money or attendance), as a cursor page over the ranking.

The rules, for every view here (`PublicApiView`, whose one `read` every view shares:
find what the token opens, its ETag, the body only for a 200):
- no authentication at all: a token or a login cookie is not even read, so every caller
  gets the same answer (and a browser's cookies make no difference);
- names and numbers only: no player, user, club, session or tournament ids, no e-mail, no
  token, no seed (tests/api/test_public.py walks every answer for them); every answer's
  schema is exact (`additionalProperties: false`, `ExactOutputSerializer`);
- CORS for GET from any origin on these paths only (settings.CORS_URLS_REGEX,
  django-cors-headers), never with credentials;
- an `ETag` on every answer and 304 for `If-None-Match` while nothing changed (the clock's
  is weak: its `server_time` moves, the state it describes does not);
- rate limited per client address at the `public` rate (RateLimit-* headers, 429);
- a token that opens nothing (wrong, revoked) is the same 404 problem as any other.
"""

from __future__ import annotations

import datetime
import hashlib
from dataclasses import asdict, astuple, dataclass
from typing import Any, ClassVar

from django.http import HttpRequest
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.http import parse_etags
from django.utils.translation import get_language, gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import exceptions, serializers
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api.base import CURSOR_PARAMETERS, ApiRateThrottle, ApiView, ListPage, problems
from games.api.seasons import SeasonFormulaOutputSerializer
from games.api.serializers import CurrencySerializer, ExactOutputSerializer
from games.api.tournament_actions import ClockOutputSerializer
from games.models import GameSession, Season, ShareLink, Tournament
from games.ratelimit import client_ip, network_of
from games.seasons.standings import PublicStanding, Tie, formula_of, public_rows, standings
from games.sessions import selectors as session_selectors
from games.tournaments import clock, screens, selectors
from ledger import books

PUBLIC_TAG = "public"
# A public row's `tie`: a tie the home sessions' money decided says only `tie_break`
# (games.seasons.standings.public_rows).
PUBLIC_TIES = ["tie_break" if tie == Tie.NET else tie.value for tie in Tie]


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


# -- output ---------------------------------------------------------------------------------


class PublicLinksSerializer(ExactOutputSerializer):
    standings = serializers.URLField()
    bracket = serializers.URLField()
    clock = serializers.URLField()
    page = serializers.URLField(help_text=gettext_lazy("The public bracket page."))
    tv = serializers.URLField(help_text=gettext_lazy("The wall screen."))


class PublicTournamentSerializer(ExactOutputSerializer):
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


class PublicStandingSerializer(ExactOutputSerializer):
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


class PublicStandingsSerializer(ExactOutputSerializer):
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    final = serializers.BooleanField()
    currency = CurrencySerializer()
    standings = PublicStandingSerializer(many=True)


class PublicSeatSerializer(ExactOutputSerializer):
    name = serializers.CharField()
    chips = serializers.IntegerField(allow_null=True)
    out = serializers.BooleanField()
    advanced = serializers.BooleanField()
    moved = serializers.BooleanField()


class PublicTableSerializer(ExactOutputSerializer):
    number = serializers.IntegerField()
    status = serializers.CharField()
    hands = serializers.IntegerField()
    hand_limit = serializers.IntegerField(help_text=gettext_lazy("0: no limit."))
    pot = serializers.IntegerField()
    ante = serializers.IntegerField(allow_null=True)
    players = PublicSeatSerializer(many=True)


class PublicRoundSerializer(ExactOutputSerializer):
    number = serializers.IntegerField()
    status = serializers.CharField()
    is_final = serializers.BooleanField()
    byes = serializers.ListField(child=serializers.CharField())
    tables = PublicTableSerializer(many=True)


class PublicBracketSerializer(ExactOutputSerializer):
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    rounds = PublicRoundSerializer(many=True)


class PublicScoreboardPlayerSerializer(ExactOutputSerializer):
    name = serializers.CharField()
    active = serializers.BooleanField(help_text=gettext_lazy("False: left the table."))
    net = serializers.IntegerField(help_text=gettext_lazy("Minor units won (+) or lost (−)."))
    stack = serializers.IntegerField(
        help_text=gettext_lazy("A tournament table's chips in front of the player; else 0.")
    )
    dealer = serializers.BooleanField(help_text=gettext_lazy("Deals the next hand."))
    excused = serializers.BooleanField(help_text=gettext_lazy("Excused from the next ante."))


class PublicPayoutSerializer(ExactOutputSerializer):
    name = serializers.CharField()
    amount = serializers.IntegerField()


class PublicHandSerializer(ExactOutputSerializer):
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


class PublicScoreboardSerializer(ExactOutputSerializer):
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


@extend_schema_field(OpenApiTypes.DATE)
class _DayField(serializers.Field):
    # A day as ISO text, output only (a DateField would bring its input refusals along).
    def to_representation(self, value: datetime.date) -> str:
        return value.isoformat()


class PublicSeasonStandingSerializer(ExactOutputSerializer):
    rank = serializers.IntegerField(help_text=gettext_lazy("Equal for a shared place."))
    name = serializers.CharField()
    points = serializers.IntegerField(help_text=gettext_lazy("Tournament points."))
    tournaments = serializers.IntegerField(help_text=gettext_lazy("Tournaments played."))
    best_place = serializers.IntegerField(
        allow_null=True, help_text=gettext_lazy("Best finish; null: no tournament.")
    )
    tie = serializers.ChoiceField(
        choices=PUBLIC_TIES,
        help_text=gettext_lazy(
            "Why this row is below one with the same points: best_finish, tie_break, or "
            "shared (level on every count, same rank); empty otherwise."
        ),
    )
    above = serializers.CharField(help_text=gettext_lazy("The player that tie is with."))


class PublicSeasonStandingsPageSerializer(ExactOutputSerializer):
    name = serializers.CharField()
    club_name = serializers.CharField()
    starts_on = _DayField(help_text=gettext_lazy("First day, in the club's zone."))
    ends_on = _DayField(help_text=gettext_lazy("Last day, in the club's zone."))
    formula = SeasonFormulaOutputSerializer()
    next = serializers.CharField(
        allow_null=True, help_text=gettext_lazy("The next page's cursor; null on the last page.")
    )
    previous = serializers.CharField(
        allow_null=True,
        help_text=gettext_lazy("The previous page's cursor; null on the first page."),
    )
    results = PublicSeasonStandingSerializer(many=True)


# -- views ----------------------------------------------------------------------------------


# One shape for every public read: `find` what the token opens (or 404), name its state
# for the ETag (`state`), and build the answer (`body`) only when the caller's copy is not
# current. Each view sets its operation (`operation_id`, `summary`, `output`) and gets its
# documented `get`. (Comments, not docstrings, here and in the views below: drf-spectacular
# would show a view's docstring, inherited too, as its operation's description.)
class PublicApiView(ApiView):
    # No authentication: who asks changes nothing (and no cookie is read).
    authentication_classes: list[type[BaseAuthentication]] = []
    permission_classes = [AllowAny]
    throttle_classes = [PublicThrottle]

    operation_id: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    output: ClassVar[type[serializers.Serializer]]
    parameters: ClassVar[list[OpenApiParameter]] = []
    refusals: ClassVar[tuple[int, ...]] = (404, 406)
    weak_etag: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.operation_id:
            return

        @extend_schema(
            operation_id=cls.operation_id,
            summary=cls.summary,
            auth=[],
            parameters=[*cls.parameters, _IF_NONE_MATCH, _ETAG],
            responses={200: cls.output, 304: None, **problems(*cls.refusals)},
            tags=[PUBLIC_TAG],
        )
        def get(self: PublicApiView, request: Request, token: str) -> Response:
            return self.read(request, token)

        cls.get = get  # type: ignore[attr-defined]

    def find(self, request: Request, token: str) -> Any:
        """What `token` opens, with what the answer needs; `NotFound` if nothing."""
        raise NotImplementedError

    def state(self, found: Any) -> tuple[object, ...]:
        """What identifies the answer's state: its digest is the ETag."""
        raise NotImplementedError

    def body(self, request: Request, token: str, found: Any) -> dict[str, Any]:
        raise NotImplementedError

    def link_headers(self, found: Any) -> dict[str, str]:
        return {}

    def read(self, request: Request, token: str) -> Response:
        """200 with the body and the ETag, or 304 when the caller's copy is current
        (weak comparison, RFC 9110 §13.1.2: GET compares weakly)."""
        found = self.find(request, token)
        etag = public_etag(*self.state(found), weak=self.weak_etag)
        wanted = {
            tag.removeprefix("W/") for tag in parse_etags(request.headers.get("If-None-Match", ""))
        }
        if etag.removeprefix("W/") in wanted or "*" in wanted:
            response = Response(status=304)
        else:
            response = Response(
                self.output(self.body(request, token, found)).data, headers=self.link_headers(found)
            )
        response["ETag"] = etag
        # Stored by a browser only to be checked again (the ETag makes that cheap).
        response["Cache-Control"] = "no-cache"
        response["X-Robots-Tag"] = "noindex"
        patch_vary_headers(response, ["Origin"])
        return response


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


# A published tournament's views: found by its public token; the ETag follows the
# tournament and its tables (`selectors.etag`), under each view's own prefix.
class _TournamentView(PublicApiView):
    prefix = ""

    def find(self, request: Request, token: str) -> Tournament:
        t = Tournament.objects.filter(public_token=token).first() if token else None
        if t is None:
            raise exceptions.NotFound()
        return t

    def state(self, found: Tournament) -> tuple[object, ...]:
        return (self.prefix, selectors.etag(found))


class PublicTournamentApi(_TournamentView):
    operation_id = "public_tournament"
    summary = "A published tournament: status, field, prize pool, links (no login)"
    output = PublicTournamentSerializer
    prefix = "t"

    def body(self, request: Request, token: str, found: Tournament) -> dict[str, Any]:
        t = found
        tv = screens.tv_context(t)
        return {
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


class PublicStandingsApi(_TournamentView):
    operation_id = "public_tournament_standings"
    summary = "A published tournament's standings (provisional while it runs; no login)"
    output = PublicStandingsSerializer
    prefix = "s"

    def body(self, request: Request, token: str, found: Tournament) -> dict[str, Any]:
        t = found
        rows = [{**row, "name": row["player"]["name"]} for row in selectors.standings(t)]
        return {
            "name": t.name,
            "status": t.status,
            "final": t.status == Tournament.Status.FINISHED,
            "currency": t.currency,
            "standings": rows,
        }


class PublicBracketApi(_TournamentView):
    operation_id = "public_tournament_bracket"
    summary = "A published tournament's rounds, tables and chips (no login)"
    output = PublicBracketSerializer
    prefix = "b"

    def body(self, request: Request, token: str, found: Tournament) -> dict[str, Any]:
        rounds = [
            {
                **rnd,
                "byes": [bye["name"] for bye in rnd["byes"]],
                "tables": [{**box, "hand_limit": box["limit"]} for box in rnd["tables"]],
            }
            for rnd in selectors.bracket(found)["rounds"]
        ]
        return {"name": found.name, "status": found.status, "rounds": rounds}


class PublicClockApi(_TournamentView):
    operation_id = "public_tournament_clock"
    summary = "A published tournament's clock: level, ante, seconds left (no login)"
    output = ClockOutputSerializer
    # Weak: `server_time` and `seconds_left` move every moment, but a copy with its own
    # server_time still tells the same clock until a level, a break or the director
    # changes it (all in tv_etag: the version rises with every clock button).
    weak_etag = True

    def state(self, found: Tournament) -> tuple[object, ...]:
        return ("c", screens.tv_etag(found))

    def body(self, request: Request, token: str, found: Tournament) -> dict[str, Any]:
        return dict(clock.clock_state(found))


class PublicScoreboardApi(PublicApiView):
    operation_id = "public_session_scoreboard"
    summary = "A session's scoreboard by its share link (no login)"
    output = PublicScoreboardSerializer

    def find(self, request: Request, token: str) -> GameSession:
        link = ShareLink.live(token)
        if link is None:
            raise exceptions.NotFound()  # wrong, truncated or revoked: one answer
        return link.session

    def state(self, found: GameSession) -> tuple[object, ...]:
        # The language is in the digest: a tournament table's name is the reader's.
        return ("p", found.pk, found.version, get_language())

    def body(self, request: Request, token: str, found: GameSession) -> dict[str, Any]:
        session = found
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
        return {
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


class _Nobody:
    """The scoreboard's reader through the public API: no role, no right to anything."""

    role = "public"

    def has_role(self, role: str) -> bool:
        return False


_NOBODY = _Nobody()


@dataclass(frozen=True)
class _SeasonPage:
    season: Season
    rows: list[PublicStanding]
    pager: ListPage


# A season's standings by its public link, as the public page shows them: a cursor page
# over the ranking (computed when read, as for members).
class PublicSeasonStandingsApi(PublicApiView):
    operation_id = "public_season_standings"
    summary = "A season's standings by its public link: rank, points, tournaments (no login)"
    output = PublicSeasonStandingsPageSerializer
    parameters = CURSOR_PARAMETERS
    refusals = (400, 404, 406)

    def find(self, request: Request, token: str) -> _SeasonPage:
        # Published means it has a token: the owner's "revoke" empties it (404 for good).
        season = (
            Season.objects.filter(public_token=token).select_related("club").first()
            if token
            else None
        )
        if season is None:
            raise exceptions.NotFound()
        pager = ListPage()
        rows = pager.rows_page(request, public_rows(standings(season)))
        return _SeasonPage(season, rows, pager)

    def state(self, found: _SeasonPage) -> tuple[object, ...]:
        # Computed when read, so the digest is of what this page shows: the season's
        # row (name, dates, formula), the page's rows and where the cursors lead.
        s = found.season
        formula = formula_of(s)
        return (
            "season",
            s.club.name,
            s.name,
            s.starts_on,
            s.ends_on,
            astuple(formula),
            *(astuple(row) for row in found.rows),
            found.pager.get_next_link(),
            found.pager.get_previous_link(),
        )

    def link_headers(self, found: _SeasonPage) -> dict[str, str]:
        return dict(found.pager.get_paginated_response([]).headers.items())

    def body(self, request: Request, token: str, found: _SeasonPage) -> dict[str, Any]:
        s = found.season
        page = found.pager.get_paginated_response([asdict(row) for row in found.rows]).data
        return {
            "name": s.name,
            "club_name": s.club.name,
            "starts_on": s.starts_on,
            "ends_on": s.ends_on,
            "formula": s,
            **page,
        }
