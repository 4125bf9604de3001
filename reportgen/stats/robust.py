"""Robust estimands of a difference: the 20% trimmed mean (Yuen) and the Hodges-Lehmann
shift (Wilcoxon), for metrics whose differences are too skewed for their mean to be
decided from the items at hand (``[metrics.NAME] estimand``).

============================  ==================================  ==============================
estimand                      paired (differences D)              unpaired (samples a, b)
============================  ==================================  ==============================
``trimmed``                   20% trimmed mean of D; Tukey &      difference of 20% trimmed
                              McLaughlin's t (Yuen 1974)          means; Yuen-Welch t
``hodges-lehmann``            median of the Walsh averages of D;  median of the differences
                              Wilcoxon signed-rank test           a_i − b_j; Wilcoxon rank-sum
                                                                  (Mann-Whitney) test
============================  ==================================  ==============================

Each estimand comes with its own test at any null value v and the interval that inverts
it, so "the interval excludes v" and "the test rejects v" are one statement, as for the
mean. The trimmed mean's test is a t test on the winsorized variance (the trimmed mean
of a skewed distribution is far closer to normal than its mean: its size holds where the
mean's does not, docs/validation.md); the Hodges-Lehmann shift's is a rank test, exact
for up to :data:`EXACT_RANKS` items without ties, with the normal approximation and its
tie correction beyond. Neither estimand equals the mean of a skewed distribution: the
report names the estimand wherever it shows a difference.

Every function takes its data as given (the callers divide the scores by a power of
two first, for scale invariance) and is vectorised over pairs where the estimand allows
(the trimmed means); the rank methods count by sorting, O(n log n) per pair and per
evaluation, never the n² Walsh averages or pairwise differences of a large sample.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from reportgen.names import Estimand

__all__ = [
    "ESTIMAND_LABELS",
    "EXACT_RANKS",
    "LISTED_VALUES",
    "TRIM",
    "hodges_lehmann_paired",
    "hodges_lehmann_unpaired",
    "rank_sum_interval",
    "rank_sum_pvalue",
    "signed_rank_interval",
    "signed_rank_pvalue",
    "trimmed_paired",
    "trimmed_parts",
    "trimmed_unpaired",
    "yuen_combine",
]

#: The share trimmed from each end (Wilcox 2012 recommends 20%).
TRIM = 0.2

#: Up to this many non-zero differences (paired) or items in all (unpaired), without
#: ties, the rank tests use their exact null distribution.
EXACT_RANKS = 50

#: What each estimand is, in words (labels and notes).
ESTIMAND_LABELS: dict[Estimand, str] = {
    "mean": "difference of means",
    "trimmed": "20% trimmed mean difference (Yuen)",
    "hodges-lehmann": "Hodges-Lehmann shift (Wilcoxon)",
}


# ============================================================================ trimmed


def _trim_counts(n: int, trim: float) -> tuple[int, int]:
    """(g, h): values cut from each end, values kept."""
    g = int(math.floor(trim * n))
    return g, n - 2 * g


def trimmed_paired(D: np.ndarray, *, trim: float = TRIM) -> tuple[np.ndarray, ...]:
    """The trimmed mean of each column of differences, its standard error and degrees of
    freedom (Tukey & McLaughlin 1963; Yuen 1974 for the paired design).

    Parameters
    ----------
    D
        ``items × columns`` differences.
    trim
        The share cut from each end.

    Returns
    -------
    (estimate, se, df)
        Per column; NaN with fewer than 2 values kept.

    Notes
    -----
    With g = ⌊γn⌋ values cut from each end and h = n − 2g kept: the mean of the kept
    values, the SE :math:`s_w \\sqrt{n} / h` with :math:`s_w` the SD (ddof 1) of the
    data winsorized at the same g, and df = h − 1 (statsmodels ``TrimmedMean``:
    ``mean_trimmed``, ``std_mean_trimmed``, ``ttest_mean``).

    References
    ----------
    .. [1] Tukey, J. W. & McLaughlin, D. H. (1963). Less vulnerable confidence and significance
           procedures for location based on a single sample: trimming/winsorization 1.
           Sankhyā A 25(3), 331-352.
    .. [2] Yuen, K. K. (1974). The two-sample trimmed t for unequal population variances.
           Biometrika 61(1), 165-170.
    .. [3] Wilcox, R. R. (2012). Introduction to Robust Estimation and Hypothesis Testing,
           3rd ed. Academic Press, §4.4.

    Examples
    --------
    >>> D = np.array([[-0.3], [0.1], [0.2], [0.25], [0.3], [0.35], [0.4], [5.0]])
    >>> est, se, df = trimmed_paired(D)
    >>> round(float(est[0]), 4), int(df[0])
    (0.2667, 5)
    >>> from statsmodels.stats.robust_compare import TrimmedMean
    >>> tm = TrimmedMean(D[:, 0], 0.2)
    >>> round(float(tm.mean_trimmed), 4), round(float(tm.std_mean_trimmed), 6) == round(
    ...     float(se[0]), 6)
    (0.2667, True)
    """
    X = np.sort(np.asarray(D, dtype=np.float64), axis=0)
    n = X.shape[0]
    g, h = _trim_counts(n, trim)
    k = X.shape[1] if X.ndim > 1 else 1
    X = X.reshape(n, k)
    if h < 2:
        nan = np.full(k, np.nan)
        return nan, nan.copy(), nan.copy()
    estimate = X[g : n - g].mean(axis=0)
    winsorized = np.clip(X, X[g], X[n - g - 1])
    s_w = winsorized.std(axis=0, ddof=1)
    se = s_w * math.sqrt(n) / h
    return estimate, se, np.full(k, h - 1.0)


def trimmed_unpaired(
    a: np.ndarray, b: np.ndarray, *, trim: float = TRIM
) -> tuple[float, float, float]:
    """The difference of the trimmed means of two samples, its standard error and the
    Welch-type degrees of freedom of Yuen (1974).

    Notes
    -----
    Per sample, :math:`d = (n - 1) s_w^2 / (h (h - 1))`; SE :math:`\\sqrt{d_a + d_b}`,
    df :math:`(d_a + d_b)^2 / (d_a^2/(h_a - 1) + d_b^2/(h_b - 1))` (scipy
    ``ttest_ind(a, b, equal_var=False, trim=0.2)``).

    References
    ----------
    .. [1] Yuen, K. K. (1974). The two-sample trimmed t for unequal population variances.
           Biometrika 61(1), 165-170.

    Examples
    --------
    >>> a = np.array([1.0, 2.0, 2.5, 3.0, 3.5, 4.0, 20.0])
    >>> b = np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, -9.0])
    >>> est, se, df = trimmed_unpaired(a, b)
    >>> from scipy import stats
    >>> r = stats.ttest_ind(a, b, equal_var=False, trim=0.2)
    >>> bool(np.isclose(est / se, r.statistic)), bool(np.isclose(df, r.df))
    (True, True)
    """
    (m_a, d_a, h_a), (m_b, d_b, h_b) = trimmed_parts(a, trim=trim), trimmed_parts(b, trim=trim)
    est, se, df = yuen_combine(m_a, d_a, h_a, m_b, d_b, h_b)
    return float(est), float(se), float(df)


def trimmed_parts(x: np.ndarray, *, trim: float = TRIM) -> tuple[float, float, float]:
    """One sample's share of Yuen's test: its trimmed mean, :math:`d = (n - 1) s_w^2 /
    (h (h - 1))` and h (NaN with fewer than 2 values kept).

    References
    ----------
    .. [1] Yuen, K. K. (1974). The two-sample trimmed t for unequal population variances.
           Biometrika 61(1), 165-170.
    """
    x = np.sort(np.asarray(x, dtype=np.float64))
    n = len(x)
    g, h = _trim_counts(n, trim)
    if h < 2:
        return math.nan, math.nan, float(h)
    w = np.clip(x, x[g], x[n - g - 1])
    return float(x[g : n - g].mean()), float((n - 1) * w.var(ddof=1) / (h * (h - 1))), float(h)


def yuen_combine(
    m_a: Any, d_a: Any, h_a: Any, m_b: Any, d_b: Any, h_b: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Yuen's difference of trimmed means, its SE and df from each sample's
    :func:`trimmed_parts` (arrays: one pair per entry).

    References
    ----------
    .. [1] Yuen, K. K. (1974). The two-sample trimmed t for unequal population variances.
           Biometrika 61(1), 165-170.
    """
    d_a, d_b = np.asarray(d_a, dtype=np.float64), np.asarray(d_b, dtype=np.float64)
    h_a, h_b = np.asarray(h_a, dtype=np.float64), np.asarray(h_b, dtype=np.float64)
    se2 = d_a + d_b
    with np.errstate(invalid="ignore", divide="ignore"):
        df = se2**2 / (d_a**2 / (h_a - 1) + d_b**2 / (h_b - 1))
    return np.asarray(m_a, dtype=np.float64) - np.asarray(m_b, dtype=np.float64), np.sqrt(se2), df


