"""The base of every answer's model (decision PY30, issue 49).

A model holds the JSON object as decoded (`_data`, its only slot); the generated subclasses in `models.py` add a
typed read-only property per field, which reads its key when asked and wraps a nested object (or list of objects)
in its model. Nothing is copied or checked when an answer arrives, so a field the contract does not know yet stays
in `to_dict()`.
"""

from __future__ import annotations

import copy
import json
import warnings
from typing import Any, Dict, Sequence, Tuple, Type, TypeVar

M = TypeVar("M", bound="Model")

_DEPRECATED = "indexing a model ({name}[{key!r}]) is deprecated and goes in the next release: use the attribute, or to_dict()[{key!r}]"


class Model:
    """An object of an answer: attributes per field, `to_dict()`, `to_json()`, `==` (same class and JSON, or the
    JSON as a dict), pickling. `model["field"]` (the 1.x dict access) still works for this release with a `DeprecationWarning`."""

    __slots__ = ("_data",)
    _data: Dict[str, Any]

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data

    def to_dict(self) -> Dict[str, Any]:
        """The object as it came (a deep copy): every field, those the contract does not know yet included."""
        return copy.deepcopy(self._data)

    def to_json(self, *, indent: int | None = None) -> str:
        """The object as JSON text."""
        return json.dumps(self._data, indent=indent, ensure_ascii=False)

    def __eq__(self, other: object) -> bool:
        # Equal to a model of its class with the same JSON, and (as pages, and as the 1.x dicts were) to that
        # JSON as a dict, so `answer == {...}` keeps its meaning.
        if isinstance(other, Model):
            return type(self) is type(other) and self._data == other._data
        if isinstance(other, dict):
            return self._data == other
        return NotImplemented

    def __hash__(self) -> int:
        raise TypeError(f"unhashable type: {type(self).__name__!r}")  # it compares equal to a dict

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._data!r})"

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self._data,))

    def __getitem__(self, key: str) -> Any:
        warnings.warn(_DEPRECATED.format(name=type(self).__name__.lower(), key=key), DeprecationWarning, stacklevel=2)
        return self._data[key]

    def get(self, key: str, default: Any = None) -> Any:
        """Deprecated like `model[key]`: the raw JSON value of `key`."""
        warnings.warn(_DEPRECATED.format(name=type(self).__name__.lower(), key=key), DeprecationWarning, stacklevel=2)
        return self._data.get(key, default)

    def __contains__(self, key: str) -> bool:
        warnings.warn(_DEPRECATED.format(name=type(self).__name__.lower(), key=key), DeprecationWarning, stacklevel=2)
        return key in self._data


def pick(data: Dict[str, Any], options: Sequence[Tuple[Type[Model], Sequence[str]]]) -> Model:
    """The model of a union without a discriminator: the first variant whose required keys `data` has (else the
    first variant)."""
    for model, required in options:
        if all(k in data for k in required):
            return model(data)
    return options[0][0](data)
