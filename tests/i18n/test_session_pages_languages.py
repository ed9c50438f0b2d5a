"""The session pages' own words in the reader's language (issue 19): the record form, its
refusals and its confirmation, the hand summary, the scoreboard, the settlement with its
explanations, the house rules and the club statistics, read by a Finnish and a Korean
player. The CSV stays English whoever downloads it.

Each test reads the page in English first where the English is the contrast, so a test
cannot pass on a page that never changed language."""

from __future__ import annotations

import csv
import io
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils.translation import override

from games.sessions.forms import CloseForm
from games.sessions.selectors import settlement_rows
from games.templatetags.bourre import card, names, result_line, table_status, transfer_sentence
from ledger import postings
from tests.games.test_session_views import HTMX, WIN_ANN, hand_data, record_direct, start_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(club, players, bob):
    return start_table(club, players, bob)


def _speak(client, code: str):
    """The language switcher's cookie (the users here saved no choice)."""
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = code
    return client


def _page(client, url: str, **extra) -> str:
    response = client.get(url, **extra)
    assert response.status_code == 200
    return response.content.decode()


# -- the record form -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "suit", "kind"),
    [("fi", "Hertta", "huomattu ajoissa"), ("ko", "하트", "제때 발견됨")],
)
def test_the_record_form_names_suits_and_renege_kinds_in_the_readers_language(
    bob_client, table, code, suit, kind
):
    url = reverse("hand_record", args=[table.pk])
    english = _page(bob_client, url)
    assert "Hearts" in english and "caught in time" in english
    page = _page(_speak(bob_client, code), url)
    assert suit in page and kind in page
    assert "Hearts" not in page and "caught in time" not in page


@pytest.mark.parametrize(("code", "label"), [("en", "ben took 2"), ("ko", "ben: 2트릭")])
def test_every_tricks_button_is_labelled_for_screen_readers_in_the_readers_language(
    bob_client, table, code, label
):
    """Each seat's tricks buttons (0 to the hand's size) carry "name took n" in the
    reader's language; a refused form keeps the count that was tapped."""
    url = reverse("hand_record", args=[table.pk])
    page = _page(_speak(bob_client, code), url)
    for name in ("ann", "ben", "cal", "dee"):
        assert page.count(f'value="{name}"') >= 1
    assert page.count('class="trick-opt"') == 4 * 6  # four seats, 0 to 5 tricks
    assert f'name="tricks_1" value="2" aria-label="{label}">' in page
    data = hand_data(table, tricks={"ann": 5, "ben": 2, "cal": 0, "dee": 0})
    refused = _speak(bob_client, code).post(url, data, **HTMX)
    assert refused.status_code == 422
    assert f'name="tricks_1" value="2" aria-label="{label}" checked>' in refused.content.decode()


def test_a_refused_hand_says_why_in_finnish_R10(bob_client, table):
    """A passer given a trick (R10): the row's refusal is the catalogue's sentence, with
    its rule left for the "why?" link."""
    data = hand_data(table, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 1}, passed=("dee",))
    response = _speak(bob_client, "fi").post(reverse("hand_record", args=[table.pk]), data, **HTMX)
    assert response.status_code == 422
    html = response.content.decode()
    assert "Dee passasi, joten dee ei saanut tikkejä." in html
    assert "took no tricks" not in html


def test_a_count_over_the_hand_says_why_in_korean_R7(bob_client, table):
    data = hand_data(table, tricks={"ann": 5, "ben": 1, "cal": 0, "dee": 0})
    response = _speak(bob_client, "ko").post(reverse("hand_record", args=[table.pk]), data, **HTMX)
    assert response.status_code == 422
    html = response.content.decode()
    assert "Ben 님에게 줄 트릭이 남아 있지 않습니다 — 이미 5트릭을 셌습니다." in html
    assert "no tricks left" not in html


def test_the_costly_hand_confirmation_gives_its_reasons_in_finnish(bob_client, table):
    """Three bourrés ask one more tap (issue 14): the reason and each charge's word come
    from the catalogue (the ledger's reason is made in the active language)."""
    data = hand_data(table, tricks={"ann": 5, "ben": 0, "cal": 0, "dee": 0})
    html = (
        _speak(bob_client, "fi")
        .post(reverse("hand_record", args=[table.pk]), data, **HTMX)
        .content.decode()
    )
    assert "3 pelaajaa on bourré" in html
    assert "players are bourré" not in html
    postings.check_invariants(table)


