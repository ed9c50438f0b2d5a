"""Every message id a person can be refused with, read from the source: the engine's and
the ledger's, and the web layer's own services that raise ``BourreError`` subclasses
(tournaments, digital hands, clubs).

Four shapes are collected (``ast``):

- ``raise SomeBourreError(...)``: its ``message_id=`` keyword, else its ``code`` (keyword
  or the constructor's positional place), else the class's default ``code``;
- an error dict literal ``{"code": "...", "message": ...}`` (the verifier's errors);
- ``add("code", ...)`` / ``_reject("code", ...)``: the record checks' error helpers;
- a ``message_id="..."`` keyword (or ``<what>_message_id=``) given to any other call: a
  helper that raises for its caller (``_require_status(..., message_id="not_running")``),
  whose own raise forwards its ``message_id`` argument.

A code that is not a string literal fails the collection (``dynamic``) unless it only
forwards another error's (``exc.message_id``, ``e.code``) or a helper's ``message_id``
argument, which are collected where they were raised or where the helper is called.
"""

from __future__ import annotations

import ast
from pathlib import Path

from games.engine.errors import BourreError

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [
    *sorted((ROOT / "games" / "engine").glob("*.py")),
    *sorted((ROOT / "ledger").rglob("*.py")),
    # The services (and views) that raise refusals people read on pages and in the API.
    *sorted((ROOT / "games" / "tournaments").glob("*.py")),
    *sorted((ROOT / "games" / "digital").glob("*.py")),
    *sorted((ROOT / "games" / "clubs").glob("*.py")),
]
# Constructors that take the code positionally: its index.
POSITIONAL_CODE = {
    "HandError": 1,
    "TournamentError": 1,
    "PayoutError": 1,
    "SetupError": 0,
    "VoidRefused": 0,
    "CorrectionRefused": 0,
    "TabConflict": 0,
    "RuleError": 0,
    "DigitalError": 1,
}
HELPERS = {"add", "_reject"}
# Forwarding another error's id (collected at that error's own raise site).
FORWARDS = {"message_id", "code"}


def _classes() -> dict[str, type[BourreError]]:
    import importlib

    for path in SOURCES:
        if path.suffix == ".py" and "management" not in path.parts and path.stem != "__main__":
            importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))

    out: dict[str, type[BourreError]] = {}
    todo: list[type[BourreError]] = [BourreError]
    while todo:
        cls = todo.pop()
        out[cls.__name__] = cls
        todo += cls.__subclasses__()
    return out


def _literal(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _forwarded(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id == "message_id"  # a helper's argument, collected at its calls
    return isinstance(node, ast.Attribute) and node.attr in FORWARDS


def _name(func: ast.AST) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def collect() -> tuple[dict[str, list[str]], list[str]]:
    """message id → where it is raised; and the sites whose id is not a literal."""
    classes = _classes()
    found: dict[str, list[str]] = {}
    dynamic: list[str] = []

    def note(code: str, where: str) -> None:
        found.setdefault(code, []).append(where)

    for path in SOURCES:
        if "migrations" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            call = node.exc if isinstance(node, ast.Raise) else node
            name = _name(call.func if isinstance(call, ast.Call) else call) if call else ""
            # A raise of a call is seen again as the call itself.
            bare_raise = isinstance(node, ast.Raise) and not isinstance(call, ast.Call)
            if name in classes and (bare_raise or isinstance(node, ast.Call)):
                kw = {k.arg: k.value for k in call.keywords} if isinstance(call, ast.Call) else {}
                args = call.args if isinstance(call, ast.Call) else []
                node_id = kw.get("message_id")
                if node_id is None:
                    node_id = kw.get("code")
                if (
                    node_id is None
                    and name in POSITIONAL_CODE
                    and len(args) > POSITIONAL_CODE[name]
                ):
                    node_id = args[POSITIONAL_CODE[name]]
                if node_id is None:
                    note(classes[name].code, where)
                elif _literal(node_id) is not None:
                    note(str(_literal(node_id)), where)
                elif not _forwarded(node_id):
                    dynamic.append(where)
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if _literal(key) == "code":
                        if _literal(value) is not None:
                            note(str(_literal(value)), where)
                        elif not _forwarded(value) and not isinstance(value, ast.Name):
                            dynamic.append(where)
            # (An error class's own super().__init__ passes on what it was given.)
            if isinstance(node, ast.Call) and _name(node.func) not in {*classes, "__init__"}:
                for k in node.keywords:
                    if k.arg and k.arg.endswith("message_id"):
                        if _literal(k.value) is not None:
                            note(str(_literal(k.value)), where)
                        elif not _forwarded(k.value):
                            dynamic.append(where)
            if isinstance(node, ast.Call) and _name(node.func) in HELPERS and node.args:
                first = node.args[0]
                # A variable is the helper's own argument, or a set's add(): not a site.
                if _literal(first) is not None:
                    note(str(_literal(first)), where)
    return found, dynamic
