"""The director's dashboard warns about a short table or tables out of balance at a
running freeze-out (games.tournaments.tables.balance_outlook, selectors.balance_warnings):
balancing happens by itself only after a table's own hand with an empty pot, so until
then the dashboard says what will happen and what it waits for — in the reader's
language — and the warning goes once it is done."""

import re

import pytest
from django.urls import reverse
from django.utils import translation

from games.models import GameSession, SeatMove, TournamentTable
from games.tournaments import selectors, tables
from games.tournaments import service as svc
from tests.factories import seeded

from .test_tournament_service import (
    check_books,
    make_tournament,
    names,
    record,
    started_freezeout,
    table,
    win,
)

pytestmark = pytest.mark.django_db


def warnings(page: str) -> list[str]:
    """The texts of the dashboard's balance warning, in order ([] when there is none)."""
    found = re.search(r'<section class="card msg-warning balance-warning".*?</section>', page, re.S)
    if not found:
        return []
    return [
        re.sub(r"\s+", " ", x).strip() for x in re.findall(r"<li>(.*?)</li>", found.group(0), re.S)
    ]


def bust_one_at_table_two(t):
    """Table 2 (4 players): one bourrés with 3 chips left when the pot is 4 — out, and
    the penalty stays in table 2's pot. Table 2 now has 3, table 1 still 5."""
    two = table(t, 2)
    s2 = list(names(two.session))
    record(two.session, {"trump": "C", "passed": [s2[2]], "tricks": {s2[0]: 3, s2[1]: 2, s2[3]: 0}})
    return two


def test_a_short_table_and_an_imbalance_are_announced_until_balancing_is_done(
    club, alice, alice_client
):
    t, _ = started_freezeout(club, alice)  # tables of 4 to 7: 5 at table 1, 4 at table 2
    url = reverse("tournament_detail", args=[t.pk])
    assert warnings(alice_client.get(url).content.decode()) == []
    bust_one_at_table_two(t)
    assert not SeatMove.objects.exists()  # table 1 may be mid-hand: nothing moved yet

    said = warnings(alice_client.get(url).content.decode())
    # Table 2 is short, and a player from table 1 brings it back to the minimum: that
    # move is what the director reads (with what it waits for).
    assert said == [
        "Table 1 has 5 players and table 2 has 3: 1 player moves from table 1 to table 2. "
        "This happens after the next hand at table 1; between hands, “Check the tables” "
        "does it now."
    ]
    # In the reader's language, like the rest of the dashboard.
    spanish = warnings(alice_client.get(url, HTTP_ACCEPT_LANGUAGE="es").content.decode())
    assert len(spanish) == 1 and "mesa 1" in spanish[0] and "Table" not in spanish[0]

    # Table 1's next hand (its pot won clean) sends a player over: the warning goes.
    one = table(t, 1)
    s1 = list(names(one.session))
    record(one.session, win(s1, s1[0], {s1[1]: 2}))
    assert SeatMove.objects.filter(reason="balance").count() == 1
    assert warnings(alice_client.get(url).content.decode()) == []
    check_books(t)


def test_the_directors_check_does_the_waiting_move_now(club, alice, alice_client):
    t, _ = started_freezeout(club, alice)
    bust_one_at_table_two(t)
    url = reverse("tournament_detail", args=[t.pk])
    page = alice_client.get(url).content.decode()
    assert len(warnings(page)) == 1
    assert reverse("tournament_sync", args=[t.pk]) in page.split("balance-warning")[1]
    alice_client.post(reverse("tournament_sync", args=[t.pk]))
    assert SeatMove.objects.filter(reason="balance").count() == 1
    assert warnings(alice_client.get(url).content.decode()) == []
    check_books(t)


def _second_bourre_at_table_two(t):
    """After ``bust_one_at_table_two`` and a clean hand at table 1 (4 and 4): another
    bourré at table 2 knocks one more out — 3 left, a penalty in its pot, and 4 + 3 fit
    one table of 7."""
    two = table(t, 2)
    info = tables.table_infos([two])[two.pk]
    seated = [r["player__name"] for r in info.seats if r["player_id"] in info.alive]
    record(
        two.session,
        {"trump": "C", "passed": seated[2:3], "tricks": {seated[0]: 3, seated[1]: 2, seated[3]: 0}},
    )
    return two


def test_play_out_a_short_table_waits_for_its_pot(club, alice):
    """T1 ``play_out``: the short table keeps dealing until its pot is won; the dashboard
    says so."""
    t, _ = started_freezeout(club, alice, break_pot="play_out", max_table=8)  # 5 and 4
    two = bust_one_at_table_two(t)
    assert len(tables.table_infos([two])[two.pk].alive) == 3
    two.refresh_from_db()
    pot = GameSession.objects.get(pk=two.session_id).carry
    assert two.status == TournamentTable.Status.PLAYING and pot > 0
    t.refresh_from_db()
    notes = tables.balance_outlook(t)
    assert [(n.kind, n.table, n.players, n.wait, n.pot) for n in notes] == [
        ("break", 2, 3, "pot", pot)
    ]
    with translation.override("en"):
        assert selectors.balance_warnings(notes) == [
            "Table 2 has 3 players (minimum 4): it breaks up and its players move to the other "
            f"tables. First the pot at table 2 ({pot} chips) must be won."
        ]
    # It deals (nobody joins it meanwhile); once its pot is won clean, it breaks.
    info = tables.table_infos([two])[two.pk]
    seated = [r["player__name"] for r in info.seats if r["player_id"] in info.alive]
    record(two.session, win(seated, seated[0], {seated[1]: 2}))
    two.refresh_from_db()
    assert two.status == TournamentTable.Status.BROKEN and not two.result["pot_moved"]
    check_books(t)


