"""Robust estimands (issue 41 item 4): the 20% trimmed mean (Yuen) and the
Hodges-Lehmann shift (Wilcoxon), against statsmodels, scipy and brute force.

Oracles: statsmodels ``TrimmedMean`` (Tukey-McLaughlin one-sample trimmed t), scipy
``ttest_ind(trim=0.2)`` (Yuen-Welch), scipy ``wilcoxon`` and ``mannwhitneyu`` (exact and
normal), the median of every Walsh average or pairwise difference listed by brute force,
and each interval's inversion checked test by test with scipy at the points between
consecutive Walsh averages (or differences)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.robust_compare import TrimmedMean

from reportgen.stats import robust as R
from reportgen.stats._pair_checks import EXACT_CHECK_ITEMS
from reportgen.stats.margins import margin_paired, margin_unpaired
from reportgen.stats.pairwise import compare_paired, compare_unpaired


def _skewed(rng: np.random.Generator, n: int) -> np.ndarray:
    return 0.3 - (rng.lognormal(size=n) - np.exp(0.5))


# ------------------------------------------------------------------ trimmed


@pytest.mark.parametrize("n", [5, 12, 23, 100])
def test_trimmed_paired_against_statsmodels_trimmed_mean(n):
    rng = np.random.default_rng(n)
    D = np.column_stack([_skewed(rng, n) for _ in range(3)])
    est, se, df = R.trimmed_paired(D)
    for j in range(3):
        # statsmodels: TrimmedMean(d, 0.2).mean_trimmed, .std_mean_trimmed, .ttest_mean(0)
        tm = TrimmedMean(D[:, j], 0.2)
        assert est[j] == pytest.approx(tm.mean_trimmed, rel=1e-12)
        assert se[j] == pytest.approx(tm.std_mean_trimmed, rel=1e-12)
        t_ref, p_ref, df_ref = tm.ttest_mean(0.0)
        assert df[j] == df_ref
        r = compare_paired(np.column_stack([D[:, j], np.zeros(n)]), estimand="trimmed")
        if n > EXACT_CHECK_ITEMS:  # beyond the exact guards: the trimmed t's own p
            assert r.p_value[0] == pytest.approx(p_ref, rel=1e-9)
            assert r.statistic[0] == pytest.approx(t_ref, rel=1e-9)
        else:  # a handful of differences: never below the trimmed t's p
            assert r.p_value[0] >= p_ref * (1 - 1e-9)
        assert r.diff[0] == pytest.approx(tm.mean_trimmed, rel=1e-12)
        assert r.estimand == "trimmed" and r.approximate is None


def test_trimmed_unpaired_against_scipy_yuen():
    rng = np.random.default_rng(3)
    for n_a, n_b in [(10, 14), (37, 23), (200, 150)]:
        a, b = rng.lognormal(size=n_a), rng.lognormal(size=n_b) + 0.2
        # scipy: ttest_ind(a, b, equal_var=False, trim=0.2) (Yuen 1974)
        ref = stats.ttest_ind(a, b, equal_var=False, trim=0.2)
        est, se, df = R.trimmed_unpaired(a, b)
        assert est / se == pytest.approx(ref.statistic, rel=1e-12)
        assert df == pytest.approx(ref.df, rel=1e-12)
        assert est == pytest.approx(stats.trim_mean(a, 0.2) - stats.trim_mean(b, 0.2), rel=1e-12)
        r = compare_unpaired([a, b], estimand="trimmed")
        assert r.p_value[0] == pytest.approx(ref.pvalue, rel=1e-9)
        ci = ref.confidence_interval(0.95)
        assert (r.ci_low[0], r.ci_high[0]) == pytest.approx((ci.low, ci.high), rel=1e-9)


# ------------------------------------------------------------------ ranks


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_signed_rank_pvalue_against_scipy_wilcoxon(alternative):
    rng = np.random.default_rng(5)
    for n in (6, 15, 40, 80):
        d = _skewed(rng, n)
        method = "exact" if n <= R.EXACT_RANKS else "asymptotic"
        # scipy: wilcoxon(d, alternative=..., method=..., correction=False)
        ref = stats.wilcoxon(d, alternative=alternative, method=method, correction=False)
        assert R.signed_rank_pvalue(d, alternative) == pytest.approx(ref.pvalue, rel=1e-9)
    # zeros dropped and tied magnitudes: the normal approximation with the tie variance
    d = np.array([0.0, 0.0, 1.0, 1.0, -1.0, 2.0, 2.0, 3.0, -2.0, 1.0, 4.0, 2.0])
    ref = stats.wilcoxon(
        d, alternative=alternative, method="asymptotic", zero_method="wilcox", correction=False
    )
    assert R.signed_rank_pvalue(d, alternative) == pytest.approx(ref.pvalue, rel=1e-9)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_rank_sum_pvalue_against_scipy_mannwhitneyu(alternative):
    rng = np.random.default_rng(6)
    for n_a, n_b in [(5, 7), (20, 25), (60, 45)]:
        a, b = rng.lognormal(size=n_a) + 0.3, rng.lognormal(size=n_b)
        method = "exact" if n_a + n_b <= R.EXACT_RANKS else "asymptotic"
        # scipy: mannwhitneyu(a, b, alternative=..., method=..., use_continuity=False)
        ref = stats.mannwhitneyu(a, b, alternative=alternative, method=method, use_continuity=False)
        assert R.rank_sum_pvalue(a, b, alternative) == pytest.approx(ref.pvalue, rel=1e-9)
    a, b = np.array([1.0, 2.0, 2.0, 3.0, 5.0]), np.array([2.0, 1.0, 0.0, 2.0, 1.0, 4.0])
    ref = stats.mannwhitneyu(
        a, b, alternative=alternative, method="asymptotic", use_continuity=False
    )
    assert R.rank_sum_pvalue(a, b, alternative) == pytest.approx(ref.pvalue, rel=1e-9)


@pytest.mark.parametrize("listed", [True, False])
def test_hodges_lehmann_against_brute_force_median(listed, monkeypatch):
    # the median of every Walsh average / pairwise difference, listed by brute force;
    # the counting path (large samples) gives the same values
    if not listed:
        monkeypatch.setattr(R, "LISTED_VALUES", 0)
    rng = np.random.default_rng(7)
    for n in (1, 2, 9, 30):
        d = _skewed(rng, n)
        walsh = [(d[i] + d[j]) / 2 for i in range(n) for j in range(i, n)]
        assert R.hodges_lehmann_paired(d) == pytest.approx(np.median(walsh), rel=1e-12)
    for n_a, n_b in [(1, 1), (4, 7), (20, 13)]:
        a, b = rng.lognormal(size=n_a), rng.lognormal(size=n_b)
        ref = np.median(np.subtract.outer(a, b))
        assert R.hodges_lehmann_unpaired(a, b) == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("listed", [True, False])
@pytest.mark.parametrize("n", [8, 20, 60])
def test_signed_rank_interval_against_scipy_test_inversion(n, listed, monkeypatch):
    # the interval holds exactly the shifts the signed-rank test does not reject:
    # checked with scipy's wilcoxon at the midpoints between consecutive Walsh averages
    if not listed:
        monkeypatch.setattr(R, "LISTED_VALUES", 0)
    d = _skewed(np.random.default_rng(n), n)
    low, high = R.signed_rank_interval(d, 0.05)
    walsh = np.unique([(d[i] + d[j]) / 2 for i in range(n) for j in range(i, n)])
    mids = (walsh[:-1] + walsh[1:]) / 2
    method = "exact" if n <= R.EXACT_RANKS else "asymptotic"
    # every kept midpoint lies inside, every rejected one outside
    for m in mids:
        inside = low < m < high
        rejected = stats.wilcoxon(d - m, method=method, correction=False).pvalue <= 0.05
        assert inside != rejected, (m, low, high)


@pytest.mark.parametrize("n_a, n_b", [(5, 6), (12, 15), (40, 35)])
def test_rank_sum_interval_against_scipy_test_inversion(n_a, n_b):
    rng = np.random.default_rng(n_a)
    a, b = rng.lognormal(size=n_a) + 0.4, rng.lognormal(size=n_b)
    low, high = R.rank_sum_interval(a, b, 0.05)
    diffs = np.unique(np.subtract.outer(a, b))
    method = "exact" if n_a + n_b <= R.EXACT_RANKS else "asymptotic"
    for m in (diffs[:-1] + diffs[1:]) / 2:
        # scipy: mannwhitneyu(a - m, b) rejects exactly outside the interval
        p = stats.mannwhitneyu(a - m, b, method=method, use_continuity=False).pvalue
        assert (low < m < high) != (p <= 0.05), (m, low, high, p)


def test_hodges_lehmann_comparisons_end_to_end_against_scipy():
    rng = np.random.default_rng(9)
    b = rng.normal(size=45)
    a = b + _skewed(rng, 45)
    r = compare_paired(np.column_stack([a, b]), estimand="hodges-lehmann")
    ref = stats.wilcoxon(a - b, method="exact", correction=False)
    assert r.p_value[0] == pytest.approx(ref.pvalue, rel=1e-9)
    assert r.test_of(0).startswith("Wilcoxon signed-rank")
    assert r.significant()[0] == (ref.pvalue <= 0.05)
    assert r.to_records()[0]["estimand"] == "hodges-lehmann"
    u = compare_unpaired([a, b + 0.1], estimand="hodges-lehmann")
    ref_u = stats.mannwhitneyu(a, b + 0.1, method="asymptotic", use_continuity=False)
    assert u.p_value[0] == pytest.approx(ref_u.pvalue, rel=1e-9)


def test_robust_estimands_of_binary_scores_are_the_proportions():
    x = np.array([[1, 0], [1, 1], [0, 0], [1, 0]] * 10, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = compare_paired(x, estimand="trimmed")
    assert r.estimand == "mean" and r.test == "exact McNemar"
    assert any("0/1 scores are compared as proportions" in n for n in r.notes)


@pytest.mark.parametrize("estimand", ["trimmed", "hodges-lehmann"])
def test_margin_tests_of_robust_estimands_against_scipy_shifted_tests(estimand):
    # non-inferiority at the margin: the estimand's own test of the scores shifted by δ
    rng = np.random.default_rng(10)
    base = rng.normal(size=60)
    cand = base - 0.1 + _skewed(rng, 60) - 0.3
    r = margin_paired(np.column_stack([base, cand]), margin=0.25, estimand=estimand)
    d = cand - base
    if estimand == "trimmed":
        # statsmodels: TrimmedMean(d, 0.2).ttest_mean(-δ, alternative="larger")
        ref = TrimmedMean(d, 0.2).ttest_mean(-0.25, alternative="larger")[1]
    else:
        # scipy: wilcoxon(d + δ, alternative="greater") (normal: more than 50 differences)
        ref = stats.wilcoxon(
            d + 0.25, alternative="greater", method="asymptotic", correction=False
        ).pvalue
    assert r.p_noninferiority[0] == pytest.approx(ref, rel=1e-9)
    assert r.estimand == estimand
    low, high = r.interval(0.95)
    assert low[0] < r.diff[0] < high[0]
    u = margin_unpaired([base, cand], margin=0.25, estimand=estimand)
    if estimand == "trimmed":
        ref_u = stats.ttest_ind(cand + 0.25, base, equal_var=False, trim=0.2, alternative="greater")
    else:
        ref_u = stats.mannwhitneyu(
            cand + 0.25, base, alternative="greater", method="asymptotic", use_continuity=False
        )
    assert u.p_noninferiority[0] == pytest.approx(ref_u.pvalue, rel=1e-9)
