"""Multiple-comparison corrections of p-values.

Family-wise error rate (FWER): ``holm-sidak`` (the default of Ackerman et al. 2025, §4.2), ``holm``,
``bonferroni``, ``sidak``. False discovery rate (FDR): ``fdr_bh`` (Benjamini-Hochberg,
valid under independence and positive regression dependence) and ``fdr_by``
(Benjamini-Yekutieli, any dependence). ``none`` leaves the p-values as they are.

*Multiple-Testing Corrections for Modern Language Model Benchmark Suites* (clawRxiv
2604.01973, 2026, §4) recommends Holm for claims about individual comparisons and BH for
aggregate claims ("wins on more subtasks"), and always reporting raw and adjusted p-values.

A family is decided once, with the adjusted interval of every comparison and what the
intervals promise (:func:`interval_plan`, :data:`reportgen.names.IntervalKind`):
simultaneous for Bonferroni and Šidák, step-down compatible for Holm and Holm-Šidák
(Strassburger & Bretz 2008), FCR for BH and BY (Benjamini & Yekutieli 2005), unadjusted
without a correction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from reportgen.errors import InputError
from reportgen.names import CORRECTIONS, Correction, IntervalKind

__all__ = [
    "CORRECTIONS",
    "REJECT_RTOL",
    "Correction",
    "IntervalKind",
    "IntervalPlan",
    "adjust_pvalues",
    "compatible_intervals",
    "decision_levels",
    "interval_kind",
    "interval_plan",
    "rejects",
    "single_step_level",
]

#: The relative tolerance of a decision ``p_adjusted <= alpha``: a p-value exactly at
#: its threshold (0.01 with Bonferroni over 5 at α = 0.05) computes to
#: 0.05000000000000001 when multiplied back; statsmodels, which compares the raw p with
#: α/m, rejects it, and so does reportgen. Far above the rounding of the adjustments
#: (a few units in the last place), far below any difference a p-value can mean.
REJECT_RTOL = 1e-12


def rejects(p_adjusted: np.ndarray, alpha: float) -> np.ndarray:
    """The decisions ``p_adjusted <= alpha`` within :data:`REJECT_RTOL` (False for NaN).

    References
    ----------
    .. [1] Seabold, S. & Perktold, J. (2010). statsmodels: econometric and statistical
           modeling with Python. Proc. 9th Python in Science Conf. (``multipletests``
           compares the raw p-value with α/m).

    Examples
    --------
    >>> p = np.array([0.05 / 11] + [0.9] * 10)
    >>> float(adjust_pvalues(p, method="bonferroni")[0]) > 0.05  # rounding: above by 1 ulp
    True
    >>> rejects(adjust_pvalues(p, method="bonferroni"), 0.05).tolist()[:2]
    [True, False]
    >>> from statsmodels.stats.multitest import multipletests
    >>> [bool(x) for x in multipletests(p, alpha=0.05, method="bonferroni")[0][:2]]
    [True, False]
    """
    p = np.asarray(p_adjusted, dtype=np.float64)
    return np.asarray(np.nan_to_num(p, nan=2.0) <= alpha * (1.0 + REJECT_RTOL), dtype=bool)


def _adjust_iv(pvalues: np.ndarray, method: str) -> np.ndarray:
    if method not in CORRECTIONS:
        raise InputError(
            f"unknown correction {method!r}", hint=f"use one of: {', '.join(CORRECTIONS)}"
        )
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise InputError(f"p-values must be one-dimensional, got shape {p.shape}")
    finite = p[~np.isnan(p)]
    if np.any((finite < 0) | (finite > 1)):
        raise InputError(
            "p-values must lie in [0, 1]", hint=f"got values from {finite.min()} to {finite.max()}"
        )
    return p


def adjust_pvalues(pvalues: np.ndarray, *, method: Correction = "holm-sidak") -> np.ndarray:
    """Adjusted p-values for a family of tests.

    Parameters
    ----------
    pvalues
        Raw p-values, 1-D. NaN entries (tests that could not be computed) are left NaN
        and do not count in the family size.
    method
        The correction (module docstring).

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, same shape, in [0, 1]; ``adjusted <= alpha`` rejects with the
        procedure's error control at level ``alpha``.

    Notes
    -----
    With sorted p-values :math:`p_{(1)} \\le \\dots \\le p_{(m)}`:

    * Bonferroni: :math:`\\min(1, m p)`; Šidák: :math:`1 - (1 - p)^m`.
    * Holm (step-down): :math:`\\max_{j \\le i} \\min(1, (m - j + 1) p_{(j)})`.
    * Holm-Šidák (step-down): :math:`\\max_{j \\le i} 1 - (1 - p_{(j)})^{m - j + 1}`.
    * BH (step-up): :math:`\\min_{j \\ge i} \\min(1, m p_{(j)} / j)`; BY multiplies by
      :math:`c_m = \\sum_{k=1}^m 1/k`.

    The same definitions as statsmodels' ``multipletests``.

    References
    ----------
    .. [1] Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand. J.
           Statist. 6(2), 65-70.
    .. [2] Šidák, Z. (1967). Rectangular confidence regions for the means of multivariate normal
           distributions. J. Amer. Statist. Assoc. 62(318), 626-633.
    .. [3] Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate: a practical
           and powerful approach to multiple testing. J. R. Statist. Soc. B 57(1), 289-300.
    .. [4] Benjamini, Y. & Yekutieli, D. (2001). The control of the false discovery rate in multiple
           testing under dependency. Ann. Statist. 29(4), 1165-1188.
    .. [5] Ackerman, S., Farchi, E., Raz, O. & Toledo, A. (2025). Statistical multi-metric
           evaluation and ranking of LLM-based systems. arXiv:2501.18243, §4.2 (Holm-Šidák).
    .. [6] Multiple-testing corrections for modern language model benchmark suites (2026). clawRxiv
           2604.01973, §4 (Holm for individual claims, BH for aggregate ones).

    Examples
    --------
    >>> adjust_pvalues(np.array([0.01, 0.04, 0.03]), method="holm")
    array([0.03, 0.06, 0.06])

    By hand: sorted 0.01, 0.03, 0.04 give 3 x 0.01, max(0.03, 2 x 0.03), max(0.06, 0.04).
    The same as statsmodels:

    >>> from statsmodels.stats.multitest import multipletests
    >>> multipletests([0.01, 0.04, 0.03], method="holm")[1].round(4)
    array([0.03, 0.06, 0.06])
    """
    p = _adjust_iv(pvalues, method)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if method == "none" or not ok.any():
        out[ok] = p[ok]
        return out
    out[ok] = _adjust_finite(p[ok], method)
    return out


def _adjust_finite(p: np.ndarray, method: str) -> np.ndarray:
    m = p.size
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    if method == "sidak":
        with np.errstate(divide="ignore"):
            return -np.expm1(m * np.log1p(-p))
    order = np.argsort(p, kind="stable")
    sorted_p = p[order]
    rank = np.arange(1, m + 1)
    if method == "holm":
        stepped = np.minimum(1.0, sorted_p * (m - rank + 1))
        adjusted = np.maximum.accumulate(stepped)
    elif method == "holm-sidak":
        # 1 - (1 - p)^(m - j + 1), computed without cancellation for small p
        with np.errstate(divide="ignore"):  # p = 1 gives log(0) = -inf and 1 - 0 = 1
            stepped = -np.expm1((m - rank + 1) * np.log1p(-sorted_p))
        adjusted = np.maximum.accumulate(stepped)
    else:  # fdr_bh, fdr_by
        factor = np.sum(1.0 / rank) if method == "fdr_by" else 1.0
        stepped = sorted_p * m * factor / rank
        adjusted = np.minimum(1.0, np.minimum.accumulate(stepped[::-1])[::-1])
    out = np.empty(m)
    out[order] = np.clip(adjusted, 0.0, 1.0)
    return out


def decision_levels(
    pvalues: np.ndarray, *, alpha: float, method: Correction = "holm-sidak"
) -> np.ndarray:
    """The per-comparison level at which each raw p-value is decided by ``method``.

    Returns ``level`` with ``pvalues[i] <= level[i]`` exactly when
    ``adjust_pvalues(pvalues, method=method)[i] <= alpha`` (within :data:`REJECT_RTOL`,
    :func:`rejects`): the level
    of the test that decided each comparison. The adjusted intervals are made by
    :func:`interval_plan`. NaN p-values get a NaN level and do not count in the family.

    Parameters
    ----------
    pvalues
        Raw p-values of one family, 1-D.
    alpha
        The family's significance level, in (0, 1).
    method
        The correction (module docstring).

    Returns
    -------
    numpy.ndarray
        One level per p-value, in (0, alpha].

    Notes
    -----
    With ``m`` tests of which ``r`` are rejected:

    * none: ``alpha``; Bonferroni: ``alpha / m``; Šidák: ``1 - (1 - alpha)^(1/m)`` (the
      simultaneous intervals of the single-step procedures);
    * Holm, Holm-Šidák: the level of the step where the procedure stopped,
      ``alpha / (m - r)`` or ``1 - (1 - alpha)^(1/(m - r))`` (``alpha`` when every test
      is rejected). This is the level of the decision, not of an interval: the
      step-down compatible intervals of Strassburger & Bretz (2008) give the rejected
      comparisons only their sign unless all are rejected (:func:`interval_plan`);
    * BH, BY: ``r alpha / m`` (``r alpha / (m c_m)`` for BY; ``r = 1`` when nothing is
      rejected), the false-coverage-rate intervals of Benjamini & Yekutieli (2005)
      for the selected comparisons.

    References
    ----------
    .. [1] Strassburger, K. & Bretz, F. (2008). Compatible simultaneous lower confidence
           bounds for the Holm procedure and other Bonferroni-based closed tests. Statistics in
           Medicine 27(24), 4914-4927.
    .. [2] Guilbaud, O. (2008). Simultaneous confidence regions corresponding to Holm's
           step-down procedure and other closed-testing procedures. Biometrical Journal 50(5),
           678-692.
    .. [3] Benjamini, Y. & Yekutieli, D. (2005). False discovery rate-adjusted multiple
           confidence intervals for selected parameters. JASA 100(469), 71-81.

    Examples
    --------
    >>> decision_levels(np.array([0.01, 0.04, 0.03]), alpha=0.05, method="holm")
    array([0.025, 0.025, 0.025])

    Holm rejects 0.01 (at 0.05/3) and stops at its second step (0.03 > 0.05/2): the
    stopping level 0.05/2 separates the rejected p-value from the others.
    """
    p = _adjust_iv(pvalues, method)
    if not 0.0 < float(alpha) < 1.0:
        raise InputError(f"alpha must lie in (0, 1), got {alpha!r}")
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if m == 0:
        return out
    if method == "none":
        out[ok] = alpha
        return out
    rejected = int(np.sum(rejects(_adjust_finite(p[ok], method), alpha)))
    if method == "bonferroni":
        level = alpha / m
    elif method == "sidak":
        level = -np.expm1(np.log1p(-alpha) / m)
    elif method == "holm":
        level = alpha / (m - rejected) if rejected < m else alpha
    elif method == "holm-sidak":
        k = m - rejected if rejected < m else 1
        level = -np.expm1(np.log1p(-alpha) / k)
    else:  # fdr_bh, fdr_by
        factor = np.sum(1.0 / np.arange(1, m + 1)) if method == "fdr_by" else 1.0
        level = max(rejected, 1) * alpha / (m * factor)
    out[ok] = level
    return out


def compatible_intervals(
    diff: np.ndarray,
    pvalues: np.ndarray,
    levels: np.ndarray,
    *,
    alternative: str = "two-sided",
    ci_low: np.ndarray | None = None,
    ci_high: np.ndarray | None = None,
    confidence: float = 0.95,
    significant: np.ndarray | None = None,
    far_levels: np.ndarray | None = None,
    sign_only: np.ndarray | None = None,
    df: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Intervals of ``diff`` at the per-comparison ``levels`` that exclude 0 exactly when
    the comparison is ``significant`` (by default ``pvalues <= levels``).

    Each comparison's marginal interval (``ci_low``/``ci_high`` at ``confidence``) is
    carried to its level by the normal quantiles (the t quantiles with ``df`` degrees of
    freedom for a t interval), keeping its shape: each side's width times
    ``z(level) / z(1 - confidence)``; two-sided, the side toward 0 at ``levels``
    and the side away from it at ``far_levels`` (default: the same). Where that
    interval and the decision disagree (a test and an interval of different methods
    can, near the decision boundary, and a sign test or an exact test of counts beside
    an interval of the mean can anywhere), the interval is cut at 0 (significant: the
    end that crosses 0 is moved just off it, on the side of the estimate) or extended
    to 0 (not significant): the least change that agrees, never wider than the hull of
    the carried interval and 0. Without a marginal interval, the test-based interval of
    Miettinen (1976) is used: the standard error implied by the test,
    ``|diff| / z(p)``, times the level's quantile. ``sign_only`` comparisons get only
    their sign, one-sided from 0 (the rejected comparisons of a step-down family that
    are not all rejected: :func:`interval_plan`).

    Parameters
    ----------
    diff
        The estimated differences (the test's direction: ``alternative="greater"``
        tests ``diff > 0``).
    pvalues
        Their raw p-values (two-sided or one-sided as ``alternative``).
    levels
        The per-comparison levels of the side toward 0 (:func:`decision_levels`, or an
        :class:`IntervalPlan`'s).
    alternative
        ``"two-sided"``: two-sided intervals; ``"greater"`` (``"less"``): lower (upper)
        bounds, the other end NaN (unbounded).
    ci_low, ci_high, confidence
        The marginal two-sided intervals at ``confidence`` (optional).
    significant
        The decisions the intervals must agree with (default ``pvalues <= levels``).
    far_levels
        The level of the side away from 0 (two-sided; default ``levels``).
    sign_only
        The comparisons that get only their sign: ``(0, inf)`` or ``(-inf, 0)``,
        written with the open end NaN and the other just off 0.
    df
        The degrees of freedom of each marginal interval that is a t interval (inf or
        NaN for the others): it is carried by the ratio of t quantiles, which is exact.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Lower and upper ends (NaN where unbounded or not computable).

    Notes
    -----
    Carried interval, two-sided: ``diff - (diff - ci_low) r`` to ``diff + (ci_high -
    diff) r`` with ``r = z(1 - level/2) / z(1/2 + confidence/2)`` (t quantiles with
    ``df``): exact for Wald and t intervals, and an approximation that keeps a score or
    bootstrap interval's asymmetry otherwise.
    Test-based, two-sided: ``diff ± z(1 - level/2) |diff| / z(1 - p/2)``; it excludes 0
    iff ``p < level``. An end "just off 0" is the smallest float on the right side of
    0, so that the interval excludes 0 as the decision says.

    References
    ----------
    .. [1] Miettinen, O. S. (1976). Estimability and estimation in case-referent studies.
           American Journal of Epidemiology 103(2), 226-235 (test-based confidence
           limits).
    .. [2] Strassburger, K. & Bretz, F. (2008). Compatible simultaneous lower confidence
           bounds for the Holm procedure and other Bonferroni-based closed tests. Statistics in
           Medicine 27(24), 4914-4927 (bounds at 0 for the rejected hypotheses).

    Examples
    --------
    A difference of 0.1 with p = 0.05 (z = 1.96) has a 95 % interval ending at 0:

    >>> low, high = compatible_intervals(np.array([0.1]), np.array([0.05]), np.array([0.05]))
    >>> round(float(low[0]), 6), round(float(high[0]), 6)
    (0.0, 0.2)

    A sign test with 10 wins and 10 losses (p = 1) beside an interval of the mean that
    excludes 0 is extended to 0, not replaced:

    >>> compatible_intervals(np.array([0.5]), np.array([1.0]), np.array([0.05]),
    ...                      ci_low=np.array([0.25]), ci_high=np.array([0.74]))
    (array([0.]), array([0.74]))
    """
    from scipy.special import ndtri, stdtrit

    d = np.asarray(diff, dtype=np.float64)
    p = np.asarray(pvalues, dtype=np.float64)
    a = np.asarray(levels, dtype=np.float64)
    far = a if far_levels is None else np.asarray(far_levels, dtype=np.float64)
    sig = (p <= a) if significant is None else np.asarray(significant, dtype=bool)
    two_sided = alternative == "two-sided"
    nu = np.full(d.shape, np.inf) if df is None else np.asarray(df, dtype=np.float64)
    t_based = np.isfinite(nu) & (nu > 0)

    def z_quantile(level: np.ndarray) -> np.ndarray:
        return ndtri(1.0 - level / 2.0) if two_sided else ndtri(1.0 - level)

    def quantile(level: np.ndarray) -> np.ndarray:
        z = z_quantile(level)
        if not t_based.any():
            return z
        q = 1.0 - level / 2.0 if two_sided else 1.0 - level
        return np.where(t_based, stdtrit(np.where(t_based, nu, 1.0), q), z)

    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = _test_based(d, p, z_quantile(a), sig, alternative, ndtri)
        if ci_low is not None and ci_high is not None:
            # the side of 0 the estimate is on; an estimate within rounding of 0 (a
            # millionth of a millionth of its interval) is on neither
            c_lo, c_hi = np.asarray(ci_low, dtype=np.float64), np.asarray(ci_high, dtype=np.float64)
            width = np.fmax(np.abs(d - c_lo), np.abs(c_hi - d))
            side = np.where(np.abs(d) <= 1e-12 * np.nan_to_num(width), 0.0, np.sign(d))
            base = np.where(
                t_based,
                stdtrit(np.where(t_based, nu, 1.0), 0.5 + confidence / 2.0),
                ndtri(0.5 + confidence / 2.0),
            )
            # two-sided: the side toward 0 at the decision's level, the other at far
            level_low = np.where(side > 0, a, far) if two_sided else a
            level_high = np.where(side < 0, a, far) if two_sided else a
            c_low = d - (d - c_lo) * quantile(level_low) / base
            c_high = d + (c_hi - d) * quantile(level_high) / base
            if alternative == "greater":
                c_high = np.full(d.shape, np.nan)
            elif alternative == "less":
                c_low = np.full(d.shape, np.nan)
            carried = np.isfinite(c_low) | np.isfinite(c_high)
            low, high = np.where(carried, c_low, low), np.where(carried, c_high, high)
        low, high = _agree(d, low, high, sig, alternative)
        if sign_only is not None:
            low, high = _sign_only(d, low, high, np.asarray(sign_only, dtype=bool), alternative)
    return low, high


