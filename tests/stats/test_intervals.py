"""Intervals against statsmodels/scipy, and coverage simulations where no reference
implementation exists (Newcombe's paired interval)."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

from reportgen.stats.intervals import (
    newcombe_unpaired_interval,
    tango_paired_interval,
    wilson_interval,
)


def test_wilson_interval_against_statsmodels_proportion_confint():
    for n in (1, 5, 20, 137, 5000):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            for conf in (0.9, 0.95, 0.99):
                lo, hi = wilson_interval(np.array(k), np.array(n), confidence=conf)
                # statsmodels: proportion_confint(k, n, alpha=1-conf, method="wilson")
                ref = proportion_confint(k, n, alpha=1 - conf, method="wilson")
                np.testing.assert_allclose([lo, hi], ref, rtol=1e-12, atol=1e-14)


def test_newcombe_unpaired_against_statsmodels_confint_proportions_2indep():
    rng = np.random.default_rng(1)
    for _ in range(200):
        n1, n2 = rng.integers(1, 300, 2)
        k1, k2 = rng.integers(0, n1 + 1), rng.integers(0, n2 + 1)
        lo, hi = newcombe_unpaired_interval(k1, n1, k2, n2, confidence=0.95)
        # statsmodels: confint_proportions_2indep(k1, n1, k2, n2, method="newcomb")
        ref = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", compare="diff")
        np.testing.assert_allclose([lo, hi], ref, rtol=1e-10, atol=1e-12)


def test_tango_paired_coverage_simulation():
    # reference: simulated coverage of the true difference of paired proportions
    # (Tango 1998 reports coverage close to nominal for this score interval)
    rng = np.random.default_rng(2)
    trials = 6000
    for n, (p11, p10, p01) in [
        (15, (0.3, 0.2, 0.1)),
        (40, (0.4, 0.15, 0.1)),
        (200, (0.5, 0.05, 0.1)),
        (100, (0.2, 0.2, 0.2)),
    ]:
        tables = rng.multinomial(n, [p11, p10, p01, 1 - p11 - p10 - p01], size=trials)
        lo, hi = tango_paired_interval(tables[:, 1], tables[:, 2], n, confidence=0.95)
        truth = p10 - p01
        coverage = np.mean((lo <= truth) & (truth <= hi))
        # Monte Carlo SE at 6000 trials is 0.003; allow the discreteness of small n
        assert 0.935 <= coverage <= 0.975, (n, coverage)


def test_tango_score_statistic_is_mcnemar_z_at_zero():
    # closed form: at delta = 0 Tango's Z equals McNemar's (b - c) / sqrt(b + c), so the
    # interval excludes 0 exactly when the asymptotic McNemar test rejects
    from reportgen.stats.intervals import _tango_z

    for b, c, n in [(7, 3, 40), (0, 5, 30), (12, 12, 100)]:
        assert _tango_z(np.array(0.0), b, c, n) == pytest.approx((b - c) / np.sqrt(b + c))
        lo, hi = tango_paired_interval(b, c, n)
        z = (b - c) / np.sqrt(b + c)
        assert (lo > 0 or hi < 0) == (abs(z) > 1.959963984540054)


def test_tango_paired_edge_cases():
    lo, hi = tango_paired_interval(0, 0, 20)  # no discordant items: symmetric, not empty
    assert lo == pytest.approx(-hi) and hi == pytest.approx(
        1.959963984540054**2 / (20 + 1.959963984540054**2)
    )
    lo, hi = tango_paired_interval(20, 0, 20)  # A always right, B always wrong
    assert hi == pytest.approx(1.0) and lo > 0.6
    assert np.isnan(tango_paired_interval(0, 0, 0)[0])
