"""Test inversion at a margin: the inverters that turn a test statistic into the interval of
null values it does not reject (t, hull, scaled, Tango, Farrington-Manning, resampling
thresholds), and the resampled thresholds of the sign-flip, shuffle and bootstrap tests.

Private to :mod:`reportgen.stats.margins`.

Examples
--------
The null-shifted bootstrap counts a replicate ``r`` for H0: Δ <= v when
``v >= 2·diff − r``: with ``diff = 0.2`` and replicates 0.1 and 0.3 the thresholds are
0.3 and 0.1, sorted:

>>> low, high = _bootstrap_thresholds(np.array([[0.1], [0.3]]), np.array([0.2]), np.zeros(1))
>>> np.round(low[:, 0], 12).tolist(), np.round(high[:, 0], 12).tolist()
([0.1, 0.3], [0.1, 0.3])
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reportgen.stats import _dist
from reportgen.stats._degenerate import (
    MIN_SKEW_ITEMS,
    edgeworth_size_error,
    sample_skewness,
    studentized_replicates,
)
from reportgen.stats._margin_inputs import (
    _Options,
)
from reportgen.stats._resampling import (
    bootstrap_counts,
    chunk_sizes,
    enumerate_signs,
    enumerate_splits,
    random_signs,
    random_splits,
)
from reportgen.stats.intervals import (
    farrington_manning_interval,
    tango_paired_interval,
)


class _Inverter:
    """Limits of the interval that inverts a family of one-sided tests: ``limits(a)``
    gives, per comparison, the smallest and largest null values not rejected by the
    one-sided tests at level ``a`` (so the two-sided interval at ``1 − 2a``)."""

    def limits(self, a: float) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError


@dataclass(frozen=True)
class _TInverter(_Inverter):
    """t tests of a shifted mean: ``estimate ± t_{1−a, df} · se``."""

    estimate: np.ndarray
    se: np.ndarray
    df: np.ndarray

    def limits(self, a: float) -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(invalid="ignore"):
            q = _dist.t_isf(a, self.df)
            half = np.where(self.se == 0, 0.0, q * self.se)
        return self.estimate - half, self.estimate + half


@dataclass(frozen=True)
class _HullInverter(_Inverter):
    """Where ``mask``, the hull of ``first``'s and ``second``'s limits (the inversion of
    the test that rejects only when both reject); ``first``'s elsewhere."""

    mask: np.ndarray
    first: _Inverter
    second: _Inverter

    def limits(self, a: float) -> tuple[np.ndarray, np.ndarray]:
        l1, h1 = self.first.limits(a)
        l2, h2 = self.second.limits(a)
        return (
            np.where(self.mask, np.fmin(l1, l2), l1),
            np.where(self.mask, np.fmax(h1, h2), h1),
        )


@dataclass(frozen=True)
class _ScaledInverter(_Inverter):
    """Limits of ``inner`` (computed on scores divided by ``unit``) in the data's units."""

    inner: _Inverter
    unit: float

    def limits(self, a: float) -> tuple[np.ndarray, np.ndarray]:
        low, high = self.inner.limits(a)
        return np.asarray(low) * self.unit, np.asarray(high) * self.unit


@dataclass(frozen=True)
class _TangoInverter(_Inverter):
    a_only: np.ndarray
    b_only: np.ndarray
    n: np.ndarray

    def limits(self, a: float) -> tuple[np.ndarray, np.ndarray]:
        return tango_paired_interval(self.a_only, self.b_only, self.n, confidence=1 - 2 * a)


@dataclass(frozen=True)
class _FMInverter(_Inverter):
    k_a: np.ndarray
    n_a: np.ndarray
    k_b: np.ndarray
    n_b: np.ndarray

    def limits(self, a: float) -> tuple[np.ndarray, np.ndarray]:
        return farrington_manning_interval(
            self.k_a, self.n_a, self.k_b, self.n_b, confidence=1 - 2 * a
        )


