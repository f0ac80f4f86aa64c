"""Request parameters as attrs classes, structured by cattrs with strict primitive types.

`structure(method, raw, cls)` turns a request's params into `cls` or raises
`JsonRpcInvalidParams` with one line naming the method and the field. Keys are camelCase on the
wire (attrs aliases); unknown keys are ignored, as LSP clients add their own (`workDoneToken` …).
Strings must be real strings (no lone surrogates), integers real 64-bit integers and booleans
real booleans: the lenient conversions cattrs does by default (`"7"` → 7, 5 → `"5"`) are off.
"""

from __future__ import annotations

from typing import Any, TypeVar

import attrs
import cattrs
from pygls.exceptions import JsonRpcInvalidParams

from loreline.api.imports import ASSISTANTS
from loreline.models import KINDS, STATUSES
from loreline_lsp import limits

T = TypeVar("T")
MAX_MESSAGE_CHARS = 300


class Bad(ValueError):
    """A value of the right type that is not acceptable; its text is the whole explanation."""


def _strict_str(value: Any, _: Any) -> str:
    if not isinstance(value, str):
        raise Bad("must be a string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise Bad("must be valid Unicode text (it holds a lone surrogate)") from None
    return value


def _strict_int(value: Any, _: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Bad("must be an integer")
    if not -(2**63) <= value < 2**63:
        raise Bad("must be a 64-bit integer")
    return value


def _strict_bool(value: Any, _: Any) -> bool:
    if not isinstance(value, bool):
        raise Bad("must be true or false")
    return value


def _strict_float(value: Any, _: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Bad("must be a number")
    return float(value)


def _strict_list_of_str(value: Any, _: Any) -> list[str]:
    if not isinstance(value, list) or len(value) > limits.MAX_PATHS:
        raise Bad(f"must be a list of at most {limits.MAX_PATHS} strings")
    return [_strict_str(v, str) for v in value]


def _token(value: Any, _: Any) -> int | str | None:
    if value is None:
        return None
    return _strict_str(value, str) if isinstance(value, str) else _strict_int(value, int)


def make_strict(converter: cattrs.Converter) -> cattrs.Converter:
    """Strings, integers, numbers and booleans only from values of that JSON type."""
    converter.register_structure_hook(str, _strict_str)
    converter.register_structure_hook(int, _strict_int)
    converter.register_structure_hook(float, _strict_float)
    converter.register_structure_hook(bool, _strict_bool)
    return converter


converter = make_strict(cattrs.Converter(use_alias=True, forbid_extra_keys=False))
converter.register_structure_hook_func(lambda t: t == list[str], _strict_list_of_str)
converter.register_structure_hook_func(lambda t: t == int | str | None, _token)


# -- validators (they never echo the value: it may be megabytes long) --------------------

def one_of(*options: str) -> Any:
    def check(_: Any, attribute: attrs.Attribute[Any], value: str | None) -> None:
        if value is not None and value not in options:
            raise Bad(f"{attribute.alias!r} must be one of " + ", ".join(options))
    return check


def between(low: int, high: int) -> Any:
    def check(_: Any, attribute: attrs.Attribute[Any], value: int | None) -> None:
        if value is not None and not low <= value <= high:
            raise Bad(f"{attribute.alias!r} must be between {low} and {high}")
    return check


def at_most(chars: int) -> Any:
    def check(_: Any, attribute: attrs.Attribute[Any], value: str | list[str] | None) -> None:
        items = value if isinstance(value, list) else [value] if value is not None else []
        if any(len(v) > chars for v in items):
            raise Bad(f"{attribute.alias!r} is longer than {chars:,} characters (the documented limit)")
    return check


_FOLDER = attrs.field(default=None, validator=at_most(limits.MAX_PATH))


# -- one class per request ---------------------------------------------------------------

@attrs.frozen
class MemoriesParams:
    folder: str | None = _FOLDER
    kind: str | None = attrs.field(default=None, validator=one_of(*KINDS))
    status: str = attrs.field(default="active", validator=one_of(*STATUSES, "any"))
    text: str | None = attrs.field(default=None, validator=at_most(limits.MAX_TEXT))
    offset: int = attrs.field(default=0, validator=between(0, 10**9))
    limit: int | None = attrs.field(default=None, validator=between(1, limits.MAX_PAGE))


@attrs.frozen
class IdParams:
    id: int


@attrs.frozen
class RecallParams:
    query: str = attrs.field(validator=at_most(limits.MAX_QUERY))
    folder: str | None = _FOLDER
    limit: int = attrs.field(default=10, validator=between(1, 100))
    include_inactive: bool = attrs.field(default=False, alias="includeInactive")


@attrs.frozen
class ConflictsParams:
    folder: str | None = _FOLDER
    all_projects: bool = attrs.field(default=False, alias="allProjects")
    status: str = attrs.field(default="pending", validator=one_of("pending", "resolved", "any"))


def _keep_or_merge(instance: ResolveParams, _: Any, __: Any) -> None:
    if (instance.keep is None) == (instance.merge is None):
        raise Bad("give 'keep' or 'merge' (exactly one of them)")


@attrs.frozen
class ResolveParams:
    id: int
    keep: str | None = attrs.field(default=None, validator=one_of("new", "existing", "both"))
    merge: str | None = attrs.field(default=None, validator=[at_most(limits.MAX_QUERY), _keep_or_merge])


@attrs.frozen
class InboxParams:
    folder: str | None = _FOLDER
    all_projects: bool = attrs.field(default=False, alias="allProjects")


@attrs.frozen
class ApproveParams:
    id: int
    text: str | None = attrs.field(default=None, validator=at_most(limits.MAX_QUERY))


@attrs.frozen
class ImportParams:
    paths: list[str] | None = attrs.field(default=None, validator=at_most(limits.MAX_PATH))
    scope: str = attrs.field(default="claude-code", validator=one_of(*(a.name for a in ASSISTANTS), "all"))
    days: int = attrs.field(default=14, validator=between(1, 3650))
    sessions: int = attrs.field(default=20, validator=between(1, 100_000))
    work_done_token: int | str | None = attrs.field(default=None, alias="workDoneToken")


@attrs.frozen
class FolderParams:
    folder: str | None = _FOLDER


def _non_blank(_: Any, __: Any, value: str) -> None:
    if not value.strip():
        raise Bad("'key' must be a non-empty string")


@attrs.frozen
class SetApiKeyParams:
    key: str = attrs.field(validator=[at_most(limits.MAX_KEY), _non_blank])


# -- structuring -------------------------------------------------------------------------

def structure(method: str, raw: Any, cls: type[T]) -> T:
    value = {} if raw is None else raw
    if not isinstance(value, dict):
        raise invalid(method, "params must be an object")
    try:
        return converter.structure(value, cls)
    except Exception as err:  # cattrs and attrs report through several exception types
        raise invalid(method, describe(err)) from None


def describe(err: BaseException) -> str:
    if isinstance(err, cattrs.BaseValidationError):
        return "; ".join(cattrs.transform_error(err, path="params", format_exception=_format))
    return str(err) if isinstance(err, Bad) else f"{type(err).__name__}: {err}"


def _format(err: BaseException, kind: Any) -> str:
    if isinstance(err, KeyError):
        return "required"
    if isinstance(err, Bad):
        return str(err)
    if isinstance(err, (TypeError, AttributeError)) and attrs.has(kind):
        return "must be an object"
    return f"invalid ({type(err).__name__})"


def invalid(method: str, message: str) -> JsonRpcInvalidParams:
    line = " ".join(f"{method}: {message}".split())
    if len(line) > MAX_MESSAGE_CHARS:
        line = line[: MAX_MESSAGE_CHARS - 1] + "…"
    return JsonRpcInvalidParams(line)
