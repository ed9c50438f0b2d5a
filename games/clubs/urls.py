"""Clubs and people: home, accounts (sign-up, login, password), clubs, players, members,
invites, personal API tokens, the club's tab (issue #34), and the account page (download my data, delete my account)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from games.clubs import account_views, accounts, tab_views, tokens, views, webhooks

urlpatterns = [
    path("", views.home, name="home"),
    path("rules/", views.rule_book, name="rule_book"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/login/", accounts.RateLimitedLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password/", accounts.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password/reset/", accounts.PasswordResetView.as_view(), name="password_reset"),
    path(
        "accounts/password/reset/sent/",
        accounts.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        accounts.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/done/",
        accounts.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("clubs/new/", views.club_create, name="club_create"),
    path("clubs/<id:club_id>/", views.club_detail, name="club_detail"),
    path("clubs/<id:club_id>/edit/", views.club_edit, name="club_edit"),
    path("clubs/<id:club_id>/players/", views.player_list, name="player_list"),
    path("players/<id:player_id>/edit/", views.player_edit, name="player_edit"),
    path("players/<id:player_id>/archive/", views.player_archive, name="player_archive"),
    path("clubs/<id:club_id>/members/", views.member_list, name="member_list"),
    path("clubs/<id:club_id>/invites/", views.invite_create, name="invite_create"),
    path(
        "clubs/<id:club_id>/members/<id:membership_id>/role/",
        views.member_role,
        name="member_role",
    ),
    path(
        "clubs/<id:club_id>/members/<id:membership_id>/remove/",
        views.member_remove,
        name="member_remove",
    ),
    path("clubs/<id:club_id>/webhooks/", webhooks.webhook_log, name="club_webhooks"),
    path("clubs/<id:club_id>/tab/", tab_views.club_tab, name="club_tab"),
    path("clubs/<id:club_id>/tab/pay/", tab_views.tab_pay, name="tab_pay"),
    path("clubs/<id:club_id>/tab/settings/", tab_views.tab_settings, name="tab_settings"),
    path(
        "clubs/<id:club_id>/tab/players/<id:player_id>/",
        tab_views.tab_player,
        name="tab_player",
    ),
    *[
        path(
            f"clubs/<id:club_id>/tab/payments/<id:payment_id>/{action}/",
            tab_views.tab_payment_action,
            {"action": action},
            name=f"tab_payment_{action}",
        )
        for action in ("confirm", "reverse")
    ],
    path("invite/<str:token>/", views.invite_accept, name="invite_accept"),
    path("settings/tokens/", tokens.token_list, name="token_list"),
    path("settings/tokens/<id:token_id>/revoke/", tokens.token_revoke, name="token_revoke"),
    path("settings/account/", account_views.account, name="account"),
    path("settings/account/handles/", account_views.account_handles, name="account_handles"),
    path("settings/account/data.json", account_views.account_data, name="account_data"),
    path("settings/account/delete/", account_views.account_delete, name="account_delete"),
]
