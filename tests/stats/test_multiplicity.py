"""Multiplicity corrections against statsmodels.stats.multitest.multipletests."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from reportgen.errors import InputError
from reportgen.names import INTERVAL_KINDS
from reportgen.stats.multiplicity import (
    CORRECTIONS,
    adjust_pvalues,
    compatible_intervals,
    decision_levels,
    interval_kind,
    interval_plan,
    rejects,
    single_step_level,
)

# our name -> statsmodels' method name
STATSMODELS = {
    "holm-sidak": "holm-sidak",
    "holm": "holm",
    "bonferroni": "bonferroni",
    "sidak": "sidak",
    "fdr_bh": "fdr_bh",
    "fdr_by": "fdr_by",
}


@pytest.mark.parametrize("method", list(STATSMODELS))
def test_adjust_pvalues_against_statsmodels_multipletests(method):
    rng = np.random.default_rng(0)
    # statsmodels' Holm takes 0.2 s a call: 30 families for it (ties and exact 0/1
    # values in every fourth, as for the others)
    for trial in range(30 if method == "holm" else 120):
        m = int(rng.integers(1, 60))
        p = rng.random(m) ** rng.uniform(0.3, 5)
        if trial % 4 == 0:  # ties and exact 0/1 values
            p[rng.integers(0, m, 3)] = p[0]
            p[rng.integers(0, m)] = 1.0
        # statsmodels: multipletests(p, method=method)[1]
        expected = multipletests(p, method=STATSMODELS[method])[1]
        np.testing.assert_allclose(
            adjust_pvalues(p, method=method), expected, rtol=1e-12, atol=1e-15
        )


def test_adjust_pvalues_none_and_nan():
    p = np.array([0.01, np.nan, 0.04])
    np.testing.assert_array_equal(adjust_pvalues(p, method="none"), p)
    # NaN entries do not count in the family: Holm over the 2 finite values
    out = adjust_pvalues(p, method="holm")
    assert np.isnan(out[1])
    np.testing.assert_allclose(out[[0, 2]], multipletests([0.01, 0.04], method="holm")[1])


def test_adjust_pvalues_published_example():
    # seed 001 §4: Holm is step-down with running maximum; a hand-checked family
    np.testing.assert_allclose(
        adjust_pvalues(np.array([0.01, 0.04, 0.03]), method="holm"), [0.03, 0.06, 0.06]
    )


def test_adjust_pvalues_input_validation():
    with pytest.raises(InputError, match=r"(?s)unknown correction 'holmes'.*holm-sidak"):
        adjust_pvalues(np.array([0.1]), method="holmes")
    with pytest.raises(InputError, match=r"p-values must lie in \[0, 1\]"):
        adjust_pvalues(np.array([0.1, 1.5]))
    with pytest.raises(InputError, match="one-dimensional"):
        adjust_pvalues(np.ones((2, 2)))
    assert set(CORRECTIONS) == set(STATSMODELS) | {"none"}


# ---------------------------------------------------------------- decision levels


def _families(seed: int, n: int = 150):
    rng = np.random.default_rng(seed)
    for trial in range(n):
        m = int(rng.integers(1, 50))
        p = rng.random(m) ** rng.uniform(0.2, 6)  # from all-significant to all-null
        if trial % 5 == 0:
            p[rng.integers(0, m, 3)] = p[0]  # ties
        yield p


@pytest.mark.parametrize("method", [*STATSMODELS, "none"])
@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.2])
def test_decision_levels_against_statsmodels_multipletests(method, alpha):
    # p <= level exactly when statsmodels' multipletests rejects at alpha (its Holm's
    # gc.collect() per call is skipped by tests/conftest.py, so every method gets 150)
    for p in _families(1, 150):
        level = decision_levels(p, alpha=alpha, method=method)
        if method == "none":
            reject = p <= alpha
        else:
            # statsmodels: multipletests(p, alpha=alpha, method=method)[0]
            reject = multipletests(p, alpha=alpha, method=STATSMODELS[method])[0]
        np.testing.assert_array_equal(p <= level, reject)


def test_decision_levels_closed_forms():
    p = np.array([0.001, 0.2, 0.04, 0.7])
    # single step: Bonferroni alpha/m, Šidák 1 - (1 - alpha)^(1/m)
    assert decision_levels(p, alpha=0.05, method="bonferroni")[0] == pytest.approx(0.05 / 4)
    assert decision_levels(p, alpha=0.05, method="sidak")[0] == pytest.approx(1 - 0.95**0.25)
    # Holm rejects 0.001 only (0.04 > 0.05/3): the stopping level is alpha/(m - r) = 0.05/3
    assert decision_levels(p, alpha=0.05, method="holm")[0] == pytest.approx(0.05 / 3)
    assert decision_levels(p, alpha=0.05, method="holm-sidak")[0] == pytest.approx(
        1 - 0.95 ** (1 / 3)
    )
    # BH rejects 0.001 (<= 0.0125) only (0.04 > 2 x 0.0125): the FCR level r alpha / m
    # of Benjamini & Yekutieli (2005) with r = 1
    assert decision_levels(p, alpha=0.05, method="fdr_bh")[0] == pytest.approx(0.05 / 4)
    # every test rejected: Holm's last step is at alpha itself
    assert decision_levels(np.array([0.001, 0.002]), alpha=0.05, method="holm")[1] == 0.05
    nan = decision_levels(np.array([0.01, np.nan]), alpha=0.05, method="bonferroni")
    assert nan[0] == 0.05 and np.isnan(nan[1])  # NaN is not in the family


@pytest.mark.parametrize("method", [*STATSMODELS, "none"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_compatible_intervals_agree_with_decisions(method, alternative):
    # the property results.json promises: the adjusted interval excludes 0 exactly
    # when the comparison is significant (statsmodels' multipletests decides)
    rng = np.random.default_rng(7)
    for p in _families(2, 80):
        diff = rng.normal(0, 1, p.size)
        diff[rng.random(p.size) < 0.05] = 0.0  # no difference at all: p is large
        p = np.where(diff == 0, 1.0, p)
        if alternative != "two-sided":  # a one-sided p is small only in its direction
            sign = 1 if alternative == "greater" else -1
            p = np.where(sign * diff > 0, p / 2, 1 - p / 2)
        half = np.abs(rng.normal(0.5, 0.2, p.size))
        low, high = compatible_intervals(
            diff,
            p,
            decision_levels(p, alpha=0.05, method=method),
            alternative=alternative,
            ci_low=diff - half,
            ci_high=diff + half,
        )
        if method == "none":
            reject = p <= 0.05
        else:
            reject = multipletests(p, alpha=0.05, method=STATSMODELS[method])[0]
        excludes = np.nan_to_num(low, nan=-np.inf) > 0
        if alternative == "two-sided":
            excludes |= high < 0
        elif alternative == "less":
            excludes = np.nan_to_num(high, nan=np.inf) < 0
        np.testing.assert_array_equal(excludes, reject)


def test_compatible_intervals_against_wald_interval():
    # closed form: for a z test with known standard error the test-based interval is
    # the Wald interval diff ± z(1 - level/2) se (Miettinen 1976)
    from scipy import stats

    diff = np.array([0.3, -0.12, 0.05])
    se = np.array([0.1, 0.05, 0.2])
    p = 2 * stats.norm.sf(np.abs(diff) / se)
    level = np.array([0.05, 0.01, 0.2])
    low, high = compatible_intervals(diff, p, level)
    z = stats.norm.ppf(1 - level / 2)
    np.testing.assert_allclose(low, diff - z * se, rtol=1e-9)
    np.testing.assert_allclose(high, diff + z * se, rtol=1e-9)
    # one-sided: the lower bound of the one-sided z test
    p1 = stats.norm.sf(diff / se)
    low1, high1 = compatible_intervals(diff, p1, level, alternative="greater")
    np.testing.assert_allclose(low1, diff - stats.norm.ppf(1 - level) * se, rtol=1e-9)
    assert np.isnan(high1).all()


def test_compatible_intervals_edge_cases():
    # p equal to its level (rejected): the interval ends just off 0, on the right side
    low, high = compatible_intervals(np.array([0.1]), np.array([0.05]), np.array([0.05]))
    assert 0 < low[0] < 1e-9 and high[0] == pytest.approx(0.2)
    # no difference: the test implies no standard error, the marginal interval's is used
    low, high = compatible_intervals(
        np.array([0.0]), np.array([1.0]), np.array([0.01]), ci_low=[-0.1], ci_high=[0.1]
    )
    z = 0.1 / 1.959963984540054
    assert low[0] == pytest.approx(-2.5758293035489 * z) and high[0] == pytest.approx(-low[0])
    # nothing to go on: NaN, never a number made up
    low, high = compatible_intervals(np.array([0.0]), np.array([1.0]), np.array([0.05]))
    assert np.isnan(low[0]) and np.isnan(high[0])


def test_compatible_intervals_carry_the_marginal_interval_to_the_level():
    # closed form: a marginal Wald interval at 95% carried to the level is the Wald
    # interval at that level, whatever the (agreeing) test's p-value
    from scipy import stats

    diff = np.array([0.3, -0.12, 0.01])
    se = np.array([0.1, 0.05, 0.2])
    z95 = stats.norm.ppf(0.975)
    p = 2 * stats.norm.sf(np.abs(diff) / se)
    level = np.array([0.05 / 3] * 3)
    low, high = compatible_intervals(
        diff, p, level, ci_low=diff - z95 * se, ci_high=diff + z95 * se
    )
    z = stats.norm.ppf(1 - level / 2)
    np.testing.assert_allclose(low, diff - z * se, rtol=1e-9)
    np.testing.assert_allclose(high, diff + z * se, rtol=1e-9)
    # a score interval's asymmetry is kept: each side is stretched by the same ratio
    low, high = compatible_intervals(
        np.array([0.2]), np.array([0.5]), np.array([0.01]), ci_low=[-0.1], ci_high=[0.6]
    )
    r = stats.norm.ppf(0.995) / z95
    assert low[0] == pytest.approx(0.2 - 0.3 * r) and high[0] == pytest.approx(0.2 + 0.4 * r)


def test_compatible_intervals_extend_or_cut_at_zero_where_they_disagree():
    # the marginal interval excludes 0 but the (exact, conservative) test's p-value is
    # above the level: the carried interval would contradict the decision, so it is
    # extended to 0 (the least change that agrees), never replaced by a wider one
    from scipy import stats

    r = stats.norm.ppf(0.975) / stats.norm.ppf(0.975)
    low, high = compatible_intervals(
        np.array([0.05]),
        np.array([0.08]),
        np.array([0.05]),
        ci_low=[0.001],
        ci_high=[0.099],
    )
    assert low[0] == 0.0 and high[0] == pytest.approx(0.05 + 0.049 * r)
    # significant although the carried interval reaches 0: cut just off 0
    low, high = compatible_intervals(
        np.array([-0.05]), np.array([0.01]), np.array([0.05]), ci_low=[-0.2], ci_high=[0.01]
    )
    assert low[0] == pytest.approx(-0.2) and -1e-300 < high[0] < 0


def test_compatible_intervals_issue_41_sign_test_edges():
    # issue 41: the sign test with 10 wins and 10 losses (p = 1) gave [0.25, 0.74]; with
    # 11 wins (p = 0.82) Miettinen's fallback gave [-4.26, 5.35] for a marginal interval
    # of [0.30, 0.79]. Now: the hull of the marginal interval and 0, no wider
    from scipy import stats

    p10 = stats.binomtest(10, 20).pvalue  # scipy: the exact sign test, p = 1
    p11 = stats.binomtest(11, 20).pvalue
    low, high = compatible_intervals(
        np.array([0.5, 0.55]),
        np.array([p10, p11]),
        np.array([0.05, 0.05]),
        ci_low=np.array([0.25, 0.30]),
        ci_high=np.array([0.74, 0.79]),
    )
    np.testing.assert_array_equal(low, [0.0, 0.0])
    np.testing.assert_allclose(high, [0.74, 0.79])


def test_rejects_p_exactly_at_its_threshold_against_statsmodels():
    # issue 41: Bonferroni of p = alpha/m computes to 0.05000000000000001; statsmodels
    # compares the raw p with alpha/m and rejects, and so does reportgen
    p11 = np.full(11, 0.9)
    p11[0] = 0.05 / 11
    assert adjust_pvalues(p11, method="bonferroni")[0] > 0.05  # the edge is exercised
    for m in (3, 5, 7, 10, 11, 45):
        p = np.full(m, 0.9)
        p[0] = 0.05 / m
        for method in ("bonferroni", "holm"):
            expected = multipletests(p, alpha=0.05, method=method)[0]
            got = rejects(adjust_pvalues(p, method=method), 0.05)
            np.testing.assert_array_equal(got, expected)
            plan = interval_plan(p, alpha=0.05, method=method)
            np.testing.assert_array_equal(plan.significant, expected)
            low, _ = plan.intervals(
                np.full(m, 0.3), p, ci_low=np.full(m, 0.1), ci_high=np.full(m, 0.5)
            )
            assert low[0] > 0  # the interval excludes 0, as decided


def test_interval_kind_names_what_the_intervals_promise():
    # the vocabulary of reportgen.names.IntervalKind, by correction (docs/statistics.md)
    assert interval_kind("bonferroni", 6) == interval_kind("sidak", 6) == "simultaneous"
    assert interval_kind("holm", 6) == interval_kind("holm-sidak", 6) == "step-down compatible"
    assert interval_kind("fdr_bh", 6) == interval_kind("fdr_by", 6) == "FCR"
    assert interval_kind("none", 6) == interval_kind("holm-sidak", 1) == "unadjusted"
    assert {interval_kind(m, 6) for m in CORRECTIONS} == set(INTERVAL_KINDS)


def test_interval_plan_step_down_against_strassburger_bretz_closed_form():
    # Strassburger & Bretz (2008, Theorem 1), one-sided Holm: r of m rejected, r < m:
    # a rejected bound is 0, a retained one the marginal bound at alpha/(m - r); all
    # rejected: max(0, the marginal bound at alpha/m). Wald bounds, so exact.
    from scipy import stats

    se = np.array([0.1, 0.1, 0.1, 0.1])
    diff = np.array([0.5, 0.1, 0.25, -0.05])
    p = stats.norm.sf(diff / se)
    plan = interval_plan(p, alpha=0.05, method="holm")
    rejected = multipletests(p, alpha=0.05, method="holm")[0]
    np.testing.assert_array_equal(plan.significant, rejected)
    r = int(rejected.sum())
    assert 0 < r < 4
    z = stats.norm.ppf(0.975)
    low, high = plan.intervals(
        diff, p, alternative="greater", ci_low=diff - z * se, ci_high=diff + z * se
    )
    assert np.isnan(high).all()
    assert (low[rejected] > 0).all() and (low[rejected] < 1e-300).all()
    bound = diff - stats.norm.ppf(1 - 0.05 / (4 - r)) * se
    np.testing.assert_allclose(low[~rejected], bound[~rejected], rtol=1e-12)
    # every comparison rejected: the Bonferroni bound, cut at 0
    diff2 = np.array([0.5, 0.45, 0.30])
    p2 = stats.norm.sf(diff2 / se[:3])
    plan2 = interval_plan(p2, alpha=0.05, method="holm")
    assert plan2.significant.all() and not plan2.sign_only.any()
    low2, _ = plan2.intervals(
        diff2, p2, alternative="greater", ci_low=diff2 - z * se[:3], ci_high=diff2 + z * se[:3]
    )
    expected = np.maximum(diff2 - stats.norm.ppf(1 - 0.05 / 3) * se[:3], 0.0)
    np.testing.assert_allclose(np.where(low2 < 1e-300, 0.0, low2), expected, rtol=1e-12)


@pytest.mark.parametrize("method", [*STATSMODELS, "none"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_interval_plan_agrees_with_statsmodels_on_random_families(method, alternative):
    # random families with p = 1, p exactly at alpha/m, ties and discrete (sign test)
    # p-values beside t intervals: the decisions are statsmodels' multipletests', the
    # adjusted interval excludes 0 exactly when significant, and no interval that is
    # not sign-only reaches beyond the hull of 0 and the marginal interval at the
    # family's most conservative level (alpha/m)
    from scipy import stats

    rng = np.random.default_rng(11)
    for p in _families(3, 60):
        m = p.size
        diff = rng.normal(0, 1, m)
        p = np.where(rng.random(m) < 0.1, 1.0, p)  # p = 1 (10 wins and 10 losses)
        p[rng.random(m) < 0.1] = 0.05 / m  # exactly at Bonferroni's threshold
        wins = rng.integers(0, 20, m)
        discrete = rng.random(m) < 0.2  # exact sign tests of 20 items
        p = np.where(discrete, stats.binomtest(10, 20).pvalue, p)
        p = np.where(discrete, [stats.binomtest(int(w), 20).pvalue for w in wins], p)
        if alternative == "greater":
            p = np.where(diff > 0, p / 2, 1 - p / 2)
        half = np.abs(rng.normal(0.5, 0.2, m))
        ci_low, ci_high = diff - half, diff + half
        plan = interval_plan(p, alpha=0.05, method=method)
        if method == "none":
            expected = p <= 0.05
        else:
            # statsmodels: multipletests(p, alpha=0.05, method=method)[0]
            expected = multipletests(p, alpha=0.05, method=STATSMODELS[method])[0]
        np.testing.assert_array_equal(plan.significant, expected)
        low, high = plan.intervals(diff, p, alternative=alternative, ci_low=ci_low, ci_high=ci_high)
        excludes = (np.nan_to_num(low, nan=-np.inf) > 0) | (np.nan_to_num(high, nan=np.inf) < 0)
        np.testing.assert_array_equal(excludes, expected)
        # no fallback wider than the marginal interval at the most conservative level
        single = single_step_level(0.05, method=method, m=m) if m > 1 else 0.05
        z = stats.norm.ppf(1 - single / 2 if alternative == "two-sided" else 1 - single)
        r = z / stats.norm.ppf(0.975)
        widest_low = np.minimum(diff - half * r, 0.0)
        widest_high = np.maximum(diff + half * r, 0.0)
        bounded = ~plan.sign_only
        tol = 1e-12
        assert (np.nan_to_num(low, nan=np.inf)[bounded] >= widest_low[bounded] - tol).all()
        if alternative == "two-sided":
            assert (np.nan_to_num(high, nan=-np.inf)[bounded] <= widest_high[bounded] + tol).all()


def test_interval_plan_of_a_larger_family_is_sliced():
    # the plan of the whole family, taken apart for each unit: the same decisions and
    # levels as the whole (correct_across="all")
    p = np.array([0.001, 0.2, 0.04, 0.7, 0.0004, 0.3])
    plan = interval_plan(p, alpha=0.05, method="holm-sidak")
    part = plan[slice(2, 5)]
    np.testing.assert_array_equal(part.significant, plan.significant[2:5])
    np.testing.assert_array_equal(part.level, plan.level[2:5])
    assert part.kind == plan.kind == "step-down compatible"
    off = plan.without(np.array([True, False, False, False, False, False]))
    assert not off.significant[0] and not off.sign_only[0] and off.significant[4]
