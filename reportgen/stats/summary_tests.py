"""Tests from published summaries: when the per-item scores are gone and only each
mean with its confidence interval is left (an archived report, a paper's table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from scipy import special

from reportgen.errors import InputError

__all__ = ["IntervalZTest", "z_test_from_intervals"]


@dataclass(frozen=True)
class IntervalZTest:
    """An approximate two-sided z test of ``mean_b − mean_a`` from two intervals.

    Attributes
    ----------
    diff
        ``mean_b − mean_a`` (the later minus the earlier value).
    se
        Its standard error, :math:`\\sqrt{se_a^2 + se_b^2}`.
    statistic, p_value
        :math:`z = d / se` and :math:`2(1 - \\Phi(|z|))`; NaN when ``se`` is not
        positive.
    ci_low, ci_high, confidence
        The interval :math:`d \\pm z_{(1+c)/2}\\, se` at ``confidence``.
    """

    diff: float
    se: float
    statistic: float
    p_value: float
    ci_low: float
    ci_high: float
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "diff": self.diff,
            "se": self.se,
            "statistic": self.statistic,
            "p_value": self.p_value,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "confidence": self.confidence,
        }


def _half_width_se(low: float, high: float, confidence: float) -> float:
    return (high - low) / (2.0 * float(special.ndtri(0.5 + confidence / 2.0)))


def _iv(name: str, value: Any) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}={value!r} is not a number") from None
    if not math.isfinite(x):
        raise InputError(f"{name}={value!r} is not a finite number")
    return x


def _confidence_iv(name: str, value: Any) -> float:
    x = _iv(name, value)
    if not 0 < x < 1:
        raise InputError(f"{name}={value!r} must be between 0 and 1 (exclusive)", hint="e.g. 0.95")
    return x


def z_test_from_intervals(
    mean_a: float,
    ci_a: tuple[float, float],
    mean_b: float,
    ci_b: tuple[float, float],
    *,
    confidence_a: float = 0.95,
    confidence_b: float = 0.95,
    confidence: float | None = None,
) -> IntervalZTest:
    """Test whether two means differ, knowing only each one's confidence interval.

    Parameters
    ----------
    mean_a, ci_a
        The earlier mean and its two-sided interval ``(low, high)``.
    mean_b, ci_b
        The later mean and its interval.
    confidence_a, confidence_b
        The levels of the two intervals.
    confidence
        The level of the interval of the difference (default ``confidence_b``).

    Returns
    -------
    IntervalZTest

    Raises
    ------
    InputError
        A value that is not a finite number, an interval whose low end is above its
        high end, or a level outside (0, 1).

    Notes
    -----
    Each standard error is read off its interval as if it were a normal (Wald)
    interval, :math:`se = (high - low) / (2 z_{(1+c)/2})`; the two means are treated as
    independent, so :math:`se_d = \\sqrt{se_a^2 + se_b^2}`, :math:`z = (m_b - m_a)/se_d`
    and :math:`p = 2(1-\\Phi(|z|))` (the usual large-sample test of two independent
    means, e.g. Altman & Bland 2003). For means of the same items (paired) the test
    ignores the positive correlation, which inflates :math:`se_d`, so it is
    conservative; asymmetric intervals (Wilson, BCa) are read by their width only.

    References
    ----------
    .. [1] Altman, D. G. & Bland, J. M. (2003). Interaction revisited: the difference between two
           estimates. BMJ 326(7382), 219.

    Examples
    --------
    >>> r = z_test_from_intervals(0.50, (0.45, 0.55), 0.58, (0.53, 0.63))
    >>> round(r.diff, 3), round(r.p_value, 4)
    (0.08, 0.0266)
    >>> from scipy import stats
    >>> se = 0.05 / stats.norm.ppf(0.975)  # the half-width of each interval over 1.96
    >>> round(float(2 * stats.norm.sf(0.08 / (2 * se**2) ** 0.5)), 4)
    0.0266
    """
    m_a, m_b = _iv("mean_a", mean_a), _iv("mean_b", mean_b)
    lo_a, hi_a = _iv("ci_a[0]", ci_a[0]), _iv("ci_a[1]", ci_a[1])
    lo_b, hi_b = _iv("ci_b[0]", ci_b[0]), _iv("ci_b[1]", ci_b[1])
    for name, lo, hi in (("ci_a", lo_a, hi_a), ("ci_b", lo_b, hi_b)):
        if lo > hi:
            raise InputError(f"{name}=({lo}, {hi}) has its low end above its high end")
    c_a = _confidence_iv("confidence_a", confidence_a)
    c_b = _confidence_iv("confidence_b", confidence_b)
    c = c_b if confidence is None else _confidence_iv("confidence", confidence)
    se = math.hypot(_half_width_se(lo_a, hi_a, c_a), _half_width_se(lo_b, hi_b, c_b))
    diff = m_b - m_a
    if not se > 0:
        nan = float("nan")
        return IntervalZTest(diff, se, nan, nan, nan, nan, c)
    z = diff / se
    p = float(2.0 * special.ndtr(-abs(z)))
    q = float(special.ndtri(0.5 + c / 2.0))
    return IntervalZTest(diff, se, z, min(1.0, p), diff - q * se, diff + q * se, c)
