"""Repeated runs and clusters against named references: statsmodels (cluster-robust OLS,
Cochran's Q), scipy (bootstrap, Friedman), closed forms (ideal bootstrap variances,
exact enumeration of tiny bootstraps), eval-arena's estimators, simulations with known
variance components, and coverage simulations."""

from __future__ import annotations

import doctest
import itertools
import warnings

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.contingency_tables import cochrans_q

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.stats import runs
from reportgen.stats.runs import (
    ci_width_by_runs,
    cluster_bootstrap_interval,
    clustered_mean_interval,
    pooled_runs_bootstrap,
    runs_differ_test,
    variance_components,
    variance_components_from_counts,
    variance_components_paired,
)


def _clustered_binary(rng, n_items, n_sets, k, a=0.6, b=0.4):
    """Items with true success probabilities p_i ~ Beta(a, b), k Bernoulli runs each:
    ``(n_items, n_sets, k)``; every set (a "system" or a simulation trial) draws its own
    items. Intra-item correlation 1/(a + b + 1)."""
    p = rng.beta(a, b, size=(n_items, n_sets, 1))
    return (rng.uniform(size=(n_items, n_sets, k)) < p).astype(float)


def _flatten_runs(scores):
    """(items, systems, runs) -> values (items·runs, systems) and item clusters."""
    n, s, k = scores.shape
    return scores.transpose(0, 2, 1).reshape(n * k, s), np.repeat(np.arange(n), k)


def test_module_doctests():
    # reference: the numbers written in the docstring Examples (hand-computed)
    failures, _ = doctest.testmod(runs, optionflags=doctest.ELLIPSIS)
    assert failures == 0


# ------------------------------------------------------------ clustered_mean_interval


@pytest.mark.parametrize("distribution", ["t", "normal"])
def test_clustered_mean_interval_against_statsmodels_ols_cluster(distribution):
    rng = np.random.default_rng(3)
    for n_obs, n_clusters in [(40, 5), (300, 37), (1000, 400), (12, 2)]:
        groups = rng.integers(0, n_clusters, n_obs)
        groups[:n_clusters] = np.arange(n_clusters)  # every cluster present
        effect = rng.normal(size=n_clusters)
        y = effect[groups] + rng.normal(size=n_obs) + 0.3
        labels = np.array([f"passage-{g}" for g in groups])  # any comparable labels
        r = clustered_mean_interval(y, labels, distribution=distribution)
        use_t = distribution == "t"
        X = np.ones((n_obs, 1))
        # statsmodels: OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=...)
        ref = sm.OLS(y, X).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=use_t)
        assert r.mean[0] == pytest.approx(ref.params[0], rel=1e-12)
        assert r.se[0] == pytest.approx(ref.bse[0], rel=1e-10)
        np.testing.assert_allclose([r.ci_low[0], r.ci_high[0]], ref.conf_int(0.05)[0], rtol=1e-10)
        assert r.n_clusters[0] == n_clusters and r.n_observations[0] == n_obs
        # statsmodels: OLS(y, ones).fit(use_t=...) — the naive i.i.d. standard error
        naive = sm.OLS(y, X).fit(use_t=use_t)
        assert r.se_naive[0] == pytest.approx(naive.bse[0], rel=1e-10)
        np.testing.assert_allclose(
            [r.naive_low[0], r.naive_high[0]], naive.conf_int(0.05)[0], rtol=1e-10
        )
        # 90% level too
        r90 = clustered_mean_interval(y, groups, distribution=distribution, confidence=0.9)
        np.testing.assert_allclose(
            [r90.ci_low[0], r90.ci_high[0]], ref.conf_int(0.10)[0], rtol=1e-10
        )


def test_clustered_mean_interval_missing_values_against_statsmodels_per_column():
    rng = np.random.default_rng(4)
    scores = _clustered_binary(rng, 60, 3, 4)
    scores[rng.uniform(size=scores.shape) < 0.15] = np.nan
    scores[:5, 2, :] = np.nan  # system 3 lacks 5 items
    values, clusters = _flatten_runs(scores)
    r = clustered_mean_interval(values, clusters, systems=["a", "b", "c"])
    for j in range(3):
        ok = ~np.isnan(values[:, j])
        y, g = values[ok, j], clusters[ok]
        # statsmodels: OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": g},
        #                                use_t=True) on the observed rows of column j
        ref = sm.OLS(y, np.ones((len(y), 1))).fit(
            cov_type="cluster", cov_kwds={"groups": g}, use_t=True
        )
        assert r.se[j] == pytest.approx(ref.bse[0], rel=1e-10)
        np.testing.assert_allclose([r.ci_low[j], r.ci_high[j]], ref.conf_int()[0], rtol=1e-10)
        assert r.n_clusters[j] == len(np.unique(g)) and r.df[j] == len(np.unique(g)) - 1
    assert r.n_clusters[2] == 55
    rec = r.to_records()
    assert [row["system"] for row in rec] == ["a", "b", "c"]
    assert rec[0]["design_effect"] == pytest.approx((r.se[0] / r.se_naive[0]) ** 2)


def test_clustered_mean_interval_design_effect_against_kish_formula():
    # closed form: with equal clusters of size m and intra-cluster correlation rho the
    # variance inflation is 1 + (m - 1) rho (Kish 1965); rho = 0.5, m = 5 gives 3.
    rng = np.random.default_rng(5)
    n, m = 4000, 5
    y = (rng.normal(size=(n, 1)) + rng.normal(size=(n, m))).ravel()  # rho = 1/2
    r = clustered_mean_interval(y, np.repeat(np.arange(n), m))
    assert r.design_effect()[0] == pytest.approx(3.0, rel=0.08)


