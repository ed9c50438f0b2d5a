"""No HTML form answers 5xx, whatever is posted (issue 33, item 5).

Every address that takes a POST (``tests.test_methods.FORMS``) is fuzzed, as the club's
owner and as a stranger. The forms are found the way a browser finds them: every page
of a club with one of everything (``tests.world``) is opened as the owner, and each
``<form method="post">`` is read with its fields and the values it offers. hypothesis
then posts those fields — most kept, some another offered value, some hostile (unicode,
bidi controls, NUL, numbers past any column, negative numbers), some dropped or sent
twice — plus fields the form does not have (``tests.fuzz``). An address no page links
to in this world (a password reset's link from an email) is fuzzed from its URL alone.

Each answer must be below 500. After each form the books still hold
(``check_invariants`` on every table), and the reported table, if still open, records
the next valid hand; the form's changes are then rolled back (a savepoint), so that each
form meets the same world. The counts are printed (``pytest -s``)."""

from __future__ import annotations

import itertools
import os
from collections import Counter
from urllib.parse import urlencode

import pytest
from django.db import transaction
from django.test import Client
from django.urls import resolve
from hypothesis import HealthCheck, given, settings

from ledger import postings

from .fuzz import form_body
from .fuzz import said as _said
from .test_methods import FORMS, POST_ONLY
from .world import Form, World, build_world, forms_on, next_hand_records, routes

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

# BOURRE_FUZZ_SCALE=10 runs ten times as many (a deeper search than CI's).
EXAMPLES = {
    persona: n * int(os.environ.get("BOURRE_FUZZ_SCALE", "1"))
    for persona, n in {"owner": 30, "stranger": 10}.items()
}
# Forms for someone not signed in (a signed-in browser is sent on): fuzzed by a browser
# that is not signed in, in both runs.
SIGNED_OUT_FORMS = {"signup", "login", "password_reset", "password_reset_confirm"}


@pytest.fixture
def world(club, players, alice, bob, carol, mallory) -> World:
    return build_world(club, players, alice, bob, carol, mallory)


def discover_forms(world: World, owner: Client) -> dict[str, Form]:
    """The first form found for each address that takes a POST, with the fields of every
    form on the site that posts to the same path. ``owner`` is signed in as alice (a seat
    link opened by it is its phone's seat)."""
    anonymous = Client()
    found: dict[str, Form] = {}
    for route in routes():
        if route.route.startswith("api/") or route.name in POST_ONLY:
            continue
        # Both tournaments' pages: one shows the registration's forms, the other the
        # running tournament's.
        tournaments = [world.cup.pk, world.running.pk] if "tournament_id" in route.route else [0]
        paths = [world.fill(route.route, tournament_id=pk) for pk in tournaments]
        for path, client in itertools.product(paths, (owner, anonymous)):
            response = client.get(path)
            if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
                continue
            for form in forms_on(path, response.content.decode()):
                name = resolve(form.path).url_name
                if name not in FORMS:
                    continue
                known = found.setdefault(name, form)
                if known.path == form.path:
                    for field, offered in form.fields.items():
                        known.fields.setdefault(field, offered)
    for route in routes():
        if route.name in FORMS and route.name not in found:
            found[route.name] = Form(world.fill(route.route), {})
    return found


def _fuzz(form: Form, client: Client, login, examples: int, answers: Counter) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(body=form_body(form.fields))
    def post(body):
        login()
        encoded = urlencode(body, doseq=True)
        response = client.post(form.path, encoded, content_type="application/x-www-form-urlencoded")
        answers[response.status_code // 100 * 100] += 1
        assert response.status_code < 500, (form.path, body, response.status_code)

    post()


@pytest.mark.parametrize("persona", ["owner", "stranger"])
def test_no_form_answers_5xx_and_the_books_hold(world, persona):
    user = world.alice if persona == "owner" else world.mallory
    owner = Client()
    owner.force_login(world.alice)
    forms = discover_forms(world, owner)
    assert set(forms) == FORMS
    # The owner fuzzes with the browser that opened the pages (and so holds the seat
    # whose link it opened); the stranger with a browser of their own.
    client = owner if persona == "owner" else Client()

    signed_out = Client()

    def login():
        # A fuzzed logout, password change or sign-up must not end the persona's run.
        if client.session.get("_auth_user_id") != str(user.pk):
            client.force_login(user)

    def logout():
        signed_out.logout()

    failures: list[str] = []
    answers: Counter = Counter()
    with_fields = 0
    for name, form in sorted(forms.items()):
        with_fields += bool(form.fields)
        with transaction.atomic():
            try:
                if name in SIGNED_OUT_FORMS:
                    _fuzz(form, signed_out, logout, EXAMPLES[persona], answers)
                else:
                    _fuzz(form, client, login, EXAMPLES[persona], answers)
                for session in world.sessions():
                    postings.check_invariants(session)
                if next_hand_records(world.table, seed=name) is not None:
                    postings.check_invariants(world.table)
            except Exception as failed:  # a 500 re-raised by the test client, too
                failures.append(f"{name}: {_said(failed)}")
            transaction.set_rollback(True)
    print(
        f"\n{persona}: {len(forms)} forms ({with_fields} found on pages with their fields), "
        f"{answers.total()} posts ({dict(sorted(answers.items()))} by status class), "
        f"failures: {len(failures)}"
    )
    assert not failures, "\n".join(failures)
