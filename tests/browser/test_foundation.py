import pytest

from games.models import Club, Player

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_sign_up_create_club_add_player_at_phone_size(live_server, phone):
    page = phone
    page.goto(live_server.url + "/")
    page.get_by_role("link", name="Create an account").click()
    page.get_by_label("Username").fill("hostess")
    page.get_by_label("Password", exact=True).fill("kitchen-table-42")
    page.get_by_label("Password confirmation").fill("kitchen-table-42")
    page.get_by_role("button", name="Sign up").click()
    page.get_by_role("link", name="New club").click()
    page.get_by_label("Name").fill("Thursday Table")
    page.get_by_role("button", name="Create club").click()
    page.get_by_role("heading", name="Thursday Table").wait_for()
    page.get_by_role("link", name="Add or edit players").click()
    page.get_by_label("Player name").fill("Boudreaux")
    page.get_by_role("button", name="Add player").click()
    page.locator("#player-list").get_by_text("Boudreaux").wait_for()
    # No horizontal scrolling on a 390 px phone.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    club = Club.objects.get(name="Thursday Table")
    assert list(Player.objects.filter(club=club).values_list("name", flat=True)) == ["Boudreaux"]
    assert club.memberships.get().user.username == "hostess"
