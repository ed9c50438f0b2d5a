"""The final-table deal form (games.tournaments.deals, forms.DealForm, the dashboard's
deal card): custom amounts typed in dollars that do not add up are refused in dollars,
formatted like every amount (games.money.format_money), and the form comes back with
what was typed; the service's own refusal says it in the tournament's money too."""

import re

import pytest
from django.urls import reverse
from django.utils import translation

from games.engine.tournament import TournamentError
from games.messages import render as say
from games.models import Tournament
from games.money import CURRENCIES, format_money
from games.tournaments import deals
from games.tournaments import service as svc
from tests.games.test_tournament_service import check_books, make_tournament

pytestmark = pytest.mark.django_db

USD = CURRENCIES["USD"]


@pytest.fixture
def final_table(club, alice):
    """Four players at the one (final) table of a $1.25 freeze-out: $5 to share."""
    club.currency = USD
    club.save()
    t = make_tournament(club, alice, n=4, format="freezeout", buy_in=125, starting_chips=30)
    assert t.currency == USD
    svc.start(tournament_id=t.pk, user=alice)
    t.refresh_from_db()
    assert deals.deal_terms(t)["total"] == 500
    return t


def custom_post(t: Tournament, shares: list[str]) -> dict[str, str]:
    players = list(deals.deal_terms(t)["chips"])
    data = {"kind": "custom"}
    for p, share in zip(players, shares, strict=True):
        data[f"agree_{p}"] = "on"
        data[f"amount_{p}"] = share
    return data


def test_custom_amounts_that_do_not_add_up_are_refused_in_dollars_with_the_input_kept(
    bob_client, final_table
):
    t = final_table
    data = custom_post(t, ["2", "1.50", "0.75", "0.25"])  # $4.50 of $5
    response = bob_client.post(reverse("tournament_deal", args=[t.pk]), data)
    assert response.status_code == 422
    html = response.content.decode()
    assert "The amounts add up to $4.50, not the $5 left to win." in html
    # No minor units anywhere a person reads (hashes, seeds and ids may hold any digits).
    words = re.sub(r"[0-9a-f]{16,}|\d{4,}", "", html)
    assert "450" not in words and "500" not in words
    # What was typed is still there, the kind still custom, everyone still agreeing.
    form = response.context["deal_form"]
    for name, value in data.items():
        assert form[name].value() in (value, True), name
        if name.startswith("amount_"):
            assert f'value="{value}"' in html
    assert re.search(r'<details class="card deal-form" open>', html)
    assert re.search(r'value="custom"[^>]*checked', html)
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING and not t.deal


def test_the_refusal_is_in_the_readers_language_and_money(bob_client, final_table):
    t = final_table
    data = custom_post(t, ["2", "1,50", "0,75", "0,25"])
    response = bob_client.post(
        reverse("tournament_deal", args=[t.pk]), data, HTTP_ACCEPT_LANGUAGE="fi"
    )
    assert response.status_code == 422
    with translation.override("fi"):
        typed, total = format_money(450, USD), format_money(500, USD)
    html = response.content.decode()
    # The refusal's own line (the page's ids and tokens may hold any digits).
    said = next(line for line in html.splitlines() if typed in line)
    assert total in said and "450" not in said.replace(typed, "")


def test_the_services_refusal_names_dollars_too(final_table, alice):
    t = final_table
    still = list(deals.deal_terms(t)["chips"])
    shares = dict(zip(still, [200, 150, 75, 25], strict=True))
    with pytest.raises(TournamentError) as refused:
        deals.make_deal(tournament_id=t.pk, kind="custom", agreed=still, amounts=shares, user=alice)
    assert str(refused.value) == "The amounts add up to $4.50, not the $5 left to win."
    assert refused.value.code == "deal_total"
    # A Spanish reader's request: the amounts in their language's money.
    with translation.override("es"), pytest.raises(TournamentError) as refused:
        deals.make_deal(tournament_id=t.pk, kind="custom", agreed=still, amounts=shares, user=alice)
    with translation.override("es"):
        spanish = say(refused.value)
    assert format_money(450, USD, language="es") in spanish
    assert format_money(500, USD, language="es") in spanish
    assert "450" not in spanish


def test_custom_amounts_that_add_up_make_the_deal(bob_client, final_table):
    t = final_table
    data = custom_post(t, ["2", "1.50", "1.25", "0.25"])
    response = bob_client.post(reverse("tournament_deal", args=[t.pk]), data)
    assert response.status_code == 302
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    assert sorted(t.deal["amounts"].values()) == [25, 125, 150, 200]
    check_books(t)


@pytest.mark.parametrize(
    "language, said", [("en", "agrees (12,000 chips)"), ("fi", "(12\u00a0000 pelimerkkiä)")]
)
def test_who_agrees_is_shown_with_a_grouped_stack(club, alice, bob_client, language, said):
    t = make_tournament(club, alice, n=3, format="freezeout", buy_in=100, starting_chips=12000)
    svc.start(tournament_id=t.pk, user=alice)
    html = bob_client.get(
        reverse("tournament_detail", args=[t.pk]), HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    assert html.count(said) == 3


def test_while_the_final_tables_pot_holds_chips_the_dashboard_says_why_there_is_no_deal(
    bob_client, final_table, alice
):
    """A bourré leaves chips in the pot: no deal form, and the dashboard says what it
    waits for (it just left the form out); a deal posted anyway is refused in words."""
    from tests.games.test_tournament_service import names, record, table

    x = table(final_table, 1)
    a, b, c, d = list(names(x.session))
    record(x.session, {"trump": "S", "passed": [c], "tricks": {a: 3, b: 2, d: 0}}, user=alice)
    x.session.refresh_from_db()
    assert x.session.carry > 0
    url = reverse("tournament_detail", args=[final_table.pk])
    response = bob_client.get(url)
    assert response.context["deal_form"] is None
    html = response.content.decode()
    assert "play the hand that wins it, then make the deal" in html
    refused = bob_client.post(reverse("tournament_deal", args=[final_table.pk]), follow=True)
    assert "play the hand that wins it, then make the deal" in refused.content.decode()
    check_books(final_table)
