"""Confidence intervals used by the comparisons: proportions and differences.

All functions are vectorised: array arguments broadcast, and every interval is two-sided
at level ``confidence``.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

__all__ = [
    "newcombe_paired_interval",
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


def newcombe_paired_interval(both: np.ndarray, a_only: np.ndarray, b_only: np.ndarray,
                             neither: np.ndarray, *, confidence: float = 0.95
                             ) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's score interval for the difference of paired proportions.

    Parameters
    ----------
    both, a_only, b_only, neither
        The 2×2 table of paired binary outcomes: items both systems got right, only A,
        only B, neither.

    Notes
    -----
    Method 10 of Newcombe (1998, *Stat. Med.* 17:2635), without continuity correction:
    with :math:`\\hat p_a = (e + f)/n`, :math:`\\hat p_b = (e + g)/n`
    (e = both, f = a_only, g = b_only, h = neither), Wilson limits of each marginal
    proportion, and
    :math:`\\phi = (eh - fg)/\\sqrt{(e+f)(g+h)(e+g)(f+h)}` (0 when a margin is 0),
    :math:`L = d - \\sqrt{\\delta_a^2 - 2\\phi\\delta_a\\epsilon_b + \\epsilon_b^2}`,
    :math:`U = d + \\sqrt{\\epsilon_a^2 - 2\\phi\\epsilon_a\\delta_b + \\delta_b^2}`,
    where :math:`\\delta = \\hat p - l` and :math:`\\epsilon = u - \\hat p`.
    """
    e, f, g, h = (np.asarray(x, dtype=np.float64) for x in (both, a_only, b_only, neither))
    n = e + f + g + h
    p_a, p_b = (e + f) / n, (e + g) / n
    l_a, u_a = wilson_interval(e + f, n, confidence=confidence)
    l_b, u_b = wilson_interval(e + g, n, confidence=confidence)
    denom = (e + f) * (g + h) * (e + g) * (f + h)
    with np.errstate(invalid="ignore", divide="ignore"):
        phi = np.where(denom > 0, (e * h - f * g) / np.sqrt(denom), 0.0)
    d = p_a - p_b
    delta_a, eps_a = p_a - l_a, u_a - p_a
    delta_b, eps_b = p_b - l_b, u_b - p_b
    low = d - np.sqrt(np.maximum(delta_a ** 2 - 2 * phi * delta_a * eps_b + eps_b ** 2, 0))
    high = d + np.sqrt(np.maximum(eps_a ** 2 - 2 * phi * eps_a * delta_b + delta_b ** 2, 0))
    return low, high
