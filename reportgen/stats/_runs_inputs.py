"""Validation of the inputs of the repeated-runs and cluster statistics (scores, confidence,
resampling options) and the ratio metric applied to per-item sums.

Private to :mod:`reportgen.stats.runs`.

Examples
--------
The default metric is the mean: the first sum over the second (a count of 1 per score):

>>> _ratio_metric(np.array([[6.0, 8.0], [1.0, 4.0]])).tolist()
[0.75, 0.25]
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from reportgen.errors import InputError

Distribution = Literal["t", "normal"]


BootstrapMethod = Literal["percentile", "bca"]


WidthMethod = Literal["pooled", "cluster"]


Metric = Callable[[np.ndarray], np.ndarray]


def _confidence_iv(confidence: Any) -> float:
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, (int, float, np.floating))
        or not 0 < confidence < 1
    ):
        raise InputError(
            f"confidence={confidence!r} must be between 0 and 1 (exclusive)",
            hint="e.g. confidence=0.95 for a 95% interval",
        )
    return float(confidence)


def _choice_iv(name: str, value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise InputError(
            f"{name}={value!r} is not valid", hint=f"use one of: {', '.join(map(repr, choices))}"
        )
    return str(value)


def _resampling_iv(
    n_resamples: Any, max_memory: Any, rng: Any
) -> tuple[int, int, np.random.Generator]:
    if (
        isinstance(n_resamples, bool)
        or not isinstance(n_resamples, (int, np.integer))
        or n_resamples < 1
    ):
        raise InputError(
            f"n_resamples={n_resamples!r} must be a positive integer",
            hint="9999 is a good default; at least 4000 bootstrap resamples are "
            "advised (clawRxiv 2604.01973)",
        )
    if (
        isinstance(max_memory, bool)
        or not isinstance(max_memory, (int, np.integer))
        or max_memory < 2**20
    ):
        raise InputError(
            f"max_memory={max_memory!r} must be an integer of at least 1 MiB (1048576 bytes)"
        )
    try:
        generator = np.random.default_rng(rng)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"rng={rng!r} is not a numpy Generator or a seed",
            hint="pass numpy.random.default_rng(seed), an int seed or None",
        ) from exc
    return int(n_resamples), int(max_memory), generator


def _float_array(values: Any, name: str) -> np.ndarray:
    try:
        X = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"{name} must be numeric", hint="pass a numpy array of floats (NaN for a missing run)"
        ) from exc
    if np.isinf(X).any():
        raise InputError(
            f"{name} contains infinite values",
            hint="scores must be finite; use NaN for a missing run",
        )
    return X


def _scores_iv(scores: Any, name: str = "scores") -> np.ndarray:
    """``(n_items, n_runs)`` or ``(n_items, n_systems, n_runs)`` -> 3-D
    ``(n_items, n_systems, n_runs)``."""
    X = _float_array(scores, name)
    if X.ndim == 2:
        X = X[:, None, :]
    elif X.ndim != 3:
        raise InputError(
            f"{name} must be (n_items, n_runs) or (n_items, n_systems, n_runs), got shape "
            f"{X.shape}",
            hint="PairedSamples.scores of a dataset with a 'run' column has "
            "this shape; for one run per item add a runs axis of 1",
        )
    if X.shape[2] < 1:
        raise InputError(f"{name} has no runs (shape {X.shape})")
    return X


def _check_metric(metric: Metric | None) -> Metric:
    if metric is None:
        return _ratio_metric
    if not callable(metric):
        raise InputError(
            f"metric={metric!r} is not callable",
            hint="pass a function from summed statistics (..., k) to the "
            "metric value (...), e.g. lambda s: s[..., 0] / s[..., 1]",
        )
    return metric


def _ratio_metric(sums: np.ndarray) -> np.ndarray:
    """The default metric: ``sums[..., 0] / sums[..., 1]`` (a mean from (score, 1))."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums[..., 0] / sums[..., 1]


def _apply_metric(metric: Metric, sums: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.asarray(metric(sums), dtype=np.float64)
    if out.shape != sums.shape[:-1]:
        raise InputError(
            f"metric returned shape {out.shape} for sums of shape {sums.shape}",
            hint="the metric must reduce only the last axis: (..., k) -> (...), "
            "e.g. lambda s: 2 * s[..., 0] / (2 * s[..., 0] + s[..., 1] + "
            "s[..., 2]) for F1 from (tp, fp, fn)",
        )
    return out


def _percentile_interval(reps: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = (1 - confidence) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns give NaN
        low, high = np.nanpercentile(reps, [100 * alpha, 100 * (1 - alpha)], axis=0)
    return low, high
