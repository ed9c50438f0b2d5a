"""The prize ledger's memos read in the reader's language (issue 19).

The ledger keeps its memos in English, amounts in the locale-free form (``games.money.PLAIN``),
so the books read the same whoever wrote them; the prize ledger page shows each through the
``memo`` filter given the tournament's money: the sentence translated, the amounts written
the reader's way from the posting's parameters (minor units; issue #31), the names as they
are. Old memos of no known shape: ``tests/ledger/test_memos.py``.
"""

import random

from django.urls import reverse
from django.utils import translation

from games.models import Entry
from games.money import CURRENCIES, format_money
from games.templatetags.bourre import memo
from games.tournaments import deals
from games.tournaments import entries as late
from games.tournaments import service as svc
from ledger import postings
from ledger.models import Posting, PrizePosting
from tests.factories import seeded

from .test_tournament_service import (
    check_books,
    make_players,
    make_tournament,
    play_bot_hand,
)

BUY_IN, FEE = 125050, 100  # $1,250.50 and $1: grouping and cents in every memo's price


def _play(t, rng, alice, until, *, loose=False) -> None:
    for _ in range(500):
        t.refresh_from_db()
        if until(t):
            return
        for x in t.tables.filter(status="playing").select_related("session"):
            play_bot_hand(x, rng, alice, loose=loose)
        svc.sync(tournament_id=t.pk, user=alice)
    raise AssertionError("the tournament never got there")


def _late_event(club, alice):
    """A withdrawal before the start, then a late entry, a rebuy, an add-on, a re-entry."""
    t = make_tournament(
        club,
        alice,
        n=8,
        format="freezeout",
        buy_in=BUY_IN,
        fee=FEE,
        starting_chips=20,
        antes=[1, 2],
        hands_per_level=5,
        late_until_level=2,
        max_reentries=1,
        max_rebuys=1,
        addon_chips=15,
        addon_price=500,
    )
    gone = svc.register(tournament_id=t.pk, player=make_players(club, 1, "w")[0], user=alice)
    svc.check_in(tournament_id=t.pk, entry_id=gone.pk, user=alice)
    svc.withdraw(tournament_id=t.pk, entry_id=gone.pk, user=alice)
    svc.start(tournament_id=seeded(t.pk, "late"), user=alice)
    newcomer = svc.register(tournament_id=t.pk, player=make_players(club, 1, "n")[0], user=alice)
    svc.check_in(tournament_id=t.pk, entry_id=newcomer.pk, user=alice)
    player = Entry.objects.filter(tournament=t, status="playing").first()
    late.rebuy(tournament_id=t.pk, entry_id=player.pk, user=alice)
    late.addon(tournament_id=t.pk, entry_id=player.pk, user=alice)
    _play(
        t,
        random.Random(8),
        alice,
        lambda t: Entry.objects.filter(tournament=t, status="out").exists(),
        loose=True,
    )
    busted = Entry.objects.filter(tournament=t, status="out").first()
    late.reenter(tournament_id=t.pk, entry_id=busted.pk, user=alice)
    return t


def _deal(club, alice):
    # Names holding ": " themselves: the memo's "agreed by …: <name>" must still split.
    t = make_tournament(
        club,
        alice,
        n=3,
        format="freezeout",
        buy_in=BUY_IN,
        fee=FEE,
        starting_chips=30,
        prefix="Mc: ",
    )
    svc.start(tournament_id=t.pk, user=alice)
    t.refresh_from_db()
    still = list(deals.deal_terms(t)["chips"])
    deals.make_deal(tournament_id=t.pk, kind="chips", agreed=still, user=alice)
    return t


def _played_out(club, alice):
    t = make_tournament(
        club,
        alice,
        n=3,
        format="freezeout",
        buy_in=BUY_IN,
        fee=FEE,
        starting_chips=4,
        antes=[1, 2, 3],
        hands_per_level=3,
        prefix="f",
    )
    svc.start(tournament_id=t.pk, user=alice)
    _play(t, random.Random(20), alice, lambda t: t.status == "finished")
    return t


def test_every_memo_a_tournament_writes_reads_in_the_readers_language(club, alice):
    """Every memo the tournament's service calls wrote, run through the filter in Finnish,
    reads differently: a new memo shape the filter does not know fails here. In English
    the filter gives the stored memo back exactly (the amounts re-read without loss)."""
    club.currency = CURRENCIES["USD"]
    club.save()
    played = [_late_event(club, alice), _deal(club, alice), _played_out(club, alice)]
    for t in played:
        check_books(t)
    prize = PrizePosting.objects.filter(tournament__in=played)
    kinds = set(prize.values_list("kind", flat=True))
    assert kinds == {"buy_in", "fee", "refund", "rebuy", "addon", "reentry", "deal", "prize"}
    # One posting of each memo: the filter reads its kind and parameters, not the text.
    postings_of = {p.memo: p for p in prize}
    memos = set(postings_of)
    currency = played[0].currency
    with translation.override("fi"):
        shown = {text: memo(postings_of[text], currency) for text in memos}
        dollars = format_money(BUY_IN, currency)
    assert all(shown[text] != text for text in memos), shown
    assert dollars != "$1,250.50"
    buy_ins = [shown[m] for m in memos if m.endswith(": buy-in $1,250.50 + fee $1")]
    assert buy_ins and all(dollars in text for text in buy_ins), buy_ins
    deal_memos = [shown[m] for m in prize.filter(kind="deal").values_list("memo", flat=True)]
    with translation.override("fi"):
        kind = str(deals.KIND_WORDS["chips"]).lower()
    assert all(f"({kind})" in text and "Mc: 001, Mc: 002, Mc: 003" in text for text in deal_memos)
    with translation.override("en"):
        english = {text: memo(postings_of[text], currency) for text in memos}
    assert [(text, english[text]) for text in memos if english[text] != text] == []
    # The tables' own ledgers (tournament chips, antes, "Alone at the table"…) too.
    table_memos = {
        p.memo: p
        for p in Posting.objects.filter(session__tournament_table__tournament__in=played).exclude(
            memo=""
        )
    }
    assert table_memos
    with translation.override("fi"):
        unread = {text for text, p in table_memos.items() if memo(p) == text}
    assert unread == set()


def test_the_prize_ledger_page_shows_memos_and_money_the_readers_way(club, alice, alice_client):
    club.currency = CURRENCIES["USD"]
    club.save()
    t = _late_event(club, alice)
    check_books(t)
    rebuy = PrizePosting.objects.filter(tournament=t, kind="rebuy").get()
    stored = rebuy.memo
    assert stored.endswith(": rebuy 1, buy-in $1,250.50 + fee $1")
    url = reverse("tournament_prizes", args=[t.pk])
    for language, words in (("fi", "lisäosto 1, sisäänosto"), ("ko", "리바이 1회, 바이인")):
        page = alice_client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
        with translation.override(language):
            shown = memo(rebuy, t.currency)
            money = format_money(BUY_IN, t.currency)
        assert words in shown and money in shown, shown
        assert shown in page and stored not in page, language
    english = alice_client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert stored in english
    postings.check_prize_ledger(t)
