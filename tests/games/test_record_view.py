"""The record-hand screen: the form, a valid hand (plain post and htmx), idempotent double
submit, stale submit, invalid records re-shown with errors beside their fields (nothing
written), card logs, undo and edit, and the forbidden cases."""

import json
import uuid

import pytest
from django.urls import reverse

from games.models import Hand
from ledger import postings
from ledger.models import Leg, Posting

from .test_session_views import HTMX, WIN_ANN, hand_data, record, record_direct, start_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(club, players, bob):
    return start_table(club, players, bob)


def books():
    """What a refused submission must leave untouched."""
    return Hand.objects.count(), Posting.objects.count(), Leg.objects.count()


def row_errors(response, name):
    for row in response.context["rows"]:
        if row["name"] == name:
            return row["errors"]
    raise AssertionError(f"no row for {name}")


# -- the form ----------------------------------------------------------------------------


def test_record_form_has_key_version_rows_and_suits(bob_client, table):
    response = bob_client.get(reverse("hand_record", args=[table.pk]))
    assert response.status_code == 200
    form = response.context["form"]
    key = form["idempotency_key"].value()
    assert len(key) == 32 and uuid.UUID(key)
    assert form["version"].value() == table.version
    assert [r["name"] for r in response.context["rows"]] == ["ann", "ben", "cal", "dee"]
    assert [r["dealer"] for r in response.context["rows"]] == [False, False, False, True]
    html = response.content.decode()
    for code in "SHDC":
        assert f'name="trump" value="{code}"' in html
    assert "0</span> of 5 tricks counted" in html
    assert 'name="idempotency_key"' in html and 'name="version"' in html
    assert "Who reneged?" in html and "More: renege, up-card, card log" in html
    # Who played? starts from nobody; each seat offers its tricks 0..5 as one tap each.
    assert 'name="play_0" value="play" data-played>' in html
    assert all(f'name="tricks_0" value="{n}"' in html for n in range(6))
    # Every render gets a new key: a second form is a second hand.
    again = bob_client.get(reverse("hand_record", args=[table.pk])).context["form"]
    assert again["idempotency_key"].value() != key


def test_start_with_last_hands_players_only_once_there_is_a_last_hand(bob_client, table):
    """Hand 1 has no last hand to start from: the "Start with nobody / last hand's" choice
    is not in the page at all (it showed without JavaScript, and with it, because its
    own display overrode ``hidden``). From hand 2 on it is there, for record.js to show."""
    url = reverse("hand_record", args=[table.pk])
    html = bob_client.get(url).content.decode()
    assert "data-who-default" not in html and "last hand&#x27;s" not in html
    record_direct(table, **WIN_ANN)
    html = bob_client.get(url).content.decode()
    assert html.count("data-who-default-value") == 2
    assert 'data-last-played="ann,ben,cal,dee"' in html


