"""The tests at a null value of the difference, shared by the two test modules:
:mod:`reportgen.stats.pairwise` tests at δ = 0, :mod:`reportgen.stats.margins` at the
margin (δ = ±margin) and at 0.

At δ = 0 the exact tests of 0/1 scores (McNemar's binomial test of the discordant
pairs, the hypergeometric label shuffle) and the t and z tail probabilities; at any δ the
t tests and the score tests (Tango, Farrington-Manning) shifted to the null value."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import special, stats


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
        return np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(k, m - k), m, 0.5))
    if alternative == "greater":
        return np.where(m > 0, stats.binom.sf(k - 1, m, 0.5), 1.0)
    return np.where(m > 0, stats.binom.cdf(k, m, 0.5), 1.0)


def _t_pvalue(t: np.ndarray, df: np.ndarray | float, alternative: str) -> np.ndarray:
    if alternative == "two-sided":
        return 2 * stats.t.sf(np.abs(t), df)
    if alternative == "greater":
        return stats.t.sf(t, df)
    return stats.t.cdf(t, df)


def _z_pvalue(z: np.ndarray, alternative: str) -> np.ndarray:
    if alternative == "two-sided":
        return 2 * stats.norm.sf(np.abs(z))
    if alternative == "greater":
        return stats.norm.sf(z)
    return stats.norm.cdf(z)


def _hypergeometric_pvalue(
    k_a: np.ndarray, n_a: np.ndarray, k_b: np.ndarray, n_b: np.ndarray, alternative: str
) -> np.ndarray:
    """Exact label-shuffle p-value of the difference of proportions.

    Given the K = k_a + k_b successes among N = n_a + n_b items, the successes X landing
    in A after shuffling labels are Hypergeometric(N, K, n_a), and the difference of
    proportions X/n_a − (K − X)/n_b increases with X. Two-sided counts both tails of
    ``|difference| >= observed``; ``greater`` is P(X >= k_a) (Fisher's one-sided test).
    """
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


def _t_sides(
    diff: np.ndarray, se: np.ndarray, df: np.ndarray, delta: float | None
) -> tuple[np.ndarray, ...]:
    """Statistics and one-sided p-values of the t tests at −δ, +δ and 0."""

    def t_at(v: float) -> np.ndarray:
        num = diff - v
        with np.errstate(invalid="ignore", divide="ignore"):
            t = num / se
        # zero SE: the shifted mean is exactly known; ±inf, or NaN when it equals v
        return np.where(se == 0, np.where(num == 0, np.nan, np.sign(num) * np.inf), t)

    def sf(t: np.ndarray) -> np.ndarray:  # P(T >= t), NaN t (no evidence) -> 1
        return np.where(np.isnan(t) & np.isfinite(se), 1.0, stats.t.sf(t, df))

    def cdf(t: np.ndarray) -> np.ndarray:
        return np.where(np.isnan(t) & np.isfinite(se), 1.0, stats.t.cdf(t, df))

    t0 = t_at(0.0)
    nan = np.full(diff.shape, np.nan)
    if delta is None:
        return nan, nan, nan, nan, sf(t0), cdf(t0)
    t_l, t_u = t_at(-delta), t_at(delta)
    return t_l, sf(t_l), t_u, cdf(t_u), sf(t0), cdf(t0)


def _score_sides(delta: float | None, statistic: Any) -> tuple[np.ndarray, ...]:
    """Statistics and one-sided p-values of a score test at −δ and +δ (large Z is
    evidence for Δ above the null value)."""
    if delta is None:
        z0 = np.asarray(statistic(0.0))
        nan = np.full(z0.shape, np.nan)
        return nan, nan, nan, nan
    z_l, z_u = np.asarray(statistic(-delta)), np.asarray(statistic(delta))
    return z_l, special.ndtr(-z_l), z_u, special.ndtr(z_u)
