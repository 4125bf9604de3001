"""The tests of one step of a release history, before and after its correction.

A change of the followed system between two consecutive releases on one dataset ×
metric is tested from the per-item data (:func:`change_from_items`) or, without them,
from the two stored intervals (:func:`change_from_intervals`); the tests of one step
are then adjusted together (:func:`adjust_step`), with intervals that agree with the
adjusted decisions. Each returns typed values (:class:`StepTest`, :class:`Interval`).

Examples
--------
>>> from reportgen.analysis.ledger import Standing
>>> before = Standing("m-v1", 0.50, 0.45, 0.55, 400, confidence=0.95)
>>> after = Standing("m-v2", 0.58, 0.53, 0.63, 400, confidence=0.95)
>>> test = change_from_intervals(before, after, confidence=0.95)
>>> test.method, round(test.diff, 3), round(test.p_value, 4)
('intervals', 0.08, 0.0266)
>>> [(round(p, 4), ci.kind) for p, ci in adjust_step([test], "holm-sidak", alpha=0.05)]
[(0.0266, 'unadjusted')]
"""

from __future__ import annotations

import functools
import math
import warnings
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from reportgen.analysis.ledger.claims import Interval
from reportgen.errors import InputError
from reportgen.stats.multiplicity import adjust_pvalues, interval_plan
from reportgen.stats.pairwise import compare_paired, compare_unpaired
from reportgen.stats.summary_tests import z_test_from_intervals

if TYPE_CHECKING:
    from reportgen.analysis.ledger import Standing
    from reportgen.data import ScoreTable

__all__ = [
    "ChangeMethod",
    "StepTest",
    "adjust_step",
    "change_from_intervals",
    "change_from_items",
    "item_scores",
]

#: Where a change's test comes from: a report's stored comparison or verdict, the
#: per-item data tested again, or the two stored intervals.
ChangeMethod = Literal["stored", "recomputed", "intervals"]


@dataclass(frozen=True)
class StepTest:
    """A change ``after − before`` tested alone, before the step's correction.

    Attributes
    ----------
    method
        ``"recomputed"`` (from the per-item data) or ``"intervals"`` (from the stored
        intervals); ``"stored"`` for a stored comparison read back.
    test
        The test's name (``paired t``, ``exact McNemar``, ...).
    source
        Where the numbers come from, for the reader.
    mean_before, mean_after, diff
        The two means and their difference ``after − before`` on the metric's scale.
    marginal
        The unadjusted interval of ``diff``, which goes with ``p_value``.
    p_value
        The raw two-sided p-value.
    paired
        Whether the two releases were compared on the same items (None: unknown).
    """

    method: ChangeMethod
    test: str
    source: str
    mean_before: float | None
    mean_after: float | None
    diff: float | None
    marginal: Interval
    p_value: float | None
    paired: bool | None


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def item_scores(
    table: ScoreTable, system: str, dataset: str, metric: str
) -> tuple[tuple[str, ...], np.ndarray] | None:
    """The per-item scores of ``system`` on ``dataset`` × ``metric`` in ``table``
    (items, scores; the item mean over repeated runs), or None when it has none."""
    if (dataset, metric) not in set(table.pairs()) or system not in table.systems_of(
        dataset, metric
    ):
        return None
    samples = table.unpaired(dataset, metric, [system])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an item with no run: NaN
        scores = samples.item_means()[0]
    return tuple(samples.items[0]), np.asarray(scores, dtype=float)