def test_clustered_mean_interval_input_validation():
    y = np.arange(6.0)
    with pytest.raises(InputError, match="one label per observation"):
        clustered_mean_interval(y, [0, 1, 2])
    with pytest.raises(InputError, match="clusters contain NaN"):
        clustered_mean_interval(y, [0, 0, 1, 1, np.nan, 2])
    with pytest.raises(InputError, match="clusters contain None"):
        clustered_mean_interval(y, np.array([0, 0, 1, 1, None, 2], dtype=object))
    with pytest.raises(InputError, match="distribution='z' is not valid"):
        clustered_mean_interval(y, [0, 0, 1, 1, 2, 2], distribution="z")
    with pytest.raises(InputError, match="confidence=1.5"):
        clustered_mean_interval(y, [0, 0, 1, 1, 2, 2], confidence=1.5)
    with pytest.raises(InputError, match="infinite"):
        clustered_mean_interval([1.0, np.inf], [0, 1])
    with pytest.raises(InputError, match=r"values must be \(n_obs,\)"):
        clustered_mean_interval(np.zeros((2, 2, 2)), [0, 1])
    with pytest.raises(InputError, match="2 system names for 1 systems"):
        clustered_mean_interval(y, [0, 0, 1, 1, 2, 2], systems=["a", "b"])


def test_clustered_mean_interval_edge_cases():
    with pytest.warns(DegenerateDataWarning, match="fewer than 2 clusters"):
        r = clustered_mean_interval([1.0, 0.0, 1.0], [7, 7, 7])
    assert np.isnan(r.se[0]) and np.isnan(r.ci_low[0]) and r.mean[0] == pytest.approx(2 / 3)
    assert r.se_naive[0] > 0  # the naive SE still exists
    with pytest.warns(DegenerateDataWarning, match="zero variance"):
        r = clustered_mean_interval([1.0, 1.0, 1.0, 1.0], [0, 0, 1, 1])
    assert r.se[0] == 0 and r.ci_low[0] == r.ci_high[0] == 1.0
    # singleton clusters: CR1 = n/(n-1) × HC0 = the naive variance, exactly
    y = np.random.default_rng(0).normal(size=30)
    r = clustered_mean_interval(y, np.arange(30))
    assert r.se[0] == pytest.approx(r.se_naive[0], rel=1e-12)
    assert r.to_records()[0]["ci_method"] == "cluster-robust (CR1) t"


# ------------------------------------------------------------ cluster_bootstrap_interval


def _mc_tol(se, n_resamples):
    # Monte Carlo SD of a 2.5% / 97.5% percentile of B normal replicates is about
    # sqrt(.025·.975/B)/phi(1.96)·se = 2.67/sqrt(B)·se; two independent bootstraps
    # differ by sqrt(2) times that; allow 5 such SDs (skewed tails are noisier)
    return 5 * np.sqrt(2) * 2.67 / np.sqrt(n_resamples) * se


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_cluster_bootstrap_one_run_against_scipy_bootstrap(method):
    rng = np.random.default_rng(6)
    x = rng.lognormal(0, 1.2, size=(40, 1))  # skewed: BCa moves the limits ~0.2 SE
    B = 40000
    r = cluster_bootstrap_interval(x, method=method, n_resamples=B, rng=1)
    # scipy: bootstrap((x,), np.mean, method="percentile" | "BCa", n_resamples=40000)
    ref = stats.bootstrap(
        (x[:, 0],),
        np.mean,
        method="BCa" if method == "bca" else "percentile",
        n_resamples=B,
        rng=np.random.default_rng(2),
    )
    tol = _mc_tol(ref.standard_error, B)
    assert r.ci_low[0] == pytest.approx(ref.confidence_interval.low, abs=tol)
    assert r.ci_high[0] == pytest.approx(ref.confidence_interval.high, abs=tol)
    assert r.se[0] == pytest.approx(ref.standard_error, rel=0.03)
    assert r.mean[0] == pytest.approx(x.mean(), rel=1e-12)
    # the check can tell the two methods apart: the other method is out of tolerance
    other = stats.bootstrap(
        (x[:, 0],),
        np.mean,
        method="percentile" if method == "bca" else "BCa",
        n_resamples=B,
        rng=np.random.default_rng(2),
    )
    assert abs(r.ci_high[0] - other.confidence_interval.high) > tol


def test_ratio_acceleration_against_brute_force_jackknife():
    # brute force: leave each item out in turn, recompute sum(S)/sum(C), then
    # a = sum(d^3) / (6 (sum d^2)^1.5), d = mean(theta_(i)) - theta_(i) (Efron &
    # Tibshirani 1993, eq. 14.15); items without runs do not count
    from reportgen.stats.runs import _ratio_acceleration

    rng = np.random.default_rng(40)
    S = rng.gamma(1.0, size=(25, 2)) * 3
    C = rng.integers(0, 4, size=(25, 2)).astype(float)
    S[C == 0] = 0
    a = _ratio_acceleration(S, C)
    for j in range(2):
        items = [i for i in range(25) if C[i, j] > 0]
        loo = np.array(
            [(S[items, j].sum() - S[i, j]) / (C[items, j].sum() - C[i, j]) for i in items]
        )
        d = loo.mean() - loo
        assert a[j] == pytest.approx((d**3).sum() / (6 * (d**2).sum() ** 1.5), rel=1e-10)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_cluster_bootstrap_missing_runs_against_scipy_paired_ratio_bootstrap(method):
    rng = np.random.default_rng(7)
    scores = rng.gamma(2.0, size=(70, 1, 1)) * rng.uniform(0.5, 1.5, size=(70, 1, 4))
    scores[rng.uniform(size=scores.shape) < 0.3] = np.nan
    scores[0, 0, :] = np.nan  # an item without any run
    S = np.nansum(scores[:, 0, :], axis=1)
    C = np.sum(~np.isnan(scores[:, 0, :]), axis=1).astype(float)
    B = 40000
    r = cluster_bootstrap_interval(scores, method=method, n_resamples=B, rng=3)
    assert r.mean[0] == pytest.approx(np.nanmean(scores), rel=1e-12)
    assert (r.n_items[0], r.n_observations[0]) == (int((C > 0).sum()), int(C.sum()))

    def ratio(s, c, axis=-1):
        return s.sum(axis=axis) / c.sum(axis=axis)

    keep = C > 0
    # scipy: bootstrap((S_i, C_i), ratio, paired=True, method=...) — items resampled,
    # each item's runs kept together; BCa jackknife over items
    ref = stats.bootstrap(
        (S[keep], C[keep]),
        ratio,
        paired=True,
        vectorized=True,
        method="BCa" if method == "bca" else "percentile",
        n_resamples=B,
        rng=np.random.default_rng(4),
    )
    tol = _mc_tol(ref.standard_error, B)
    assert r.ci_low[0] == pytest.approx(ref.confidence_interval.low, abs=tol)
    assert r.ci_high[0] == pytest.approx(ref.confidence_interval.high, abs=tol)


