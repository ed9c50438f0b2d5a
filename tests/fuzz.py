"""Hostile values for the fuzz tests (tests/test_fuzz_forms.py, tests/api/test_fuzz_api.py):
unicode of every plane but lone surrogates (which no client can send as UTF-8), bidi
controls, NUL, numbers past every integer column, negative numbers, wrong field names,
fields dropped, fields added, several values for one field, and in JSON every wrong
type. Each strategy starts from what a browser or a client would send (the form as the
page shows it, the operation's example) and changes some of it, so most inputs get past
the first check and reach the code behind it."""

from __future__ import annotations

import traceback
from typing import Any

from hypothesis import strategies as st

NASTY = [
    "",
    " ",
    "\x00",
    "ann\x00",
    "\u202e",
    "\u202eann",
    "\u2066ben\u2069",
    "\u200b",
    "\ufeff1",
    "ann\u0301",
    "🂡♠",
    "９",
    "٣",
    "²",  # a digit to str.isdigit(), not to int()
    "③",
    "-1",
    "0",
    "-0",
    "00000000000000000000001",
    "1.5",
    "1e9999",
    "NaN",
    "-inf",
    "0x1F",
    "2147483648",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "9" * 60,
    "true",
    "null",
    "[]",
    "{}",
    '{"plays": [',
    "<script>alert(1)</script>",
    "' OR '1'='1",
    "../../etc/passwd",
    "%00",
    "$-0.25",
    "$1e99",
    "1,000,000,000,000,000,000",
    "x" * 5000,
]

# Names near the real ones: the record form's row fields past the table, the renege
# fields under "More", a seat's move, the hidden fields.
WRONG_NAMES = [
    "renege_who",
    "renege_kind",
    "renege_9",
    "tricks_9",
    "tricks_-1",
    "tricks_",
    "play_7",
    "player_0",
    "player_5",
    "player_9",
    "out_of_turn_0",
    "out_of_turn_x",
    "version",
    "idempotency_key",
    "confirmed",
    "card_log",
    "up_card",
    "hand",
    "seq",
    "type",
    "card",
    "discard",
    "next",
    "action",
    "now",
    "minutes",
    "hands",
    "level",
    "is_bot",
    "role",
    "language",
    "\u202e",
    "a\x00b",
]

text = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=40)
hostile_text = st.one_of(
    st.sampled_from(NASTY),
    text,
    st.integers(min_value=-(2**80), max_value=2**80).map(str),
)
field_name = st.one_of(st.sampled_from(WRONG_NAMES), text.filter(bool))


@st.composite
def form_body(draw: st.DrawFn, fields: dict[str, list[str]]) -> dict[str, Any]:
    """A form's fields as the page offers them, some kept, some another offered value,
    some hostile, some dropped or sent twice; and a few fields the form does not have."""
    body: dict[str, Any] = {}
    for name, offered in fields.items():
        offered = offered or [""]
        how = draw(st.sampled_from(("keep", "keep", "keep", "offered", "hostile", "drop", "many")))
        if how == "keep":
            body[name] = offered[0]
        elif how == "offered":
            body[name] = draw(st.sampled_from(offered))
        elif how == "hostile":
            body[name] = draw(hostile_text)
        elif how == "many":
            body[name] = draw(
                st.lists(st.one_of(st.sampled_from(offered), hostile_text), min_size=2, max_size=3)
            )
    for _ in range(draw(st.integers(0, 2))):
        body[draw(field_name)] = draw(hostile_text)
    return body


json_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.sampled_from([2**63, -(2**63) - 1, 10**30, -1, 0]),
    st.floats(),  # NaN and infinities too: json.dumps writes them, no JSON parser should
    hostile_text,
)
json_value = st.recursive(
    json_scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(field_name | text, inner, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def json_body(draw: st.DrawFn, example: dict[str, Any]) -> Any:
    """An operation's example body with some values swapped for hostile ones (any JSON
    type), some dropped, some added; now and then a body that is not an object at all."""
    shape = draw(st.sampled_from(("object", "object", "object", "object", "other")))
    if shape == "other":
        return draw(json_value)
    body: dict[str, Any] = {}
    for name, value in example.items():
        how = draw(st.sampled_from(("keep", "keep", "hostile", "drop")))
        if how == "keep":
            body[name] = value
        elif how == "hostile":
            body[name] = draw(json_value)
    for _ in range(draw(st.integers(0, 2))):
        body[draw(field_name)] = draw(json_value)
    return body


RAW_BODIES = [b"", b"{", b'{"a": 1e999}', b"\x00", b"\xff\xfe", b'{"players": NaN}', b"[" * 5000]


def said(failed: BaseException) -> str:
    """A failure as report lines: for each of hypothesis's distinct failures, the error,
    the deepest frame of the project's code it passed, and the input (hypothesis's note)."""
    parts = failed.exceptions if isinstance(failed, BaseExceptionGroup) else (failed,)
    lines = []
    for part in parts:
        frames = [
            f
            for f in traceback.extract_tb(part.__traceback__)
            if "site-packages" not in f.filename and "/tests/" not in f.filename
        ]
        where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
        notes = "\n".join(getattr(part, "__notes__", []))[:800]
        lines.append(f"{type(part).__name__}: {str(part)[:400]}{where} — {notes}")
    return "\n".join(lines)
