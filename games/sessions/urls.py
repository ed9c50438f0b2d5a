"""Session pages: start, scoreboard, record/undo/edit a hand, seats, rules, close,
history, the club's player statistics, the settlement with its CSV downloads, and the
share link (a read-only scoreboard without an account) with each player's statement."""

from django.urls import path

from games.sessions import correct, rules_views, seat_views, settlement, share_views
from games.sessions import views as sessions

urlpatterns = [
    path("clubs/<id:club_id>/sessions/new/", sessions.session_new, name="session_new"),
    path("clubs/<id:club_id>/stats/", sessions.club_stats, name="club_stats"),
    path("sessions/<id:session_id>/", sessions.session_detail, name="session_detail"),
    path("sessions/<id:session_id>/record/", sessions.hand_record, name="hand_record"),
    path("sessions/<id:session_id>/history/", sessions.session_history, name="session_history"),
    path(
        "sessions/<id:session_id>/history/chart/",
        sessions.session_history_chart,
        name="session_history_chart",
    ),
    path("sessions/<id:session_id>/seats/", seat_views.session_seats, name="session_seats"),
    path("sessions/<id:session_id>/rules/", rules_views.session_rules, name="session_rules"),
    path("sessions/<id:session_id>/close/", sessions.session_close, name="session_close"),
    path("hands/<id:hand_id>/", sessions.hand_detail, name="hand_detail"),
    path("hands/<id:hand_id>/undo/", sessions.hand_void, name="hand_void"),
    path("hands/<id:hand_id>/edit/", sessions.hand_edit, name="hand_edit"),
    path("hands/<id:hand_id>/correct/", correct.hand_correct, name="hand_correct"),
    path("sessions/<id:session_id>/settlement/", settlement.settlement, name="session_settlement"),
    path(
        "sessions/<id:session_id>/settlement/paid/",
        settlement.settlement_mark,
        name="settlement_mark",
    ),
    path(
        "sessions/<id:session_id>/settlement/tab/",
        settlement.settlement_tab,
        name="settlement_tab",
    ),
    path(
        "sessions/<id:session_id>/settlement.csv",
        settlement.settlement_csv,
        name="settlement_csv",
    ),
    path("sessions/<id:session_id>/ledger.csv", settlement.ledger_csv, name="ledger_csv"),
    path("sessions/<id:session_id>/share/", share_views.session_share, name="session_share"),
    path("sessions/<id:session_id>/me/", share_views.session_me, name="session_me"),
    path("share/<str:token>/", share_views.share_board, name="share_board"),
    path("share/<str:token>/history/", share_views.share_history, name="share_history"),
    path("share/<str:token>/me/", share_views.share_me, name="share_me"),
]
