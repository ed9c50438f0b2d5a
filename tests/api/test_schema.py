"""The OpenAPI schema, the local documentation page, and a schemathesis run against both.

schemathesis loads the live schema from the WSGI app and, for every operation, sends
generated requests (valid and invalid) as bob, a scorekeeper, with a token; the seeded
club has a session with recorded hands, and the ids schemathesis generates are replaced
by real ones half of the time, so the checks reach real data. Every response must not
be a 5xx, must have a documented status code and content type, and must match the
documented schema.
"""

import itertools
import re

import pytest
import schemathesis
from django.contrib.staticfiles import finders
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from games.models import ApiToken

from .conftest import FIRST_HAND, SECOND_HAND, record


def test_the_schema_is_valid_openapi_3(db):
    schema = SchemaGenerator().get_schema(request=None, public=True)
    validate_schema(schema)
    assert schema["openapi"].startswith("3.")
    paths = set(schema["paths"])
    assert {
        "/api/v1/hands/verify/",
        "/api/v1/sessions/{session_id}/hands/",
        "/api/v1/clubs/{club_id}/postings/",
        "/api/v1/sessions/{session_id}/settlement/",
    } <= paths
    assert schema["components"]["securitySchemes"]["tokenAuth"]["scheme"] == "bearer"
    # No security requirement: the verifier is public (and there is no global one).
    assert "security" not in schema["paths"]["/api/v1/hands/verify/"]["post"]
    assert "security" not in schema


def test_the_schema_is_served(client, db):
    response = client.get("/api/v1/schema/?format=json")
    assert response.status_code == 200
    assert response.json()["info"]["title"] == "Bourré bookkeeping API"
    assert client.get("/api/v1/schema/").status_code == 200  # YAML by default


def test_the_docs_page_uses_only_local_files(client, db):
    response = client.get("/api/v1/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets, html
    # The start-up script is served by the docs view itself (no inline script: CSP).
    assert "/api/v1/docs/?script=" in assets
    script = client.get("/api/v1/docs/?script=")
    assert script.status_code == 200 and "SwaggerUIBundle" in script.content.decode()
    for url in assets:
        if url == "/api/v1/docs/?script=":
            continue
        assert url.startswith("/static/"), f"{url} is not served locally"
        assert finders.find(url.removeprefix("/static/")), f"{url} is not a static file"
    assert "//cdn" not in html and "unpkg" not in html and "jsdelivr" not in html


@pytest.mark.urls("tests.api.urls")
def test_an_unknown_api_url_is_a_404_problem(client, db):
    response = client.get("/api/v1/sessions/not-a-number/")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["status"] == 404
    assert client.get("/no-such-page/")["Content-Type"].startswith("text/html")


# --- schemathesis ----------------------------------------------------------------------------


@pytest.fixture
def seeded(club, players, game, bob, alice):
    record(game, FIRST_HAND, bob)
    record(game, SECOND_HAND, bob)
    _, key = ApiToken.issue(bob, "schemathesis")
    return {
        "key": key,
        "club_id": club.pk,
        "player_id": players[0].pk,
        "session_id": game.pk,
        "hand_id": game.hands.first().pk,
    }


@pytest.fixture
def live_settings(settings):
    settings.ROOT_URLCONF = "tests.api.urls"  # API-shaped 404s for unmatched paths
    # Plenty of verify calls: the throttle must not turn the run into a test of 429s.
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            "verify": "100000/min",
            "token": "100000/min",
            "anon": "100000/min",
        },
    }
    # schemathesis calls the raw WSGI app, whose request signals would close the test's
    # database connection mid-transaction (PostgreSQL); django.test.Client does the same.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


# Loaded when the module is collected: fetching the schema touches no database. (The
# lazy `schemathesis.pytest.from_fixture` loader does not run under pytest 9.2: it sets
# the removed `Node._nodeid`.)
# schemathesis' WSGI transport hands the body over as sent, without undoing a gzip the
# server applied for the requests-style Accept-Encoding it sends (tests/test_compression.py
# tests the compression itself): ask for the plain body.
IDENTITY = {"Accept-Encoding": "identity"}
schema = schemathesis.openapi.from_wsgi("/api/v1/schema/?format=json", get_wsgi_application())

_turns = itertools.count()

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.mark.slow
@schema.parametrize()
@settings(
    max_examples=10,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_its_schema(case, seeded, live_settings):
    # Every other case hits real objects; the others keep their generated ids (404s).
    if case.path_parameters and next(_turns) % 2 == 0:
        for name in case.path_parameters:
            if name in seeded:
                case.path_parameters[name] = seeded[name]
    case.call_and_validate(
        headers={"Authorization": f"Bearer {seeded['key']}", **IDENTITY},
        checks=CHECKS,
    )


# --- schemathesis, stateful: chains of calls with the ids earlier responses returned ------


@pytest.mark.slow
def test_api_conforms_statefully(seeded, live_settings):
    """Sequences of calls (create a club, add players, start a session, record, void…)
    linked by the ids and Location headers earlier responses gave; every response must
    be documented and never a 5xx. Bounded to run in about a minute."""
    key = seeded["key"]

    class Machine(schema.as_state_machine()):  # type: ignore[misc]
        # Each scenario starts from the seeded data: what one scenario created would
        # otherwise change the answers a replayed scenario gets (hypothesis replays
        # scenarios, and then calls the difference "flaky").
        def setup(self):
            self.savepoint = transaction.savepoint()

        def teardown(self):
            transaction.savepoint_rollback(self.savepoint)

        def get_call_kwargs(self, case):
            return {"headers": {"Authorization": f"Bearer {key}", **IDENTITY}}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(response, checks=CHECKS, transport_kwargs=kwargs)

    Machine.run(
        settings=settings(
            max_examples=25,
            stateful_step_count=6,
            deadline=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
    )


def test_no_schema_describes_itself_with_the_code_s_own_docstring(db):
    """An input schema's description is for API readers: not the base class's note on
    how it is built ("An input serializer that rejects unknown fields...")."""
    document = SchemaGenerator().get_schema(request=None, public=True)
    said = [s.get("description", "") for s in document["components"]["schemas"].values()]
    assert not [d for d in said if "input serializer" in d.lower()]
