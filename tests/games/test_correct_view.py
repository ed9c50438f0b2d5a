"""Correcting an earlier hand from the phone: form → confirmation (each player's change
of net) → save; a later hand the new chain breaks is named and fixed in the same flow;
hand numbers shown match the hands saved; strangers and members are kept out."""

import json
import random

import pytest
from django.urls import reverse

from games.models import GameSession, Hand
from games.sessions import statements
from ledger import postings
from ledger.models import Posting
from ledger.postings.corrections import table_part
from tests.ledger.conftest import playout

from .test_session_views import WIN_ANN, record_direct, start_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(club, players, bob):
    return start_table(club, players, bob)


def form_data(hand, *, trump="H", tricks=None, passed=(), reneges=None, **extra):
    version = GameSession.objects.get(pk=hand.session_id).version
    data = {"idempotency_key": "correction", "version": version, "trump": trump}
    for i, name in enumerate(hand.record["players"]):
        data[f"player_{i}"] = name
        data[f"play_{i}"] = "pass" if name in passed else "play"
        data[f"tricks_{i}"] = (tricks or {}).get(name, 0)
        data[f"renege_{i}"] = (reneges or {}).get(name, "")
    data.update(extra)
    return data


def test_correct_hand_1_of_3_confirm_then_save(bob_client, table):
    first = record_direct(table, **WIN_ANN)  # dee bourré
    record_direct(table, tricks={"ann": 1, "ben": 4, "cal": 0, "dee": 0})
    record_direct(table, tricks={"ann": 5, "ben": 0, "cal": 0, "dee": 0})
    url = reverse("hand_correct", args=[first.pk])
    page = bob_client.get(url)
    assert page.status_code == 200 and "Correct hand 1" in page.content.decode()

    count = Posting.objects.count()
    data = form_data(first, tricks={"ann": 3, "ben": 1, "cal": 1}, passed=["dee"])
    confirm = bob_client.post(url, data)
    assert confirm.status_code == 200 and Posting.objects.count() == count  # nothing saved
    html = confirm.content.decode()
    correction = confirm.context["correction"]
    assert not correction.applied and correction.changes["dee"] > 0
    assert "What changes for each player" in html and "Hand 1</strong> (corrected)" in html
    assert "Save the correction" in html

    saved = bob_client.post(
        url,
        {
            "step": "confirm",
            "version": correction.version,
            "pending": confirm.context["pending"],
            "reason": "dee passed",
        },
    )
    assert saved.status_code == 302 and saved["Location"] == reverse("hand_detail", args=[first.pk])
    postings.check_invariants(table)
    first.refresh_from_db()
    assert first.number == 1 and first.record["passed"] == ["dee"]
    assert first.corrections[0]["reason"] == "dee passed"
    detail = bob_client.get(saved["Location"]).content.decode()
    assert "Hand 1 corrected" in detail and "corrected</span>" in detail
    assert "dee passed" in detail and "Details: postings" in detail
    # Numbers stay: three live hands numbered 1..3, and the record page says hand 4.
    assert list(table.hands.values_list("number", flat=True)) == [1, 2, 3]
    record_page = bob_client.get(reverse("hand_record", args=[table.pk])).content.decode()
    assert "Record hand 4" in record_page


def test_stale_confirmation_changes_nothing(bob_client, table):
    first = record_direct(table, **WIN_ANN)
    url = reverse("hand_correct", args=[first.pk])
    confirm = bob_client.post(url, form_data(first, tricks={"ann": 5}))
    record_direct(table, **WIN_ANN)  # the table moved on
    count = Posting.objects.count()
    saved = bob_client.post(
        url,
        {"step": "confirm", "version": confirm.context["correction"].version,
         "pending": confirm.context["pending"]},
    )  # fmt: skip
    assert saved.status_code == 302 and saved["Location"] == url
    assert Posting.objects.count() == count
    postings.check_invariants(table)


