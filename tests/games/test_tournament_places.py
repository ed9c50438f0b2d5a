"""Busted players' places and prizes (games.tournaments.tables._finish_tournament,
selectors.standings): a player knocked out before the end keeps the place they went out
in — later is better, out on the same hand with the same chips: a shared place — sees
in the standings what that place pays while the tournament runs, and is paid it at the
end, with or without a final-table deal."""

import random

import pytest
from django.urls import reverse

from games.models import Entry
from games.money import format_money
from games.tournaments import deals, selectors
from games.tournaments import service as svc
from ledger import books
from ledger.models import PrizePosting
from tests.factories import seeded

from .test_tournament_service import (
    check_books,
    eight_player_freezeout,
    make_tournament,
    names,
    play_to_the_end,
    record,
    table,
    win,
)

pytestmark = pytest.mark.django_db


def _two_out_on_one_hand(club, alice):
    """Four players, $10 each, 40/30/20/10 %: c and d are bourré on the first hand with
    the same 4 chips — out together, sharing 3rd place (20 % + 10 %: $6 each). a then
    wins a clean hand against b, so the pot is empty and a deal can be made."""
    t = make_tournament(
        club,
        alice,
        n=4,
        format="freezeout",
        buy_in=1000,
        starting_chips=4,
        antes=[1],
        hands_per_level=100,
        payout_percentages=[40, 30, 20, 10],
        payout_unit=1,
    )
    svc.start(tournament_id=seeded(t.pk, "places"), user=alice)
    x = table(t, 1)
    a, b, c, d = list(names(x.session))
    record(x.session, {"trump": "S", "passed": [], "tricks": {a: 3, b: 2, c: 0, d: 0}})
    out = {e.player.name: e for e in Entry.objects.filter(tournament=t, status="out")}
    assert set(out) == {c, d} and out[c].out_key == out[d].out_key
    record(x.session, win([a, b], a, {b: 2}))
    x.session.refresh_from_db()
    assert x.session.carry == 0
    t.refresh_from_db()
    check_books(t)
    return t, (a, b, c, d)


def test_players_out_together_see_their_shared_place_and_prize_while_it_runs(
    club, alice, alice_client
):
    t, (a, b, c, d) = _two_out_on_one_hand(club, alice)
    rows = {r["player"]["name"]: r for r in selectors.standings(t)}
    assert [rows[p]["place"] for p in (c, d)] == [3, 3]
    assert rows[c]["prize_due"] == rows[d]["prize_due"] == 600  # (800 + 400) / 2
    assert rows[a]["prize_due"] == rows[b]["prize_due"] == 0  # still playing
    page = alice_client.get(reverse("tournament_standings", args=[t.pk])).content.decode()
    assert page.count("paid at the end") == 2


def test_after_a_deal_players_out_together_share_their_places_prizes(club, alice):
    t, (a, b, c, d) = _two_out_on_one_hand(club, alice)
    terms = deals.deal_terms(t)
    assert terms["total"] == 2800  # 1st and 2nd: 40 % + 30 % of $40
    t = deals.make_deal(tournament_id=t.pk, kind="chips", agreed=list(terms["chips"]), user=alice)
    check_books(t)
    by_name = {e.player.name: e for e in Entry.objects.filter(tournament=t)}
    assert (by_name[c].place, by_name[d].place) == (3, 3)
    # Shared place, shared prizes: not 20 % to one and 10 % to the other.
    assert by_name[c].prize == by_name[d].prize == 600
    assert sum(e.prize for e in by_name.values()) == 4000
    assert books.prize_balances(t)["pool"] == 0
    paid = dict(
        PrizePosting.objects.filter(tournament=t, kind="prize").values_list("player_id", "memo")
    )
    assert set(paid) == {by_name[c].player_id, by_name[d].player_id}


def test_every_busted_player_finishes_with_a_place_and_the_paid_ones_their_prize(club, alice):
    """Eight players, four places paid: whoever went out keeps the place their exit gave
    them (shown while it runs) and is paid what it pays, the same amount they were
    shown as due."""
    t = eight_player_freezeout(club, alice, [40, 30, 20, 10])
    svc.start(tournament_id=t.pk, user=alice)
    shown: dict[int, tuple[int, int]] = {}

    def note_places(t):
        for row in selectors.standings(t):
            if row["status"] == "out":
                shown[row["player"]["id"]] = (row["place"], row["prize_due"])

    play_to_the_end(t, alice, random.Random(2), each_pass=note_places)
    check_books(t)
    final = {e.player_id: e for e in Entry.objects.filter(tournament=t)}
    assert sorted(e.place for e in final.values()) == list(range(1, 9))
    # Everyone who went out before the last hand had a place (and their due) meanwhile.
    assert len(shown) == 6 and {place for place, _ in shown.values()} == set(range(3, 9))
    for player, (place, due) in shown.items():
        assert final[player].place == place
        assert final[player].prize == due
    paid = sorted((e.place, e.prize) for e in final.values() if e.prize)
    assert paid == [(1, 3200), (2, 2400), (3, 1600), (4, 800)]


def test_the_results_card_lists_every_paid_place_then_the_others(club, alice, alice_client):
    """Eight players, five places paid: the finished tournament's card names all five
    with their prizes (it used to stop at three), and the other three behind a
    disclosure."""
    t = eight_player_freezeout(club, alice, [30, 25, 20, 15, 10])
    svc.start(tournament_id=t.pk, user=alice)
    play_to_the_end(t, alice, random.Random(3))
    check_books(t)
    page = alice_client.get(reverse("tournament_detail", args=[t.pk])).content.decode()
    card = page[page.index('<section class="card podium"') :]
    card = card[: card.index("</section>")]
    paid, others = card.split('<details class="results-others">')
    entries = Entry.objects.filter(tournament=t).select_related("player").order_by("place")
    for e in entries:
        line = f"{e.place}. {e.player.name}</span>"
        if e.place <= 5:
            assert e.prize > 0 and line in paid
            assert format_money(e.prize, t.currency) in paid
        else:
            assert e.prize == 0 and line in others
    assert "3 other places" in others


