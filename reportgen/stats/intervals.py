"""Confidence intervals used by the comparisons: proportions and differences.

All functions are vectorised: array arguments broadcast, and every interval is two-sided
at level ``confidence``.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from reportgen.stats import _dist

__all__ = [
    "farrington_manning_interval",
    "farrington_manning_restricted",
    "farrington_manning_statistic",
    "tango_paired_interval",
    "tango_statistic",
    "newcombe_unpaired_interval",
    "t_interval",
    "welch_interval",
    "wilson_interval",
]


def _z(confidence: float) -> float:
    return float(special.ndtri(0.5 + confidence / 2))


def wilson_interval(
    successes: np.ndarray, n: np.ndarray, *, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a binomial proportion.

    Notes
    -----
    With :math:`\\hat p = k/n` and :math:`z = \\Phi^{-1}((1+c)/2)`:
    :math:`\\frac{\\hat p + z^2/2n \\pm z\\sqrt{\\hat p(1-\\hat p)/n + z^2/4n^2}}{1 + z^2/n}`
    (Wilson 1927). ``n = 0`` gives NaN.

    References
    ----------
    .. [1] Wilson, E. B. (1927). Probable inference, the law of succession, and statistical
           inference. J. Amer. Statist. Assoc. 22(158), 209-212.

    Examples
    --------
    >>> lo, hi = wilson_interval(np.array(7), np.array(10))
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.3968, 0.8922)
    >>> from scipy import stats
    >>> ci = stats.binomtest(7, 10).proportion_ci(method="wilson")
    >>> round(float(ci.low), 4), round(float(ci.high), 4)
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


def t_interval(
    mean: np.ndarray, se: np.ndarray, df: np.ndarray, *, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """``mean ± t_{df, (1+c)/2} · se``: the paired-t (df = n − 1) or Welch interval.

    References
    ----------
    .. [1] Student (1908). The probable error of a mean. Biometrika 6(1), 1-25.
    .. [2] Welch, B. L. (1947). The generalization of 'Student's' problem when several different
           population variances are involved. Biometrika 34(1-2), 28-35.
    """
    q = _dist.t_ppf(0.5 + confidence / 2, df)
    return mean - q * se, mean + q * se


def welch_interval(
    mean_a: np.ndarray,
    var_a: np.ndarray,
    n_a: np.ndarray,
    mean_b: np.ndarray,
    var_b: np.ndarray,
    n_b: np.ndarray,
    *,
    confidence: float = 0.95,
) -> tuple[np.ndarray, np.ndarray]:
    """Welch interval for ``mean_a − mean_b`` with Welch-Satterthwaite degrees of
    freedom (the interval of ``scipy.stats.ttest_ind(equal_var=False)``).

    References
    ----------
    .. [1] Welch, B. L. (1947). The generalization of 'Student's' problem when several different
           population variances are involved. Biometrika 34(1-2), 28-35.
    """
    se2_a, se2_b = var_a / n_a, var_b / n_b
    se = np.sqrt(se2_a + se2_b)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = (se2_a + se2_b) ** 2 / (se2_a**2 / (n_a - 1) + se2_b**2 / (n_b - 1))
    return t_interval(mean_a - mean_b, se, df, confidence=confidence)


def newcombe_unpaired_interval(
    k_a: np.ndarray, n_a: np.ndarray, k_b: np.ndarray, n_b: np.ndarray, *, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval for ``p_a − p_b`` of independent proportions.

    Notes
    -----
    Method 10 of Newcombe (1998, *Stat. Med.* 17:873): with Wilson limits
    :math:`(l_a, u_a)`, :math:`(l_b, u_b)` and :math:`d = \\hat p_a - \\hat p_b`,
    :math:`[d - \\sqrt{(\\hat p_a - l_a)^2 + (u_b - \\hat p_b)^2},\\;
    d + \\sqrt{(u_a - \\hat p_a)^2 + (\\hat p_b - l_b)^2}]`.

    References
    ----------
    .. [1] Newcombe, R. G. (1998). Interval estimation for the difference between independent
           proportions: comparison of eleven methods. Statist. Med. 17(8), 873-890 (method 10).
    """
    p_a, p_b = np.asarray(k_a) / n_a, np.asarray(k_b) / n_b
    l_a, u_a = wilson_interval(k_a, n_a, confidence=confidence)
    l_b, u_b = wilson_interval(k_b, n_b, confidence=confidence)
    d = p_a - p_b
    return (
        d - np.sqrt((p_a - l_a) ** 2 + (u_b - p_b) ** 2),
        d + np.sqrt((u_a - p_a) ** 2 + (p_b - l_b) ** 2),
    )


