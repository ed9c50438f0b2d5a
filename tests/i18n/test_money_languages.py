"""Money in the reader's language (issue 19, G-money): ``games.money`` writes amounts with
the active language's decimal sign, grouping and symbol place, the chips word translated
with its plural, and reads back what it wrote; CSV files, the API and the ledger's memos
stay locale-free (``PLAIN``)."""

from __future__ import annotations

import csv
import io
import uuid
from decimal import Decimal

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils.translation import gettext, override
from hypothesis import given
from hypothesis import strategies as st

from games.models import GameSession
from games.money import (
    CHIPS,
    CURRENCIES,
    MINUS,
    PLAIN,
    Currency,
    MoneyError,
    MoneyField,
    format_money,
    format_plain,
    input_value,
    parse_amount,
)
from games.sessions.charts import net_chart
from ledger import postings

NBSP = "\u00a0"
LANGUAGES = [code for code, _ in settings.LANGUAGES]
USD, EUR, JPY = CURRENCIES["USD"], CURRENCIES["EUR"], CURRENCIES["JPY"]
# Exponents 0 (chips, yen), 2 (cents) and 3 (a dinar's fils): each writes its own digits.
CURRENCY_CASES = st.sampled_from(
    [
        USD,
        EUR,
        JPY,
        CHIPS,
        CURRENCIES["CAD"],
        Currency("KWD", 3, "KD"),
        Currency("XXX", 0, "points"),
    ]
)


# --- one formatter, one parser, per language --------------------------------------------


@given(st.integers(min_value=0, max_value=10**15), CURRENCY_CASES, st.sampled_from(LANGUAGES))
def test_parse_reads_back_what_format_writes_in_every_language(amount, currency, language):
    with override(language):  # the request's language, as a page renders and a form posts
        for text in (
            format_money(amount, currency),
            format_money(amount, currency, signed=True),
            format_plain(amount, currency),
            input_value(amount, currency),
        ):
            assert parse_amount(text, currency) == amount, text
    # The same through the explicit language, whatever is active.
    written = format_money(amount, currency, language=language)
    assert parse_amount(written, currency, language=language) == amount


@given(st.integers(min_value=1, max_value=10**12), st.sampled_from(LANGUAGES))
def test_a_negative_amount_is_written_with_a_minus_and_refused_when_typed(amount, language):
    text = format_money(-amount, EUR, language=language)
    assert text.startswith(MINUS)
    with override(language), pytest.raises(MoneyError):
        parse_amount(text, EUR)


@pytest.mark.parametrize(
    ("language", "small", "large", "whole", "dollars"),
    [
        ("en", "€1.25", "€1,250.50", "€1,250", "$1.25"),
        ("ko", "€1.25", "€1,250.50", "€1,250", "$1.25"),
        # Spanish dollars as US Spanish writes them (games.money.CURRENCY_STYLE).
        ("es", f"1,25{NBSP}€", f"1{NBSP}250,50{NBSP}€", f"1{NBSP}250{NBSP}€", "$1.25"),
        ("fi", f"1,25{NBSP}€", f"1{NBSP}250,50{NBSP}€", f"1{NBSP}250{NBSP}€", f"1,25{NBSP}$"),
        ("sq", f"1,25{NBSP}€", f"1{NBSP}250,50{NBSP}€", f"1{NBSP}250{NBSP}€", f"1,25{NBSP}$"),
        # Sundanese: its formats module (Indonesian conventions), the symbol first.
        ("su", "€1,25", "€1.250,50", "€1.250", "$1,25"),
    ],
)
def test_each_language_writes_its_decimal_sign_grouping_and_symbol_place(
    language, small, large, whole, dollars
):
    with override(language):
        assert format_money(125, EUR) == small
        assert format_money(125050, EUR) == large
        assert format_money(125000, EUR) == whole  # a whole amount drops its ",00"
        assert format_money(125, USD) == dollars
        assert format_money(-125, EUR, signed=True) == MINUS + small
        assert format_money(125, EUR, signed=True) == "+" + small
    # The explicit language wins over the active one: files and programs ask for PLAIN.
    with override("fi"):
        assert format_money(125050, EUR, language=PLAIN) == "€1,250.50"


