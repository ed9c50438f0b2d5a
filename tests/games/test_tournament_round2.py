"""Tournaments, round 2 (issue #18): levels and the clock, entries (late, re-entry,
rebuy, add-on, field cap, roster), payouts and deals, results, the committed seed — the
pure rules and the service, against the real ledger."""

import hashlib
import random
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone, translation
from hypothesis import given
from hypothesis import strategies as st

from games.engine import tournament as logic
from games.engine import tournament_levels as levels
from games.engine import tournament_payouts as pay
from games.engine.tournament import TournamentError
from games.models import Entry, Seat, SeatMove, Tournament
from games.tournaments import clock, deals, selectors, tables
from games.tournaments import entries as late
from games.tournaments import service as svc
from ledger import books, postings
from ledger.models import PrizePosting
from tests.factories import seeded

from .test_tournament_service import (
    check_books,
    make_players,
    make_tournament,
    play_bot_hand,
    play_to_the_end,
    table,
)

# -- pure: levels, clock, payouts, deals, balancing -------------------------------------------


@given(schedule=st.lists(st.integers(1, 50), min_size=1, max_size=6).map(sorted))
def test_the_ante_keeps_rising_past_the_schedule(schedule):
    past = [logic.ante_for(schedule, len(schedule) - 1 + k) for k in range(0, 30)]
    assert past[0] == schedule[-1]
    assert all(b > a for a, b in zip(past, past[1:], strict=False))  # never stalls


def test_the_clock_counts_levels_and_breaks():
    # 15-minute levels, a 10-minute break after every 4 levels.
    at = lambda minutes: levels.clock_position(int(minutes * 60), 15, 4, 10)  # noqa: E731
    assert (at(0).level, at(0).on_break, at(0).seconds_left) == (0, False, 900)
    assert (at(59.5).level, at(59.5).on_break) == (3, False)
    assert (at(60).level, at(60).on_break, at(60).seconds_left) == (4, True, 600)
    assert (at(70).level, at(70).on_break, at(70).seconds_left) == (4, False, 900)
    assert at(70 + 4 * 15).on_break  # the second break
    assert levels.elapsed_seconds(1000.0, 1100.0, 30, 5000.0) == 130  # paused: frozen
    assert levels.elapsed_seconds(1000.0, None, -2000, 1500.0) == 0  # never below zero


def test_rounding_to_a_unit_gives_the_remainder_to_the_top():
    # 1001 cents paid in whole dollars: 500/300/200, one cent left: to 1st.
    assert pay.prize_amounts(1001, [50, 30, 20], 100) == [501, 300, 200]
    # 1250: 600/300/200 after rounding down; one whole dollar to 1st, then 50 cents to 1st.
    assert pay.prize_amounts(1250, [50, 30, 20], 100) == [750, 300, 200]
    for pool in (0, 1, 99, 12345, 99999):
        amounts = pay.prize_amounts(pool, pay.curve_weights(7), 25)
        assert sum(amounts) == pool
        assert amounts == sorted(amounts, reverse=True)


def test_presets_pay_a_share_of_the_field_on_a_curve():
    assert pay.paid_places(57, 15) == 9 and pay.paid_places(3, 10) == 1
    for places in (1, 2, 3, 9, 30):
        weights = pay.curve_weights(places)
        assert sum(weights) == 10_000 and weights == sorted(weights, reverse=True)
    assert pay.curve_weights(2) == [6001, 3999]


def test_deals_share_exactly_what_the_places_pay():
    chips = {1: 500, 2: 300, 3: 200}
    assert pay.even_chop(1000, chips) == {1: 334, 2: 333, 3: 333}
    chop = pay.chip_chop(1000, 100, chips)
    assert chop == {1: 450, 2: 310, 3: 240} and sum(chop.values()) == 1000
    with pytest.raises(TournamentError, match="add up to 900"):
        pay.custom_deal(1000, {1: 500, 2: 300, 3: 100}, chips)
    with pytest.raises(TournamentError, match="every player still in"):
        pay.custom_deal(1000, {1: 1000}, chips)


