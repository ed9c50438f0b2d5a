"""REST API v1, mounted at /api/v1/: onboarding (tokens), the caller's account (its
export), clubs, members and invites, players, sessions and their writes, hands, the
ledger, the club's tab (issue #34), webhooks, the club export, and tournaments (games.api.tournament_actions for the
director's writes)."""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.request import Request

from games.api import ledger as ledger_api
from games.api import members, public, seasons, tab, tables, tournaments, webhooks
from games.api import tournament_actions as tactions
from games.api import tournament_cap as cap_api
from games.api import views as api
from games.api.base import ApiRateThrottle, RateLimitHeaders, undocumented
from games.api.export import ClubExportApi
from games.api.me import AccountExportApi
from games.api.tokens import TokenDetailApi, TokenListApi


class SchemaApi(RateLimitHeaders, SpectacularAPIView):
    throttle_classes = [ApiRateThrottle]

    def _get_filename(self, request: Request, version: str | None) -> str:
        # An ASCII file name: the title has an "é", which a Content-Disposition
        # filename="…" may not carry.
        return f"bourre-api-v1.{self.perform_content_negotiation(request, force=True)[0].format}"


class SchemaDocs(RateLimitHeaders, SpectacularSwaggerSplitView):
    throttle_classes = [ApiRateThrottle]


