"""Power, MDE and required n against named references: statsmodels' power classes and
solvers, brute-force enumeration of paired 2×2 tables with statsmodels' exact McNemar,
Connor's (1987) closed forms and worked example, and simulations of the tests."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.power import NormalIndPower, TTestIndPower, TTestPower
from statsmodels.stats.proportion import (
    power_proportions_2indep,
    proportion_effectsize,
    samplesize_proportions_2indep_onetail,
)

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.stats.power import (
    DESIGNS,
    METHODS,
    PowerCurve,
    PowerResult,
    correlation_bounds,
    mde_curve,
    mde_for_sample,
    minimum_detectable_effect,
    paired_binary_cells,
    power_at,
    power_curve,
    required_n,
    sample_paired_binary,
    simulate_paired_binary_power,
)

SM_ALT = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}


def _signed(effect: float, alternative: str) -> float:
    return -effect if alternative == "less" else effect


# ----------------------------------------------------------------------- continuous


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize(
    "n,d,alpha,sd",
    [(2, 1.5, 0.05, 1.0), (10, 0.4, 0.05, 2.0), (50, 0.3, 0.01, 0.5), (333, 0.1, 0.1, 1.0)],
)
def test_power_at_paired_t_against_statsmodels_ttestpower(alternative, n, d, alpha, sd):
    delta = _signed(d, alternative) * sd
    ours = power_at(
        n, delta, design="paired-continuous", sd=sd, alpha=alpha, alternative=alternative
    )
    # statsmodels: TTestPower().power(effect_size=delta/sd, nobs=n, alpha, alternative)
    ref = TTestPower().power(delta / sd, n, alpha, alternative=SM_ALT[alternative])
    assert ours.power == pytest.approx(ref, rel=1e-8, abs=1e-12)
    assert ours.effect_size == pytest.approx(delta / sd)
    assert (ours.method, ours.effect_size_kind, ours.solved_for) == ("t", "paired d", "power")


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("n,d,ratio", [(5, 1.0, 1.0), (40, 0.5, 2.5), (200, 0.2, 0.5)])
def test_power_at_pooled_t_against_statsmodels_ttestindpower(alternative, n, d, ratio):
    delta = _signed(d, alternative)
    ours = power_at(
        n,
        delta,
        design="unpaired-continuous",
        method="pooled-t",
        ratio=ratio,
        alternative=alternative,
    )
    # statsmodels: TTestIndPower().power(effect_size=d, nobs1=n, alpha=0.05, ratio=ratio)
    ref = TTestIndPower().power(delta, n, 0.05, ratio=ratio, alternative=SM_ALT[alternative])
    assert ours.power == pytest.approx(ref, rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_power_at_welch_against_statsmodels_ttestindpower_equal_sds(alternative):
    # equal SDs and sizes: the Welch df is 2n − 2, the pooled t's
    for n, d in [(4, 1.2), (30, 0.5), (500, 0.1)]:
        ours = power_at(n, d, design="unpaired-continuous", sd=3.0, alternative=alternative)
        # statsmodels: TTestIndPower().power(effect_size=d/sd, nobs1=n, alpha=0.05)
        ref = TTestIndPower().power(d / 3.0, n, 0.05, alternative=SM_ALT[alternative])
        assert ours.method == "welch"
        assert ours.power == pytest.approx(ref, rel=1e-8)


def test_power_at_welch_against_simulation_of_scipy_ttest_ind():
    rng = np.random.default_rng(20240601)
    S = 20_000
    for n_a, ratio, s_a, s_b, delta in [(12, 2.0, 1.0, 3.0, 1.5), (20, 0.5, 2.0, 1.0, 1.0)]:
        n_b = int(n_a * ratio)
        a = rng.normal(delta, s_a, size=(S, n_a))
        b = rng.normal(0.0, s_b, size=(S, n_b))
        # scipy: ttest_ind(a, b, equal_var=False) — the engine's Welch test
        sim = np.mean(stats.ttest_ind(a, b, axis=1, equal_var=False).pvalue <= 0.05)
        ours = power_at(
            n_a, delta, design="unpaired-continuous", sd=s_a, sd_b=s_b, ratio=ratio
        ).power
        se = math.sqrt(sim * (1 - sim) / S)
        # 4 MC standard errors plus 0.005 for the noncentral-t approximation of Welch
        assert abs(ours - sim) < 4 * se + 0.005


# ----------------------------------------------------------------------- unpaired binary


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize(
    "n,p_b,d,ratio",
    [(50, 0.5, 0.15, 1.0), (300, 0.6, 0.08, 1.0), (1000, 0.9, 0.03, 2.0), (80, 0.2, 0.2, 0.5)],
)
def test_power_at_pooled_z_against_statsmodels_power_proportions_2indep(
    alternative, n, p_b, d, ratio
):
    delta = _signed(d, alternative)
    ours = power_at(
        n, delta, design="unpaired-binary", baseline=p_b, ratio=ratio, alternative=alternative
    )
    # statsmodels: power_proportions_2indep(diff, prop2, nobs1, ratio, alpha, alternative)
    ref = power_proportions_2indep(
        delta,
        p_b,
        n,
        ratio=ratio,
        alpha=0.05,
        alternative=SM_ALT[alternative],
        return_results=False,
    )
    assert ours.method == "pooled-z"
    assert ours.power == pytest.approx(ref, rel=1e-10, abs=1e-14)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize(
    "n,p_b,d,ratio", [(50, 0.5, 0.15, 1.0), (300, 0.6, 0.08, 1.0), (1000, 0.9, 0.03, 2.0)]
)
def test_power_at_arcsine_against_statsmodels_normalindpower(alternative, n, p_b, d, ratio):
    delta = _signed(d, alternative)
    ours = power_at(
        n,
        delta,
        design="unpaired-binary",
        baseline=p_b,
        ratio=ratio,
        method="arcsine",
        alternative=alternative,
    )
    h = proportion_effectsize(p_b + delta, p_b)
    # statsmodels: NormalIndPower().power(proportion_effectsize(p_a, p_b), nobs1=n, ...)
    ref = NormalIndPower().power(h, n, 0.05, ratio=ratio, alternative=SM_ALT[alternative])
    assert ours.power == pytest.approx(ref, rel=1e-10, abs=1e-14)
    assert (ours.effect_size, ours.effect_size_kind) == (pytest.approx(h), "Cohen's h")


def test_power_at_pooled_z_against_simulation_of_the_engine_test():
    # the engine's unpaired binary test is the pooled two-proportion z (statsmodels
    # proportions_ztest); simulate it on binomial counts
    rng = np.random.default_rng(7)
    S, n_a, n_b, p_b, delta = 40_000, 120, 120, 0.55, 0.12
    k_a = rng.binomial(n_a, p_b + delta, S)
    k_b = rng.binomial(n_b, p_b, S)
    pooled = (k_a + k_b) / (n_a + n_b)
    z = (k_a / n_a - k_b / n_b) / np.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    sim = np.mean(2 * stats.norm.sf(np.abs(z)) <= 0.05)
    ours = power_at(n_a, delta, design="unpaired-binary", baseline=p_b).power
    # the normal approximation itself is good to ~0.01 at n = 120
    assert abs(ours - sim) < 4 * math.sqrt(sim * (1 - sim) / S) + 0.01


# ----------------------------------------------------------------------- paired binary


def _mcnemar_power_by_enumeration(n, p10, p01, alpha, alternative):
    """Sum of multinomial probabilities of every (n10, n01) table the test rejects
    (numbers of discordant items d = n10 + n01 with P(d) < 1e-20 are skipped)."""
    total = 0.0
    pc = 1 - p10 - p01
    d_lo = int(stats.binom.ppf(1e-20, n, p10 + p01))
    d_hi = int(stats.binom.isf(1e-20, n, p10 + p01))
    for d in range(d_lo, min(n, d_hi) + 1):
        for b in range(d + 1):
            c = d - b
            if alternative == "two-sided":
                # statsmodels: mcnemar([[n11, n10], [n01, n00]], exact=True)
                p = mcnemar([[0, b], [c, n - d]], exact=True).pvalue
            else:
                # scipy: binomtest(n10, n10 + n01, 0.5, alternative)
                p = stats.binomtest(b, d, 0.5, alternative=alternative).pvalue if d else 1.0
            if p <= alpha:
                total += stats.multinomial.pmf([b, c, n - d], n, [p10, p01, pc])
    return total


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize(
    "n,psi,delta,alpha",
    [
        (12, 0.5, 0.3, 0.05),
        (25, 0.3, 0.15, 0.05),
        (30, 0.9, -0.4, 0.1),
        (20, 1.0, 0.5, 0.05),
        # p = alpha exactly: 2 F(0; 5, 1/2) = 1/16
        (9, 0.7, 0.3, 0.0625),
    ],
)
def test_power_at_exact_mcnemar_against_enumeration_with_statsmodels_mcnemar(
    alternative, n, psi, delta, alpha
):
    ours = power_at(
        n, delta, design="paired-binary", discordance=psi, alpha=alpha, alternative=alternative
    )
    ref = _mcnemar_power_by_enumeration(n, (psi + delta) / 2, (psi - delta) / 2, alpha, alternative)
    assert ours.method == "exact"
    assert ours.power == pytest.approx(ref, rel=1e-9, abs=1e-13)
    assert (ours.p10, ours.p01) == pytest.approx(((psi + delta) / 2, (psi - delta) / 2))


def test_power_at_normal_mcnemar_against_connor_closed_form():
    z = stats.norm.isf(0.025)
    for n, psi, delta in [(100, 0.3, 0.1), (1319, 0.12, 0.02), (50, 0.5, -0.2)]:
        ours = power_at(n, delta, design="paired-binary", discordance=psi, method="normal")
        # Connor (1987, p. 209): Φ((|δ|√n − z√ψ)/√(ψ − δ²)) plus the far tail
        near = stats.norm.cdf(
            (abs(delta) * math.sqrt(n) - z * math.sqrt(psi)) / math.sqrt(psi - delta**2)
        )
        far = stats.norm.cdf(
            (-abs(delta) * math.sqrt(n) - z * math.sqrt(psi)) / math.sqrt(psi - delta**2)
        )
        assert ours.power == pytest.approx(near + far, rel=1e-12)
        assert far < 1e-4


def test_required_n_normal_mcnemar_against_connor_worked_example():
    # Connor (1987) p. 209 as in powerandsamplesize.com: p01 = 0.45, p10 = 0.05,
    # alpha = 0.05, power 0.8 two-sided -> n = 22.01, ceiling 23;
    # one-sided with power 0.9 -> ceiling 23
    psi, delta = 0.5, 0.05 - 0.45
    r = required_n(delta, design="paired-binary", discordance=psi, method="normal")
    closed = (
        (stats.norm.isf(0.025) * math.sqrt(psi) + stats.norm.isf(0.2) * math.sqrt(psi - delta**2))
        / delta
    ) ** 2
    # issue 41: a whole number of items, the closed form's root rounded up
    assert _rounded_up(r.n, closed, 1e-6)  # the far tail is ~1e-7 here
    assert r.items_needed() == 23 and r.power >= 0.8
    one = required_n(
        delta,
        design="paired-binary",
        discordance=psi,
        method="normal",
        alternative="less",
        power=0.9,
    )
    closed_one = (
        (stats.norm.isf(0.05) * math.sqrt(psi) + stats.norm.isf(0.1) * math.sqrt(psi - delta**2))
        / delta
    ) ** 2
    assert _rounded_up(one.n, closed_one, 1e-12)
    assert one.items_needed() == 23


def test_power_at_exact_and_normal_mcnemar_agree_for_large_n():
    # both describe McNemar's test; the exact one is conservative by a continuity gap of
    # order 1/sqrt(n discordant items), so at fixed normal power the gap shrinks ~1/sqrt(n)
    gaps = []
    for n in (500, 5000, 50000):
        delta = 0.01 * math.sqrt(5000 / n)
        exact = power_at(n, delta, design="paired-binary", discordance=0.1).power
        normal = power_at(n, delta, design="paired-binary", discordance=0.1, method="normal").power
        gaps.append(normal - exact)
    assert gaps[0] > gaps[1] > gaps[2] > 0
    assert gaps[0] / gaps[2] == pytest.approx(10, rel=0.3)
    assert gaps[2] < 0.01


def test_power_at_correlation_parametrisation_against_paired_binary_cells():
    p_b, delta, rho = 0.6, 0.1, 0.4
    p11, p10, p01, p00 = paired_binary_cells(p_b + delta, p_b, correlation=rho)
    by_rho = power_at(150, delta, design="paired-binary", baseline=p_b, correlation=rho)
    by_psi = power_at(150, delta, design="paired-binary", discordance=p10 + p01)
    assert by_rho.power == pytest.approx(by_psi.power, rel=1e-12)
    assert (by_rho.p10, by_rho.p01) == pytest.approx((p10, p01))
    assert by_rho.discordance == pytest.approx(p10 + p01)
    # and the discordance parametrisation with a baseline reports the implied phi
    back = power_at(150, delta, design="paired-binary", baseline=p_b, discordance=p10 + p01)
    assert back.correlation == pytest.approx(rho, rel=1e-10)


# ----------------------------------------------------------------------- cells, simulation


def test_paired_binary_cells_against_closed_form_and_frechet_bounds():
    for p_a, p_b, rho in [(0.7, 0.6, 0.5), (0.3, 0.9, -0.2), (0.5, 0.5, 1.0)]:
        p11, p10, p01, p00 = paired_binary_cells(p_a, p_b, correlation=rho)
        assert p11 + p10 == pytest.approx(p_a) and p11 + p01 == pytest.approx(p_b)
        assert p11 + p10 + p01 + p00 == pytest.approx(1.0)
        # closed form: phi = (p11 p00 − p10 p01) / sqrt(p_a q_a p_b q_b)
        phi = (p11 * p00 - p10 * p01) / math.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
        assert phi == pytest.approx(rho, abs=1e-12)
    for p_a, p_b in [(0.8, 0.6), (0.2, 0.3), (0.5, 0.9)]:
        low, high = correlation_bounds(p_a, p_b)
        # Fréchet: p11 = min(p_a, p_b) at the top, max(0, p_a + p_b − 1) at the bottom
        assert paired_binary_cells(p_a, p_b, correlation=high)[0] == pytest.approx(min(p_a, p_b))
        assert paired_binary_cells(p_a, p_b, correlation=low)[0] == pytest.approx(
            max(0.0, p_a + p_b - 1), abs=1e-12
        )
        with pytest.raises(InputError, match=r"correlation=.* is infeasible for accuracies"):
            paired_binary_cells(p_a, p_b, correlation=high + 0.01)


def test_sample_paired_binary_marginals_against_targets():
    # the check: simulated marginals match p_a and p_b within MC error
    n, size = 400, 5000
    for p_a, p_b, rho in [(0.7, 0.6, 0.5), (0.35, 0.4, -0.3), (0.9, 0.5, 0.0)]:
        counts = sample_paired_binary(n, p_a, p_b, correlation=rho, size=size, rng=11)
        assert counts.shape == (size, 4) and np.all(counts.sum(axis=1) == n)
        N = n * size
        acc_a = (counts[:, 0] + counts[:, 1]).sum() / N
        acc_b = (counts[:, 0] + counts[:, 2]).sum() / N
        assert abs(acc_a - p_a) < 4 * math.sqrt(p_a * (1 - p_a) / N)
        assert abs(acc_b - p_b) < 4 * math.sqrt(p_b * (1 - p_b) / N)
        # pooled phi of the simulated items; its SE is about 1/sqrt(N) (< 1e-3 here)
        n11, n10, n01, n00 = counts.sum(axis=0) / N
        phi = (n11 * n00 - n10 * n01) / math.sqrt(acc_a * (1 - acc_a) * acc_b * (1 - acc_b))
        assert abs(phi - rho) < 5 / math.sqrt(N)


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_simulate_paired_binary_power_against_exact_power(alternative):
    S = 20_000
    for n, p_b, delta, rho in [(300, 0.6, 0.05, 0.5), (120, 0.4, 0.08, 0.0), (60, 0.7, 0.1, 0.3)]:
        sim = simulate_paired_binary_power(
            n, delta, baseline=p_b, correlation=rho, n_simulations=S, rng=3, alternative=alternative
        )
        exact = power_at(
            n, delta, design="paired-binary", baseline=p_b, correlation=rho, alternative=alternative
        )
        assert sim.mc_se == pytest.approx(math.sqrt(sim.power * (1 - sim.power) / S))
        assert abs(sim.power - exact.power) < 4 * max(sim.mc_se, 1e-3)
        assert sim.method == "simulation (exact McNemar)" and sim.n_simulations == S
        assert sim.discordance == pytest.approx(exact.discordance)


@pytest.mark.slow
def test_simulate_paired_binary_power_against_exact_power_large():
    S = 400_000
    for n, p_b, delta, rho in [
        (500, 0.5, 0.03, 0.6),
        (1000, 0.8, 0.02, 0.2),
        (40, 0.5, 0.15, -0.4),
    ]:
        sim = simulate_paired_binary_power(
            n, delta, baseline=p_b, correlation=rho, n_simulations=S, rng=5
        )
        exact = power_at(n, delta, design="paired-binary", baseline=p_b, correlation=rho)
        assert abs(sim.power - exact.power) < 4 * sim.mc_se


def test_simulate_paired_binary_power_is_reproducible_and_chunked():
    a = simulate_paired_binary_power(
        200, 0.05, baseline=0.5, correlation=0.3, n_simulations=3000, rng=9
    )
    b = simulate_paired_binary_power(
        200, 0.05, baseline=0.5, correlation=0.3, n_simulations=3000, rng=np.random.default_rng(9)
    )
    c = simulate_paired_binary_power(
        200, 0.05, baseline=0.5, correlation=0.3, n_simulations=3000, rng=9, max_memory=64 * 100
    )
    assert a.power == b.power
    assert abs(c.power - a.power) < 5 * a.mc_se


# ----------------------------------------------------------------------- inverses


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_minimum_detectable_effect_against_statsmodels_solve_power(alternative):
    # statsmodels' effect-size solver stops at ~1e-5 relative, and for 'smaller' it
    # returns the magnitude; so compare |MDE| with solve_power(..., 'larger' or
    # 'two-sided') at 3e-5, and statsmodels' own power at our MDE with the target at 1e-8
    sm = SM_ALT[alternative]
    sm_solve = "two-sided" if alternative == "two-sided" else "larger"
    for n, pw, alpha in [(20, 0.8, 0.05), (150, 0.9, 0.01)]:
        # statsmodels: TTestPower().solve_power(effect_size=None, nobs=n, alpha, power)
        ref = TTestPower().solve_power(None, nobs=n, alpha=alpha, power=pw, alternative=sm_solve)
        ours = minimum_detectable_effect(
            n, design="paired-continuous", power=pw, alpha=alpha, alternative=alternative, sd=2.0
        )
        assert abs(ours.delta) / 2.0 == pytest.approx(ref, rel=3e-5)
        assert TTestPower().power(ours.delta / 2.0, n, alpha, alternative=sm) == pytest.approx(
            pw, abs=1e-8
        )
        # statsmodels: TTestIndPower().solve_power(effect_size=None, nobs1=n, ratio=2)
        ref = TTestIndPower().solve_power(
            None, nobs1=n, alpha=alpha, power=pw, ratio=2.0, alternative=sm_solve
        )
        ours = minimum_detectable_effect(
            n,
            design="unpaired-continuous",
            method="pooled-t",
            power=pw,
            alpha=alpha,
            alternative=alternative,
            ratio=2.0,
        )
        assert abs(ours.delta) == pytest.approx(ref, rel=3e-5)
        assert TTestIndPower().power(
            ours.delta, n, alpha, ratio=2.0, alternative=sm
        ) == pytest.approx(pw, abs=1e-8)
        # statsmodels: NormalIndPower().solve_power(effect_size=None, nobs1=n) gives h;
        # p_a = sin²(asin √p_b + h/2)
        h = NormalIndPower().solve_power(None, nobs1=n, alpha=alpha, power=pw, alternative=sm_solve)
        p_b = 0.5
        ref_delta = (
            math.sin(math.asin(math.sqrt(p_b)) + math.copysign(h, _signed(1, alternative)) / 2) ** 2
            - p_b
        )
        ours = minimum_detectable_effect(
            n,
            design="unpaired-binary",
            method="arcsine",
            baseline=p_b,
            power=pw,
            alpha=alpha,
            alternative=alternative,
        )
        assert ours.delta == pytest.approx(ref_delta, rel=3e-5)
        assert NormalIndPower().power(
            proportion_effectsize(p_b + ours.delta, p_b), n, alpha, alternative=sm
        ) == pytest.approx(pw, abs=1e-8)
        assert np.sign(ours.delta) == (-1 if alternative == "less" else 1)


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_required_n_against_statsmodels_solve_power(alternative):
    sm = SM_ALT[alternative]
    for d, pw in [(0.5, 0.8), (0.2, 0.9)]:
        # statsmodels: TTestPower().solve_power(effect_size=d, nobs=None, alpha, power)
        ref = TTestPower().solve_power(d, nobs=None, alpha=0.05, power=pw, alternative=sm)
        ours = required_n(d, design="paired-continuous", power=pw, alternative=alternative)
        assert _rounded_up(ours.n, ref, 1e-6) and ours.power >= pw
        # statsmodels: TTestIndPower().solve_power(effect_size=d, nobs1=None, ratio=0.5)
        ref = TTestIndPower().solve_power(
            d, nobs1=None, alpha=0.05, power=pw, ratio=0.5, alternative=sm
        )
        ours = required_n(
            d,
            design="unpaired-continuous",
            method="pooled-t",
            power=pw,
            alternative=alternative,
            ratio=0.5,
        )
        assert _rounded_up(ours.n, ref, 1e-6)
    # statsmodels: NormalIndPower().solve_power(proportion_effectsize(.75, .7), nobs1=None)
    h = proportion_effectsize(0.75, 0.7)
    ref = NormalIndPower().solve_power(h, nobs1=None, alpha=0.05, power=0.8, alternative=sm)
    ours = required_n(
        0.05, design="unpaired-binary", method="arcsine", baseline=0.7, alternative=alternative
    )
    assert _rounded_up(ours.n, ref, 1e-6)


@pytest.mark.parametrize(
    "alternative,diff,p2,ratio",
    [("two-sided", 0.1, 0.5, 1.0), ("two-sided", 0.05, 0.8, 2.0), ("greater", 0.04, 0.3, 1.0)],
)
def test_required_n_pooled_z_against_statsmodels_samplesize_proportions_2indep(
    alternative, diff, p2, ratio
):
    # statsmodels: samplesize_proportions_2indep_onetail(diff, prop2, power, ratio, alpha)
    # — Fleiss' formula; it drops the far tail of a two-sided test (~1e-6 relative here)
    ref = samplesize_proportions_2indep_onetail(
        diff, p2, 0.8, ratio=ratio, alpha=0.05, alternative=SM_ALT[alternative]
    )
    ours = required_n(
        diff, design="unpaired-binary", baseline=p2, ratio=ratio, alternative=alternative
    )
    assert _rounded_up(ours.n, ref, 1e-5 if alternative == "two-sided" else 1e-9)


def _rounded_up(n: float, root: float, rel: float) -> bool:
    """Whether ``n`` is the real root ``root`` (within ``rel``) rounded up to a whole
    number of items (issue 41: the power command answers in whole items)."""
    return n == int(n) and math.ceil(root * (1 - rel) - 1e-9) <= n <= math.ceil(root * (1 + rel))


@pytest.mark.parametrize(
    "design,kwargs",
    [
        ("paired-binary", {"discordance": 0.2}),
        ("paired-binary", {"discordance": 0.2, "method": "normal"}),
        ("paired-binary", {"baseline": 0.6, "correlation": 0.4}),
        ("unpaired-binary", {"baseline": 0.7}),
        ("unpaired-binary", {"baseline": 0.7, "method": "arcsine", "ratio": 3.0}),
        ("paired-continuous", {"sd": 0.3}),
        ("unpaired-continuous", {"sd": 0.3, "sd_b": 0.5, "ratio": 0.7}),
    ],
)
@pytest.mark.parametrize("alternative", ["two-sided", "less"])
def test_minimum_detectable_effect_and_required_n_round_trips(design, kwargs, alternative):
    n = 400
    mde = minimum_detectable_effect(n, design=design, alternative=alternative, **kwargs)
    again = power_at(n, mde.delta, design=design, alternative=alternative, **kwargs)
    assert again.power == pytest.approx(0.8, abs=1e-9)
    assert mde.power == pytest.approx(0.8, abs=1e-9) and mde.target_power == 0.8
    assert mde.solved_for == "delta"
    # slightly smaller effects fall short: the MDE is the smallest (monotone here)
    less = power_at(n, mde.delta * 0.99, design=design, alternative=alternative, **kwargs)
    assert less.power < 0.8
    req = required_n(mde.delta, design=design, alternative=alternative, **kwargs)
    if kwargs.get("method", "auto") == "auto" and design == "paired-binary":
        # exact test: the smallest whole n reaching the target
        assert req.n == round(req.n) and req.power >= 0.8
        assert req.n <= n
        below = power_at(req.n - 1, mde.delta, design=design, alternative=alternative, **kwargs)
        assert below.power < 0.8
    else:
        assert req.n == pytest.approx(n, rel=1e-8)
        assert req.power == pytest.approx(0.8, abs=1e-9)


def test_required_n_exact_mcnemar_against_enumeration():
    # the smallest n whose exact power (brute force) reaches 0.8
    psi, delta = 0.8, 0.5
    r = required_n(delta, design="paired-binary", discordance=psi)
    p10, p01 = (psi + delta) / 2, (psi - delta) / 2
    powers = {
        n: _mcnemar_power_by_enumeration(n, p10, p01, 0.05, "two-sided")
        for n in range(2, int(r.n) + 1)
    }
    first = min(n for n, p in powers.items() if p >= 0.8)
    assert r.n == first
    assert r.power == pytest.approx(powers[first], rel=1e-9)


def test_power_curve_and_mde_curve_against_scalar_calls():
    ns = np.array([20, 50, 100, 400])
    curve = power_curve(ns, 0.3, design="paired-continuous", sd=1.2)
    assert isinstance(curve, PowerCurve) and len(curve) == 4
    for k, n in enumerate(ns):
        # statsmodels: TTestPower().power(0.3/1.2, n, 0.05)
        assert curve.power[k] == pytest.approx(TTestPower().power(0.25, n, 0.05), rel=1e-8)
    by_delta = power_curve(100, [0.02, 0.05, 0.1], design="paired-binary", discordance=0.2)
    assert np.all(np.diff(by_delta.power) > 0) and np.all(by_delta.n == 100)
    for k, d in enumerate([0.02, 0.05, 0.1]):
        assert by_delta.power[k] == power_at(100, d, design="paired-binary", discordance=0.2).power
    mc = mde_curve([200, 800, 3200, 12800], design="paired-binary", discordance=0.15)
    assert np.all(np.diff(mc.delta) < 0)
    for point in mc.points:
        single = minimum_detectable_effect(point.n, design="paired-binary", discordance=0.15)
        assert point.delta == pytest.approx(single.delta, rel=1e-12)
    records = mc.to_records()
    assert len(records) == 4
    assert {
        "design",
        "n",
        "delta",
        "power",
        "alpha",
        "alternative",
        "method",
        "target_power",
        "discordance",
        "solved_for",
        "effect_size",
    } <= set(records[0])
    assert records[0]["solved_for"] == "delta" and records[0]["baseline"] is None
    frame = mc.to_frame()
    assert list(frame["n"]) == [200.0, 800.0, 3200.0, 12800.0]


# ----------------------------------------------------------------------- from data


def test_mde_for_sample_against_brute_force_summaries_on_humaneval(shared_data):
    from reportgen.data import load

    table = load(shared_data / "eval-arena" / "humaneval+.jsonl")
    X = table.paired("humaneval+", "pass1").item_means()
    n, k = X.shape
    # brute force: the share of items two models disagree on, for every pair
    psis = [np.mean(X[:, i] != X[:, j]) for i, j in itertools.combinations(range(k), 2)]
    r = mde_for_sample(X, design="paired-binary", delta=0.05)
    assert r.mde.discordance == pytest.approx(np.median(psis), rel=1e-12)
    assert r.n_summarised == k * (k - 1) // 2 and "median over" in r.summary
    assert r.mde.n == n
    direct = minimum_detectable_effect(
        n, design="paired-binary", discordance=float(np.median(psis))
    )
    assert r.mde.delta == pytest.approx(direct.delta, rel=1e-12)
    assert power_at(
        n, r.mde.delta, design="paired-binary", discordance=r.mde.discordance
    ).power == pytest.approx(0.8, abs=1e-9)
    assert 0.05 < r.mde.delta < 0.2  # 164 items: a large MDE
    assert r.required is not None and r.required.n > n
    one = mde_for_sample(X, design="paired-binary", pair=(0, 1))
    assert one.mde.discordance == pytest.approx(np.mean(X[:, 0] != X[:, 1]))
    row = r.to_dict()
    assert row["mde"] == pytest.approx(r.mde.delta) and row["n_required"] == r.required.n


@pytest.mark.slow
def test_mde_for_sample_against_enumeration_on_humaneval(shared_data):
    from reportgen.data import load

    X = (
        load(shared_data / "eval-arena" / "humaneval+.jsonl")
        .paired("humaneval+", "pass1")
        .item_means()
    )
    r = mde_for_sample(X, design="paired-binary")
    # the power of the engine's exact McNemar test at the MDE, by enumeration, is 0.8
    p10 = (r.mde.discordance + r.mde.delta) / 2
    p01 = r.mde.discordance - p10
    assert _mcnemar_power_by_enumeration(X.shape[0], p10, p01, 0.05, "two-sided") == pytest.approx(
        0.8, abs=1e-9
    )


def test_mde_for_sample_continuous_against_numpy_summaries(shared_data):
    import pandas as pd

    X = pd.read_csv(shared_data / "ibm-rag" / "sbert.csv").to_numpy(dtype=float)
    n, k = X.shape
    sds = [np.std(X[:, i] - X[:, j], ddof=1) for i, j in itertools.combinations(range(k), 2)]
    r = mde_for_sample(X, design="paired-continuous", delta=0.02)
    assert r.mde.sd == pytest.approx(np.median(sds), rel=1e-12)
    # statsmodels: TTestPower().solve_power(effect_size=None, nobs=n, power=0.8) × sd
    ref = TTestPower().solve_power(None, nobs=n, alpha=0.05, power=0.8) * np.median(sds)
    assert r.mde.delta == pytest.approx(ref, rel=3e-5)  # statsmodels' solver tolerance
    # unpaired: the pooled within-system SD, statsmodels' pooled-t MDE
    cols = [X[:, j] for j in range(k)]
    pooled = math.sqrt(
        sum((len(c) - 1) * c.var(ddof=1) for c in cols) / sum(len(c) - 1 for c in cols)
    )
    u = mde_for_sample(cols, design="unpaired-continuous")
    assert u.mde.sd == pytest.approx(pooled, rel=1e-12)
    ref = TTestIndPower().solve_power(None, nobs1=n, alpha=0.05, power=0.8) * pooled
    assert u.mde.delta == pytest.approx(ref, rel=3e-5)
    assert u.required is None and "pooled within-system SD" in u.summary


def test_mde_for_sample_unpaired_binary_against_statsmodels():
    rng = np.random.default_rng(2)
    samples = [
        rng.binomial(1, p, size=s).astype(float) for p, s in [(0.6, 300), (0.7, 310), (0.65, 290)]
    ]
    r = mde_for_sample(samples, design="unpaired-binary", method="arcsine")
    base = float(np.median([s.mean() for s in samples]))
    assert r.mde.baseline == pytest.approx(base) and r.mde.n == 300
    h = NormalIndPower().solve_power(None, nobs1=300, alpha=0.05, power=0.8)
    assert r.mde.delta == pytest.approx(
        math.sin(math.asin(math.sqrt(base)) + h / 2) ** 2 - base, rel=3e-5
    )


# ----------------------------------------------------------------------- validation


def test_power_input_validation():
    ok = dict(design="paired-binary", discordance=0.2)
    cases = [
        (dict(design="paired"), r"design='paired' is not valid"),
        (dict(ok, method="welch"), r"method='welch' is not valid for design 'paired-binary'"),
        (dict(ok, alternative="two.sided"), r"alternative='two.sided' is not valid"),
        (dict(ok, alpha=0.0), r"alpha=0.0 must be a number between 0 and 1"),
        (dict(ok, alpha=1.5), r"alpha=1.5 must be a number between 0 and 1"),
        (dict(ok, discordance=1.2), r"discordance=1.2 must be a probability in \[0, 1\]"),
        (
            dict(design="unpaired-binary", baseline=-0.1),
            r"baseline=-0.1 must be a probability in \[0, 1\]",
        ),
        (dict(design="paired-binary"), r"needs exactly one of discordance= or correlation="),
        (dict(ok, correlation=0.2), r"needs exactly one of discordance= or correlation="),
        (
            dict(design="paired-binary", correlation=0.2),
            r"correlation= needs baseline= \(the accuracy of system B\)",
        ),
        (dict(design="unpaired-binary"), r"unpaired-binary needs baseline="),
        (dict(ok, sd=1.0), r"sd= does not apply to design 'paired-binary'"),
        (
            dict(design="paired-continuous", ratio=2.0),
            r"ratio= does not apply to design 'paired-continuous'",
        ),
        (dict(design="paired-continuous", sd=0.0), r"sd=0.0 must be positive"),
        (dict(design="unpaired-continuous", ratio=-1.0), r"ratio=-1.0 must be positive"),
        (
            dict(design="unpaired-continuous", method="pooled-t", sd=1.0, sd_b=2.0),
            r"method='pooled-t' assumes equal SDs",
        ),
        (
            dict(design="paired-binary", correlation=1.5, baseline=0.5),
            r"correlation=1.5 must be in \[-1, 1\]",
        ),
    ]
    for kwargs, message in cases:
        with pytest.raises(InputError, match=message):
            power_at(100, 0.05, **kwargs)
    with pytest.raises(InputError, match=r"n=1: the number of items must be at least 2"):
        power_at(1, 0.05, **ok)
    with pytest.raises(InputError, match=r"exact McNemar power needs a whole number"):
        power_at(100.5, 0.05, **ok)
    with pytest.raises(InputError, match=r"delta=0.3 is infeasible for discordance=0.2"):
        power_at(100, 0.3, **ok)
    with pytest.raises(InputError, match=r"delta=0.3 with baseline=0.8 gives an accuracy"):
        power_at(100, 0.3, design="unpaired-binary", baseline=0.8)
    with pytest.raises(InputError, match=r"correlation=0.9 is infeasible for accuracies"):
        power_at(100, 0.3, design="paired-binary", baseline=0.5, correlation=0.9)
    with pytest.raises(InputError, match=r"infeasible together \(a negative cell"):
        power_at(100, 0.1, design="paired-binary", discordance=0.3, baseline=0.95)
    with pytest.raises(InputError, match=r"gives system B fewer than 2 items"):
        power_at(4, 0.1, design="unpaired-continuous", ratio=0.25)
    with pytest.raises(InputError, match=r"delta=nan must be a finite difference"):
        power_at(100, float("nan"), **ok)
    with pytest.raises(InputError, match=r"power_at takes one n and one delta"):
        power_at([100, 200], 0.05, **ok)
    with pytest.raises(InputError, match=r"power=0.03 must exceed alpha=0.05"):
        minimum_detectable_effect(100, power=0.03, **ok)
    with pytest.raises(InputError, match=r"power=1.0 must be a number between 0 and 1"):
        minimum_detectable_effect(100, power=1.0, **ok)
    with pytest.raises(InputError, match=r"delta=0: no sample size detects a zero effect"):
        required_n(0.0, **ok)
    with pytest.raises(InputError, match=r"delta=-0.05 points against alternative='greater'"):
        required_n(-0.05, alternative="greater", **ok)
    with pytest.raises(InputError, match=r"cannot be broadcast together"):
        power_curve([10, 20], [0.1, 0.2, 0.3], design="paired-continuous")
    with pytest.raises(InputError, match=r"n_simulations=0 must be an integer >= 1"):
        simulate_paired_binary_power(100, 0.05, baseline=0.5, correlation=0.1, n_simulations=0)
    with pytest.raises(InputError, match=r"needs exactly one of discordance="):
        simulate_paired_binary_power(100, 0.05, baseline=0.5)
    with pytest.raises(InputError, match=r"p_a=1.2 must be a probability"):
        paired_binary_cells(1.2, 0.5, correlation=0.0)


def test_mde_for_sample_input_validation():
    X = np.array([[1, 0], [0, 1], [1, 1]], dtype=float)
    with pytest.raises(InputError, match=r"scores must be an items × systems matrix"):
        mde_for_sample(X[:, 0], design="paired-binary")
    with pytest.raises(InputError, match=r"design='paired-binary' needs 0/1 scores"):
        mde_for_sample(X * 0.5, design="paired-binary")
    with pytest.raises(InputError, match=r"scores contain NaN"):
        mde_for_sample(np.where(X == 0, np.nan, X), design="paired-continuous")
    with pytest.raises(InputError, match=r"at least 2 systems are needed"):
        mde_for_sample(X[:, :1], design="paired-continuous")
    with pytest.raises(InputError, match=r"pair=\(0, 0\) must be two different column"):
        mde_for_sample(X, design="paired-binary", pair=(0, 0))
    with pytest.raises(InputError, match=r"design='paired' is not valid"):
        mde_for_sample(X, design="paired")


# ----------------------------------------------------------------------- edge cases


def test_power_edge_cases():
    # no effect: the power is the size of the test (exact McNemar: at most alpha)
    for method in ("exact", "normal"):
        p0 = power_at(300, 0.0, design="paired-binary", discordance=0.3, method=method)
        assert p0.power <= 0.05 + 1e-12 and p0.effect_size == 0.0
    assert power_at(
        300, 0.0, design="paired-binary", discordance=0.3, method="normal"
    ).power == pytest.approx(0.05)
    assert power_at(50, 0.0, design="paired-continuous").power == pytest.approx(0.05)
    # no discordant items: nothing to test
    assert power_at(100, 0.0, design="paired-binary", discordance=0.0).power == 0.0
    with pytest.warns(DegenerateDataWarning, match=r"no feasible effect reaches power"):
        r = minimum_detectable_effect(100, design="paired-binary", discordance=0.0)
    assert math.isnan(r.delta)
    # every item discordant and won by A: psi - delta^2 = 0, the statistic is a constant
    full = power_at(10, 1.0, design="paired-binary", discordance=1.0, method="normal")
    assert full.power == 1.0
    assert power_at(10, 1.0, design="paired-binary", discordance=1.0).power == pytest.approx(
        1.0
    )  # binomial: 10 of 10 rejects at 0.05
    # too few items to ever reject: exact McNemar with 5 items cannot reach p <= 0.05
    assert power_at(5, 0.5, design="paired-binary", discordance=0.5).power == 0.0
    with pytest.warns(DegenerateDataWarning, match=r"MDE is NaN"):
        tiny = minimum_detectable_effect(5, design="paired-binary", discordance=1.0)
    assert math.isnan(tiny.delta) and tiny.power == 0.0
    with pytest.raises(ValueError, match="n is NaN"):
        PowerResult(
            "paired-binary", "exact", "two-sided", 0.05, math.nan, 0.1, 0.0, "n"
        ).items_needed()
    # both systems always right: the engine's z is undefined (p = 1), power 0
    assert power_at(50, 0.0, design="unpaired-binary", baseline=1.0).power == 0.0
    with pytest.warns(DegenerateDataWarning, match=r"no feasible effect"):
        top = minimum_detectable_effect(50, design="unpaired-binary", baseline=1.0)
    assert math.isnan(top.delta)
    # a one-sided 'less' MDE is negative
    assert (
        minimum_detectable_effect(
            2000, design="unpaired-binary", baseline=0.98, alternative="less"
        ).delta
        < 0
    )
    # 2 items already suffice for a huge effect
    big = required_n(50.0, design="paired-continuous")
    assert big.n == 2.0 and big.power > 0.8 and big.items_needed() == 2
    # one-sided power against the alternative's direction is below alpha
    assert power_at(100, -0.3, design="paired-continuous", alternative="greater").power < 0.05
    # correlation at the Fréchet bound is accepted (clipped), beyond it is not
    low, high = correlation_bounds(0.65, 0.6)
    assert power_at(
        200, 0.05, design="paired-binary", baseline=0.6, correlation=high
    ).p01 == pytest.approx(0.0, abs=1e-12)
    assert correlation_bounds(1.0, 0.5) == (0.0, 0.0)


def test_mde_for_sample_edge_cases():
    same = np.tile(np.array([[1.0], [0.0], [1.0], [1.0]]), (10, 2))
    with pytest.warns(DegenerateDataWarning, match=r"discordance = 0 from the data"):
        r = mde_for_sample(same, design="paired-binary", delta=0.1)
    assert math.isnan(r.mde.delta) and math.isnan(r.required.n)
    assert r.to_dict()["mde"] is None
    with pytest.warns(DegenerateDataWarning, match=r"fewer than 2 items"):
        r = mde_for_sample(np.array([[1.0, 0.0]]), design="paired-continuous")
    assert math.isnan(r.mde.delta)
    X = np.array([[1, 0], [0, 0], [1, 1], [0, 0]] * 25, dtype=float)  # discordance 0.25
    with pytest.warns(
        DegenerateDataWarning,
        match=r"delta=0.4 is not feasible for the "
        r"observed data",
    ):
        r = mde_for_sample(X, design="paired-binary", delta=0.4)
    assert math.isnan(r.required.n) and r.mde.discordance == 0.25
    # unpaired samples of different sizes: n is the median size
    u = mde_for_sample(
        [np.ones(10), np.r_[np.ones(5), np.zeros(7)], np.zeros(30)],
        design="unpaired-binary",
        method="arcsine",
    )
    assert u.mde.n == 12 and u.mde.baseline == pytest.approx(5 / 12)
    # a 2-D matrix for an unpaired design is read as one column per system
    m = mde_for_sample(np.c_[np.arange(20.0), np.arange(20.0) * 2], design="unpaired-continuous")
    assert m.mde.n == 20 and m.n_summarised == 2


def test_designs_and_methods_table():
    assert DESIGNS == (
        "paired-binary",
        "unpaired-binary",
        "paired-continuous",
        "unpaired-continuous",
    )
    for design, methods in METHODS.items():
        kwargs = {"paired-binary": {"discordance": 0.3}, "unpaired-binary": {"baseline": 0.5}}.get(
            design, {}
        )
        assert power_at(100, 0.1, design=design, **kwargs).method == methods[0]
        for m in methods:
            assert 0 < power_at(100, 0.1, design=design, method=m, **kwargs).power < 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        power_at(100, 0.1, design="paired-continuous", alternative="greater")


def test_power_design_is_the_keywords_checked_once():
    """A PowerDesign passed as design= gives the same numbers as the same keywords (the
    reference: the keyword form, itself checked against statsmodels and enumeration
    above), is completed for its design, and refuses parameters given twice."""
    from reportgen.errors import InputError
    from reportgen.stats.power import (
        PowerDesign,
        mde_curve,
        minimum_detectable_effect,
        power_at,
        power_curve,
        required_n,
    )

    kw = dict(design="paired-binary", discordance=0.2, alpha=0.01, alternative="greater")
    d = PowerDesign("paired-binary", discordance=0.2, alpha=0.01, alternative="greater")
    assert d.method == "exact"  # auto resolved for the design
    assert power_at(200, 0.05, design=d).power == power_at(200, 0.05, **kw).power
    assert (
        minimum_detectable_effect(300, design=d).delta == minimum_detectable_effect(300, **kw).delta
    )
    assert required_n(0.08, design=d).n == required_n(0.08, **kw).n
    np.testing.assert_array_equal(
        power_curve([100, 200], 0.05, design=d).power, power_curve([100, 200], 0.05, **kw).power
    )
    np.testing.assert_array_equal(
        mde_curve([100, 200], design=d).delta, mde_curve([100, 200], **kw).delta
    )
    continuous = PowerDesign("unpaired-continuous")
    assert (continuous.sd, continuous.sd_b, continuous.ratio) == (1.0, 1.0, 1.0)
    with pytest.raises(InputError, match="alpha given beside a PowerDesign"):
        power_at(100, 0.1, design=d, alpha=0.05 + 1e-9)
    with pytest.raises(InputError, match="discordance given beside"):
        power_at(100, 0.1, design=d, discordance=0.3)
    with pytest.raises(InputError, match="needs exactly one of discordance"):
        PowerDesign("paired-binary")
    with pytest.raises(InputError, match="sd= does not apply"):
        PowerDesign("paired-binary", discordance=0.2, sd=1.0)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_mcnemar_critical_bounds_against_scipy_binomtest_enumeration(alternative):
    """The rejection bound of the exact McNemar test for every number d of discordant
    items (found from a normal start by exact steps) against enumerating every k with
    scipy's binomtest: the largest c such that k = c (k = d − c for "greater") rejects
    at α = 0.05, −1 when none does."""
    from scipy.stats import binomtest

    from reportgen.stats.power import _mcnemar_critical

    d = np.arange(0, 121)
    got = _mcnemar_critical(d.astype(float), 0.05, alternative)
    for m, c in zip(d, got):
        rejecting = [
            k
            for k in range(m + 1)
            if m > 0
            and binomtest(
                k if alternative != "greater" else m - k, m, 0.5, alternative=alternative
            ).pvalue
            <= 0.05
            and (alternative != "two-sided" or 2 * k < m)
        ]
        assert c == (max(rejecting) if rejecting else -1), (m, c, rejecting)


def test_first_crossing_against_linear_scan():
    """``_first_crossing`` finds the first index of a non-decreasing sequence at or
    above 0 from any guess; reference: a scan of every index
    (``np.flatnonzero(values >= 0)[0]``)."""
    from reportgen.stats.power import _first_crossing

    rng = np.random.default_rng(3)
    for _ in range(300):
        size = int(rng.integers(1, 70))
        values = np.sort(rng.normal(size=size)) + rng.normal()
        above = np.flatnonzero(values >= 0)
        expected = int(above[0]) if len(above) else None
        for guess in (0, size - 1, int(rng.integers(0, size)), -5, size + 5):
            seen: list[int] = []

            def value(i: int, seen: list[int] = seen, values: np.ndarray = values) -> float:
                assert 0 <= i < len(values)
                seen.append(i)
                return float(values[i])

            assert _first_crossing(value, size, guess) == expected
            assert len(seen) <= 2 * int(np.log2(size) + 2) + 1


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_mde_exact_search_against_full_grid(monkeypatch, alternative):
    """The exact McNemar MDE found from the normal approximation's guess is bit for bit
    the one the scan of the whole 64-point grid gives (reference: the same solver with
    the search turned off)."""
    import reportgen.stats.power as power_module

    cases = [(n, psi) for n in (20, 60, 400, 5000) for psi in (0.05, 0.3, 0.9)]

    def solve() -> list:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)  # NaN where none reaches
            return [
                minimum_detectable_effect(
                    n, design="paired-binary", discordance=psi, alternative=alternative
                )
                for n, psi in cases
            ]

    fast = solve()
    monkeypatch.setattr(power_module, "_monotone_exact", lambda *args: False)
    scan = solve()
    assert any(math.isnan(r.delta) for r in scan) and not all(math.isnan(r.delta) for r in scan)
    for a, b in zip(fast, scan, strict=True):
        assert repr((a.delta, a.power)) == repr((b.delta, b.power))
