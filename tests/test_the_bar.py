"""The bar of issue #31 ("The core, simpler than its speed"), held as static checks.

Each check reads the source (``ast``, radon, the Makefile), never the database, and each has
a self-test proving it can fail on a small example of what it forbids:

- no ``request._cached_user`` assignment: authentication is Django's ``get_user``;
- no riders: no ``obj._name = value`` on an object other than ``self``/``cls`` — a value
  one module needs from another is passed explicitly, not parked on a model instance;
- no regular expressions in template tags: tags format typed values, they do not parse
  text back into meaning (memos are data, rule references come from the message layer);
- at most 10 ``dict[str, Any]`` in the engine's signatures: records, verdicts and actions
  are the TypedDicts of ``games.engine.contracts``;
- no function graded E or F by radon (cyclomatic complexity over 30);
- no hand-written binary format (``import struct``): catalogues are compiled by Babel;
- djlint checks the templates' format and lints them in ``make lint``.

The module size cap (1,000 lines) is in ``test_architecture``; the template line length in
``test_templates_style``.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from radon.complexity import cc_rank, cc_visit

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "ledger", "bourre_site")
MAX_ENGINE_ANY_DICTS = 10


def _sources(*packages: str) -> Iterator[tuple[Path, str]]:
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            yield path, path.read_text(encoding="utf-8")


def _where(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT)}:{line}"


# -- the checks, each a function of one module's source --------------------------------------


def cached_user_assignments(source: str) -> list[int]:
    """Lines assigning ``<anything>._cached_user``."""
    return [
        target.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Attribute) and target.attr == "_cached_user"
    ]


def riders(source: str) -> list[int]:
    """Lines setting a private attribute on an object that is not ``self`` or ``cls``
    (``session._rows = ...``, ``setattr(user, "_x", ...)``)."""
    found: list[int] = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        for target in targets:
            for part in ast.walk(target):
                if (
                    isinstance(part, ast.Attribute)
                    and isinstance(part.ctx, ast.Store)
                    and part.attr.startswith("_")
                    and not part.attr.startswith("__")
                    and not (isinstance(part.value, ast.Name) and part.value.id in ("self", "cls"))
                ):
                    found.append(part.lineno)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and node.args[1].value.startswith("_")
            and not (isinstance(node.args[0], ast.Name) and node.args[0].id in ("self", "cls"))
        ):
            found.append(node.lineno)
    return found


def imports_of(source: str, module: str) -> list[int]:
    """Lines importing ``module`` (``import re``, ``from re import sub``)."""

    def imports(node: ast.AST) -> bool:
        if isinstance(node, ast.Import):
            return any(alias.name == module for alias in node.names)
        return isinstance(node, ast.ImportFrom) and node.module == module and not node.level

    return [node.lineno for node in ast.walk(ast.parse(source)) if imports(node)]


def any_dicts_in_signatures(source: str) -> list[int]:
    """Lines of function signatures (parameters or return) annotated ``dict[str, Any]``,
    counted once per annotation."""
    found: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        args = node.args
        annotations = [
            a.annotation
            for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            if a is not None and a.annotation is not None
        ]
        if node.returns is not None:
            annotations.append(node.returns)
        for annotation in annotations:
            text = ast.unparse(annotation).replace(" ", "")
            found.extend([annotation.lineno] * text.count("dict[str,Any]"))
    return found


def complex_functions(source: str) -> list[str]:
    """Functions and methods radon grades E or F, as ``name (rank complexity)``."""
    found: list[str] = []
    for block in cc_visit(source):
        # A class block's complexity sums its methods', which radon lists on their own.
        if hasattr(block, "methods"):
            continue
        rank = cc_rank(block.complexity)
        if rank in ("E", "F"):
            found.append(f"{block.name}:{block.lineno} ({rank} {block.complexity})")
    return found


def unexplained_d_functions(source: str) -> list[str]:
    """Functions radon grades D with no comment saying why they are one piece: "radon D"
    in the four lines above the ``def`` or in the function's first ten lines."""
    lines = source.splitlines()
    found: list[str] = []
    for block in cc_visit(source):
        if hasattr(block, "methods") or cc_rank(block.complexity) != "D":
            continue
        near = lines[max(block.lineno - 5, 0) : block.lineno + 10]
        if not any("radon D" in line for line in near):
            found.append(f"{block.name}:{block.lineno} (D {block.complexity})")
    return found


# -- the bar ---------------------------------------------------------------------------------


