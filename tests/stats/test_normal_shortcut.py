"""The normal shortcuts of the paired bootstraps only where they hold (issue 30, item
8): few successes, heavy tails and near-ties are resampled; tests at the boundary
against the exact binomial and scipy's bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from reportgen.stats._resampling import (
    NORMAL_MIN_COUNT,
    NORMAL_RESAMPLING_ITEMS,
    normal_sums_adequate,
)
from reportgen.stats.means import bootstrap_means
from reportgen.stats.ranking import rank_distributions

N = NORMAL_RESAMPLING_ITEMS


def _binary(successes: list[int], n: int = N) -> np.ndarray:
    rng = np.random.default_rng(sum(successes))
    X = np.zeros((n, len(successes)))
    for j, k in enumerate(successes):
        X[rng.choice(n, size=k, replace=False), j] = 1.0
    return X


@pytest.mark.parametrize("k", [NORMAL_MIN_COUNT - 1, NORMAL_MIN_COUNT])
def test_successes_boundary(k):
    X = _binary([k, N // 2])
    assert normal_sums_adequate(X, pairs=False) == (k >= NORMAL_MIN_COUNT)
    r = bootstrap_means(X, n_resamples=4000, rng=1)
    assert r.resampling == ("normal" if k >= NORMAL_MIN_COUNT else "bootstrap")
    # the bootstrap of a 0/1 mean is Binomial(n, k/n)/n: scipy's exact quantiles; the
    # normal approximation at the boundary is within 2 items of them
    exact = stats.binom.ppf([0.025, 0.975], N, k / N) / N
    assert r.ci_low[0] == pytest.approx(exact[0], abs=2.01 / N)
    assert r.ci_high[0] == pytest.approx(exact[1], abs=2.01 / N)


def test_issue_p_0_001_at_10000_items_against_exact_binomial():
    # the issue's case: 10 successes in 10,000 items; upper tail 0.0088 against 0.0142
    X = _binary([10, N // 2])
    r = bootstrap_means(X, n_resamples=9999, rng=2)
    assert r.resampling == "bootstrap"
    # scipy: binom.ppf of the exact bootstrap distribution Binomial(n, 0.001) / n
    assert r.ci_high[0] == pytest.approx(stats.binom.ppf(0.975, N, 0.001) / N, abs=1.01 / N)
    upper = np.mean(r.replicates[:, 0] >= 0.0016)
    assert upper == pytest.approx(stats.binom.sf(15, N, 0.001), abs=0.005)


def test_heavy_tails_are_resampled_against_scipy_bootstrap():
    rng = np.random.default_rng(3)
    X = rng.lognormal(0.0, 3.0, size=(N, 2))
    assert not normal_sums_adequate(X, pairs=False)
    r = bootstrap_means(X, n_resamples=2000, rng=4)
    assert r.resampling == "bootstrap"
    # scipy: bootstrap((x,), np.mean, method="percentile"); Monte Carlo error of both
    ref = stats.bootstrap(
        (X[:, 0],), np.mean, method="percentile", n_resamples=2000, rng=5
    ).confidence_interval
    se = X[:, 0].std() / np.sqrt(N)
    assert r.ci_low[0] == pytest.approx(ref.low, abs=0.5 * se)
    assert r.ci_high[0] == pytest.approx(ref.high, abs=0.8 * se)
    # light tails keep the shortcut
    assert normal_sums_adequate(rng.normal(size=(N, 3)))


def test_near_tie_system_never_last_as_in_the_bootstrap():
    # the issue's case: a system that solves one item more than two others is never
    # behind them in the bootstrap (their difference is a count of resampled items,
    # >= 0), so never last of the three; the normal approximation put it last 4.9%
    rng = np.random.default_rng(6)
    base = (rng.random(N) < 0.5).astype(float)
    better = base.copy()
    better[np.flatnonzero(base == 0)[0]] = 1.0
    X = np.column_stack([base, base, better])
    assert not normal_sums_adequate(X)
    d = rank_distributions(X, paired=True, n_resamples=4000, rng=7)
    assert d.resampling == "bootstrap"
    assert d.rank_counts[2, 1:].sum() == 0  # rank 1 (ties share the minimum) always


@pytest.mark.parametrize("differ", [NORMAL_MIN_COUNT - 1, NORMAL_MIN_COUNT])
def test_differing_items_boundary(differ):
    rng = np.random.default_rng(differ)
    a = (rng.random(N) < 0.5).astype(float)
    b = a.copy()
    flip = rng.choice(N, size=differ, replace=False)
    b[flip] = 1 - b[flip]
    X = np.column_stack([a, b, (rng.random(N) < 0.3).astype(float)])
    assert normal_sums_adequate(X) == (differ >= NORMAL_MIN_COUNT)
    # identical systems keep the shortcut: they tie under both
    assert normal_sums_adequate(np.column_stack([a, a, X[:, 2]]))
