"""Finds user-visible text that is not marked for translation (issue 19, item 5).

Templates: text between tags, and the attributes people read (title, alt, placeholder,
aria-label, and the value of a button), outside ``{% translate %}`` /
``{% blocktranslate %}``, comments, scripts and ``{{ variables }}``.

Python (the web layer, not the engine, whose English is the command line's): literal
strings or f-strings given to ``messages.*``, ``add_error``, ``ValidationError``, and the
``label``/``help_text``/``empty_label``/``verbose_name`` of fields; and ``str(exc)`` of a
refusal shown to a person (``games.messages.render`` speaks the reader's language).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_HIDDEN = re.compile(
    r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}|{#.*?#}|<script\b.*?</script>|<style\b.*?</style>"
    r"|{%\s*block(?:trans|translate)\b.*?{%\s*endblock(?:trans|translate)\s*%}"
    r"|{%\s*(?:trans|translate)\s+(?:\"[^\"]*\"|'[^']*').*?%}",
    re.S,
)
_ATTRIBUTES = re.compile(
    r"""\b(title|alt|placeholder|aria-label|aria-description)\s*=\s*("[^"]*"|'[^']*')""", re.I
)
_BUTTON_VALUE = re.compile(
    r"""<input\b[^>]*type=["'](?:submit|button|reset)["'][^>]*\bvalue=("[^"]*"|'[^']*')""", re.I
)
_TEMPLATE_CODE = re.compile(r"{{.*?}}|{%.*?%}", re.S)
_TAG = re.compile(r"<[^>]*>", re.S)
_ENTITY = re.compile(r"&[#\w]+;")
_WORD = re.compile(r"[^\W\d_]{2,}")  # two letters of any script


def _visible(text: str) -> str | None:
    text = _ENTITY.sub(" ", _TEMPLATE_CODE.sub(" ", text)).strip()
    return text if _WORD.search(text) else None


def template_literals(source: str) -> list[str]:
    """The untranslated texts people would read in one template."""
    source = _HIDDEN.sub(" ", source)
    found = []
    for pattern in (_ATTRIBUTES, _BUTTON_VALUE):
        for match in pattern.finditer(source):
            said = _visible(match.group(match.lastindex or 1)[1:-1])
            if said:
                found.append(said)
    # Tags may hold {% %} with ">" inside quotes: drop template code first.
    text = _TAG.sub("\n", _TEMPLATE_CODE.sub(" ", source))
    for chunk in text.split("\n"):
        said = _visible(chunk)
        if said:
            found.append(said)
    return found


SHOWN_BY = {"error", "warning", "info", "success", "debug", "add_message"}
FIELD_TEXT = {"label", "help_text", "empty_label", "verbose_name", "verbose_name_plural"}


def _literal(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and bool(_WORD.search(node.value))
    ) or isinstance(node, ast.JoinedStr)


def _str_of_error(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "str"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id in {"exc", "error", "e", "err"}
    )


def _unlabelled_fields(tree: ast.AST) -> list[str]:
    """Form fields declared without ``label``: Django writes one from the attribute's name,
    in English ("Name", "Currency"), whatever the reader's language. Only form classes (a
    model's fields are labelled by ``verbose_name``; a serializer's names are an API's);
    hidden fields are left out."""
    found = []
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef) or not any(
            "Form" in ast.unparse(base) for base in cls.bases
        ):
            continue
        for stmt in cls.body:
            if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)):
                continue
            call = stmt.value
            func = call.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            keywords = {k.arg: k.value for k in call.keywords}
            hidden = "Hidden" in ast.unparse(keywords.get("widget", ast.Constant("")))
            if name.endswith("Field") and "label" not in keywords and not hidden:
                found.append(f"line {stmt.lineno}: {ast.unparse(stmt.targets[0])} has no label")
    return found


def python_literals(source: str) -> list[str]:
    """The untranslated texts a person would read, shown by one web-layer module."""
    tree = ast.parse(source)
    found = _unlabelled_fields(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        owner = func.value if isinstance(func, ast.Attribute) else None
        shown: list[ast.AST] = []
        by_messages = name in SHOWN_BY and isinstance(owner, ast.Name) and owner.id == "messages"
        if by_messages or name == "add_error":
            shown = node.args[1:2]
        elif name == "ValidationError":
            shown = node.args[:1]
        shown += [k.value for k in node.keywords if k.arg in FIELD_TEXT]
        for value in shown:
            if _literal(value) or _str_of_error(value):
                found.append(f"line {node.lineno}: {ast.unparse(value)[:60]}")
    return found


def template_files() -> list[Path]:
    return sorted((ROOT / "templates").rglob("*.html"))


def python_files() -> list[Path]:
    skip = {"engine", "migrations", "management", "__pycache__"}
    files = [*(ROOT / "games").rglob("*.py"), *(ROOT / "ledger").rglob("*.py")]
    return sorted(p for p in files if not skip & set(p.relative_to(ROOT).parts))