def test_record_form_htmx_partial(bob_client, table):
    response = bob_client.get(reverse("hand_record", args=[table.pk]), **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html and html.lstrip().startswith('<section id="record"')


def test_record_forbidden(carol_client, mallory_client, client, table):
    url = reverse("hand_record", args=[table.pk])
    before = books()
    assert carol_client.get(url).status_code == 403
    assert carol_client.post(url, hand_data(table, **WIN_ANN)).status_code == 403
    assert mallory_client.get(url).status_code == 404
    assert mallory_client.post(url, hand_data(table, **WIN_ANN)).status_code == 404
    assert client.post(url, hand_data(table, **WIN_ANN)).status_code == 302
    assert books() == before


# -- valid hands -------------------------------------------------------------------------


def test_valid_hand_plain_post_redirects_to_its_result(bob_client, table, bob):
    response = record(bob_client, table, **WIN_ANN)
    hand = Hand.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("hand_detail", args=[hand.pk])
    assert hand.created_by == bob and hand.result["winner"] == "ann"
    postings.check_invariants(table)
    page = bob_client.get(response["Location"])
    html = page.content.decode()
    assert "Hand 1 saved" in html and "<strong>ann</strong> wins $4" in html
    assert "Undo" in html and "Correct" in html


def test_valid_hand_htmx_shows_result_replacing_form_R8_R36(bob_client, table):
    response = record(bob_client, table, htmx=True, **WIN_ANN)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="record" class="result"')
    assert "<strong>ann</strong> wins $4" in html
    assert "<strong>dee</strong> pays $4 into the next pot" in html  # bourré (R36)
    assert 'Next pot</dt><dd><span class="money">$4</span> + antes' in html
    assert "Antes next</dt><dd>ann, ben and cal" in html  # dee excused (R36)
    assert "Deals next</dt><dd><strong>ann</strong>" in html  # R8
    assert "Undo" in html and "Record next hand" in html


def test_double_submit_records_once_and_shows_same_result(bob_client, table):
    data = hand_data(table, **WIN_ANN)
    url = reverse("hand_record", args=[table.pk])
    first = bob_client.post(url, data, **HTMX)
    second = bob_client.post(url, data, **HTMX)  # the retry carries the old version too
    assert first.status_code == second.status_code == 200
    assert Hand.objects.count() == 1
    hand = Hand.objects.get()
    assert "Hand 1 saved" in first.content.decode()
    assert "Hand 1 was already saved" in second.content.decode()
    assert "<strong>ann</strong> wins $4" in second.content.decode()
    plain = bob_client.post(url, data)  # a plain-HTML retry lands on the same hand
    assert plain["Location"] == reverse("hand_detail", args=[hand.pk])
    assert Hand.objects.count() == 1
    postings.check_invariants(table)


def test_stale_submit_is_refused_with_fresh_form(bob_client, table, bob):
    stale = hand_data(table, **WIN_ANN)
    record_direct(table, user=bob, **WIN_ANN)  # another phone records first
    before = books()
    response = bob_client.post(reverse("hand_record", args=[table.pk]), stale, **HTMX)
    assert response.status_code == 409
    assert books() == before
    html = response.content.decode()
    # The very hand the other phone saved: said outright, one more Save would repeat it.
    assert "hand 1 was just saved with exactly this result" in html
    assert "Nothing was saved" in html
    assert f'name="version" value="{table.version}"' in html
    assert stale["idempotency_key"] not in html
    plain = bob_client.post(reverse("hand_record", args=[table.pk]), stale)
    assert plain.status_code == 409 and books() == before
    form = plain.context["form"]
    assert form["version"].value() == table.version
    assert form["idempotency_key"].value() != stale["idempotency_key"]
    # Nothing typed is lost: the taps are still in the fresh form, with a warning.
    assert not form.is_bound and form["trump"].value() == "H"
    assert [form[f"tricks_{i}"].value() for i in range(4)] == [3, 1, 1, 0]
    assert "Save again only if this is a new hand" in plain.content.decode()


def test_a_stale_submit_of_another_hand_says_the_table_moved_on(bob_client, table, bob):
    stale = hand_data(table, tricks={"ann": 1, "ben": 3, "cal": 1})
    record_direct(table, user=bob, **WIN_ANN)  # another phone records another hand
    response = bob_client.post(reverse("hand_record", args=[table.pk]), stale, **HTMX)
    assert response.status_code == 409
    html = response.content.decode()
    assert "The table moved on" in html and "What you typed is still below" in html
    assert "was just saved with exactly this result" not in html
    postings.check_invariants(table)


# -- invalid hands: errors beside their fields, nothing written ---------------------------


def test_too_many_tricks_shown_on_the_row_R7(bob_client, table):
    before = books()
    data = hand_data(table, tricks={"ann": 3, "ben": 2, "cal": 1})
    url = reverse("hand_record", args=[table.pk])
    response = bob_client.post(url, data, **HTMX)
    assert response.status_code == 422
    assert books() == before
    html = response.content.decode()
    # Words, and the rule as a "why?" link (the form error itself names R7).
    assert "Cal has no tricks left to give — 5 tricks are already counted." in html
    assert 'href="/rules/#R7"' in html
    plain = bob_client.post(url, data)
    assert plain.status_code == 422 and books() == before
    assert row_errors(plain, "cal") == [
        "cal has no tricks left to give — 5 tricks are already counted (R7)."
    ]
    assert row_errors(plain, "ann") == []
    # The re-shown form keeps what was entered and the same key (nothing was written).
    form = plain.context["form"]
    assert form["tricks_1"].value() == "2"
    assert form["idempotency_key"].value() == data["idempotency_key"]


def test_partly_too_many_tricks_R7(bob_client, table):
    response = record(bob_client, table, tricks={"ann": 4, "ben": 3})
    assert response.status_code == 422
    assert row_errors(response, "ben") == [
        "ben can have at most 1 — 4 of 5 tricks are already counted (R7)."
    ]
    # Rows after the overflow with no tricks are not blamed.
    assert row_errors(response, "cal") == row_errors(response, "dee") == []


def test_too_few_tricks_shown_on_the_counter_R7(bob_client, table):
    before = books()
    response = record(bob_client, table, tricks={"ann": 2, "ben": 1, "cal": 1})
    assert response.status_code == 422 and books() == before
    slots = response.context["slots"]
    assert slots["counter"] == ["Only 4 of 5 tricks are counted — who took the other 1 (R7)?"]
    page = response.content.decode()
    assert "4</span> of 5 tricks counted" in page
    # The page turns "(R7)" into a "why?" link and the question keeps its own mark.
    assert 'who took the other 1? <a class="why"' in page and "1?." not in page


def test_passer_with_tricks_R10(bob_client, table):
    response = record(bob_client, table, passed=["ben"], tricks={"ann": 3, "ben": 1, "cal": 1})
    assert response.status_code == 422
    assert row_errors(response, "ben") == ["ben passed, so ben took no tricks (R10)."]
    assert Hand.objects.count() == 0


def test_missing_trump_R2(bob_client, table):
    response = record(bob_client, table, trump="", **WIN_ANN)
    assert response.status_code == 422
    assert response.context["slots"]["suit"] == ["Tap the trump suit (or type the up-card) (R2)."]
    assert Hand.objects.count() == 0


def test_up_card_and_tapped_suit_disagree_R2(bob_client, table):
    response = record(bob_client, table, trump="S", up_card="QH", **WIN_ANN)
    assert response.status_code == 422
    assert (
        "The up-card QH makes hearts trump, but spades is tapped (R2)."
        in (response.context["slots"]["suit"])
    )


def test_engine_error_beside_the_dealer_row_R12(bob_client, table):
    """With an Ace up the dealer must play (R12): the engine's error lands on dee's row."""
    before = books()
    kwargs = dict(trump="", up_card="AH", passed=["dee"], tricks={"ann": 3, "ben": 1, "cal": 1})
    response = record(bob_client, table, **kwargs)
    assert response.status_code == 422
    assert books() == before
    errors = row_errors(response, "dee")
    assert len(errors) == 1 and "must play (R12)" in errors[0]
    partial = record(bob_client, table, htmx=True, **kwargs)
    assert partial.status_code == 422
    assert "With an Ace up the dealer dee must play." in partial.content.decode()
    assert 'href="/rules/#R12"' in partial.content.decode()
    assert books() == before


def test_everybody_passing_is_refused_R14(bob_client, table):
    response = record(bob_client, table, passed=["ann", "ben", "cal", "dee"])
    assert response.status_code == 422
    assert "(R14)" in " ".join(
        response.context["slots"]["top"] + sum((r["errors"] for r in response.context["rows"]), [])
    )
    assert Hand.objects.count() == 0


# -- outcomes: uncontested, split, renege --------------------------------------------------


def test_uncontested_hand_R14(bob_client, table):
    response = record(bob_client, table, htmx=True, passed=["ann", "ben", "cal"])
    assert response.status_code == 200
    hand = Hand.objects.get()
    assert hand.result["outcome"] == "uncontested" and hand.result["winner"] == "dee"
    assert "<strong>dee</strong> takes $4 uncontested" in response.content.decode()


def test_split_pot_carries_R34(bob_client, table):
    response = record(bob_client, table, htmx=True, tricks={"ann": 2, "ben": 2, "cal": 1})
    assert response.status_code == 200
    hand = Hand.objects.get()
    assert hand.result["outcome"] == "split"
    html = response.content.decode()
    assert "Split pot (ann and ben) — $4 carries" in html
    assert "<strong>dee</strong> pays $4" in html  # dee bourré on top (R36)
    table.refresh_from_db()
    assert table.carry == 8


def test_uncorrected_renege_pays_the_pot_R39(bob_client, table):
    response = record(
        bob_client,
        table,
        htmx=True,
        tricks={"ann": 3, "ben": 1, "cal": 1},
        reneges={"cal": "uncorrected"},
    )
    assert response.status_code == 200
    hand = Hand.objects.get()
    assert hand.record["reneges"] == [{"player": "cal", "corrected": False}]
    assert hand.result["penalties"]["cal"] == 4
    html = response.content.decode()
    assert "Renege penalty" in html
    # A sentence, not a bare name and "why?".
    assert "<strong>cal</strong> reneged and it was not caught in time" in html


def test_corrected_renege_costs_nothing_extra_R39(bob_client, table):
    record(bob_client, table, tricks={"ann": 3, "ben": 1, "cal": 1}, reneges={"ben": "corrected"})
    hand = Hand.objects.get()
    assert hand.record["reneges"] == [{"player": "ben", "corrected": True}]
    assert "ben" not in hand.result["penalties"]
    page = bob_client.get(reverse("hand_detail", args=[hand.pk])).content.decode()
    assert "<strong>ben</strong> reneged and caught it in time" in page


def test_declaration_out_of_turn_adds_a_forfeit_R16(bob_client, table):
    page = bob_client.get(reverse("hand_record", args=[table.pk])).content.decode()
    assert 'name="out_of_turn_0"' in page and "Declared out of turn" in page
    # dee deals, so ann would deal next; ann declared out of turn: the deal skips her
    response = record(bob_client, table, tricks={"ann": 3, "ben": 1, "cal": 1}, out_of_turn_0="on")
    assert response.status_code == 302
    hand = Hand.objects.get()
    assert hand.record["forfeits"] == ["ann"]
    assert hand.result["next_dealer"] == "ben" and hand.result["forfeits_next"] == []
    table.refresh_from_db()
    assert postings.session_state(table)["dealer"] == "ben"


def test_declaration_out_of_turn_keeps_pending_forfeits_R16(bob_client, table):
    record(bob_client, table, tricks={"ann": 3, "ben": 1, "cal": 1}, out_of_turn_2="on")
    table.refresh_from_db()
    assert postings.session_state(table)["forfeits"] == ["cal"]  # cal deals later
    # another call at the next hand adds to cal's pending forfeit, never replaces it
    record(bob_client, table, tricks={"ann": 3, "ben": 1, "cal": 1}, out_of_turn_3="on")
    hand = Hand.objects.order_by("-number").first()
    assert sorted(hand.record["forfeits"]) == ["cal", "dee"]
    # The hand's page says who declared out of turn at it (dee), not the earlier call.
    page = bob_client.get(reverse("hand_detail", args=[hand.pk])).content.decode()
    assert "<strong>dee</strong> declared out of turn, so the deal skips them once" in page
    assert "<strong>cal</strong> declared" not in page


# -- card logs ---------------------------------------------------------------------------

# dee deals, ann leads; hearts trump. ann wins 3 tricks, ben 2; cal and dee take none.
CARD_LOG = (
    "ann AH, ben 2H, cal 2C, dee 2D, "
    "ann KH, ben 3H, cal 3C, dee 3D, "
    "ann QH, ben 4H, cal 4C, dee 4D, "
    "ann 2S, ben AS, cal 5C, dee 5D, "
    "ben KS, cal 6C, dee 6D, ann 3S"
)


def test_card_log_records_the_hand(bob_client, table):
    response = record(bob_client, table, htmx=True, card_log=CARD_LOG)
    assert response.status_code == 200, response.context.get("slots")
    hand = Hand.objects.get()
    assert hand.verdict["tricks"] == {"ann": 3, "ben": 2, "cal": 0, "dee": 0}
    assert len(hand.record["plays"]) == 20
    assert hand.result["bourre"] == ["cal", "dee"]


def test_card_log_as_json_fragment(bob_client, table):
    plays = [item.split() for item in CARD_LOG.split(", ")]
    response = record(bob_client, table, card_log=json.dumps({"plays": plays}))
    assert response.status_code == 302
    assert Hand.objects.get().verdict["tricks"]["ben"] == 2


def test_card_log_out_of_turn_shown_beside_the_log_R17(bob_client, table):
    before = books()
    log = CARD_LOG.replace("ann AH, ben 2H", "ben 2H, ann AH", 1)
    response = record(bob_client, table, card_log=log)
    assert response.status_code == 422
    assert books() == before
    errors = response.context["slots"]["card_log"]
    assert len(errors) == 1 and "(R17)" in errors[0] and "ben" in errors[0]


def test_card_log_unknown_player_and_bad_card(bob_client, table):
    response = record(bob_client, table, card_log="ann AH, bem 2H")
    assert response.context["slots"]["card_log"] == [
        "“bem” is not in this hand; the players are ann, ben, cal, dee."
    ]
    response = record(bob_client, table, card_log="ann AX")
    assert response.context["slots"]["card_log"][0].startswith("“AX” (ann) is not a card")
    response = record(bob_client, table, card_log='{"players": ["x"]}')
    assert "The session supplies players" in response.context["slots"]["card_log"][0]
    assert Hand.objects.count() == 0


def test_partial_card_log_is_not_a_finished_hand(bob_client, table):
    response = record(bob_client, table, card_log="ann AH, ben 2H")
    assert response.status_code == 422
    assert Hand.objects.count() == 0
    assert response.context["slots"]["card_log"]


# -- undo and edit -----------------------------------------------------------------------


def test_undo_restores_the_state_and_says_what_it_did(bob_client, table):
    record(bob_client, table, **WIN_ANN)
    hand = Hand.objects.get()
    table.refresh_from_db()
    response = bob_client.post(
        reverse("hand_void", args=[hand.pk]), {"version": table.version}, **HTMX
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "Hand 1 undone" in html and "The pot is back to $0 and dee deals." in html
    assert 'name="idempotency_key"' in html  # the fresh form, ready for the right hand
    hand.refresh_from_db()
    table.refresh_from_db()
    assert hand.status == Hand.Status.VOIDED
    assert table.carry == 0 and table.next_dealer.name == "dee" and table.excused == []
    assert Posting.objects.filter(kind=Posting.Kind.REVERSAL).count() == 3
    postings.check_invariants(table)


def test_undo_plain_post_redirects_with_message(bob_client, table):
    hand = record_direct(table, **WIN_ANN)
    response = bob_client.post(reverse("hand_void", args=[hand.pk]), follow=True)
    assert "Hand 1 undone" in response.content.decode()
    assert response.redirect_chain[-1][0] == table.get_absolute_url()


def test_only_the_latest_hand_can_be_undone(bob_client, table):
    first = record_direct(table, **WIN_ANN)
    record_direct(table, tricks={"ann": 3, "ben": 1, "cal": 1})
    response = bob_client.post(reverse("hand_void", args=[first.pk]), **HTMX)
    assert response.status_code == 409
    assert "Hand 1 was not undone" in response.content.decode()
    first.refresh_from_db()
    assert first.status == Hand.Status.RECORDED


def test_undo_against_a_stale_version_is_refused(bob_client, table):
    hand = record_direct(table, **WIN_ANN)
    response = bob_client.post(
        reverse("hand_void", args=[hand.pk]), {"version": table.version - 1}, **HTMX
    )
    assert response.status_code == 409
    hand.refresh_from_db()
    assert hand.status == Hand.Status.RECORDED


def test_edit_opens_the_correction_keeping_the_hand(bob_client, table):
    entry = dict(
        up_card="QS",
        passed=["ben"],
        tricks={"ann": 3, "cal": 2, "dee": 0},
        reneges=[{"player": "cal", "corrected": True}],
    )
    hand = record_direct(table, **entry)
    response = bob_client.post(reverse("hand_edit", args=[hand.pk]), **HTMX)
    assert response["HX-Redirect"] == reverse("hand_correct", args=[hand.pk])
    plain = bob_client.post(reverse("hand_edit", args=[hand.pk]))
    assert plain.status_code == 302 and plain["Location"] == reverse("hand_correct", args=[hand.pk])
    hand.refresh_from_db()
    assert hand.status == Hand.Status.RECORDED  # nothing is undone: the number stays
    page = bob_client.get(plain["Location"])
    assert "Correct hand 1" in page.content.decode()
    form = page.context["form"]
    assert form["trump"].value() == "S" and form["up_card"].value() == "QS"
    assert [form[f"play_{i}"].value() for i in range(4)] == ["play", "pass", "play", "play"]
    assert [form[f"tricks_{i}"].value() for i in range(4)] == [3, 0, 2, 0]
    assert form["renege_2"].value() == "corrected"


def test_undo_and_edit_forbidden(carol_client, mallory_client, table):
    hand = record_direct(table, **WIN_ANN)
    for name in ("hand_void", "hand_edit"):
        url = reverse(name, args=[hand.pk])
        assert carol_client.post(url).status_code == 403
        assert mallory_client.post(url).status_code == 404
        assert carol_client.get(url).status_code in (403, 405)
    hand.refresh_from_db()
    assert hand.status == Hand.Status.RECORDED


def test_hand_detail_access(carol_client, mallory_client, table):
    hand = record_direct(table, **WIN_ANN)
    page = carol_client.get(reverse("hand_detail", args=[hand.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Pot won" in html and "Undo" not in html  # members read, no undo
    assert mallory_client.get(reverse("hand_detail", args=[hand.pk])).status_code == 404
    assert (
        mallory_client.get(reverse("hand_record", args=[table.pk]) + f"?from={hand.pk}").status_code
        == 404
    )


def test_edit_source_must_be_a_hand_of_this_session(bob_client, club, players, bob, table):
    other = start_table(club, players, bob)
    foreign = record_direct(other, **WIN_ANN)
    url = reverse("hand_record", args=[table.pk]) + f"?from={foreign.pk}"
    assert bob_client.get(url).status_code == 404


def test_older_hand_shows_its_own_next_dealer_not_todays_R8(carol_client, table):
    first = record_direct(table, **WIN_ANN)  # ann deals next (R8)
    record_direct(table, tricks={"ann": 3, "ben": 1, "cal": 1})  # then ben
    html = carol_client.get(reverse("hand_detail", args=[first.pk])).content.decode()
    assert "Deals next</dt><dd>ann</dd>" in html
    assert "Antes next" not in html


def test_three_bourres_ask_one_confirmation_showing_who_pays(bob_client, table):
    """No money surprises (issue 14): a hand that charges three bourrés is shown before
    it is saved; one more tap saves it."""
    data = hand_data(table, tricks={"ann": 5, "ben": 0, "cal": 0, "dee": 0})
    before = books()
    asked = bob_client.post(reverse("hand_record", args=[table.pk]), data, **HTMX)
    html = asked.content.decode()
    assert asked.status_code == 200 and books() == before
    assert "Check before saving" in html and "3 players are bourré" in html
    for name in ("ben", "cal", "dee"):
        assert f"<strong>{name}</strong> $4 (bourré)" in html
    assert 'name="confirmed" value="1"' in html
    # The form around the question still says whose deal it is (dee, R8), not "None".
    assert "<strong>dee</strong> deals" in html and "None" not in html
    saved = bob_client.post(
        reverse("hand_record", args=[table.pk]), {**data, "confirmed": "1"}, **HTMX
    )
    assert saved.status_code == 200 and "Hand 1 saved" in saved.content.decode()
    postings.check_invariants(table)


def test_a_big_penalty_asks_too_but_an_ordinary_hand_does_not(bob_client, table):
    record_direct(table, tricks={"ann": 2, "ben": 2, "cal": 1, "dee": 0})  # split: 4 carries
    for _ in range(3):
        record_direct(table, tricks={"ann": 2, "ben": 2, "cal": 1, "dee": 0})
    table.refresh_from_db()
    assert table.carry > 10  # a bourré now costs more than ten antes of 1
    data = hand_data(table, tricks={"ann": 3, "ben": 2, "cal": 0}, passed=["dee"])
    asked = bob_client.post(reverse("hand_record", args=[table.pk]), data, **HTMX)
    assert "a penalty above ten antes" in asked.content.decode()
    assert not Hand.objects.filter(session=table, number=5).exists()
    ordinary = hand_data(table, tricks={"ann": 3, "ben": 2}, passed=["cal", "dee"])
    saved = bob_client.post(reverse("hand_record", args=[table.pk]), ordinary, **HTMX)
    assert "Hand 5 saved" in saved.content.decode()


def test_result_says_a_corrected_renege_costs_the_next_deal_R39(bob_client, table):
    """FINDINGS: a corrected renege costs the player their next deal, and the result
    screen says so (the table would otherwise wonder why the deal skipped them)."""
    data = hand_data(table, tricks={"ann": 3, "ben": 2}, passed=["cal", "dee"])
    data["renege_who"], data["renege_kind"] = "ann", "corrected"
    response = bob_client.post(reverse("hand_record", args=[table.pk]), data, **HTMX)
    html = response.content.decode()
    assert "Hand 1 saved" in html
    assert "Loses the deal" in html
    assert "<strong>ann</strong> reneged and caught it in time, so the deal skips them once" in html
    # ann was next to deal (dee dealt): the deal skipped her at once, ben deals.
    hand = Hand.objects.get(session=table, number=1)
    assert hand.result["next_dealer"] == "ben" and hand.result["forfeits_next"] == []


# -- double_ante after a hand that excused someone -------------------------------------------


def test_R5_double_ante_switched_on_after_a_bourre_shows_nobody_excused(bob_client, table, bob):
    """RULES.md, ``double_ante``: nobody is ever excused. dee was bourréd (R36), so the
    session's state excuses dee; the table then turns on ``double_ante``. The verifier
    charges dee an ante at the next hand, so the result page's "Antes next", the
    scoreboard's badge and the record form's mark must not say dee is excused."""
    hand = record_direct(table, **WIN_ANN)
    assert postings.session_state(table)["excused"] == ["dee"]
    postings.change_rules(session_id=table.pk, rules={"double_ante": True}, user=bob)
    page = bob_client.get(reverse("hand_detail", args=[hand.pk]))
    assert page.context["antes_next"] == ["ann", "ben", "cal", "dee"]
    assert "dee excused" not in page.content.decode()
    board = bob_client.get(reverse("session_detail", args=[table.pk]))
    assert [r["excused"] for r in board.context["rows"]] == [False] * 4
    form = bob_client.get(reverse("hand_record", args=[table.pk]))
    assert [r["excused"] for r in form.context["rows"]] == [False] * 4
    assert "excused" not in form.content.decode().split('class="record-context"')[1][:400]
    # The next hand charges dee the ante the pages promised.
    nxt = record_direct(table, trump="H", passed=["ben", "cal"], tricks={"ann": 5})
    assert nxt.result["antes"]["dee"] == 2  # one ante, plus the second for playing
    postings.check_invariants(table)


def test_the_hand_page_names_its_hand_once(bob_client, table, bob):
    """FINDINGS: the hand page said "Hand 3" twice (its heading and the result card's
    kicker). The heading names it; the record screen, which has no heading of its own,
    still says "Hand 3 saved"."""
    for _ in range(3):
        hand = record_direct(table, **WIN_ANN)

    def shown(html):  # the page above its postings' details (whose memos name the hand)
        return html.split("<body", 1)[1].split('<details class="details-toggle">')[0]

    html = bob_client.get(reverse("hand_detail", args=[hand.pk])).content.decode()
    assert hand.number == 3 and shown(html).count("Hand 3") == 1
    postings.void_hand(session_id=table.pk, hand_id=hand.pk, user=bob)
    html = bob_client.get(reverse("hand_detail", args=[hand.pk])).content.decode()
    assert shown(html).count("Hand 3") == 1 and "undone" in shown(html)
    table.refresh_from_db()
    saved = record(bob_client, table, htmx=True, tricks={"ann": 1, "ben": 3, "cal": 1})
    assert saved.status_code == 200
    number = Hand.objects.filter(session=table).latest("pk").number
    assert saved.content.decode().count(f"Hand {number} saved") == 1
    postings.check_invariants(table)
