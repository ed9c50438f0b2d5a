"""Every address answers only the methods it is for (issue 33, item 5; FINDINGS: "Read
pages accept POST and render 200").

The site's URL patterns are walked (``tests.world.routes``), each filled in with a real
club's ids. A page that is only read answers a POST with 405, an ``Allow`` header that
offers GET, and a page in the reader's language that says nothing was changed
(``templates/405.html``); an address that only takes a form answers a GET the same way.
``FORMS`` is the list of addresses that take a POST: a new page must either be added
there (and is then fuzzed by tests/test_fuzz_forms.py) or refuse POST. Under /api/v1/
every method the schema does not document for a path answers 405 as problem+json."""

from __future__ import annotations

import pytest
from django.test import Client
from drf_spectacular.generators import SchemaGenerator

from .world import World, build_world, routes

pytestmark = pytest.mark.django_db

# The addresses that take a POST (a form, a button, a seat's move): everything else is
# read only. set_language and logout take only a POST.
FORMS = {
    "settlement_tab",
    "tab_pay",
    "tab_settings",
    "tab_payment_confirm",
    "tab_payment_reverse",
    "session_new",
    "account_delete",
    "account_handles",
    "hand_record",
    "session_seats",
    "session_rules",
    "session_close",
    "hand_void",
    "hand_edit",
    "hand_correct",
    "settlement_mark",
    "session_share",
    "digital_deal",
    "digital_cancel",
    "digital_seat_bot",
    "digital_seat_link",
    "digital_links_visibility",
    "digital_coach",
    "digital_seat",
    "digital_seat_deal",
    "tournament_create",
    "tournament_edit",
    "tournament_entry_add",
    "tournament_checkin_all",
    "tournament_entry_action",
    "tournament_start",
    "tournament_cap",
    "tournament_next_round",
    "tournament_end_round",
    "tournament_table_end",
    "tournament_table_autoplay",
    "tournament_sync",
    "tournament_clock",
    "tournament_reseed",
    "tournament_roster",
    "tournament_deal",
    "season_create",
    "season_edit",
    "season_share",
    "signup",
    "login",
    "logout",
    "password_change",
    "password_reset",
    "password_reset_confirm",
    "club_create",
    "club_edit",
    "player_list",
    "player_edit",
    "player_archive",
    "invite_create",
    "member_role",
    "member_remove",
    "invite_accept",
    "token_list",
    "token_revoke",
    "set_language",
}
# Addresses that take only a POST: a GET of one is refused too.
POST_ONLY = {
    "season_share",
    "settlement_tab",
    "tab_pay",
    "tab_payment_confirm",
    "tab_payment_reverse",
    "hand_void",
    "hand_edit",
    "settlement_mark",
    "digital_deal",
    "digital_cancel",
    "digital_seat_bot",
    "digital_seat_link",
    "digital_links_visibility",
    "digital_coach",
    "digital_seat_deal",
    "tournament_entry_add",
    "tournament_checkin_all",
    "tournament_entry_action",
    "tournament_start",
    "tournament_cap",
    "tournament_next_round",
    "tournament_end_round",
    "tournament_table_end",
    "tournament_table_autoplay",
    "tournament_sync",
    "tournament_clock",
    "tournament_reseed",
    "tournament_roster",
    "tournament_deal",
    "logout",
    "player_archive",
    "invite_create",
    "member_role",
    "member_remove",
    "token_revoke",
    "set_language",
}
REFUSED = "That cannot be done here"


@pytest.fixture
def world(club, players, alice, bob, carol, mallory) -> World:
    return build_world(club, players, alice, bob, carol, mallory)


def _site_routes():
    return [r for r in routes() if not r.route.startswith("api/")]


def test_every_form_address_is_a_route():
    assert FORMS - {r.name for r in _site_routes()} == set()
    assert POST_ONLY <= FORMS


def test_read_pages_refuse_post_with_405_and_a_page_that_says_so(world, client):
    client.force_login(world.alice)
    read_only = [r for r in _site_routes() if r.name not in FORMS]
    assert len(read_only) > 30  # the walk found the site's pages
    for route in read_only:
        path = world.fill(route.route)
        response = client.post(path, {"name": "x"})
        assert response.status_code == 405, (route.name, path, response.status_code)
        assert "GET" in response["Allow"].split(", "), route.name
        assert response["Content-Type"].startswith("text/html"), route.name
        page = response.content.decode()
        assert REFUSED in page and "nothing was changed" in page, route.name


def test_a_post_to_the_scoreboard_changes_nothing_and_says_so_in_the_readers_language(
    world, client
):
    client.force_login(world.alice)
    version = world.table.version
    response = client.post(f"/sessions/{world.table.pk}/", headers={"Accept-Language": "es"})
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"
    page = response.content.decode()
    assert REFUSED not in page and "No se puede hacer aquí" in page
    world.table.refresh_from_db()
    assert world.table.version == version


def test_form_addresses_take_a_post(world, client):
    client.force_login(world.alice)
    for name in sorted(FORMS - {"logout"}):
        route = next(r for r in _site_routes() if r.name == name)
        response = client.post(world.fill(route.route), {})
        assert response.status_code != 405, name
    # Last: it signs alice out.
    assert client.post("/accounts/logout/").status_code != 405


def test_post_only_addresses_refuse_a_get_with_a_page(world, client):
    client.force_login(world.alice)
    for name in sorted(POST_ONLY):
        route = next(r for r in _site_routes() if r.name == name)
        response = client.get(world.fill(route.route))
        assert response.status_code == 405, name
        assert "POST" in response["Allow"].split(", "), name
        if name not in ("logout", "set_language"):  # Django's LogoutView, games.language
            assert REFUSED in response.content.decode(), name


def test_api_methods_a_path_does_not_document_answer_405_as_problem_json(world):
    schema = SchemaGenerator().get_schema(request=None, public=True)
    api = Client(headers={"Authorization": f"Bearer {world.api_key}"})
    checked = 0
    for route, operations in schema["paths"].items():
        path = world.fill(route)
        for method in ("get", "post", "put", "patch", "delete"):
            if method in operations:
                continue
            response = api.generic(method.upper(), path, "{}", content_type="application/json")
            assert response.status_code == 405, (method, path, response.status_code)
            allowed = {m.strip() for m in response["Allow"].split(",")}
            assert {m.upper() for m in operations if m != "parameters"} <= allowed, path
            assert response["Content-Type"] == "application/problem+json", path
            assert response.json()["status"] == 405
            checked += 1
    assert checked > 50