def test_move_a_short_table_breaks_at_once_and_its_pot_goes_with_its_players(club, alice):
    """T1 ``move`` (the default): the same short table breaks right after the hand that
    left it short, pot and all; the chips of its pot arrive at table 1, which received
    all three players, and no chip is lost (the chip report and every ledger balance)."""
    t, _ = started_freezeout(club, alice)
    bust_one_at_table_two(t)
    one = table(t, 1)
    s1 = list(names(one.session))
    record(one.session, win(s1, s1[0], {s1[1]: 2}))
    one_pot_before = GameSession.objects.get(pk=one.session_id).carry
    two = _second_bourre_at_table_two(t)
    two.refresh_from_db()
    assert two.status == TournamentTable.Status.BROKEN
    pot = two.result["pot"]
    assert pot > 0 and two.result["pot_moved"] == {"1": pot} and not two.result["pot_awarded"]
    assert GameSession.objects.get(pk=one.session_id).carry == one_pot_before + pot
    assert GameSession.objects.get(pk=two.session_id).carry == 0
    assert SeatMove.objects.filter(reason="break", source=two).count() == 3
    t.refresh_from_db()
    assert tables.balance_outlook(t) == []
    check_books(t)


def test_a_short_table_the_others_have_no_room_for_is_announced(club, alice, alice_client):
    """Two tables of exactly 4 (minimum and maximum 4): one player out at table 2 leaves
    it short, and table 1 is full — it stays short until someone goes out there."""
    t = make_tournament(
        club,
        alice,
        n=8,
        format="freezeout",
        starting_chips=4,
        antes=[1],
        hands_per_level=100,
        min_table=4,
        max_table=4,
    )
    svc.start(tournament_id=seeded(t.pk, "short"), user=alice)
    bust_one_at_table_two(t)
    t.refresh_from_db()
    notes = tables.balance_outlook(t)
    assert [(n.kind, n.table, n.players, n.wait) for n in notes] == [("short", 2, 3, "")]
    page = alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()
    assert warnings(page) == [
        "Table 2 has 3 players (minimum 4), but the other tables have no room yet: it breaks "
        "up once players go out at the other tables."
    ]
    check_books(t)


def test_two_short_tables_give_one_instruction_and_both_are_refused_a_deal(
    club, alice, alice_client
):
    """Two tables of 4 (minimum 4, maximum 7) under ``play_out``: a bourré at each
    leaves two short tables of 3 with chips in their pots. The dashboard gives one
    instruction at a time (before: two overlapping lines, each saying "one of them breaks
    up"); the first short table to win its pot clean breaks into the other, once that
    one's pot is won too (nobody joins a table playing out its pot)."""
    t = make_tournament(
        club, alice, n=8, format="freezeout", starting_chips=4, antes=[1],
        hands_per_level=100, min_table=4, max_table=7, break_pot="play_out",
    )  # fmt: skip
    svc.start(tournament_id=seeded(t.pk, "either"), user=alice)
    for number in (2, 1):
        x = table(t, number)
        seated = list(names(x.session))
        record(
            x.session,
            {
                "trump": "C",
                "passed": [seated[2]],
                "tricks": {seated[0]: 3, seated[1]: 2, seated[3]: 0},
            },
        )
    t.refresh_from_db()
    page = alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()
    said = warnings(page)
    assert said == [
        "Table 1 has 3 players (minimum 4): it breaks up and its players move to the other "
        f"tables. First the pot at table 1 ({table(t, 1).session.carry} chips) must be won."
    ]
    for number in (1, 2):  # each wins its pot clean; then one of them breaks
        x = table(t, number)
        alive = tables.table_infos([x])[x.pk].alive
        seated = [n for n, pid in names(x.session).items() if pid in alive]
        record(x.session, win(seated, seated[0], {seated[1]: 2}))
    statuses = sorted(x.status for x in TournamentTable.objects.filter(tournament=t))
    assert statuses == [TournamentTable.Status.BROKEN, TournamentTable.Status.PLAYING]
    assert (
        warnings(alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()) == []
    )
    check_books(t)


@pytest.mark.parametrize(
    ("lang", "pot", "said"),
    [
        ("en", 12000, "(12,000 chips)"),
        ("fi", 12000, "(12\u00a0000 pelimerkkiä)"),
        ("en", 1, "(1 chip)"),
    ],
)
def test_the_pot_a_warning_waits_for_is_counted_in_the_readers_language(lang, pot, said):
    note = tables.BalanceNote(
        kind="break", table=3, players=1, min_size=3, target=0, target_players=0, count=0,
        pot=pot, wait="pot",
    )  # fmt: skip
    with translation.override(lang):
        (text,) = selectors.balance_warnings([note])
    assert said in text, text
