"""Real stakes (issue #14): amounts in the currency's minor unit, typed as "$0.25", "0.25"
or "1" and shown as "$0.25"; a quarter-ante evening end to end."""

import csv
import io
import re
import uuid
from datetime import datetime

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from games.engine.rules import MAX_STAKE
from games.models import GameSession
from games.money import (
    CHIPS,
    CURRENCIES,
    Currency,
    MoneyError,
    format_money,
    format_plain,
    input_value,
    parse_amount,
)
from ledger import postings
from tests.games.test_session_views import new_session_data

USD = CURRENCIES["USD"]
EUR = CURRENCIES["EUR"]
CURRENCY_CASES = st.sampled_from([USD, EUR, CHIPS, CURRENCIES["JPY"], Currency("XXX", 0, "$")])


# --- one parser, one formatter --------------------------------------------------------------


@given(st.integers(min_value=0, max_value=10**15), CURRENCY_CASES)
def test_parse_reads_back_what_format_writes(amount, currency):
    assert parse_amount(format_money(amount, currency), currency) == amount
    assert parse_amount(format_plain(amount, currency), currency) == amount
    assert parse_amount(input_value(amount, currency), currency) == amount


@given(st.integers(min_value=-(10**15), max_value=10**15), st.sampled_from([0, 2]))
def test_format_writes_every_minor_unit_and_the_sign(amount, exponent):
    cur = Currency("USD", exponent, "$")
    text = format_money(amount, cur, signed=True)
    digits = text.lstrip("+\u2212$").replace(",", "").replace(".", "")
    whole = abs(amount) % cur.minor == 0
    # A whole amount drops ".00"; any other shows every minor digit.
    assert int(digits) * (cur.minor if whole and exponent else 1) == abs(amount)
    assert text.startswith("\u2212" if amount < 0 else "+" if amount else "$")


@pytest.mark.parametrize(
    "text, cents",
    [
        ("$0.25", 25),
        ("0.25", 25),
        ("1", 100),
        (".5", 50),
        ("1,250.50", 125050),
        ("$ 3", 300),
        ("0,25", 25),
        ("€2,5", 250),
        ("1,250", 125000),  # a decimal comma; thousands
    ],  # fmt: skip
)
def test_amounts_typed_as_a_person_types_them(text, cents):
    assert parse_amount(text, USD) == cents


def test_the_same_text_in_chips_is_whole_chips():
    assert parse_amount("25", CHIPS) == 25 and format_money(25, CHIPS) == "25 chips"
    assert format_money(25, USD) == "$0.25" and format_money(2500, USD) == "$25"
    assert format_money(-150, EUR) == "\u2212€1.50"


@pytest.mark.parametrize(
    "text, currency, words",
    [
        ("0.255", USD, "“0.255” has too many decimals: amounts in $ have at most 2 decimals"),
        ("abc", USD, "“abc” is not an amount: type a number such as 0.25 or 5."),
        ("-1", USD, "The ante cannot be negative"),
        ("$-0.25", USD, "The ante cannot be negative"),
        ("0.001", USD, "“0.001” is less than $0.01, the smallest amount in $."),
        ("0", USD, "The ante must be at least $0.01."),
        ("0.5", CHIPS, "“0.5” is less than 1 chip, the smallest amount in chips."),
        ("2.5", CHIPS, "“2.5” has too many decimals: amounts in chips are whole numbers"),
        ("", USD, "The ante is missing: type an amount such as 0.25 or 5."),
        ("20000000000", USD, "The ante can be at most $10,000,000,000."),
    ],
)
def test_bad_amounts_are_refused_in_the_tables_words(text, currency, words):
    with pytest.raises(MoneyError) as refused:
        parse_amount(text, currency, minimum=1, maximum=MAX_STAKE, what="The ante")
    assert words in refused.value.message


# --- forms ---------------------------------------------------------------------------------


@pytest.fixture
def cents_club(club):
    club.currency = USD
    club.save()
    return club


@pytest.mark.parametrize("typed, cents", [("$0.25", 25), ("0.25", 25), ("1", 100)])
def test_new_session_form_reads_the_ante_in_dollars(bob_client, cents_club, players, typed, cents):
    data = new_session_data(players, ante=typed, pot_limit="2.50", currency="USD")
    response = bob_client.post(reverse("session_new", args=[cents_club.pk]), data)
    assert response.status_code == 302, response.context["form"].errors
    session = GameSession.objects.get()
    assert session.currency == USD
    assert (session.rules["ante"], session.rules["pot_limit"]) == (cents, 250)


@pytest.mark.parametrize(
    "typed, words",
    [
        ("0.255", "has too many decimals"),
        ("abc", "is not an amount"),
        ("-1", "cannot be negative"),
        ("0.001", "is less than $0.01"),
    ],
)
def test_new_session_form_says_what_is_wrong_with_the_ante(
    bob_client, cents_club, players, typed, words
):
    data = new_session_data(players, ante=typed, currency="USD")
    response = bob_client.post(reverse("session_new", args=[cents_club.pk]), data)
    assert response.status_code == 422 and not GameSession.objects.exists()
    errors = response.context["form"].errors["ante"]
    assert any(words in e for e in errors), errors
    assert words in response.content.decode().replace("&quot;", '"')


