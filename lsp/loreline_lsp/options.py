"""Typed initialization options with defaults.

Clients send `initializationOptions` (camelCase). Unknown keys, wrong types and values out of
range never stop the server: each yields one message and the default is used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class InitOptions:
    hover_limit: int = 3
    code_lens: bool = True
    background_worker: bool = True
    worker_interval_seconds: float = 30.0
    poll_seconds: float = 2.0
    page_size: int = 200


_RULES: dict[str, tuple[str, type, Callable[[Any], bool], str]] = {
    "hoverLimit": ("hover_limit", int, lambda v: 0 <= v <= 20, "an integer from 0 to 20"),
    "codeLens": ("code_lens", bool, lambda v: True, "true or false"),
    "backgroundWorker": ("background_worker", bool, lambda v: True, "true or false"),
    "workerIntervalSeconds": ("worker_interval_seconds", float, lambda v: 1 <= v <= 3600, "seconds from 1 to 3600"),
    "pollSeconds": ("poll_seconds", float, lambda v: 0.1 <= v <= 60, "seconds from 0.1 to 60"),
    "pageSize": ("page_size", int, lambda v: 1 <= v <= 1000, "an integer from 1 to 1000"),
}

assert {name for name, *_ in _RULES.values()} == {f.name for f in fields(InitOptions)}


def parse(raw: object) -> tuple[InitOptions, list[str]]:
    """Options from the client's value, and one problem message per rejected entry."""
    options = InitOptions()
    if raw is None:
        return options, []
    if not isinstance(raw, dict):
        return options, [f"initializationOptions must be an object, not {type(raw).__name__}; using defaults"]
    problems: list[str] = []
    for key, value in raw.items():
        rule = _RULES.get(key)
        if rule is None:
            problems.append(f"unknown initialization option {key!r} ignored")
            continue
        name, kind, ok, expected = rule
        coerced = _coerce(value, kind)
        if coerced is None or not ok(coerced):
            problems.append(f"initialization option {key!r} must be {expected}; using the default")
            continue
        options = replace(options, **{name: coerced})
    return options, problems


def _coerce(value: Any, kind: type) -> Any:
    if kind is bool:
        return value if isinstance(value, bool) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if kind is int:
        return int(value) if float(value).is_integer() else None
    return float(value)
