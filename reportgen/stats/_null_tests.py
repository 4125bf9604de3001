"""The one engine of the tests at a null value δ of the difference, shared by the two
test modules: :mod:`reportgen.stats.pairwise` tests at δ = 0, :mod:`reportgen.stats.margins`
at the margin (δ = ±margin) and at 0, through the same functions.

- :func:`t_statistic` studentizes a difference against any null value δ (the paired t
  and Welch t tests of both modules), :func:`t_pvalue` and :func:`z_pvalue` give the
  p-value of each alternative from a t or z statistic (the score tests of Tango and
  Farrington-Manning at ±δ, the pooled z test at 0).
- :func:`t_sides` and :func:`score_sides`: the one-sided tests at −δ and +δ a margin
  decision needs, built on the three above.
- At δ = 0 only, the exact tests of 0/1 scores: McNemar's binomial test of the
  discordant pairs (:func:`binomial_pvalue`) and the hypergeometric label shuffle
  (:func:`hypergeometric_pvalue`).

The resampling tests stay with their modules: the sign-flip and label-shuffle p-values
at 0 (:mod:`reportgen.stats.pairwise`) and the thresholds inverted at ±δ
(:mod:`reportgen.stats._margin_inversion`) draw different resamples by design."""

from __future__ import annotations

from typing import Any

import numpy as np

from reportgen.stats import _dist


def binomial_pvalue(k: np.ndarray, m: np.ndarray, alternative: str) -> np.ndarray:
    """Exact binomial test of ``k`` successes in ``m`` fair trials (McNemar, sign test);
    the power calculations of :mod:`reportgen.stats.power` use the same test.

    Two-sided: ``min(1, 2 P(K <= min(k, m - k)))`` (statsmodels mcnemar exact; equal to
    scipy ``binomtest`` for p = 1/2). ``m = 0`` gives 1.

    References
    ----------
    .. [1] McNemar, Q. (1947). Note on the sampling error of the difference between
           correlated proportions or percentages. Psychometrika 12(2), 153-157 (the
           exact form conditions on the discordant pairs).
    .. [2] Dixon, W. J. & Mood, A. M. (1946). The statistical sign test. J. Amer. Statist. Assoc.
           41(236), 557-566.

    Examples
    --------
    >>> round(float(binomial_pvalue(np.array(2), np.array(10), "two-sided")), 4)
    0.1094
    >>> round(2 * (1 + 10 + 45) / 2**10, 4)  # 2 P[X <= 2], X ~ Bin(10, 1/2)
    0.1094
    """
    k = np.asarray(k, dtype=np.float64)
    m = np.asarray(m, dtype=np.float64)
    if alternative == "two-sided":
        return np.minimum(1.0, 2 * _dist.binom_cdf(np.minimum(k, m - k), m, 0.5))
    if alternative == "greater":
        return np.where(m > 0, _dist.binom_sf(k - 1, m, 0.5), 1.0)
    return np.where(m > 0, _dist.binom_cdf(k, m, 0.5), 1.0)


def t_statistic(diff: np.ndarray, se: np.ndarray, null: float = 0.0) -> np.ndarray:
    """``(diff − null) / se``: the t statistic of H0: Δ = ``null``. A zero SE means the
    difference is exactly known: ±inf on the side of the null value it lies, NaN when
    it equals the null value (no evidence either way).

    Examples
    --------
    >>> t_statistic(np.array([0.5, 0.2, 0.2]), np.array([0.25, 0.0, 0.0]), 0.2).tolist()
    [1.2, nan, nan]
    >>> t_statistic(np.array([0.3]), np.array([0.0]), 0.2).tolist()
    [inf]
    """
    num = diff - null
    with np.errstate(invalid="ignore", divide="ignore"):
        t = num / se
    return np.where(se == 0, np.where(num == 0, np.nan, np.sign(num) * np.inf), t)


def t_pvalue(t: np.ndarray, df: np.ndarray | float, alternative: str) -> np.ndarray:
    """p-value of a t statistic with ``df`` degrees of freedom: two-sided
    ``2 P(T >= |t|)``, ``greater`` ``P(T >= t)``, ``less`` ``P(T <= t)`` (NaN stays NaN).

    Examples
    --------
    >>> round(float(t_pvalue(np.array(2.0), 10, "two-sided")), 6)
    0.073388
    >>> from scipy import stats
    >>> round(float(2 * stats.t.sf(2.0, 10)), 6)
    0.073388
    """
    if alternative == "two-sided":
        return 2 * _dist.t_sf(np.abs(t), df)
    if alternative == "greater":
        return _dist.t_sf(t, df)
    return _dist.t_cdf(t, df)


