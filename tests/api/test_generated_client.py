"""An evening run only through a client generated from the live schema (issue 16).

openapi-python-client (a test dependency) generates a Python package from
`/api/v1/schema/`; the test then plays a whole evening against a live server through
that package alone: a token by password, a club, players, a session, ten hands, a
correction, a void, bank moves, closing to the club's tab, the settlement as JSON and as
CSV, the tab with its history as JSON and as CSV, a walk through
the ledger's pages, the ledger's CSV and the export, streamed line by line through the
generated operation's request and the generated client's httpx client; and a freeze-out from
registration to a winner (hands at its table, payouts, standings and prizes as JSON and
as CSV). Nothing here calls Django or the ledger directly, except to create the user
(sign-up is web-only) and to check the books afterwards.
"""

import csv
import importlib
import io
import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from django.test import Client

from games.models import GameSession, Tournament
from ledger import postings

pytest.importorskip(
    "openapi_python_client",
    reason="openapi-python-client is in the test extras (pip install -e .[test])",
)

CONFIG = """\
post_hooks: []
project_name_override: bourre-client
package_name_override: bourre_client
"""

# Ten hands for ann, ben, cal, dee (dealing from dee); each is checked by the server.
SUMMARIES = [
    {"trump": "S", "tricks": {"ann": 2, "ben": 1, "cal": 1, "dee": 1}},
    {"trump": "H", "tricks": {"ann": 1, "ben": 3, "cal": 1, "dee": 0}},
    {"trump": "D", "tricks": {"ann": 1, "ben": 1, "cal": 3, "dee": 0}},
    {"trump": "C", "tricks": {"ann": 0, "ben": 1, "cal": 1, "dee": 3}},
]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """The client package, generated from the schema the app serves."""
    root = tmp_path_factory.mktemp("client")
    schema = Client().get("/api/v1/schema/?format=json")
    assert schema.status_code == 200
    (root / "schema.json").write_bytes(schema.content)
    (root / "config.yaml").write_text(CONFIG)
    generator = Path(sys.executable).with_name("openapi-python-client")
    done = subprocess.run(
        [
            str(generator),
            "generate",
            "--path",
            str(root / "schema.json"),
            "--config",
            str(root / "config.yaml"),
            "--meta",
            "none",
            "--output-path",
            str(root / "bourre_client"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stdout, done.stdout  # nothing of the schema was dropped
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("bourre_client")
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m.split(".")[0] == "bourre_client"]:
            del sys.modules[name]


def _mod(name: str):
    return importlib.import_module(f"bourre_client.{name}")


def _hand_entries(n: int):
    """n table records (summaries the server accepts whoever deals)."""
    for i in range(n):
        yield SUMMARIES[i % len(SUMMARIES)]


def api(name: str):
    return _mod(f"api.{name}")


def _signed_in(generated, live_server, password, username: str):
    """A token by password (the user made directly: sign-up is web-only), and a client
    that sends it."""
    from tests.factories import UserFactory

    UserFactory(username=username)
    models = _mod("models")
    anonymous = generated.Client(base_url=live_server.url, raise_on_unexpected_status=True)
    token = api("auth.tokens_create").sync(
        client=anonymous,
        body=models.TokenCreateInput(username=username, password=password, name="evening"),
    )
    assert isinstance(token, models.TokenCreatedOutput), token
    return generated.AuthenticatedClient(
        base_url=live_server.url, token=token.token, raise_on_unexpected_status=True
    )


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_an_evening_through_the_generated_client(generated, live_server, password):
    models = _mod("models")
    client = _signed_in(generated, live_server, password, "host")

    club = api("clubs.clubs_create").sync(
        client=client, body=models.ClubInput(name="Thursday", currency=models.CurrencyEnum.USD)
    )
    assert club.role == models.RoleEnum.OWNER
    assert (club.currency.code, club.currency.exponent, club.currency.symbol) == ("USD", 2, "$")
    players = [
        api("players.players_create").sync(
            club.id, client=client, body=models.PlayerCreateInput(name=name)
        )
        for name in ("ann", "ben", "cal", "dee")
    ]
    session = api("sessions.sessions_create").sync(
        club.id,
        client=client,
        body=models.SessionCreateInput.from_dict(
            {"name": "Evening", "players": [p.id for p in players], "dealer": players[3].id}
        ),
    )
    assert isinstance(session, models.SessionDetailOutput), session

    hands = []
    for i, entry in enumerate(_hand_entries(10)):
        detail = api("sessions.sessions_retrieve").sync_detailed(session.id, client=client)
        version = json.loads(detail.content)["version"]
        created = api("hands.hands_create").sync_detailed(
            session.id,
            client=client,
            body=models.HandCreateInput.from_dict({**entry, "session_version": version}),
            idempotency_key=f"evening-{i}",
        )
        assert created.status_code == 201, created.content
        hands.append(created.parsed)
        # A retry on a bad connection: the stored answer, nothing recorded twice.
        again = api("hands.hands_create").sync_detailed(
            session.id,
            client=client,
            body=models.HandCreateInput.from_dict({**entry, "session_version": version}),
            idempotency_key=f"evening-{i}",
        )
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.parsed.id == created.parsed.id
    assert [h.number for h in hands] == list(range(1, 11))
    assert hands[0].verdict.valid is True

    # A correction answers the session's new version: the next write chains on it.
    latest = json.loads(
        api("sessions.sessions_retrieve").sync_detailed(session.id, client=client).content
    )["version"]
    corrected = api("hands.hands_correct").sync_detailed(
        hands[0].id,
        client=client,
        body=models.CorrectInput.from_dict({**SUMMARIES[1], "session_version": latest}),
    )
    assert corrected.status_code == 200, corrected.content
    assert corrected.parsed.version == latest + 1
    assert corrected.headers["ETag"].removeprefix("W/") == f'"{latest + 1}"'

    voided = api("hands.hands_void").sync(
        hands[-1].id, client=client, body=models.VoidInput(reason="misdeal")
    )
    assert voided.status == models.HandStatusEnum.VOIDED

    # Bank moves answer the session's new version (issue 36): the next write chains on it.
    bank_before = api("ledger.clubs_balances").sync(club.id, client=client).bank
    bought = api("ledger.sessions_buy_in").sync(
        session.id, client=client, body=models.BankMoveInput(player=players[0].id, amount=500)
    )
    assert isinstance(bought, models.PostingRef), bought
    assert (bought.kind, bought.amount) == ("buy_in", 500)
    cashed = api("ledger.sessions_cash_out").sync_detailed(
        session.id, client=client, body=models.BankMoveInput(player=players[0].id, amount=200)
    )
    assert cashed.status_code == 201, cashed.content
    assert cashed.parsed.version > bought.version
    assert cashed.headers["ETag"].removeprefix("W/") == f'"{cashed.parsed.version}"'
    now = api("sessions.sessions_retrieve").sync(session.id, client=client)
    assert now.version == cashed.parsed.version
    # The bank gave 500 in chips and took 200 back.
    assert bank_before - api("ledger.clubs_balances").sync(club.id, client=client).bank == 300

    # Closed to the club's tab (issue 34): the whole settlement is owed across sessions.
    closed = api("sessions.sessions_close").sync(
        session.id,
        client=client,
        body=models.CloseInput.from_dict({"leftover_policy": "share_equally", "settle": "tab"}),
    )
    assert closed.status == models.SessionStatusEnum.CLOSED and closed.pot == 0

    settlement = api("ledger.sessions_settlement").sync(session.id, client=client)
    assert isinstance(settlement, models.SettlementOutput), settlement
    csv_text = api("ledger.sessions_settlement_csv").sync(session.id, client=client)
    assert csv_text.splitlines()[0] == "payer,payee,amount_minor,currency,paid,paid_at,explanation"
    assert len(csv_text.splitlines()) == len(settlement.transfers) + 1
    paid = sum(t.amount for t in settlement.transfers)
    assert paid > 0

    # The tab holds the evening's nets; its history as JSON pages and as its CSV operation.
    tab = api("tab.clubs_tab").sync(club.id, client=client)
    balances = {b.player.name: b.balance for b in tab.balances}
    assert balances and sum(balances.values()) == 0
    assert sum(t.amount for t in tab.transfers) == sum(x for x in balances.values() if x > 0)
    history = api("tab.clubs_tab_history").sync(club.id, client=client, page_size=100)
    assert not history.next_ and sum(line.amount for line in history.results) == 0
    tab_csv = api("tab.clubs_tab_history_csv").sync(club.id, client=client)
    tab_rows = list(csv.DictReader(io.StringIO(tab_csv)))
    assert [int(r["id"]) for r in tab_rows] == [line.id for line in history.results]
    assert sum(int(r["amount_minor"]) for r in tab_rows) == 0

    # The ledger, page by page (5 postings a page), oldest first, until the end.
    seen, cursor = [], None
    while True:
        kwargs = {"page_size": 5}
        if cursor:
            kwargs["cursor"] = cursor
        page = api("ledger.postings_list").sync(club.id, client=client, **kwargs)
        seen += [p.id for p in page.results]
        for posting in page.results:
            assert sum(leg.amount for leg in posting.legs) == 0
        if not page.next_:
            break
        cursor = page.next_  # the cursor itself (issue 36)
    assert seen == sorted(seen) and len(seen) == len(set(seen))
    assert len(seen) > 10

    # Every CSV is its own operation, read as text; the export as bytes (issue 36).
    ledger_csv = api("ledger.postings_csv").sync(club.id, client=client)
    assert ledger_csv.splitlines()[0].startswith("posting,")
    assert len({line.split(",")[0] for line in ledger_csv.splitlines()[1:]}) == len(seen)
    # The export, streamed through the generated code: the operation's own request
    # (`_get_kwargs`: method, path) sent by the generated client's httpx client (base URL,
    # token), read line by line while the response is still open; the body is never
    # held whole (`.content` was never read), and the server sends no length (streamed).
    export = api("clubs.clubs_export")
    lines = []
    with client.get_httpx_client().stream(**export._get_kwargs(club.id)) as response:
        assert response.status_code == 200
        assert response.headers["Content-Type"] == "application/octet-stream"
        assert "Content-Length" not in response.headers
        for line in response.iter_lines():
            if not lines:  # the first object is read before the rest has arrived
                assert not response.is_closed
            lines.append(json.loads(line))
        with pytest.raises(httpx.ResponseNotRead):
            response.content  # noqa: B018
    assert response.is_closed
    assert lines[0]["type"] == "club" and lines[0]["id"] == club.id
    assert len([x for x in lines if x["type"] == "hand"]) == 10
    # The generated `sync` reads the same bytes whole (a `File`), for small clubs.
    whole = api("clubs.clubs_export").sync(club.id, client=client)
    assert [json.loads(x) for x in whole.payload.read().splitlines()] == lines

    postings.check_invariants(GameSession.objects.get(pk=session.id))


def _won_by(players: list[str], winner: str) -> dict:
    """A summary hand: `winner` plays and takes every trick, everybody else passes."""
    return {"trump": "H", "passed": [p for p in players if p != winner], "tricks": {winner: 5}}


# Who wins each hand: tia 5 uma 2 val 2; tia 4 uma 4 val 1; tia 6 uma 3 and val is out
# (place 3); then tia takes uma's last three chips (uma: place 2). No two go out together.
WINNERS = ["tia", "uma", "tia", "tia", "tia", "tia"]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_tournament_to_a_winner_through_the_generated_client(generated, live_server, password):
    """A three-player freeze-out (3 chips, ante 1): registered and checked in by name,
    started, hands recorded at its table until one player holds every chip; then the
    payouts (paid, nothing due), the standings and the prize ledger as JSON and CSV."""
    models = _mod("models")
    client = _signed_in(generated, live_server, password, "director")
    club = api("clubs.clubs_create").sync(client=client, body=models.ClubInput(name="Cup club"))
    created = api("tournaments.tournaments_create").sync(
        client=client,
        body=models.TournamentCreateInput.from_dict(
            {
                "club": club.id,
                "name": "Friday freeze-out",
                "format": "freezeout",
                "buy_in": 1000,
                "fee": 100,
                "starting_chips": 3,
                "antes": [1],
                "hands_per_level": 5,
                "min_table": 2,
                "max_table": 5,
                "payout_percentages": [70, 30],
            }
        ),
        idempotency_key="cup",
    )
    assert isinstance(created, models.TournamentCreatedOutput), created
    tid = created.id
    entries = api("tournaments.tournaments_entries_create").sync(
        tid,
        client=client,
        body=models.EntryCreateInput.from_dict({"names": ["tia", "uma", "val"], "check_in": True}),
    )
    # An object with the tournament's new version, like every write (issue 36).
    assert isinstance(entries, models.EntriesCreatedOutput), entries
    assert [e.status for e in entries.entries] == ["checked_in"] * 3
    listed = api("tournaments.tournaments_entries_list").sync(tid, client=client)
    assert len(listed.results) == 3 and listed.next_ is None
    started = api("tournaments.tournaments_start").sync(tid, client=client)
    assert started.status == models.TournamentStatusEnum.RUNNING

    detail = api("tournaments.tournaments_retrieve").sync(tid, client=client)
    for i in range(len(WINNERS)):
        [table] = [x for x in detail.rounds[-1].tables if x.status == "playing"]
        state = api("sessions.sessions_retrieve").sync(table.session, client=client)
        hand = state.next_hand
        recorded = api("tournaments.tournaments_table_hand").sync_detailed(
            tid,
            table.number,
            client=client,
            body=models.HandCreateInput.from_dict(_won_by(hand.players, WINNERS[i])),
            idempotency_key=f"cup-hand-{i}",
            if_match=f'"{hand.version}"',
        )
        assert recorded.status_code == 201, recorded.content
        detail = api("tournaments.tournaments_retrieve").sync(tid, client=client)
    assert detail.status == models.TournamentStatusEnum.FINISHED

    standings = api("tournaments.tournaments_standings").sync(tid, client=client)
    assert standings.final is True
    places = {row.player.name: row.place for row in standings.standings}
    assert places == {"tia": 1, "uma": 2, "val": 3}
    prizes = {row.player.name: row.prize for row in standings.standings}
    pool = 3 * 1000
    assert prizes == {"tia": pool * 70 // 100, "uma": pool * 30 // 100, "val": 0}

    payouts = api("tournaments.tournaments_payouts").sync(tid, client=client)
    assert payouts.pool == pool
    assert payouts.deal is None  # a named component (DealOutput), null without a deal
    assert [(p.place, p.paid, p.due) for p in payouts.places] == [
        (1, pool * 70 // 100, 0),
        (2, pool * 30 // 100, 0),
    ]

    standings_csv = api("tournaments.tournaments_standings_csv").sync(tid, client=client)
    rows = list(csv.DictReader(io.StringIO(standings_csv)))
    assert {r["player"]: int(r["place"]) for r in rows} == places
    assert {r["player"]: int(r["prize_minor"]) for r in rows} == prizes

    ledger = api("tournaments.tournaments_prizes").sync(tid, client=client)
    assert ledger.balances.pool == 0 and ledger.balances.house == 3 * 100
    prizes_csv = api("tournaments.tournaments_prizes_csv").sync(tid, client=client)
    legs = list(csv.DictReader(io.StringIO(prizes_csv)))
    by_posting: dict[str, int] = {}
    for leg in legs:
        by_posting[leg["posting"]] = by_posting.get(leg["posting"], 0) + int(leg["amount_minor"])
    assert len(by_posting) == len(ledger.postings) and set(by_posting.values()) == {0}

    t = Tournament.objects.get(pk=tid)
    for x in t.tables.select_related("session"):
        postings.check_invariants(x.session)
    postings.check_prize_ledger(t)