def test_cluster_bootstrap_se_against_ideal_bootstrap_closed_form():
    # closed form: with k runs on every item the statistic is the mean of the item means
    # x_i, whose ideal bootstrap variance is sum((x_i - mean)^2) / n^2; the Monte Carlo
    # SD of a bootstrap SD from B replicates is about SD / sqrt(2B)
    rng = np.random.default_rng(8)
    scores = _clustered_binary(rng, 150, 6, 5)
    B = 20000
    r = cluster_bootstrap_interval(scores, n_resamples=B, rng=9)
    item_means = scores.mean(axis=2)
    ideal = np.sqrt(((item_means - item_means.mean(axis=0)) ** 2).sum(axis=0)) / 150
    np.testing.assert_allclose(r.se, ideal, rtol=5 / np.sqrt(2 * B))
    np.testing.assert_allclose(r.mean, scores.mean(axis=(0, 2)), rtol=1e-12)


def test_cluster_bootstrap_systems_axis_against_one_system_calls():
    # reference: the same bootstrap counts (same seed, one chunk) applied system by system
    rng = np.random.default_rng(10)
    scores = _clustered_binary(rng, 50, 4, 3)
    together = cluster_bootstrap_interval(scores, method="bca", n_resamples=500, rng=11)
    for j in range(4):
        alone = cluster_bootstrap_interval(scores[:, j, :], method="bca", n_resamples=500, rng=11)
        assert (together.ci_low[j], together.ci_high[j]) == pytest.approx(
            (alone.ci_low[0], alone.ci_high[0]), rel=1e-12
        )


def test_cluster_bootstrap_interval_input_validation():
    x = np.ones((5, 3))
    with pytest.raises(InputError, match=r"scores must be \(n_items, n_runs\)"):
        cluster_bootstrap_interval(np.ones(5))
    with pytest.raises(InputError, match="method='BCa' is not valid"):
        cluster_bootstrap_interval(x, method="BCa")
    with pytest.raises(InputError, match="n_resamples=0"):
        cluster_bootstrap_interval(x, n_resamples=0)
    with pytest.raises(InputError, match="max_memory=10"):
        cluster_bootstrap_interval(x, max_memory=10)
    with pytest.raises(InputError, match="rng='seed'"):
        cluster_bootstrap_interval(x, rng="seed")
    with pytest.raises(InputError, match="must be numeric"):
        cluster_bootstrap_interval(np.array([["a", "b"]]))
    with pytest.raises(InputError, match="no runs"):
        cluster_bootstrap_interval(np.ones((5, 0)))


def test_cluster_bootstrap_interval_edge_cases():
    with pytest.warns(DegenerateDataWarning, match="fewer than 2 items"):
        r = cluster_bootstrap_interval(np.array([[1.0, 0.0, 1.0]]), rng=0)
    assert np.isnan(r.ci_low[0]) and r.mean[0] == pytest.approx(2 / 3)
    with pytest.warns(DegenerateDataWarning, match="same value everywhere"):
        r = cluster_bootstrap_interval(np.ones((10, 3)), method="bca", rng=0)
    assert r.ci_low[0] == r.ci_high[0] == 1.0
    # a system without any score next to a normal one: NaN for it only
    scores = np.stack(
        [np.random.default_rng(0).uniform(size=(10, 2)), np.full((10, 2), np.nan)], axis=1
    )
    with pytest.warns(DegenerateDataWarning):
        r = cluster_bootstrap_interval(scores, rng=0, systems=["ok", "empty"])
    assert np.isfinite(r.ci_low[0]) and np.isnan(r.ci_low[1]) and r.n_items[1] == 0
    rec = r.to_records()
    assert rec[1]["ci_low"] is None and rec[0]["ci_method"] == "cluster bootstrap percentile"
    # chunking does not change the answer (max_memory small enough for several chunks)
    x = np.random.default_rng(1).uniform(size=(2000, 2))
    a = cluster_bootstrap_interval(x, n_resamples=300, rng=5, max_memory=2**20)
    b = cluster_bootstrap_interval(x, n_resamples=300, rng=5)
    assert a.se[0] == pytest.approx(b.se[0], rel=0.2)


# ------------------------------------------------------------ variance components


def test_variance_components_unbiased_against_simulation_with_known_components():
    # simulation: items with fixed true probabilities p_i, k Bernoulli runs each, T
    # replications (vectorised along the systems axis). Conditional on the items,
    #   E[var_prediction] = mean p_i(1 - p_i)                 (within-item, ddof 1)
    #   E[var_data]       = sum (p_i - mean p)^2 / (n - 1)
    #   E[se_total^2]     = (E[var_data] + E[var_prediction] / k) / n
    rng = np.random.default_rng(12)
    n, k, T = 40, 3, 6000
    p = rng.beta(0.8, 0.8, size=n)
    scores = (rng.uniform(size=(n, T, k)) < p[:, None, None]).astype(float)
    r = variance_components(scores)
    true_pred = np.mean(p * (1 - p))
    true_data = np.var(p, ddof=1)
    true_total = (true_data + true_pred / k) / n

    def check(estimates, truth):
        mc_se = estimates.std(ddof=1) / np.sqrt(T)
        assert abs(estimates.mean() - truth) < 4 * mc_se, (estimates.mean(), truth, mc_se)

    check(r.var_prediction, true_pred)
    check(r.var_data, true_data)
    check(r.se_total**2, true_total)
    check(r.se_prediction**2, true_pred / (k * n))
    assert np.all(r.k == k) and np.all(r.n == n)
    # without the small-k correction (ddof 0 within items) the bias is visible:
    plug_in = scores.var(axis=2).mean(axis=0)
    assert abs(plug_in.mean() - true_pred) > 10 * plug_in.std(ddof=1) / np.sqrt(T)


