"""Settlement and CSV downloads of a session's money."""

from django.urls import path

from . import views

urlpatterns = [
    path("sessions/<id:session_id>/settlement/", views.settlement, name="session_settlement"),
    path(
        "sessions/<id:session_id>/settlement/paid/",
        views.settlement_mark,
        name="settlement_mark",
    ),
    path(
        "sessions/<id:session_id>/settlement.csv",
        views.settlement_csv,
        name="settlement_csv",
    ),
    path("sessions/<id:session_id>/ledger.csv", views.ledger_csv, name="ledger_csv"),
]