# -- the hand's result, the scoreboard -------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "joined", "hearts"),
    [("fi", "ann, ben ja cal", "hertta"), ("ko", "ann, ben 및 cal", "하트")],
)
def test_the_result_joins_names_and_reads_the_suit_in_the_readers_language(
    bob_client, table, code, joined, hearts
):
    """The result after recording: who antes next (dee, bourré, is excused: R36), joined
    with the language's "and"; the trump's name for screen readers."""
    data = hand_data(table, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    response = _speak(bob_client, code).post(reverse("hand_record", args=[table.pk]), data, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert joined in html
    assert f'<span class="sr-only">{hearts}</span>' in html
    assert "ben and cal" not in html and '<span class="sr-only">hearts</span>' not in html
    postings.check_invariants(table)


@pytest.mark.parametrize(("code", "hearts"), [("fi", "hertta"), ("ko", "하트")])
def test_the_scoreboard_reads_the_trump_in_the_readers_language(carol_client, table, code, hearts):
    record_direct(table, **WIN_ANN)
    url = reverse("session_detail", args=[table.pk])
    assert '<span class="sr-only">hearts</span>' in _page(carol_client, url)
    html = _page(_speak(carol_client, code), url)
    assert f'<span class="sr-only">{hearts}</span>' in html
    assert '<span class="sr-only">hearts</span>' not in html


def test_the_hand_page_names_the_ledger_accounts_in_finnish(carol_client, table):
    hand = record_direct(table, **WIN_ANN)
    html = _page(_speak(carol_client, "fi"), reverse("hand_detail", args=[hand.pk]))
    assert "<td>potti</td>" in html
    assert "<td>pot</td>" not in html


def test_card_names_result_lines_and_lists_follow_the_active_language():
    result = {"outcome": "all_passed", "next_carry": 4, "bourre": ["dee"]}
    with override("en"):
        assert "queen of hearts" in card("QH")
        assert result_line(result, "USD") == (
            "everyone passed, the pot carries; bourré: dee; next pot $0.04"
        )
        assert names(["ann", "ben", "cal"]) == "ann, ben and cal"
    with override("fi"):
        assert "hertta kuningatar" in card("QH")
        assert result_line(result, "USD").startswith(
            "kaikki passasivat, potti siirtyy; bourré: dee;"
        )
        assert names(["ann", "ben", "cal"]) == "ann, ben ja cal"
    with override("ko"):
        assert "하트 퀸" in card("QH")
        assert result_line(result, "USD").startswith(
            "모두 패스해서 팟이 넘어감; 부레: dee; 다음 팟"
        )
        assert names(["ann", "ben"]) == "ann 및 ben"


def test_a_transfer_is_one_sentence_in_the_readers_language_with_its_names_escaped():
    closed = SimpleNamespace(is_open=False, currency="USD")
    opened = SimpleNamespace(is_open=True, currency="USD")
    row = {"payer": "<b>ben</b>", "payee": "ann", "amount": 1450, "kitty": ""}
    with override("en"):
        english = transfer_sentence(row, closed)
        assert english == (
            "<strong>&lt;b&gt;ben&lt;/b&gt;</strong> pays <strong>ann</strong> "
            '<span class="money">$14.50</span>'
        )
        # the pot while the session is open, the club's kitty once it is closed
        assert "in the pot" in transfer_sentence(row | {"kitty": "payee"}, opened)
        assert "into the club kitty" in transfer_sentence(row | {"kitty": "payee"}, closed)
        assert "of the pot carried in" in transfer_sentence(row | {"kitty": "payer"}, opened)
        assert transfer_sentence(row | {"kitty": "payer"}, closed).startswith("The club kitty pays")
    with override("es"):
        spanish = transfer_sentence(row, closed)
        assert "paga a <strong>ann</strong>" in spanish and "&lt;b&gt;" in spanish
        assert transfer_sentence(row | {"kitty": "payer"}, closed).startswith("La caja del club")


def test_a_table_state_is_a_word_in_the_readers_language():
    with override("en"):
        assert [table_status(s) for s in ("playing", "finished", "broken")] == [
            "playing",
            "finished",
            "broken",
        ]
    with override("es"):
        assert table_status("playing") == "en juego"
        assert table_status("finished") == "terminada"
        assert table_status("waiting") == "waiting"  # a state without a word stays as it is


# -- the settlement --------------------------------------------------------------------------


@pytest.fixture
def played(table, bob):
    record_direct(table, user=bob, **WIN_ANN)
    postings.close_session(session_id=table.pk, user=bob, leftover_policy="share_equally")
    table.refresh_from_db()
    return table


@pytest.mark.parametrize(("code", "words"), [("fi", "hävisi yhteensä"), ("ko", "모두")])
def test_the_settlement_explains_each_transfer_in_the_readers_language(
    carol_client, played, code, words
):
    url = reverse("session_settlement", args=[played.pk])
    english = carol_client.get(url)
    assert all("overall" in r["explanation"] for r in english.context["rows"])
    response = _speak(carol_client, code).get(url)
    rows = response.context["rows"]
    assert rows and all(words in r["explanation"] for r in rows)
    assert not any("overall" in r["explanation"] for r in rows)
    html = response.content.decode().replace("&#x27;", "'")
    assert all(r["explanation"] in html for r in rows)


def test_the_open_pot_is_a_party_named_in_korean(carol_client, table):
    record_direct(table, **WIN_ANN)
    response = _speak(carol_client, "ko").get(reverse("session_settlement", args=[table.pk]))
    rows = response.context["rows"]
    # Players are down 4 in all: that money sits in the pot.
    assert sum(r["amount"] for r in rows if r["payee"] == "팟") == 4
    assert not any("the pot" in (r["payer"], r["payee"]) for r in rows)


def test_the_settlement_csv_stays_english_for_a_finnish_reader(carol_client, table):
    record_direct(table, **WIN_ANN)
    response = _speak(carol_client, "fi").get(reverse("settlement_csv", args=[table.pk]))
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    with override("en"):
        english, _names = settlement_rows(table)
    with override("fi"):
        finnish, _names = settlement_rows(table)
    assert [r["explanation"] for r in finnish] != [r["explanation"] for r in english]
    assert [(r["payee"], r["explanation"]) for r in rows] == [
        (r["payee"], r["explanation"]) for r in english
    ]
    assert any(r["payee"] == "the pot" for r in rows)


# -- house rules, closing, statistics ------------------------------------------------------------


def test_the_house_rules_page_labels_groups_and_values_in_finnish(carol_client, table):
    html = _page(_speak(carol_client, "fi"), reverse("session_rules", args=[table.pk]))
    for words in (
        "Kortteja jaossa",
        "Panokset",
        "Jako ja vaihto",
        "Potti siirtyy seuraavaan jakoon",
    ):
        assert words in html
    assert "Cards per hand" not in html and "Deal and draw" not in html


def test_closing_says_so_in_korean(bob_client, table):
    response = _speak(bob_client, "ko").post(
        reverse("session_close", args=[table.pk]), {"leftover_policy": "share_equally"}, follow=True
    )
    assert "Friday 세션을 종료했습니다. 누가 누구에게 지불하는지 확인하세요." in (
        response.content.decode()
    )


def test_the_club_statistics_headings_are_korean(carol_client, club, table):
    record_direct(table, **WIN_ANN)
    html = _page(_speak(carol_client, "ko"), reverse("club_stats", args=[club.pk]))
    assert "순손익" in html and "최대 팟" in html
    assert "Biggest pot" not in html


def test_a_fields_own_refusal_is_in_the_language_active_when_the_form_is_made():
    """games.formtext: the app's words replace Django's defaults in every language, in
    whichever order the languages come (Django's defaults are themselves translated)."""
    said = {}
    for code in ("fi", "en", "ko"):
        with override(code):
            form = CloseForm(data={})
            assert not form.is_valid()
            said[code] = form.errors["leftover_policy"][0]
    assert said == {
        "fi": "Täytä kenttä Pöydälle jäänyt potti.",
        "en": "Fill in The pot left on the table.",
        "ko": "테이블에 남은 팟 항목을 입력하세요.",
    }


# -- starting a session ------------------------------------------------------------------


def test_a_new_sessions_default_name_writes_the_day_in_the_readers_word_order(
    bob_client, club, players
):
    """Korean writes month, day, weekday ("11월 30일 월요일"); the English letters "l j F"
    gave "월요일 30 11월". Spanish puts "de" before the month."""
    from django.utils import timezone

    url = reverse("session_new", args=[club.pk])
    today = timezone.localdate()
    english = _page(bob_client, url)
    assert f'value="{today:%A} {today.day} {today:%B}"' in english
    korean = _page(_speak(bob_client, "ko"), url)
    assert f'value="{today.month}월 {today.day}일 ' in korean
    spanish = _page(_speak(bob_client, "es"), url)
    assert f'value="{_ES_WEEKDAYS[today.weekday()]} {today.day} de ' in spanish


_ES_WEEKDAYS = ["lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"]