# ============================================================================ ranks


def _signed_rank_null(n: int) -> np.ndarray:
    """P(T+ = t), t = 0..n(n+1)/2, of the signed-rank statistic of n untied values (each
    rank's sign a fair coin): the counts of subsets of {1..n} by their sum, / 2^n."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    for r in range(1, n + 1):
        counts[r:] = counts[r:] + counts[:-r].copy()
    return counts / 2.0**n


def _rank_sum_null(n_a: int, n_b: int) -> np.ndarray:
    """P(U = u), u = 0..n_a·n_b, of the Mann-Whitney statistic of untied samples: the
    number of ways to interleave them with u inversions (a recursion over the items)."""
    # f[i][j][u]: arrangements of i a's and j b's with u pairs a > b
    table = [[np.array([1.0])] * (n_b + 1)]
    for i in range(1, n_a + 1):
        row = [np.array([1.0])]
        for j in range(1, n_b + 1):
            last_a = np.concatenate([np.zeros(j), table[i - 1][j]])  # an a above j b's
            last_b = row[j - 1]
            size = max(len(last_a), len(last_b))
            row.append(
                np.pad(last_a, (0, size - len(last_a))) + np.pad(last_b, (0, size - len(last_b)))
            )
        table.append(row)
    counts = table[n_a][n_b]
    return counts / counts.sum()


def _ranks_with_ties(values: np.ndarray) -> tuple[np.ndarray, float]:
    """Mid-ranks of ``values`` and the tie term Σ(t³ − t) of its groups of ties."""
    from scipy.stats import rankdata

    ranks = rankdata(values)
    _, sizes = np.unique(values, return_counts=True)
    return ranks, float(np.sum(sizes.astype(np.float64) ** 3 - sizes))


def _tail_p(
    stat: float, dist: np.ndarray | None, mean: float, var: float, alternative: str
) -> float:
    """p-value of a rank statistic (large: evidence for "greater") from its exact null
    distribution (``dist``, on the integers) or its normal approximation."""
    from scipy.special import ndtr

    if dist is not None:
        t = int(round(stat))
        upper = float(dist[t:].sum())
        lower = float(dist[: t + 1].sum())
    else:
        if var <= 0:
            return 1.0
        z = (stat - mean) / math.sqrt(var)
        upper, lower = float(ndtr(-z)), float(ndtr(z))
    if alternative == "greater":
        return min(1.0, upper)
    if alternative == "less":
        return min(1.0, lower)
    return min(1.0, 2 * min(upper, lower))


def signed_rank_pvalue(d: np.ndarray, alternative: str = "two-sided") -> float:
    """The Wilcoxon signed-rank test of the differences ``d`` (zeros dropped, mid-ranks
    for ties): exact for up to :data:`EXACT_RANKS` non-zero differences without ties,
    else the normal approximation with the tie-corrected variance, no continuity
    correction (scipy ``wilcoxon(d, zero_method="wilcox", correction=False)``).

    References
    ----------
    .. [1] Wilcoxon, F. (1945). Individual comparisons by ranking methods. Biometrics Bulletin
           1(6), 80-83.
    .. [2] Hollander, M., Wolfe, D. A. & Chicken, E. (2014). Nonparametric Statistical Methods,
           3rd ed. Wiley, §3.1.

    Examples
    --------
    >>> round(signed_rank_pvalue(np.array([0.5, 1.2, -0.3, 2.0, 0.8, 1.1])), 4)
    0.0625
    >>> from scipy import stats
    >>> round(float(stats.wilcoxon([0.5, 1.2, -0.3, 2.0, 0.8, 1.1], method="exact").pvalue), 4)
    0.0625
    """
    d = np.asarray(d, dtype=np.float64)
    d = d[d != 0]
    n = len(d)
    if n == 0:
        return 1.0
    ranks, ties = _ranks_with_ties(np.abs(d))
    t_plus = float(ranks[d > 0].sum())
    exact = n <= EXACT_RANKS and ties == 0.0
    mean = n * (n + 1) / 4
    var = n * (n + 1) * (2 * n + 1) / 24 - ties / 48
    return _tail_p(t_plus, _signed_rank_null(n) if exact else None, mean, var, alternative)


def rank_sum_pvalue(a: np.ndarray, b: np.ndarray, alternative: str = "two-sided") -> float:
    """The Wilcoxon rank-sum (Mann-Whitney) test of ``a`` against ``b`` ("greater": a
    tends to be larger): exact for up to :data:`EXACT_RANKS` items in all without ties,
    else the normal approximation with the tie-corrected variance, no continuity
    correction (scipy ``mannwhitneyu(a, b, use_continuity=False)``).

    References
    ----------
    .. [1] Mann, H. B. & Whitney, D. R. (1947). On a test of whether one of two random variables
           is stochastically larger than the other. Ann. Math. Statist. 18(1), 50-60.

    Examples
    --------
    >>> a, b = np.array([3.1, 4.0, 5.2, 6.3]), np.array([1.0, 2.2, 3.0, 2.5, 0.4])
    >>> round(rank_sum_pvalue(a, b), 4)
    0.0159
    >>> from scipy import stats
    >>> round(float(stats.mannwhitneyu(a, b, method="exact").pvalue), 4)
    0.0159
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    n_a, n_b = len(a), len(b)
    if n_a == 0 or n_b == 0:
        return math.nan
    ranks, ties = _ranks_with_ties(np.concatenate([a, b]))
    u = float(ranks[:n_a].sum() - n_a * (n_a + 1) / 2)
    n = n_a + n_b
    exact = n <= EXACT_RANKS and ties == 0.0
    mean = n_a * n_b / 2
    var = n_a * n_b / 12 * ((n + 1) - ties / (n * (n - 1)))
    return _tail_p(u, _rank_sum_null(n_a, n_b) if exact else None, mean, var, alternative)


