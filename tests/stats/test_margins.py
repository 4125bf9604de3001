"""Non-inferiority and equivalence tests, their intervals, family decisions and power,
against named references: statsmodels (``ttost_paired``, ``ttost_ind``,
``test_proportions_2indep``, ``tost_proportions_2indep``, ``multipletests``,
``TTestPower``, ``TTestIndPower``), scipy, brute-force maximum likelihood and enumeration,
and simulations."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats
from statsmodels.stats import proportion as smp
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestIndPower, TTestPower
from statsmodels.stats.weightstats import ttost_ind, ttost_paired

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.stats._degenerate import hypergeometric_floor
from reportgen.stats.flips import flipped_items
from reportgen.stats.intervals import (
    farrington_manning_interval,
    farrington_manning_restricted,
    farrington_manning_statistic,
    tango_paired_interval,
    tango_statistic,
)
from reportgen.stats.margins import (
    MarginResult,
    margin_decisions,
    margin_paired,
    margin_unpaired,
    noninferiority_power,
    noninferiority_required_n,
    single_step_correction,
)
from reportgen.stats.pairwise import compare_paired, compare_unpaired


@pytest.fixture
def continuous():
    rng = np.random.default_rng(3)
    return rng.normal(size=(40, 3)) + rng.normal(size=(40, 1)) + np.array([0, 0.1, -0.2])


@pytest.fixture
def binary():
    rng = np.random.default_rng(4)
    latent = rng.normal(size=(300, 1))
    return (latent + rng.normal(size=(300, 4)) + np.array([0.5, 0.55, 0.3, 0.5]) > 0).astype(float)


# ------------------------------------------------------------------ t tests


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_margin_paired_t_against_statsmodels_ttost_paired(continuous, direction):
    r = margin_paired(continuous, margin=0.3, baseline=0, direction=direction)
    assert r.test == "paired t" and r.candidates == ("system 2", "system 3")
    for k, j in enumerate([1, 2]):
        # statsmodels: ttost_paired(candidate, baseline, -margin, margin)
        p, (t1, p1, df1), (t2, p2, df2) = ttost_paired(
            continuous[:, j], continuous[:, 0], -0.3, 0.3
        )
        assert r.statistic_lower[k] == pytest.approx(t1, rel=1e-12)
        assert r.p_lower[k] == pytest.approx(p1, rel=1e-10)
        assert r.statistic_upper[k] == pytest.approx(t2, rel=1e-12)
        assert r.p_upper[k] == pytest.approx(p2, rel=1e-10)
        assert r.p_equivalence[k] == pytest.approx(p, rel=1e-10)
        assert r.p_noninferiority[k] == pytest.approx(
            p1 if direction == "higher" else p2, rel=1e-12
        )
        # scipy: ttest_rel two-sided at 0 and its interval
        ref = stats.ttest_rel(continuous[:, j], continuous[:, 0])
        assert r.p_superiority[k] == pytest.approx(ref.pvalue, rel=1e-10)
        ci = ref.confidence_interval(0.95)
        assert (r.ci_low[k], r.ci_high[k]) == pytest.approx((ci.low, ci.high), rel=1e-10)


def test_margin_unpaired_welch_against_statsmodels_ttost_ind():
    rng = np.random.default_rng(5)
    samples = [rng.normal(0, 1, 30), rng.normal(0.1, 2, 45), rng.normal(-0.2, 0.5, 25)]
    r = margin_unpaired(samples, margin=0.5, baseline=0)
    assert r.test == "Welch t"
    for k, j in enumerate([1, 2]):
        # statsmodels: ttost_ind(candidate, baseline, -margin, margin, usevar="unequal")
        p, (t1, p1, _), (t2, p2, _) = ttost_ind(samples[j], samples[0], -0.5, 0.5, usevar="unequal")
        assert (r.statistic_lower[k], r.statistic_upper[k]) == pytest.approx((t1, t2), rel=1e-12)
        assert (r.p_lower[k], r.p_upper[k]) == pytest.approx((p1, p2), rel=1e-10)
        assert r.p_equivalence[k] == pytest.approx(p, rel=1e-10)
        # scipy: ttest_ind(equal_var=False) at 0 and its interval
        ref = stats.ttest_ind(samples[j], samples[0], equal_var=False)
        assert r.p_superiority[k] == pytest.approx(ref.pvalue, rel=1e-10)
        ci = ref.confidence_interval(0.95)
        assert (r.ci_low[k], r.ci_high[k]) == pytest.approx((ci.low, ci.high), rel=1e-10)


# ------------------------------------------------------------------ paired binary


def _tango_brute_force(delta0, b, c, n):
    """Tango's Z from a numerical maximisation of the multinomial likelihood of the four
    cells under p10 − p01 = delta0 (b: only A right, c: only B right), and the variance
    of b − c, n[(p10 + p01) − (p10 − p01)²], at that maximum."""
    a_plus_d = n - b - c

    def nll(p01):
        p10 = p01 + delta0
        rest = 1 - p10 - p01
        return -(b * np.log(p10) + c * np.log(p01) + a_plus_d * np.log(rest))

    lo = max(0.0, -delta0) + 1e-12
    hi = (1 - delta0) / 2 - 1e-12
    p01 = optimize.minimize_scalar(
        nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}
    ).x
    p10 = p01 + delta0
    var = n * ((p10 + p01) - (p10 - p01) ** 2)
    return (b - c - n * delta0) / math.sqrt(var)


@pytest.mark.parametrize(
    "b, c, n, delta0",
    [
        (12, 4, 100, -0.05),
        (3, 9, 60, -0.1),
        (20, 20, 164, 0.03),
        (0, 5, 40, -0.02),
        (7, 0, 30, 0.1),
        (31, 23, 500, -0.01),
    ],
)
def test_tango_statistic_against_brute_force_restricted_mle(b, c, n, delta0):
    # brute force: scipy.optimize maximises the restricted multinomial likelihood
    ref = _tango_brute_force(delta0, b, c, n)
    assert float(tango_statistic(np.array(delta0), b, c, n)) == pytest.approx(ref, rel=1e-6)


def test_margin_paired_binary_tango_and_exact_mcnemar(binary):
    r = margin_paired(binary, margin=0.05, baseline=0)
    assert (r.test, r.superiority_test, r.ci_method) == (
        "Tango score",
        "exact McNemar",
        "Tango score interval",
    )
    for k, j in enumerate([1, 2, 3]):
        cand, base = binary[:, j], binary[:, 0]
        b = int(np.sum((cand == 1) & (base == 0)))
        c = int(np.sum((cand == 0) & (base == 1)))
        assert (r.a_only[k], r.b_only[k]) == (b, c)
        # brute-force restricted MLE, one-sided normal tails
        z_l, z_u = _tango_brute_force(-0.05, b, c, 300), _tango_brute_force(0.05, b, c, 300)
        assert r.p_lower[k] == pytest.approx(stats.norm.sf(z_l), rel=1e-5)
        assert r.p_upper[k] == pytest.approx(stats.norm.cdf(z_u), rel=1e-5)
        # scipy: binomtest(b, b + c, 0.5) is the exact McNemar test at 0
        assert r.p_superiority[k] == pytest.approx(stats.binomtest(b, b + c).pvalue, rel=1e-10)
        assert r.p_greater[k] == pytest.approx(
            stats.binomtest(b, b + c, alternative="greater").pvalue, rel=1e-10
        )


def _trinomial_size(n, delta, psi, alpha):
    """Exact size of the Tango non-inferiority test at the margin (p10 − p01 = −δ,
    p10 + p01 = ψ) by enumerating every (b, c) with its multinomial probability."""
    p10, p01 = (psi - delta) / 2, (psi + delta) / 2
    b, c = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    ok = b + c <= n
    b, c = b[ok], c[ok]
    prob = stats.multinomial.pmf(np.column_stack([b, c, n - b - c]), n, [p10, p01, 1 - psi])
    z = tango_statistic(np.array(-delta), b, c, n)
    return float(prob[stats.norm.sf(z) <= alpha].sum())


def test_margin_paired_binary_size_against_brute_force_enumeration():
    # brute force: every one of the 4^6 item-level outcomes of 6 items, each with its
    # probability at the margin, run through margin_paired; the exact size must equal
    # the trinomial enumeration of (b, c)
    n, delta, psi = 6, 0.1, 0.5
    p = {
        (1, 0): (psi - delta) / 2,
        (0, 1): (psi + delta) / 2,
        (1, 1): (1 - psi) / 2,
        (0, 0): (1 - psi) / 2,
    }
    cells = list(p)
    size = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        for outcome in itertools.product(range(4), repeat=n):
            X = np.array([cells[o] for o in outcome], dtype=float)[:, ::-1]  # base, cand
            prob = math.prod(p[cells[o]] for o in outcome)
            r = margin_paired(X, margin=delta)
            size += prob * (r.p_noninferiority[0] <= 0.05)
    assert size == pytest.approx(_trinomial_size(n, delta, psi, 0.05), abs=1e-12)


@pytest.mark.parametrize("n, delta, psi", [(50, 0.05, 0.2), (200, 0.02, 0.1), (500, 0.01, 0.3)])
def test_margin_paired_binary_size_simulation_against_exact_enumeration(n, delta, psi):
    # simulation of margin_paired on item-level data at the margin vs the exact size by
    # trinomial enumeration (binomial Monte Carlo error, 4 SE)
    rng = np.random.default_rng(n)
    reps = 4000
    p10, p01 = (psi - delta) / 2, (psi + delta) / 2
    cells = rng.multinomial(1, [p10, p01, (1 - psi) / 2, (1 - psi) / 2], size=(n, reps)).argmax(
        axis=2
    )
    base = np.isin(cells, [1, 2]).astype(float)  # only-B-right or both right
    cand = np.isin(cells, [0, 2]).astype(float)
    # one call per replicate would be slow: the replicates' p-values come from their
    # discordant counts, and the function is checked to give the same on 20 of them
    b = ((cand == 1) & (base == 0)).sum(axis=0)
    c = ((cand == 0) & (base == 1)).sum(axis=0)
    p = stats.norm.sf(tango_statistic(np.array(-delta), b, c, n))
    # the function on a sample of replicates gives the same p-values
    for k in range(20):
        r = margin_paired(np.column_stack([base[:, k], cand[:, k]]), margin=delta)
        assert r.p_noninferiority[0] == pytest.approx(p[k], rel=1e-12)
    hits = int(np.sum(p <= 0.05))
    exact = _trinomial_size(n, delta, psi, 0.05)
    se = math.sqrt(exact * (1 - exact) / reps)
    assert abs(hits / reps - exact) < 4 * se
    assert abs(exact - 0.05) < 0.02  # the score test is close to its level at the margin


def test_margin_paired_binary_permutation_uses_score_tests_at_the_margins(binary):
    auto = margin_paired(binary, margin=0.05)
    perm = margin_paired(binary, margin=0.05, method="permutation")
    np.testing.assert_array_equal(auto.p_lower, perm.p_lower)
    np.testing.assert_array_equal(auto.p_greater, perm.p_greater)
    assert perm.superiority_test == "paired sign-flip permutation (exact, binomial)"
    assert perm.notes and "not exact at a non-zero null" in perm.notes[0]


# ------------------------------------------------------------------ unpaired binary


def _fm_brute_force(delta0, k_a, n_a, k_b, n_b):
    """Farrington-Manning Z with the restricted MLE from a numerical maximisation of the
    two binomial likelihoods under p_a − p_b = delta0."""

    def nll(pa):
        pb = pa - delta0
        return -(
            k_a * np.log(pa)
            + (n_a - k_a) * np.log1p(-pa)
            + k_b * np.log(pb)
            + (n_b - k_b) * np.log1p(-pb)
        )

    lo, hi = max(0.0, delta0) + 1e-12, min(1.0, 1 + delta0) - 1e-12
    pa = optimize.minimize_scalar(
        nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}
    ).x
    pb = pa - delta0
    var = pa * (1 - pa) / n_a + pb * (1 - pb) / n_b
    return (k_a / n_a - k_b / n_b - delta0) / math.sqrt(var), pa


CASES = [
    (70, 100, 75, 100, -0.1),
    (5, 20, 9, 31, 0.05),
    (0, 10, 3, 12, -0.2),
    (50, 80, 20, 40, 0.1),
    (3, 50, 0, 60, -0.05),
    (140, 164, 131, 164, -0.03),
]


@pytest.mark.parametrize("k_a, n_a, k_b, n_b, delta0", CASES)
def test_farrington_manning_against_brute_force_mle_and_statsmodels(k_a, n_a, k_b, n_b, delta0):
    z_ref, pa_ref = _fm_brute_force(delta0, k_a, n_a, k_b, n_b)
    z = float(farrington_manning_statistic(np.array(delta0), k_a, n_a, k_b, n_b))
    assert z == pytest.approx(z_ref, rel=1e-6)
    pa, _ = farrington_manning_restricted(np.array(delta0), k_a / n_a, n_a, k_b / n_b, n_b)
    assert float(pa) == pytest.approx(pa_ref, abs=1e-7)
    # statsmodels: smp.test_proportions_2indep(method="score", correction=False, value=δ0).
    # statsmodels 0.15 has a wrong coefficient in its restricted MLE for δ0 != 0
    # (statsmodels issue #10269): compare with it where its MLE is the maximum,
    # otherwise check that ours has the larger restricted likelihood.
    sm = smp.test_proportions_2indep(
        k_a, n_a, k_b, n_b, value=delta0, method="score", correction=False, compare="diff"
    )

    def ll(p_a):
        p_b = p_a - delta0
        return (
            k_a * np.log(p_a)
            + (n_a - k_a) * np.log1p(-p_a)
            + k_b * np.log(p_b)
            + (n_b - k_b) * np.log1p(-p_b)
        )

    if not np.isfinite(sm.prop1_null):
        # statsmodels returns NaN when the restricted MLE is on the boundary (here
        # p_a = 0 with no success in A): the brute-force maximum above is the reference
        assert float(pa) == pytest.approx(0.0, abs=1e-7)
    elif abs(sm.prop1_null - pa_ref) < 1e-6:
        assert z == pytest.approx(sm.statistic, rel=1e-8)
    else:
        assert ll(float(pa)) > ll(sm.prop1_null)


@pytest.mark.parametrize("alternative", ["two-sided", "larger", "smaller"])
def test_farrington_manning_at_zero_against_statsmodels_and_pooled_z(alternative):
    # at δ0 = 0 statsmodels' score test (pooled variance) has no bug
    for k_a, n_a, k_b, n_b, _ in CASES:
        ref = smp.test_proportions_2indep(
            k_a, n_a, k_b, n_b, value=0, method="score", correction=False, alternative=alternative
        )
        r = margin_unpaired(
            [np.r_[np.ones(k_b), np.zeros(n_b - k_b)], np.r_[np.ones(k_a), np.zeros(n_a - k_a)]],
            margin=0.05,
        )
        p = {"two-sided": r.p_superiority, "larger": r.p_greater, "smaller": r.p_less}[alternative]
        rare = hypergeometric_floor(
            np.array([k_a + k_b]), np.array([n_a]), np.array([n_b]), "two-sided"
        )[0]
        if rare > 0.05:
            # issue 41: too few 1s for any exact test to reach the 95% interval's level:
            # the exact label shuffle at 0 (scipy fisher_exact, one-sided each way)
            table = [[k_a, n_a - k_a], [k_b, n_b - k_b]]
            one = {s: stats.fisher_exact(table, alternative=s).pvalue for s in ("greater", "less")}
            ref_p = {
                "two-sided": min(1.0, 2 * min(one.values())),
                "larger": one["greater"],
                "smaller": one["less"],
            }[alternative]
            assert float(p[0]) == pytest.approx(ref_p, rel=1e-9)
            continue
        assert float(p[0]) == pytest.approx(ref.pvalue, rel=1e-9)
        # the engine's pooled two-proportion z gives the same two-sided p
        if alternative == "two-sided":
            e = compare_unpaired(
                [np.r_[np.ones(k_a), np.zeros(n_a - k_a)], np.r_[np.ones(k_b), np.zeros(n_b - k_b)]]
            )
            assert float(p[0]) == pytest.approx(e.p_value[0], rel=1e-9)


def test_margin_unpaired_binary_tost_against_brute_force_and_statsmodels_tost():
    k_a, n_a, k_b, n_b = 140, 164, 131, 164
    base = np.r_[np.ones(k_b), np.zeros(n_b - k_b)]
    cand = np.r_[np.ones(k_a), np.zeros(n_a - k_a)]
    r = margin_unpaired([base, cand], margin=0.08)
    z_l, _ = _fm_brute_force(-0.08, k_a, n_a, k_b, n_b)
    z_u, _ = _fm_brute_force(0.08, k_a, n_a, k_b, n_b)
    assert r.p_lower[0] == pytest.approx(stats.norm.sf(z_l), rel=1e-6)
    assert r.p_upper[0] == pytest.approx(stats.norm.cdf(z_u), rel=1e-6)
    assert r.p_equivalence[0] == pytest.approx(
        max(stats.norm.sf(z_l), stats.norm.cdf(z_u)), rel=1e-6
    )
    # statsmodels: smp.tost_proportions_2indep(..., method="wald") is the same TOST with the
    # unrestricted variance; the score version differs only in its variance
    sm = smp.tost_proportions_2indep(k_a, n_a, k_b, n_b, -0.08, 0.08, method="wald")
    assert r.p_equivalence[0] == pytest.approx(sm.pvalue, rel=0.25)


def test_farrington_manning_interval_against_brute_force_inversion():
    for k_a, n_a, k_b, n_b, _ in CASES:
        lo, hi = farrington_manning_interval(k_a, n_a, k_b, n_b, confidence=0.9)
        z = stats.norm.isf(0.05)
        # brute force: the brute-force statistic at the limits is ±z
        assert _fm_brute_force(float(lo), k_a, n_a, k_b, n_b)[0] == pytest.approx(z, abs=1e-5)
        assert _fm_brute_force(float(hi), k_a, n_a, k_b, n_b)[0] == pytest.approx(-z, abs=1e-5)


def test_margin_unpaired_binary_permutation_exact_at_zero_is_fisher():
    base, cand = np.r_[np.ones(30), np.zeros(20)], np.r_[np.ones(40), np.zeros(12)]
    r = margin_unpaired([base, cand], margin=0.1, method="permutation")
    # scipy: fisher_exact one-sided tests of the 2x2 table
    table = [[40, 12], [30, 20]]
    assert r.p_greater[0] == pytest.approx(stats.fisher_exact(table, "greater").pvalue, rel=1e-10)
    assert r.p_less[0] == pytest.approx(stats.fisher_exact(table, "less").pvalue, rel=1e-10)


# ------------------------------------------------------------------ resampling


def test_margin_paired_permutation_against_brute_force_enumeration():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(10, 2)) + np.array([0, 0.3])
    d = X[:, 1] - X[:, 0]
    r = margin_paired(X, margin=0.4, method="permutation", n_resamples=5000)
    assert r.exact and r.test == "paired sign-flip permutation (exact)"
    # brute force: all 2^10 sign vectors of the shifted differences
    signs = np.array(list(itertools.product([1, -1], repeat=10)))
    for v, p, side in (
        (-0.4, r.p_lower[0], 1),
        (0.4, r.p_upper[0], -1),
        (0.0, r.p_greater[0], 1),
        (0.0, r.p_less[0], -1),
    ):
        flipped = signs @ (d - v)
        obs = (d - v).sum()
        ref = np.mean(side * flipped >= side * obs - 1e-9)
        assert p == pytest.approx(ref, abs=1e-12)


def test_margin_paired_permutation_monte_carlo_converges_to_exact():
    rng = np.random.default_rng(12)
    X = rng.normal(size=(14, 2)) + np.array([0, 0.2])
    exact = margin_paired(X, margin=0.3, method="permutation", n_resamples=2**14)
    mc = margin_paired(X, margin=0.3, method="permutation", n_resamples=9999, rng=1)
    assert exact.exact and not mc.exact and mc.n_resamples == 9999
    # Monte Carlo error of a proportion with 9,999 draws (fewer than the 2^14 sign
    # vectors, so sampled): 4 SE
    se = math.sqrt(exact.p_lower[0] * (1 - exact.p_lower[0]) / 9999)
    assert abs(mc.p_lower[0] - exact.p_lower[0]) < 4 * se + 1e-4


def test_margin_unpaired_permutation_against_brute_force_enumeration():
    rng = np.random.default_rng(13)
    base, cand = rng.normal(size=6), rng.normal(size=5) + 0.5
    r = margin_unpaired([base, cand], margin=0.5, method="permutation")
    assert r.exact
    pooled_shift = lambda v: np.r_[cand - v, base]  # noqa: E731
    # brute force: every split of the 11 shifted scores into 5 and 6
    for v, p, side in ((-0.5, r.p_lower[0], 1), (0.5, r.p_upper[0], -1)):
        z = pooled_shift(v)
        obs = z[:5].mean() - z[5:].mean()
        count = total = 0
        for idx in itertools.combinations(range(11), 5):
            mask = np.zeros(11, bool)
            mask[list(idx)] = True
            stat = z[mask].mean() - z[~mask].mean()
            count += side * stat >= side * obs - 1e-9
            total += 1
        assert p == pytest.approx(count / total, abs=1e-12)


def test_margin_bootstrap_at_zero_against_engine_bootstrap(continuous):
    # the engine's paired bootstrap draws the same counts from the same seed: its
    # one-sided p-value at 0 equals the margin bootstrap's p_greater
    r = margin_paired(continuous[:, :2], margin=0.2, method="bootstrap", rng=7, baseline=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = compare_paired(continuous[:, [1, 0]], method="bootstrap", rng=7, alternative="greater")
    assert r.p_greater[0] == pytest.approx(e.p_value[0], abs=1e-12)


def test_margin_bootstrap_interval_against_scipy_basic_bootstrap(continuous):
    # scipy: bootstrap(..., method="basic") of the mean difference; same resampling
    # scheme, different random draws: agree to the Monte Carlo error of the quantiles
    d = continuous[:, 1] - continuous[:, 0]
    r = margin_paired(continuous[:, :2], margin=0.2, method="bootstrap", rng=8, n_resamples=20000)
    ref = stats.bootstrap(
        (d,), np.mean, method="basic", n_resamples=20000, random_state=9
    ).confidence_interval
    se = d.std(ddof=1) / math.sqrt(len(d))
    assert r.ci_low[0] == pytest.approx(ref.low, abs=0.05 * se)
    assert r.ci_high[0] == pytest.approx(ref.high, abs=0.05 * se)


def test_margin_unpaired_bootstrap_close_to_welch():
    rng = np.random.default_rng(14)
    samples = [rng.normal(0, 1, 400), rng.normal(0.05, 1.5, 300)]
    boot = margin_unpaired(samples, margin=0.2, method="bootstrap", rng=1, n_resamples=20000)
    welch = margin_unpaired(samples, margin=0.2)
    # large samples: the null-shifted bootstrap approaches the Welch test (z vs t and
    # Monte Carlo error)
    assert boot.p_lower[0] == pytest.approx(welch.p_lower[0], abs=0.01)
    assert boot.p_upper[0] == pytest.approx(welch.p_upper[0], abs=0.01)


# ------------------------------------------------------------------ agreement


def _agreement(result: MarginResult, a: float) -> None:
    low, high = result.interval(1 - 2 * a)
    delta = result.margin
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(result.p_lower <= a, low > -delta)
        np.testing.assert_array_equal(result.p_upper <= a, high < delta)
        np.testing.assert_array_equal(result.p_greater <= a, low > 0)
        np.testing.assert_array_equal(result.p_less <= a, high < 0)


@pytest.mark.parametrize("method", ["auto", "permutation", "bootstrap"])
@pytest.mark.parametrize("kind", ["continuous", "binary"])
def test_interval_and_tests_never_disagree_against_direct_comparison(method, kind):
    # oracle: the definition — at every level, "the interval lies above −δ" must be
    # "the non-inferiority test rejects", and likewise at +δ and at 0
    rng = np.random.default_rng(15)
    for trial in range(12):
        n = int(rng.integers(8, 120))
        if kind == "binary":
            p = rng.uniform(0.3, 0.9)
            latent = rng.normal(size=(n, 1))
            X = (
                latent
                + rng.normal(size=(n, 4)) * rng.uniform(0.3, 2)
                + rng.normal(0, 0.3, size=4)
                + stats.norm.ppf(p)
                > 0
            ).astype(float)
            delta = float(rng.uniform(0.01, 0.15))
        else:
            X = rng.normal(size=(n, 4)) + rng.normal(size=(n, 1)) + rng.normal(0, 0.3, 4)
            delta = float(rng.uniform(0.05, 0.6))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            paired = margin_paired(X, margin=delta, method=method, rng=trial, n_resamples=999)
            unpaired = margin_unpaired(
                [X[: n // 2, 0], X[:, 1], X[n // 3 :, 2]],
                margin=delta,
                method=method,
                rng=trial,
                n_resamples=999,
            )
        for a in (0.025, 0.005, 0.1, 0.0011):
            _agreement(paired, a)
            _agreement(unpaired, a)


def test_exact_mcnemar_and_tango_interval_are_aligned_at_zero():
    # b = 0, c = 12: exact McNemar p = 2^-11 = 0.000488 rejects at 0.0005 while Tango's
    # (asymptotic) interval at 1 − 0.0005 contains 0; the interval is cut at 0
    X = np.zeros((100, 2))
    X[:12, 0] = 1  # baseline right, candidate wrong on 12 items
    r = margin_paired(X, margin=0.2)
    assert r.p_superiority[0] == pytest.approx(2**-11)
    lo_tango, hi_tango = tango_paired_interval(0, 12, 100, confidence=1 - 0.0005)
    assert float(hi_tango) >= 0
    lo, hi = r.interval(1 - 0.0005)
    assert hi[0] < 0 and lo[0] == pytest.approx(float(lo_tango))
    # and the other way: Tango excludes 0 but exact McNemar does not reject: extended
    X = np.zeros((100, 2))
    X[:5, 1] = 1  # candidate right on 5 items only: exact p = 0.0625
    r = margin_paired(X, margin=0.2)
    assert r.p_superiority[0] == pytest.approx(0.0625)
    lo_tango, _ = tango_paired_interval(5, 0, 100, confidence=0.95)
    assert float(lo_tango) > 0 and r.ci_low[0] == 0.0


# ------------------------------------------------------------------ family decisions


def _family(rng, m=6):
    out = []
    for k in range(m):
        n = int(rng.integers(30, 200))
        X = rng.normal(size=(n, 2)) + rng.normal(size=(n, 1)) + np.array([0, rng.normal(0, 0.3)])
        out.append(margin_paired(X, margin=0.25, direction="higher" if k % 2 else "lower"))
    return out


@pytest.mark.parametrize(
    "correction, reference",
    [
        ("bonferroni", "bonferroni"),
        ("holm", "bonferroni"),
        ("sidak", "sidak"),
        ("holm-sidak", "sidak"),
        ("fdr_bh", "fdr_bh"),
        ("fdr_by", "fdr_by"),
        ("none", None),
    ],
)
def test_margin_decisions_adjusted_p_against_statsmodels_multipletests(correction, reference):
    rng = np.random.default_rng(16)
    family = _family(rng)
    d = margin_decisions(family, alpha=0.05, correction=correction)
    p = np.concatenate([r.p_superiority for r in family])
    assert d.interval_correction == single_step_correction(correction)
    # statsmodels: multipletests(p, method=reference)[1]
    expected = p if reference is None else multipletests(p, method=reference)[1]
    np.testing.assert_allclose(d.p_superiority_adjusted, expected, rtol=1e-10)
    m = len(p)
    level = {"bonferroni": 0.05 / m, "sidak": 1 - 0.95 ** (1 / m), None: 0.05}
    if reference in level:
        assert d.confidence == pytest.approx(1 - level[reference], rel=1e-12)


@pytest.mark.parametrize("correction", ["bonferroni", "holm-sidak", "fdr_bh", "fdr_by", "none"])
def test_margin_decisions_claims_agree_with_adjusted_p_and_interval(correction):
    # oracle: the claims' definitions — adjusted p <= α (superiority) or <= α/2
    # (one-sided claims) iff the interval says so; across many random families
    rng = np.random.default_rng(17)
    for _ in range(25):
        family = _family(rng, m=int(rng.integers(1, 9)))
        d = margin_decisions(family, alpha=0.05, correction=correction)
        higher = np.array([x == "higher" for x in d.direction])
        diff_side = np.where(higher, d.ci_low > 0, d.ci_high < 0)
        np.testing.assert_array_equal(d.improved, diff_side)
        np.testing.assert_array_equal(d.improved | d.regressed, d.p_superiority_adjusted <= 0.05)
        np.testing.assert_array_equal(d.noninferior, d.p_noninferiority_adjusted <= 0.025)
        np.testing.assert_array_equal(d.equivalent, d.p_equivalence_adjusted <= 0.025)
        ni_interval = np.where(higher, d.ci_low > -d.margin, d.ci_high < d.margin)
        np.testing.assert_array_equal(d.noninferior, ni_interval)
        for k, v in enumerate(d.verdict):
            expected = (
                "improved"
                if d.improved[k]
                else "regressed"
                if d.regressed[k]
                else "non-inferior"
                if d.noninferior[k]
                else "inconclusive"
            )
            assert v == expected


def test_margin_decisions_bonferroni_one_sided_adjusted_is_m_times_p():
    rng = np.random.default_rng(18)
    family = _family(rng, m=5)
    d = margin_decisions(family, correction="bonferroni")
    raw = np.concatenate([r.p_noninferiority for r in family])
    # closed form: Bonferroni of a one-sided p compared with α/2 is min(1, m p)
    np.testing.assert_allclose(
        d.p_noninferiority_adjusted, np.where(2 * raw <= 1, np.minimum(1, 5 * raw), 1.0)
    )
    np.testing.assert_allclose(d.p_noninferiority, raw)


def test_margin_decisions_without_margin_gives_three_verdicts(continuous):
    r = margin_paired(continuous, margin=None)
    assert np.isnan(r.p_lower).all() and np.isnan(r.p_equivalence).all()
    d = margin_decisions([r], correction="none")
    assert set(d.verdict) <= {"improved", "regressed", "no detectable difference"}
    assert not d.noninferior.any() and not d.equivalent.any()
    assert np.isnan(d.p_noninferiority_adjusted).all()


def test_margin_decisions_simultaneous_coverage_simulation():
    # simulation: Šidák intervals of m = 4 independent comparisons cover all four true
    # differences with probability >= 95% (binomial Monte Carlo bound)
    rng = np.random.default_rng(19)
    reps, covered = 600, 0
    truth = np.array([0.0, 0.2, -0.1, 0.3])
    for _ in range(reps):
        family = []
        for t in truth:
            X = rng.normal(size=(40, 2)) + np.array([0, t])
            family.append(margin_paired(X, margin=0.2))
        d = margin_decisions(family, correction="holm-sidak")
        covered += bool(np.all((d.ci_low <= truth) & (truth <= d.ci_high)))
    assert covered / reps >= 0.95 - 2.58 * math.sqrt(0.95 * 0.05 / reps)


# ------------------------------------------------------------------ power


@pytest.mark.parametrize(
    "n, margin, sd, true_diff", [(50, 0.3, 1.0, 0.0), (120, 0.1, 0.5, 0.05), (20, 1.0, 2.0, -0.2)]
)
def test_noninferiority_power_paired_t_against_statsmodels_ttestpower(n, margin, sd, true_diff):
    r = noninferiority_power(
        n, margin, design="paired-continuous", sd=sd, true_diff=true_diff, alpha=0.025
    )
    # statsmodels: TTestPower().power(effect_size=(Δ1 + δ)/sd, nobs=n, alpha=0.025,
    # alternative="larger")
    ref = TTestPower().power(
        effect_size=(true_diff + margin) / sd, nobs=n, alpha=0.025, alternative="larger"
    )
    assert r.power == pytest.approx(ref, rel=1e-8)


def test_noninferiority_power_welch_equal_groups_against_statsmodels_ttestindpower():
    # equal SDs and group sizes: the Welch df is 2n − 2, the pooled t's
    r = noninferiority_power(60, 0.4, design="unpaired-continuous", sd=1.2, alpha=0.05)
    ref = TTestIndPower().power(
        effect_size=0.4 / 1.2, nobs1=60, alpha=0.05, ratio=1, alternative="larger"
    )
    assert r.power == pytest.approx(ref, rel=1e-8)


@pytest.mark.parametrize(
    "n, margin, psi, true_diff",
    [(300, 0.05, 0.2, 0.0), (150, 0.1, 0.3, 0.02), (800, 0.02, 0.1, 0.0)],
)
def test_noninferiority_power_paired_binary_against_simulation(n, margin, psi, true_diff):
    # simulation of the Tango test on multinomial tables (binomial error, 4 SE)
    pred = noninferiority_power(
        n, margin, design="paired-binary", discordance=psi, true_diff=true_diff
    ).power
    rng = np.random.default_rng(20)
    reps = 20000
    p10, p01 = (psi + true_diff) / 2, (psi - true_diff) / 2
    counts = rng.multinomial(n, [p10, p01, 1 - psi], size=reps)
    z = tango_statistic(np.array(-margin), counts[:, 0], counts[:, 1], n)
    sim = np.mean(stats.norm.sf(z) <= 0.025)
    assert abs(sim - pred) < 4 * math.sqrt(pred * (1 - pred) / reps) + 0.01


@pytest.mark.parametrize(
    "n, margin, baseline, true_diff, ratio",
    [(200, 0.1, 0.7, 0.0, 1.0), (400, 0.05, 0.85, 0.01, 1.5), (100, 0.15, 0.5, 0.0, 0.5)],
)
def test_noninferiority_power_unpaired_binary_against_simulation(
    n, margin, baseline, true_diff, ratio
):
    pred = noninferiority_power(
        n, margin, design="unpaired-binary", baseline=baseline, true_diff=true_diff, ratio=ratio
    ).power
    rng = np.random.default_rng(21)
    reps = 20000
    n_b = int(round(ratio * n))
    k_a = rng.binomial(n, baseline + true_diff, size=reps)
    k_b = rng.binomial(n_b, baseline, size=reps)
    z = farrington_manning_statistic(np.array(-margin), k_a, n, k_b, n_b)
    sim = np.mean(stats.norm.sf(z) <= 0.025)
    assert abs(sim - pred) < 4 * math.sqrt(pred * (1 - pred) / reps) + 0.01


@pytest.mark.parametrize(
    "design, nuisance",
    [
        ("paired-binary", {"discordance": 0.2}),
        ("unpaired-binary", {"baseline": 0.8}),
        ("paired-continuous", {"sd": 0.3}),
        ("unpaired-continuous", {"sd": 0.3, "sd_b": 0.4}),
    ],
)
def test_noninferiority_required_n_is_the_smallest_n_against_power(design, nuisance):
    r = noninferiority_required_n(0.05, design=design, power=0.8, **nuisance)
    # closed form of the definition: power at n reaches 80%, at n − 1 it does not
    at_n = noninferiority_power(r.n, 0.05, design=design, **nuisance).power
    below = noninferiority_power(r.n - 1, 0.05, design=design, **nuisance).power
    assert at_n >= 0.8 > below and r.power == pytest.approx(at_n)


def test_noninferiority_required_n_paired_binary_against_nam_closed_form():
    # Nam (1997), eq. 6 solved for n: ((z_α σ0 + z_β σ1) / (Δ1 + δ))², σ1² = ψ − Δ1²
    psi, delta = 0.2, 0.05
    p01 = psi / 2
    A, B, C = 2.0, -psi - delta * (2 - 0.0), -p01 * (-delta) * (1 + delta)
    B = -psi + (2 - psi / 2 + p01) * (-delta)
    p21 = (math.sqrt(B * B - 4 * A * C) - B) / (2 * A)
    sd0, sd1 = math.sqrt(2 * p21 - delta * (1 + delta)), math.sqrt(psi)
    n = ((stats.norm.isf(0.025) * sd0 + stats.norm.isf(0.2) * sd1) / delta) ** 2
    r = noninferiority_required_n(delta, design="paired-binary", discordance=psi)
    assert r.n == math.ceil(n)


# ------------------------------------------------------------------ validation


def test_margin_input_validation(continuous, binary):
    with pytest.raises(InputError, match="must be a positive finite number"):
        margin_paired(continuous, margin=0)
    with pytest.raises(InputError, match="must be a positive finite number"):
        margin_paired(continuous, margin=float("nan"))
    with pytest.raises(InputError, match="must be a number"):
        margin_paired(continuous, margin="0.1")
    with pytest.raises(InputError, match="not below 1 for 0/1 scores"):
        margin_paired(binary, margin=1.5)
    with pytest.raises(InputError, match="direction='up' is not valid"):
        margin_paired(continuous, margin=0.1, direction="up")
    with pytest.raises(InputError, match="method='sign' is not valid"):
        margin_paired(continuous, margin=0.1, method="sign")
    with pytest.raises(InputError, match="unknown baseline system 'x'"):
        margin_paired(continuous, margin=0.1, baseline="x")
    with pytest.raises(InputError, match="is also a candidate"):
        margin_paired(continuous, margin=0.1, baseline=1, candidates=[1, 2])
    with pytest.raises(InputError, match="at least 2 systems"):
        margin_unpaired([continuous[:, 0]], margin=0.1)
    with pytest.raises(InputError, match="contain NaN"):
        margin_paired(np.array([[1.0, np.nan], [0.0, 1.0]]), margin=0.1)
    with pytest.raises(InputError, match="confidence=1.5"):
        margin_paired(continuous, margin=0.1).interval(1.5)
    with pytest.raises(InputError, match="correction='bh' is not valid"):
        margin_decisions([margin_paired(continuous, margin=0.1)], correction="bh")
    with pytest.raises(InputError, match="no comparison in the family"):
        margin_decisions([])
    with pytest.raises(InputError, match="discordance=None must be in"):
        noninferiority_power(100, 0.05, design="paired-binary")
    with pytest.raises(InputError, match="sd does not apply"):
        noninferiority_power(100, 0.05, design="paired-binary", discordance=0.2, sd=1)
    with pytest.raises(InputError, match="true_diff=-0.1 must be above −margin"):
        noninferiority_required_n(0.05, design="paired-continuous", true_diff=-0.1)


def test_margin_edge_cases():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateDataWarning)
        # identical systems on 0/1 scores: no discordant items, still a finite Tango test
        X = np.column_stack([np.r_[np.ones(50), np.zeros(50)]] * 2)
        r = margin_paired(X, margin=0.05)
        assert r.p_superiority[0] == 1.0 and 0 < r.p_lower[0] < 0.05
    # a constant non-zero difference: the exact sign-flip p of the shifted constant
    # (issue 30: brute force over the 2^10 sign vectors of ten equal differences gives
    # 1/2^10 one-sided), never 0
    X = np.column_stack([np.arange(10.0), np.arange(10.0) + 0.1])
    with pytest.warns(DegenerateDataWarning, match="zero variance"):
        r = margin_paired(X, margin=0.05)
    assert (r.p_lower[0], r.p_upper[0], r.p_superiority[0]) == (2.0**-10, 1.0, 2.0**-9)
    assert (r.ci_low[0], r.ci_high[0]) == pytest.approx((0.1, 0.1))
    # one item: fewer than an exact test needs; the exact sign-flip test makes no claim
    r = margin_paired(np.array([[1.0, 2.0]]), margin=0.1)
    assert r.p_lower[0] == 0.5 and np.isinf(r.ci_low[0]) and np.isinf(r.ci_high[0])
    # both unpaired systems all correct: z undefined at 0 (p = 1), defined at ±δ
    with pytest.warns(DegenerateDataWarning, match="all 0 or all 1"):
        r = margin_unpaired([np.ones(30), np.ones(40)], margin=0.1)
    assert r.p_superiority[0] == 1.0 and r.p_lower[0] < 0.05


def test_margin_records_and_frame(binary):
    r = margin_paired(
        binary, margin=0.05, systems=["v1", "v2", "v3", "v4"], baseline="v1", candidates=["v3"]
    )
    (row,) = r.to_records()
    assert row["baseline"] == "v1" and row["candidate"] == "v3"
    assert row["p_noninferiority"] == pytest.approx(float(r.p_lower[0]))
    assert row["a_only"] + row["b_only"] > 0 and row["margin"] == 0.05
    assert list(r.to_frame()["candidate"]) == ["v3"]


def test_margin_same_seed_same_numbers(continuous):
    a = margin_paired(continuous, margin=0.2, method="bootstrap", rng=3, n_resamples=500)
    b = margin_paired(
        continuous, margin=0.2, method="bootstrap", rng=3, n_resamples=500, max_memory=2**20
    )
    np.testing.assert_array_equal(a.p_lower, b.p_lower)
    np.testing.assert_array_equal(a.ci_low, b.ci_low)


# ------------------------------------------------------------------ flips


def test_flipped_items_binary_counts_are_mcnemar_discordant_cells():
    # reference: the 2×2 table of pandas.crosstab (McNemar's b and c)
    rng = np.random.default_rng(31)
    base = (rng.random(300) < 0.6).astype(float)
    cand = np.where(rng.random(300) < 0.2, 1 - base, base)
    table = pd.crosstab(base, cand)
    r = flipped_items(base, cand, items=[f"q{i}" for i in range(300)])
    assert r.n_lost == table.loc[1.0, 0.0] and r.n_gained == table.loc[0.0, 1.0]
    assert r.n_items == 300 and r.n_changed == r.n_lost + r.n_gained
    # every listed item changed, losses first, ids follow their scores
    for row in r.to_records():
        i = int(row["item"][1:])
        assert (row["baseline_score"], row["candidate_score"]) == (base[i], cand[i])
        assert row["lost"] == (cand[i] < base[i])
    assert list(r.lost) == sorted(r.lost, reverse=True)


def test_flipped_items_continuous_order_and_lower_is_better():
    base = np.array([0.5, 0.2, 0.9, 0.4, 0.7])
    cand = np.array([0.5, 0.6, 0.1, 0.3, 0.8])
    # by hand: changes +0.4 (item 1), −0.8 (2), −0.1 (3), +0.1 (4); item 0 unchanged
    r = flipped_items(base, cand)
    assert r.items == (2, 3, 4, 1) and r.n_lost == 2 and r.n_gained == 2
    np.testing.assert_allclose(r.change, [-0.8, -0.1, 0.1, 0.4])
    low = flipped_items(base, cand, direction="lower")  # a loss is now a higher score
    assert low.items == (1, 4, 3, 2) and list(low.lost) == [True, True, False, False]
    with pytest.raises(InputError, match="different numbers of scores"):
        flipped_items(base, cand[:3])
    with pytest.raises(InputError, match="NaN"):
        flipped_items(base, np.r_[cand[:4], np.nan])


def test_margins_and_flips_doctests():
    # the Examples sections run as doctests
    import doctest

    from reportgen.stats import flips as flips_module
    from reportgen.stats import intervals as intervals_module
    from reportgen.stats import margins as margins_module

    for module in (margins_module, flips_module, intervals_module):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0 and result.attempted > 0, module.__name__
