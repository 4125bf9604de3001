"""Small helpers shared by the statistics modules: names and JSON-ready numbers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from reportgen.errors import InputError

__all__ = ["finite_or_none", "system_names"]


def system_names(systems: Sequence[str] | str | None, count: int, *,
                 prefix: str = "system",
                 hint: str = "give one name per system") -> tuple[str, ...]:
    """The names of ``count`` systems: ``systems`` checked (right number, distinct), or
    ``"system 1"``, ``"system 2"``, ... when it is None."""
    if systems is None:
        return tuple(f"{prefix} {i + 1}" for i in range(count))
    if isinstance(systems, str):
        systems = [systems]
    names = tuple(str(s) for s in systems)
    if len(names) != count:
        raise InputError(f"{len(names)} system names for {count} systems", hint=hint)
    if len(set(names)) != len(names):
        raise InputError("system names must be distinct")
    return names


def finite_or_none(value: Any) -> float | None:
    """``float(value)``, or None for NaN (results are written as JSON without NaN)."""
    value = float(value)
    return None if math.isnan(value) else value