def test_balancing_does_not_move_the_same_player_twice_in_a_row():
    tables_now = {1: [1, 2, 3, 4, 5, 6, 7], 2: [8, 9, 10, 11, 12]}
    for seed in range(30):
        first = logic.plan_balance(tables_now, 4, 7, random.Random(seed))
        assert len(first.moves) == 1
        mover = first.moves[0].player
        again = {1: [p for p in tables_now[1] if p != mover] + [13], 2: [8, 9, 10, 11]}
        again[1].append(mover)  # back at a crowded table
        second = logic.plan_balance(again, 4, 7, random.Random(seed + 1), avoid={mover})
        assert second.moves and all(m.player != mover for m in second.moves)
    # Nobody else there: the avoided player may still move.
    forced = logic.plan_balance(
        {1: [1, 2, 3, 4], 2: [5, 6]}, 2, 7, random.Random(1), avoid={1, 2, 3, 4}
    )
    assert [m.reason for m in forced.moves] == ["balance"]


def test_the_commitment_is_the_sha256_of_the_seed():
    assert logic.commitment("abc") == hashlib.sha256(b"abc").hexdigest()
    assert len(logic.new_seed()) == 32


# -- service: the seed ----------------------------------------------------------------------

pytestmark = pytest.mark.django_db


def test_the_seed_is_fixed_from_the_first_registration(club, alice):
    t = svc.create_tournament(club=club, user=alice, name="Fair")
    old = t.seed_commitment
    t = svc.reseed(tournament_id=t.pk, user=alice)
    assert t.seed_commitment != old and t.seed_commitment == logic.commitment(t.seed)
    player = make_players(club, 1)[0]
    svc.register(tournament_id=t.pk, player=player, user=alice)
    with pytest.raises(TournamentError, match="fixed once the first player registers"):
        svc.reseed(tournament_id=t.pk, user=alice)


# -- service: levels and the clock ----------------------------------------------------------


def test_a_new_level_applies_from_the_next_hand_at_each_table(club, alice):
    t = make_tournament(
        club, alice, n=8, format="freezeout", starting_chips=50, antes=[1, 2, 4], level_minutes=15
    )
    svc.start(tournament_id=t.pk, user=alice)
    clock.clock_action(tournament_id=t.pk, action="start", user=alice)
    one, two = table(t, 1), table(t, 2)
    assert one.session.rules["ante"] == two.session.rules["ante"] == 1
    # The director moves the clock 16 minutes on: level 2.
    clock.clock_action(tournament_id=t.pk, action="adjust", seconds=16 * 60, user=alice)
    t.refresh_from_db()
    assert clock.clock_state(t)["level"] == 2 and clock.clock_state(t)["ante"] == 2
    one.session.refresh_from_db()
    assert one.session.rules["ante"] == 1  # nothing changes under a hand being played
    play_bot_hand(one, random.Random(1), alice)
    one.session.refresh_from_db()
    two.session.refresh_from_db()
    assert one.session.rules["ante"] == 2  # its next hand is dealt at the new level
    assert two.session.rules["ante"] == 1  # table 2 changes after its own hand
    play_bot_hand(two, random.Random(2), alice)
    two.session.refresh_from_db()
    assert two.session.rules["ante"] == 2
    check_books(t)


def test_the_clock_pauses_resumes_and_lives_in_the_database(club, alice):
    t = make_tournament(club, alice, n=4, format="freezeout", level_minutes=10)
    svc.start(tournament_id=t.pk, user=alice)
    with pytest.raises(TournamentError, match="Start the clock first"):
        clock.clock_action(tournament_id=t.pk, action="pause", user=alice)
    clock.clock_action(tournament_id=t.pk, action="start", user=alice)
    # Twelve minutes ago, paused two minutes later: the clock shows 2 minutes gone.
    now = timezone.now()
    Tournament.objects.filter(pk=t.pk).update(
        clock_started_at=now - timedelta(minutes=12), clock_paused_at=now - timedelta(minutes=10)
    )
    t.refresh_from_db()
    assert clock.elapsed(t) == 120 and clock.clock_state(t)["seconds_left"] == 480
    t = clock.clock_action(tournament_id=t.pk, action="resume", user=alice)
    assert t.clock_paused_at is None and 120 <= clock.elapsed(t) <= 122
    t = clock.clock_action(tournament_id=t.pk, action="adjust", seconds=-3600, user=alice)
    assert clock.elapsed(t) == 0  # never before the start