def test_a_broken_later_hand_is_named_and_fixed_in_the_flow(bob_client, table):
    first = record_direct(table, **WIN_ANN)
    # Hand 2 as a card log: its first lead depends on who deals (ann, now).
    state = postings.session_state(table)
    assert state["dealer"] == "ann"
    record_direct(table, **table_part(playout(state, random.Random(3), 0.0)))
    # A corrected renege in hand 1 costs ann her deal (R39): ben deals hand 2 instead,
    # and its card log's first lead is out of turn.
    url = reverse("hand_correct", args=[first.pk])
    data = form_data(first, tricks={"ann": 3, "ben": 1, "cal": 1}, reneges={"ann": "corrected"})
    broken = bob_client.post(url, data)
    assert broken.status_code == 409
    html = broken.content.decode()
    assert "Fix hand 2" in html and "hand 2 no longer adds up" in html
    assert broken.context["target"].number == 2
    pending = json.loads(broken.context["pending"])
    assert pending["entry"]["reneges"] == [{"player": "ann", "corrected": True}]
    # The host fixes hand 2 as a summary: tricks instead of the card log.
    hand2 = Hand.objects.get(session=table, number=2)
    tricks = hand2.verdict["tricks"]
    fix = form_data(hand2, trump="S", tricks=tricks, pending=broken.context["pending"], target=2)
    confirm = bob_client.post(url, fix)
    assert confirm.status_code == 200, confirm.content.decode()[:2000]
    assert [c.number for c in confirm.context["correction"].hands] == [1, 2]
    saved = bob_client.post(
        url,
        {"step": "confirm", "version": confirm.context["correction"].version,
         "pending": confirm.context["pending"]},
    )  # fmt: skip
    assert saved.status_code == 302
    postings.check_invariants(table)
    hand2.refresh_from_db()
    assert hand2.corrected and hand2.number == 2


def test_correction_forbidden(carol_client, mallory_client, table):
    hand = record_direct(table, **WIN_ANN)
    url = reverse("hand_correct", args=[hand.pk])
    assert carol_client.get(url).status_code == 403
    assert mallory_client.get(url).status_code == 404
    assert carol_client.post(url, form_data(hand, tricks={"ann": 5})).status_code == 403


def test_a_corrected_hand_and_the_later_ones_show_the_money_of_the_books_now(
    carol_client, table, club, players, bob
):
    """Each hand's page after a correction: the hand's new result only (not the old one
    beside it) and the nets after each hand as the books now stand. The oracle is a twin
    table that recorded the corrected evening from the start."""
    evening = [
        dict(WIN_ANN),  # dee bourré; corrected below to dee passing
        {"tricks": {"ann": 1, "ben": 4, "cal": 0, "dee": 0}},
        {"tricks": {"ann": 5, "ben": 0, "cal": 0, "dee": 0}},
    ]
    corrected = {"trump": "H", "tricks": {"ann": 3, "ben": 1, "cal": 1}, "passed": ["dee"]}
    hands = [record_direct(table, bob, **entry) for entry in evening]
    postings.correct_hand(session_id=table.pk, number=1, entry=corrected, user=bob)
    postings.check_invariants(table)
    twin = start_table(club, players, bob)
    twins = [record_direct(twin, bob, **entry) for entry in [corrected, *evening[1:]]]
    postings.check_invariants(twin)

    def page(hand):
        response = carol_client.get(reverse("hand_detail", args=[hand.pk]))
        assert response.status_code == 200
        return [
            (r["name"], sorted(r["parts"]), r["delta"], r["net"])
            for r in response.context["deltas"]
        ]

    for hand, same in zip(hands, twins, strict=True):
        assert page(hand) == page(same), f"hand {hand.number}"
    # dee passed: her only money in hand 1 is her ante, no bourré beside it.
    first = Hand.objects.get(pk=hands[0].pk)
    dee = next(r for r in statements.hand_deltas(table, first, latest=False) if r["name"] == "dee")
    assert [words for words, _ in dee["parts"]] == ["ante"]


def test_a_statement_says_a_correction_took_the_old_result_back(table, players, bob):
    record_direct(table, bob, **WIN_ANN)  # dee bourré
    record_direct(table, bob, tricks={"ann": 1, "ben": 4, "cal": 0, "dee": 0})
    postings.correct_hand(
        session_id=table.pk,
        number=1,
        entry={"trump": "H", "tricks": {"ann": 3, "ben": 1, "cal": 1}, "passed": ["dee"]},
        user=bob,
    )
    table.refresh_from_db()
    dee = players[3]
    lines = statements.statement(table, dee.pk, "dee")
    labels = [line.label for line in lines]
    assert "Hand 1 corrected: the old result taken back" in labels
    assert "Hand 1 corrected: the new result" in labels
    assert not any("undone" in label for label in labels)
    taken_back = lines[labels.index("Hand 1 corrected: the old result taken back")]
    assert ("bourré, given back", taken_back.delta - 1) in taken_back.parts  # ante +1 back
    assert lines[-1].net == table.net_by_player()[dee.pk]
    postings.check_invariants(table)


