"""Confidence intervals used by the comparisons: proportions and differences.

All functions are vectorised: array arguments broadcast, and every interval is two-sided
at level ``confidence``.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

__all__ = [
    "tango_paired_interval",
    "newcombe_unpaired_interval",
    "t_interval",
    "welch_interval",
    "wilson_interval",
]


def _z(confidence: float) -> float:
    return float(special.ndtri(0.5 + confidence / 2))


def wilson_interval(successes: np.ndarray, n: np.ndarray, *, confidence: float = 0.95
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a binomial proportion.

    Notes
    -----
    With :math:`\\hat p = k/n` and :math:`z = \\Phi^{-1}((1+c)/2)`:
    :math:`\\frac{\\hat p + z^2/2n \\pm z\\sqrt{\\hat p(1-\\hat p)/n + z^2/4n^2}}{1 + z^2/n}`
    (Wilson 1927). ``n = 0`` gives NaN.

    Examples
    --------
    >>> lo, hi = wilson_interval(np.array(7), np.array(10))
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.3968, 0.8922)
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    z = _z(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def t_interval(mean: np.ndarray, se: np.ndarray, df: np.ndarray, *,
               confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """``mean ± t_{df, (1+c)/2} · se``: the paired-t (df = n − 1) or Welch interval."""
    q = stats.t.ppf(0.5 + confidence / 2, df)
    return mean - q * se, mean + q * se


def welch_interval(mean_a: np.ndarray, var_a: np.ndarray, n_a: np.ndarray,
                   mean_b: np.ndarray, var_b: np.ndarray, n_b: np.ndarray, *,
                   confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Welch interval for ``mean_a − mean_b`` with Welch-Satterthwaite degrees of
    freedom (the interval of ``scipy.stats.ttest_ind(equal_var=False)``)."""
    se2_a, se2_b = var_a / n_a, var_b / n_b
    se = np.sqrt(se2_a + se2_b)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = (se2_a + se2_b) ** 2 / (se2_a ** 2 / (n_a - 1) + se2_b ** 2 / (n_b - 1))
    return t_interval(mean_a - mean_b, se, df, confidence=confidence)


def newcombe_unpaired_interval(k_a: np.ndarray, n_a: np.ndarray, k_b: np.ndarray,
                               n_b: np.ndarray, *, confidence: float = 0.95
                               ) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval for ``p_a − p_b`` of independent proportions.

    Notes
    -----
    Method 10 of Newcombe (1998, *Stat. Med.* 17:873): with Wilson limits
    :math:`(l_a, u_a)`, :math:`(l_b, u_b)` and :math:`d = \\hat p_a - \\hat p_b`,
    :math:`[d - \\sqrt{(\\hat p_a - l_a)^2 + (u_b - \\hat p_b)^2},\\;
    d + \\sqrt{(u_a - \\hat p_a)^2 + (\\hat p_b - l_b)^2}]`.
    """
    p_a, p_b = np.asarray(k_a) / n_a, np.asarray(k_b) / n_b
    l_a, u_a = wilson_interval(k_a, n_a, confidence=confidence)
    l_b, u_b = wilson_interval(k_b, n_b, confidence=confidence)
    d = p_a - p_b
    return (d - np.sqrt((p_a - l_a) ** 2 + (u_b - p_b) ** 2),
            d + np.sqrt((u_a - p_a) ** 2 + (p_b - l_b) ** 2))


def _tango_z(delta: np.ndarray, a_only: np.ndarray, b_only: np.ndarray,
             n: np.ndarray) -> np.ndarray:
    """Tango's score statistic for H0: p_a − p_b = delta (decreasing in delta)."""
    A = 2 * n
    B = -a_only - b_only + (2 * n - a_only + b_only) * delta
    C = -b_only * delta * (1 - delta)
    p21 = (np.sqrt(np.maximum(B * B - 4 * A * C, 0)) - B) / (2 * A)
    var = n * (2 * p21 + delta * (1 - delta))
    num = a_only - b_only - n * delta
    # 0/0 (no discordant items at delta = 0) is no evidence either way: Z = 0
    return np.where(num == 0, 0.0, num / np.sqrt(var))


def tango_paired_interval(a_only: np.ndarray, b_only: np.ndarray, n: np.ndarray, *,
                          confidence: float = 0.95, iterations: int = 56
                          ) -> tuple[np.ndarray, np.ndarray]:
    r"""Tango's score interval for the difference of paired proportions.

    Parameters
    ----------
    a_only, b_only
        Discordant counts: items only A (resp. only B) got right.
    n
        Number of items.

    Notes
    -----
    Tango (1998, *Stat. Med.* 17:891) inverts the score test of
    :math:`H_0: \Delta = p_a - p_b = \Delta_0`:
    :math:`Z(\Delta_0) = (b - c - n\Delta_0) / \sqrt{n(2\tilde p_{21} +
    \Delta_0(1 - \Delta_0))}` with the restricted MLE
    :math:`\tilde p_{21} = (\sqrt{B^2 - 4AC} - B)/(2A)`, :math:`A = 2n`,
    :math:`B = -b - c + (2n - b + c)\Delta_0`, :math:`C = -c\Delta_0(1 - \Delta_0)`.
    The limits solve :math:`Z = \pm z_{(1+c)/2}` (found by bisection, vectorised). At
    :math:`\Delta_0 = 0`, Z is McNemar's :math:`(b - c)/\sqrt{b + c}`. Unlike
    Newcombe's method 10 it keeps a positive width when there are no discordant items.
    """
    b = np.asarray(a_only, dtype=np.float64)
    c = np.asarray(b_only, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    b, c, n = np.broadcast_arrays(b, c, n)
    z = _z(confidence)
    limits = []
    # bisection on [-1, 1]; 56 halvings reach double precision
    with np.errstate(invalid="ignore", divide="ignore"):
        for target in (z, -z):  # lower limit: Z = +z; upper limit: Z = -z
            lo = np.full(b.shape, -1.0)
            hi = np.full(b.shape, 1.0)
            for _ in range(iterations):
                mid = (lo + hi) / 2
                above = _tango_z(mid, b, c, n) > target
                lo = np.where(above, mid, lo)
                hi = np.where(above, hi, mid)
            limits.append((lo + hi) / 2)
    low, high = limits
    invalid = n <= 0
    return np.where(invalid, np.nan, low), np.where(invalid, np.nan, high)