def test_spanish_writes_dollars_the_us_spanish_way_and_euros_the_spanish_way():
    """FINDINGS: a USD amount read "4,25 $" in Spanish (Spain's order, for a currency Spain
    never counts in). Decided per currency (games.money.CURRENCY_STYLE, its docstring says
    why): dollars as US Spanish writes them, euros as Spain does; the form's input shows
    and reads back the same decimal sign; Finnish keeps its own order for dollars."""
    with override("es"):
        assert format_money(425, USD) == "$4.25"
        assert format_money(125050, USD) == "$1,250.50"
        assert format_money(-425, USD) == MINUS + "$4.25"
        assert format_plain(125050, USD) == "1,250.50"
        assert input_value(425, USD) == "4.25"
        assert parse_amount("4.25", USD) == 425 and parse_amount("$4.25", USD) == 425
        assert parse_amount("1,250", USD) == 125000  # a comma groups thousands here
        assert parse_amount("4,25", USD) == 425  # a comma before two digits is decimal
        assert format_money(425, EUR) == f"4,25{NBSP}€"
        assert input_value(425, EUR) == "4,25" and parse_amount("1.250", EUR) == 125000
        field = MoneyField(currency=USD)
        assert 'value="4.25"' in field.widget.render("ante", 425)
        assert field.clean("4.25") == 425
    with override("fi"):
        assert format_money(425, USD) == f"4,25{NBSP}$"
    assert format_money(425, USD, language="es-mx") == "$4.25"


@pytest.mark.parametrize(
    ("language", "shown"), [("en", "1250.50"), ("ko", "1250.50"), ("es", "1250,50"), ("fi", "1250,50"), ("sq", "1250,50"), ("su", "1250,50")]
)  # fmt: skip
def test_an_input_shows_the_languages_decimal_sign_and_no_grouping(language, shown):
    field = MoneyField(currency=EUR)
    with override(language):
        html = field.widget.render("ante", 125050)
        assert f'value="{shown}"' in html
        assert field.clean(shown) == 125050


@pytest.mark.parametrize(
    ("language", "typed", "cents"),
    [
        # One mark before three digits groups thousands unless it is the reader's decimal
        # sign: the same "1,250" is 1250 on an English page and 1.25 on a Finnish one.
        ("en", "1,250", 125000),
        ("fi", "1,250", 125),
        ("es", "1.250", 125000),
        ("es", "1.250,50", 125050),
        ("es", "1.250.000", 125000000),
        ("su", "€1.250,5", 125050),
        ("fi", "1 250,50 €", 125050),
        ("sq", "1\u202f250,50", 125050),  # a narrow no-break space, as some keyboards type
        ("ko", "1,250.50", 125050),
        # Everywhere: a decimal comma or point before one, two or no digits; "0.250" and
        # "0,250" are a quarter, never 250 (a group cannot start with 0).
        ("en", "0,25", 25),
        ("es", "0.25", 25),
        ("en", "0.250", 25),
        ("en", "0,250", 25),
        ("fi", ",5", 50),
    ],
)
def test_amounts_typed_in_each_language(language, typed, cents):
    with override(language):
        assert parse_amount(typed, EUR) == cents


@pytest.mark.parametrize("typed", ["1,2,3", "1.25.0", "12,50.3", "1..2", "1,25.000"])
def test_marks_in_impossible_places_are_not_amounts(typed):
    with pytest.raises(MoneyError, match="is not an amount"):
        parse_amount(typed, EUR)


# --- the chips word --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "one", "many"),
    [
        ("en", "1 chip", "1,250 chips"),
        ("es", "1 ficha", f"1{NBSP}250 fichas"),
        ("fi", "1 pelimerkki", f"1{NBSP}250 pelimerkkiä"),
        ("sq", "1 fishë", f"1{NBSP}250 fisha"),
        ("ko", "1칩", "1,250칩"),
        ("su", "1 chip", "1.250 chip"),
    ],
)
def test_the_chips_word_is_translated_with_its_plural(language, one, many):
    with override(language):
        assert format_money(1, CHIPS) == one
        assert format_money(1250, CHIPS) == many
        assert format_money(-1250, CHIPS) == MINUS + many
        # What it wrote reads back, the word with it.
        assert parse_amount(many, CHIPS) == 1250 and parse_amount(one, CHIPS) == 1
    # A club's own word is its own, in every language.
    with override("fi"):
        assert format_money(3, Currency("XXX", 0, "points")) == "3 points"