def _walsh_count_above(sorted_d: np.ndarray, v: float) -> int:
    """#{i ≤ j: (d_i + d_j)/2 > v}: the signed-rank statistic of d − v (no zeros)."""
    x = sorted_d - v
    # ordered pairs (i, j) with x_i + x_j > 0, then the unordered ones with i <= j
    above = len(x) - np.searchsorted(x, -x, side="right")
    ordered = int(above.sum())
    diagonal = int(np.count_nonzero(x > 0))
    return (ordered + diagonal) // 2


def _differences_count_above(sorted_a: np.ndarray, sorted_b: np.ndarray, v: float) -> int:
    """#{(i, j): a_i − b_j > v}: the Mann-Whitney statistic of a − v against b."""
    return int(np.searchsorted(sorted_b, sorted_a - v, side="left").sum())


#: Up to this many Walsh averages or differences they are listed and partitioned
#: (exact and fast); beyond, their order statistics are found by counting.
LISTED_VALUES = 2_000_000


def _walsh(s: np.ndarray) -> np.ndarray:
    """Every Walsh average (s_i + s_j)/2, i ≤ j, of the sorted values ``s``."""
    i, j = np.triu_indices(len(s))
    return (s[i] + s[j]) / 2


def _smallest(values: np.ndarray, ranks: list[int]) -> list[float]:
    """The ``ranks``-th smallest (1-based) of ``values``."""
    part = np.partition(values, [r - 1 for r in ranks])
    return [float(part[r - 1]) for r in ranks]


