from django.contrib.auth import views as auth_views
from django.urls import path

from .views import accounts, clubs

urlpatterns = [
    path("", clubs.home, name="home"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/login/", accounts.RateLimitedLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password/", accounts.PasswordChangeView.as_view(), name="password_change"),
    path("clubs/new/", clubs.club_create, name="club_create"),
    path("clubs/<id:club_id>/", clubs.club_detail, name="club_detail"),
    path("clubs/<id:club_id>/edit/", clubs.club_edit, name="club_edit"),
    path("clubs/<id:club_id>/players/", clubs.player_list, name="player_list"),
    path("players/<id:player_id>/edit/", clubs.player_edit, name="player_edit"),
    path("clubs/<id:club_id>/members/", clubs.member_list, name="member_list"),
    path("clubs/<id:club_id>/invites/", clubs.invite_create, name="invite_create"),
    path(
        "clubs/<id:club_id>/members/<id:membership_id>/role/",
        clubs.member_role,
        name="member_role",
    ),
    path(
        "clubs/<id:club_id>/members/<id:membership_id>/remove/",
        clubs.member_remove,
        name="member_remove",
    ),
    path("invite/<str:token>/", clubs.invite_accept, name="invite_accept"),
]