# --- refusals in the reader's language -------------------------------------------------------


def test_a_refused_amount_is_explained_in_the_readers_language():
    with override("fi"):
        with pytest.raises(MoneyError) as refused:
            parse_amount("0,255", EUR, what="Panos")
        message = refused.value.message
        assert "liikaa desimaaleja" in message and "0,25 tai 5" in message
        with pytest.raises(MoneyError) as refused:
            parse_amount("0", EUR, minimum=1, what="Panos")
        assert refused.value.message == f"Panos on oltava vähintään 0,01{NBSP}€."
    with override("ko"), pytest.raises(MoneyError) as refused:
        parse_amount("abc", USD)
    assert (
        refused.value.message == "“abc”은(는) 금액이 아닙니다. 0.25 또는 5 같은 숫자를 입력하세요."
    )


# --- pages in the reader's language ------------------------------------------------------------


def _speaking(user, language: str) -> Client:
    client = Client()
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client


def _evening(club, players, bob, currency: Currency) -> GameSession:
    """A table where ann has won 75 cents net after one hand (ante 25 cents, four
    players): the amounts on its pages have cents to show."""
    club.currency = currency
    club.save()
    session = postings.start_session(
        club=club, name="Friday", players=players, dealer=players[3],
        rules={"ante": 25}, currency=currency, user=bob,
    )  # fmt: skip
    postings.record_hand(
        session_id=session.pk,
        entry={"trump": "H", "tricks": {"ann": 5}},
        idempotency_key=uuid.uuid4().hex,
        expected_version=None,
        user=bob,
    )
    session.refresh_from_db()
    postings.check_invariants(session)
    return session


@pytest.fixture
def euro_evening(club, players, bob):
    return _evening(club, players, bob, EUR)