def test_variance_components_total_against_simulated_variance_of_the_mean():
    # simulation: items drawn afresh (p_i ~ Beta) in every replication; the estimated
    # Var(mean) must match the variance of the mean across replications
    rng = np.random.default_rng(13)
    n, k, T = 50, 4, 8000
    scores = _clustered_binary(rng, n, T, k, a=1.5, b=1.0)
    r = variance_components(scores)
    empirical = r.mean.var(ddof=1)
    # relative MC SD of a sample variance of T near-normal values is sqrt(2 / T)
    assert np.mean(r.se_total**2) == pytest.approx(empirical, rel=4 * np.sqrt(2 / T))
    a, b = 1.5, 1.0  # closed form of the two components
    var_x = a * b / ((a + b) ** 2 * (a + b + 1))
    e_var = a * b / ((a + b) * (a + b + 1))
    assert empirical == pytest.approx((var_x + e_var / k) / n, rel=4 * np.sqrt(2 / T))


def test_variance_components_against_eval_arena_unbiasedNK_formula():
    # eval-arena estimators.py, SingleExperimental.from_samples_unbiasedNK(A):
    #   var_E = var(mean(A, 1), ddof=1) - mean(var(A, 1, ddof=1)) + mean(var(A, 1, ddof=0))
    #   E_var = mean(var(A, 1, ddof=1))
    rng = np.random.default_rng(14)
    A = rng.uniform(size=(30, 1)) + 0.3 * rng.normal(size=(30, 6))
    r = variance_components(A)
    var_E = (
        np.var(A.mean(axis=1), ddof=1)
        - np.mean(np.var(A, axis=1, ddof=1))
        + np.mean(np.var(A, axis=1, ddof=0))
    )
    E_var = np.mean(np.var(A, axis=1, ddof=1))
    assert r.var_data[0] == pytest.approx(var_E, rel=1e-12)
    assert r.var_prediction[0] == pytest.approx(E_var, rel=1e-12)
    assert r.se_total[0] ** 2 == pytest.approx(np.var(A.mean(axis=1), ddof=1) / 30, rel=1e-12)
    # projected SE with more runs (Miller 2024: only the prediction part shrinks)
    assert r.se_with_runs(6)[0] == pytest.approx(r.se_total[0], rel=1e-12)
    assert r.se_with_runs(np.inf)[0] == pytest.approx(np.sqrt(var_E / 30), rel=1e-12)


def test_variance_components_paired_against_simulation_and_eval_arena_formula():
    # simulation: correlated item difficulties for A and B (fixed), independent runs;
    # E[var_prediction] = mean(pA(1-pA) + pB(1-pB)); E[var_data] = var(pA - pB, ddof=1)
    rng = np.random.default_rng(15)
    n, kA, kB, T = 40, 3, 5, 6000
    latent = rng.normal(size=n)
    pA = stats.norm.cdf(latent + 0.3)
    pB = stats.norm.cdf(latent + 0.3 * rng.normal(size=n))
    A = (rng.uniform(size=(n, T, kA)) < pA[:, None, None]).astype(float)
    B = (rng.uniform(size=(n, T, kB)) < pB[:, None, None]).astype(float)
    r = variance_components_paired(A, B)
    assert r.paired and r.systems[0] == "pair 1"
    for est, truth in [
        (r.var_prediction, np.mean(pA * (1 - pA) + pB * (1 - pB))),
        (r.var_data, np.var(pA - pB, ddof=1)),
        (
            r.se_total**2,
            (np.var(pA - pB, ddof=1) + np.mean(pA * (1 - pA)) / kA + np.mean(pB * (1 - pB)) / kB)
            / n,
        ),
    ]:
        assert abs(est.mean() - truth) < 4 * est.std(ddof=1) / np.sqrt(T)
    # eval-arena Paired.from_samples_unbiasedK with the item variance taken with ddof 1:
    #   var_E = var(mean(A,1) - mean(B,1), ddof=1) - mean(var(A,1)/(kA-1) + var(B,1)/(kB-1))
    a, b = A[:, 0, :], B[:, 0, :]
    var_E = np.var(a.mean(axis=1) - b.mean(axis=1), ddof=1) - np.mean(
        np.var(a, axis=1) / (kA - 1) + np.var(b, axis=1) / (kB - 1)
    )
    E_var = np.mean(np.var(a, axis=1) * (1 + 1 / (kA - 1)) + np.var(b, axis=1) * (1 + 1 / (kB - 1)))
    assert r.var_data[0] == pytest.approx(var_E, rel=1e-12)
    assert r.var_prediction[0] == pytest.approx(E_var, rel=1e-12)
    # the parts add up (var_data unclipped: it can be slightly negative for a trial)
    np.testing.assert_allclose(r.var_data / n + r.se_prediction**2, r.se_total**2, rtol=1e-10)


def test_variance_components_from_counts_against_expanded_runs():
    # reference: the same items written out as 0/1 runs (successes ones, then zeros)
    rng = np.random.default_rng(16)
    count = np.array([5, 10, 3])
    successes = np.stack([rng.integers(0, c + 1, size=25) for c in count], axis=1)
    share = successes / count
    r = variance_components_from_counts(share, count)
    for j, c in enumerate(count):
        runs_ = (np.arange(c)[None, :] < successes[:, j : j + 1]).astype(float)
        ref = variance_components(runs_)
        for field in (
            "mean",
            "var_data",
            "var_prediction",
            "se_total",
            "se_data",
            "se_prediction",
            "k",
        ):
            assert getattr(r, field)[j] == pytest.approx(
                getattr(ref, field)[0], rel=1e-12, abs=1e-15
            ), field
    assert r.source == "counts"


