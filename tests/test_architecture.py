"""Static checks of the project's architecture: import cycles, purity, layering, size.

Pure static checks (``ast`` over the source files, plus one subprocess for the purity of
imports at run time); no database. Each rule says in its docstring why it exists.

The import graph (``_graph``) holds MODULE-LEVEL imports only: what runs when a module
is imported. Imports inside functions (lazy imports) and under ``if TYPE_CHECKING:``
never run at import time, so they cannot make an import cycle; they are left out.
"""

from __future__ import annotations

import ast
import itertools
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "ledger", "bourre_site")
# The feature packages of the games app: each with its own views, urls, forms, service.
FEATURES = ("clubs", "sessions", "digital", "tournaments", "api")
HTML_FEATURES = ("clubs", "sessions", "digital", "tournaments")
# Modules of a feature package that serve HTML pages without "views" in their name.
HTML_VIEW_STEMS = ("accounts", "tokens", "settlement")
# A signal, not a reason to scatter (issue #31): a module past it is read again for its
# ideas; code that belongs together stays together below it.
MAX_LINES = 1000
# Directories whose Python files the size rule leaves alone (generated, test or
# benchmark code, virtualenvs, build output).
SIZE_EXEMPT_DIRS = {"migrations", "tests", "bench", "node_modules", "staticfiles", "__pycache__"}


# -- reading the source ------------------------------------------------------------------------


@dataclass(frozen=True)
class Import:
    """One imported name as written: ``module`` absolute (relative imports resolved),
    ``names`` the names of a ``from`` import (empty for ``import module``)."""

    module: str
    names: tuple[str, ...]
    line: int


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _sources() -> dict[str, Path]:
    """Module name → file, for every module of the project's packages (no migrations)."""
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.relative_to(ROOT).parts:
                continue
            out[_module_name(path)] = path
    return out


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(body: list[ast.stmt], module_level: bool) -> Iterator[ast.stmt]:
    """Every statement run by ``body``, never those under ``if TYPE_CHECKING:``; with
    ``module_level`` not those in function bodies either (they run when called). Class
    bodies run at import time, so they count."""
    for node in body:
        yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _statements(node.orelse, module_level)
            continue
        if module_level and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, field, None)
            if isinstance(children, list):
                blocks = [c for c in children if isinstance(c, ast.stmt)]
                blocks += [s for c in children if not isinstance(c, ast.stmt) for s in c.body]
                yield from _statements(blocks, module_level)


