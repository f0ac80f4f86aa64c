"""`record`: the nouns the everyday commands read, as slotted classes built without `dataclasses`.

`@dataclass` costs its module (with `inspect`, `ast`, `dis` and `tokenize`: ~6 ms) and about
half a millisecond per class, generating and compiling each method's source; the classes a
`loreline memories` loads would spend more than the whole command has. A `@record` class is
declared the same way (annotated fields, defaults, `field(default_factory=..., compare=False,
repr=False)`) and behaves the same: `__slots__`, an `__init__` taking the fields in order or by
name, `==` and `hash` over the compared fields, a `repr` naming each field, and, unless
`frozen=False`, assignment refused with `dataclasses.FrozenInstanceError`. Type checkers read it
as a dataclass (`dataclass_transform`). Not supported: inheriting fields from another record.

The methods are shared functions over the class's field list; only `__init__` is generated,
once per class, the first time the class is instantiated (commands that never make one never
compile it). `fields`, `replace` and `asdict` stand in for the `dataclasses` functions.
"""

from __future__ import annotations

from operator import attrgetter

TYPE_CHECKING = False  # typing costs every command a few milliseconds
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform, overload

    T = TypeVar("T")
else:
    def dataclass_transform(**_options):
        return lambda decorated: decorated

    def overload(function):
        return function


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """One field of a record: its name, its default (or a factory making one) and whether `==`
    and `hash` look at it."""

    __slots__ = ("name", "default", "default_factory", "compare", "repr")

    def __init__(self, default: Any = MISSING, default_factory: Any = MISSING, compare: bool = True,
                 repr: bool = True) -> None:
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.compare = compare
        self.repr = repr

    def __repr__(self) -> str:
        return f"Field(name={self.name!r})"


def field(*, default: Any = MISSING, default_factory: Callable[[], Any] | Any = MISSING, compare: bool = True,
          repr: bool = True) -> Any:
    """A field's default or default factory, or a field `==` and `hash` (`compare`) or `repr`
    leave out."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("a field cannot have both a default and a default_factory")
    return Field(default, default_factory, compare, repr)


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(*, frozen: bool = True) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: Any = None, /, *, frozen: bool = True) -> Any:
    """Make `cls` a record (see the module's docstring); `frozen=False` for a mutable one."""
    if cls is None:
        return lambda inner: _build(inner, frozen)
    return _build(cls, frozen)


def fields(item: Any) -> tuple[Field, ...]:
    """The fields of a record class or instance, in order."""
    try:
        return item.__record_fields__
    except AttributeError:
        raise TypeError(f"{item!r} is not a record") from None


def replace(item: T, /, **changes: Any) -> T:
    """A copy of a record with some fields changed."""
    values = {f.name: getattr(item, f.name) for f in fields(item)}
    unknown = set(changes) - set(values)
    if unknown:
        raise TypeError(f"{type(item).__name__} has no field {', '.join(sorted(unknown))}")
    values.update(changes)
    return type(item)(**values)


def asdict(item: Any) -> dict[str, Any]:
    """A record as a dict, nested records, lists, tuples and dicts copied the same way."""
    return {f.name: _plain(getattr(item, f.name)) for f in fields(item)}


def _plain(value: Any) -> Any:
    if hasattr(type(value), "__record_fields__"):
        return asdict(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    return value


def _build(cls: type, frozen: bool) -> type:
    if any(hasattr(base, "__record_fields__") for base in cls.__bases__):
        raise TypeError(f"{cls.__name__}: a record cannot inherit the fields of another record")
    namespace = dict(cls.__dict__)
    found: list[Field] = []
    for name, annotation in namespace.get("__annotations__", {}).items():
        if isinstance(annotation, str) and annotation.startswith(("ClassVar", "typing.ClassVar")):
            continue
        declared = namespace.pop(name, MISSING)
        spec = declared if isinstance(declared, Field) else Field(declared)
        spec.name = name
        found.append(spec)
    seen_default = False
    for spec in found:
        if spec.default is not MISSING or spec.default_factory is not MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"{cls.__name__}: field {spec.name} without a default follows one with a default")
    names = tuple(f.name for f in found)
    compared = tuple(f.name for f in found if f.compare)
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    namespace["__slots__"] = names
    namespace["__record_fields__"] = tuple(found)
    namespace["__match_args__"] = names
    namespace.setdefault("__init__", _lazy_init)
    namespace.setdefault("__repr__", _repr)
    key = _key(compared)
    namespace["__record_key__"] = staticmethod(key)
    namespace.setdefault("__eq__", _eq)
    if frozen:
        namespace["__hash__"] = lambda self: hash(key(self))
        namespace["__setattr__"] = _refuse_set
        namespace["__delattr__"] = _refuse_delete
    elif "__hash__" not in cls.__dict__ or cls.__dict__["__hash__"] is None:
        namespace["__hash__"] = None  # mutable and compared by value: unhashable, as a dataclass
    namespace["__getstate__"] = _getstate
    namespace["__setstate__"] = _setstate
    built = type(cls)(cls.__name__, cls.__bases__, namespace)
    built.__qualname__ = cls.__qualname__
    return built


def _key(compared: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    if not compared:
        return lambda _: ()
    if len(compared) == 1:
        one = attrgetter(compared[0])
        return lambda item: (one(item),)
    return attrgetter(*compared)


def _lazy_init(self: Any, *args: Any, **kwargs: Any) -> None:
    """The first instance compiles the class's own `__init__`, which replaces this one."""
    cls = type(self)
    owner = next(c for c in cls.__mro__ if c.__dict__.get("__init__") is _lazy_init)
    owner.__init__ = _compiled_init(owner)  # type: ignore[misc]
    owner.__init__(self, *args, **kwargs)  # type: ignore[misc]


def _compiled_init(cls: type) -> Callable[..., None]:
    found: tuple[Field, ...] = cls.__record_fields__  # type: ignore[attr-defined]
    scope: dict[str, Any] = {"__set": object.__setattr__, "__missing": MISSING}
    params, body = [], []
    for spec in found:
        if spec.default_factory is not MISSING:
            scope[f"__factory_{spec.name}"] = spec.default_factory
            params.append(f"{spec.name}=__missing")
            value = f"__factory_{spec.name}() if {spec.name} is __missing else {spec.name}"
        elif spec.default is not MISSING:
            scope[f"__default_{spec.name}"] = spec.default
            params.append(f"{spec.name}=__default_{spec.name}")
            value = spec.name
        else:
            params.append(spec.name)
            value = spec.name
        body.append(f"    __set(self, {spec.name!r}, {value})")
    post = "    self.__post_init__()\n" if hasattr(cls, "__post_init__") else ""
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body or ["    pass"]) + "\n" + post
    exec(source, scope)  # noqa: S102 - the source is built from the class's own field names
    init: Callable[..., None] = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _repr(self: Any) -> str:
    inner = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in self.__record_fields__ if f.repr)
    return f"{type(self).__qualname__}({inner})"


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    key = self.__record_key__
    return key(self) == key(other)


def _refuse_set(self: Any, name: str, value: Any) -> None:
    from dataclasses import FrozenInstanceError  # only when a frozen record is misused

    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _refuse_delete(self: Any, name: str) -> None:
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, f.name) for f in self.__record_fields__)


def _setstate(self: Any, state: tuple[Any, ...]) -> None:
    for spec, value in zip(self.__record_fields__, state, strict=True):
        object.__setattr__(self, spec.name, value)