def test_variance_components_from_counts_on_terminal_bench(shared_data):
    # eval-arena pass1 with count: Terminal-Bench 2.0, 89 tasks; count = 5 runs for four
    # agents, 1 for three. The components are reported separately and add up.
    from reportgen.data import load

    table = load(shared_data / "eval-arena" / "terminal-bench-2.0.jsonl")
    ps = table.paired("terminal-bench-2.0", "pass1")
    count = table.system_attributes.loc[list(ps.systems), "count"].to_numpy()
    with pytest.warns(DegenerateDataWarning, match="single run per item"):
        r = variance_components_from_counts(ps.scores, count, systems=ps.systems)
    five = count == 5
    assert five.sum() == 4 and np.all(r.n == 89)
    # total variance of the mean = data part + prediction part (float error only)
    assert np.all(r.var_data[five] > 0)
    np.testing.assert_allclose(
        r.se_data[five] ** 2 + r.se_prediction[five] ** 2, r.se_total[five] ** 2, rtol=1e-12
    )
    # agents with fractional shares have prediction noise
    fractional = np.array(
        [not np.all(np.isin(ps.scores[:, j], [0, 1])) for j in range(len(ps.systems))]
    )
    assert fractional.sum() == 3
    assert np.all(r.se_prediction[five & fractional] > 0)
    # count = 1: no within-item information, only the total
    assert np.all(np.isnan(r.se_prediction[~five])) and np.all(r.se_total[~five] > 0)
    np.testing.assert_allclose(r.se_total, ps.scores.std(axis=0, ddof=1) / np.sqrt(89), rtol=1e-12)
    rows = {row["system"]: row for row in r.to_records()}
    assert rows["Ante__Gemini-3-Pro-Preview"]["k"] == 5.0
    assert 0 < rows["Ante__Gemini-3-Pro-Preview"]["prediction_share"] < 1


def test_variance_components_input_validation():
    with pytest.raises(InputError, match="same items"):
        variance_components_paired(np.ones((5, 2)), np.ones((6, 2)))
    with pytest.raises(InputError, match="between 0 and 1"):
        variance_components_from_counts(np.array([0.5, 1.5]), 2)
    with pytest.raises(InputError, match="positive integer"):
        variance_components_from_counts(np.array([0.5, 1.0]), 2.5)
    with pytest.raises(InputError, match="whole number of successes"):
        variance_components_from_counts(np.array([0.5, 0.3]), 4)
    with pytest.raises(InputError, match="does not broadcast"):
        variance_components_from_counts(np.ones((4, 2)), np.array([5, 5, 5]))
    with pytest.raises(InputError, match=r"share must be \(n_items,\)"):
        variance_components_from_counts(np.ones((4, 2, 2)), 5)
    with pytest.raises(InputError, match="1 system names for 2 systems"):
        variance_components(np.ones((4, 2, 3)), systems=["x"])


def test_variance_components_edge_cases():
    with pytest.warns(DegenerateDataWarning, match="fewer than 2 items"):
        r = variance_components(np.array([[1.0, 0.0, 1.0]]))
    assert np.isnan(r.se_total[0]) and np.isnan(r.var_prediction[0])
    with pytest.warns(DegenerateDataWarning, match="single run per item"):
        r = variance_components(np.array([[1.0], [0.0], [1.0]]))
    assert np.isnan(r.var_prediction[0]) and r.se_total[0] == pytest.approx(
        np.std([1, 0, 1], ddof=1) / np.sqrt(3)
    )
    # deterministic system: no prediction noise at all
    x = np.repeat(np.array([[0.0], [1.0], [1.0], [0.0]]), 3, axis=1)
    r = variance_components(x)
    assert r.var_prediction[0] == 0 and r.se_data[0] == pytest.approx(r.se_total[0])
    assert r.prediction_share()[0] == 0
    # unequal run counts: k is the harmonic mean, components still add up
    x = np.array([[1, 0, np.nan], [1, 1, 1], [0, np.nan, np.nan], [0, 1, 0]])
    r = variance_components(x)
    assert r.k[0] == pytest.approx(1 / np.mean([1 / 2, 1 / 3, 1, 1 / 3]))
    np.testing.assert_allclose(r.var_data / r.n + r.se_prediction**2, r.se_total**2, rtol=1e-10)
    assert r.mean[0] == pytest.approx(np.mean([0.5, 1, 0, 1 / 3]))
    # items without data are ignored
    x = np.vstack([x, [np.nan, np.nan, np.nan]])
    assert variance_components(x).n[0] == 4


# ------------------------------------------------------------ pooled_runs_bootstrap


def _mean_stats(scores):
    return np.stack([scores, np.where(np.isnan(scores), np.nan, 1.0)], axis=-1)


def test_pooled_runs_bootstrap_se_against_closed_form():
    # closed form: l draws with replacement from the n·l pooled scores have mean with
    # ideal bootstrap variance var_pool / l (var_pool with ddof 0 over the pooled rows);
    # a run alone: var_run / l
    rng = np.random.default_rng(17)
    scores = _clustered_binary(rng, 120, 2, 5)[:, 0, :]
    B = 20000
    r = pooled_runs_bootstrap(_mean_stats(scores), n_resamples=B, rng=18)
    assert r.estimate[0] == pytest.approx(scores.mean(), rel=1e-12)
    assert r.se[0] == pytest.approx(np.sqrt(scores.var() / 120), rel=5 / np.sqrt(2 * B))
    assert r.bootstrap_mean[0] == pytest.approx(
        scores.mean(), abs=5 * np.sqrt(scores.var() / 120 / B)
    )
    np.testing.assert_allclose(r.run_estimate[0], scores.mean(axis=0), rtol=1e-12)
    assert (r.n_items[0], r.n_runs, r.n_pooled[0]) == (120, 5, 600)
    assert len(r.run_records()) == 5 and r.to_records()[0]["n_pooled"] == 600


