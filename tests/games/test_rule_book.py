"""Words a player uses (issue 14): the in-app rule book rendered from
``games.engine.rulebook``, "why?" links instead of bare rule numbers, and form
messages in the app's own words."""

import re

import pytest
from django.template import Context, Template
from django.urls import reverse

from games.engine import rulebook
from games.sessions.forms import HandForm

from .test_session_views import hand_data, start_table

pytestmark = pytest.mark.django_db


def test_rule_book_page_has_every_rule_addressable(client):
    response = client.get(reverse("rule_book"))  # public: no login
    assert response.status_code == 200
    html = response.content.decode()
    numbers = [e.number for s in rulebook.BOOK for e in s.entries]
    assert len(numbers) == len(set(numbers)) >= 30
    for number in numbers:
        assert f'id="{number}"' in html
    # R29 in full, switch names as code, cross-references as links.
    assert "A cinch holder who follows and is not last to play" in html
    assert "<code>pot_limit</code>" in html and '<a href="#R35">R35</a>' in html
    # Section titles too: no raw backticks reach the page (it once read "The cinch (`cinch`)").
    assert "`" not in html
    assert "<h2>The cinch (<code>cinch</code>)</h2>" in html


def test_every_rule_the_code_cites_is_in_the_book():
    """No rule number in the app that the rule book cannot explain."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    cited = set()
    for path in [
        *root.glob("games/**/*.py"),
        *root.glob("ledger/**/*.py"),
        *root.glob("templates/**/*.html"),
    ]:
        if "migrations" in path.parts:
            continue
        cited |= set(re.findall(r"\bR\d{1,2}\b", path.read_text()))
    assert cited and not cited - {e.number for s in rulebook.BOOK for e in s.entries}


def render(text: str) -> str:
    return Template("{% load bourre %}{{ text|why }}").render(Context({"text": text}))


def test_why_turns_rule_numbers_into_links():
    html = render("ben passed, so ben took no tricks (R10).")
    assert "(R10)" not in html and html.startswith("Ben passed, so ben took no tricks.")
    assert f'href="{reverse("rule_book")}#R10"' in html and ">why?</a>" in html
    html = render("R21: head the trick — you may play AS")
    assert not re.search(r">[^<]*R21", html) and html.startswith("Head the trick")
    assert "#R21" in html
    assert render("<b>ann</b> wins") == "&lt;b&gt;ann&lt;/b&gt; wins"  # still escaped
    html = render("it is ann's turn, not ben's (R16: declaring out of turn forfeits your deal)")
    assert "(declaring out of turn forfeits your deal)" in html and "R16:" not in html


def test_a_sentence_citing_two_rules_ends_with_one_why():
    """FINDINGS: "… why? why?" — one link, to the first rule the sentence cites."""
    html = render("Everybody passed (R40); otherwise the dealer wins uncontested (R14).")
    assert html.count(">why?</a>") == 1 and "#R40" in html and "#R14" not in html


def test_a_refused_save_with_only_a_suit_tapped_says_why_once(bob_client, club, players, bob):
    """FINDINGS: with the default declaring in turn (R9) and only a suit tapped, the
    refusal ended "… why? why?" (R40 and R14)."""
    table = start_table(club, players, bob)
    data = hand_data(table)
    for i in range(4):
        del data[f"play_{i}"], data[f"tricks_{i}"]  # nobody ticked: only the suit
    response = bob_client.post(reverse("hand_record", args=[table.pk]), data, HTTP_HX_REQUEST="1")
    assert response.status_code == 422
    top = re.search(r'<ul class="errorlist nonfield"[^>]*>(.*?)</ul>', response.content.decode())
    assert top and "Everybody passed" in top.group(1)
    assert top.group(1).count(">why?</a>") == 1 and "why? why?" not in response.content.decode()


def test_record_errors_speak_words_with_a_why_link(bob_client, club, players, bob):
    table = start_table(club, players, bob)
    data = hand_data(table, tricks={"ann": 3, "ben": 2, "cal": 1}, passed=["dee"])
    response = bob_client.post(reverse("hand_record", args=[table.pk]), data)
    html = response.content.decode()
    assert response.status_code == 422
    assert "why?</a>" in html
    assert not re.search(r"\(R\d+\)", html)  # never a bare rule number


def test_form_messages_are_the_apps_own(club, players, bob):
    table = start_table(club, players, bob)
    from ledger import postings

    form = HandForm(
        hand_data(table, tricks={"ann": 9, "ben": 0, "cal": 0, "dee": 0}),
        state=postings.session_state(table),
    )
    assert not form.is_valid()
    text = " ".join(str(e) for errors in form.errors.values() for e in errors)
    assert "ann cannot take more than 5 tricks" in text
    assert "Ensure this value" not in text and "This field is required" not in text
