"""The API token settings page: create (key shown once), list, revoke."""

import re

from django.test import Client
from django.urls import reverse

from games.clubs.tokens import MAX_ACTIVE_TOKENS
from games.models import ApiToken
from games.models.club import hash_token

URL = "/settings/tokens/"


def test_anonymous_is_sent_to_login(client):
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_creating_shows_the_key_once_and_stores_only_its_hash(bob_client, bob):
    response = bob_client.post(URL, {"name": "spreadsheet"})
    assert response.status_code == 201
    assert response["Cache-Control"] == "private, no-store"
    key = re.search(r'value="(brt_[^"]+)"', response.content.decode()).group(1)
    token = ApiToken.objects.get(user=bob)
    assert token.name == "spreadsheet"
    assert token.key_hash == hash_token(key) and key not in token.key_hash
    # The key works, and the list page never shows it again.
    api = Client(headers={"Authorization": f"Bearer {key}"})
    assert api.get("/api/v1/clubs/").status_code == 200
    page = bob_client.get(URL).content.decode()
    assert "spreadsheet" in page and token.hint in page
    assert key not in page


def test_the_list_shows_only_my_tokens(bob_client, bob, alice):
    ApiToken.issue(bob, "mine")
    ApiToken.issue(alice, "hers")
    page = bob_client.get(URL).content.decode()
    assert "mine" in page and "hers" not in page


def test_a_name_is_required(bob_client, bob):
    response = bob_client.post(URL, {"name": ""})
    assert response.status_code == 422
    assert not ApiToken.objects.filter(user=bob).exists()


def test_active_tokens_are_capped(bob_client, bob):
    for i in range(MAX_ACTIVE_TOKENS):
        ApiToken.issue(bob, f"t{i}")
    response = bob_client.post(URL, {"name": "one too many"})
    assert response.status_code == 422
    assert ApiToken.objects.filter(user=bob).count() == MAX_ACTIVE_TOKENS


def test_revoking_stops_the_token(bob_client, bob, club):
    token, key = ApiToken.issue(bob, "old")
    api = Client(headers={"Authorization": f"Bearer {key}"})
    assert api.get("/api/v1/clubs/").status_code == 200
    response = bob_client.post(reverse("token_revoke", args=[token.pk]))
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert api.get("/api/v1/clubs/").status_code == 401
    assert "revoked" in bob_client.get(URL).content.decode()


def test_revoking_with_htmx_returns_the_list_partial(bob_client, bob):
    token, _ = ApiToken.issue(bob, "old")
    response = bob_client.post(
        reverse("token_revoke", args=[token.pk]), headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="tokens"' in html and "<html" not in html
    assert "revoked" in html


def test_someone_elses_token_is_404(mallory_client, bob):
    token, key = ApiToken.issue(bob, "bobs")
    response = mallory_client.post(reverse("token_revoke", args=[token.pk]))
    assert response.status_code == 404
    token.refresh_from_db()
    assert token.revoked_at is None


def test_revoke_needs_post(bob_client, bob):
    token, _ = ApiToken.issue(bob, "x")
    assert bob_client.get(reverse("token_revoke", args=[token.pk])).status_code == 405


def test_a_token_may_expire_and_the_list_says_so(bob_client, bob):
    from datetime import timedelta

    from django.utils import timezone

    response = bob_client.post(URL, {"name": "month", "expires_in_days": "30"})
    assert response.status_code == 201
    token = ApiToken.objects.get(user=bob)
    left = token.expires_at - timezone.now()
    assert timedelta(days=29, hours=23) < left <= timedelta(days=30)
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(days=1))
    assert "expired" in bob_client.get(URL).content.decode()


def test_after_a_password_change_the_list_says_so(bob_client, bob):
    ApiToken.issue(bob, "old")
    bob.set_password("brand-new-pass-1")
    bob.save()
    bob_client.force_login(bob)  # the change also ended the old login
    page = bob_client.get(URL).content.decode()
    assert "password changed" in page


def test_a_read_only_token_is_made_on_the_page_and_marked_in_the_list(bob_client, bob, game):
    response = bob_client.post(URL, {"name": "league site", "scope": "read"})
    assert response.status_code == 201
    key = re.search(r'value="(brt_[^"]+)"', response.content.decode()).group(1)
    assert ApiToken.objects.get(user=bob).scope == ApiToken.Scope.READ
    api = Client(headers={"Authorization": f"Bearer {key}"})
    assert api.get(f"/api/v1/sessions/{game.pk}/").status_code == 200
    refused = api.post(f"/api/v1/sessions/{game.pk}/close/", {}, content_type="application/json")
    assert refused.status_code == 403
    page = bob_client.get(URL).content.decode()
    assert '<span class="badge">Read only</span>' in page
    # Without a choice (an older form), a token reads and writes, as before scopes.
    bob_client.post(URL, {"name": "spreadsheet"})
    assert ApiToken.objects.get(user=bob, name="spreadsheet").scope == ApiToken.Scope.WRITE
    page = bob_client.get(URL).content.decode()
    assert "spreadsheet" in page
    assert page.count('<span class="badge">Read only</span>') == 1
