"""Ledger endpoints: postings with legs, balances, settlement (JSON and CSV), statistics."""

import csv
import io
from datetime import datetime

import pytest

from ledger import postings
from ledger.models import Posting

from .conftest import FIRST_HAND, SECOND_HAND, record


def postings_url(club, **params):
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"/api/v1/clubs/{club.pk}/postings/" + (f"?{query}" if query else "")


def postings_csv_url(club, **params):
    return postings_url(club, **params).replace("/postings/", "/postings/csv/")


def test_postings_come_with_legs_that_sum_to_zero(api_carol, club, played):
    page = api_carol.get(postings_url(club, session=played.pk)).json()
    kinds = [p["kind"] for p in page["results"]]
    assert kinds == ["ante", "payout", "penalty", "ante", "payout"]
    for posting in page["results"]:
        assert sum(leg["amount"] for leg in posting["legs"]) == 0
        assert posting["session"] == played.pk
    first_ante = page["results"][0]
    assert first_ante["hand_number"] == 1
    assert first_ante["created_by"] == "bob"
    by_name = {leg["player"]["name"] if leg["player"] else leg["kind"]: leg["amount"]
               for leg in first_ante["legs"]}  # fmt: skip
    assert by_name == {"ann": -1, "ben": -1, "cal": -1, "dee": -1, "pot": 4}


def test_postings_filter_by_player_and_kind(api_carol, club, players, played):
    dee = players[3]
    page = api_carol.get(postings_url(club, player=dee.pk)).json()
    assert [p["kind"] for p in page["results"]] == ["ante", "penalty", "payout"]
    payouts = api_carol.get(postings_url(club, kind="payout")).json()
    assert [p["hand_number"] for p in payouts["results"]] == [1, 2]


def test_posting_filters_from_another_club_are_404(api_carol, club, other_club_game):
    assert api_carol.get(postings_url(club, session=other_club_game.pk)).status_code == 404
    foreign = other_club_game.seats.first().player_id
    assert api_carol.get(postings_url(club, player=foreign)).status_code == 404


@pytest.mark.parametrize(
    "params", [{"session": "x"}, {"player": "-1"}, {"kind": "bribe"}, {"session": "9" * 30}]
)
def test_bad_posting_filters_are_400(api_carol, club, params):
    response = api_carol.get(postings_url(club, **params))
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] in params


def test_postings_cursor_pages_walk_the_whole_ledger(api_carol, club, played):
    seen, url = [], postings_url(club, page_size=2)
    while url:
        page = api_carol.get(url).json()
        seen += [p["id"] for p in page["results"]]
        url = page["next"] and postings_url(club, page_size=2, cursor=page["next"])
    assert seen == list(
        Posting.objects.filter(club=club).order_by("id").values_list("id", flat=True)
    )


def test_postings_page_costs_the_same_queries_at_any_page_size(
    api_carol, club, game, bob, django_assert_num_queries
):
    for i in range(6):  # 6 hands, 15+ postings, each with 2-5 legs
        record(game, FIRST_HAND if i % 2 == 0 else SECOND_HAND, bob)
    api_carol.get(postings_url(club))  # the token's first use also stamps last_used_at
    # token, membership, the session filter's club check, the postings, all their legs
    for size in (2, 15):
        with django_assert_num_queries(5):
            response = api_carol.get(postings_url(club, session=game.pk, page_size=size))
        assert len(response.json()["results"]) == size


def test_session_balances_sum_to_zero_with_pot_and_kitty(api_carol, played):
    body = api_carol.get(f"/api/v1/sessions/{played.pk}/balances/").json()
    nets = {b["player"]["name"]: b["net"] for b in body["players"]}
    assert nets == {"ann": 2, "ben": -2, "cal": -2, "dee": 2}
    assert body["pot"] == 0 and body["kitty"] == 0
    assert sum(nets.values()) + body["pot"] + body["kitty"] == 0