urlpatterns = [
    path("schema/", SchemaApi.as_view(), name="api_schema"),
    # The split view serves its start-up script as a file: no inline script under the CSP.
    path("docs/", SchemaDocs.as_view(url_name="api_schema"), name="api_docs"),
    path("auth/tokens/", TokenListApi.as_view(), name="api_token_list"),
    # Without the slash too, as the onboarding docs first spelled it (same view).
    path("auth/tokens", undocumented(TokenListApi), name="api_token_list_noslash"),
    path("auth/tokens/<id:token_id>/", TokenDetailApi.as_view(), name="api_token_detail"),
    path("me/export/", AccountExportApi.as_view(), name="api_me_export"),
    path("clubs/", api.ClubListApi.as_view(), name="api_club_list"),
    path("clubs/<id:club_id>/", api.ClubDetailApi.as_view(), name="api_club_detail"),
    path("clubs/<id:club_id>/export/", ClubExportApi.as_view(), name="api_club_export"),
    path("clubs/<id:club_id>/members/", members.MemberListApi.as_view(), name="api_member_list"),
    path(
        "clubs/<id:club_id>/members/<id:membership_id>/",
        members.MemberDetailApi.as_view(),
        name="api_member_detail",
    ),
    path("clubs/<id:club_id>/invites/", members.InviteListApi.as_view(), name="api_invite_list"),
    path("invites/accept/", members.InviteAcceptApi.as_view(), name="api_invite_accept"),
    path(
        "clubs/<id:club_id>/webhooks/",
        webhooks.EndpointListApi.as_view(),
        name="api_webhook_list",
    ),
    path(
        "webhooks/<id:endpoint_id>/",
        webhooks.EndpointDetailApi.as_view(),
        name="api_webhook_detail",
    ),
    path(
        "webhooks/<id:endpoint_id>/deliveries/",
        webhooks.DeliveryListApi.as_view(),
        name="api_webhook_deliveries",
    ),
    path("clubs/<id:club_id>/players/", api.PlayerListApi.as_view(), name="api_player_list"),
    path("players/<id:player_id>/", api.PlayerDetailApi.as_view(), name="api_player_detail"),
    path("clubs/<id:club_id>/sessions/", api.SessionListApi.as_view(), name="api_session_list"),
    path("sessions/<id:session_id>/", api.SessionDetailApi.as_view(), name="api_session_detail"),
    path("sessions/<id:session_id>/hands/", api.HandListApi.as_view(), name="api_hand_list"),
    path(
        "sessions/<id:session_id>/rules/",
        tables.SessionRulesApi.as_view(),
        name="api_session_rules",
    ),
    path("sessions/<id:session_id>/seats/", tables.SeatListApi.as_view(), name="api_seat_list"),
    path(
        "sessions/<id:session_id>/seats/<id:player_id>/",
        tables.SeatDetailApi.as_view(),
        name="api_seat_detail",
    ),
    path("sessions/<id:session_id>/buy-ins/", tables.BuyInApi.as_view(), name="api_buy_in"),
    path("sessions/<id:session_id>/cash-outs/", tables.CashOutApi.as_view(), name="api_cash_out"),
    path(
        "sessions/<id:session_id>/close/",
        tables.SessionCloseApi.as_view(),
        name="api_session_close",
    ),
    path(
        "sessions/<id:session_id>/settlement/marks/",
        tables.SettlementMarkApi.as_view(),
        name="api_settlement_mark",
    ),
    path("hands/<id:hand_id>/void/", tables.HandVoidApi.as_view(), name="api_hand_void"),
    path("hands/<id:hand_id>/correct/", tables.HandCorrectApi.as_view(), name="api_hand_correct"),
    # The verifier's first path had no trailing slash; both work, the new one is documented.
    path("hands/verify", undocumented(api.HandVerifyApi), name="api_hand_verify"),
    path("hands/verify/", api.HandVerifyApi.as_view(), name="api_hand_verify_slash"),
    path("hands/<id:hand_id>/", api.HandDetailApi.as_view(), name="api_hand_detail"),
    path(
        "clubs/<id:club_id>/postings/",
        ledger_api.PostingListApi.as_view(),
        name="api_posting_list",
    ),
    path(
        "clubs/<id:club_id>/postings/csv/",
        ledger_api.PostingCsvApi.as_view(),
        name="api_posting_csv",
    ),
    path(
        "clubs/<id:club_id>/balances/",
        ledger_api.ClubBalancesApi.as_view(),
        name="api_club_balances",
    ),
    path("clubs/<id:club_id>/stats/", ledger_api.ClubStatsApi.as_view(), name="api_club_stats"),
    path("clubs/<id:club_id>/seasons/", seasons.SeasonListApi.as_view(), name="api_season_list"),
    path(
        "seasons/<id:season_id>/standings/",
        seasons.SeasonStandingsApi.as_view(),
        name="api_season_standings",
    ),
    path(
        "sessions/<id:session_id>/balances/",
        ledger_api.SessionBalancesApi.as_view(),
        name="api_session_balances",
    ),
    path(
        "sessions/<id:session_id>/settlement/",
        ledger_api.SessionSettlementApi.as_view(),
        name="api_session_settlement",
    ),
    path(
        "sessions/<id:session_id>/settlement/csv/",
        ledger_api.SessionSettlementCsvApi.as_view(),
        name="api_session_settlement_csv",
    ),
    path("clubs/<id:club_id>/tab/", tab.TabApi.as_view(), name="api_club_tab"),
    path(
        "clubs/<id:club_id>/tab/history/",
        tab.TabHistoryApi.as_view(),
        name="api_club_tab_history",
    ),
    path(
        "clubs/<id:club_id>/tab/history/csv/",
        tab.TabHistoryCsvApi.as_view(),
        name="api_club_tab_history_csv",
    ),
    path(
        "clubs/<id:club_id>/tab/payments/",
        tab.PaymentListApi.as_view(),
        name="api_tab_payment_list",
    ),
    path(
        "tab/payments/<id:payment_id>/confirm/",
        tab.PaymentConfirmApi.as_view(),
        name="api_tab_payment_confirm",
    ),
    path(
        "tab/payments/<id:payment_id>/reverse/",
        tab.PaymentReverseApi.as_view(),
        name="api_tab_payment_reverse",
    ),
    path("tournaments/", tactions.TournamentListCreateApi.as_view(), name="api_tournament_list"),
    path(
        "tournaments/<id:tournament_id>/entries/",
        tactions.EntryListApi.as_view(),
        name="api_tournament_entries",
    ),
    path(
        "tournaments/<id:tournament_id>/entries/<id:entry_id>/<str:action>/",
        tactions.EntryActionApi.as_view(),
        name="api_tournament_entry_action",
    ),
    *[
        path(
            f"tournaments/<id:tournament_id>/{action}/",
            tactions.action_view(action),
            name=f"api_tournament_{action.replace('-', '_')}",
        )
        for action in ("start", "next-round", "balance", "end-round")
    ],
    path(
        "tournaments/<id:tournament_id>/clock/",
        tactions.ClockApi.as_view(),
        name="api_tournament_clock",
    ),
    path(
        "tournaments/<id:tournament_id>/cap/",
        cap_api.CapApi.as_view(),
        name="api_tournament_cap",
    ),
    path(
        "tournaments/<id:tournament_id>/tables/<int:number>/hands/",
        tactions.TableHandApi.as_view(),
        name="api_tournament_table_hands",
    ),
    path(
        "tournaments/<id:tournament_id>/deal/",
        tactions.DealApi.as_view(),
        name="api_tournament_deal",
    ),
    path(
        "tournaments/<id:tournament_id>/payouts/",
        tactions.PayoutsApi.as_view(),
        name="api_tournament_payouts",
    ),
    path(
        "tournaments/<id:tournament_id>/",
        tournaments.TournamentDetailApi.as_view(),
        name="api_tournament_detail",
    ),
    path(
        "tournaments/<id:tournament_id>/standings/",
        tournaments.TournamentStandingsApi.as_view(),
        name="api_tournament_standings",
    ),
    path(
        "tournaments/<id:tournament_id>/prizes/",
        tournaments.TournamentPrizesApi.as_view(),
        name="api_tournament_prizes",
    ),
    path(
        "tournaments/<id:tournament_id>/standings/csv/",
        tournaments.TournamentStandingsCsvApi.as_view(),
        name="api_tournament_standings_csv",
    ),
    path(
        "tournaments/<id:tournament_id>/prizes/csv/",
        tournaments.TournamentPrizesCsvApi.as_view(),
        name="api_tournament_prizes_csv",
    ),
    # Public, read-only, no login, CORS for GET (settings.CORS_URLS_REGEX): games.api.public.
    path(
        "public/tournaments/<str:token>/",
        public.PublicTournamentApi.as_view(),
        name="api_public_tournament",
    ),
    path(
        "public/tournaments/<str:token>/standings/",
        public.PublicStandingsApi.as_view(),
        name="api_public_tournament_standings",
    ),
    path(
        "public/tournaments/<str:token>/bracket/",
        public.PublicBracketApi.as_view(),
        name="api_public_tournament_bracket",
    ),
    path(
        "public/tournaments/<str:token>/clock/",
        public.PublicClockApi.as_view(),
        name="api_public_tournament_clock",
    ),
    path(
        "public/sessions/<str:token>/",
        public.PublicScoreboardApi.as_view(),
        name="api_public_session",
    ),
    path(
        "public/seasons/<str:token>/standings/",
        public.PublicSeasonStandingsApi.as_view(),
        name="api_public_season_standings",
    ),
]
