"""Caveats of a dataset × metric where the calibration suite found a method off its
nominal level (the validation document of the repository, "Warnings the reports should
carry").

Each function looks at the data and the results of one unit and returns sentences (plain
text) for the settings where the simulation showed a test too liberal or an interval too
narrow; an empty list otherwise. The thresholds flag the settings the calibration tables
put outside the Monte Carlo bounds, not every departure from normality.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from reportgen.plaintext import count

if TYPE_CHECKING:
    from reportgen.analysis.results import UnitResult

__all__ = ["SKEW_LIMIT", "list_caveats", "moments", "runs_caveats"]

#: |sample skewness| above which small samples make t-type p-values too small.
SKEW_LIMIT = 2.0
#: Fewer items than this with skewed scores: p-values near α are unreliable.
SKEW_ITEMS = 100
#: Fewer items than this: bootstrap tests and intervals are too liberal.
BOOTSTRAP_ITEMS = 30
#: Pearson kurtosis above this (normal: 3): BCa intervals under-cover.
KURTOSIS_LIMIT = 6.0
#: Fewer items than this: corpus-metric (F1) intervals are approximate.
CORPUS_ITEMS = 50
#: Group sizes and SDs both differing by more than this factor: the unpaired
#: permutation test is not a test of means.
BEHRENS_RATIO = 1.5


def moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sample skewness and Pearson kurtosis of each column, NaN omitted (NaN where
    undefined): ``scipy.stats.skew(x, axis=0, nan_policy="omit")`` and
    ``scipy.stats.kurtosis(x, axis=0, fisher=False, nan_policy="omit")``, computed as
    scipy computes them (the same bits) without importing scipy.stats. Both are
    scale-free, so the scores are divided by a power of two first (exact): the same
    diagnosis for scores of 1e-300 and 1e300 (their fourth powers would under- or
    overflow)."""
    from reportgen.stats._degenerate import power_of_two_scale

    x = np.asarray(x, dtype=np.float64)
    x = x / power_of_two_scale(x)
    with np.errstate(all="ignore"):
        if not np.isnan(x).any():
            skew, kurt = _biased_moments(np.moveaxis(x, 0, -1))
        else:
            columns = x.reshape(len(x), -1).T
            pairs = [_biased_moments(c[~np.isnan(c)]) for c in columns]
            skew = np.array([p[0] for p in pairs]).reshape(x.shape[1:])
            kurt = np.array([p[1] for p in pairs]).reshape(x.shape[1:])
    return np.atleast_1d(np.asarray(skew, dtype=float)), np.atleast_1d(
        np.asarray(kurt, dtype=float)
    )