def test_club_balances(api_carol, club, played, bob):
    record(played, {"trump": "C", "tricks": {"ann": 3, "ben": 2, "cal": 0, "dee": 0}}, bob)
    body = api_carol.get(f"/api/v1/clubs/{club.pk}/balances/").json()
    total = sum(p["balance"] for p in body["players"]) + body["pots"] + body["carry"] + body["bank"]
    assert total == 0
    assert body["pots"] == played.carry > 0


def test_settlement_lists_the_fewest_transfers_with_explanations(api_carol, played):
    body = api_carol.get(f"/api/v1/sessions/{played.pk}/settlement/").json()
    transfers = [(t["payer"]["name"], t["payee"]["name"], t["amount"]) for t in body["transfers"]]
    # ann +2, dee +2, ben −2, cal −2: two transfers settle it.
    assert sorted(transfers) == [("ben", "ann", 2), ("cal", "dee", 2)] or sorted(transfers) == [
        ("ben", "dee", 2),
        ("cal", "ann", 2),
    ]
    assert all("$2" in t["explanation"] for t in body["transfers"])
    assert all(t["paid"] is False for t in body["transfers"])


def test_settlement_of_an_open_pot_names_the_pot(api_carol, game, bob):
    record(game, FIRST_HAND, bob)  # 4 chips stay in the pot
    body = api_carol.get(f"/api/v1/sessions/{game.pk}/settlement/").json()
    parties = {t["payee"]["kind"] for t in body["transfers"]} | {
        t["payer"]["kind"] for t in body["transfers"]
    }
    assert "kitty" in parties
    received = sum(t["amount"] for t in body["transfers"] if t["payee"]["kind"] == "kitty")
    assert received == 4


def test_settlement_shows_paid_marks(api_carol, played, bob):
    body = api_carol.get(f"/api/v1/sessions/{played.pk}/settlement/").json()
    t = body["transfers"][0]
    postings.mark_transfer_paid(
        session_id=played.pk,
        payer_id=t["payer"]["id"],
        payee_id=t["payee"]["id"],
        amount=t["amount"],
        paid=True,
        user=bob,
    )
    again = api_carol.get(f"/api/v1/sessions/{played.pk}/settlement/").json()
    assert [x["paid"] for x in again["transfers"]] == [True, False]


def test_settlement_as_csv(api_carol, played):
    response = api_carol.get(f"/api/v1/sessions/{played.pk}/settlement/csv/")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 2
    assert {r["payer"] for r in rows} == {"ben", "cal"}
    assert all(r["currency"] == "USD" and r["amount_minor"] == "2" for r in rows)


def test_csv_cells_cannot_become_formulas(api_carol, club, players, alice, bob):
    players[0].name = "=cmd()"
    players[0].save()
    session = postings.start_session(
        club=club, name="x", players=players[:2], dealer=players[1], rules={}, currency=club.currency,
        user=alice,
    )  # fmt: skip
    record(session, {"trump": "H", "tricks": {"=cmd()": 3, "ben": 2}}, bob)
    body = api_carol.get(f"/api/v1/sessions/{session.pk}/settlement/csv/").content
    assert b"'=cmd()" in body


def test_errors_are_json_even_when_csv_was_asked_for(api_mallory, played):
    response = api_mallory.get(f"/api/v1/sessions/{played.pk}/settlement/csv/")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"


def test_an_unknown_format_is_400_problem(api_carol, played):
    # Not 404: that would read as "no such session" (issue 16); 400 (issue 36).
    response = api_carol.get(f"/api/v1/sessions/{played.pk}/settlement/?format=xlsx")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"


def test_json_operations_do_not_answer_csv(api_carol, played):
    # One content type per operation (issue 36): CSV is asked of the CSV operation.
    response = api_carol.get(
        f"/api/v1/sessions/{played.pk}/settlement/", headers={"Accept": "text/csv"}
    )
    assert response.status_code == 406


def test_an_unacceptable_accept_header_is_406(api_carol, played):
    response = api_carol.get(
        f"/api/v1/sessions/{played.pk}/settlement/", headers={"Accept": "image/png"}
    )
    assert response.status_code == 406
    assert response.json()["status"] == 406