#: The end of an interval that excludes 0 by its sign alone: the smallest positive float.
_OFF_ZERO = float(np.nextafter(0.0, 1.0))


def _test_based(
    d: np.ndarray, p: np.ndarray, z_a: np.ndarray, sig: np.ndarray, alternative: str, ndtri: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Miettinen's test-based interval (NaN where the test implies no standard error:
    no difference, or p = 1)."""
    two_sided = alternative == "two-sided"
    z_p = ndtri(1.0 - p / 2.0) if two_sided else ndtri(1.0 - p)
    # the difference in the direction of the evidence ("less": the same on -diff)
    d_eff = -d if alternative == "less" else np.abs(d) if two_sided else d
    half = z_a * d_eff / z_p
    half = np.where(np.isfinite(half), half, np.nan)
    if two_sided:
        low, high = d - half, d + half
    elif alternative == "greater":
        low, high = d - half, np.full(d.shape, np.nan)
    else:
        low, high = np.full(d.shape, np.nan), d + half
    return low, high


def _agree(
    d: np.ndarray, low: np.ndarray, high: np.ndarray, sig: np.ndarray, alternative: str
) -> tuple[np.ndarray, np.ndarray]:
    """Cut at 0 the intervals of significant comparisons that reach it, extend to 0 the
    others' that exclude it."""
    up = sig & (d > 0) if alternative == "two-sided" else sig & (alternative == "greater")
    down = sig & (d < 0) if alternative == "two-sided" else sig & (alternative == "less")
    if alternative != "less":
        low = np.where(up & ~(low > 0), _OFF_ZERO, low)
        low = np.where(~sig & (low > 0), 0.0, low)
    if alternative != "greater":
        high = np.where(down & ~(high < 0), -_OFF_ZERO, high)
        high = np.where(~sig & (high < 0), 0.0, high)
    return low, high


