"""Multiple-comparison corrections of p-values.

Family-wise error rate (FWER): ``holm-sidak`` (the default of Ackerman et al. 2025, §4.2), ``holm``,
``bonferroni``, ``sidak``. False discovery rate (FDR): ``fdr_bh`` (Benjamini-Hochberg,
valid under independence and positive regression dependence) and ``fdr_by``
(Benjamini-Yekutieli, any dependence). ``none`` leaves the p-values as they are.

*Multiple-Testing Corrections for Modern Language Model Benchmark Suites* (clawRxiv
2604.01973, 2026, §4) recommends Holm for claims about individual comparisons and BH for
aggregate claims ("wins on more subtasks"), and always reporting raw and adjusted p-values.
"""

from __future__ import annotations

import numpy as np

from reportgen.errors import InputError
from reportgen.names import CORRECTIONS, Correction

__all__ = [
    "CORRECTIONS",
    "Correction",
    "adjust_pvalues",
    "compatible_intervals",
    "decision_levels",
    "single_step_level",
]


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
    ``adjust_pvalues(pvalues, method=method)[i] <= alpha``: the level of a marginal
    interval that excludes the null value exactly when the comparison is significant
    (:func:`compatible_intervals`). NaN p-values get a NaN level and do not count in the
    family.

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
      is rejected). For the comparisons not rejected these are the simultaneous
      intervals compatible with the step-down procedure of Strassburger & Bretz (2008,
      Theorem 1); for the rejected ones Strassburger & Bretz show that a simultaneous
      interval compatible with Holm can only state the sign (its bound at the null
      value), so the interval at the stopping level is reported as the usual
      step-down interval: it excludes the null value, as the decision does, and its far
      end is informative (Guilbaud 2008, §4 discusses the same trade-off);
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
    rejected = int(np.sum(_adjust_finite(p[ok], method) <= alpha))
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
) -> tuple[np.ndarray, np.ndarray]:
    """Intervals of ``diff`` at the per-comparison ``levels`` that exclude 0 exactly when
    ``pvalues <= levels``.

    Each comparison's marginal interval (``ci_low``/``ci_high`` at ``confidence``) is
    carried to its level by the normal quantiles, keeping its shape: each side's width
    times ``z(level) / z(1 - confidence)``. Where that interval and the test disagree
    (a test and an interval of different methods can, near the decision boundary), or
    where no marginal interval is given, the test-based interval of Miettinen (1976) is
    used: the standard error implied by the test, ``|diff| / z(p)``, times the level's
    quantile, which excludes 0 exactly when ``p <= level`` whatever the test (exact,
    permutation, bootstrap, t), because ``z`` is monotone. Used with the levels of
    :func:`decision_levels`, the result agrees with the multiplicity-adjusted decision.

    Parameters
    ----------
    diff
        The estimated differences (the test's direction: ``alternative="greater"``
        tests ``diff > 0``).
    pvalues
        Their raw p-values (two-sided or one-sided as ``alternative``).
    levels
        The per-comparison levels (:func:`decision_levels`).
    alternative
        ``"two-sided"``: two-sided intervals; ``"greater"`` (``"less"``): lower (upper)
        bounds, the other end NaN (unbounded).
    ci_low, ci_high, confidence
        The marginal two-sided intervals at ``confidence`` (optional).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Lower and upper ends (NaN where unbounded or not computable).

    Notes
    -----
    Carried interval, two-sided: ``diff - (diff - ci_low) r`` to ``diff + (ci_high -
    diff) r`` with ``r = z(1 - level/2) / z(1/2 + confidence/2)``: exact for Wald
    intervals (t intervals up to the ratio of t to normal quantiles), and an
    approximation that keeps a score or bootstrap interval's asymmetry otherwise.
    Test-based, two-sided: ``diff ± z(1 - level/2) |diff| / z(1 - p/2)``; it excludes 0
    iff ``z(1 - p/2) > z(1 - level/2)`` iff ``p < level``. A p-value equal to its level
    (rejected) gives an interval ending at 0; the end is moved inside by a relative
    1e-12 so that the interval excludes 0 as the decision says. The test-based interval
    is used only where it must be: far from the decision boundary a discrete or
    conservative test's large p-value makes it too wide.

    References
    ----------
    .. [1] Miettinen, O. S. (1976). Estimability and estimation in case-referent studies.
           American Journal of Epidemiology 103(2), 226-235 (test-based confidence
           limits).

    Examples
    --------
    A difference of 0.1 with p = 0.05 (z = 1.96) has a 95 % interval ending at 0:

    >>> low, high = compatible_intervals(np.array([0.1]), np.array([0.05]), np.array([0.05]))
    >>> round(float(low[0]), 6), round(float(high[0]), 6)
    (0.0, 0.2)
    """
    from scipy.special import ndtri

    d = np.asarray(diff, dtype=np.float64)
    p = np.asarray(pvalues, dtype=np.float64)
    a = np.asarray(levels, dtype=np.float64)
    two_sided = alternative == "two-sided"
    significant = p <= a
    with np.errstate(divide="ignore", invalid="ignore"):
        z_p = ndtri(1.0 - p / 2.0) if two_sided else ndtri(1.0 - p)
        z_a = ndtri(1.0 - a / 2.0) if two_sided else ndtri(1.0 - a)
        # the difference in the direction of the evidence ("less": the same on -diff)
        d_eff = -d if alternative == "less" else np.abs(d) if two_sided else d
        se = d_eff / z_p
        half = z_a * se
        # the boundary case p == level: keep the end strictly off 0, as decided
        edge = significant & (half >= d_eff) & (d_eff > 0)
        half = np.where(edge, d_eff * (1.0 - 1e-12), half)
        if two_sided:
            low, high = d - half, d + half
        elif alternative == "greater":
            low, high = d - half, np.full(d.shape, np.nan)
        else:
            low, high = np.full(d.shape, np.nan), d + half
        if ci_low is not None and ci_high is not None:
            ratio = z_a / ndtri(0.5 + confidence / 2.0)
            c_low = d - (d - np.asarray(ci_low, dtype=np.float64)) * ratio
            c_high = d + (np.asarray(ci_high, dtype=np.float64) - d) * ratio
            if alternative == "greater":
                c_high = np.full(d.shape, np.nan)
            elif alternative == "less":
                c_low = np.full(d.shape, np.nan)
            excludes = (np.nan_to_num(c_low, nan=-np.inf) > 0) | (
                np.nan_to_num(c_high, nan=np.inf) < 0
            )
            carried = np.isfinite(c_low) | np.isfinite(c_high)
            use = carried & (excludes == significant)
            low, high = np.where(use, c_low, low), np.where(use, c_high, high)
            # nothing to go on from the test either (diff = 0, p = 1): the carried one
            none = ~np.isfinite(low) & ~np.isfinite(high)
            low, high = np.where(none, c_low, low), np.where(none, c_high, high)
    return low, high


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