@dataclass(frozen=True)
class _ThresholdInverter(_Inverter):
    """Resampling tests of every null value from one set of resamples.

    For each comparison (column) and resample (row), ``lower[r]`` is the smallest null
    value v at which resample r counts as "at least as extreme" for the test of
    H0: Δ ≤ v, and ``upper[r]`` the largest v at which it counts for H0: Δ ≥ v (both
    sorted ascending per column). Then the counts are monotone in v:
    ``count_greater(v) = #{lower ≤ v}`` and ``count_less(v) = #{upper ≥ v}``, and the
    p-value is ``count / total`` (exact enumeration) or ``(count + 1) / (total + 1)``
    (Monte Carlo).
    """

    lower: np.ndarray
    upper: np.ndarray
    exact: bool

    @property
    def total(self) -> int:
        return int(self.lower.shape[0])

    def _p(self, count: np.ndarray) -> np.ndarray:
        if self.exact:
            return count / self.total
        return (count + 1) / (self.total + 1)

    def _valid(self) -> np.ndarray:
        """Columns with resamples (a column of NaN has no data)."""
        return ~np.isnan(self.lower).all(axis=0)

    def p_greater(self, v: np.ndarray) -> np.ndarray:
        """p-value of H0: Δ <= v against Δ > v, per column."""
        v = np.broadcast_to(np.asarray(v, dtype=np.float64), (self.lower.shape[1],))
        count = np.array(
            [
                np.searchsorted(self.lower[:, j], v[j], side="right")
                for j in range(self.lower.shape[1])
            ],
            dtype=np.float64,
        )
        return np.where(self._valid(), self._p(count), np.nan)

    def p_less(self, v: np.ndarray) -> np.ndarray:
        """p-value of H0: Δ >= v against Δ < v, per column."""
        v = np.broadcast_to(np.asarray(v, dtype=np.float64), (self.upper.shape[1],))
        count = np.array(
            [
                self.total - np.searchsorted(self.upper[:, j], v[j], side="left")
                for j in range(self.upper.shape[1])
            ],
            dtype=np.float64,
        )
        return np.where(self._valid(), self._p(count), np.nan)

    def _max_count(self, a: float) -> int:
        """The largest count whose p-value is at most ``a`` (−1 if none).

        ``a`` is taken with a relative tolerance of 1e-12: a level that reaches here as
        ``(1 − confidence) / 2`` may sit one rounding below a p-value of the lattice
        (``(1 − 0.8) / 2 = 0.09999999999999998`` against p = 100/1000).
        """
        total = self.total
        a = a * (1 + 1e-12)
        k = math.floor(a * total) if self.exact else math.floor(a * (total + 1) - 1)
        k = min(max(k, -1), total)
        while k >= 0 and self._p(np.array(float(k))) > a:
            k -= 1
        while k + 1 <= total and self._p(np.array(float(k + 1))) <= a:
            k += 1
        return k

    def limits(self, a: float) -> tuple[np.ndarray, np.ndarray]:
        k = self._max_count(a)
        cols = self.lower.shape[1]
        if k < 0:  # too few resamples for this level: nothing is rejected
            return np.full(cols, -np.inf), np.full(cols, np.inf)
        if k >= self.total:  # pragma: no cover - p = 1 is never below a < 1
            return np.full(cols, np.inf), np.full(cols, -np.inf)
        # H0: Δ <= v is rejected iff count_greater(v) <= k iff v < lower[k]
        valid = self._valid()
        return (
            np.where(valid, self.lower[k], np.nan),
            np.where(valid, self.upper[self.total - 1 - k], np.nan),
        )


def _skewed_differences(D: np.ndarray, alpha: float) -> np.ndarray:
    """Per column of differences, :func:`reportgen.stats._degenerate.skew_flags`."""
    n, k = D.shape
    if n < MIN_SKEW_ITEMS:
        return np.zeros(k, dtype=bool)
    g = sample_skewness(D)
    return np.asarray(edgeworth_size_error(g, n, alpha) > alpha / 4)


def _studentized_thresholds(
    D: np.ndarray, diff: np.ndarray, se: np.ndarray, opts: _Options
) -> tuple[np.ndarray, np.ndarray]:
    r"""Studentized (bootstrap-t) thresholds of each column of differences (Hall 1992).

    Replicate r gives :math:`t^*_r = (\bar D^*_r - \bar D)/\mathrm{se}^*_r`; the test of
    :math:`H_0: \Delta \le v` rejects when :math:`(\bar D - v)/\mathrm{se}` is at
    least :math:`t^*_r` for few r, i.e. replicate r counts iff
    :math:`v \ge \bar D - \mathrm{se}\,t^*_r` (and likewise for :math:`\Delta \ge v`),
    so one sorted threshold per replicate serves every null value (a
    :class:`_ThresholdInverter`). Its one-sided error is :math:`O(n^{-1})` against the
    t test's :math:`O(n^{-1/2})` under skewness (Hall 1992, §3.5)."""
    t_star = studentized_replicates(D, opts.rng, opts.n_resamples, opts.max_memory)
    thresholds = np.sort(diff - se * t_star, axis=0)
    return thresholds, thresholds.copy()