def test_a_correction_that_leaves_a_player_out_of_the_money_is_not_called_an_undo(
    club, players, bob
):
    """The dealer antes for all (house rule ``dealer_antes_for_all``): ben's only money in
    hand 1 was his bourré, and the correction says he passed, so the new result posts
    nothing of his. His statement still calls the reversal a correction's: hand 1
    stands (it read "Hand 1 undone")."""
    table = postings.start_session(
        club=club, name="Dealer antes", players=players, dealer=players[3],
        rules={"dealer_antes_for_all": True}, currency=club.currency, user=bob,
    )  # fmt: skip
    record_direct(table, bob, tricks={"ann": 3, "ben": 0, "cal": 2})  # ben bourré
    postings.correct_hand(
        session_id=table.pk,
        number=1,
        entry={"trump": "H", "tricks": {"ann": 3, "cal": 2}, "passed": ["ben", "dee"]},
        user=bob,
    )
    table.refresh_from_db()
    ben = players[1]
    lines = statements.statement(table, ben.pk, "ben")
    labels = [line.label for line in lines]
    assert labels == ["Hand 1", "Hand 1 corrected: the old result taken back"]
    assert lines[-1].net == table.net_by_player().get(ben.pk, 0) == 0
    # An undo is still an undo.
    hand = Hand.objects.get(session=table, number=1)
    postings.void_hand(session_id=table.pk, hand_id=hand.pk, user=bob)
    labels = [line.label for line in statements.statement(table, players[0].pk, "ann")]
    assert labels[-1] == "Hand 1 undone"
    postings.check_invariants(table)


def test_the_confirmation_lists_only_hands_that_change_then_counts_the_rest(bob_client, table):
    """FINDINGS: the confirmation listed every later hand ("was ann wins $1.50 — now ann
    wins $1.50" twenty-two times). A renege caught in time added to hand 1 (R39: cal
    forfeits a deal, pays nothing) changes no money: hands 2-4 are re-settled only in
    their stored state (cal's forfeit; hand 4 dealt by dee instead of cal, R8), so they
    are counted, not listed; hand 1, which the host changed, is listed."""
    first = record_direct(table, **WIN_ANN)
    record_direct(table, tricks={"ann": 1, "ben": 3, "cal": 1, "dee": 0})
    record_direct(table, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    record_direct(table, tricks={"ann": 1, "ben": 1, "cal": 3, "dee": 0})
    url = reverse("hand_correct", args=[first.pk])
    data = form_data(first, tricks=WIN_ANN["tricks"], reneges={"cal": "corrected"})
    confirm = bob_client.post(url, data)
    assert confirm.status_code == 200
    html = confirm.content.decode()
    # The ledger re-settles hands 2-4 (their records changed) ...
    assert [c.number for c in confirm.context["correction"].hands] == [1, 2, 3, 4]
    assert not any(c.money_changed for c in confirm.context["correction"].hands)
    # ... but the page lists hand 1 only, then says how many later hands stay as they were.
    assert [c.number for c in confirm.context["hands_shown"]] == [1]
    assert "Hand 1</strong> (corrected)" in html and "Hand 2</strong>" not in html
    assert "3 later hands unchanged" in html
    assert html.index("3 later hands unchanged") < html.index("Save the correction")
    postings.check_invariants(table)


def test_a_later_hand_whose_money_changes_is_listed(bob_client, table):
    """A later hand whose result changes is listed with was/now; the ones after it that
    do not change are counted."""
    first = record_direct(table, **WIN_ANN)  # dee bourré: dee pays 4 into hand 2's pot
    record_direct(table, tricks={"ann": 1, "ben": 3, "cal": 1, "dee": 0})
    record_direct(table, tricks={"ann": 3, "ben": 1, "cal": 1, "dee": 0})
    url = reverse("hand_correct", args=[first.pk])
    confirm = bob_client.post(url, form_data(first, tricks=WIN_ANN["tricks"], passed=["dee"]))
    shown = [c.number for c in confirm.context["hands_shown"]]
    assert shown[:2] == [1, 2]  # dee passed: hand 2's pot is smaller, ben wins less
    unchanged = confirm.context["later_unchanged"]
    assert unchanged == 2 - (len(shown) - 1)
    postings.check_invariants(table)
