"""An evening run only through a client generated from the live schema (issue 16).

openapi-python-client (a test dependency) generates a Python package from
`/api/v1/schema/`; the test then plays a whole evening against a live server through
that package alone: a token by password, a club, players, a session, ten hands, a void,
closing, the settlement as JSON and as CSV, and a walk through the ledger's pages.
Nothing here calls Django or the ledger directly, except to create the user (sign-up is
web-only) and to check the books afterwards.
"""

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from games.models import GameSession
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


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_an_evening_through_the_generated_client(generated, live_server, password):
    from tests.factories import UserFactory

    UserFactory(username="host")  # sign-up is web-only
    api = lambda name: _mod(f"api.{name}")  # noqa: E731
    models = _mod("models")
    anonymous = generated.Client(base_url=live_server.url, raise_on_unexpected_status=True)

    token = api("auth.tokens_create").sync(
        client=anonymous,
        body=models.TokenCreateInput(username="host", password=password, name="evening"),
    )
    assert isinstance(token, models.TokenCreatedOutput), token
    client = generated.AuthenticatedClient(
        base_url=live_server.url, token=token.token, raise_on_unexpected_status=True
    )

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

    closed = api("sessions.sessions_close").sync(
        session.id,
        client=client,
        body=models.CloseInput(leftover_policy=models.LeftoverPolicyEnum.SHARE_EQUALLY),
    )
    assert closed.status == models.SessionStatusEnum.CLOSED and closed.pot == 0

    settlement = api("ledger.sessions_settlement").sync(session.id, client=client)
    assert isinstance(settlement, models.SettlementOutput), settlement
    csv_text = api("ledger.sessions_settlement_csv").sync(session.id, client=client)
    assert csv_text.splitlines()[0] == "payer,payee,amount_minor,currency,paid,paid_at,explanation"
    assert len(csv_text.splitlines()) == len(settlement.transfers) + 1
    paid = sum(t.amount for t in settlement.transfers)
    assert paid > 0

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
    export = api("clubs.clubs_export").sync(club.id, client=client)
    lines = [json.loads(line) for line in export.payload.read().splitlines()]
    assert lines[0]["type"] == "club" and lines[0]["id"] == club.id
    assert len([x for x in lines if x["type"] == "hand"]) == 10

    postings.check_invariants(GameSession.objects.get(pk=session.id))