def change_from_items(
    before: tuple[Sequence[str], np.ndarray],
    after: tuple[Sequence[str], np.ndarray],
    *,
    modality: str | None,
    alpha: float,
    confidence: float,
    n_resamples: int,
    seed: int | None,
    key: Sequence[str],
) -> StepTest:
    """The change ``after − before`` from the per-item scores of the two releases:
    paired on the items when both were scored on the same items (at least 2), else
    unpaired, with the automatic test choice (no correction: see :func:`adjust_step`).

    ``before`` and ``after`` are ``(items, scores)``; NaN scores are left out. A binary
    metric whose scores are not all 0/1 (item means over repeated runs) is analysed as
    continuous. Resampling draws from a generator seeded by ``seed`` (the later
    report's) and the ``key`` names (the releases, dataset and metric)."""
    (items_b, x_b), (items_a, x_a) = before, after
    x_a, x_b = np.asarray(x_a, dtype=float), np.asarray(x_b, dtype=float)
    if modality == "binary" and not np.isin(np.concatenate([x_a, x_b]), (0.0, 1.0, np.nan)).all():
        modality = "continuous"
    entropy = [] if seed is None else [int(seed)]
    rng = np.random.default_rng(
        np.random.SeedSequence([*entropy, *(zlib.crc32(k.encode()) for k in key)])
    )
    mode: Literal["binary", "continuous"] | None = (
        "binary" if modality == "binary" else "continuous" if modality == "continuous" else None
    )
    if set(items_a) == set(items_b) and len(items_a) >= 2:
        where = {item: i for i, item in enumerate(items_b)}
        order = np.array([where[item] for item in items_a])
        x = np.column_stack([x_a, x_b[order]])
        compare = functools.partial(compare_paired, x[~np.isnan(x).any(axis=1)])
    else:
        compare = functools.partial(compare_unpaired, [x_a[~np.isnan(x_a)], x_b[~np.isnan(x_b)]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = compare(
            systems=("after", "before"),
            modality=mode,
            method="auto",
            correction="none",
            alpha=alpha,
            confidence=confidence,
            n_resamples=n_resamples,
            rng=rng,
        )
    return StepTest(
        "recomputed",
        result.test,
        "per-item data",
        _finite(float(result.mean_b[0])),
        _finite(float(result.mean_a[0])),
        _finite(float(result.diff[0])),
        Interval(
            _finite(float(result.ci_low[0])),
            _finite(float(result.ci_high[0])),
            float(result.confidence),
        ),
        _finite(float(result.p_value[0])),
        bool(result.paired),
    )


def change_from_intervals(
    before: Standing, after: Standing, *, confidence: float
) -> StepTest | None:
    """The change between two stored means with their intervals by the z test from
    the intervals (:func:`reportgen.stats.summary_tests.z_test_from_intervals`: standard
    errors from the half-widths, the means treated as independent), or None when
    either lacks a mean or an interval, or the intervals have no width.

    ``confidence`` is the level of an interval whose own level was not stored (the
    declared default, :func:`reportgen.config.default`)."""
    if None in (before.mean, before.ci_low, before.ci_high) or None in (
        after.mean,
        after.ci_low,
        after.ci_high,
    ):
        return None
    try:
        test = z_test_from_intervals(
            float(before.mean),  # type: ignore[arg-type]
            (float(before.ci_low), float(before.ci_high)),  # type: ignore[arg-type]
            float(after.mean),  # type: ignore[arg-type]
            (float(after.ci_low), float(after.ci_high)),  # type: ignore[arg-type]
            confidence_a=before.confidence or confidence,
            confidence_b=after.confidence or confidence,
        )
    except InputError:
        return None
    if not np.isfinite(test.p_value):
        return None
    return StepTest(
        "intervals",
        "z test from the stored intervals (unpaired approximation)",
        "results.json intervals",
        before.mean,
        after.mean,
        float(test.diff),
        Interval(float(test.ci_low), float(test.ci_high), float(test.confidence)),
        float(test.p_value),
        False,
    )


def adjust_step(
    tests: Sequence[StepTest], correction: str, *, alpha: float
) -> list[tuple[float | None, Interval]]:
    """The tests of one step of the history adjusted as one family with ``correction``
    at ``alpha``: per test the adjusted p-value and the interval that agrees with it
    (it excludes 0 exactly when the adjusted p-value is at most ``alpha``), made by the
    family's plan (:func:`reportgen.stats.multiplicity.interval_plan`: step-down
    compatible for Holm and Holm-Šidák, a rejected change getting only its sign unless
    all are rejected; simultaneous for Bonferroni and Šidák; FCR for BH and BY;
    unadjusted in a family of one), with the level of its bound toward 0 and its kind.

    The marginal intervals are carried to each test's decision level from the first
    test's level (one step's tests share the later report's confidence)."""
    if not tests:
        return []
    p = np.asarray([np.nan if t.p_value is None else t.p_value for t in tests], dtype=float)
    adjusted = adjust_pvalues(p, method=correction)  # type: ignore[arg-type]
    plan = interval_plan(p, alpha=alpha, method=correction)  # type: ignore[arg-type]
    levels = plan.level

    def col(values: Sequence[float | None]) -> np.ndarray:
        return np.asarray([np.nan if v is None else v for v in values], dtype=float)

    confidence = tests[0].marginal.level or (1.0 - alpha)
    low, high = plan.intervals(
        col([t.diff for t in tests]),
        p,
        ci_low=col([t.marginal.low for t in tests]),
        ci_high=col([t.marginal.high for t in tests]),
        confidence=confidence,
    )
    kind = plan.kind
    out = []
    for k in range(len(tests)):
        level = None if np.isnan(levels[k]) else float(1.0 - levels[k])
        out.append(
            (
                None if np.isnan(adjusted[k]) else float(adjusted[k]),
                Interval(
                    None if np.isnan(low[k]) else float(low[k]),
                    None if np.isnan(high[k]) else float(high[k]),
                    level,
                    kind,
                    level if kind == "unadjusted" else 1.0 - alpha,
                    correction,
                ),
            )
        )
    return out
