import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_signup_creates_user_and_logs_in(client):
    response = client.post(
        reverse("signup"),
        {
            "username": "newbie",
            "email": "",
            "password1": "a-long-pass-42",
            "password2": "a-long-pass-42",
        },
    )
    assert response.status_code == 302
    assert get_user_model().objects.filter(username="newbie").exists()
    assert client.get(reverse("home")).context["user"].username == "newbie"


def test_signup_rejects_mismatched_passwords(client):
    response = client.post(
        reverse("signup"),
        {"username": "newbie", "password1": "a-long-pass-42", "password2": "other-pass-42"},
    )
    assert response.status_code == 200
    assert "password2" in response.context["form"].errors
    assert not get_user_model().objects.filter(username="newbie").exists()


def test_signup_ignores_offsite_next(client):
    response = client.post(
        reverse("signup") + "?next=https://evil.example/",
        {
            "username": "newbie",
            "password1": "a-long-pass-42",
            "password2": "a-long-pass-42",
            "next": "https://evil.example/",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("home")


def test_login_and_logout(client, alice, password):
    response = client.post(reverse("login"), {"username": "alice", "password": password})
    assert response.status_code == 302
    assert "_auth_user_id" in client.session
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session


def test_password_change(alice_client, alice, password):
    response = alice_client.post(
        reverse("password_change"),
        {
            "old_password": password,
            "new_password1": "brand-new-pass-77",
            "new_password2": "brand-new-pass-77",
        },
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password("brand-new-pass-77")


def test_password_change_needs_login(client):
    response = client.get(reverse("password_change"))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]