def test_money_inputs_ask_for_a_decimal_keyboard_and_show_dollars(bob_client, cents_club):
    page = bob_client.get(reverse("session_new", args=[cents_club.pk])).content.decode()
    ante = page[page.index('name="ante"') - 200 : page.index('name="ante"') + 200]
    assert 'inputmode="decimal"' in ante and 'value="1"' in ante  # one whole dollar
    page = bob_client.get(reverse("club_create")).content.decode()
    assert '<option value="USD" selected>$ USD</option>' in page  # one tap: USD by default


def test_a_new_session_starts_from_the_clubs_last_ante(bob_client, cents_club, players, bob):
    """FINDINGS: every new session started at $1 while the table plays a quarter. The
    form starts from the ante the club's latest home session played at last (a change
    during it included); a tournament table's chip level is never carried."""

    def ante_shown():
        page = bob_client.get(reverse("session_new", args=[cents_club.pk])).content.decode()
        field = page[page.index('name="ante"') - 200 : page.index('name="ante"') + 200]
        return re.search(r'value="([^"]*)"', field).group(1)

    assert ante_shown() == "1"  # the club's first table: one whole dollar
    data = new_session_data(players, ante="0.25", currency="USD")
    assert bob_client.post(reverse("session_new", args=[cents_club.pk]), data).status_code == 302
    first = GameSession.objects.get()
    assert first.rules["ante"] == 25 and ante_shown() == "0.25"
    postings.change_rules(session_id=first.pk, rules={"ante": 50}, user=bob)
    assert ante_shown() == "0.50"
    tournament_table = postings.start_session(
        club=cents_club, name="t", players=players, dealer=players[0], rules={"ante": 300},
        currency=cents_club.currency, user=bob, tournament_chips={p.pk: 1000 for p in players},
    )  # fmt: skip
    assert tournament_table.chip_limited and ante_shown() == "0.50"
    postings.check_invariants(first)
    postings.check_invariants(tournament_table)


def test_a_club_with_games_keeps_its_minor_unit(alice_client, cents_club, players, bob):
    postings.start_session(
        club=cents_club, name="x", players=players, dealer=players[0], rules={},
        currency=cents_club.currency, user=bob,
    )  # fmt: skip
    url = reverse("club_edit", args=[cents_club.pk])
    response = alice_client.post(url, {"name": "Bayou Club", "currency": "XXX"})
    assert response.status_code == 422
    assert "counted the same way only" in response.context["form"].errors["currency"][0]
    response = alice_client.post(url, {"name": "Bayou Club", "currency": "EUR"})
    assert response.status_code == 302
    cents_club.refresh_from_db()
    assert cents_club.currency == EUR


# --- a quarter-ante evening ----------------------------------------------------------------


def _record(session, user, **entry):
    entry.setdefault("trump", "H")
    postings.record_hand(
        session_id=session.pk,
        entry=entry,
        idempotency_key=uuid.uuid4().hex,
        expected_version=None,
        user=user,
    )
    session.refresh_from_db()
    postings.check_invariants(session)


def test_a_quarter_ante_evening_in_cents_R34_R37(
    bob_client, carol_client, cents_club, players, bob
):
    ann, ben, cal, dee = players
    data = new_session_data(
        [ann, ben, cal], ante="$0.25", pot_limit="1", split_pot="divide", currency="USD"
    )
    data.pop("tied_excused", None)
    response = bob_client.post(reverse("session_new", args=[cents_club.pk]), data)
    assert response.status_code == 302
    session = GameSession.objects.get()
    postings.check_invariants(session)
    # Hand 1: ann and ben tie on 2 tricks; 75 cents divided, 37 each, the odd cent carries.
    _record(session, bob, tricks={"ann": 2, "ben": 2, "cal": 1})
    assert session.carry == 1
    # Hand 2: ann wins the pot (1 + 75 = 76 cents); cal is bourréd and pays the pot (76
    # cents, under the $1 limit) into the next one.
    _record(session, bob, tricks={"ann": 3, "ben": 2, "cal": 0})
    nets = {int(k): v for k, v in session.nets.items()}
    assert nets == {ann.pk: -25 + 37 - 25 + 76, ben.pk: -25 + 37 - 25, cal.pk: -25 - 25 - 76}
    assert session.carry == 76 and sum(nets.values()) + session.carry == 0
    postings.close_session(session_id=session.pk, user=bob, leftover_policy="share_equally")
    session.refresh_from_db()
    postings.check_invariants(session)

    page = carol_client.get(reverse("session_settlement", args=[session.pk]))
    transfers = {(r["payer"], r["payee"]): r["amount"] for r in page.context["rows"]}
    assert sum(transfers.values()) > 0 and all(isinstance(x, int) for x in transfers.values())
    final = session.net_by_player()
    assert sum(final.values()) == 0  # the leftover pot was shared, cent by cent
    html = page.content.decode()
    assert all(
        f'<span class="money">{format_money(x, USD)}</span>' in html for x in transfers.values()
    )

    rows = list(csv.DictReader(io.StringIO(_body(carol_client, "settlement_csv", session))))
    assert {r["currency"] for r in rows} == {"USD"}
    assert sorted(round(float(r["amount"]) * 100) for r in rows) == sorted(transfers.values())
    assert all("." in r["amount"] for r in rows)  # dollars and cents for a spreadsheet

    legs = list(csv.DictReader(io.StringIO(_body(carol_client, "ledger_csv", session))))
    antes = [r for r in legs if r["kind"] == "ante" and r["player"]]
    assert {r["amount"] for r in antes} == {"-0.25"}
    assert all(datetime.fromisoformat(r["created_at"]).utcoffset() is not None for r in legs)

    board = carol_client.get(session.get_absolute_url()).content.decode()
    assert format_money(final[ann.pk], USD, signed=True) in board


