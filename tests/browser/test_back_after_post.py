"""Back after a plain POST: a page that answered a form (a correction's confirmation, a
form shown again with its problems) comes back as a plain visit, not the browser's "send
the form again?" page a person at the table cannot read."""

import pytest

from games.models import Hand
from ledger import postings
from tests.games.test_session_views import WIN_ANN, record_direct, start_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_back_after_saving_a_correction_shows_the_correction_page(
    live_server, phone, login, club, players, bob, password
):
    table = start_table(club, players, bob)
    first = record_direct(table, bob, **WIN_ANN)  # dee bourré
    record_direct(table, bob, tricks={"ann": 1, "ben": 4})
    page = phone
    login(page, "bob", password)
    page.goto(f"{live_server.url}/hands/{first.pk}/correct/")
    # dee passed after all: tap her "passed" and ask for the confirmation (a POST).
    page.locator('[data-row][data-name="dee"] label.who').click()
    page.get_by_role("button", name="Check what changes").click()
    page.get_by_role("button", name="Save the correction").wait_for()
    page.get_by_role("button", name="Save the correction").click()
    page.wait_for_url(f"{live_server.url}/hands/{first.pk}/")
    assert Hand.objects.get(pk=first.pk).record["passed"] == ["dee"]
    postings.check_invariants(table)

    response = page.go_back()
    # A plain visit of the correction page: a 200 from the server, the page readable.
    assert response is not None and response.status == 200
    assert response.request.method == "GET"
    page.get_by_role("heading", name="Correct hand 1").wait_for()