def _kth_by_count(count_above: Any, lo: float, hi: float, k: int) -> float:
    """The k-th largest of a finite set of values within [lo, hi] known only through
    ``count_above(v)`` = how many exceed v: the smallest v with ``count_above(v) < k``,
    found by bisection to the last bit (every value is a Walsh average or a difference
    of two scores, so the answer is one of them up to rounding)."""
    if count_above(lo) < k:
        return lo
    for _ in range(200):
        mid = lo + (hi - lo) / 2
        if mid <= lo or mid >= hi:
            break
        if count_above(mid) >= k:
            lo = mid
        else:
            hi = mid
    return hi


def _rank_interval_bounds(
    total: int, dist: np.ndarray | None, mean: float, var: float, level: float
) -> int:
    """k: the two-sided interval at ``level`` runs from the k-th smallest to the k-th
    largest of the ``total`` values (Walsh averages or differences), the k with P(T ≤
    k − 1) ≤ level/2 < P(T ≤ k) for the test's statistic T (exact or normal)."""
    from scipy.special import ndtri

    if dist is not None:
        cdf = np.cumsum(dist)
        k = int(np.searchsorted(cdf, level / 2, side="right"))  # first t with cdf > level/2
        return max(k, 0)
    if var <= 0:
        return 0
    return max(int(math.floor(mean + math.sqrt(var) * float(ndtri(level / 2)))) + 1, 0)


