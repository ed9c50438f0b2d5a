"""The hand record, its verdict and the house rules as JSON Schema components of the
OpenAPI document, built from the engine's own definitions so they cannot drift:

- `Rules` from `games.engine.rules.RULE_FIELDS` (every switch, its type, bounds, choices
  and default: what `Rules.from_dict` validates against);
- `HandRecord` from `games.engine.record.SESSION_KEYS` + `TABLE_KEYS` (the keys
  `verify` accepts) with one JSON type per key in `_RECORD_TYPES` below; a key the engine
  adds without a type here makes `record_schema()` fail (tests/api/test_schema.py);
- `Verdict` (with `HandResult`, `VerdictError`, `Renege`) as HAND_RECORD.md describes
  what `verify` returns.

`add_components` is a drf-spectacular postprocessing hook (settings.SPECTACULAR_SETTINGS);
serializer fields point at the components with `ref(...)`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from drf_spectacular.generators import SchemaGenerator
    from rest_framework.request import Request

from games.engine.record import SESSION_KEYS, TABLE_KEYS
from games.engine.record_parse import _RENEGE_KEYS
from games.engine.rules import MAX_AMOUNT, RULE_FIELDS

_NAME = {"type": "string", "minLength": 1, "maxLength": 40}
_CARD = {"type": "string", "minLength": 2, "maxLength": 8, "example": "QH"}
_NAMES = {"type": "array", "items": _NAME}
_AMOUNT = {"type": "integer", "minimum": 0, "maximum": MAX_AMOUNT}
# Map-typed values, one named component each (issue 36: inline maps became a different
# empty class per field in generated clients).
MAPS: dict[str, dict[str, Any]] = {
    "Tricks": {
        "type": "object",
        "description": "Player name → tricks taken (0–5).",
        "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 5},
    },
    "CardsByPlayer": {
        "type": "object",
        "description": "Player name → cards (at most five).",
        "additionalProperties": {"type": "array", "items": _CARD, "maxItems": 5},
    },
    "AmountsByPlayer": {
        "type": "object",
        "description": "Player name → amount (minor units, or chips).",
        "additionalProperties": {"type": "integer"},
    },
    "AmountsById": {
        "type": "object",
        "description": "Player id (as a string) → amount (minor units, or chips).",
        "additionalProperties": {"type": "integer"},
    },
    "CorrectionFixes": {
        "type": "object",
        "description": "Later hand number (as a string) → its corrected table record.",
        "additionalProperties": {"type": "object"},
    },
}
_AMOUNTS = {"$ref": "#/components/schemas/AmountsByPlayer"}


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


_RENEGE_TYPES: dict[str, dict[str, Any]] = {
    "player": _NAME,
    "corrected": {"type": "boolean"},
    "trick": {"type": "integer", "minimum": 1, "maximum": 5},
    "card": _CARD,
    "rule": {"type": "string", "pattern": "^R[0-9]{1,2}$", "example": "R12"},
}

_RECORD_TYPES: dict[str, dict[str, Any]] = {
    "players": {**_NAMES, "minItems": 2, "maxItems": 8, "uniqueItems": True},
    "dealer": _NAME,
    "carry": _AMOUNT,
    "excused": _NAMES,
    "rules": ref("Rules"),
    "forfeits": _NAMES,
    "up_card": {**_CARD, "nullable": True},
    "trump": {"type": "string", "enum": ["C", "D", "H", "S"], "nullable": True},
    "passed": _NAMES,
    "discards": ref("CardsByPlayer"),
    "hands": ref("CardsByPlayer"),
    "plays": {
        "type": "array",
        "items": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
        "description": 'Cards played in order: [["ann", "QH"], ["cal", "2H"], …].',
    },
    "tricks": ref("Tricks"),
    "reneges": {"type": "array", "items": ref("RenegeCall")},
}


def rules_schema() -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for f in RULE_FIELDS:
        if f.type == "bool":
            prop: dict[str, Any] = {"type": "boolean"}
        elif f.type == "choice":
            prop = {"type": "string", "enum": list(f.choices or ())}
        else:
            prop = {"type": "integer"}
            if f.choices:
                prop["enum"] = list(f.choices)
            if f.min is not None:
                prop["minimum"] = f.min
            if f.max is not None:
                prop["maximum"] = f.max
            if f.type == "optional_int":
                prop["nullable"] = True
        properties[f.key] = {**prop, "default": f.default, "description": f.help}
    return {
        "type": "object",
        "description": "House-rule switches (RULES.md); a missing key takes its default.",
        "properties": properties,
        "additionalProperties": False,
    }


def renege_call_schema() -> dict[str, Any]:
    missing = set(_RENEGE_KEYS) - set(_RENEGE_TYPES)
    if missing:
        raise LookupError(f"renege keys without a JSON type: {sorted(missing)}")
    return {
        "type": "object",
        "properties": {k: _RENEGE_TYPES[k] for k in sorted(_RENEGE_KEYS)},
        "required": ["player"],
        "additionalProperties": False,
    }


def record_schema(keys: tuple[str, ...] = SESSION_KEYS + TABLE_KEYS) -> dict[str, Any]:
    missing = [k for k in keys if k not in _RECORD_TYPES]
    if missing:
        raise LookupError(f"hand record keys without a JSON type: {missing}")
    return {
        "type": "object",
        "description": "A hand record (HAND_RECORD.md).",
        "properties": {k: _RECORD_TYPES[k] for k in keys},
        "additionalProperties": False,
    }


_ERROR = {
    "type": "object",
    "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "field": {"type": "string"},
        "player": {"type": "string"},
        "card": {"type": "string"},
        "trick": {"type": "integer"},
        "key": {"type": "string"},
    },
    "required": ["code", "message"],
}

_RESULT = {
    "type": "object",
    "properties": {
        "outcome": {
            "type": "string",
            "enum": ["uncontested", "all_passed", "win", "split", "ineligible"],
        },
        "winner": {"type": "string", "nullable": True},
        "pot": {"type": "integer"},
        "antes": _AMOUNTS,
        "payouts": _AMOUNTS,
        "bourre": _NAMES,
        "penalties": _AMOUNTS,
        "next_carry": {"type": "integer"},
        "excused_next": _NAMES,
        "next_dealer": {"type": "string"},
        "forfeits_next": _NAMES,
    },
    "required": ["outcome", "winner", "pot", "antes", "payouts", "next_carry"],
}

_RENEGE_FOUND = {
    "type": "object",
    "properties": {
        "player": {"type": "string"},
        "trick": {"type": "integer", "nullable": True},
        "card": {"type": "string", "nullable": True},
        "rule": {"type": "string", "nullable": True},
        "legal": {"type": "array", "items": {"type": "string"}, "nullable": True},
        "corrected": {"type": "boolean"},
    },
    "required": ["player"],
}

_VERDICT = {
    "type": "object",
    "description": "The engine's verdict (HAND_RECORD.md): when `valid` is false only "
    "`errors` is meaningful.",
    "properties": {
        "valid": {"type": "boolean"},
        "errors": {"type": "array", "items": ref("VerdictError")},
        "complete": {"type": "boolean"},
        "next": {
            "type": "object",
            "nullable": True,
            "properties": {
                "player": {"type": "string"},
                "legal": {"type": "array", "items": {"type": "string"}, "nullable": True},
            },
        },
        "tricks": ref("Tricks"),
        "reneges": {"type": "array", "items": ref("Renege")},
        "result": {"allOf": [ref("HandResult")], "nullable": True},
    },
    "required": ["valid", "errors"],
}


def components() -> dict[str, dict[str, Any]]:
    return {
        "Rules": rules_schema(),
        "HandRecord": record_schema(),
        "TableRecord": record_schema(TABLE_KEYS),
        "RenegeCall": renege_call_schema(),
        "Verdict": _VERDICT,
        "VerdictError": _ERROR,
        "HandResult": _RESULT,
        "Renege": _RENEGE_FOUND,
        **MAPS,
    }


def add_components(
    result: dict[str, Any], generator: SchemaGenerator, request: Request | None, public: bool
) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the engine's components, next to the others."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in components().items():
        schemas.setdefault(name, schema)
    # Path ids: the `id` converter's bounds (games.converters: 1 to 18 digits).
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for param in operation.get("parameters", []):
                if param.get("in") == "path" and param["name"].endswith("_id"):
                    param["schema"] = {**param["schema"], "minimum": 1, "maximum": 10**18 - 1}
    return result
