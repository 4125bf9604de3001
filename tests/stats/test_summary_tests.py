"""The z test of two means from their published intervals, against the closed form."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from reportgen.errors import InputError
from reportgen.stats.summary_tests import z_test_from_intervals


@pytest.mark.parametrize(
    "m_a,ci_a,m_b,ci_b,c_a,c_b",
    [
        (0.50, (0.45, 0.55), 0.58, (0.53, 0.63), 0.95, 0.95),
        (0.71, (0.64, 0.77), 0.69, (0.60, 0.77), 0.95, 0.90),
        (12.3, (11.0, 13.6), 10.1, (9.9, 10.3), 0.99, 0.95),
    ],
)
def test_z_test_from_intervals_against_closed_form(m_a, ci_a, m_b, ci_b, c_a, c_b):
    # closed form with scipy.stats.norm: se from each half-width, z = d / sqrt(sum se^2)
    se_a = (ci_a[1] - ci_a[0]) / 2 / stats.norm.ppf((1 + c_a) / 2)
    se_b = (ci_b[1] - ci_b[0]) / 2 / stats.norm.ppf((1 + c_b) / 2)
    se = math.sqrt(se_a**2 + se_b**2)
    d = m_b - m_a
    r = z_test_from_intervals(m_a, ci_a, m_b, ci_b, confidence_a=c_a, confidence_b=c_b)
    assert r.diff == pytest.approx(d, rel=1e-12)
    assert r.se == pytest.approx(se, rel=1e-12)
    assert r.statistic == pytest.approx(d / se, rel=1e-12)
    assert r.p_value == pytest.approx(2 * stats.norm.sf(abs(d / se)), rel=1e-10)
    q = stats.norm.ppf((1 + c_b) / 2)
    assert (r.ci_low, r.ci_high) == pytest.approx((d - q * se, d + q * se), rel=1e-12)
    # the interval excludes 0 exactly when p < 1 - confidence
    assert (r.ci_low > 0 or r.ci_high < 0) == (r.p_value < 1 - c_b)


def test_z_test_from_intervals_size_by_simulation():
    # oracle: under equal means and Wald intervals of independent normal means, the
    # test rejects in 5% of draws (99% binomial bounds for 4,000 draws)
    rng = np.random.default_rng(0)
    n, se = 4000, 0.03
    a, b = rng.normal(0.6, se, n), rng.normal(0.6, se, n)
    z = stats.norm.ppf(0.975)
    p = np.array(
        [
            z_test_from_intervals(x, (x - z * se, x + z * se), y, (y - z * se, y + z * se)).p_value
            for x, y in zip(a, b)
        ]
    )
    rate = float(np.mean(p < 0.05))
    lo, hi = stats.binom.interval(0.99, 4000, 0.05)
    assert lo / 4000 <= rate <= hi / 4000


def test_z_test_from_intervals_edge_cases():
    r = z_test_from_intervals(0.5, (0.5, 0.5), 0.6, (0.6, 0.6))  # zero widths
    assert r.diff == pytest.approx(0.1) and math.isnan(r.p_value)


def test_z_test_from_intervals_input_validation():
    with pytest.raises(InputError, match="low end above its high end"):
        z_test_from_intervals(0.5, (0.6, 0.4), 0.5, (0.4, 0.6))
    with pytest.raises(InputError, match=r"confidence_a=1.5 must be between 0 and 1"):
        z_test_from_intervals(0.5, (0.4, 0.6), 0.5, (0.4, 0.6), confidence_a=1.5)
    with pytest.raises(InputError, match="mean_b=None is not a number"):
        z_test_from_intervals(0.5, (0.4, 0.6), None, (0.4, 0.6))  # type: ignore[arg-type]