def test_a_freeze_out_without_rising_levels_is_refused(club, alice):
    t = svc.create_tournament(club=club, user=alice, name="F", format="freezeout")
    assert t.hands_per_level == svc.FREEZEOUT_HANDS_PER_LEVEL  # the default: by hands
    with pytest.raises(TournamentError, match="needs rising antes"):
        svc.update_settings(tournament_id=t.pk, user=alice, hands_per_level=0)


def test_a_structure_preset_fills_antes_and_breaks(club, alice):
    t = svc.create_tournament(
        club=club, user=alice, name="P", structure_preset="standard", level_minutes=1
    )
    preset = levels.PRESETS["standard"]
    assert t.antes == list(preset.antes) and t.level_minutes == preset.level_minutes
    assert (t.break_every, t.break_minutes) == (preset.break_every, preset.break_minutes)


# -- service: entries -----------------------------------------------------------------------


def test_the_field_cap_keeps_a_waiting_list(club, alice):
    t = svc.create_tournament(club=club, user=alice, name="Capped", max_entries=3)
    entries = [
        svc.register(tournament_id=t.pk, player=p, user=alice) for p in make_players(club, 5)
    ]
    assert [e.status for e in entries] == ["registered"] * 3 + ["waiting"] * 2
    with pytest.raises(TournamentError, match="waiting list"):
        svc.check_in(tournament_id=t.pk, entry_id=entries[3].pk, user=alice)
    svc.withdraw(tournament_id=t.pk, entry_id=entries[0].pk, user=alice)
    entries[3].refresh_from_db()
    entries[4].refresh_from_db()
    assert (entries[3].status, entries[4].status) == ("registered", "waiting")  # first in line
    svc.check_in(tournament_id=t.pk, entry_id=entries[3].pk, user=alice)
    postings.check_prize_ledger(t)


def _late_event(club, alice, **settings):
    t = make_tournament(
        club,
        alice,
        n=8,
        format="freezeout",
        buy_in=10,
        fee=2,
        starting_chips=20,
        antes=[1, 2],
        hands_per_level=5,
        late_until_level=2,
        **settings,
    )
    svc.start(tournament_id=seeded(t.pk, "late"), user=alice)
    return t


def test_a_late_entrant_is_seated_and_pays_into_the_prize_ledger(club, alice):
    t = _late_event(club, alice)
    newcomer = make_players(club, 1, prefix="late")[0]
    entry = svc.register(tournament_id=t.pk, player=newcomer, user=alice)
    svc.check_in(tournament_id=t.pk, entry_id=entry.pk, user=alice)
    entry.refresh_from_db()
    assert entry.status == Entry.Status.PLAYING
    move = SeatMove.objects.get(tournament=t, reason="late")
    assert move.source is None and move.chips == 20 and move.seat
    balances = books.prize_balances(t)
    assert balances["pool"] == 9 * 10 and balances["house"] == 9 * 2
    check_books(t)
    # Past level 2 (10 hands at a table) registration is closed, with the reason.
    rng = random.Random(3)
    while late.late_open(t):
        for x in t.tables.filter(status="playing").select_related("session"):
            play_bot_hand(x, rng, alice)
        t.refresh_from_db()
    with pytest.raises(TournamentError, match="closed after level 2"):
        svc.register(tournament_id=t.pk, player=make_players(club, 1, "x")[0], user=alice)


