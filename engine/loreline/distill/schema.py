"""Check an answer against a tool's input schema: the subset of JSON Schema Loreline's tools use.

Supported: `type` (object, array, string, integer, number, boolean, null, or a list of them),
`enum`, `properties`, `required`, `additionalProperties: false`, `items`, `minItems`, `maxItems`,
`minLength`, `maxLength`, `minimum`, `maximum`. Anything else in a schema is ignored, so a
check never fails on a keyword it does not know; our own tools stay within this subset.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "integer": (int,), "number": (int, float),
    "boolean": (bool,), "null": (type(None),),
}


def problems(value: Any, schema: Mapping[str, Any], where: str = "answer") -> list[str]:
    """Every way `value` breaks `schema`, each as one line naming where; empty when it fits."""
    kinds = schema.get("type")
    if kinds is not None and not _is(value, kinds if isinstance(kinds, list) else [kinds]):
        return [f"{where} is {_name(value)}, not {kinds}"]
    found: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{where} is {value!r}, not one of {schema['enum']}")
    if isinstance(value, dict):
        found += _object(value, schema, where)
    elif isinstance(value, list):
        found += _array(value, schema, where)
    elif isinstance(value, str):
        found += _bounds(len(value), schema, "minLength", "maxLength", f"{where}'s length")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        found += _bounds(value, schema, "minimum", "maximum", where)
    return found


def _is(value: Any, kinds: list[str]) -> bool:
    for kind in kinds:
        if kind in ("integer", "number") and isinstance(value, bool):
            continue
        if isinstance(value, _TYPES.get(kind, (object,))):
            return True
    return False


def _name(value: Any) -> str:
    for kind, types in _TYPES.items():
        if isinstance(value, types) and not (kind in ("integer", "number") and isinstance(value, bool)):
            return "an integer" if kind == "integer" else f"a {kind}" if kind != "array" else "an array"
    return type(value).__name__


def _object(value: dict[str, Any], schema: Mapping[str, Any], where: str) -> list[str]:
    found = [f"{where} lacks {key!r}" for key in schema.get("required", []) if key not in value]
    properties: Mapping[str, Any] = schema.get("properties", {})
    for key, item in value.items():
        if key in properties:
            found += problems(item, properties[key], f"{where}.{key}")
        elif schema.get("additionalProperties") is False:
            found.append(f"{where} has {key!r}, which the schema does not allow")
    return found


def _array(value: list[Any], schema: Mapping[str, Any], where: str) -> list[str]:
    found = _bounds(len(value), schema, "minItems", "maxItems", f"{where}'s length")
    items = schema.get("items")
    if isinstance(items, Mapping):
        for index, item in enumerate(value):
            found += problems(item, items, f"{where}[{index}]")
    return found


def _bounds(measure: float, schema: Mapping[str, Any], low: str, high: str, what: str) -> list[str]:
    found = []
    if low in schema and measure < schema[low]:
        found.append(f"{what} is {measure}, below {schema[low]}")
    if high in schema and measure > schema[high]:
        found.append(f"{what} is {measure}, above {schema[high]}")
    return found