def _nets(session: GameSession) -> dict[str, int]:
    names = dict(session.seats.values_list("player_id", "player__name"))
    return {names[int(pid)]: amount for pid, amount in session.nets.items()}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "won"),
    [("fi", f"+0,75{NBSP}€"), ("es", f"+0,75{NBSP}€"), ("ko", "+€0.75"), ("en", "+€0.75")],
)
def test_the_scoreboard_shows_money_in_the_pages_language(euro_evening, bob, language, won):
    # ann took the four antes less her own; the others, bourréd, paid the pot too.
    assert _nets(euro_evening) == {"ann": 75, "ben": -125, "cal": -125, "dee": -125}
    page = _speaking(bob, language).get(reverse("session_detail", args=[euro_evening.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert f'<html lang="{language}"' in text
    assert won in text


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "currency", "owed"), [("fi", EUR, f"0,75{NBSP}€"), ("ko", USD, "$0.75")]
)
def test_the_settlement_page_speaks_the_reader_and_the_csv_and_api_stay_plain(
    club, players, bob, language, currency, owed
):
    """The page says each transfer the reader's way (dee pays ann her 75 cents); the CSV
    file and the API say every amount the same way for every reader."""
    session = _evening(club, players, bob, currency)
    client = _speaking(bob, language)
    page = client.get(reverse("session_settlement", args=[session.pk])).content.decode()
    assert f'<span class="money">{owed}</span>' in page
    download = client.get(f"/sessions/{session.pk}/settlement.csv")
    rows = list(csv.DictReader(io.StringIO(download.content.decode())))
    assert rows and {r["currency"] for r in rows} == {currency.code}
    assert "0.75" in [r["amount"] for r in rows]
    for row in rows:
        cents = int(Decimal(row["amount"]) * 100)
        assert format_money(cents, currency, language=PLAIN) in row["explanation"]
        assert NBSP not in row["explanation"]
    api = client.get(
        f"/api/v1/sessions/{session.pk}/settlement/", headers={"accept-language": language}
    )
    assert api.status_code == 200, api.content
    transfers = api.json()["transfers"]
    assert [t["amount"] for t in transfers] == [int(Decimal(r["amount"]) * 100) for r in rows]
    for t in transfers:
        assert format_money(t["amount"], currency, language=PLAIN) in t["explanation"]
        assert NBSP not in t["explanation"]


@pytest.mark.django_db
def test_the_net_chart_is_drawn_in_the_readers_language_and_cached_per_language(euro_evening, bob):
    url = reverse("session_history_chart", args=[euro_evening.pk])
    english = _speaking(bob, "en").get(url).content.decode()
    finnish = _speaking(bob, "fi").get(url).content.decode()
    assert "Net per player over Friday" in english and "+€0.75" in english
    assert "Saldo pelaajittain: Friday" in finnish and f"+0,75{NBSP}€" in finnish
    assert "1 vaihe. Lopussa:" in finnish and "jako 1" in finnish


def test_the_chart_names_its_steps_and_amounts_in_korean():
    with override("ko"):
        svg = str(net_chart([("ann", [0, 125, 250])], ["start", "1", "close"], currency=USD))
    assert "플레이어별 순손익" in svg and "2단계. 마지막: ann +$2.50." in svg
    assert ">시작</text>" in svg and ">종료</text>" in svg


@pytest.mark.django_db
def test_the_tournament_wall_screen_carries_the_scripts_words(club, alice):
    """The wall screen has no base template: it includes the scripts' words itself, so its
    "offline since" line (static/js/app.js) is in the page's language."""
    from tests.games.test_tournament_service import make_tournament

    t = make_tournament(club, alice, n=4, format="freezeout", buy_in=20, fee=2)
    url = reverse("tournament_tv", args=[t.public_token])
    finnish = Client()
    finnish.cookies[settings.LANGUAGE_COOKIE_NAME] = "fi"
    html = finnish.get(url).content.decode()
    assert "data-bourre-text" in html
    with override("fi"):
        said = gettext("Offline — last updated {time}")
    assert said != "Offline — last updated {time}" and said in html
    # An English page leaves it out: the scripts' own English is the fallback.
    assert "data-bourre-text" not in Client().get(url).content.decode()


@pytest.mark.django_db
def test_the_rules_form_shows_and_reads_amounts_the_pages_way(euro_evening, bob):
    from tests.games.test_session_views import _rules_data

    url = reverse("session_rules", args=[euro_evening.pk])
    finnish = _speaking(bob, "fi")
    page = finnish.get(url).content.decode()
    ante = page[page.index('name="ante"') - 300 : page.index('name="ante"') + 300]
    assert 'value="0,25"' in ante  # not "0.25": the Finnish decimal sign
    data = _rules_data(ante="0,50", pot_limit="1 250,50")
    response = finnish.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    euro_evening.refresh_from_db()
    assert (euro_evening.rules["ante"], euro_evening.rules["pot_limit"]) == (50, 125050)


def test_memos_kept_in_the_ledger_are_locale_free():
    """A tournament's memo is stored: it reads the same whoever paid, in any language."""
    from ledger.memos import MemoKind, prize_memo

    paid = prize_memo(MemoKind.ENTRY, "ann", buy_in=1000, fee=250)
    with override("fi"):
        assert paid.stored(EUR) == "ann: buy-in €10 + fee €2.50"


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_settlement_sentences_second_clause_goes_on_in_lower_case(code):
    """The explanation joins two clauses with a semicolon ("ben pays it all to ann; ann's
    $4 win is collected: …"); a clause that does not start with a name starts in lower
    case (Spanish read "…a ann; La ganancia de…")."""
    from ledger.settlement import PHRASES, settle_balances

    with override(code):
        phrases = {key: gettext(text) for key, text in PHRASES.items()}
        transfers = settle_balances({"ann": 4, "ben": -2, "cal": -2}, phrases=phrases)
    # Lower-case names: any capital after the semicolon is the translation's own.
    assert len(transfers) == 2
    for t in transfers:
        assert "; " in t.explanation, t.explanation
        second = t.explanation.split("; ", 1)[1]
        assert not second[0].isupper(), (code, t.explanation)
