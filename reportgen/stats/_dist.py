"""The distribution functions the tests need, from :mod:`scipy.special` alone.

``import scipy.stats`` takes about a second on a 2-core machine (its distributions
build their docstrings when imported), several times what a whole ``reportgen analyze``
of a mid-sized benchmark computes. The tests on the common path need only a few
distribution functions, each an ufunc of :mod:`scipy.special`, so they call these thin
wrappers and ``scipy.stats`` is imported, inside the function that needs it, only by the
rarer methods that use one of its objects (the hypergeometric label shuffle, the
noncentral t). The studentized range of infinitely many degrees of freedom (Nemenyi's
test, the simultaneous rank intervals of independent means) is integrated here. The
Landau distribution of the harmonic mean p-value is the one function here that
:mod:`scipy.special` does not name publicly: :func:`landau_sf` calls the ufunc
``scipy.stats.landau`` itself calls, and ``scipy.stats`` where a scipy release lacks it.

Each function computes what the ``scipy.stats`` method of the same name computes, with
the same edge values (``tests/stats/test_dist.py`` checks them against
``scipy.stats`` to 1e-12 relative over the ranges reportgen uses: equal bits for the
normal, t, beta, chi-squared and F functions; the binomial differs in the last bits,
since ``scipy.stats.binom`` evaluates the same incomplete beta function with more
internal precision than :func:`scipy.special.betainc`; :func:`beta_ppf` gives NaN for
probabilities below about 1e-170, which ``scipy.stats.beta.ppf`` still inverts).

The binomial functions take counts (``k`` is floored as ``scipy.stats.binom`` does);
``n`` is a non-negative whole number and ``p`` in [0, 1].
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

__all__ = [
    "beta_ppf",
    "binom_cdf",
    "binom_sf",
    "chi2_sf",
    "f_sf",
    "landau_sf",
    "studentized_range_cdf",
    "studentized_range_ppf",
    "studentized_range_sf",
    "norm_cdf",
    "norm_isf",
    "norm_pdf",
    "norm_ppf",
    "norm_sf",
    "t_cdf",
    "t_isf",
    "t_ppf",
    "t_sf",
]

_SQRT_2PI = float(np.sqrt(2 * np.pi))


def norm_cdf(x: Any) -> Any:
    """:math:`\\Phi(x)`, the standard normal CDF (``scipy.stats.norm.cdf``).

    References
    ----------
    .. [1] Abramowitz, M. & Stegun, I. A. (1964). Handbook of Mathematical Functions,
           §26.2 (the normal distribution).

    Examples
    --------
    >>> round(float(norm_cdf(1.959963984540054)), 6)
    0.975
    """
    return special.ndtr(x)


def norm_sf(x: Any) -> Any:
    """:math:`1 - \\Phi(x)`, computed as :math:`\\Phi(-x)` (``scipy.stats.norm.sf``).

    References
    ----------
    .. [1] Abramowitz, M. & Stegun, I. A. (1964). Handbook of Mathematical Functions, §26.2.

    Examples
    --------
    >>> float(norm_sf(30.0)) > 0  # 4.9e-198: no cancellation in the upper tail
    True
    """
    return special.ndtr(-np.asarray(x, dtype=np.float64))


def norm_ppf(q: Any) -> Any:
    """:math:`\\Phi^{-1}(q)` (``scipy.stats.norm.ppf``; NaN outside [0, 1]).

    References
    ----------
    .. [1] Abramowitz, M. & Stegun, I. A. (1964). Handbook of Mathematical Functions, §26.2.

    Examples
    --------
    >>> round(float(norm_ppf(0.975)), 6)
    1.959964
    """
    return special.ndtri(q)


def norm_isf(q: Any) -> Any:
    """:math:`\\Phi^{-1}(1 - q)`, computed as :math:`-\\Phi^{-1}(q)`
    (``scipy.stats.norm.isf``).

    References
    ----------
    .. [1] Abramowitz, M. & Stegun, I. A. (1964). Handbook of Mathematical Functions, §26.2.

    Examples
    --------
    >>> round(float(norm_isf(0.025)), 6)
    1.959964
    """
    return -special.ndtri(q)


def norm_pdf(x: Any) -> Any:
    """:math:`\\exp(-x^2/2) / \\sqrt{2\\pi}` (``scipy.stats.norm.pdf``).

    References
    ----------
    .. [1] Abramowitz, M. & Stegun, I. A. (1964). Handbook of Mathematical Functions, §26.2.

    Examples
    --------
    >>> round(float(norm_pdf(0.0)), 6)
    0.398942
    """
    x = np.asarray(x, dtype=np.float64)
    out = np.exp(-(x**2) / 2.0) / _SQRT_2PI
    return out[()] if out.ndim == 0 else out


def _quantile_ends(q: Any, inner: Any, at_zero: float, at_one: float) -> Any:
    """``inner`` with the values at q = 0 and q = 1 set as ``scipy.stats`` sets them (its
    ``ppf``/``isf`` do not ask the special function at the ends of the support)."""
    q = np.asarray(q, dtype=np.float64)
    out = np.where(q == 0, at_zero, np.where(q == 1, at_one, inner))
    return out[()] if out.ndim == 0 else out


def t_cdf(x: Any, df: Any) -> Any:
    """Student's t CDF with ``df`` degrees of freedom (``scipy.stats.t.cdf``; the normal
    CDF at ``df = inf``, NaN for ``df <= 0``).

    References
    ----------
    .. [1] Abramowitz, M. & Stegun, I. A. (1964). Handbook of Mathematical Functions,
           §26.7 (Student's t distribution).

    Examples
    --------
    >>> round(float(t_cdf(2.0, 10)), 6)
    0.963306
    """
    return special.stdtr(df, x)


def t_sf(x: Any, df: Any) -> Any:
    """:math:`P(T > x)` for Student's t, computed as the CDF at :math:`-x`
    (``scipy.stats.t.sf``).

    References
    ----------
    .. [1] Abramowitz, M. & Stegun, I. A. (1964). Handbook of Mathematical Functions, §26.7.

    Examples
    --------
    >>> round(float(2 * t_sf(2.0, 10)), 6)  # the two-sided p of t = 2 on 10 df
    0.073388
    """
    return special.stdtr(df, -np.asarray(x, dtype=np.float64))


def t_ppf(q: Any, df: Any) -> Any:
    """The ``q`` quantile of Student's t (``scipy.stats.t.ppf``).

    References
    ----------
    .. [1] Abramowitz, M. & Stegun, I. A. (1964). Handbook of Mathematical Functions, §26.7.

    Examples
    --------
    >>> round(float(t_ppf(0.975, 10)), 6)
    2.228139
    """
    return _quantile_ends(q, special.stdtrit(df, q), -np.inf, np.inf)


def t_isf(q: Any, df: Any) -> Any:
    """The ``1 - q`` quantile of Student's t, computed as :math:`-F^{-1}(q)`
    (``scipy.stats.t.isf``).

    References
    ----------
    .. [1] Abramowitz, M. & Stegun, I. A. (1964). Handbook of Mathematical Functions, §26.7.

    Examples
    --------
    >>> round(float(t_isf(0.025, 10)), 6)
    2.228139
    """
    return _quantile_ends(q, -special.stdtrit(df, q), np.inf, -np.inf)


def binom_cdf(k: Any, n: Any, p: Any) -> Any:
    """:math:`P(K \\le k)` for :math:`K \\sim \\mathrm{Bin}(n, p)` (``scipy.stats.binom.cdf``:
    ``k`` floored, 0 below 0, 1 from ``n`` on).

    Notes
    -----
    :math:`P(K \\le k) = I_{1-p}(n - k, k + 1)`, the regularized incomplete beta
    function (Abramowitz & Stegun 26.5.24), evaluated by :func:`scipy.special.betainc`.

    References
    ----------
    .. [1] Abramowitz, M. & Stegun, I. A. (1964). Handbook of Mathematical Functions,
           26.5.24 (binomial sums as incomplete beta functions).

    Examples
    --------
    >>> float(binom_cdf(2, 10, 0.5)) * 2**10  # 1 + 10 + 45
    56.0
    """
    k = np.floor(np.asarray(k, dtype=np.float64))
    n = np.asarray(n, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    inside = (k >= 0) & (k < n)
    with np.errstate(invalid="ignore"):
        body = special.betainc(np.where(inside, n - k, 1.0), np.where(inside, k + 1, 1.0), 1 - p)
    out = np.where(inside, body, np.where(k < 0, 0.0, 1.0))
    out = np.where(np.isnan(k) | np.isnan(n) | np.isnan(p), np.nan, out)
    return out[()] if out.ndim == 0 else out


def binom_sf(k: Any, n: Any, p: Any) -> Any:
    """:math:`P(K > k)` for :math:`K \\sim \\mathrm{Bin}(n, p)` (``scipy.stats.binom.sf``:
    ``k`` floored, 1 below 0, 0 from ``n`` on).

    Notes
    -----
    :math:`P(K > k) = I_p(k + 1, n - k)` (Abramowitz & Stegun 26.5.24), by
    :func:`scipy.special.betainc`.

    References
    ----------
    .. [1] Abramowitz, M. & Stegun, I. A. (1964). Handbook of Mathematical Functions, 26.5.24.

    Examples
    --------
    >>> float(binom_sf(7, 10, 0.5)) * 2**10  # P(K >= 8): 45 + 10 + 1
    56.0
    """
    k = np.floor(np.asarray(k, dtype=np.float64))
    n = np.asarray(n, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    inside = (k >= 0) & (k < n)
    with np.errstate(invalid="ignore"):
        body = special.betainc(np.where(inside, k + 1, 1.0), np.where(inside, n - k, 1.0), p)
    out = np.where(inside, body, np.where(k < 0, 1.0, 0.0))
    out = np.where(np.isnan(k) | np.isnan(n) | np.isnan(p), np.nan, out)
    return out[()] if out.ndim == 0 else out


def _below_support(x: Any, inner: Any) -> Any:
    """``inner`` with 1 where ``x < 0`` (the survival function below a support that
    starts at 0, as ``scipy.stats`` gives it)."""
    out = np.where(np.asarray(x) < 0, 1.0, inner)
    return out[()] if out.ndim == 0 else out


def chi2_sf(x: Any, df: Any) -> Any:
    """:math:`P(\\chi^2_{df} > x)` (``scipy.stats.chi2.sf``).

    References
    ----------
    .. [1] Abramowitz, M. & Stegun, I. A. (1964). Handbook of Mathematical Functions,
           §26.4 (the chi-square distribution).

    Examples
    --------
    >>> round(float(chi2_sf(3.841458820694124, 1)), 6)
    0.05
    """
    return _below_support(x, special.chdtrc(df, np.maximum(x, 0.0)))


def f_sf(x: Any, dfn: Any, dfd: Any) -> Any:
    """:math:`P(F_{dfn, dfd} > x)` (``scipy.stats.f.sf``).

    References
    ----------
    .. [1] Abramowitz, M. & Stegun, I. A. (1964). Handbook of Mathematical Functions,
           §26.6 (the F distribution).

    Examples
    --------
    >>> round(float(f_sf(1.0, 10, 10)), 6)
    0.5
    """
    return _below_support(x, special.fdtrc(dfn, dfd, np.maximum(x, 0.0)))


def beta_ppf(q: Any, a: Any, b: Any) -> Any:
    """The ``q`` quantile of Beta(``a``, ``b``) (``scipy.stats.beta.ppf``), the inverse of
    the regularized incomplete beta function.

    References
    ----------
    .. [1] Abramowitz, M. & Stegun, I. A. (1964). Handbook of Mathematical Functions,
           §26.5 (the incomplete beta function).

    Examples
    --------
    >>> round(float(beta_ppf(0.5, 2, 2)), 6)
    0.5
    """
    return special.betaincinv(a, b, q)


def landau_sf(x: Any, loc: float, scale: float) -> Any:
    """:math:`P(X > x)` for the Landau distribution ``scipy.stats.landau(loc, scale)``
    (the stable law with α = 1, β = 1 in Nolan's S0 parametrisation).

    Notes
    -----
    ``scipy.stats.landau.sf`` evaluates ``scipy.special._ufuncs._landau_sf`` (Boost's
    Landau distribution) at :math:`(x - \\mu)/\\sigma`; this calls the same ufunc, and
    ``scipy.stats`` only on a scipy release without it.

    References
    ----------
    .. [1] Landau, L. (1944). On the energy loss of fast particles by ionization. J. Phys.
           USSR 8, 201-205.
    .. [2] Nolan, J. P. (2020). Univariate Stable Distributions. Springer, §1.3 (the S0
           parametrisation).

    Examples
    --------
    >>> round(float(landau_sf(10.0, 0.0, 1.0)), 6)
    0.070897
    """
    z = (np.asarray(x, dtype=np.float64) - loc) / scale
    try:
        from scipy.special._ufuncs import _landau_sf
    except ImportError:  # pragma: no cover - a scipy release without it
        from scipy import stats

        return stats.landau.sf(z)
    return _landau_sf(z, 0.0, 1.0)


#: The trapezoid rule's nodes for the studentized range: z in [-9, 9] by 1/16 (the
#: normal density beyond carries less than 1e-18; the integrand is smooth, so the rule
#: converges geometrically: 5e-14 from a grid four times finer up to 1,000 means).
_SR_STEP = 1.0 / 16.0
_SR_NODES = np.arange(-9.0, 9.0 + _SR_STEP / 2, _SR_STEP)


def studentized_range_cdf(q: Any, k: int) -> Any:
    """:math:`P(R \\le q)` for the range R of ``k`` independent standard normal
    variables (``scipy.stats.studentized_range.cdf(q, k, numpy.inf)``).

    Notes
    -----
    :math:`P(R \\le q) = k \\int \\varphi(z)\\,[\\Phi(z + q) - \\Phi(z)]^{k-1}\\,dz`
    (the smallest of the k is z, the others within q above it; Hartley 1942), by the
    trapezoid rule on :data:`_SR_NODES`, once per distinct ``q``. It agrees with
    scipy's adaptive quadrature to 5e-14 (``tests/stats/test_dist.py``).

    References
    ----------
    .. [1] Hartley, H. O. (1942). The range in random samples. Biometrika 32(3/4), 334-348.
    .. [2] Trefethen, L. N. & Weideman, J. A. C. (2014). The exponentially convergent trapezoidal
           rule. SIAM Review 56(3), 385-458.

    Examples
    --------
    >>> round(float(studentized_range_cdf(3.314493155398122, 3)), 10)
    0.95
    """
    q = np.asarray(q, dtype=np.float64)
    values, inverse = np.unique(q.ravel(), return_inverse=True)
    z = _SR_NODES
    density = np.exp(-(z**2) / 2.0) / _SQRT_2PI
    out = np.empty(len(values))
    for start in range(0, len(values), 256):  # blocks of 256 x 289 nodes
        v = values[start : start + 256]
        inside = special.ndtr(z[None, :] + v[:, None]) - special.ndtr(z)[None, :]
        out[start : start + 256] = k * _SR_STEP * (density * inside ** (k - 1)).sum(axis=1)
    out = np.where(values <= 0, 0.0, np.clip(out, 0.0, 1.0))
    out = np.where(np.isposinf(values), 1.0, np.where(np.isnan(values), np.nan, out))
    result = out[inverse].reshape(q.shape)
    return result[()] if result.ndim == 0 else result


def studentized_range_sf(q: Any, k: int) -> Any:
    """:math:`P(R > q) = 1 - P(R \\le q)` (``scipy.stats.studentized_range.sf(q, k,
    numpy.inf)``, which is also the complement of its CDF: accurate to about 1e-15 in
    absolute terms, not relative in the far tail).

    References
    ----------
    .. [1] Hartley, H. O. (1942). The range in random samples. Biometrika 32(3/4), 334-348.

    Examples
    --------
    >>> round(float(studentized_range_sf(3.314493155398122, 3)), 10)
    0.05
    """
    return 1.0 - studentized_range_cdf(q, k)


def studentized_range_ppf(p: float, k: int) -> float:
    """The ``p`` quantile of the range of ``k`` independent standard normal variables
    (``scipy.stats.studentized_range.ppf(p, k, numpy.inf)``), by Brent's method on
    :func:`studentized_range_cdf`.

    References
    ----------
    .. [1] Hartley, H. O. (1942). The range in random samples. Biometrika 32(3/4), 334-348.
    .. [2] Brent, R. P. (1973). Algorithms for Minimization without Derivatives. Prentice-Hall,
           ch. 4.

    Examples
    --------
    >>> round(studentized_range_ppf(0.95, 3), 6)  # Tukey's q for 3 means, infinite df
    3.314493
    """
    from reportgen.stats._roots import brent_root

    p = float(p)
    if not 0.0 < p < 1.0:
        return 0.0 if p == 0.0 else (math.inf if p == 1.0 else math.nan)
    hi = 4.0
    while float(studentized_range_cdf(hi, k)) < p:
        hi *= 2.0
    return brent_root(
        lambda x: float(studentized_range_cdf(x, k)) - p, 0.0, hi, xtol=1e-15, rtol=4.5e-16
    )