def _threshold_sides(
    inv: _ThresholdInverter, diff: np.ndarray, delta: float | None
) -> tuple[np.ndarray, ...]:
    p_g, p_s = inv.p_greater(np.zeros(diff.shape)), inv.p_less(np.zeros(diff.shape))
    if delta is None:
        nan = np.full(diff.shape, np.nan)
        return nan, nan, nan, nan, p_g, p_s
    return (
        diff + delta,
        inv.p_greater(np.full(diff.shape, -delta)),
        diff - delta,
        inv.p_less(np.full(diff.shape, delta)),
        p_g,
        p_s,
    )


def _paired_flip_thresholds(D: np.ndarray, opts: _Options) -> tuple[np.ndarray, np.ndarray, bool]:
    """Sign-flip thresholds of every candidate's differences.

    For sign vector s (sum :math:`B = \\sum s_i`) and null value v the flipped sum is
    :math:`S - vB` with :math:`S = \\sum s_i D_i`, the observed one :math:`\\sum D_i - nv`;
    it is at least as large (up to a tolerance) iff :math:`v(n - B) \\ge \\sum D - S -
    tol`, i.e. v at or above a threshold (−∞ for the identity, B = n).
    """
    n, k = D.shape
    total_d = D.sum(axis=0)
    tol = 1e-9 * np.abs(D).sum(axis=0) + 1e-12
    exact = 0 < n < 62 and 2**n <= opts.n_resamples
    rows = 2**n if exact else opts.n_resamples
    lower = np.empty((rows, k))
    upper = np.empty((rows, k))
    done = 0
    for size in chunk_sizes(rows, 9 * max(n, 1) + 24 * k, opts.max_memory):
        signs = enumerate_signs(n, done, done + size) if exact else random_signs(opts.rng, size, n)
        S = signs @ D
        B = signs.sum(axis=1)[:, None]
        gap = n - B
        with np.errstate(invalid="ignore", divide="ignore"):
            lower[done : done + size] = np.where(gap > 0, (total_d - S - tol) / gap, -np.inf)
            upper[done : done + size] = np.where(gap > 0, (total_d - S + tol) / gap, np.inf)
        done += size
    if n == 0:
        lower[:], upper[:] = np.nan, np.nan
    lower.sort(axis=0)
    upper.sort(axis=0)
    return lower, upper, exact


