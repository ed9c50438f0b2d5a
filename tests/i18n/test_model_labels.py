"""The models' words in the reader's language (issue 19): a choice's label (a posting's
kind, a session's or tournament's status, a seat move's reason...) is translated where a
page shows it, while the CSVs, the API and the stored memos keep their codes and English.

Each expected label is read from the catalogue (``override``) and must differ from the
English one, so a label left unmarked, or a catalogue without it, fails."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy, override

from games.models import Club, Entry, GameSession, Tournament
from games.tournaments import service as svc
from ledger.models import Posting
from tests.api.conftest import token_client
from tests.factories import UserFactory, seeded
from tests.games.test_session_views import WIN_ANN, record_direct, start_table
from tests.games.test_tournament_service import make_tournament

pytestmark = pytest.mark.django_db

LANGUAGES = ["fi", "ko"]


def _in(lang: str, label) -> str:
    """``label`` as a reader of ``lang`` sees it, checked to be translated."""
    with override(lang):
        said = str(label)
    with override("en"):
        english = str(label)
    assert said != english, f"{english!r} has no {lang} translation"
    return said


def _page(client, url: str, lang: str) -> str:
    response = client.get(url, headers={"accept-language": lang})
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def hand(club, players, bob):
    table = start_table(club, players, bob)
    return record_direct(table, bob, **WIN_ANN)  # ann wins, dee is bourréd


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_hand_page_names_each_posting_in_the_readers_language(hand, bob_client, lang):
    kinds = [Posting.Kind(k) for k in hand.postings.values_list("kind", flat=True)]
    # antes, the pot won and dee's bourré: three kinds, each shown translated
    assert set(kinds) == {Posting.Kind.ANTE, Posting.Kind.PAYOUT, Posting.Kind.PENALTY}
    page = _page(bob_client, reverse("hand_detail", args=[hand.pk]), lang)
    for kind in kinds:
        assert _in(lang, kind.label) in page
    assert "Pot won" not in page and "Bourré and renege penalties" not in page


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_tournament_pages_show_its_status_in_the_readers_language(
    club, alice, alice_client, lang
):
    cup = make_tournament(club, alice, n=4, starting_chips=10, antes=[1])
    listing = _page(alice_client, reverse("tournament_list", args=[club.pk]), lang)
    assert _in(lang, Tournament.Status.REGISTRATION.label) in listing
    detail = _page(alice_client, reverse("tournament_detail", args=[cup.pk]), lang)
    assert _in(lang, Tournament.Status.REGISTRATION.label) in detail
    # The entrants' status (all checked in), and the model's choices on the settings form.
    assert _in(lang, Entry.Status.CHECKED_IN.label) in detail
    form = _page(alice_client, reverse("tournament_edit", args=[cup.pk]), lang)
    assert _in(lang, Tournament.Format.ROUNDS.label) in form
    for tiebreak in Tournament.Tiebreak:
        assert _in(lang, tiebreak.label) in form

    svc.start(tournament_id=seeded(cup.pk, "labels"), user=alice)
    detail = _page(alice_client, reverse("tournament_detail", args=[cup.pk]), lang)
    assert _in(lang, Tournament.Status.RUNNING.label) in detail
    bracket = _page(alice_client, reverse("tournament_bracket", args=[cup.pk]), lang)
    assert _in(lang, Tournament.Status.RUNNING.label) in bracket
    assert _in(lang, Tournament.Format.ROUNDS.label) in bracket


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_sessions_status_and_leftover_choices_are_in_the_readers_language(
    club, players, bob, bob_client, client, lang
):
    start_table(club, players, bob)
    # The admin's list of sessions shows each one's status.
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    admin = _page(client, reverse("admin:games_gamesession_changelist"), lang)
    assert f'<td class="field-status">{_in(lang, GameSession.Status.OPEN.label)}</td>' in admin
    # A new session asks what becomes of a pot left at the close, in the reader's words.
    new = _page(bob_client, reverse("session_new", args=[club.pk]), lang)
    for policy in GameSession.LeftoverPolicy:
        assert _in(lang, policy.label) in new


def test_the_csvs_and_the_api_keep_the_codes_whatever_the_language(hand, alice, bob_client):
    codes = set(hand.postings.values_list("kind", flat=True))
    response = bob_client.get(
        reverse("ledger_csv", args=[hand.session_id]), headers={"accept-language": "fi"}
    )
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert {row["kind"] for row in rows} == codes

    api = token_client(alice)
    listed = api.get(
        reverse("api_posting_list", args=[hand.session.club_id]),
        headers={"accept-language": "ko"},
    )
    assert listed.status_code == 200
    assert {p["kind"] for p in listed.json()["results"]} == codes


def test_an_undo_writes_its_memo_in_english_whoever_asks(hand, bob_client):
    ante = hand.postings.get(kind=Posting.Kind.ANTE)
    response = bob_client.post(
        reverse("hand_void", args=[hand.pk]), headers={"accept-language": "fi"}
    )
    assert response.status_code == 302
    memo = Posting.objects.get(reverses=ante).memo
    # Stored text, the same for every reader: the kind's English name, not the Finnish.
    assert memo.endswith("reverses antes"), memo
    assert _in("fi", Posting.Kind.ANTE.label).lower() not in memo


@pytest.mark.parametrize("lang", LANGUAGES)
def test_forms_built_from_the_models_label_their_fields_in_the_readers_language(
    club, players, alice_client, lang
):
    # The club's and a player's "Name" come from the models' verbose names (migration 0018);
    # the money picker's chips from games.models.currency.
    name = _in(lang, capfirst(Club._meta.get_field("name").verbose_name))
    club_form = _page(alice_client, reverse("club_edit", args=[club.pk]), lang)
    assert f">{name}</label>" in club_form
    assert _in(lang, gettext_lazy("Chips (no money)")) in club_form
    player_form = _page(alice_client, reverse("player_edit", args=[players[0].pk]), lang)
    assert f">{name}</label>" in player_form


@pytest.mark.parametrize("lang", ["es", "fi", "ko", "sq", "su"])
def test_each_kind_of_tournament_money_has_a_name_of_its_own(lang):
    """A director reading the prize ledger tells a rebuy from an add-on and a re-entry in
    every language (Finnish once called both the rebuy and the add-on "Lisäosto")."""
    from ledger.models import PrizePosting

    with override(lang):
        labels = [str(kind.label).casefold() for kind in PrizePosting.Kind]
        late = [str(gettext_lazy(word)).casefold() for word in ("Rebuy", "Add-on")]
    assert len(set(labels)) == len(labels), labels
    # Not only different: the add-on's name may not hold the rebuy's ("Lisäosto (add-on)"
    # beside "Lisäosto" read as a kind of rebuy), nor the other way round.
    kind = PrizePosting.Kind
    with override(lang):
        rebuy, addon = str(kind.REBUY.label).casefold(), str(kind.ADDON.label).casefold()
    for a, b in ((rebuy, addon), (addon, rebuy), tuple(late), tuple(reversed(late))):
        assert a not in b, (a, b)


@pytest.mark.parametrize("lang", ["en", *LANGUAGES])
def test_a_postings_kind_reads_as_djangos_own_display_would(lang):
    # Posting replaces Django's get_kind_display (issue #20: that one translated every
    # choice on each call); the words must be the same, a code that is no kind included.
    field = Posting._meta.get_field("kind")
    with override(lang):
        for code in [*Posting.Kind.values, "no_such_kind"]:
            posting = Posting(kind=code)
            assert posting.get_kind_display() == posting._get_FIELD_display(field)
