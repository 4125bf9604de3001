"""The vocabularies, input checks and small helpers (minimum ranks, quantiles of counts)
shared by the ranking routines.

Private to :mod:`reportgen.stats.ranking`, which re-exports the public names.

Examples
--------
Competition ranks, rank 1 the best; tied systems share the better rank:

>>> _min_ranks(np.array([0.7, 0.9, 0.7]), "higher").tolist()
[2, 1, 2]
>>> _min_ranks(np.array([0.7, 0.9, 0.7]), "lower").tolist()
[1, 3, 1]
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import numpy as np

from reportgen.errors import InputError

Direction = Literal["higher", "lower"]


RankIntervalMethod = Literal["tukey", "bonferroni", "sidak"]


_Order = Literal["all-pairs", "first-vs-rest", "successive"]


_Alternative = Literal["two-sided", "greater", "less"]


def _direction_iv(direction: str) -> Direction:
    if direction not in get_args(Direction):
        raise InputError(
            f"direction={direction!r} is not valid",
            hint="use 'higher' (higher scores are better) or 'lower'",
        )
    return direction  # type: ignore[return-value]


def _confidence_iv(confidence: float) -> float:
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, (int, float, np.floating))
        or not 0 < confidence < 1
    ):
        raise InputError(
            f"confidence={confidence!r} must be between 0 and 1 (exclusive)",
            hint="0.95 gives 95% intervals",
        )
    return float(confidence)


def _positive_int_iv(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"{name}={value!r} must be a positive integer")
    return int(value)


def _min_ranks(values: np.ndarray, direction: Direction) -> np.ndarray:
    """Competition ("min") ranks along the last axis, rank 1 = best: one plus the number
    of values strictly better (``scipy.stats.rankdata(key, method="min", axis=-1)``,
    computed from one stable sort)."""
    key = np.asarray(-values if direction == "higher" else values)
    order = np.argsort(key, axis=-1, kind="stable")
    ordered = np.take_along_axis(key, order, axis=-1)
    position = np.broadcast_to(np.arange(key.shape[-1], dtype=np.int64), key.shape)
    starts = np.ones(key.shape, dtype=bool)
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=-1)
    ranks = np.empty(key.shape, dtype=np.int64)
    np.put_along_axis(ranks, order, first + 1, axis=-1)
    return ranks


def average_ranks(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """Ranks along ``axis``, 1 for the smallest, tied values sharing the mean of their
    positions (``scipy.stats.rankdata(values, axis=axis)``, method "average": the same
    values, halves exact in float64), from one stable sort."""
    moved = np.moveaxis(np.asarray(values), axis, -1)
    order = np.argsort(moved, axis=-1, kind="stable")
    ordered = np.take_along_axis(moved, order, axis=-1)
    size = moved.shape[-1]
    position = np.broadcast_to(np.arange(size, dtype=np.int64), moved.shape)
    starts = np.ones(moved.shape, dtype=bool)
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=-1)
    ends = np.ones(moved.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    last = np.flip(
        np.minimum.accumulate(np.flip(np.where(ends, position, size), axis=-1), axis=-1), axis=-1
    )
    ranks = np.empty(moved.shape, dtype=np.float64)
    np.put_along_axis(ranks, order, (first + last) / 2.0 + 1.0, axis=-1)
    return np.moveaxis(ranks, -1, axis)


def _quantile_from_counts(counts: np.ndarray, p: float) -> np.ndarray:
    """Smallest rank r with F(r) >= p for each row of rank counts (the inverted-CDF
    quantile of a discrete distribution; ranks are 1-based)."""
    cum = np.cumsum(counts, axis=1)
    total = cum[:, -1:]
    # integer counts: compare cum >= p * total with a guard against rounding of p * total
    reached = cum >= p * total - 1e-9 * total
    return np.argmax(reached, axis=1).astype(np.int64) + 1
