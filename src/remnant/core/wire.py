"""The JSON form of the engine's dataclasses, read and written from their fields (one rule for all).

:func:`dump` turns a result (a :class:`~remnant.engine.results.ForgetResult`, a
:class:`~remnant.core.model.MemoryRecord`, …) into JSON-ready values field by field; :func:`load`
builds the dataclass back from such JSON, guided by its type hints. Neither names a field, so a field
added to a result type reaches the REST and MCP answers (whose schemas are derived from the same
fields, :mod:`remnant.server.schemas`) and the clients that read them without another edit.

Conventions, the same both ways: datetimes are ISO-8601 strings, enums their values, tuples JSON
arrays, and a float field's infinity is ``null`` (JSON has none: a memory that never fades).
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Hashable, Mapping
from datetime import datetime
from enum import Enum
from functools import cache
from typing import Any, Literal, TypeVar, Union

T = TypeVar("T")


def dump(value: Any) -> Any:
    """``value`` as JSON-ready data: dataclasses by their fields, recursively."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: dump(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, float) and math.isinf(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): dump(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [dump(v) for v in value]
    return value


def hints(cls: type) -> dict[str, Any]:
    """The resolved type hints of a dataclass's fields (annotations are strings in this package)."""
    return _hints(cls)


@cache
def _hints(cls: Hashable) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def load(tp: Any, data: Any) -> Any:
    """A value of type ``tp`` from its JSON form (the inverse of :func:`dump`).

    A dataclass is built from the keys that name its fields; other keys (a computed ``total``, a
    ``matched`` count) are ignored, and a missing key takes the field's default.
    """
    if tp is Any:
        return data
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is Union or origin is types.UnionType:
        if data is None and type(None) in args:
            return None
        rest = [a for a in args if a is not type(None)]
        return load(rest[0], data) if len(rest) == 1 else data
    if origin is Literal:
        return data
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(load(args[0], v) for v in data)
        return tuple(load(a, v) for a, v in zip(args, data, strict=True))
    if origin in (list, set, frozenset):
        return origin(load(args[0], v) for v in data) if args else origin(data)
    if origin in (dict, Mapping) or tp is dict:
        value_type = args[1] if len(args) == 2 else Any
        return {k: load(value_type, v) for k, v in data.items()}
    if isinstance(tp, type):
        if dataclasses.is_dataclass(tp):
            return _load_dataclass(tp, data)
        if issubclass(tp, datetime):
            return datetime.fromisoformat(data) if isinstance(data, str) else data
        if issubclass(tp, Enum):
            return tp(data)
        if tp is float:
            return math.inf if data is None else float(data)
        if tp is int and not isinstance(data, bool):
            return int(data)
    return data


def _load_dataclass(cls: type[T], data: Mapping[str, Any]) -> T:
    if not isinstance(data, Mapping):
        raise TypeError(f"{cls.__name__} needs a JSON object, got {type(data).__name__}")
    types_ = hints(cls)
    kw = {
        f.name: load(types_[f.name], data[f.name])
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.init and f.name in data
    }
    return cls(**kw)


def field_names(cls: type) -> tuple[str, ...]:
    """The names of a dataclass's fields, in order."""
    return tuple(f.name for f in dataclasses.fields(cls))