def _sign_only(
    d: np.ndarray, low: np.ndarray, high: np.ndarray, only: np.ndarray, alternative: str
) -> tuple[np.ndarray, np.ndarray]:
    """The sign alone, one-sided from 0, for the comparisons ``only``."""
    nan = np.nan
    if alternative == "greater":
        return np.where(only, _OFF_ZERO, low), high
    if alternative == "less":
        return low, np.where(only, -_OFF_ZERO, high)
    up, down = only & (d > 0), only & (d < 0)
    low = np.where(up, _OFF_ZERO, np.where(down, nan, low))
    high = np.where(down, -_OFF_ZERO, np.where(up, nan, high))
    return low, high


def interval_kind(method: str, m: int) -> IntervalKind:
    """What the adjusted intervals of a family of ``m`` comparisons corrected by
    ``method`` promise (:data:`reportgen.names.IntervalKind`): ``unadjusted`` without a
    correction or for a family of one, ``simultaneous`` for Bonferroni and Šidák,
    ``step-down compatible`` for Holm and Holm-Šidák, ``FCR`` for BH and BY.

    References
    ----------
    .. [1] Strassburger, K. & Bretz, F. (2008). Compatible simultaneous lower confidence
           bounds for the Holm procedure and other Bonferroni-based closed tests. Statistics in
           Medicine 27(24), 4914-4927.
    .. [2] Benjamini, Y. & Yekutieli, D. (2005). False discovery rate-adjusted multiple
           confidence intervals for selected parameters. JASA 100(469), 71-81.

    Examples
    --------
    >>> interval_kind("holm-sidak", 6), interval_kind("fdr_bh", 6), interval_kind("holm", 1)
    ('step-down compatible', 'FCR', 'unadjusted')
    """
    if method == "none" or m <= 1:
        return "unadjusted"
    if method in ("bonferroni", "sidak"):
        return "simultaneous"
    if method in ("holm", "holm-sidak"):
        return "step-down compatible"
    return "FCR"


