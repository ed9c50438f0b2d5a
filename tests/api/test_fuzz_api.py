"""No API write answers 5xx, whatever is sent (issue 33, item 5).

Every write operation of the OpenAPI schema (POST, PUT, PATCH, DELETE) is called with
generated bodies, with the token of the club's owner and with a stranger's, on a club
with one of everything (``tests.world``). Each body starts from the operation's
documented example; hypothesis swaps some values for hostile ones of any JSON type
(unicode, bidi controls, NUL, numbers past 64 bits, NaN, negative numbers, lists where
a name goes, objects where a number goes), drops some, adds fields the operation does
not have, or sends something that is not an object, or not JSON at all
(``tests.fuzz``).

Each answer must be below 500. After each operation the books still hold
(``check_invariants`` on every table) and the reported table, if still open, records
the next valid hand; the operation's changes are then rolled back (a savepoint). The
counts are printed (``pytest -s``)."""

from __future__ import annotations

import json
import os
import uuid
from collections import Counter
from typing import Any

import pytest
from django.db import transaction
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import ApiToken
from ledger import postings
from tests.fuzz import RAW_BODIES, json_body
from tests.fuzz import said as _said
from tests.world import World, build_world, next_hand_records

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

WRITES = ("post", "put", "patch", "delete")
# BOURRE_FUZZ_SCALE=10 runs ten times as many (a deeper search than CI's).
EXAMPLES = {
    persona: n * int(os.environ.get("BOURRE_FUZZ_SCALE", "1"))
    for persona, n in {"owner": 30, "stranger": 10}.items()
}


@pytest.fixture
def world(club, players, alice, bob, carol, mallory) -> World:
    return build_world(club, players, alice, bob, carol, mallory)


@pytest.fixture(autouse=True)
def _no_verify_throttle(settings):
    # The public verifier's throttle would answer most of its inputs 429 (below 500, but
    # no longer reaching the verifier).
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"verify": "100000/min"},
    }


def write_operations() -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path template, example body) of every documented write."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method not in WRITES:
                continue
            content = operation.get("requestBody", {}).get("content", {})
            examples = content.get("application/json", {}).get("examples") or {}
            example = next(iter(examples.values()), {}).get("value", {})
            found.append((method, path, example if isinstance(example, dict) else {}))
    return found


def _fuzz(
    client: Client, method: str, path: str, example: dict, examples: int, answers: Counter
) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(
        body=st.one_of(
            json_body(example).map(lambda b: json.dumps(b).encode()),
            st.sampled_from(RAW_BODIES),
        ),
        keyed=st.booleans(),
    )
    def call(body: bytes, keyed: bool) -> None:
        headers = {"Idempotency-Key": uuid.uuid4().hex} if keyed else {}
        response = client.generic(
            method.upper(), path, body, content_type="application/json", headers=headers
        )
        answers[response.status_code // 100 * 100] += 1
        assert response.status_code < 500, (method, path, body[:300], response.status_code)

    call()


@pytest.mark.parametrize("persona", ["owner", "stranger"])
def test_no_api_write_answers_5xx_and_the_books_hold(world, persona):
    operations = write_operations()
    assert len(operations) > 30
    user = world.alice if persona == "owner" else world.mallory
    _, key = ApiToken.issue(user, "fuzz")
    client = Client(headers={"Authorization": f"Bearer {key}"})
    failures: list[str] = []
    answers: Counter = Counter()
    for method, route, example in operations:
        path = world.fill(route)
        with transaction.atomic():
            try:
                _fuzz(client, method, path, example, EXAMPLES[persona], answers)
                for session in world.sessions():
                    postings.check_invariants(session)
                if next_hand_records(world.table, seed=route) is not None:
                    postings.check_invariants(world.table)
            except Exception as failed:  # a 500 re-raised by the test client, too
                failures.append(f"{method.upper()} {route}: {_said(failed)}")
            transaction.set_rollback(True)
    print(
        f"\n{persona}: {len(operations)} operations, {answers.total()} calls "
        f"({dict(sorted(answers.items()))} by status class), failures: {len(failures)}"
    )
    assert not failures, "\n".join(failures)