def _body(client, name, session) -> str:
    response = client.get(reverse(name, args=[session.pk]))
    assert response.status_code == 200
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def test_the_ledger_csv_carries_the_clubs_offset(bob_client, cents_club, players, bob):
    cents_club.time_zone = "America/Chicago"
    cents_club.save()
    session = postings.start_session(
        club=cents_club, name="x", players=players, dealer=players[0], rules={"ante": 25},
        currency=cents_club.currency, user=bob,
    )  # fmt: skip
    _record(session, bob, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    legs = list(csv.DictReader(io.StringIO(_body(bob_client, "ledger_csv", session))))
    offsets = {datetime.fromisoformat(r["created_at"]).utcoffset() for r in legs}
    assert len(offsets) == 1 and offsets.pop().total_seconds() in (-6 * 3600, -5 * 3600)


# --- tournaments ---------------------------------------------------------------------------


def test_a_tournament_in_dollars_and_cents_pays_whole_dollar_prizes(alice_client, cents_club):
    from games.models import Tournament
    from games.tournaments.payouts import payout_rows

    data = {
        "name": "Spring Cup", "format": "rounds", "table_mode": "reported",
        "buy_in": "$12.50", "fee": "0.50", "starting_chips": "40", "antes_text": "1, 2, 4",
        "hands_per_level": "0", "min_table": "4", "max_table": "7", "hands_per_round": "8",
        "advance_per_table": "2", "final_hands": "0", "tiebreak": "pots",
        "payouts_text": "50, 30, 20", "pot_limit": "10",
    }  # fmt: skip
    response = alice_client.post(reverse("tournament_create", args=[cents_club.pk]), data)
    assert response.status_code == 302
    t = Tournament.objects.get()
    assert (t.buy_in, t.fee, t.payout_unit, t.currency) == (1250, 50, 100, USD)
    assert t.antes == [1, 2, 4] and t.rules == {"pot_limit": 10}  # chips stay whole
    pool = 7 * t.buy_in  # $87.50 from seven entrants
    amounts = [row["amount"] for row in payout_rows(t, pool, 7)]
    assert sum(amounts) == pool
    # Whole dollars to every place; the 50 cents below a dollar go to 1st.
    assert all(a % 100 == 0 for a in amounts[1:]) and amounts[0] % 100 == 50
    page = alice_client.get(reverse("tournament_edit", args=[t.pk])).content.decode()
    assert 'value="12.50"' in page and 'inputmode="decimal"' in page

    data["buy_in"] = "12.505"
    response = alice_client.post(reverse("tournament_create", args=[cents_club.pk]), data)
    assert "has too many decimals" in response.content.decode()
    assert Tournament.objects.count() == 1


def test_the_new_tournament_form_offers_whole_dollar_prizes_and_keeps_them(
    alice_client, cents_club
):
    """A director who leaves "Round prizes to" as the form shows it gets whole dollars
    (it showed 0.01, the model's default of one cent, and saved that)."""
    from games.models import Tournament

    url = reverse("tournament_create", args=[cents_club.pk])
    page = alice_client.get(url).content.decode()
    field = re.search(r'<input[^>]*name="payout_unit"[^>]*>', page).group(0)
    shown = re.search(r'value="([^"]*)"', field).group(1)
    assert shown in ("1", "1.00")
    data = {
        "name": "Default Cup", "format": "rounds", "table_mode": "reported",
        "buy_in": "10", "fee": "0", "starting_chips": "40", "antes_text": "1, 2, 4",
        "hands_per_level": "0", "min_table": "4", "max_table": "7", "hands_per_round": "8",
        "advance_per_table": "2", "final_hands": "0", "tiebreak": "pots",
        "payouts_text": "50, 30, 20", "payout_unit": shown,
    }  # fmt: skip
    assert alice_client.post(url, data).status_code == 302
    assert Tournament.objects.get().payout_unit == 100