@dataclass(frozen=True)
class IntervalPlan:
    """How the adjusted interval of each comparison of a family is made, decided once
    for the family (:func:`interval_plan`), one entry per comparison.

    Attributes
    ----------
    kind
        What the intervals promise together (:func:`interval_kind`).
    significant
        The family's decisions (:func:`rejects` of the adjusted p-values), False for a
        comparison whose p-value is only approximate.
    level
        The per-comparison level of each interval's side toward 0 (its
        ``confidence_adjusted`` is ``1 − level``); for a sign-only comparison the
        family's α, at which its sign is claimed.
    far_level
        The level of a two-sided interval's side away from 0.
    sign_only
        The comparisons that get only their sign (a one-sided interval from 0).
    """

    kind: IntervalKind
    significant: np.ndarray
    level: np.ndarray
    far_level: np.ndarray
    sign_only: np.ndarray

    def __getitem__(self, index: Any) -> IntervalPlan:
        """The plan of some comparisons of the family (a slice or an index array)."""
        return IntervalPlan(
            self.kind,
            self.significant[index],
            self.level[index],
            self.far_level[index],
            self.sign_only[index],
        )

    def without(self, approximate: np.ndarray) -> IntervalPlan:
        """This plan with the ``approximate`` comparisons not significant (their
        intervals contain 0), the others as decided."""
        off = np.asarray(approximate, dtype=bool)
        if not off.any():
            return self
        return IntervalPlan(
            self.kind,
            self.significant & ~off,
            self.level,
            self.far_level,
            self.sign_only & ~off,
        )

    def intervals(
        self,
        diff: np.ndarray,
        pvalues: np.ndarray,
        *,
        alternative: str = "two-sided",
        ci_low: np.ndarray | None = None,
        ci_high: np.ndarray | None = None,
        confidence: float = 0.95,
        df: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The adjusted intervals (:func:`compatible_intervals` with this plan)."""
        return compatible_intervals(
            diff,
            pvalues,
            self.level,
            alternative=alternative,
            ci_low=ci_low,
            ci_high=ci_high,
            confidence=confidence,
            significant=self.significant,
            far_levels=self.far_level,
            sign_only=self.sign_only,
            df=df,
        )


def interval_plan(
    pvalues: np.ndarray,
    *,
    alpha: float,
    method: Correction = "holm-sidak",
    approximate: np.ndarray | None = None,
) -> IntervalPlan:
    """The decisions of a family and the adjusted interval each comparison gets.

    Parameters
    ----------
    pvalues
        Raw p-values of the family, 1-D; NaN entries are not in it (not significant,
        NaN levels).
    alpha
        The family's error rate, in (0, 1).
    method
        The correction.
    approximate
        Comparisons whose p-value and interval are only approximate (heavily skewed
        differences of a mean): they stay in the family, as decided, but are not
        significant and their intervals contain 0.

    Returns
    -------
    IntervalPlan

    Notes
    -----
    With ``m`` comparisons of which ``r`` are rejected (adjusted p ≤ α within
    :data:`REJECT_RTOL`) and the single-step level ``α₁`` (Bonferroni α/m; Šidák and
    Holm-Šidák :math:`1 - (1 - α)^{1/m}`):

    * ``none`` or m = 1: every interval at α (``unadjusted``).
    * Bonferroni, Šidák: every interval at α₁, together covering with probability at
      least 1 − α (``simultaneous``; Šidák for independent or positively dependent
      comparisons).
    * Holm, Holm-Šidák (``step-down compatible``, Strassburger & Bretz 2008, Guilbaud
      2008): when not every comparison is rejected, a rejected one gets only its sign
      (a bound at 0), and one not rejected the bound toward 0 at the step where the
      procedure stopped, α/(m − r) (Holm-Šidák :math:`1 - (1 - α)^{1/(m - r)}`), its
      far end at α₁; when every comparison is rejected, each gets its interval at α₁
      cut at 0. For one-sided tests these are Strassburger & Bretz's bounds exactly
      (their Theorem 1 for Bonferroni-based closed tests: simultaneous coverage at least
      1 − α, whatever the dependence for Holm). Two-sided, the far end at the
      single-step level covers the side no step-down test looks at; the simultaneous
      coverage is checked by simulation (docs/validation.md).
    * BH, BY (``FCR``): every interval at :math:`r α / m` (BY: divided by
      :math:`\\sum_{k \\le m} 1/k`), r at least 1: the false-coverage-rate intervals of
      Benjamini & Yekutieli (2005), whose expected share of non-covering intervals
      among the selected (significant) ones is at most α. Not simultaneous.

    References
    ----------
    .. [1] Strassburger, K. & Bretz, F. (2008). Compatible simultaneous lower confidence
           bounds for the Holm procedure and other Bonferroni-based closed tests. Statistics in
           Medicine 27(24), 4914-4927.
    .. [2] Guilbaud, O. (2008). Simultaneous confidence regions corresponding to Holm's
           step-down procedure and other closed-testing procedures. Biometrical Journal 50(5),
           678-692.
    .. [3] Benjamini, Y. & Yekutieli, D. (2005). False discovery rate-adjusted multiple
           confidence intervals for selected parameters. JASA 100(469), 71-81.

    Examples
    --------
    Holm rejects 0.001 and stops at 0.04 (> 0.05/3): the rejected comparison gets its
    sign, the others their bound toward 0 at 0.05/3 and their far end at 0.05/4.

    >>> plan = interval_plan(np.array([0.001, 0.2, 0.04, 0.7]), alpha=0.05, method="holm")
    >>> plan.kind, plan.sign_only.tolist(), plan.level.round(4).tolist()
    ('step-down compatible', [True, False, False, False], [0.05, 0.0167, 0.0167, 0.0167])
    >>> plan.far_level[1:].tolist()
    [0.0125, 0.0125, 0.0125]
    """
    p = _adjust_iv(pvalues, method)
    if not 0.0 < float(alpha) < 1.0:
        raise InputError(f"alpha must lie in (0, 1), got {alpha!r}")
    ok = ~np.isnan(p)
    m = int(ok.sum())
    kind = interval_kind(method, m)
    significant = rejects(adjust_pvalues(p, method=method), alpha) & ok
    level = np.full(p.shape, np.nan)
    far = np.full(p.shape, np.nan)
    sign_only = np.zeros(p.shape, dtype=bool)
    if m:
        r = int(significant.sum())
        single = single_step_level(alpha, method=method, m=m)
        if kind == "step-down compatible" and r < m:
            stop = decision_levels(p, alpha=alpha, method=method)
            level[ok] = np.where(significant[ok], alpha, stop[ok])
            far[ok] = single
            sign_only = significant.copy()
        elif kind == "FCR":
            level[ok] = far[ok] = decision_levels(p, alpha=alpha, method=method)[ok]
        else:
            level[ok] = far[ok] = single  # simultaneous, unadjusted, or all rejected
    plan = IntervalPlan(kind, significant, level, far, sign_only)
    return plan if approximate is None else plan.without(approximate)


def single_step_level(alpha: float, *, method: Correction, m: int) -> float:
    """The per-comparison level of the single-step form of ``method`` in a family of
    ``m`` comparisons: the level at which one comparison must be significant when it is
    the only real difference of the family.

    ``none``: α; Bonferroni and Holm: α/m; Šidák and Holm-Šidák: 1 − (1 − α)^(1/m);
    BH and BY: their first step, α/m and α/(m c_m). A minimum detectable effect at this
    level is a property of the design that matches the decisions the family makes
    (Holm's first step is Bonferroni's level).

    References
    ----------
    .. [1] Šidák, Z. (1967). Rectangular confidence regions for the means of multivariate normal
           distributions. J. Amer. Statist. Assoc. 62(318), 626-633.
    .. [2] Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand. J.
           Statist. 6(2), 65-70.

    Examples
    --------
    >>> round(single_step_level(0.05, method="holm-sidak", m=2), 6)
    0.025321
    """
    if m < 1:
        raise InputError(f"a family has at least one comparison, got m={m}")
    if method == "none" or m == 1:
        return float(alpha)
    if method in ("sidak", "holm-sidak"):
        return float(-np.expm1(np.log1p(-alpha) / m))
    if method == "fdr_by":
        return float(alpha / (m * np.sum(1.0 / np.arange(1, m + 1))))
    return float(alpha / m)
