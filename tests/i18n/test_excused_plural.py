"""A new user's finding: a hand's result read "(Ann exento(s))" in Spanish. Who is excused
is one name or several, so the sentence has the language's plural forms (a ``count`` in
both templates that say it) and every catalogue fills them."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.template import Context, Template
from django.utils.translation import override

TEMPLATES = Path(settings.BASE_DIR) / "templates" / "games"
# The same tag as the templates: the names joined by the language's "and", counted.
SAYS = Template(
    "{% load bourre i18n %}{% blocktranslate trimmed with names=excused|names "
    "count n=excused|length %}{{ names }} excused{% plural %}{{ names }} excused"
    "{% endblocktranslate %}"
)


def _say(code: str, excused: list[str]) -> str:
    with override(code):
        return SAYS.render(Context({"excused": excused}))


@pytest.mark.parametrize("name", ["hand_fields.html", "hand_result.html"])
def test_the_templates_count_who_is_excused(name):
    text = (TEMPLATES / name).read_text()
    tags = re.findall(r"{% blocktranslate[^%]*%}\s*{{ names }} excused\s*{% plural %}", text)
    assert tags and all(" count " in tag for tag in tags), name


@pytest.mark.parametrize(
    ("code", "one", "two"),
    [
        ("en", "Ann excused", "Ann and Ben excused"),
        ("es", "exento: Ann", "exentos: Ann y Ben"),
        ("sq", "Ann përjashtohet", "Ann dhe Ben përjashtohen"),
    ],
)
def test_one_name_and_several_read_naturally(code, one, two):
    assert _say(code, ["Ann"]) == one
    assert _say(code, ["Ann", "Ben"]) == two


@pytest.mark.parametrize("code", ["es", "fi", "sq", "ko", "su"])
def test_no_catalogue_says_a_lazy_plural(code):
    for excused in (["Ann"], ["Ann", "Ben"]):
        said = _say(code, excused)
        assert "(s)" not in said and "Ann" in said and " excused" not in said, (code, said)