def test_club_player_statistics(api_carol, club, played):
    body = api_carol.get(f"/api/v1/clubs/{club.pk}/stats/").json()
    by_name = {row["player"]["name"]: row for row in body["results"]}
    nets = [row["net"] for row in body["results"]]
    assert nets == sorted(nets, reverse=True)  # best net first
    assert by_name["dee"]["bourres"] == 1
    assert by_name["dee"]["pots_won"] == 1
    assert by_name["ben"]["hands_passed"] == 1
    assert by_name["ann"]["net"] == 2
    assert by_name["ann"]["sessions"] == 1


def test_export_rows_match_the_documented_output_serializer(club, played, bob):
    # The export builds rows from .values() for speed; the serializer is the contract.
    from django.db.models import F

    from games.api.ledger import PostingOutputSerializer, posting_rows

    postings.void_hand(session_id=played.pk, hand_id=played.hands.last().pk, user=bob)
    qs = Posting.objects.filter(club=club).order_by("id")
    annotated = qs.annotate(
        hand_number=F("hand__number"), created_by_name=F("created_by__username")
    )
    expected = PostingOutputSerializer(annotated, many=True).data
    rows = posting_rows(
        list(
            qs.values(
                "id", "kind", "memo", "session_id", "hand_id", "reverses_id", "created_at",
                hand_number=F("hand__number"), created_by_name=F("created_by__username"),
            )
        )
    )  # fmt: skip
    assert [dict(r) for r in expected] == rows
    assert any(r["reverses"] for r in rows)  # the void's reversals are in the comparison


# -- the streamed CSV export (issue #20) ----------------------------------------------------------


def _csv_rows(response) -> list[dict]:
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    return list(csv.DictReader(io.StringIO(response.getvalue().decode())))


def test_postings_csv_is_the_json_ledger_leg_for_leg(api_carol, club, played, bob):
    """postings/csv/ streams the whole filtered ledger: the same postings and legs as the
    JSON pages, one row per leg, whatever the page size."""
    hand = played.hands.order_by("-number").first()
    postings.void_hand(session_id=played.pk, hand_id=hand.pk, user=bob)
    postings.check_invariants(played)
    expected = []
    url = postings_url(club, session=played.pk, page_size=2)
    while url:
        page = api_carol.get(url).json()
        for p in page["results"]:
            for leg in p["legs"]:
                name = leg["player"]["name"] if leg["player"] else ""
                expected.append(
                    [p["id"], p["kind"], p["session"], p["hand_number"], p["memo"],
                     p["reverses"], leg["kind"], name, leg["amount"]]
                )  # fmt: skip
        url = page["next"] and postings_url(
            club, session=played.pk, page_size=2, cursor=page["next"]
        )
    rows = _csv_rows(api_carol.get(postings_csv_url(club, session=played.pk)))
    got = [
        [int(r["posting"]), r["kind"], int(r["session"]), int(r["hand"]) if r["hand"] else None,
         r["memo"], int(r["reverses"]) if r["reverses"] else None, r["account"], r["player"],
         int(r["amount_minor"])]
        for r in rows
    ]  # fmt: skip
    assert got == expected
    assert any(r["kind"] == "reversal" and r["reverses"] for r in rows)
    assert {r["currency"] for r in rows} == {played.currency.code}
    # ISO 8601 with an offset (the club's zone), as ledger.csv writes them.
    assert all(datetime.fromisoformat(r["created_at"]).utcoffset() is not None for r in rows)


def test_postings_csv_keeps_the_filters_and_access(api_carol, api_mallory, club, players, played):
    dee = players[3]
    rows = _csv_rows(api_carol.get(postings_csv_url(club, player=dee.pk)))
    json_ids = [p["id"] for p in api_carol.get(postings_url(club, player=dee.pk)).json()["results"]]
    assert sorted({int(r["posting"]) for r in rows}) == json_ids
    assert api_mallory.get(postings_csv_url(club)).status_code == 404
    bad = api_carol.get(postings_csv_url(club, kind="bribe"))
    assert bad.status_code == 400 and bad["Content-Type"].startswith("application/problem+json")