def z_pvalue(z: np.ndarray, alternative: str) -> np.ndarray:
    """p-value of a standard normal statistic: two-sided ``2 P(Z >= |z|)``, ``greater``
    ``P(Z >= z)``, ``less`` ``P(Z <= z)``.

    Examples
    --------
    >>> round(float(z_pvalue(np.array(1.959964), "two-sided")), 4)
    0.05
    """
    if alternative == "two-sided":
        return 2 * _dist.norm_sf(np.abs(z))
    if alternative == "greater":
        return _dist.norm_sf(z)
    return _dist.norm_cdf(z)


def hypergeometric_pvalue(
    k_a: np.ndarray, n_a: np.ndarray, k_b: np.ndarray, n_b: np.ndarray, alternative: str
) -> np.ndarray:
    """Exact label-shuffle p-value of the difference of proportions.

    Given the K = k_a + k_b successes among N = n_a + n_b items, the successes X landing
    in A after shuffling labels are Hypergeometric(N, K, n_a), and the difference of
    proportions X/n_a − (K − X)/n_b increases with X. Two-sided counts both tails of
    ``|difference| >= observed``; ``greater`` is P(X >= k_a) (Fisher's one-sided test).
    """
    from scipy import stats  # the hypergeometric distribution is not in scipy.special

    k_a, n_a = np.asarray(k_a, dtype=np.float64), np.asarray(n_a, dtype=np.float64)
    K, N = k_a + np.asarray(k_b, dtype=np.float64), n_a + np.asarray(n_b, dtype=np.float64)
    dist = stats.hypergeom(N, K, n_a)
    upper = dist.sf(k_a - 1)  # P(X >= k_a)
    lower = dist.cdf(k_a)  # P(X <= k_a)
    if alternative == "greater":
        return np.minimum(upper, 1.0)
    if alternative == "less":
        return np.minimum(lower, 1.0)
    # mirror point: the X whose difference is -observed; X/n_a - (K-X)/n_b = -d
    n_b_arr = N - n_a
    slope = 1 / n_a + 1 / n_b_arr
    d = k_a / n_a - (K - k_a) / n_b_arr
    mirror = (-d + K / n_b_arr) / slope
    eps = 1e-9
    above = d >= 0
    # observed in the upper tail: add P(X <= mirror); else add P(X >= mirror)
    other_low = dist.cdf(np.floor(mirror + eps))
    other_high = dist.sf(np.ceil(mirror - eps) - 1)
    p = np.where(
        above,
        upper + np.where(mirror < k_a - eps, other_low, 0.0),
        lower + np.where(mirror > k_a + eps, other_high, 0.0),
    )
    p = np.where(np.abs(mirror - k_a) <= eps, 1.0, p)  # no difference: every split counts
    return np.minimum(p, 1.0)


def t_sides(
    diff: np.ndarray, se: np.ndarray, df: np.ndarray, delta: float | None
) -> tuple[np.ndarray, ...]:
    """Statistics and one-sided p-values of the t tests at −δ (``greater``), +δ
    (``less``) and 0 (both); a NaN statistic with a finite SE (the difference equals
    the null value exactly) is no evidence: p = 1."""

    def side(t: np.ndarray, alternative: str) -> np.ndarray:
        return np.where(np.isnan(t) & np.isfinite(se), 1.0, t_pvalue(t, df, alternative))

    t0 = t_statistic(diff, se, 0.0)
    nan = np.full(diff.shape, np.nan)
    if delta is None:
        return nan, nan, nan, nan, side(t0, "greater"), side(t0, "less")
    t_l, t_u = t_statistic(diff, se, -delta), t_statistic(diff, se, delta)
    return t_l, side(t_l, "greater"), t_u, side(t_u, "less"), side(t0, "greater"), side(t0, "less")


def score_sides(delta: float | None, statistic: Any) -> tuple[np.ndarray, ...]:
    """Statistics and one-sided p-values of a score test at −δ (``greater``) and +δ
    (``less``); ``statistic(v)`` is the score statistic at the null value v (large Z is
    evidence for Δ above it)."""
    if delta is None:
        z0 = np.asarray(statistic(0.0))
        nan = np.full(z0.shape, np.nan)
        return nan, nan, nan, nan
    z_l, z_u = np.asarray(statistic(-delta)), np.asarray(statistic(delta))
    return z_l, z_pvalue(z_l, "greater"), z_u, z_pvalue(z_u, "less")
