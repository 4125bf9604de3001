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

__all__ = ["CORRECTIONS", "Correction", "adjust_pvalues"]


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
