"""A number followed by a counted word is said with the language's plural forms: a
``blocktranslate`` that writes "{{ n }} hands" without ``count`` read "1 hands" on the
tournament pages (and "1 jakoa" in Finnish)."""

import re
from pathlib import Path

from django.conf import settings

TEMPLATES = Path(settings.BASE_DIR) / "templates"
BLOCK = re.compile(r"{% blocktranslate(?P<head>[^%]*)%}(?P<body>.*?){% endblocktranslate %}", re.S)
COUNTED = re.compile(
    r"{{ \w+ }}(?:/{{ \w+ }}| of {{ \w+ }})? (?:hands|players|chips|tables|levels)\b"
)


def test_every_counted_word_after_a_number_has_plural_forms():
    singular_only = [
        f"{path.relative_to(TEMPLATES)}: {m['body'].strip()[:80]}"
        for path in TEMPLATES.rglob("*.html")
        for m in BLOCK.finditer(path.read_text())
        if COUNTED.search(m["body"]) and " count " not in m["head"]
    ]
    assert not singular_only, singular_only
