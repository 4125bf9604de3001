"""The statistics of a release history: the change of a followed system between two
consecutive releases on one dataset × metric, recomputed from per-item data or read off
the stored intervals, and the multiplicity correction of one step. The history report
(:mod:`reportgen.report.history`) finds the data; the numbers come from here."""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from reportgen.errors import InputError
from reportgen.stats.multiplicity import adjust_pvalues, interval_plan
from reportgen.stats.pairwise import compare_paired, compare_unpaired
from reportgen.stats.summary_tests import z_test_from_intervals

__all__ = ["adjust_step", "change_from_intervals", "change_from_items"]


def change_from_items(
    before: tuple[Sequence[str], np.ndarray],
    after: tuple[Sequence[str], np.ndarray],
    *,
    modality: str | None,
    alpha: float,
    confidence: float,
    n_resamples: int,
    seed: int,
    key: Sequence[str],
) -> dict[str, Any]:
    """The change ``after − before`` from the per-item scores of the two releases:
    paired on the items when both were scored on the same items (at least 2), else
    unpaired, with the automatic test choice (no correction: see :func:`adjust_step`).

    ``before`` and ``after`` are ``(items, scores)``; NaN scores are left out. A binary
    metric whose scores are not all 0/1 (item means over repeated runs) is analysed as
    continuous. Resampling draws from a generator seeded by ``seed`` and the ``key``
    names (the releases, dataset and metric)."""
    (items_b, x_b), (items_a, x_a) = before, after
    x_a, x_b = np.asarray(x_a, dtype=float), np.asarray(x_b, dtype=float)
    if modality == "binary" and not np.isin(np.concatenate([x_a, x_b]), (0.0, 1.0, np.nan)).all():
        modality = "continuous"
    rng = np.random.default_rng(
        np.random.SeedSequence([seed, *(zlib.crc32(k.encode()) for k in key)])
    )
    common: dict[str, Any] = dict(
        systems=("after", "before"),
        modality=modality,
        method="auto",
        correction="none",
        alpha=alpha,
        confidence=confidence,
        n_resamples=n_resamples,
        rng=rng,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if set(items_a) == set(items_b) and len(items_a) >= 2:
            where = {item: i for i, item in enumerate(items_b)}
            order = np.array([where[item] for item in items_a])
            x = np.column_stack([x_a, x_b[order]])
            keep = ~np.isnan(x).any(axis=1)
            result = compare_paired(x[keep], **common)
        else:
            result = compare_unpaired([x_a[~np.isnan(x_a)], x_b[~np.isnan(x_b)]], **common)
    return {
        "method": "recomputed",
        "test": result.test,
        "source": "per-item data",
        "mean_before": float(result.mean_b[0]),
        "mean_after": float(result.mean_a[0]),
        "diff": float(result.diff[0]),
        "ci_low": float(result.ci_low[0]),
        "ci_high": float(result.ci_high[0]),
        "confidence": result.confidence,
        "p_value": float(result.p_value[0]),
        "paired": bool(result.paired),
    }


def change_from_intervals(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The change between two stored per-system rows (``mean``, ``ci_low``,
    ``ci_high``, ``confidence``) by the z test from their intervals
    (:func:`reportgen.stats.summary_tests.z_test_from_intervals`), or None when a row
    lacks them or the intervals have no width."""
    try:
        test = z_test_from_intervals(
            before["mean"],
            (before["ci_low"], before["ci_high"]),
            after["mean"],
            (after["ci_low"], after["ci_high"]),
            confidence_a=float(before.get("confidence") or 0.95),
            confidence_b=float(after.get("confidence") or 0.95),
        )
    except (KeyError, TypeError, InputError):
        return None
    if not np.isfinite(test.p_value):
        return None
    return {
        "method": "intervals",
        "test": "z test from the stored intervals (unpaired approximation)",
        "source": "results.json intervals",
        "mean_before": float(before["mean"]),
        "mean_after": float(after["mean"]),
        "diff": test.diff,
        "ci_low": test.ci_low,
        "ci_high": test.ci_high,
        "confidence": test.confidence,
        "p_value": test.p_value,
        "paired": False,
    }


def adjust_step(
    changes: Sequence[Mapping[str, Any]], correction: str, *, alpha: float
) -> list[tuple[float, float | None, float | None, float]]:
    """The changes of one step of the history (``diff``, ``p_value``, ``ci_low``,
    ``ci_high``, ``confidence``, two-sided) adjusted as one family: per change the
    adjusted p-value and the interval that agrees with it (it excludes 0 exactly when
    the adjusted p-value is at most ``alpha``,
    :func:`reportgen.stats.multiplicity.interval_plan`; its kind is the plan's) with
    the level of its bound toward 0."""
    p = np.asarray([float(c["p_value"]) for c in changes], dtype=float)
    adjusted = adjust_pvalues(p, method=correction)  # type: ignore[arg-type]
    # the family's decisions and intervals, labelled by kind (issue 41): step-down
    # corrections give a rejected change only its sign unless all are rejected
    plan = interval_plan(p, alpha=alpha, method=correction)  # type: ignore[arg-type]
    levels = plan.level

    def col(name: str) -> np.ndarray:
        return np.asarray(
            [np.nan if c.get(name) is None else float(c[name]) for c in changes], dtype=float
        )

    confidence = float(changes[0].get("confidence") or 0.95) if changes else 0.95
    low, high = plan.intervals(
        col("diff"),
        p,
        ci_low=col("ci_low"),
        ci_high=col("ci_high"),
        confidence=confidence,
    )
    return [
        (
            float(adjusted[k]),
            None if np.isnan(low[k]) else float(low[k]),
            None if np.isnan(high[k]) else float(high[k]),
            float(1.0 - levels[k]),
        )
        for k in range(len(changes))
    ]
