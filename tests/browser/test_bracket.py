"""The bracket at phone size (390x844): rounds scroll sideways inside the bracket (never
the page), advancing players are marked in text as well as colour, and the page updates
itself while visible — answered 304 while nothing changed."""

import pytest

from games.models import Player, Round
from games.tournaments import service as svc
from ledger import postings
from tests.factories import seeded

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _two_round_tournament(club, user):
    t = svc.create_tournament(
        club=club,
        user=user,
        name="Bayou Bracket",
        buy_in=10,
        starting_chips=20,
        antes=[1, 2],
        min_table=4,
        max_table=4,
        hands_per_round=5,
        final_hands=4,
    )
    for i in range(8):
        player = Player.objects.create(club=club, name=f"Player {i + 1}")
        entry = svc.register(tournament_id=t.pk, player=player, user=user)
        svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=user)
    svc.start(tournament_id=seeded(t.pk, "phone-1"), user=user)
    svc.end_round(tournament_id=t.pk, user=user, now=True)
    svc.draw_next_round(tournament_id=t.pk, user=user)
    t.refresh_from_db()
    return t


def test_bracket_on_a_phone_scrolls_rounds_and_updates_itself(live_server, phone, club, alice):
    t = _two_round_tournament(club, alice)
    final = Round.objects.get(tournament=t, number=2).tables.get()
    statuses: list[int] = []
    page = phone
    page.on(
        "response",
        lambda r: statuses.append(r.status) if f"/t/{t.public_token}/" in r.url else None,
    )
    page.goto(f"{live_server.url}/t/{t.public_token}/")
    page.get_by_role("heading", name="Round 1").wait_for()
    page.get_by_role("heading", name="Final").wait_for()

    # No horizontal scrolling of the page itself; the rounds scroll inside the bracket.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    bracket = page.locator(".bracket")
    assert bracket.evaluate("el => el.scrollWidth > el.clientWidth")
    # Players who advanced are marked for screen readers too, not by colour alone.
    assert page.locator(".bracket-round").first.locator("li.adv").count() == 4
    assert "advances" in page.locator(".bracket-round").first.locator("li.adv").first.inner_text()
    # Swipe to the final: it comes into view.
    bracket.evaluate("el => el.scrollTo({left: el.scrollWidth})")
    page.get_by_role("heading", name="Final").scroll_into_view_if_needed()
    assert page.get_by_role("heading", name="Final").is_visible()

    # Nothing changes: the polls are answered 304 and the DOM stays.
    page.wait_for_timeout(5600)
    assert 304 in statuses

    # A hand at the final table: the open page shows the new chip counts by itself.
    session = final.session
    state = postings.session_state(session)
    a, b, c, d = state["players"]
    postings.record_hand(
        session_id=session.pk,
        entry={"trump": "H", "passed": [c, d], "tricks": {a: 3, b: 2}},
        idempotency_key="browser",
        expected_version=None,
        user=alice,
    )
    stacks = postings.player_stacks(session)
    winner_chips = max(stacks.values())
    final_column = page.locator(".bracket-round").last
    final_column.get_by_text(str(winner_chips), exact=True).first.wait_for(timeout=12_000)
    assert final_column.get_by_text("1/4 hands").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_ending_a_table_now_asks_first_and_cancel_changes_nothing(
    live_server, phone, login, club, alice, password
):
    t = svc.create_tournament(
        club=club, user=alice, name="Asked", buy_in=10, starting_chips=20, antes=[1, 2],
        min_table=4, max_table=4, hands_per_round=5, final_hands=4,
    )  # fmt: skip
    for i in range(8):
        player = Player.objects.create(club=club, name=f"Player {i + 1}")
        entry = svc.register(tournament_id=t.pk, player=player, user=alice)
        svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=alice)
    svc.start(tournament_id=seeded(t.pk, "phone-1"), user=alice)
    page = phone
    login(page, "alice", password)
    page.goto(f"{live_server.url}/tournaments/{t.pk}/")
    asked: list[str] = []

    def answer(dialog, accept: bool) -> None:
        asked.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", lambda d: answer(d, False))
    page.get_by_role("button", name="End now").first.click()
    page.wait_for_timeout(500)
    assert asked and "left dead" in asked[0]
    assert not Round.objects.get(tournament=t, number=1).tables.filter(status="finished").exists()
    page.once("dialog", lambda d: answer(d, True))
    page.get_by_role("button", name="End now").first.click()
    page.wait_for_load_state()
    page.wait_for_timeout(500)
    assert len(asked) == 2
    assert Round.objects.get(tournament=t, number=1).tables.exclude(status="playing").exists()
