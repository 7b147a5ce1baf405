"""A report's results as typed records: a frozen dataclass per part, its JSON read by its fields.

A report (``tasks``, ``layers``) is a tree of small dataclasses whose typed fields are its
schema. A :class:`Record` has ``to_dict()`` (a field made with :func:`optional` is left out
while ``None``), ``to_json()`` (``from_dict(json.loads(text)).to_json() == text``),
``from_dict(data)`` (every field checked against its type, so a wrong, missing or unknown
value is refused with its place, ``tasks.sst5.arms.elmo.mean``, not met later as a
``KeyError`` in a figure) and ``read(path)``. Field types: ``int``, ``float``, ``str``,
``bool``, ``X | None``, ``list[X]``, ``tuple[X, ...]``, ``dict[str, X]``, another ``Record``,
and a ``NamedTuple`` of those.

Example:
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Score(Record):
    ...     mean: float  # percent, over seeds
    ...     runs: list[float]  # one per seed
    ...     note: str | None = optional()  # left out of the JSON when None
    >>> Score.from_dict({"mean": 50, "runs": [49.5, 50.5]}).to_dict()
    {'mean': 50, 'runs': [49.5, 50.5]}
    >>> Score.from_dict({"mean": "high", "runs": []})
    Traceback (most recent call last):
    ...
    elmo_tutorial.files.records.RecordFormatError: field mean: expected a number, got 'high' (str)
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from pathlib import Path
from typing import Any, ClassVar

__all__ = ["Record", "RecordFormatError", "optional"]

_OMIT = "omit_if_none"
_KINDS = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}


class RecordFormatError(ValueError):
    """Results that do not match their schema; the message names the field."""


def optional(default: Any = None) -> Any:
    """A field the JSON leaves out while it is ``None`` (and that is ``None`` when left out)."""
    return dataclasses.field(default=default, metadata={_OMIT: True})


class Record:
    """Base of a dataclass that is one part of a report (see the module docstring)."""

    JSON_INDENT: ClassVar[int] = 2  # the indent of to_json (a report may choose its own)

    def to_dict(self) -> dict:
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                  if not (getattr(self, f.name) is None and f.metadata.get(_OMIT))}
        return {name: _dump(value) for name, value in values.items()}

    def to_json(self) -> str:
        """The results file's text: the JSON of :meth:`to_dict`, ending in one newline."""
        return json.dumps(self.to_dict(), indent=self.JSON_INDENT) + "\n"

    @classmethod
    def from_dict(cls, data: Any, where: str = ""):
        """The record that ``data`` (parsed JSON) holds; ``where``: its place, for errors
        (:class:`RecordFormatError`, naming the field)."""
        return _load(cls, data, where)

    @classmethod
    def read(cls, path: str | Path):
        """The record in the JSON file ``path`` (:class:`RecordFormatError` if it is not)."""
        data = Path(path).read_bytes()
        try:  # RecordFormatError is a ValueError, as are "not UTF-8" and "not JSON"
            return cls.from_dict(json.loads(data))
        except ValueError as error:
            raise RecordFormatError(
                f"{path} does not hold a valid {cls.__name__}: {error}; write it again with "
                "the command that made it (or restore the committed one)") from None


def _dump(value: Any) -> Any:
    if isinstance(value, Record):
        return value.to_dict()
    if hasattr(value, "_asdict"):  # a NamedTuple: an object, like a record
        return {k: _dump(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [_dump(v) for v in value]
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    return value


def _fail(where: str, message: str) -> RecordFormatError:
    return RecordFormatError(f"field {where or '(the whole file)'}: {message}")


def _got(value: Any) -> str:
    text = repr(value)
    return f"got {text[:60]}{'...' if len(text) > 60 else ''} ({type(value).__name__})"


def _load(tp: Any, value: Any, where: str) -> Any:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (types.UnionType, typing.Union):  # X | None
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _load(inner, value, where)
    if tp in _KINDS:
        wanted = (int, float) if tp is float else tp
        if isinstance(value, bool) != (tp is bool) or not isinstance(value, wanted):
            raise _fail(where, f"expected {_KINDS[tp]}, {_got(value)}")
        return value
    if origin in (list, tuple):
        if not isinstance(value, list):
            raise _fail(where, f"expected a list, {_got(value)}")
        items = [_load(args[0], v, f"{where}[{i}]") for i, v in enumerate(value)]
        return items if origin is list else tuple(items)
    if origin is dict:
        if not isinstance(value, dict):
            raise _fail(where, f"expected an object, {_got(value)}")
        return {k: _load(args[1], v, f"{where}.{k}" if where else k) for k, v in value.items()}
    if isinstance(tp, type) and (dataclasses.is_dataclass(tp) or hasattr(tp, "_fields")):
        return _load_object(tp, value, where)
    raise TypeError(f"{where}: a record field cannot be of type {tp!r}")


def _load_object(cls: type, value: Any, where: str) -> Any:
    """A dataclass or NamedTuple from a JSON object, every field checked."""
    if not isinstance(value, dict):
        raise _fail(where, f"expected an object ({cls.__name__}), {_got(value)}")
    hints = typing.get_type_hints(cls)
    if dataclasses.is_dataclass(cls):
        names = [f.name for f in dataclasses.fields(cls)]
        omitted = {f.name for f in dataclasses.fields(cls) if f.metadata.get(_OMIT)}
    else:
        names, omitted = list(cls._fields), set(cls._field_defaults)
    unknown = [k for k in value if k not in names]
    if unknown:
        raise _fail(f"{where}.{unknown[0]}" if where else unknown[0],
                    f"not a field of {cls.__name__} (its fields: {', '.join(names)})")
    kwargs = {}
    for name in names:
        place = f"{where}.{name}" if where else name
        if name in value:
            kwargs[name] = _load(hints[name], value[name], place)
        elif name not in omitted:
            raise _fail(place, f"missing from {cls.__name__}")
    return cls(**kwargs)
