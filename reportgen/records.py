"""The one serialisation of result records: every result class of the stats, data and
analysis layers builds its ``to_records``/``to_dict`` (and reads its ``from_dict``) with
these helpers, so a record has one shape everywhere and a new result needs no loop of its
own.

- :func:`columns_to_records`: rows from named columns, one value per row or one value
  repeated in every row (the per-pair, per-system and per-group tables of the stats
  results). The columns are converted once, vectorised: :func:`floats` (NaN as None),
  :func:`ints`, :func:`bools`, :func:`optional`.
- :func:`fields_record`: the fields of a frozen dataclass as a JSON-ready dict (numpy
  values as Python ones, NaN as None, tuples as lists, nested records as their dicts).
- :func:`from_record`: the dataclass of such a dict; unknown keys are ignored and missing
  ones take their defaults (a row of an older reportgen), lists become the tuples the
  fields hold.

Every helper keeps values bit for bit: a float column gives the same Python floats as
``float(x)`` on each element, so ``results.json`` reads the same whichever path made it.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "bools",
    "columns_to_records",
    "fields_record",
    "floats",
    "from_record",
    "ints",
    "nonempty",
    "optional",
    "plain",
]

T = TypeVar("T")


def floats(values: Any, *, nan_as_none: bool = True) -> list[float | None]:
    """Per-row floats of ``values`` (any array-like), NaN as None (or kept, with
    ``nan_as_none=False``, for columns that cannot hold NaN)."""
    out = np.asarray(values, dtype=np.float64).ravel().tolist()
    return [None if v != v else v for v in out] if nan_as_none else out


def ints(values: Any) -> list[int]:
    """Per-row ints of ``values`` (integers, or floats holding whole numbers)."""
    return np.asarray(values).astype(np.int64).ravel().tolist()


def bools(values: Any) -> list[bool]:
    """Per-row bools of ``values``."""
    return np.asarray(values, dtype=bool).ravel().tolist()


def nonempty(values: Iterable[Any]) -> list[Any]:
    """Per-row values of ``values`` with the empty ones (``""``, None) as None."""
    return [v or None for v in values]


def optional(convert: Callable[[Any], list[Any]], values: Any, n: int) -> list[Any]:
    """``convert(values)``, or ``n`` Nones when ``values`` is None (an optional column
    of a result, e.g. the discordant counts that only paired binary tests have)."""
    return [None] * n if values is None else convert(values)


def columns_to_records(columns: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One dict per row, keys in the order of ``columns``.

    A column is a list, tuple or numpy array (one value per row: the converted columns
    of :func:`floats`, :func:`ints`, :func:`bools`, :func:`nonempty`, :func:`optional`, a
    tuple of names, or an array of Python-ready values such as strings); any other
    value (a string, number, bool or None) is repeated in every row. Every column has
    the same length.

    Examples
    --------
    >>> columns_to_records({"system": ("a", "b"), "mean": floats([0.5, float("nan")]),
    ...                     "alpha": 0.05})
    [{'system': 'a', 'mean': 0.5, 'alpha': 0.05}, {'system': 'b', 'mean': None, 'alpha': 0.05}]
    """
    per_row = {
        k: v.tolist() if isinstance(v, np.ndarray) else v
        for k, v in columns.items()
        if isinstance(v, (list, tuple, np.ndarray))
    }
    lengths = {len(v) for v in per_row.values()}
    if len(lengths) > 1:
        raise ValueError(
            "columns of different lengths: "
            + ", ".join(f"{k}={len(v)}" for k, v in per_row.items())
        )
    n = lengths.pop() if lengths else 0
    keys = list(columns)
    cells = [per_row[k] if k in per_row else (columns[k],) * n for k in keys]
    return [dict(zip(keys, row)) for row in zip(*cells)]


def plain(value: Any) -> Any:
    """``value`` as a JSON-ready Python value: numpy scalars and arrays as Python ones,
    NaN as None, tuples as lists, records (anything with ``to_dict``) as their dicts,
    mappings with their values converted."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return plain(value.item())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return value


def fields_record(obj: Any, *, exclude: Sequence[str] = (), convert: bool = True) -> dict[str, Any]:
    """The fields of the dataclass ``obj`` in declaration order (less ``exclude``), each
    made JSON-ready by :func:`plain` (or as they are, with ``convert=False``, for
    records whose fields are plain already)."""
    skip = set(exclude)
    return {
        f.name: plain(getattr(obj, f.name)) if convert else getattr(obj, f.name)
        for f in dataclasses.fields(obj)
        if f.name not in skip
    }


def _is_tuple_type(hint: Any) -> bool:
    if typing.get_origin(hint) is tuple or hint is tuple:
        return True
    return any(_is_tuple_type(h) for h in typing.get_args(hint) if h is not type(None))


@functools.cache
def _field_kinds(cls: type) -> tuple[tuple[str, bool], ...]:
    """Each field's name and whether it holds a tuple (read once per class)."""
    hints = typing.get_type_hints(cls)
    return tuple((f.name, _is_tuple_type(hints.get(f.name))) for f in dataclasses.fields(cls))


def from_record(cls: type[T], row: Mapping[str, Any], **overrides: Any) -> T:
    """The dataclass ``cls`` of the dict ``row`` (as :func:`fields_record` wrote it):
    keys that are not fields are ignored, missing fields take their defaults, lists
    become tuples where the field holds a tuple; ``overrides`` win over ``row``."""
    values: dict[str, Any] = {}
    kind: type = cls
    for name, is_tuple in _field_kinds(kind):
        if name in overrides:
            values[name] = overrides[name]
        elif name in row:
            value = row[name]
            values[name] = tuple(value) if is_tuple and isinstance(value, list) else value
    return cls(**values)