def _absolute(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute name of ``from <level dots><target> import ...`` written in
    ``module`` (``is_package``: the module is a package's ``__init__``)."""
    if level == 0:
        return target or ""
    parts = module.split(".")
    package = parts if is_package else parts[:-1]
    base = package[: len(package) - (level - 1)]
    return ".".join([*base, target] if target else base)


@cache
def _imports(module: str, module_level: bool = True) -> tuple[Import, ...]:
    path = _sources()[module]
    is_package = path.name == "__init__.py"
    out = []
    for node in _statements(_tree(path).body, module_level):
        if isinstance(node, ast.Import):
            out += [Import(alias.name, (), node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            absolute = _absolute(module, is_package, node.level, node.module)
            out.append(Import(absolute, tuple(a.name for a in node.names), node.lineno))
    return tuple(out)


def _targets(imp: Import) -> list[str]:
    """The project modules an import loads, or [] for a module outside the project.

    ``from pkg import sub`` where ``pkg.sub`` is a module is an edge to ``pkg.sub``;
    ``from pkg import name`` (a name defined in ``pkg``) is an edge to ``pkg``; a dotted
    name that is not a module itself resolves to its longest prefix that is.

    Importing ``a.b.c`` also runs ``a/__init__.py`` and ``a/b/__init__.py``, but the edge
    goes to ``a.b.c`` only, not to its parents: a package's ``__init__`` commonly
    re-exports its submodules (``games.models``, ``games.engine``, ``ledger.postings``),
    and counting the parents would make every submodule that imports a sibling
    (``from games.engine.rules import ...``) look like a cycle through that ``__init__``.
    A real cycle through an ``__init__`` (a submodule importing a name from its own
    package's ``__init__`` while that ``__init__`` imports the submodule) still shows:
    that import names the package itself.
    """
    modules = _sources()

    def known(name: str) -> str | None:
        parts = name.split(".")
        for n in range(len(parts), 0, -1):
            candidate = ".".join(parts[:n])
            if candidate in modules:
                return candidate
        return None

    if not imp.names:
        found = known(imp.module)
        return [found] if found else []
    out = []
    for name in imp.names:
        sub = f"{imp.module}.{name}"
        found = sub if sub in modules else known(imp.module)
        if found and found not in out:
            out.append(found)
    return out


@cache
def _graph(module_level: bool = True) -> dict[str, dict[str, int]]:
    """module → {imported project module: line of the first such import}."""
    graph: dict[str, dict[str, int]] = {}
    for module in _sources():
        edges: dict[str, int] = {}
        for imp in _imports(module, module_level):
            for target in _targets(imp):
                if target != module:
                    edges.setdefault(target, imp.line)
        graph[module] = edges
    return graph


def _where(module: str, line: int) -> str:
    return f"{_sources()[module].relative_to(ROOT)}:{line}"


def _cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle (a → ... → a) per strongly connected component with a cycle (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, {}):
                components.append(component)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)

    cycles = []
    for component in components:
        members = set(component)
        start = min(component)
        # Breadth-first from start back to start, inside the component: a shortest cycle.
        paths = {start: [start]}
        queue = [start]
        cycle = None
        while queue and cycle is None:
            v = queue.pop(0)
            for w in sorted(graph[v]):
                if w == start:
                    cycle = [*paths[v], start]
                    break
                if w in members and w not in paths:
                    paths[w] = [*paths[v], w]
                    queue.append(w)
        cycles.append(cycle or sorted(component))
    return cycles


def _describe(cycle: list[str]) -> str:
    graph = _graph()
    hops = [f"{a} -> {b} ({_where(a, graph[a][b])})" for a, b in itertools.pairwise(cycle)]
    return "\n    ".join(hops)


# -- a. no import cycles -----------------------------------------------------------------------


def test_the_graph_sees_the_imports() -> None:
    """The other rules are only as good as the graph they read: check it on imports
    that certainly exist, so a resolver bug cannot make every rule pass vacuously."""
    graph = _graph()
    assert len(graph) > 30
    assert "games.models.session" in graph["games.models"]  # from .session import ...
    assert "games.sql" in graph["games.access"]  # from . import sql
    assert "games.models" in graph["ledger.sql"]  # from games.models import ...
    assert "games.sql" in graph["ledger.sql"]
    assert "ledger.postings" in graph["games.digital.service"]  # from ledger import postings
    assert "games.engine.rules" in graph["games.engine"]
    assert "django" not in graph["games.sql"]  # outside the project: no edge


def test_no_import_cycles() -> None:
    """A cycle of module-level imports works only while the modules happen to be
    imported in one particular order; the first new import that starts elsewhere fails
    with a half-initialised module (ImportError or AttributeError at startup). It is
    also the sign of two layers that each know the other. Break a cycle by moving the
    shared code down a layer or by a hook (see ``ledger.postings.on_table_hand``)."""
    cycles = _cycles(_graph())
    assert not cycles, "import cycles:\n  " + "\n  ".join(_describe(c) for c in cycles)


def test_the_cycle_finder_finds_cycles() -> None:
    """The cycle check must be able to fail: a hand-made graph with a cycle."""
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1, "d": 1}, "d": {}, "e": {"e": 1}}
    cycles = _cycles(graph)
    assert sorted(map(tuple, cycles)) == [("a", "b", "c", "a"), ("e", "e")]
    assert _cycles({"a": {"b": 1}, "b": {}}) == []


# -- b. purity ---------------------------------------------------------------------------------

PURE_MODULES = ("games.engine", "games.engine.tournament", "ledger.settlement")


def test_pure_modules_load_no_django() -> None:
    """The engine (rules, dealing, verifying, tournament logic) and the settlement
    arithmetic are pure Python: they run in the command-line tool, the property tests
    and the benchmarks without settings or a database, and stay fast and easy to test.
    Importing them must not load Django (not even through a package ``__init__``)."""
    code = (
        "import importlib, sys\n"
        f"for name in {PURE_MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'django')\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def _pure_files() -> dict[str, str]:
    """Module → the only project package it may import (besides the standard library).

    ``ledger.settlement`` may import nothing of the project: everything else in
    ``ledger`` is Django code (models, postings), so "its own package" is itself."""
    out = {m: "games.engine" for m in _sources() if m.split(".")[:2] == ["games", "engine"]}
    out["ledger.settlement"] = "ledger.settlement"
    return out


def test_pure_modules_import_only_the_standard_library_and_their_own_package() -> None:
    """Statically, for every import in the file (lazy ones in functions too, since they
    run when the function is called): the import-time check above cannot see a Django
    import hidden in a function that the import does not call."""
    stdlib = sys.stdlib_module_names | {"__future__"}
    bad = []
    for module, own in _pure_files().items():
        for imp in _imports(module, module_level=False):
            if imp.module.split(".")[0] in stdlib or _in(imp.module, own):
                continue
            bad.append(f"{_where(module, imp.line)}: imports {imp.module}")
    assert len(_pure_files()) >= 10  # the engine's modules were found
    assert not bad, "impure imports:\n  " + "\n  ".join(bad)


# -- c. layering -------------------------------------------------------------------------------


def _feature(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) >= 2 and parts[0] == "games" and parts[1] in FEATURES:
        return parts[1]
    return None


def _is_view(module: str) -> bool:
    """A module that answers requests: named ``views`` anywhere, or in a feature package
    named ``*views`` or (in an HTML feature) accounts, tokens, settlement."""
    feature, stem = _feature(module), module.split(".")[-1]
    if stem == "views":
        return True
    if feature is None or len(module.split(".")) < 3:
        return False
    return stem.endswith("views") or (feature in HTML_FEATURES and stem in HTML_VIEW_STEMS)


def _is_html_view(module: str) -> bool:
    return _is_view(module) and _feature(module) in HTML_FEATURES


def _violations(source, target) -> list[str]:
    """ "file:line: a imports b" for every module-level edge a → b with source(a) and
    target(a, b)."""
    graph = _graph()
    return [
        f"{_where(a, line)}: {a} imports {b}"
        for a, edges in sorted(graph.items())
        if source(a)
        for b, line in sorted(edges.items())
        if target(a, b)
    ]


def test_the_layering_rules_know_the_view_modules() -> None:
    """The layering rules below select modules by name: check the names still match
    the tree, so that a renamed package does not make them pass with nothing to check."""
    views = {m for m in _sources() if _is_view(m)}
    expected = {
        "games.clubs.views",
        "games.clubs.accounts",
        "games.clubs.tokens",
        "games.sessions.views",
        "games.sessions.settlement",
        "games.digital.views",
        "games.tournaments.views",
        "games.api.views",
    }
    assert expected <= views, expected - views
    assert not _is_html_view("games.api.views") and _is_html_view("games.sessions.settlement")
    assert not _is_view("ledger.settlement") and not _is_view("games.clubs.forms")
    assert any(m.startswith("games.models.") for m in _sources())


def test_views_never_import_another_features_views() -> None:
    """Features talk to each other through services, selectors and URL names, never by
    importing another feature's views: views are the outermost layer, so such an import
    couples two pages' request handling and drags one feature's URLs, forms and
    templates into the other (and is the usual start of an import cycle)."""
    bad = _violations(
        _is_view,
        lambda a, b: _is_view(b) and _feature(b) is not None and _feature(b) != _feature(a),
    )
    assert not bad, "views importing another feature's views:\n  " + "\n  ".join(bad)


def test_the_api_never_imports_html_views() -> None:
    """The JSON API and the HTML pages are two faces of the same services: the API
    calls ``service``/``selectors``/``ledger`` directly, so it never depends on forms,
    templates, messages or redirects of a page, and a page can change freely."""
    bad = _violations(lambda a: _feature(a) == "api", lambda a, b: _is_html_view(b))
    assert not bad, "API modules importing HTML views:\n  " + "\n  ".join(bad)


def _external_top(imp: Import) -> str | None:
    """The top-level package of an import outside the project (None for the project)."""
    top = imp.module.split(".")[0]
    return None if top in PACKAGES or not top else top


def test_models_import_only_models_and_the_engine() -> None:
    """``games.models`` is data only: every layer imports it, so it may import nothing
    above it (no services, views, ledger) or it would drag them into every import and
    close cycles. It may use the pure engine (rule constants), Django and the standard
    library."""
    allowed_external = sys.stdlib_module_names | {"__future__", "django"}
    bad = _violations(
        lambda a: _in(a, "games.models"),
        lambda a, b: not (_in(b, "games.models") or _in(b, "games.engine")),
    )
    for module in _sources():
        if _in(module, "games.models"):
            for imp in _imports(module):
                top = _external_top(imp)
                if top is not None and top not in allowed_external:
                    bad.append(f"{_where(module, imp.line)}: {module} imports {imp.module}")
    assert not bad, "games.models importing outside its layer:\n  " + "\n  ".join(bad)


def test_the_ledger_never_imports_game_features() -> None:
    """The ledger is the layer under the features: sessions, digital hands, tournaments
    and the API all post money through ``ledger.postings``. If the ledger imported a
    feature, the two would depend on each other (the tournament service is reached
    through the ``on_table_hand`` hook instead). The ledger may use ``games.models``,
    the pure ``games.engine`` and the plain-SQL helpers of ``games.sql``."""
    bad = _violations(lambda a: a.split(".")[0] == "ledger", lambda a, b: _feature(b) is not None)
    assert not bad, "ledger modules importing game features:\n  " + "\n  ".join(bad)


# -- d. size -----------------------------------------------------------------------------------


def _long_modules() -> list[str]:
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if any(
            p in SIZE_EXEMPT_DIRS or p.startswith(".") or p.endswith(".egg-info") for p in parts
        ):
            continue
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            out.append(f"{path.relative_to(ROOT)}: {lines} lines")
    return out


def test_no_module_is_longer_than_1000_lines() -> None:
    """A module over 1,000 lines holds more than one idea: it is hard to review, to name
    and to test in parts, and its merge conflicts are the worst. Split it by
    responsibility (as the feature packages and ``ledger.postings`` are split), never
    only to get under the line: what is decided together stays together."""
    assert any(ROOT.joinpath(p).exists() for p in ("manage.py", "games/sql.py"))
    long = _long_modules()
    assert not long, f"modules longer than {MAX_LINES} lines:\n  " + "\n  ".join(long)


@pytest.mark.parametrize(
    ("module", "level", "target", "is_package", "expected"),
    [
        ("games.access", 1, None, False, "games"),
        ("games.access", 1, "models", False, "games.models"),
        ("games.engine", 1, "rules", True, "games.engine.rules"),
        ("games.engine.state", 2, "models", False, "games.models"),
        ("ledger.postings.hands", 2, "models", False, "ledger.models"),
        ("games.sql", 0, "django.db", False, "django.db"),
    ],
)
def test_relative_imports_resolve(module, level, target, is_package, expected) -> None:
    """The graph is built from resolved names: ``from . import x`` in a module and in a
    package's ``__init__`` resolve differently, and getting that wrong hides edges."""
    assert _absolute(module, is_package, level, target) == expected


# The test extras (type stubs, test tools) are not installed by `make run`: the app's own
# modules may name them for the type checker only (a fresh clone's `make run` once died on
# `django_stubs_ext`).
TEST_ONLY_MODULES = {
    "django_stubs_ext",
    "rest_framework_stubs",
    "mypy",
    "pytest",
    "factory",
    "hypothesis",
    "playwright",
    "schemathesis",
    "radon",
    "djlint",
}


def runtime_imports(source: str) -> set[str]:
    """Top-level module names a module imports when it runs (not under TYPE_CHECKING)."""
    tree = ast.parse(source)
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for stmt in node.body
        for inner in ast.walk(stmt)
    }
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_the_app_imports_no_test_extra_when_it_runs():
    root = Path(__file__).resolve().parents[1]
    found = {
        str(path.relative_to(root)): sorted(runtime_imports(path.read_text()) & TEST_ONLY_MODULES)
        for package in ("games", "ledger", "bourre_site")
        for path in (root / package).rglob("*.py")
    }
    assert {k: v for k, v in found.items() if v} == {}


def test_the_runtime_import_check_sees_through_type_checking_only():
    bad = "from django_stubs_ext import WithAnnotations\n"
    good = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from django_stubs_ext import X\n"
    )
    assert "django_stubs_ext" in runtime_imports(bad)
    assert "django_stubs_ext" not in runtime_imports(good)