def test_no_cached_user_assignment() -> None:
    """Authentication is Django's own ``get_user``; nothing primes its cache by hand."""
    found = [
        _where(path, line)
        for path, source in _sources(*PACKAGES)
        for line in cached_user_assignments(source)
    ]
    assert found == []


def test_no_riders_on_objects() -> None:
    """A value one module needs from another is passed, not parked on an instance."""
    found = [_where(path, line) for path, source in _sources(*PACKAGES) for line in riders(source)]
    assert found == []


def test_template_tags_use_no_regular_expressions() -> None:
    """Template tags format typed values; meaning is never parsed back out of text."""
    found = [
        _where(path, line)
        for path, source in _sources("games/templatetags")
        for line in imports_of(source, "re")
    ]
    assert found == []


def test_engine_signatures_are_typed() -> None:
    """Records, verdicts and actions cross the engine's boundary as typed values."""
    found = [
        _where(path, line)
        for path, source in _sources("games/engine")
        for line in any_dicts_in_signatures(source)
    ]
    assert len(found) <= MAX_ENGINE_ANY_DICTS, found


def test_no_function_graded_e_or_f() -> None:
    """A function over 30 decisions is split by what each part decides."""
    found = [
        f"{path.relative_to(ROOT)}: {name}"
        for path, source in _sources(*PACKAGES)
        for name in complex_functions(source)
    ]
    assert found == []


def test_every_d_function_says_why_it_is_one_piece() -> None:
    """A function graded D keeps a comment saying why it is one piece (issue #31 item 4)."""
    found = [
        f"{path.relative_to(ROOT)}: {name}"
        for path, source in _sources(*PACKAGES)
        for name in unexplained_d_functions(source)
    ]
    assert found == []


def test_no_hand_written_binary_format() -> None:
    """Binary formats (.mo catalogues) are written by a maintained library."""
    found = [
        _where(path, line)
        for path, source in _sources(*PACKAGES)
        for line in imports_of(source, "struct")
    ]
    assert found == []


def test_djlint_leaves_no_template_out() -> None:
    """Every template is formatted and linted: none is excluded (spots that must keep their
    markup as written sit between djlint:off and djlint:on)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    djlint = config["djlint"]
    assert djlint["profile"] == "django"
    assert not {"exclude", "extend_exclude"} & set(djlint)


def test_make_lint_runs_djlint() -> None:
    """The templates are linted and their format checked with the Python code."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    lint = makefile.split("\nlint:", 1)[1].split("\n\n", 1)[0]
    assert "djlint templates --lint" in lint
    assert "djlint templates --check" in lint


# -- each check can fail ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "bad", "good"),
    [
        (cached_user_assignments, "request._cached_user = user\n", "user = get_user(request)\n"),
        (riders, "session._along_rows = rows\n", "self._rows = rows\n"),
        (riders, "setattr(user, '_login', True)\n", "setattr(self, '_login', True)\n"),
        (riders, "a.b._c = 1\n", "a.b.c = 1\n"),
        (lambda s: imports_of(s, "re"), "import re\n", "import json\n"),
        (lambda s: imports_of(s, "re"), "from re import sub\n", "from json import loads\n"),
        (lambda s: imports_of(s, "struct"), "import struct\n", "import babel\n"),
        (
            any_dicts_in_signatures,
            "def f(x: dict[str, Any]) -> dict[str, Any]: ...\n",
            "def f(x: HandRecord) -> Verdict: ...\n",
        ),
    ],
)
def test_checks_find_what_they_forbid(check, bad: str, good: str) -> None:
    assert check(bad)
    assert not check(good)


def test_complexity_check_finds_an_e_function() -> None:
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(32))
    assert complex_functions(f"def f(x):\n{branches}    return -1\n")
    method = "class C:\n" + "".join(
        "    " + line + "\n" for line in f"def m(self, x):\n{branches}    return -1".split("\n")
    )
    assert complex_functions(method) == ["m:2 (E 33)"]
    assert not complex_functions("def f(x):\n    return x\n")


def test_the_d_check_wants_the_comment() -> None:
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(22))
    bare = f"def f(x):\n{branches}    return -1\n"
    assert unexplained_d_functions(bare) == ["f:1 (D 23)"]
    assert not unexplained_d_functions("# radon D: one table of cases\n" + bare)


def test_any_dicts_counted_per_annotation() -> None:
    source = "def f(a: dict[str, Any], b: list[dict[str, Any]]) -> dict[str, Any]: ...\n"
    assert len(any_dicts_in_signatures(source)) == 3
