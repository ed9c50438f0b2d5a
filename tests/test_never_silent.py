"""Issue #13 on the server's side: a plain-POST resubmission of a recorded hand (Back then
Save without JavaScript) records nothing twice; the installable app's manifest, service
worker and offline page; refused forms link their errors (aria); a database outage while
recording answers 503 with Retry-After, never a bare 500.
(The browser's side is tests/browser/test_never_silent.py.)"""

import json
import struct
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.db import OperationalError
from django.urls import reverse

from bourre_site import pwa
from games.models import Hand
from ledger.invariants import check_invariants
from tests.games.test_session_views import HTMX, hand_data, new_session_data, start_table

pytestmark = pytest.mark.django_db

TWO_PLAY = {"tricks": {"ann": 3, "ben": 2}, "passed": ("cal", "dee")}


@pytest.fixture
def table(club, players, bob):
    return start_table(club, players, bob)


def test_back_then_save_replays_the_same_key_and_refuses_a_fresh_key_for_an_old_version(
    bob_client, table
):
    url = reverse("hand_record", args=[table.pk])
    posted = hand_data(table, **TWO_PLAY)
    first = bob_client.post(url, posted)
    assert first.status_code == 302
    hand = Hand.objects.get(session=table)

    # The browser restored the page as it was: the same key answers the saved hand.
    again = bob_client.post(url, posted, follow=True)
    assert again.redirect_chain[-1][0] == reverse("hand_detail", args=[hand.pk])
    assert "was already saved" in again.content.decode()

    # A fresh key on the form rendered for the old version: refused, with the fresh form.
    resent = bob_client.post(url, {**posted, "idempotency_key": "another-key"})
    assert resent.status_code == 409
    html = resent.content.decode()
    assert "The table moved on" in html
    table.refresh_from_db()
    assert f'name="version" value="{table.version}"' in html
    assert Hand.objects.filter(session=table).count() == 1
    check_invariants(table)


def test_the_record_form_is_named_after_its_version(bob_client, table):
    # Browsers refill a form after Back by its first named fields: the version in the name
    # keeps a fresh copy from being refilled with the saved hand's taps.
    html = bob_client.get(reverse("hand_record", args=[table.pk])).content.decode()
    assert f'name="for_v{table.version}" hidden disabled' in html
    assert html.index(f'name="for_v{table.version}"') < html.index('name="trump"')


def _png_size(path: str) -> tuple[int, int]:
    data = Path(path).read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_manifest_names_the_app_and_its_local_icons(client):
    response = client.get(reverse("web_manifest"))
    assert response["Content-Type"] == "application/manifest+json"
    data = json.loads(response.content)
    assert data["display"] == "standalone" and data["start_url"] == "/" and data["scope"] == "/"
    purposes = set()
    for icon in data["icons"]:
        assert icon["src"].startswith("/static/img/")
        found = finders.find(icon["src"].removeprefix("/static/"))
        assert found, icon["src"]
        width, height = _png_size(str(found))
        assert f"{width}x{height}" == icon["sizes"]
        purposes.add(icon["purpose"])
    assert {"any", "maskable"} <= purposes
    assert {icon["sizes"] for icon in data["icons"]} >= {"192x192", "512x512"}


def test_service_worker_is_served_from_the_root_with_the_release_and_shell(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    head, _, body = response.content.decode().partition("\n")
    config = json.loads(head.removeprefix("self.BOURRE = ").removesuffix(";"))
    assert config["release"] == pwa.release()
    assert "/static/css/app.css" in config["shell"] and "/static/js/queue.js" in config["shell"]
    assert config["offline"] == reverse("offline")
    assert 'addEventListener("fetch"' in body


def test_a_new_release_gets_a_new_cache_name(settings, tmp_path):
    (tmp_path / "app.css").write_text("body {}")
    settings.STATICFILES_DIRS = [tmp_path]
    pwa.release.cache_clear()
    try:
        before = pwa.release()
        (tmp_path / "app.css").write_text("body { color: red }")
        pwa.release.cache_clear()
        assert pwa.release() != before
    finally:
        pwa.release.cache_clear()


def test_offline_page_stands_alone(bob_client):
    response = bob_client.get(reverse("offline"))
    html = response.content.decode()
    assert response.status_code == 200 and "No connection" in html
    assert "bob" not in html  # one copy serves every user of the phone: no user menu


def test_every_page_links_the_manifest_and_the_worker_and_sets_an_htmx_timeout(client):
    html = client.get(reverse("login")).content.decode()
    assert f'rel="manifest" href="{reverse("web_manifest")}"' in html
    assert 'name="bourre-sw" content="/sw.js"' in html
    config = html.split('name="htmx-config" content=\'')[1].split("'")[0]
    assert json.loads(config)["timeout"] > 0


def test_refused_fields_are_marked_invalid_and_point_at_their_errors(alice_client):
    response = alice_client.post(reverse("club_create"), {"name": ""})
    html = response.content.decode()
    assert 'aria-invalid="true"' in html
    assert 'aria-describedby="id_name_errors' in html
    assert 'id="id_name_errors"' in html


def test_a_bad_pot_limit_opens_the_house_rules_section(bob_client, club, players):
    data = new_session_data(players, pot_limit="-5")
    response = bob_client.post(reverse("session_new", args=[club.pk]), data)
    html = response.content.decode()
    assert response.status_code in (200, 422)
    assert '<details class="house-rules" open>' in html
    assert 'id="id_pot_limit_errors"' in html
    assert 'aria-describedby="id_pot_limit_errors' in html


@pytest.mark.parametrize("htmx", [False, True])
def test_database_outage_while_recording_is_503_with_retry_after(
    bob_client, table, monkeypatch, htmx
):
    from ledger import postings

    def down(*args, **kwargs):
        raise OperationalError("the database system is shutting down")

    monkeypatch.setattr(postings, "record_hand_with_legs", down)  # the record POST's call
    response = bob_client.post(
        reverse("hand_record", args=[table.pk]),
        hand_data(table, **TWO_PLAY),
        **(HTMX if htmx else {}),
    )
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    assert "Nothing was saved" in response.content.decode()


def test_a_rules_form_for_rules_changed_since_is_refused_with_the_fresh_rules(bob_client, table):
    from tests.games.test_session_views import _rules_data

    url = reverse("session_rules", args=[table.pk])
    page = bob_client.get(url)
    seen = page.context["rules_seen"]
    assert f'name="rules_seen" value="{seen}"' in page.content.decode()
    # Another phone raises the ante while this form is open...
    assert bob_client.post(url, {**_rules_data(ante=2), "rules_seen": seen}).status_code == 302
    # ...and this one, rendered for the old rules, would put it back without a word.
    stale = bob_client.post(url, {**_rules_data(ante=1, max_discard=4), "rules_seen": seen})
    assert stale.status_code == 409
    assert "changed elsewhere" in stale.content.decode()
    table.refresh_from_db()
    assert table.rules["ante"] == 2 and table.rules["max_discard"] == 5
    assert stale.context["form"]["ante"].value() == 2  # the fresh form shows them as they are