def hodges_lehmann_paired(d: np.ndarray) -> float:
    """The Hodges-Lehmann estimate of the center of the differences ``d``: the median of
    the Walsh averages :math:`(d_i + d_j)/2, i \\le j` (counted by sorting, not listed).

    References
    ----------
    .. [1] Hodges, J. L. & Lehmann, E. L. (1963). Estimates of location based on rank tests.
           Ann. Math. Statist. 34(2), 598-611.

    Examples
    --------
    >>> d = np.array([0.5, 1.2, -0.3, 2.0, 0.8])
    >>> walsh = [(d[i] + d[j]) / 2 for i in range(5) for j in range(i, 5)]
    >>> bool(np.isclose(hodges_lehmann_paired(d), np.median(walsh), rtol=1e-12))
    True
    """
    s = np.sort(np.asarray(d, dtype=np.float64))
    n = len(s)
    if n == 0:
        return math.nan
    total = n * (n + 1) // 2
    middle = [total // 2 + 1] if total % 2 else [total // 2, total // 2 + 1]
    if total <= LISTED_VALUES:
        return float(np.mean(_smallest(_walsh(s), middle)))

    def kth_smallest(k: int) -> float:
        return _kth_by_count(lambda v: _walsh_count_above(s, v), s[0], s[-1], total - k + 1)

    return float(np.mean([kth_smallest(k) for k in middle]))


def hodges_lehmann_unpaired(a: np.ndarray, b: np.ndarray) -> float:
    """The Hodges-Lehmann shift of ``a`` against ``b``: the median of the differences
    :math:`a_i - b_j` (counted by sorting, not listed).

    References
    ----------
    .. [1] Hodges, J. L. & Lehmann, E. L. (1963). Estimates of location based on rank tests.
           Ann. Math. Statist. 34(2), 598-611.

    Examples
    --------
    >>> a, b = np.array([3.1, 4.0, 5.2]), np.array([1.0, 2.2, 3.0, 2.5])
    >>> bool(np.isclose(hodges_lehmann_unpaired(a, b), np.median(np.subtract.outer(a, b))))
    True
    """
    sa = np.sort(np.asarray(a, dtype=np.float64))
    sb = np.sort(np.asarray(b, dtype=np.float64))
    if len(sa) == 0 or len(sb) == 0:
        return math.nan
    total = len(sa) * len(sb)
    middle = [total // 2 + 1] if total % 2 else [total // 2, total // 2 + 1]
    if total <= LISTED_VALUES:
        return float(np.mean(_smallest(np.subtract.outer(sa, sb).ravel(), middle)))
    lo, hi = sa[0] - sb[-1], sa[-1] - sb[0]

    def kth_smallest(k: int) -> float:
        return _kth_by_count(lambda v: _differences_count_above(sa, sb, v), lo, hi, total - k + 1)

    return float(np.mean([kth_smallest(k) for k in middle]))


def signed_rank_interval(d: np.ndarray, level: float) -> tuple[float, float]:
    """The two-sided interval at ``level`` that inverts the signed-rank test of all n
    differences: from the k-th smallest to the k-th largest Walsh average (Tukey's
    construction; exact k for up to :data:`EXACT_RANKS` differences, else the normal
    approximation). ``level`` is the two-sided error; each end is a one-sided bound at
    ``level/2``. Unbounded (NaN) when no k exists (too few differences).

    References
    ----------
    .. [1] Hollander, M., Wolfe, D. A. & Chicken, E. (2014). Nonparametric Statistical Methods,
           3rd ed. Wiley, §3.3 (Tukey's interval for the center of symmetry).

    Examples
    --------
    >>> d = np.array([0.5, 1.2, -0.3, 2.0, 0.8, 1.1, 0.9, 0.4])
    >>> low, high = signed_rank_interval(d, 0.05)
    >>> walsh = np.sort([(d[i] + d[j]) / 2 for i in range(8) for j in range(i, 8)])
    >>> bool(np.allclose((low, high), (walsh[3], walsh[-4]), rtol=1e-12))  # k = 4 at 95%
    True
    """
    s = np.sort(np.asarray(d, dtype=np.float64))
    n = len(s)
    if n == 0:
        return math.nan, math.nan
    total = n * (n + 1) // 2
    dist = _signed_rank_null(n) if n <= EXACT_RANKS else None
    k = _rank_interval_bounds(total, dist, n * (n + 1) / 4, n * (n + 1) * (2 * n + 1) / 24, level)
    if k < 1:
        return math.nan, math.nan
    if total <= LISTED_VALUES:
        low, high = _smallest(_walsh(s), [k, total - k + 1])
        return low, high

    def kth_largest(j: int) -> float:
        return _kth_by_count(lambda v: _walsh_count_above(s, v), s[0], s[-1], j)

    return kth_largest(total - k + 1), kth_largest(k)


def rank_sum_interval(a: np.ndarray, b: np.ndarray, level: float) -> tuple[float, float]:
    """The two-sided interval at ``level`` of the shift of ``a`` against ``b`` that inverts
    the rank-sum test: from the k-th smallest to the k-th largest difference
    :math:`a_i - b_j` (exact k for up to :data:`EXACT_RANKS` items, else normal).

    References
    ----------
    .. [1] Hollander, M., Wolfe, D. A. & Chicken, E. (2014). Nonparametric Statistical Methods,
           3rd ed. Wiley, §4.3.

    Examples
    --------
    >>> a, b = np.array([3.1, 4.0, 5.2, 6.3, 4.4]), np.array([1.0, 2.2, 3.0, 2.5, 0.4, 1.9])
    >>> low, high = rank_sum_interval(a, b, 0.05)
    >>> diffs = np.sort(np.subtract.outer(a, b).ravel())
    >>> bool(np.allclose((low, high), (diffs[3], diffs[-4]), rtol=1e-12))  # k = 4 at 95%
    True
    """
    sa = np.sort(np.asarray(a, dtype=np.float64))
    sb = np.sort(np.asarray(b, dtype=np.float64))
    n_a, n_b = len(sa), len(sb)
    if n_a == 0 or n_b == 0:
        return math.nan, math.nan
    total = n_a * n_b
    n = n_a + n_b
    dist = _rank_sum_null(n_a, n_b) if n <= EXACT_RANKS else None
    k = _rank_interval_bounds(total, dist, total / 2, total * (n + 1) / 12, level)
    if k < 1:
        return math.nan, math.nan
    if total <= LISTED_VALUES:
        low, high = _smallest(np.subtract.outer(sa, sb).ravel(), [k, total - k + 1])
        return low, high
    lo, hi = sa[0] - sb[-1], sa[-1] - sb[0]

    def kth_largest(j: int) -> float:
        return _kth_by_count(lambda v: _differences_count_above(sa, sb, v), lo, hi, j)

    return kth_largest(total - k + 1), kth_largest(k)
