"""Request parameters: plain values out of pygls' objects, checked field by field.

A wrong type or a missing required field raises `JsonRpcInvalidParams` naming the method and
the field, so a client gets a clean error response and the server stays up.
"""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams


def plain(value: Any) -> Any:
    """pygls hands custom params over as namedtuples; turn them back into JSON values."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


class Params:
    def __init__(self, method: str, raw: Any) -> None:
        self.method = method
        value = plain(raw)
        if value is None:
            value = {}
        if not isinstance(value, dict):
            self._fail("params", "an object")
        self.values: dict[str, Any] = value

    def _fail(self, name: str, expected: str) -> None:
        raise JsonRpcInvalidParams(f"{self.method}: {name!r} must be {expected}")

    def string(self, name: str, default: str | None = None, *, required: bool = False) -> str | None:
        value = self.values.get(name)
        if value is None:
            if required:
                self._fail(name, "a string (required)")
            return default
        if not isinstance(value, str):
            self._fail(name, "a string")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            self._fail(name, "valid Unicode text (it holds a lone surrogate)")
        return value

    def integer(self, name: str, default: int | None = None, *, required: bool = False,
                low: int | None = None, high: int | None = None) -> int | None:
        value = self.values.get(name)
        if value is None:
            if required:
                self._fail(name, "an integer (required)")
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            self._fail(name, "an integer")
        if not -(2**63) <= value < 2**63:
            self._fail(name, "a 64-bit integer")
        if (low is not None and value < low) or (high is not None and value > high):
            self._fail(name, f"between {low} and {high}")
        return value

    def boolean(self, name: str, default: bool = False) -> bool:
        value = self.values.get(name)
        if value is None:
            return default
        if not isinstance(value, bool):
            self._fail(name, "true or false")
        return value

    def choice(self, name: str, options: tuple[str, ...], default: str | None = None) -> str | None:
        value = self.string(name, default)
        if value is not None and value not in options:
            self._fail(name, "one of " + ", ".join(options))
        return value

    def strings(self, name: str) -> list[str] | None:
        value = self.values.get(name)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self._fail(name, "a list of strings")
        return value
