"""Per-system intervals against statsmodels, scipy, and coverage simulations."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint
from statsmodels.stats.weightstats import DescrStatsW

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.stats.means import clopper_pearson_interval, mean_intervals


@pytest.mark.parametrize("method,sm", [("wilson", "wilson"), ("clopper-pearson", "beta")])
def test_binary_intervals_against_statsmodels_proportion_confint(method, sm):
    rng = np.random.default_rng(0)
    samples = [
        (rng.random(n) < p).astype(float)
        for n, p in [(1, 0.5), (10, 0.0), (10, 1.0), (37, 0.3), (500, 0.9)]
    ]
    r = mean_intervals(samples, method=method, confidence=0.9)
    for k, s in enumerate(samples):
        # statsmodels: proportion_confint(count, nobs, alpha=0.1, method=...)
        ref = proportion_confint(int(s.sum()), len(s), alpha=0.1, method=sm)
        assert (r.ci_low[k], r.ci_high[k]) == pytest.approx(ref, rel=1e-10, abs=1e-12)
    assert r.method == {"wilson": "Wilson", "clopper-pearson": "Clopper-Pearson"}[method]


def test_clopper_pearson_edges_against_closed_form():
    # closed form at k = 0: upper = 1 - (alpha/2)^(1/n); at k = n: lower = (alpha/2)^(1/n)
    lo, hi = clopper_pearson_interval(np.array([0, 20]), np.array([20, 20]))
    assert lo[0] == 0 and hi[0] == pytest.approx(1 - 0.025 ** (1 / 20))
    assert hi[1] == 1 and lo[1] == pytest.approx(0.025 ** (1 / 20))


def test_clopper_pearson_interval_against_statsmodels():
    # one level per entry (the battles' pair tests carry each pair to its own level);
    # NaN without trials
    k = np.array([0, 1, 5, 10, 10])
    n = np.array([10, 10, 10, 10, 0])
    confidence = np.array([0.9, 0.9, 0.99, 0.95, 0.9])
    low, high = clopper_pearson_interval(k, n, confidence=confidence)
    for i in range(4):
        # statsmodels: proportion_confint(k, n, alpha=1 - confidence, method="beta")
        ref = proportion_confint(int(k[i]), int(n[i]), alpha=1 - confidence[i], method="beta")
        assert (low[i], high[i]) == pytest.approx(ref, abs=1e-12)
    assert np.isnan(low[4]) and np.isnan(high[4])


def test_t_interval_against_statsmodels_tconfint_mean():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 4)) * [1, 2, 3, 4]
    r = mean_intervals(X, method="t", confidence=0.99)
    for j in range(4):
        # statsmodels: DescrStatsW(x).tconfint_mean(alpha=0.01)
        ref = DescrStatsW(X[:, j]).tconfint_mean(alpha=0.01)
        assert (r.ci_low[j], r.ci_high[j]) == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("method,scipy_method", [("percentile", "percentile"), ("bca", "BCa")])
def test_bootstrap_against_scipy_bootstrap(method, scipy_method):
    rng = np.random.default_rng(2)
    x = rng.exponential(size=40)
    r = mean_intervals([x], method=method, n_resamples=40000, rng=3)
    # scipy: bootstrap((x,), np.mean, method=...); two Monte Carlo estimates of one
    # interval agree to a small fraction of the standard error
    ref = stats.bootstrap(
        (x,), np.mean, method=scipy_method, n_resamples=40000, rng=np.random.default_rng(4)
    ).confidence_interval
    se = x.std(ddof=1) / np.sqrt(len(x))
    assert r.ci_low[0] == pytest.approx(ref.low, abs=0.06 * se)
    assert r.ci_high[0] == pytest.approx(ref.high, abs=0.06 * se)
    assert r.n_resamples == 40000


def _coverage(method, trials, n, rng):
    # skewed continuous data with known mean 1 (exponential)
    X = rng.exponential(size=(n, trials))
    r = mean_intervals(X, method=method, n_resamples=2000, rng=rng)
    return np.mean((r.ci_low <= 1.0) & (r.ci_high >= 1.0))


@pytest.mark.parametrize("method", ["t", "bca"])
def test_coverage_simulation(method):
    # simulation: each column is one trial; 400 trials, SE of coverage ~0.011
    cover = _coverage(method, 400, 60, np.random.default_rng(5))
    assert 0.90 <= cover <= 0.98


@pytest.mark.slow
@pytest.mark.parametrize("method", ["t", "percentile", "bca"])
def test_coverage_simulation_large(method):
    cover = _coverage(method, 2000, 100, np.random.default_rng(6))
    assert 0.93 <= cover <= 0.97


def test_wilson_coverage_simulation():
    rng = np.random.default_rng(7)
    X = (rng.random((80, 2000)) < 0.2).astype(float)
    r = mean_intervals(X, method="wilson")
    cover = np.mean((r.ci_low <= 0.2) & (r.ci_high >= 0.2))
    assert 0.93 <= cover <= 0.97


def test_auto_choice_and_shared_counts():
    rng = np.random.default_rng(8)
    binary = (rng.random((50, 3)) < 0.5).astype(float)
    assert mean_intervals(binary).method == "Wilson"
    cont = rng.normal(size=(50, 3))
    r = mean_intervals(cont, rng=9, n_resamples=500)
    assert r.method == "bootstrap BCa" and np.all(r.ci_low < r.mean)
    # a matrix and the same columns as a list give the same intervals (same counts)
    r_list = mean_intervals([cont[:, j] for j in range(3)], rng=9, n_resamples=500)
    np.testing.assert_array_equal(r.ci_low, r_list.ci_low)


def test_mean_intervals_edge_cases():
    with pytest.warns(DegenerateDataWarning, match="fewer than 2 item"):
        r = mean_intervals([np.array([0.5]), np.array([0.1, 0.2, 0.3])], method="t")
    assert np.isnan(r.ci_low[0]) and not np.isnan(r.ci_low[1])
    r = mean_intervals([np.full(5, 0.3)], method="t")  # zero variance: a point interval
    assert r.ci_low[0] == r.ci_high[0] == pytest.approx(0.3)
    r = mean_intervals([np.array([1.0])], method="wilson")  # defined from one item
    assert 0 < r.ci_low[0] < 1 == r.ci_high[0]
    records = mean_intervals([np.array([1.0, 0.0])], systems=["A"]).to_records()
    assert records[0]["system"] == "A" and records[0]["ci_method"] == "Wilson"


def test_mean_intervals_input_validation():
    with pytest.raises(InputError, match=r"(?s)method='normal' is not valid.*clopper-pearson"):
        mean_intervals([np.ones(3)], method="normal")
    with pytest.raises(InputError, match=r"method='wilson' needs binary \(0/1\) scores"):
        mean_intervals([np.array([0.5, 1.0])], method="wilson")
    with pytest.raises(InputError, match="scores contain NaN"):
        mean_intervals([np.array([np.nan, 1.0])])
    with pytest.raises(InputError, match="confidence=1.5"):
        mean_intervals([np.ones(3)], confidence=1.5)
    with pytest.raises(InputError, match="2 system names for 1 systems"):
        mean_intervals([np.ones(3)], systems=["a", "b"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mean_intervals(np.ones((5, 2)), method="t")  # no spurious warnings


def test_bootstrap_means_normal_against_item_bootstrap():
    """From 10,000 paired items the bootstrap means are drawn from their normal
    approximation N(x̄, Σ̂/n); the reference is the item bootstrap itself: the
    replicates' means, SDs and correlations agree within Monte Carlo error, and so do
    the percentile intervals (at 10,000 items and at 100,000, where the bootstrap
    resamples ten million draws per replicate batch)."""
    from reportgen.stats.means import bootstrap_means

    R = 4000
    for n in (10_000, 100_000):
        rng = np.random.default_rng(n)
        ability = rng.normal(size=n)
        X = np.column_stack(
            [(rng.random(n) < 1 / (1 + np.exp(-(ability + b)))).astype(float) for b in (0, 0.05, 1)]
        )
        boot = bootstrap_means(X, n_resamples=R, rng=1, resampling="bootstrap")
        normal = bootstrap_means(X, n_resamples=R, rng=2)  # auto: normal from 10,000 items
        assert (boot.resampling, normal.resampling) == ("bootstrap", "normal")
        sd_boot = boot.replicates.std(axis=0)
        # the SD of a mean of R draws is sd / sqrt(R); of an SD about sd / sqrt(2R)
        assert np.all(
            np.abs(boot.replicates.mean(axis=0) - normal.replicates.mean(axis=0))
            < 4 * sd_boot * np.sqrt(2 / R)
        )
        assert np.all(np.abs(normal.replicates.std(axis=0) / sd_boot - 1) < 4 * np.sqrt(1 / R))
        corr_b = np.corrcoef(boot.replicates.T)[0, 1]
        corr_n = np.corrcoef(normal.replicates.T)[0, 1]
        assert abs(corr_b - corr_n) < 4 * (1 - corr_b**2) * np.sqrt(2 / R)
        # 2.5 % / 97.5 % quantiles: the Monte Carlo SD of each is about
        # sqrt(.025 × .975 / R) / φ(1.96) = 0.04 sd at R = 4,000; of their difference 0.06
        assert np.all(np.abs(boot.ci_low - normal.ci_low) < 0.25 * sd_boot)
        assert np.all(np.abs(boot.ci_high - normal.ci_high) < 0.25 * sd_boot)
        assert normal.to_records()[0]["resampling"] == "normal"


def test_bootstrap_means_resampling_switch_and_validation():
    from reportgen.stats.means import bootstrap_means

    X = np.random.default_rng(0).random((50, 2))
    assert bootstrap_means(X, n_resamples=20, rng=1).resampling == "bootstrap"
    assert bootstrap_means(X, n_resamples=20, rng=1, resampling="normal").resampling == "normal"
    unpaired = [np.random.default_rng(1).random(20_000), np.random.default_rng(2).random(30)]
    assert bootstrap_means(unpaired, n_resamples=20, rng=1).resampling == "bootstrap"
    with pytest.raises(InputError, match="resampling='exact' is not valid"):
        bootstrap_means(X, n_resamples=20, resampling="exact")