def _tango_z(
    delta: np.ndarray, a_only: np.ndarray, b_only: np.ndarray, n: np.ndarray
) -> np.ndarray:
    """Tango's score statistic for H0: p_a − p_b = delta (decreasing in delta)."""
    A = 2 * n
    B = -a_only - b_only + (2 * n - a_only + b_only) * delta
    C = -b_only * delta * (1 - delta)
    p21 = (np.sqrt(np.maximum(B * B - 4 * A * C, 0)) - B) / (2 * A)
    var = n * (2 * p21 + delta * (1 - delta))
    num = a_only - b_only - n * delta
    # 0/0 (no discordant items at delta = 0) is no evidence either way: Z = 0
    return np.where(num == 0, 0.0, num / np.sqrt(var))


def tango_statistic(
    delta0: np.ndarray, a_only: np.ndarray, b_only: np.ndarray, n: np.ndarray
) -> np.ndarray:
    r"""Tango's (1998) score statistic for :math:`H_0: p_a - p_b = \Delta_0` of paired
    proportions (the statistic :func:`tango_paired_interval` inverts; Nam 1997 derived
    the same test).

    Parameters
    ----------
    delta0
        The null difference, in (−1, 1).
    a_only, b_only
        Discordant counts: items only A (resp. only B) got right.
    n
        Number of items.

    Returns
    -------
    numpy.ndarray
        Z, approximately standard normal at the null, decreasing in ``delta0``; large
        values are evidence that :math:`p_a - p_b > \Delta_0`. 0 when
        :math:`b - c = n\Delta_0` (also when there are no discordant items at
        :math:`\Delta_0 = 0`).

    Notes
    -----
    :math:`Z = (b - c - n\Delta_0)/\sqrt{n(2\tilde p_{21} + \Delta_0(1 - \Delta_0))}`
    with the restricted maximum-likelihood estimate :math:`\tilde p_{21}` of the cell
    "only B right" given in :func:`tango_paired_interval`. At :math:`\Delta_0 = 0` it is
    McNemar's :math:`(b - c)/\sqrt{b + c}`.

    References
    ----------
    .. [1] Tango, T. (1998). Equivalence test and confidence interval for the difference in
           proportions for the paired-sample design. Statist. Med. 17(8), 891-908.
    .. [2] Nam, J. (1997). Establishing equivalence of two treatments and sample size requirements
           in matched-pairs design. Biometrics 53(4), 1422-1430.

    Examples
    --------
    >>> round(float(tango_statistic(np.array(0.0), 12, 4, 100)), 4)  # (12 - 4) / sqrt(16)
    2.0
    """
    b = np.asarray(a_only, dtype=np.float64)
    c = np.asarray(b_only, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _tango_z(np.asarray(delta0, dtype=np.float64), b, c, n)


def tango_paired_interval(
    a_only: np.ndarray,
    b_only: np.ndarray,
    n: np.ndarray,
    *,
    confidence: float = 0.95,
    iterations: int = 56,
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

    References
    ----------
    .. [1] Tango, T. (1998). Equivalence test and confidence interval for the difference in
           proportions for the paired-sample design. Statist. Med. 17(8), 891-908.
    .. [2] Nam, J. (1997). Establishing equivalence of two treatments and sample size requirements
           in matched-pairs design. Biometrics 53(4), 1422-1430.
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


def farrington_manning_restricted(
    delta0: np.ndarray, p_a: np.ndarray, n_a: np.ndarray, p_b: np.ndarray, n_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Maximum-likelihood estimate of (p_a, p_b) restricted to p_a − p_b = delta0, from
    observed proportions p_a, p_b of n_a and n_b trials.

    Notes
    -----
    The root of Miettinen & Nurminen's (1985) cubic in the trigonometric form of
    Farrington & Manning (1990, §2), with θ = n_b/n_a, :math:`a = 1 + θ`,
    :math:`b = -(1 + θ + \\hat p_a + θ\\hat p_b + δ_0(θ + 2))`,
    :math:`c = δ_0^2 + δ_0(2\\hat p_a + θ + 1) + \\hat p_a + θ\\hat p_b`,
    :math:`d = -\\hat p_a δ_0(1 + δ_0)`. (statsmodels 0.15's
    ``test_proportions_2indep(method="score", value=...)`` has a wrong linear
    coefficient for non-zero values, statsmodels issue #10269.)

    References
    ----------
    .. [1] Farrington, C. P. & Manning, G. (1990). Test statistics and sample size formulae for
           comparative binomial trials with null hypothesis of non-zero risk difference or non-unity
           relative risk. Statist. Med. 9(12), 1447-1454.
    .. [2] Miettinen, O. & Nurminen, M. (1985). Comparative analysis of two rates. Statist. Med.
           4(2), 213-226.
    """
    theta = n_b / n_a
    a = 1 + theta
    b = -(1 + theta + p_a + theta * p_b + delta0 * (theta + 2))
    c = delta0 * delta0 + delta0 * (2 * p_a + theta + 1) + p_a + theta * p_b
    d = -p_a * delta0 * (1 + delta0)
    v = b**3 / (27 * a**3) - b * c / (6 * a * a) + d / (2 * a)
    u = np.sign(v) * np.sqrt(np.maximum(b * b / (9 * a * a) - c / (3 * a), 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(u == 0, 0.0, v / u**3)
    w = (np.pi + np.arccos(np.clip(ratio, -1.0, 1.0))) / 3
    pa = np.clip(2 * u * np.cos(w) - b / (3 * a), 0.0, 1.0)
    pb = np.clip(pa - delta0, 0.0, 1.0)
    return pa, pb


def farrington_manning_statistic(
    delta0: np.ndarray, k_a: np.ndarray, n_a: np.ndarray, k_b: np.ndarray, n_b: np.ndarray
) -> np.ndarray:
    r"""Farrington & Manning's (1990) score statistic for :math:`H_0: p_a - p_b =
    \Delta_0` of two independent proportions.

    Parameters
    ----------
    delta0
        The null difference, in (−1, 1).
    k_a, n_a, k_b, n_b
        Successes and trials of A and B.

    Returns
    -------
    numpy.ndarray
        Z, approximately standard normal at the null, decreasing in ``delta0``; large
        values are evidence that :math:`p_a - p_b > \Delta_0`. NaN when the restricted
        variance is 0 (both samples all 0 or all 1 at :math:`\Delta_0 = 0`).

    Notes
    -----
    :math:`Z = (\hat p_a - \hat p_b - \Delta_0)/\sqrt{\tilde p_a(1-\tilde p_a)/n_a +
    \tilde p_b(1 - \tilde p_b)/n_b}`, where :math:`(\tilde p_a, \tilde p_b)` is the
    maximum-likelihood estimate under :math:`\tilde p_a - \tilde p_b = \Delta_0` (a
    cubic, solved in closed form). It is Miettinen & Nurminen's statistic without their
    :math:`n/(n-1)` variance factor, and at :math:`\Delta_0 = 0` the pooled
    two-proportion z (statsmodels ``test_proportions_2indep(method="score",
    correction=False, value=delta0)``).

    References
    ----------
    .. [1] Farrington, C. P. & Manning, G. (1990). Test statistics and sample size formulae for
           comparative binomial trials with null hypothesis of non-zero risk difference or non-unity
           relative risk. Statist. Med. 9(12), 1447-1454.
    .. [2] Miettinen, O. & Nurminen, M. (1985). Comparative analysis of two rates. Statist. Med.
           4(2), 213-226.

    Examples
    --------
    >>> round(float(farrington_manning_statistic(np.array(-0.1), 70, 100, 75, 100)), 4)
    0.7943

    The restricted MLE found by maximising the likelihood numerically gives the same:

    >>> from scipy import optimize
    >>> def nll(p_b):
    ...     p_a = p_b - 0.1
    ...     return -(70 * np.log(p_a) + 30 * np.log(1 - p_a)
    ...              + 75 * np.log(p_b) + 25 * np.log(1 - p_b))
    >>> p_b = optimize.minimize_scalar(nll, bounds=(0.1 + 1e-9, 1 - 1e-9), method="bounded",
    ...                                options={"xatol": 1e-10}).x
    >>> p_a = p_b - 0.1
    >>> z = (0.70 - 0.75 + 0.1) / np.sqrt(p_a * (1 - p_a) / 100 + p_b * (1 - p_b) / 100)
    >>> round(float(z), 4)
    0.7943
    """
    k_a, n_a = np.asarray(k_a, dtype=np.float64), np.asarray(n_a, dtype=np.float64)
    k_b, n_b = np.asarray(k_b, dtype=np.float64), np.asarray(n_b, dtype=np.float64)
    delta0 = np.asarray(delta0, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_a, p_b = k_a / n_a, k_b / n_b
        ta, tb = farrington_manning_restricted(delta0, p_a, n_a, p_b, n_b)
        var = ta * (1 - ta) / n_a + tb * (1 - tb) / n_b
        num = p_a - p_b - delta0
        return np.where(num == 0, np.where(var > 0, 0.0, np.nan), num / np.sqrt(var))


def farrington_manning_interval(
    k_a: np.ndarray,
    n_a: np.ndarray,
    k_b: np.ndarray,
    n_b: np.ndarray,
    *,
    confidence: float = 0.95,
    iterations: int = 56,
) -> tuple[np.ndarray, np.ndarray]:
    r"""Score interval for ``p_a − p_b`` of independent proportions: the differences the
    Farrington-Manning test does not reject (:func:`farrington_manning_statistic`).

    Notes
    -----
    The limits solve :math:`Z(\Delta_0) = \pm z_{(1+c)/2}`, found by bisection on
    (−1, 1), vectorised; Miettinen & Nurminen's (1985) interval without their
    :math:`n/(n-1)` factor (statsmodels ``confint_proportions_2indep(method="score",
    correction=False)``). It contains 0 exactly when the pooled two-proportion z test
    does not reject at ``1 − confidence``.

    References
    ----------
    .. [1] Farrington, C. P. & Manning, G. (1990). Test statistics and sample size formulae for
           comparative binomial trials with null hypothesis of non-zero risk difference or non-unity
           relative risk. Statist. Med. 9(12), 1447-1454.
    .. [2] Miettinen, O. & Nurminen, M. (1985). Comparative analysis of two rates. Statist. Med.
           4(2), 213-226.
    """
    k_a, n_a = np.asarray(k_a, dtype=np.float64), np.asarray(n_a, dtype=np.float64)
    k_b, n_b = np.asarray(k_b, dtype=np.float64), np.asarray(n_b, dtype=np.float64)
    k_a, n_a, k_b, n_b = np.broadcast_arrays(k_a, n_a, k_b, n_b)
    z = _z(confidence)
    limits = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for target in (z, -z):
            lo = np.full(k_a.shape, -1.0)
            hi = np.full(k_a.shape, 1.0)
            for _ in range(iterations):
                mid = (lo + hi) / 2
                stat = farrington_manning_statistic(mid, k_a, n_a, k_b, n_b)
                # a NaN statistic (zero variance at 0) counts as "not rejected"
                above = np.nan_to_num(stat, nan=0.0) > target
                lo = np.where(above, mid, lo)
                hi = np.where(above, hi, mid)
            limits.append((lo + hi) / 2)
    low, high = limits
    invalid = (n_a <= 0) | (n_b <= 0)
    return np.where(invalid, np.nan, low), np.where(invalid, np.nan, high)