def _biased_moments(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:math:`m_3 / m_2^{3/2}` and :math:`m_4 / m_2^2` along the last axis, NaN where
    :math:`m_2` is zero to rounding (scipy's ``skew``/``kurtosis`` with ``bias=True``,
    in their order of operations); NaN for an empty slice."""
    if a.shape[-1] == 0:
        nan = np.full(a.shape[:-1], np.nan)
        return nan, nan
    mean = np.mean(a, axis=-1, keepdims=True)
    d = a - mean
    square = d**2
    m2 = np.mean(square, axis=-1)
    m3 = np.mean(square * d, axis=-1)
    m4 = np.mean(square**2, axis=-1)
    zero = m2 <= (np.finfo(np.float64).eps * np.squeeze(mean, axis=-1)) ** 2
    return np.where(zero, np.nan, m3 / m2**1.5), np.where(zero, np.nan, m4 / m2**2.0)


def _worst(values: np.ndarray) -> float:
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size else float("nan")


def list_caveats(table: Any, unit: UnitResult) -> list[str]:
    """Caveats of one dataset × metric.

    Parameters
    ----------
    table
        The :class:`reportgen.data.ScoreTable` the unit comes from.
    unit
        Its results (with comparisons; none without).
    """
    from reportgen.stats.pairwise import PairwiseResult

    result = unit.comparisons
    if result is None:
        return []
    if unit.modality == "corpus":
        n = unit.n_items
        if 0 < n < CORPUS_ITEMS:
            return [
                f"Only {count(n, 'item')}: the intervals of corpus metrics such as F1 are "
                f"approximate below about {CORPUS_ITEMS} items."
            ]
        return []
    if unit.modality != "continuous" or not isinstance(result, PairwiseResult):
        return []
    ci_methods = [unit.ci_method]
    names = list(result.systems)
    out: list[str] = []
    test = result.test
    if unit.pairing == "paired":
        X = table.paired(unit.dataset, unit.metric, names).item_means()
        n = X.shape[0]
        D = X[:, result.index_a] - X[:, result.index_b]
        skew_d, _ = moments(D)
        skew_x, kurt_x = moments(X)
        skew = max(_worst(skew_d), _worst(skew_x))
        sizes = [n]
    else:
        samples = table.unpaired(unit.dataset, unit.metric, names).item_means()
        sizes = [len(x) for x in samples]
        n = min(sizes)
        per_system = [moments(np.asarray(x, dtype=float)) for x in samples]
        skew = _worst(np.array([m[0][0] for m in per_system]))
        kurt_x = np.array([m[1][0] for m in per_system])
    if n < SKEW_ITEMS and np.isfinite(skew) and skew > SKEW_LIMIT:
        out.append(
            f"The scores or their differences are strongly skewed (|skewness| up to "
            f"{skew:.1f}) and there are only {count(n, 'item')}: p-values near α are "
            "unreliable (too small) and intervals too narrow below about "
            f"{SKEW_ITEMS} items."
        )
    boot_ci = any(
        "bootstrap" in m.lower() or "bca" in m.lower() or "percentile" in m.lower()
        for m in ci_methods
    )
    # the null-shifted bootstrap test (method="bootstrap"), not the studentized
    # bootstrap that only confirms a skewed t test's rejections (its name says bootstrap)
    boot_test = result.method == "bootstrap"
    if n < BOOTSTRAP_ITEMS and (boot_test or boot_ci):
        what = (
            "bootstrap p-values are too small and bootstrap intervals too narrow"
            if boot_test
            else "bootstrap intervals are too narrow"
        )
        out.append(
            f"Only {count(n, 'item')}: {what} below about {BOOTSTRAP_ITEMS} items (about "
            f"90% coverage at n = 10); the t interval (--ci-method t) and the t test "
            "are calibrated there."
        )
    if any("bca" in m.lower() for m in ci_methods):
        worst = _worst(kurt_x)
        if np.isfinite(worst) and worst > KURTOSIS_LIMIT:
            out.append(
                f"The scores are heavy-tailed (kurtosis up to {worst:.0f}; normal: "
                "3): BCa intervals cover less than their nominal level here, the t "
                "interval (--ci-method t) covers better."
            )
    if unit.pairing != "paired" and "permutation" in test and len(sizes) >= 2:
        samples_arr = [np.asarray(x, dtype=float) for x in samples]
        sds = np.array([np.nanstd(x, ddof=1) if len(x) > 1 else np.nan for x in samples_arr])
        size = np.array(sizes, dtype=float)
        ia, ib = np.asarray(result.index_a), np.asarray(result.index_b)
        with np.errstate(all="ignore"):
            size_ratio = np.maximum(size[ia], size[ib]) / np.minimum(size[ia], size[ib])
            sd_ratio = np.maximum(sds[ia], sds[ib]) / np.minimum(sds[ia], sds[ib])
        if np.any((size_ratio > BEHRENS_RATIO) & (sd_ratio > BEHRENS_RATIO)):
            out.append(
                "Groups differ both in size and in spread: the label-shuffle "
                "permutation test compares whole distributions, not means, and can "
                "reject far too often for equal means; Welch's t test (--method "
                "auto) tests the means."
            )
    return out


def runs_caveats(n_items: int) -> list[str]:
    """Caveats of a repeated-runs entry with ``n_items`` items."""
    if n_items < BOOTSTRAP_ITEMS:
        return [
            f"Only {count(n_items, 'item')}: the bootstrap intervals over items are somewhat too "
            f"narrow below about {BOOTSTRAP_ITEMS} items; the cluster-robust standard "
            "error is the safer guide."
        ]
    return []
