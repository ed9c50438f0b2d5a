"""Which record forms take back the taps a tab kept (static/js/record.js): only the blank
form of a GET; a form the server re-showed with the posted values (409, 422) or a copy of
an old hand ("from") brings its own, and the result of a saved hand clears them."""

import pytest
from django.urls import reverse

from .test_session_views import HTMX, WIN_ANN, hand_data, record, record_direct, start_table

pytestmark = pytest.mark.django_db

RESTORE = 'data-draft="restore"'
NOTICE = "Your taps are back from before the reload."


@pytest.fixture
def table(club, players, bob):
    return start_table(club, players, bob)


def _form_tag(html: str) -> str:
    """The record form's start tag (its attributes one per line, as djlint writes them)."""
    start = html.rindex("<form", 0, html.index('class="record-form"'))
    return html[start : html.index(">", start)]


def test_the_blank_form_may_take_back_the_kept_taps(bob_client, table):
    html = bob_client.get(reverse("hand_record", args=[table.pk])).content.decode()
    assert RESTORE in _form_tag(html)
    assert f'data-session="{table.pk}"' in _form_tag(html)
    # The line is there, hidden until the script has put taps back.
    assert f"data-draft-restored hidden>{NOTICE}</p>" in html


def test_a_copy_of_an_old_hand_is_not_filled_from_the_tab(bob_client, table, bob):
    hand = record_direct(table, user=bob, **WIN_ANN)
    url = reverse("hand_record", args=[table.pk]) + f"?from={hand.pk}"
    html = bob_client.get(url).content.decode()
    assert "data-draft" in _form_tag(html) and RESTORE not in html and NOTICE not in html


def test_forms_the_server_reshows_keep_their_posted_values(bob_client, table, bob):
    url = reverse("hand_record", args=[table.pk])
    invalid = bob_client.post(url, hand_data(table, tricks={"ann": 3, "ben": 3}), **HTMX)
    assert invalid.status_code == 422
    assert "data-draft" in _form_tag(invalid.content.decode())
    assert RESTORE not in invalid.content.decode()
    stale = hand_data(table, **WIN_ANN)
    record_direct(table, user=bob, **WIN_ANN)
    moved = bob_client.post(url, stale, **HTMX)
    assert moved.status_code == 409
    assert RESTORE not in moved.content.decode() and NOTICE not in moved.content.decode()


def test_the_result_of_a_saved_hand_names_its_session(bob_client, table):
    html = record(bob_client, table, htmx=True, **WIN_ANN).content.decode()
    assert f'data-hand-saved="{table.pk}"' in html
