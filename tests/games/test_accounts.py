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
    assert response.status_code == 422
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


# -- password reset by e-mail (issue 14) ----------------------------------------------------


def test_password_reset_by_email_end_to_end(client, alice, mailoutbox):
    alice.email = "alice@example.com"
    alice.save()
    login = client.get(reverse("login")).content.decode()
    assert reverse("password_reset") in login
    sent = client.post(reverse("password_reset"), {"email": "alice@example.com"})
    assert sent.status_code == 302 and sent["Location"] == reverse("password_reset_done")
    assert len(mailoutbox) == 1 and mailoutbox[0].to == ["alice@example.com"]
    body = mailoutbox[0].body
    assert "alice" in body and "/accounts/password/reset/" in body
    link = next(line for line in body.splitlines() if "/accounts/password/reset/" in line)
    path = link.split("testserver", 1)[1]
    form = client.get(path, follow=True)
    assert form.status_code == 200 and "Choose a new password" in form.content.decode()
    done = client.post(
        form.redirect_chain[-1][0] if form.redirect_chain else path,
        {"new_password1": "brand-new-pass-77", "new_password2": "brand-new-pass-77"},
    )
    assert done.status_code == 302 and done["Location"] == reverse("password_reset_complete")
    alice.refresh_from_db()
    assert alice.check_password("brand-new-pass-77")
    # The link works once.
    again = client.get(path, follow=True).content.decode()
    assert "This link no longer works" in again


def test_password_reset_says_the_same_for_unknown_addresses(client, mailoutbox):
    sent = client.post(reverse("password_reset"), {"email": "nobody@example.com"})
    assert sent.status_code == 302 and mailoutbox == []


def test_password_reset_rate_limited_per_ip(client, settings, mailoutbox):
    settings.LOGIN_RATE_LIMIT = 2
    for _ in range(2):
        assert client.post(reverse("password_reset"), {"email": "x@example.com"}).status_code == 302
    refused = client.post(reverse("password_reset"), {"email": "x@example.com"})
    assert refused.status_code == 429 and "Too many reset requests" in refused.content.decode()


def test_signing_up_from_an_invitation_is_not_told_to_create_a_club(client):
    response = client.post(
        reverse("signup"),
        {
            "username": "guest",
            "password1": "a-long-pass-42",
            "password2": "a-long-pass-42",
            "next": "/invite/abc/",
        },
        follow=False,
    )
    assert response["Location"] == "/invite/abc/"
    from django.contrib.messages import get_messages

    texts = [m.message for m in get_messages(response.wsgi_request)]
    assert texts == ["Welcome, guest! Accept the invitation below to join the club."]


def test_refused_logins_and_passwords_answer_422_with_the_form_again(alice, alice_client, client):
    """Django's auth views answered a refused form with 200; the app's forms say 422."""
    wrong = client.post(reverse("login"), {"username": "alice", "password": "not-it"})
    assert wrong.status_code == 422 and wrong.context["form"].errors
    assert 'value="alice"' in wrong.content.decode()
    change = alice_client.post(
        reverse("password_change"),
        {"old_password": "wrong", "new_password1": "x-pass-99-y", "new_password2": "x-pass-99-y"},
    )
    assert change.status_code == 422 and "old_password" in change.context["form"].errors
    reset = client.post(reverse("password_reset"), {"email": "not an address"})
    assert reset.status_code == 422 and "email" in reset.context["form"].errors
