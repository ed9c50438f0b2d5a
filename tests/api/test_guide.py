"""The docs a newcomer reads (issue #36 item 6): /api/v1/docs/ (the schema's description
and tags) and README.md's "The API" say the same (games/api/guide.py), and what they say
is what the code does: the webhook retry numbers are the outbox's, the URLs and settings
named exist, every call of the tournament diagram is an operation, and no internal
docstring leaks into an operation's description."""

import inspect
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings

from games.api import guide, outbox

pytestmark = pytest.mark.django_db

README = Path(settings.BASE_DIR, "README.md").read_text()


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def schema(api_anon):
    return api_anon.get("/api/v1/schema/?format=json").json()


def test_the_readme_has_the_guide_word_for_word():
    assert _flat(guide.guide()) in _flat(README)


def test_the_docs_open_with_the_account_and_end_with_the_guide(schema):
    description = schema["info"]["description"]
    for part in (guide.public_data(), guide.webhooks(), guide.tournaments()):
        assert _flat(part) in _flat(description)
    # A newcomer reads how to get in before the conventions.
    assert description.index("### Getting an account") < description.index("**Idempotency**")
    assert "/accounts/signup/" in description


def _documented_retries(text: str) -> tuple[int, int, list[str], int]:
    text = _flat(text)
    attempts = int(re.search(r"tried at most (\d+) times", text).group(1))
    base = int(re.search(r"waits (\d+) s·2ⁿ⁻¹", text).group(1))
    waits = re.search(r"2ⁿ⁻¹ \(([^)]*)\)", text).group(1).split(", ")
    cap = int(re.search(r"never more than (\d+) h\b", text).group(1))
    return attempts, base, waits, cap


def _seconds(wait: str) -> int:
    number, unit = wait.split()
    return int(number) * {"s": 1, "min": 60, "h": 3600}[unit]


@pytest.mark.parametrize("where", ["readme", "docs"])
def test_the_documented_retry_schedule_is_the_outboxs(where, schema):
    text = README if where == "readme" else schema["info"]["description"]
    attempts, base, waits, cap = _documented_retries(text)
    assert attempts == outbox.MAX_ATTEMPTS == 8
    assert timedelta(seconds=base) == outbox.BACKOFF == timedelta(seconds=30)
    assert timedelta(hours=cap) == outbox.MAX_BACKOFF == timedelta(hours=6)
    # One wait after each failed attempt but the last, as deliver() schedules them.
    expected = [outbox.backoff(n).total_seconds() for n in range(1, outbox.MAX_ATTEMPTS)]
    assert [_seconds(w) for w in waits] == expected
    assert expected == [30 * 2**n for n in range(7)]  # 30 s·2ⁿ: the cap never bites
    total = re.search(r"about ([\d.]+) minutes", _flat(text)).group(1)
    assert float(total) == sum(expected) / 60


def test_the_webhook_guide_names_every_event_the_outbox_sends():
    assert len(outbox.EVENT_TYPES) >= 7  # the tab's payments are events too (issue #34)
    for kind in outbox.EVENT_TYPES:
        assert f"`{kind}`" in guide.webhooks()


def test_the_retry_cap_is_what_backoff_does_past_it():
    assert outbox.backoff(20) == outbox.MAX_BACKOFF


def test_the_named_settings_and_urls_exist(schema):
    source = Path(settings.BASE_DIR, "bourre_site", "settings.py").read_text()
    for name in ("BOURRE_WEBHOOK_ALLOW_HTTP", "BOURRE_WEBHOOK_ALLOW_PRIVATE"):
        assert name in guide.webhooks()
        assert f'"{name}"' in source
    paths = schema["paths"]
    for path in re.findall(r"`(?:GET |POST |DELETE )?(/api/v1/[^`]*)`", guide.guide()):
        pattern = re.sub(r"\\\{\w+\\\}", r"\\{\\w+\\}", re.escape(path))
        # A prefix (`/api/v1/public/`) names the operations under it.
        pattern += ".*" if path.endswith("/public/") else ""
        assert any(re.fullmatch(pattern, p) for p in paths), path


def test_every_call_of_the_tournament_diagram_is_an_operation(schema):
    calls = re.findall(r"POST …/([\w/{}-]+/)", guide.TOURNAMENT_DIAGRAM)
    assert {"start/", "balance/", "end-round/", "next-round/", "deal/"} <= set(calls)
    operations = {p.replace("{tournament_id}", "{id}") for p in schema["paths"]}
    for call in calls:
        path = "/api/v1/tournaments/{id}/" + call.replace("{n}", "{number}")
        path = path.replace("{entry}", "{entry_id}").replace("check-in", "{action}")
        assert path in operations, path


def test_no_internal_docstring_leaks_into_an_operation(schema):
    for path, operations in schema["paths"].items():
        for method, op in operations.items():
            text = op.get("description", "") if isinstance(op, dict) else ""
            assert "``" not in text and "action_view" not in text, (method, path, text)
    balance = schema["paths"]["/api/v1/tournaments/{tournament_id}/balance/"]["post"]
    assert "after it is saved" in balance["description"]


def _api_view_classes():
    from django.urls import URLPattern, URLResolver, get_resolver

    def walk(patterns):
        for p in patterns:
            if isinstance(p, URLResolver):
                yield from walk(p.url_patterns)
            elif isinstance(p, URLPattern) and hasattr(p.callback, "cls"):
                yield p.callback.cls

    return set(walk(get_resolver().url_patterns))


def test_no_operation_is_described_by_a_base_class_docstring(schema):
    """drf-spectacular describes an operation by its view's docstring, inherited too: a
    base class's or a mixin's note to programmers ("Mixed into every API view...") was
    every operation's description."""
    notes = {
        inspect.getdoc(base)
        for cls in _api_view_classes()
        for base in cls.__mro__[1:]
        if base.__module__.startswith("games.") and base.__dict__.get("__doc__")
    }
    assert notes  # the walk found the views' bases
    described = [
        op.get("description", "")
        for operations in schema["paths"].values()
        for op in operations.values()
        if isinstance(op, dict)
    ]
    assert not [text for text in described if text in notes]


def test_every_tag_has_a_description(schema):
    used = {
        tag
        for operations in schema["paths"].values()
        for op in operations.values()
        if isinstance(op, dict)
        for tag in op.get("tags", [])
    }
    described = {t["name"] for t in schema["tags"] if t.get("description")}
    assert used == described