def test_reentry_rebuy_and_addon_are_paid_and_limited(club, alice):
    # Room for eight at a table: a table that loses a player breaks at once (RULES.md
    # T1), and the re-entry needs a free seat at the table of seven left.
    t = _late_event(
        club, alice, max_reentries=1, max_rebuys=1, addon_chips=15, addon_price=5, max_table=8
    )
    player = Entry.objects.filter(tournament=t, status="playing").first()
    late.rebuy(tournament_id=t.pk, entry_id=player.pk, user=alice)
    with pytest.raises(TournamentError, match="all 1 rebuys"):
        late.rebuy(tournament_id=t.pk, entry_id=player.pk, user=alice)
    late.addon(tournament_id=t.pk, entry_id=player.pk, user=alice)
    with pytest.raises(TournamentError, match="add-on already"):
        late.addon(tournament_id=t.pk, entry_id=player.pk, user=alice)
    with pytest.raises(TournamentError, match="still in"):
        late.reenter(tournament_id=t.pk, entry_id=player.pk, user=alice)
    # Knock someone out (their seat's stack goes to zero through a real hand) before
    # re-entry closes: bots that play nearly every hand (the HeuristicBot passes weak ones).
    rng = random.Random(8)
    while not Entry.objects.filter(tournament=t, status="out").exists():
        for x in t.tables.filter(status="playing").select_related("session"):
            play_bot_hand(x, rng, alice, loose=True)
        svc.sync(tournament_id=t.pk, user=alice)
    busted = Entry.objects.filter(tournament=t, status="out").first()
    late.reenter(tournament_id=t.pk, entry_id=busted.pk, user=alice)
    busted.refresh_from_db()
    assert busted.status == "playing" and busted.reentries == 1 and busted.out_key is None
    kinds = list(PrizePosting.objects.filter(tournament=t).values_list("kind", flat=True))
    assert kinds.count("rebuy") == 1 and kinds.count("addon") == 1 and kinds.count("reentry") == 1
    balances = books.prize_balances(t)
    # 8 buy-ins, a rebuy and a re-entry at 10 (+2 fee each), an add-on at 5 (no fee).
    assert balances["pool"] == 10 * 10 + 5 and balances["house"] == 10 * 2
    check_books(t)


def test_pasting_a_roster_adds_new_names_and_skips_duplicates(club, alice):
    assert late.roster_names(" Ann \nben, Cal;\n\nann\n  Dee  Dee ")[0] == [
        "Ann",
        "ben",
        "Cal",
        "Dee Dee",
    ]
    assert late.roster_names("Ann\nann\nANN\nben\nBen") == (["Ann", "ben"], ["Ann", "ben"])
    t = svc.create_tournament(club=club, user=alice, name="Paste")
    players = late.roster_players(t, ["Zed", "Yan"])
    assert {p.club_id for p in players} == {club.pk} and len(players) == 2
    again = late.roster_players(t, ["zed"])
    assert again[0].pk == players[0].pk  # the same player, whatever the case


# -- service: payouts, deals, results -------------------------------------------------------


def test_a_payout_preset_pays_the_curve_rounded_to_the_unit(club, alice):
    t = make_tournament(
        club,
        alice,
        n=20,
        format="freezeout",
        buy_in=1005,
        starting_chips=4,
        antes=[1, 2, 3],
        hands_per_level=3,
        payout_preset="top15",
        payout_unit=100,
    )
    svc.start(tournament_id=t.pk, user=alice)
    play_to_the_end(t, alice, random.Random(20), sync=True)
    prizes = [r["prize"] for r in selectors.standings(t) if r["prize"]]
    assert len(prizes) == pay.paid_places(20, 15) == 3
    assert sum(prizes) == 20 * 1005
    # Rounded to whole dollars; the 100 cents below one unit… all went to 1st.
    assert all(p % 100 == 0 for p in prizes[1:])
    assert prizes == pay.prize_amounts(20 * 1005, pay.curve_weights(3), 100)
    check_books(t)


