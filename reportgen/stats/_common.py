"""Small helpers shared by the statistics modules: names and JSON-ready numbers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from reportgen.errors import InputError

__all__ = ["PairsMixin", "finite_or_none", "system_names"]


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


class PairsMixin:
    """Accessors shared by the results that hold one row per compared pair: they need
    the fields ``systems``, ``index_a``, ``index_b``, ``p_adjusted``, ``alpha``."""

    systems: tuple[str, ...]
    index_a: np.ndarray
    index_b: np.ndarray
    p_adjusted: np.ndarray
    alpha: float

    @property
    def n_pairs(self) -> int:
        return len(self.index_a)

    @property
    def system_a(self) -> tuple[str, ...]:
        return tuple(self.systems[i] for i in self.index_a)

    @property
    def system_b(self) -> tuple[str, ...]:
        return tuple(self.systems[i] for i in self.index_b)

    def significant(self) -> np.ndarray:
        """``p_adjusted <= alpha`` (False where the p-value is NaN)."""
        return np.nan_to_num(self.p_adjusted, nan=2.0) <= self.alpha

    def with_adjusted(self, p_adjusted: np.ndarray, correction: str):
        """A copy whose adjusted p-values come from a larger family."""
        from dataclasses import replace
        return replace(self, p_adjusted=np.asarray(p_adjusted, dtype=np.float64),
                       correction=correction)