def _bootstrap_thresholds(
    reps: np.ndarray, diff: np.ndarray, tol: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Null-shifted bootstrap: replicate r counts for H0: Δ <= v iff
    ``rep_r − diff >= diff − v − tol`` iff ``v >= 2 diff − rep_r − tol``."""
    base = 2 * diff - reps
    lower = np.sort(base - tol, axis=0)
    upper = np.sort(base + tol, axis=0)
    return lower, upper


def _paired_bootstrap_thresholds(
    X: np.ndarray, b_idx: int, cand: np.ndarray, diff: np.ndarray, opts: _Options
) -> tuple[np.ndarray, np.ndarray]:
    n = X.shape[0]
    cols = np.concatenate([[b_idx], cand])
    Y = X[:, cols]
    R = opts.n_resamples
    reps = np.empty((R, len(cand)))
    if n == 0:
        reps[:] = np.nan
        return reps, reps.copy()
    done = 0
    for size in chunk_sizes(R, 16 * n + 8 * len(cols), opts.max_memory):
        means = bootstrap_counts(opts.rng, size, n) @ Y / n
        reps[done : done + size] = means[:, 1:] - means[:, :1]
        done += size
    scale = np.abs(Y).mean(axis=0)
    tol = 1e-9 * (scale[1:] + scale[0]) + 1e-15
    return _bootstrap_thresholds(reps, diff, tol)


def _unpaired_skew(
    arrays: list[np.ndarray], b_idx: int, cand: np.ndarray, opts: _Options
) -> np.ndarray:
    """Per candidate, whether the difference of the two means is heavily skewed (the
    unpaired flag of :mod:`reportgen.stats.pairwise`)."""
    from reportgen.stats._pair_checks import _unpaired_skew_flags

    ia = np.asarray(cand)
    ib = np.full(len(cand), b_idx)
    return _unpaired_skew_flags(arrays, ia, ib, 1 - opts.confidence)


def _unpaired_shuffle_thresholds(
    arrays: list[np.ndarray], b_idx: int, cand: np.ndarray, opts: _Options
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Label-shuffle thresholds of every candidate against the baseline.

    With the candidate's scores shifted by v pooled with the baseline's, a split that
    keeps :math:`k_r` of the candidate's :math:`n_c` items in the candidate's group and
    gives it the sum :math:`G_r` (unshifted) differs from the observed split by
    :math:`c[(G_r - \\sum x_c) + v(n_c - k_r)]`, :math:`c = 1/n_c + 1/n_b`; so it is at
    least as extreme iff v is at or above :math:`(\\sum x_c - G_r - tol/c)/(n_c - k_r)`.
    Every split is enumerated when all candidates have the same number of splits and it
    is at most ``n_resamples``; otherwise ``n_resamples`` random splits are drawn.
    """
    base = arrays[b_idx]
    n_b = len(base)
    counts = {math.comb(len(arrays[j]) + n_b, len(arrays[j])) for j in cand}
    exact = (
        len(counts) == 1
        and next(iter(counts)) <= opts.n_resamples
        and n_b > 0
        and all(len(arrays[j]) > 0 for j in cand)
    )
    rows = next(iter(counts)) if exact else opts.n_resamples
    lower, upper = np.full((rows, len(cand)), np.nan), np.full((rows, len(cand)), np.nan)
    for col, j in enumerate(cand):
        xc = arrays[j]
        n_c = len(xc)
        if n_c < 1 or n_b < 1:
            continue
        pooled = np.concatenate([xc, base])
        is_c = np.concatenate([np.ones(n_c), np.zeros(n_b)])
        c = 1 / n_c + 1 / n_b
        tol = (1e-9 * np.abs(pooled).sum() / min(n_c, n_b) + 1e-12) / c
        splits_all = enumerate_splits(n_c, n_b) if exact else None
        done = 0
        for size in chunk_sizes(rows, 9 * (n_c + n_b) + 32, opts.max_memory):
            M = (
                splits_all[done : done + size]
                if splits_all is not None
                else random_splits(opts.rng, size, n_c, n_b)
            )
            G, kept = M @ pooled, M @ is_c
            gap = n_c - kept
            with np.errstate(invalid="ignore", divide="ignore"):
                lower[done : done + size, col] = np.where(
                    gap > 0, (xc.sum() - G - tol) / gap, -np.inf
                )
                upper[done : done + size, col] = np.where(
                    gap > 0, (xc.sum() - G + tol) / gap, np.inf
                )
            done += size
    lower.sort(axis=0)
    upper.sort(axis=0)
    return lower, upper, exact


def _unpaired_bootstrap_thresholds(
    arrays: list[np.ndarray], b_idx: int, cand: np.ndarray, diff: np.ndarray, opts: _Options
) -> tuple[np.ndarray, np.ndarray]:
    R = opts.n_resamples
    systems = np.concatenate([[b_idx], cand])
    means = np.empty((R, len(systems)))
    binary = all(bool(np.all((arrays[s] == 0) | (arrays[s] == 1))) for s in systems)
    for col, s in enumerate(systems):
        x = arrays[s]
        if len(x) == 0:
            means[:, col] = np.nan
        elif binary:
            # the mean of n draws with replacement from 0/1 data is Binomial(n, p)/n
            means[:, col] = opts.rng.binomial(len(x), x.mean(), size=R) / len(x)
        else:
            done = 0
            for size in chunk_sizes(R, 16 * len(x), opts.max_memory):
                draws = opts.rng.integers(0, len(x), size=(size, len(x)))
                means[done : done + size, col] = x[draws].mean(axis=1)
                done += size
    reps = means[:, 1:] - means[:, :1]
    scale = np.array([np.abs(arrays[s]).mean() if len(arrays[s]) else 0.0 for s in systems])
    tol = 1e-9 * (scale[1:] + scale[0]) + 1e-15
    return _bootstrap_thresholds(reps, diff, tol)
