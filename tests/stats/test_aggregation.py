"""Aggregation across metrics and datasets against named references: closed forms,
scipy (landau, levy_stable, binomtest, friedmanchisquare, ttest_ind_from_stats,
studentized_range), Demšar's (2006) tables and simulations of size."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from scipy import integrate, stats

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.stats.aggregation import (
    aggregate_effect_sizes,
    aggregate_metrics,
    aggregate_unpaired_means,
    friedman_nemenyi,
    harmonic_mean_pvalue,
    hmp_landau_location,
    nemenyi_q,
    sign_test_wins,
)
from reportgen.stats.pairwise import compare_paired

EULER_GAMMA = 0.5772156649015329


# ============================================================================ §6.1


def test_aggregate_metrics_against_closed_form():
    # A (higher better): values {0, 2, 2, 4}: mean 2, SD sqrt(8/3) -> z = ±sqrt(6)/2, 0
    # B (lower better): {10, 10, 30, 30}: mean 20, SD 20/sqrt(3) -> z = ±sqrt(3)/2
    A = np.array([[0.0, 2.0], [2.0, 4.0]])
    B = np.array([[10.0, 10.0], [30.0, 30.0]])
    r6, r3 = math.sqrt(6) / 2, math.sqrt(3) / 2
    expected = np.array([[0.75 * -r6 + 0.25 * r3, 0.25 * r3], [-0.25 * r3, 0.75 * r6 - 0.25 * r3]])
    agg = aggregate_metrics(
        [A, B], directions=["higher", "lower"], weights=[3, 1], metrics=["a", "b"]
    )
    np.testing.assert_allclose(agg.scores, expected, rtol=1e-12)
    np.testing.assert_allclose(agg.weights, [0.75, 0.25])
    np.testing.assert_allclose(agg.means, [2.0, 20.0])
    np.testing.assert_allclose(agg.sds, [math.sqrt(8 / 3), 20 / math.sqrt(3)])
    rec = agg.to_records()
    assert rec[1] == {
        "metric": "b",
        "direction": "lower",
        "weight": 0.25,
        "mean": 20.0,
        "sd": pytest.approx(20 / math.sqrt(3)),
        "constant": False,
    }
    assert agg.to_dict()["shape"] == [2, 2]


def test_aggregate_metrics_invariances_against_closed_form():
    rng = np.random.default_rng(3)
    mats = [rng.normal(size=(30, 4)), rng.gamma(2.0, size=(30, 4)), rng.random((30, 4))]
    dirs = ["higher", "lower", "higher"]
    base = aggregate_metrics(mats, directions=dirs, weights=[0.5, 0.3, 0.2]).scores
    # the pooled z-score is invariant to a V + c (a > 0)
    scaled = [mats[0], 7.5 * mats[1] - 3.0, mats[2]]
    np.testing.assert_allclose(
        aggregate_metrics(scaled, directions=dirs, weights=[0.5, 0.3, 0.2]).scores, base, atol=1e-12
    )
    # negating a metric and flipping its direction: I_j z_j is unchanged
    flipped = [mats[0], -mats[1], mats[2]]
    np.testing.assert_allclose(
        aggregate_metrics(
            flipped, directions=["higher", "higher", "higher"], weights=[0.5, 0.3, 0.2]
        ).scores,
        base,
        atol=1e-12,
    )
    # weights are normalised: (5, 3, 2) is (0.5, 0.3, 0.2)
    np.testing.assert_allclose(
        aggregate_metrics(np.stack(mats), directions=dirs, weights=[5, 3, 2]).scores,
        base,
        atol=1e-12,
    )
    # each standardized metric has mean 0, SD 1, so the aggregate has mean 0
    assert abs(base.mean()) < 1e-12


def test_aggregate_metrics_compare_paired_against_scipy_ttest_rel(shared_data):
    from reportgen.data import load

    table = load(shared_data / "ibm-rag")
    views = [table.paired("ibm-rag", m) for m in ("precision", "recall", "sbert")]
    assert all(v.systems == views[0].systems for v in views)
    agg = aggregate_metrics([v.scores for v in views], directions=["higher"] * 3, weights=[1, 1, 2])
    # reference aggregate with numpy: (x - mean) / std(ddof=1), weights (1/4, 1/4, 1/2)
    ref = sum(
        w * (v.scores - v.scores.mean()) / v.scores.std(ddof=1)
        for w, v in zip((0.25, 0.25, 0.5), views)
    )
    np.testing.assert_allclose(agg.scores, ref, atol=1e-12)
    r = compare_paired(agg.scores, systems=views[0].systems, correction="none")
    # scipy: ttest_rel on the aggregate columns of each pair
    raw = [stats.ttest_rel(ref[:, i], ref[:, j]).pvalue for i, j in zip(r.index_a, r.index_b)]
    np.testing.assert_allclose(r.p_value, raw, rtol=1e-9)
    # K = 1: the paired t-test is affine invariant, so the one-metric "aggregate" gives
    # the metric's own p-values
    one = aggregate_metrics([views[0].scores], directions="higher")
    np.testing.assert_allclose(
        compare_paired(one.scores).p_value, compare_paired(views[0].scores).p_value, rtol=1e-9
    )


def test_aggregate_metrics_edge_cases():
    A = np.array([[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]])
    const = np.full((3, 2), 0.7)
    with pytest.warns(DegenerateDataWarning, match="constant"):
        agg = aggregate_metrics([A, const], directions=["higher", "lower"], metrics=["acc", "flat"])
    assert agg.constant == ("flat",)
    z = (A - A.mean()) / A.std(ddof=1)
    np.testing.assert_allclose(agg.scores, 0.5 * z)  # the constant contributes 0
    # runs axis: items × systems × runs
    R = np.random.default_rng(0).random((5, 3, 2))
    opposite = aggregate_metrics([R, R], directions=["higher", "lower"])
    assert opposite.scores.shape == (5, 3, 2)
    np.testing.assert_allclose(opposite.scores, 0.0, atol=1e-12)  # the two cancel


def test_aggregate_metrics_input_validation():
    A = np.zeros((3, 2)) + np.arange(2)
    with pytest.raises(InputError, match="shape"):
        aggregate_metrics([A, np.zeros((4, 2))], directions=["higher", "higher"])
    with pytest.raises(InputError, match="missing or infinite"):
        aggregate_metrics([np.array([[np.nan, 1.0], [0.0, 1.0]])], directions="higher")
    with pytest.raises(InputError, match="direction 'up' is not valid"):
        aggregate_metrics([A], directions=["up"])
    with pytest.raises(InputError, match="2 directions for 1 metrics"):
        aggregate_metrics([A], directions=["higher", "lower"])
    with pytest.raises(InputError, match="non-negative"):
        aggregate_metrics([A, A], directions=["higher"] * 2, weights=[1, -1])
    with pytest.raises(InputError, match="expected"):
        aggregate_metrics([A, A], directions=["higher"] * 2, weights=[1, 1, 1])
    with pytest.raises(InputError, match="no metric"):
        aggregate_metrics([], directions=[])
    with pytest.raises(InputError, match="items × systems"):
        aggregate_metrics([np.arange(4.0)], directions="higher")


# ============================================================================ §6.2 HMP


def _levy_stable_s0():
    # a private copy, so the global scipy object's parameterization is not changed
    dist = copy.deepcopy(stats.levy_stable)
    dist.parameterization = "S0"
    return dist


def test_harmonic_mean_pvalue_against_levy_stable_s0():
    # Wilson's Landau(mu, pi/2) is FMStable's Estable(alpha=1, location=mu,
    # logscale=log(pi/2), pm=0), i.e. stable S0(alpha=1, beta=1, scale=pi/2, loc=mu);
    # scipy: levy_stable (parameterization "S0").sf(x, 1, 1, loc=mu, scale=pi/2)
    s0 = _levy_stable_s0()
    p = np.array([[0.01, 0.04, 0.2], [0.001, 0.5, 0.9], [0.03, 0.03, 0.03], [0.2, 0.3, 0.6]])
    for L in (3, 30, 3000):
        mu = math.log(L) + 0.874367040387922  # 1 + psi(1) - log(2/pi)
        res = harmonic_mean_pvalue(p, L=L)
        hmp = 1 / np.sum(1 / (3 * p), axis=1)  # equal weights 1/3
        x = (3 / L) / hmp  # w_R / HMP
        tail = s0.sf(x, 1.0, 1.0, loc=mu, scale=math.pi / 2)
        np.testing.assert_allclose(res.hmp, hmp, rtol=1e-12)
        np.testing.assert_allclose(res.p_value, np.maximum(hmp, (3 / L) * tail), rtol=2e-5)
        np.testing.assert_allclose(
            res.p_adjusted, np.minimum(1, np.maximum(1 / x, tail)), rtol=2e-5
        )
        assert res.location == pytest.approx(mu, abs=1e-12)
    assert hmp_landau_location(1) == pytest.approx(1 - EULER_GAMMA + math.log(math.pi / 2))


def test_landau_parametrisation_against_characteristic_function():
    # scipy's standard landau has E exp(itX) = exp(-|t| - i (2/pi) t log|t|)
    # (stable S1 with alpha = 1, beta = 1, scale 1), so loc/scale are S0 parameters
    for t in (0.3, 1.5):
        re = sum(
            integrate.quad(stats.landau.pdf, a, b, weight="cos", wvar=t)[0]
            for a, b in ((-40, 0), (0, np.inf))
        )
        im = sum(
            integrate.quad(stats.landau.pdf, a, b, weight="sin", wvar=t)[0]
            for a, b in ((-40, 0), (0, np.inf))
        )
        expected = np.exp(-t - 1j * (2 / np.pi) * t * np.log(t))
        assert abs(complex(re, im) - expected) < 1e-6
    # right tail of Landau(., pi/2): x * sf(x) -> 2 * sigma / pi = 1, the tail of 1/U
    x = np.array([1e4, 1e6])
    tail = stats.landau.sf(x, loc=hmp_landau_location(10), scale=math.pi / 2)
    np.testing.assert_allclose(x * tail, 1.0, rtol=2e-3)


def _simulated_size(k, reps, alpha, rng, weights=None):
    p = rng.random((reps, k))
    return np.mean(harmonic_mean_pvalue(p, weights=weights).p_adjusted <= alpha)


def test_harmonic_mean_pvalue_size_against_exact_integration_k2():
    # K = L = 2: P(1/U1 + 1/U2 >= y) = ∫_0^1 min(1, 1/(y - 1/u)) du exactly (quad);
    # rejection at alpha <=> x = mean(1/U) >= max(1/alpha, Landau isf(alpha))
    alpha = 0.05
    xa = max(1 / alpha, stats.landau.isf(alpha, loc=hmp_landau_location(2), scale=math.pi / 2))
    y = 2 * xa
    exact = integrate.quad(
        lambda u: 1.0 if y - 1 / u <= 1 else 1 / (y - 1 / u), 0, 1, points=[1 / (y - 1)], limit=200
    )[0]
    # the Landau limit is slightly conservative for two p-values
    assert 0.044 < exact <= alpha
    reps = 40_000
    sim = _simulated_size(2, reps, alpha, np.random.default_rng(11))
    se = math.sqrt(exact * (1 - exact) / reps)
    assert abs(sim - exact) < 4 * se


@pytest.mark.parametrize("k", [2, 5, 20, 100])
def test_harmonic_mean_pvalue_size_against_simulation(k):
    # independent Uniform(0, 1) p-values, L = K: P(p_adjusted <= 0.05) ≈ 0.05.
    # Tolerance: 4 Monte Carlo SE plus the asymptotic error of the Landau limit at small
    # K (exact size 0.0459 at K = 2, see the test above; 0.048 at K = 5 in long runs)
    alpha, reps = 0.05, 20_000
    size = _simulated_size(k, reps, alpha, np.random.default_rng(100 + k))
    se = math.sqrt(alpha * (1 - alpha) / reps)
    slack = 0.0045 if k <= 5 else 0.0
    assert alpha - slack - 4 * se < size < alpha + 4 * se


@pytest.mark.slow
@pytest.mark.parametrize("k", [20, 100, 1000])
def test_harmonic_mean_pvalue_size_against_simulation_long(k):
    alpha, reps = 0.05, 200_000
    rng = np.random.default_rng(7 + k)
    size = np.mean([_simulated_size(k, reps // 10, alpha, rng) for _ in range(10)])
    se = math.sqrt(alpha * (1 - alpha) / reps)
    assert abs(size - alpha) < 4 * se + 0.002


def test_harmonic_mean_pvalue_against_closed_form_identities():
    # equal p-values: the weighted harmonic mean of p, ..., p is p
    res = harmonic_mean_pvalue(np.full((2, 4), 0.03), weights=[0.1, 0.2, 0.3, 0.4])
    np.testing.assert_allclose(res.hmp, 0.03, rtol=1e-12)
    # weighted harmonic mean: 1 / (0.25/0.01 + 0.75/0.1) = 1/32.5
    assert harmonic_mean_pvalue([0.01, 0.1], weights=[1, 3]).hmp == pytest.approx(1 / 32.5)
    # K = 1, L = 1: p_adjusted = max(p, Landau_1 sf(1/p)) >= p, and -> p as p -> 0
    for p in (0.3, 0.05, 1e-3, 1e-7):
        got = float(harmonic_mean_pvalue([p]).p_adjusted)
        tail = stats.landau.sf(
            1 / p, loc=1 - EULER_GAMMA + math.log(math.pi / 2), scale=math.pi / 2
        )
        assert got == pytest.approx(min(1.0, max(p, tail)), rel=1e-12)
    assert harmonic_mean_pvalue([1e-8]).p_adjusted == pytest.approx(1e-8, rel=1e-5)
    # K = 1 of L: never below Bonferroni min(1, L p); relative to it -> 1 as p -> 0
    for p in (0.2, 1e-3, 1e-5):
        got = float(harmonic_mean_pvalue([p], L=100).p_adjusted)
        assert got >= min(1.0, 100 * p) * (1 - 1e-12)
    assert harmonic_mean_pvalue([1e-9], L=100).p_adjusted == pytest.approx(1e-7, rel=1e-4)


def test_harmonic_mean_pvalue_multilevel_against_headline():
    # Wilson: the headline HMP over all L tests is at least as significant as the HMP of
    # any group (its Landau argument is larger), for the same L
    rng = np.random.default_rng(5)
    p = rng.beta(0.3, 1.0, size=(6, 3))  # |Ω| = 6 pairs × K = 3 lists
    groups = harmonic_mean_pvalue(p, L=18)
    headline = harmonic_mean_pvalue(p.reshape(-1), L=18)
    assert headline.group_weight == 1.0 and groups.group_weight == pytest.approx(1 / 6)
    assert float(headline.p_adjusted) <= groups.p_adjusted.min() + 1e-15
    # vectorised over leading axes = one group at a time
    for i in range(6):
        one = harmonic_mean_pvalue(p[i], L=18)
        assert float(one.p_adjusted) == pytest.approx(groups.p_adjusted[i], rel=1e-12)
    assert harmonic_mean_pvalue(p.reshape(2, 3, 3), L=18).p_adjusted.shape == (2, 3)


def test_harmonic_mean_pvalue_monotonicity():
    grid = np.linspace(0.001, 1.0, 60)
    p = np.column_stack([grid, np.full(60, 0.2), np.full(60, 0.7)])
    adj = harmonic_mean_pvalue(p, L=30).p_adjusted
    assert np.all(np.diff(adj) >= -1e-15)  # non-decreasing in each p
    by_l = [
        float(harmonic_mean_pvalue([0.001, 0.01, 0.2], L=L).p_adjusted) for L in (3, 10, 100, 1000)
    ]
    assert np.all(np.diff(by_l) >= 0)  # a larger family: less significant
    # more weight on the smaller p-value: more significant
    w_small = float(harmonic_mean_pvalue([0.001, 0.3], weights=[0.8, 0.2]).p_adjusted)
    w_large = float(harmonic_mean_pvalue([0.001, 0.3], weights=[0.2, 0.8]).p_adjusted)
    assert w_small < w_large


def test_harmonic_mean_pvalue_edge_cases():
    res = harmonic_mean_pvalue(np.array([[0.0, 0.5], [np.nan, 0.1], [1.0, 1.0]]))
    assert res.p_adjusted[0] == 0.0 and res.hmp[0] == 0.0
    assert np.isnan(res.p_adjusted[1]) and np.isnan(res.p_value[1])
    assert res.p_adjusted[2] == 1.0
    recs = res.to_records()
    assert recs[1]["p_adjusted"] is None and recs[0]["p_adjusted"] == 0.0
    assert res.to_dict()["L"] == 2 and len(res.to_dict()["groups"]) == 3
    # a zero-weight p-value does not count, even when it is 0
    assert float(harmonic_mean_pvalue([0.0, 0.3], weights=[0, 1]).hmp) == pytest.approx(0.3)


def test_harmonic_mean_pvalue_input_validation():
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        harmonic_mean_pvalue([0.5, 1.2])
    with pytest.raises(InputError, match="L=2 must be an integer >= K = 3"):
        harmonic_mean_pvalue([0.1, 0.2, 0.3], L=2)
    with pytest.raises(InputError, match="L=3.5"):
        harmonic_mean_pvalue([0.1, 0.2, 0.3], L=3.5)
    with pytest.raises(InputError, match="last axis"):
        harmonic_mean_pvalue(np.zeros((3, 0)))
    with pytest.raises(InputError, match="shape"):
        harmonic_mean_pvalue([0.1, 0.2], weights=[1.0])


# ============================================================================ effect sizes


def test_aggregate_effect_sizes_against_closed_form():
    # (0.2/1 + 0.8/3) / (1/1 + 1/3) = (0.2 + 0.26667) / 1.33333 = 0.35
    res = aggregate_effect_sizes([0.2, 0.8], [1.0, 3.0])
    assert float(res.effect_size) == pytest.approx(0.35, rel=1e-12)
    np.testing.assert_allclose(res.weights, [0.75, 0.25])
    # metric weights (1, 3) -> (0.25, 0.75): (0.25*0.2 + 0.75*0.8/3) / (0.25 + 0.25) = 0.5
    assert float(
        aggregate_effect_sizes([0.2, 0.8], [1.0, 3.0], weights=[1, 3]).effect_size
    ) == pytest.approx(0.5, rel=1e-12)
    # pairs × lists at once; one SD per list broadcasts; equal SDs -> plain mean
    e = np.array([[0.1, 0.5, -0.3], [1.0, 0.0, 0.2]])
    np.testing.assert_allclose(aggregate_effect_sizes(e, 2.0).effect_size, e.mean(axis=1))
    s = np.array([1.0, 2.0, 4.0])
    np.testing.assert_allclose(
        aggregate_effect_sizes(e, s).effect_size, (e / s).sum(axis=1) / (1 / s).sum()
    )


def test_aggregate_effect_sizes_edge_cases():
    res = aggregate_effect_sizes([[np.nan, 0.3], [0.1, 0.3]], [1.0, 1.0])
    assert np.isnan(res.effect_size[0]) and res.effect_size[1] == pytest.approx(0.2)
    assert res.to_records()[0]["effect_size"] is None
    assert float(aggregate_effect_sizes([0.4], [0.7]).effect_size) == pytest.approx(0.4)


def test_aggregate_effect_sizes_input_validation():
    with pytest.raises(InputError, match="positive"):
        aggregate_effect_sizes([0.2, 0.3], [1.0, 0.0])
    with pytest.raises(InputError, match="broadcast"):
        aggregate_effect_sizes([0.2, 0.3], [1.0, 1.0, 1.0])
    with pytest.raises(InputError, match="last axis"):
        aggregate_effect_sizes(0.2, 1.0)


# ============================================================================ §6.3


def test_aggregate_unpaired_means_against_closed_form():
    means = [[0.5, 10.0], [0.6, 8.0]]
    sds = [[0.5, 4.0], [0.5, 2.0]]
    ns = [[100, 50], [100, 30]]
    res = aggregate_unpaired_means(
        means,
        sds,
        ns,
        directions=["higher", "lower"],
        weights=[0.6, 0.4],
        systems=["a", "b"],
        lists=["acc", "err"],
    )
    # list 1: S = sqrt((99*.25 + 99*.25)/198) = 0.5, D = 0.5*sqrt(2/100)
    # list 2: S = sqrt((49*16 + 29*4)/78) = sqrt(900/78), D = S*sqrt(1/50 + 1/30)
    s2 = math.sqrt(900 / 78)
    d1, d2 = 0.5 * math.sqrt(0.02), s2 * math.sqrt(1 / 50 + 1 / 30)
    np.testing.assert_allclose(res.pooled_sd, [0.5, s2], rtol=1e-12)
    np.testing.assert_allclose(res.denominator, [d1, d2], rtol=1e-12)
    np.testing.assert_allclose(
        res.standardized, [[0.5 / d1, 10 / d2], [0.6 / d1, 8 / d2]], rtol=1e-12
    )
    np.testing.assert_allclose(
        res.scores, [0.6 * 0.5 / d1 - 0.4 * 10 / d2, 0.6 * 0.6 / d1 - 0.4 * 8 / d2], rtol=1e-12
    )
    d = res.to_dict()
    assert d["lists"][1]["direction"] == "lower" and d["systems"][0]["system"] == "a"


def test_aggregate_unpaired_means_against_scipy_ttest_ind_from_stats():
    # two systems, one list: V_1 - V_2 is the pooled-variance t statistic
    # scipy: ttest_ind_from_stats(m1, s1, n1, m2, s2, n2, equal_var=True).statistic
    res = aggregate_unpaired_means([0.71, 0.64], [0.2, 0.25], [40, 55], directions="higher")
    t = stats.ttest_ind_from_stats(0.71, 0.2, 40, 0.64, 0.25, 55, equal_var=True)
    assert res.scores[0] - res.scores[1] == pytest.approx(t.statistic, rel=1e-12)
    # scale invariance: a list in other units gives the same standardized means
    scaled = aggregate_unpaired_means([71.0, 64.0], [20.0, 25.0], [40, 55], directions="higher")
    np.testing.assert_allclose(scaled.standardized, res.standardized, rtol=1e-12)


def test_aggregate_unpaired_means_edge_cases():
    with pytest.warns(DegenerateDataWarning, match="pooled SD 0"):
        res = aggregate_unpaired_means(
            [[0.5, 0.1], [0.5, 0.2]],
            [[0.0, 0.1], [0.0, 0.1]],
            [[10, 10], [10, 10]],
            directions=["higher"] * 2,
        )
    assert np.all(np.isnan(res.scores)) and np.all(np.isfinite(res.standardized[:, 1]))
    assert res.to_records()[0]["score"] is None


def test_aggregate_unpaired_means_input_validation():
    ok = {"directions": ["higher"]}
    with pytest.raises(InputError, match="same shape"):
        aggregate_unpaired_means([[1.0], [2.0]], [[1.0]], [[5], [5]], **ok)
    with pytest.raises(InputError, match="positive integers"):
        aggregate_unpaired_means([[1.0], [2.0]], [[1.0], [1.0]], [[5], [0]], **ok)
    with pytest.raises(InputError, match="non-negative"):
        aggregate_unpaired_means([[1.0], [2.0]], [[1.0], [-1.0]], [[5], [5]], **ok)
    with pytest.raises(InputError, match="degrees of freedom"):
        aggregate_unpaired_means([[1.0], [2.0]], [[1.0], [1.0]], [[1], [1]], **ok)
    with pytest.raises(InputError, match="missing"):
        aggregate_unpaired_means([[np.nan], [2.0]], [[1.0], [1.0]], [[5], [5]], **ok)


# ============================================================================ sign test


def test_sign_test_wins_against_seed_001():
    # seed 001 §6: K = 22 subtasks, W_A = 14 -> p_agg = 0.286
    res = sign_test_wins(14, 8)
    assert round(float(res.p_value), 3) == 0.286
    assert res.to_records() == [
        {
            "wins_a": 14,
            "wins_b": 8,
            "ties": 0,
            "n": 22,
            "p_value": pytest.approx(0.2862787),
            "ties_handling": "drop",
        }
    ]


def test_sign_test_wins_against_scipy_binomtest():
    a, b = np.meshgrid(np.arange(0, 16), np.arange(0, 16), indexing="ij")
    res = sign_test_wins(a, b)
    for i, j in zip(a.ravel(), b.ravel()):
        # scipy: binomtest(W_A, W_A + W_B, 0.5).pvalue (two-sided); n = 0 -> 1
        ref = 1.0 if i + j == 0 else stats.binomtest(int(i), int(i + j)).pvalue
        assert res.p_value[i, j] == pytest.approx(ref, rel=1e-10, abs=1e-15)


def test_sign_test_wins_ties_against_closed_form():
    # 30 subtasks, 14 vs 8 wins, 8 ties
    drop = sign_test_wins(14, 8, total=30)
    count = sign_test_wins(14, 8, total=30, ties="count")
    assert drop.ties == 8 and drop.n == 22 and count.n == 30
    assert float(drop.p_value) == pytest.approx(2 * stats.binom.sf(13, 22, 0.5))
    # with ties counted, 2 P[Binom(30, 1/2) >= 14] = 1.42 is capped at 1
    assert float(count.p_value) == 1.0
    # 20 vs 4 wins, 6 ties: 2 P[Binom(24) >= 20] and 2 P[Binom(30) >= 20]
    drop, count = sign_test_wins(20, 4, total=30), sign_test_wins(20, 4, total=30, ties="count")
    assert float(drop.p_value) == pytest.approx(2 * stats.binom.sf(19, 24, 0.5))
    assert float(count.p_value) == pytest.approx(2 * stats.binom.sf(19, 30, 0.5))
    assert count.p_value > drop.p_value  # counting ties is conservative
    assert sign_test_wins(0, 0, total=5).p_value == 1.0
    assert sign_test_wins(7, 7).p_value == 1.0


def test_sign_test_wins_input_validation():
    with pytest.raises(InputError, match="non-negative integers"):
        sign_test_wins(-1, 3)
    with pytest.raises(InputError, match="non-negative integers"):
        sign_test_wins(2.5, 3)
    with pytest.raises(InputError, match="exceeds total"):
        sign_test_wins(10, 5, total=12)
    with pytest.raises(InputError, match="ties='skip'"):
        sign_test_wins(1, 2, ties="skip")


# ============================================================================ Friedman


#: Demšar (2006), Table 5(a): Nemenyi q_alpha for k = 2..10.
DEMSAR_Q05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
DEMSAR_Q10 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]


def test_nemenyi_q_against_demsar_table():
    for k, q05, q10 in zip(range(2, 11), DEMSAR_Q05, DEMSAR_Q10):
        assert nemenyi_q(k, 0.05) == pytest.approx(q05, abs=1e-3)
        assert nemenyi_q(k, 0.10) == pytest.approx(q10, abs=1e-3)
    # k = 2: the range of two standard normals / sqrt(2) is |Z|: q = Phi^-1(1 - alpha/2)
    assert nemenyi_q(2, 0.05) == pytest.approx(stats.norm.isf(0.025), rel=1e-6)


def test_friedman_nemenyi_against_scipy_friedmanchisquare():
    rng = np.random.default_rng(9)
    for k, n in ((3, 10), (5, 7), (4, 25)):
        # integer scores: many ties within blocks, ranked by average ranks
        X = rng.integers(0, 4, size=(k, n)).astype(float) + np.arange(k)[:, None] * 0.5
        res = friedman_nemenyi(X)
        # scipy: friedmanchisquare(*X) ranks each block (column) over the k systems
        ref = stats.friedmanchisquare(*X)
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
        assert res.p_value == pytest.approx(ref.pvalue, rel=1e-9)
        # average ranks with 1 = best: scipy rankdata of -X per column
        np.testing.assert_allclose(res.average_ranks, stats.rankdata(-X, axis=0).mean(axis=1))


def test_friedman_nemenyi_against_closed_form():
    # ranks per block (1 = best): (1,2,3), (1,2,3), (2,1,3), (1,3,2)
    X = np.array([[9.0, 9.0, 5.0, 9.0], [5.0, 5.0, 9.0, 1.0], [1.0, 1.0, 1.0, 5.0]])
    res = friedman_nemenyi(X, systems=["a", "b", "c"])
    np.testing.assert_allclose(res.average_ranks, [1.25, 2.0, 2.75])
    # chi2 = 12*4/(3*4) * (1.25² + 2² + 2.75² - 3*16/4) = 4 * 1.125 = 4.5
    assert res.statistic == pytest.approx(4.5) and res.df == 2
    assert res.p_value == pytest.approx(math.exp(-4.5 / 2))  # chi2(2) sf = exp(-x/2)
    # Iman-Davenport: 3 * 4.5 / (4*2 - 4.5) = 27/7, F(2, 6)
    assert res.iman_davenport == pytest.approx(27 / 7)
    assert res.iman_davenport_p_value == pytest.approx(stats.f.sf(27 / 7, 2, 6))
    # CD = 2.343 * sqrt(3*4/(6*4)) (Demšar Table 5a)
    assert res.critical_difference == pytest.approx(2.343 * math.sqrt(0.5), abs=1e-3)
    assert res.order() == ("a", "b", "c")
    # lowest rank vs CD 1.657: |1.25 - 2.75| = 1.5 < CD -> one group of all three
    assert res.groups == (("a", "b", "c"),)
    # "lower is better" reverses the ranks
    np.testing.assert_allclose(
        friedman_nemenyi(X, direction="lower").average_ranks, [2.75, 2.0, 1.25]
    )


def test_friedman_nemenyi_cd_groups_and_nemenyi_p_against_closed_form():
    # Demšar's example (Section 3.2.4): k = 4, N = 14 -> CD = 2.569 sqrt(20/84) = 1.25
    rng = np.random.default_rng(1)
    X = rng.normal(size=(4, 14)) + np.array([3.0, 1.0, 0.5, 0.0])[:, None]
    res = friedman_nemenyi(X)
    assert res.critical_difference == pytest.approx(2.569 * math.sqrt(20 / 84), abs=1e-3)
    assert round(res.critical_difference, 2) == 1.25
    diff = np.abs(res.average_ranks[:, None] - res.average_ranks[None, :])
    off = ~np.eye(4, dtype=bool)
    # Nemenyi p <= alpha exactly when the rank difference reaches CD
    np.testing.assert_array_equal(
        (res.nemenyi_p <= 0.05)[off], (diff >= res.critical_difference)[off]
    )
    # groups: maximal runs in rank order whose span is below CD
    order = np.argsort(res.average_ranks)
    r = res.average_ranks[order]
    for g in res.groups:
        idx = [res.systems.index(s) for s in g]
        span = res.average_ranks[idx].max() - res.average_ranks[idx].min()
        assert len(g) >= 2 and span < res.critical_difference
    expected = []
    for i in range(4):
        j = max(m for m in range(i, 4) if r[m] - r[i] < res.critical_difference)
        if j > i and not any(set(order[i : j + 1]) <= set(e) for e in expected):
            expected.append(tuple(order[i : j + 1]))
    assert res.groups == tuple(tuple(res.systems[m] for m in e) for e in expected)
    d = res.to_dict()
    assert d["systems"][0]["average_rank"] == pytest.approx(r[0])
    assert d["critical_difference"] == res.critical_difference


def test_friedman_nemenyi_edge_cases():
    with pytest.warns(DegenerateDataWarning, match="fully tied"):
        res = friedman_nemenyi(np.ones((3, 4)))
    assert math.isnan(res.statistic) and res.to_dict()["p_value"] is None
    np.testing.assert_allclose(res.average_ranks, 2.0)
    assert res.groups == (("system 1", "system 2", "system 3"),)
    # perfect agreement: Iman-Davenport's denominator is 0 -> F = inf, p = 0
    perfect = friedman_nemenyi(np.array([[3.0, 3.0], [2.0, 2.0], [1.0, 1.0]]))
    assert perfect.iman_davenport == math.inf and perfect.iman_davenport_p_value == 0.0


def test_friedman_nemenyi_input_validation():
    with pytest.raises(InputError, match="at least 2"):
        friedman_nemenyi(np.ones((1, 5)))
    with pytest.raises(InputError, match="missing"):
        friedman_nemenyi(np.array([[1.0, np.nan], [2.0, 3.0]]))
    with pytest.raises(InputError, match="alpha=1.5"):
        friedman_nemenyi(np.ones((2, 3)), alpha=1.5)
    with pytest.raises(InputError, match="direction='up'"):
        friedman_nemenyi(np.ones((2, 3)), direction="up")
    with pytest.raises(InputError, match="3 system names for 2 systems"):
        friedman_nemenyi(np.ones((2, 3)), systems=["a", "b", "c"])