def test_the_api_standings_give_the_prize_due_and_the_deal_terms_their_rounding(club, alice):
    """The API says what the standings page says ("paid at the end"), in minor units, and
    names the rule that rounds a deal's shares; the schema documents both."""
    from drf_spectacular.generators import SchemaGenerator

    from tests.games.test_tournament_api import token_client

    t, (a, b, c, d) = _two_out_on_one_hand(club, alice)
    api = token_client(alice)
    rows = api.get(reverse("api_tournament_standings", args=[t.pk])).json()["standings"]
    due = {r["player"]["name"]: r["prize_due"] for r in rows}
    assert due == {a: 0, b: 0, c: 600, d: 600}
    terms = api.get(reverse("api_tournament_deal", args=[t.pk])).json()
    assert terms["rounding"] == "largest_remainder"
    assert sum(terms["chips_chop"].values()) == terms["total"] == 2800
    schema = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]
    standing = next(s for n, s in schema.items() if "prize_due" in s.get("properties", {}))
    assert standing["properties"]["prize_due"]["type"] == "integer"
    assert "prize_due" in standing["required"]
    assert "Minor units" in standing["properties"]["prize_due"]["description"]
    deal = next(s for n, s in schema.items() if "chips_chop" in s.get("properties", {}))
    rounding = deal["properties"]["rounding"]
    assert "largest_remainder" in str(rounding) and "largest_remainder:" in str(schema)
    assert "rounding" in deal["required"]


def test_the_standings_csvs_end_with_the_prize_due(club, alice, alice_client):
    """Both standings CSVs carry what the standings page calls "paid at the end": the
    page's in major units like the prize, the API's in minor units."""
    import csv
    import io

    from games.models.currency import CURRENCIES
    from tests.games.test_tournament_api import token_client

    t, (a, b, c, d) = _two_out_on_one_hand(club, alice)
    t.currency = CURRENCIES["USD"]  # amounts in cents: the page's CSV writes dollars
    t.save(update_fields=["currency_code", "currency_exponent", "currency_symbol"])
    page = alice_client.get(reverse("tournament_standings_csv", args=[t.pk])).content.decode()
    rows = list(csv.reader(io.StringIO(page)))
    assert rows[0][-2:] == ["prize", "prize_due"]
    due = {r[1]: r[-1] for r in rows[1:]}
    assert due == {a: "0.00", b: "0.00", c: "6.00", d: "6.00"}
    api = token_client(alice)
    body = api.get(reverse("api_tournament_standings_csv", args=[t.pk]))
    rows = list(csv.reader(io.StringIO(body.content.decode())))
    assert rows[0][-2:] == ["prize_minor", "prize_due_minor"]
    assert {r[1]: r[-1] for r in rows[1:]} == {a: "0", b: "0", c: "600", d: "600"}


def test_the_print_view_says_where_a_player_went_out(club, alice, client):
    """The print view's "Went out" column says "out at table N", not a bare "table N"
    that reads like a seat assignment."""
    t, (a, b, c, d) = _two_out_on_one_hand(club, alice)
    html = client.get(reverse("tournament_print", args=[t.public_token])).content.decode()
    assert html.count("out at table 1") == 2


def test_the_print_view_names_the_round_in_a_table_round_tournament(club, alice, client):
    t = make_tournament(club, alice, n=8, starting_chips=2, antes=[1], hands_per_round=50)
    assert t.is_rounds
    svc.start(tournament_id=seeded(t.pk, "s"), user=alice)
    x = table(t, 1)
    a, b, c, d = list(names(x.session))
    # b, c, d are bourré for more than they have: out at round 1, table 1.
    record(x.session, {"trump": "S", "passed": [], "tricks": {a: 5, b: 0, c: 0, d: 0}})
    html = client.get(reverse("tournament_print", args=[t.public_token])).content.decode()
    assert html.count("out at round 1, table 1") == 3


def test_the_players_who_shared_a_deal_are_not_shown_as_knocked_out(club, alice, alice_client):
    """a and b still held chips when they agreed a deal: neither reads "out at table 1",
    struck through, or among the wall screen's eliminations; c and d, knocked out
    before it, still do."""
    from games.tournaments import screens

    t, (a, b, c, d) = _two_out_on_one_hand(club, alice)
    terms = deals.deal_terms(t)
    t = deals.make_deal(tournament_id=t.pk, kind="chips", agreed=list(terms["chips"]), user=alice)
    rows = {r["player"]["name"]: r for r in selectors.standings(t)}
    assert [rows[p]["in_deal"] for p in (a, b, c, d)] == [True, True, False, False]
    standings = alice_client.get(reverse("tournament_standings", args=[t.pk])).content.decode()
    assert standings.count("shared the deal") == 2
    assert standings.count("out-row") == 2  # c and d only
    printed = alice_client.get(f"/t/{t.public_token}/print/").content.decode()
    assert printed.count("shared the deal") == 2
    eliminated = {e["name"] for e in screens.tv_context(t)["eliminations"]}
    assert eliminated == {c, d}
    final = [b for r in selectors.bracket(t)["rounds"] for b in r["tables"]][-1]
    assert {p["name"] for p in final["players"] if p["out"]} == {c, d}
    check_books(t)