def test_a_deal_needs_everyone_still_in(club, alice):
    t = make_tournament(club, alice, n=4, format="freezeout", buy_in=100, starting_chips=30)
    svc.start(tournament_id=t.pk, user=alice)
    t.refresh_from_db()
    terms = deals.deal_terms(t)
    still = list(terms["chips"])
    with pytest.raises(TournamentError, match="must agree"):
        deals.make_deal(tournament_id=t.pk, kind="even", agreed=still[:-1], user=alice)
    custom = dict.fromkeys(still, terms["total"] // 4)
    t = deals.make_deal(tournament_id=t.pk, kind="custom", agreed=still, amounts=custom, user=alice)
    assert t.status == Tournament.Status.FINISHED and t.deal["kind"] == "custom"
    rows = selectors.standings(t)
    assert [r["prize"] for r in rows] == [100] * 4 and rows[0]["status"] == "winner"
    memos = PrizePosting.objects.filter(tournament=t, kind="deal").values_list("memo", flat=True)
    assert all("Deal (custom deal) agreed by p001, p002, p003, p004" in m for m in memos)
    check_books(t)


def test_a_deal_is_named_in_the_readers_language_while_its_memos_stay_english(
    club, alice, alice_client
):
    t = make_tournament(club, alice, n=3, format="freezeout", buy_in=100, starting_chips=30)
    svc.start(tournament_id=t.pk, user=alice)
    t.refresh_from_db()
    still = list(deals.deal_terms(t)["chips"])
    deals.make_deal(tournament_id=t.pk, kind="even", agreed=still, user=alice)
    with translation.override("fi"):
        word = str(deals.KIND_WORDS["even"])
    assert word.lower() != "even chop"
    for name in ("tournament_detail", "tournament_standings"):
        page = alice_client.get(reverse(name, args=[t.pk]), HTTP_ACCEPT_LANGUAGE="fi")
        assert f"({word})" in page.content.decode(), name
    english = alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()
    assert "(Even chop)" in english
    memos = PrizePosting.objects.filter(tournament=t, kind="deal").values_list("memo", flat=True)
    assert memos and all("Deal (even chop) agreed by" in m for m in memos)
    check_books(t)


def test_prize_postings_are_numbered_per_tournament(club, alice):
    first = make_tournament(club, alice, n=3, buy_in=5, fee=1, prefix="a")
    second = make_tournament(club, alice, n=2, buy_in=5, fee=1, prefix="b")
    assert [p.number for p in books.prize_postings(first)] == list(range(1, 7))
    assert [p.number for p in books.prize_postings(second)] == [1, 2, 3, 4]
    assert [row[0] for row in selectors.prize_csv_rows(second)][::2] == [1, 2, 3, 4]


def test_busted_players_show_no_chips_and_moved_players_where_they_went(club, alice):
    t = make_tournament(
        club, alice, n=10, format="freezeout", starting_chips=6, antes=[1, 2], hands_per_level=2
    )
    svc.start(tournament_id=seeded(t.pk, "moves"), user=alice)
    rng = random.Random(10)
    while not SeatMove.objects.filter(tournament=t).exists():
        for x in t.tables.filter(status="playing").select_related("session"):
            play_bot_hand(x, rng, alice)
        svc.sync(tournament_id=t.pk, user=alice)
        t.refresh_from_db()
        assert t.status == Tournament.Status.RUNNING
    move = SeatMove.objects.filter(tournament=t).select_related("source", "target").first()
    label = f"moved to table {move.target.number}, seat {move.seat}"
    seen = [
        p
        for rnd in selectors.bracket(t)["rounds"]
        for box in rnd["tables"]
        for p in box["players"]
        if p["id"] == move.player_id and p["moved_to"]
    ]
    assert seen and seen[0]["moved_to"] == label
    with translation.override("es"):  # in the reader's language, like the rest of the page
        spanish = [
            p["moved_to"]
            for rnd in selectors.bracket(t)["rounds"]
            for box in rnd["tables"]
            for p in box["players"]
            if p["id"] == move.player_id and p["moved_to"]
        ]
    assert spanish[0] == f"pasó a la mesa {move.target.number}, asiento {move.seat}"
    out = [r for r in selectors.standings(t) if r["status"] == "out"]
    assert out and all(r["chips"] is None and r["busted"] for r in out)
    seat = Seat.objects.get(session_id=move.target.session_id, player_id=move.player_id)
    assert tables.seat_number(seat) == move.seat >= 1


def test_rebuy_addon_and_buy_in_memos_read_in_the_tournaments_money(club, alice):
    from games.money import CURRENCIES

    club.currency = CURRENCIES["USD"]  # cents: a memo of minor units would read 100× off
    club.save()
    t = _late_event(club, alice, max_rebuys=1, addon_chips=15, addon_price=500)
    Tournament.objects.filter(pk=t.pk).update(buy_in=1250, fee=50)
    player = Entry.objects.filter(tournament=t, status="playing").first()
    late.rebuy(tournament_id=t.pk, entry_id=player.pk, user=alice)
    late.addon(tournament_id=t.pk, entry_id=player.pk, user=alice)
    memos = dict(
        PrizePosting.objects.filter(tournament=t, kind__in=["rebuy", "addon"]).values_list(
            "kind", "memo"
        )
    )
    name = player.player.name
    assert memos == {
        "rebuy": f"{name}: rebuy 1, buy-in $12.50 + fee $0.50",
        "addon": f"{name}: add-on, $5",
    }
    buy_in = PrizePosting.objects.filter(tournament=t, kind="buy_in").first()
    assert buy_in.memo.endswith(": buy-in $0.10 + fee $0.02")  # _late_event's 10 + 2 cents
    check_books(t)
