"""Digital hands: seat links (no login, the secret is the key), the scorekeeper's table,
the spectators' view and the replay of a finished hand."""

from django.urls import path

from games.digital import coach_views, link_views
from games.digital import views as digital

urlpatterns = [
    path("sessions/<id:session_id>/digital/", digital.table_page, name="digital_table"),
    path("sessions/<id:session_id>/digital/deal/", digital.deal, name="digital_deal"),
    path("sessions/<id:session_id>/digital/cancel/", digital.cancel, name="digital_cancel"),
    path(
        "sessions/<id:session_id>/digital/seats/<id:seat_id>/bot/",
        digital.seat_bot,
        name="digital_seat_bot",
    ),
    path(
        "sessions/<id:session_id>/digital/seats/<id:seat_id>/link/",
        link_views.seat_link,
        name="digital_seat_link",
    ),
    path(
        "sessions/<id:session_id>/digital/links/",
        link_views.seat_links_visibility,
        name="digital_links_visibility",
    ),
    path("sessions/<id:session_id>/digital/coach/", coach_views.coach_switch, name="digital_coach"),
    path("sessions/<id:session_id>/digital/watch/", digital.watch, name="digital_watch"),
    path("seat/<str:secret>/", digital.seat_page, name="digital_seat"),
    path("seat/<str:secret>/deal/", digital.seat_deal, name="digital_seat_deal"),
    path("seat/<str:secret>/state.json", digital.seat_state, name="digital_seat_state"),
    path(
        "seat/<str:secret>/hands/<id:hand_id>/replay/",
        digital.seat_replay,
        name="digital_seat_replay",
    ),
    path("seat/<str:secret>/hint/", coach_views.seat_hint, name="digital_seat_hint"),
    path(
        "seat/<str:secret>/hands/<id:hand_id>/review/",
        coach_views.seat_review,
        name="digital_seat_review",
    ),
    path("hands/<id:hand_id>/replay/", digital.replay_page, name="hand_replay"),
]