def test_pooled_runs_bootstrap_one_run_against_scipy_bootstrap():
    rng = np.random.default_rng(19)
    x = rng.exponential(size=(90, 1))
    B = 9999
    r = pooled_runs_bootstrap(_mean_stats(x), n_resamples=B, rng=20)
    # scipy: bootstrap((x,), np.mean, method="percentile", n_resamples=9999)
    ref = stats.bootstrap(
        (x[:, 0],), np.mean, method="percentile", n_resamples=B, rng=np.random.default_rng(21)
    )
    tol = _mc_tol(ref.standard_error, B)
    ci = ref.confidence_interval
    assert (r.ci_low[0], r.ci_high[0]) == pytest.approx((ci.low, ci.high), abs=tol)
    # with one run the per-run bootstrap is the same bootstrap
    assert (r.run_ci_low[0, 0], r.run_ci_high[0, 0]) == pytest.approx((ci.low, ci.high), abs=tol)


def _f1(s):
    return 2 * s[..., 0] / (2 * s[..., 0] + s[..., 1] + s[..., 2])


def _multilabel(rng, n_items, n_runs, n_labels=6):
    gold = rng.uniform(size=(n_items, n_labels)) < 0.25
    flip = rng.uniform(size=(n_items, n_runs, n_labels)) < 0.2
    pred = gold[:, None, :] ^ flip
    tp = (pred & gold[:, None, :]).sum(axis=2)
    fp = (pred & ~gold[:, None, :]).sum(axis=2)
    fn = (~pred & gold[:, None, :]).sum(axis=2)
    return gold, pred, np.stack([tp, fp, fn], axis=-1).astype(float)


def test_pooled_runs_bootstrap_f1_against_direct_micro_f1():
    # reference: micro-F1 = 2PR/(P + R) computed directly from the label matrices of the
    # pooled predictions (and of each run), not from the (tp, fp, fn) sums
    rng = np.random.default_rng(22)
    gold, pred, tpfpfn = _multilabel(rng, 150, 4)
    r = pooled_runs_bootstrap(tpfpfn, metric=_f1, n_resamples=2000, rng=23)

    def direct(pred_, gold_):
        precision = (pred_ & gold_).sum() / pred_.sum()
        recall = (pred_ & gold_).sum() / gold_.sum()
        return 2 * precision * recall / (precision + recall)

    pooled_gold = np.broadcast_to(gold[:, None, :], pred.shape)
    assert r.estimate[0] == pytest.approx(direct(pred, pooled_gold), rel=1e-12)
    for run in range(4):
        assert r.run_estimate[0, run] == pytest.approx(direct(pred[:, run], gold), rel=1e-12)
    assert r.ci_low[0] < r.estimate[0] < r.ci_high[0]


def test_pooled_runs_bootstrap_f1_against_exact_enumeration():
    # brute force: 3 items × 2 runs = 6 pooled rows, 3 draws -> all 6^3 equally likely
    # ordered resamples give the exact bootstrap distribution of F1
    rng = np.random.default_rng(24)
    _, _, tpfpfn = _multilabel(rng, 3, 2, n_labels=8)
    pool = tpfpfn.reshape(6, 3)
    draws = np.array(list(itertools.product(range(6), repeat=3)))
    exact = _f1(pool[draws].sum(axis=1))
    B = 40000
    r = pooled_runs_bootstrap(tpfpfn, metric=_f1, n_resamples=B, rng=25)
    assert r.bootstrap_mean[0] == pytest.approx(exact.mean(), abs=5 * exact.std() / np.sqrt(B))
    assert r.se[0] == pytest.approx(exact.std(), rel=5 / np.sqrt(2 * B))
    # the limits are quantiles of the exact distribution (up to Monte Carlo error)
    cdf_low = np.mean(exact < r.ci_low[0] - 1e-12)
    cdf_high = np.mean(exact <= r.ci_high[0] + 1e-12)
    assert cdf_low <= 0.025 + 0.01 and cdf_high >= 0.975 - 0.01


def test_pooled_runs_bootstrap_missing_rows_against_scipy_on_observed_pool():
    # with missing runs the pool holds the observed rows only; l = items with data
    rng = np.random.default_rng(26)
    scores = rng.uniform(size=(60, 2, 3))
    scores[rng.uniform(size=scores.shape) < 0.2] = np.nan
    B = 9999
    r = pooled_runs_bootstrap(_mean_stats(scores), n_resamples=B, rng=27, systems=["a", "b"])
    for j in range(2):
        pool = scores[:, j, :][~np.isnan(scores[:, j, :])]
        l = int((~np.isnan(scores[:, j, :])).any(axis=1).sum())
        assert r.n_items[j] == l and r.n_pooled[j] == len(pool)
        ideal_se = np.sqrt(pool.var() / l)  # closed form, as above
        assert r.se[j] == pytest.approx(ideal_se, rel=5 / np.sqrt(2 * B))
        for run in range(3):
            x = scores[:, j, run][~np.isnan(scores[:, j, run])]
            # scipy: bootstrap((x,), np.mean, method="percentile")
            ref = stats.bootstrap(
                (x,),
                np.mean,
                method="percentile",
                n_resamples=B,
                rng=np.random.default_rng(100 + run),
            )
            tol = _mc_tol(ref.standard_error, B)
            assert r.run_ci_low[j, run] == pytest.approx(ref.confidence_interval.low, abs=tol)
            assert r.run_ci_high[j, run] == pytest.approx(ref.confidence_interval.high, abs=tol)


