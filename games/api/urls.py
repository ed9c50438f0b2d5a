"""REST API v1, mounted at /api/v1/: clubs, players, sessions, hands, the ledger and
tournaments."""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from games.api import ledger as ledger_api
from games.api import tournament_actions as tactions
from games.api import tournaments
from games.api import views as api

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api_schema"),
    # The split view serves its start-up script as a file: no inline script under the CSP.
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api_schema"), name="api_docs"),
    path("clubs/", api.ClubListApi.as_view(), name="api_club_list"),
    path("clubs/<id:club_id>/", api.ClubDetailApi.as_view(), name="api_club_detail"),
    path("clubs/<id:club_id>/players/", api.PlayerListApi.as_view(), name="api_player_list"),
    path("players/<id:player_id>/", api.PlayerDetailApi.as_view(), name="api_player_detail"),
    path("clubs/<id:club_id>/sessions/", api.SessionListApi.as_view(), name="api_session_list"),
    path("sessions/<id:session_id>/", api.SessionDetailApi.as_view(), name="api_session_detail"),
    path("sessions/<id:session_id>/hands/", api.HandListApi.as_view(), name="api_hand_list"),
    path("hands/verify", api.HandVerifyApi.as_view(), name="api_hand_verify"),
    path("hands/<id:hand_id>/", api.HandDetailApi.as_view(), name="api_hand_detail"),
    path(
        "clubs/<id:club_id>/postings/",
        ledger_api.PostingListApi.as_view(),
        name="api_posting_list",
    ),
    path(
        "clubs/<id:club_id>/balances/",
        ledger_api.ClubBalancesApi.as_view(),
        name="api_club_balances",
    ),
    path("clubs/<id:club_id>/stats/", ledger_api.ClubStatsApi.as_view(), name="api_club_stats"),
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
]