def test_pooled_runs_bootstrap_input_validation():
    st = np.ones((5, 2, 2))
    with pytest.raises(InputError, match=r"stats must be \(n_items, n_runs, k\)"):
        pooled_runs_bootstrap(np.ones((5, 2)))
    with pytest.raises(InputError, match="is not callable"):
        pooled_runs_bootstrap(st, metric="f1")
    with pytest.raises(InputError, match="metric returned shape"):
        pooled_runs_bootstrap(st, metric=lambda s: s.sum(), n_resamples=10)
    with pytest.raises(InputError, match="n_resamples"):
        pooled_runs_bootstrap(st, n_resamples=-1)


def test_pooled_runs_bootstrap_edge_cases():
    # F1 undefined (0/0) on resamples with no positive: warned, left out
    st = np.zeros((6, 2, 3))
    st[0, :, 0] = 1  # one item with a true positive
    with pytest.warns(DegenerateDataWarning, match="undefined"):
        r = pooled_runs_bootstrap(st, metric=_f1, n_resamples=500, rng=0)
    assert r.ci_high[0] == 1.0 and r.estimate[0] == 1.0
    # a system without any row
    scores = np.stack([np.ones((4, 2)), np.full((4, 2), np.nan)], axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        r = pooled_runs_bootstrap(_mean_stats(scores), n_resamples=100, rng=0)
    assert r.ci_low[0] == 1.0 and np.isnan(r.ci_low[1]) and r.n_items[1] == 0


# ------------------------------------------------------------ runs_differ_test


def test_runs_differ_binary_against_statsmodels_cochrans_q():
    rng = np.random.default_rng(28)
    p = rng.beta(1, 1, size=(120, 3, 1))
    drift = np.array([0.0, 0.0, 0.15, 0.15, 0.3])  # later runs drift upward
    scores = (
        rng.uniform(size=(120, 3, 5)) < np.clip(p + drift * np.arange(3)[None, :, None] / 2, 0, 1)
    ).astype(float)
    scores[:7, 1, 2] = np.nan  # 7 items dropped for system 2
    r = runs_differ_test(scores)
    assert r.test == "Cochran's Q" and r.df == 4
    for j in range(3):
        x = scores[:, j, :][~np.isnan(scores[:, j, :]).any(axis=1)]
        # statsmodels: cochrans_q(x) on the items with every run observed
        ref = cochrans_q(x)
        assert r.statistic[j] == pytest.approx(ref.statistic, rel=1e-12)
        assert r.p_value[j] == pytest.approx(ref.pvalue, rel=1e-10)
    assert r.n_dropped.tolist() == [0, 7, 0] and r.n_items.tolist() == [120, 113, 120]
    assert r.p_value[2] < 0.01  # the drifting system


def test_runs_differ_continuous_against_scipy_friedmanchisquare():
    rng = np.random.default_rng(29)
    base = rng.uniform(size=(50, 2, 1))
    scores = np.round(base + 0.1 * rng.normal(size=(50, 2, 4)), 1)  # rounding -> ties
    scores[3, 0, 1] = np.nan
    r = runs_differ_test(scores)
    assert r.test == "Friedman" and r.modality == "continuous"
    for j in range(2):
        x = scores[:, j, :][~np.isnan(scores[:, j, :]).any(axis=1)]
        # scipy: friedmanchisquare(*x.T) (tie-corrected)
        ref = stats.friedmanchisquare(*x.T)
        assert r.statistic[j] == pytest.approx(ref.statistic, rel=1e-12)
        assert r.p_value[j] == pytest.approx(ref.pvalue, rel=1e-10)
    assert r.n_dropped.tolist() == [1, 0]


def test_runs_differ_two_runs_against_sign_test_closed_form():
    # closed form: Friedman with k = 2 is (W - L)^2 / (W + L), W and L the items where
    # run 1 is above / below run 2 (ties carry no information)
    rng = np.random.default_rng(30)
    x = np.round(rng.uniform(size=(40, 2)), 1)
    W, L = int((x[:, 0] > x[:, 1]).sum()), int((x[:, 0] < x[:, 1]).sum())
    r = runs_differ_test(x)
    assert r.statistic[0] == pytest.approx((W - L) ** 2 / (W + L), rel=1e-12)
    # binary, k = 2: Cochran's Q is McNemar's (b - c)^2 / (b + c)
    y = (rng.uniform(size=(60, 2)) < 0.5).astype(float)
    b = int(((y[:, 0] == 1) & (y[:, 1] == 0)).sum())
    c = int(((y[:, 0] == 0) & (y[:, 1] == 1)).sum())
    assert runs_differ_test(y).statistic[0] == pytest.approx((b - c) ** 2 / (b + c))


def test_runs_differ_test_input_validation():
    with pytest.raises(InputError, match="at least 2 runs"):
        runs_differ_test(np.ones((5, 1)))
    with pytest.raises(InputError, match="not all 0 or 1"):
        runs_differ_test(np.full((5, 3), 0.5), modality="binary")
    with pytest.raises(InputError, match="modality='ordinal' is not valid"):
        runs_differ_test(np.ones((5, 3)), modality="ordinal")


def test_runs_differ_test_edge_cases():
    with pytest.warns(DegenerateDataWarning, match="every item the same"):
        r = runs_differ_test(np.repeat(np.array([[0.0], [1.0], [1.0]]), 3, axis=1))
    assert np.isnan(r.statistic[0]) and r.p_value[0] == 1.0
    with pytest.warns(DegenerateDataWarning, match="fewer than 2 items"):
        r = runs_differ_test(np.array([[1.0, 0.0, 1.0], [np.nan, 1.0, 0.0]]))
    assert np.isnan(r.p_value[0]) and r.n_dropped[0] == 1
    # binary data forced to Friedman
    x = (np.random.default_rng(0).uniform(size=(30, 3)) < 0.5).astype(float)
    r = runs_differ_test(x, modality="continuous")
    assert r.statistic[0] == pytest.approx(stats.friedmanchisquare(*x.T).statistic)
    assert r.to_records()[0]["test"] == "Friedman"


# ------------------------------------------------------------ ci_width_by_runs


def test_ci_width_by_runs_first_run_against_scipy_bootstrap():
    rng = np.random.default_rng(31)
    scores = _clustered_binary(rng, 150, 1, 4)[:, 0, :]
    B = 9999
    # scipy: bootstrap((scores[:, 0],), np.mean, method="percentile") — with one run
    # both the cluster and the pooled bootstrap are the ordinary bootstrap of run 1
    ref = stats.bootstrap(
        (scores[:, 0],), np.mean, method="percentile", n_resamples=B, rng=np.random.default_rng(32)
    )
    tol = _mc_tol(ref.standard_error, B)
    for method in ("cluster", "pooled"):
        t = ci_width_by_runs(scores, method=method, n_resamples=B, rng=33)
        assert (t.ci_low[0, 0], t.ci_high[0, 0]) == pytest.approx(
            (ref.confidence_interval.low, ref.confidence_interval.high), abs=tol
        )
        np.testing.assert_allclose(
            t.estimate[:, 0], np.cumsum(scores.sum(axis=0)) / (150 * np.arange(1, 5))
        )


def test_ci_width_by_runs_against_ideal_bootstrap_widths():
    # closed forms: cluster width ≈ 2·1.96·sqrt(sum (x_i - mean)^2)/n with item means over
    # the first k runs; pooled width ≈ 2·1.96·sqrt(var_pool / n) (the size of one run), so
    # with strong prediction noise the cluster width shrinks with k and the pooled does not
    rng = np.random.default_rng(34)
    n, k = 400, 6
    scores = _clustered_binary(rng, n, 1, k, a=3.0, b=2.0)[:, 0, :]  # ICC 1/6
    B = 4000
    cl = ci_width_by_runs(scores, method="cluster", n_resamples=B, rng=35)
    po = ci_width_by_runs(scores, method="pooled", n_resamples=B, rng=36)
    z = stats.norm.ppf(0.975)
    for i in range(k):
        part = scores[:, : i + 1]
        m = part.mean(axis=1)
        cluster_ideal = 2 * z * np.sqrt(((m - m.mean()) ** 2).sum()) / n
        pooled_ideal = 2 * z * np.sqrt(part.var() / n)
        assert cl.width[i, 0] == pytest.approx(cluster_ideal, rel=0.08)
        assert po.width[i, 0] == pytest.approx(pooled_ideal, rel=0.08)
    assert cl.width[-1, 0] < 0.7 * cl.width[0, 0]
    assert po.width[-1, 0] == pytest.approx(po.width[0, 0], rel=0.15)
    rec = cl.to_records()
    assert [row["runs"] for row in rec] == list(range(1, k + 1))
    assert rec[0]["width"] == pytest.approx(rec[0]["ci_high"] - rec[0]["ci_low"])


def test_ci_width_by_runs_input_validation():
    with pytest.raises(InputError, match="method='bca' is not valid"):
        ci_width_by_runs(np.ones((5, 2)), method="bca")
    with pytest.raises(InputError, match="confidence=0"):
        ci_width_by_runs(np.ones((5, 2)), confidence=0)


def test_ci_width_by_runs_edge_cases():
    # several systems with missing runs: each k uses the runs observed among the first k
    rng = np.random.default_rng(37)
    scores = rng.uniform(size=(30, 2, 3))
    scores[:, 1, 0] = np.nan  # system 2 lacks its first run
    with pytest.warns(DegenerateDataWarning, match="NaN"):
        t = ci_width_by_runs(scores, n_resamples=200, rng=0, systems=["a", "b"])
    assert np.isnan(t.width[0, 1]) and np.all(np.isfinite(t.width[1:, 1]))
    assert np.all(np.isfinite(t.width[:, 0]))
    assert t.estimate[1, 1] == pytest.approx(scores[:, 1, 1].mean())
    assert len(t.to_records()) == 6


# ------------------------------------------------------------ coverage


def _coverage(trials, n_items, k, rng, n_resamples):
    # clustered binary data, ICC 0.5 (design effect 1 + (k - 1)/2); truth = E[p] = 0.6
    scores = _clustered_binary(rng, n_items, trials, k, a=0.6, b=0.4)
    truth = 0.6
    boot = cluster_bootstrap_interval(scores, n_resamples=n_resamples, rng=rng)
    values, clusters = _flatten_runs(scores)
    analytic = clustered_mean_interval(values, clusters)
    cover = {
        "cluster bootstrap": np.mean((boot.ci_low <= truth) & (truth <= boot.ci_high)),
        "clustered SE": np.mean((analytic.ci_low <= truth) & (truth <= analytic.ci_high)),
        "naive": np.mean((analytic.naive_low <= truth) & (truth <= analytic.naive_high)),
    }
    return cover


def test_cluster_intervals_coverage_simulation():
    # simulation of coverage, 200 trials: MC SD of a 95% coverage is 0.015, so the band
    # [0.90, 0.99] is about 3 SD; the naive i.i.d. interval expects 2Φ(1.96/√3) - 1 = 0.74
    cover = _coverage(200, 150, 5, np.random.default_rng(38), 1999)
    assert 0.90 <= cover["cluster bootstrap"] <= 0.99, cover
    assert 0.90 <= cover["clustered SE"] <= 0.99, cover
    assert cover["naive"] < 0.85, cover


@pytest.mark.slow
def test_cluster_intervals_coverage_simulation_large():
    # simulation of coverage, 5000 trials: MC SD 0.0031, band [0.93, 0.97] is 5 SD
    # (measured: 0.945 for both; naive 0.73)
    cover = _coverage(5000, 200, 5, np.random.default_rng(41), 9999)
    assert 0.93 <= cover["cluster bootstrap"] <= 0.97, cover
    assert 0.93 <= cover["clustered SE"] <= 0.97, cover
    assert cover["naive"] < 0.82, cover
