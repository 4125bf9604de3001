"""Degenerate, tiny and rescaled samples (issue 30, items 2 and 3): exact answers for
differences that do not vary, no significance from fewer items than an exact test
needs, and the same p-values and intervals at any scale."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from reportgen.errors import DegenerateDataWarning
from reportgen.stats._degenerate import (
    edgeworth_size_error,
    hypergeometric_floor,
    min_paired_items,
    min_split_p,
    min_unpaired_items,
    power_of_two_scale,
    sample_skewness,
    sign_flip_constant_p,
    skew_flags,
    split_constant_p,
    split_counts,
)
from reportgen.stats.pairwise import compare_paired, compare_unpaired


def _brute_sign_flip(d: np.ndarray, alternative: str) -> float:
    """Exact sign-flip p-value by enumerating every sign vector (Pitman 1937)."""
    flips = np.array(list(itertools.product([-1.0, 1.0], repeat=len(d))))
    sums, obs = flips @ d, d.sum()
    tol = 1e-9 * np.abs(d).sum()
    if alternative == "two-sided":
        return float(np.mean(np.abs(sums) >= abs(obs) - tol))
    if alternative == "greater":
        return float(np.mean(sums >= obs - tol))
    return float(np.mean(sums <= obs + tol))


def _brute_split(a: np.ndarray, b: np.ndarray, alternative: str) -> float:
    """Exact label-shuffle p-value by enumerating every split."""
    pooled = np.concatenate([a, b])
    obs = a.mean() - b.mean()
    null = []
    for idx in itertools.combinations(range(len(pooled)), len(a)):
        mask = np.zeros(len(pooled), dtype=bool)
        mask[list(idx)] = True
        null.append(pooled[mask].mean() - pooled[~mask].mean())
    null_arr = np.array(null)
    tol = 1e-9 * np.abs(pooled).mean()
    if alternative == "two-sided":
        return float(np.mean(np.abs(null_arr) >= abs(obs) - tol))
    if alternative == "greater":
        return float(np.mean(null_arr >= obs - tol))
    return float(np.mean(null_arr <= obs + tol))


# ------------------------------------------------------------------ helpers


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_sign_flip_constant_p_against_brute_force_enumeration(n, alternative):
    for d in (0.1, -0.1, 0.0):
        # brute force over the 2^n sign vectors of n equal differences
        ref = _brute_sign_flip(np.full(n, d), alternative)
        assert sign_flip_constant_p(n, np.array([d]), alternative)[0] == pytest.approx(ref)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize(("na", "nb"), [(2, 2), (3, 3), (2, 4), (4, 3)])
def test_split_constant_p_against_brute_force_enumeration(na, nb, alternative):
    for ca, cb in ((1.0, 0.5), (0.5, 1.0), (2.0, 2.0)):
        ref = _brute_split(np.full(na, ca), np.full(nb, cb), alternative)
        got = split_constant_p(np.array([na]), np.array([nb]), np.array([ca - cb]), alternative)
        assert got[0] == pytest.approx(ref)


def test_split_counts_against_math_comb():
    # math.comb: the exact integer count of splits, rounded once to a float (the old
    # routine); exact where the smaller sample has at most 30 items, a relative 1e-8
    # beyond (log-gamma of millions of items), inf where the integer overflows a float
    rng = np.random.default_rng(7)
    sizes = [(0, 0), (1, 39), (39, 1), (3, 3), (30, 10**6), (31, 31), (14042, 14042)]
    sizes += [(int(rng.integers(0, 40)), int(rng.integers(0, 3000))) for _ in range(300)]
    sizes += [(int(rng.integers(31, 900)), int(rng.integers(31, 10**6))) for _ in range(300)]
    a = np.array([x for x, _ in sizes])
    b = np.array([y for _, y in sizes])
    got = split_counts(a, b)
    for k, (x, y) in enumerate(sizes):
        try:
            ref = float(math.comb(x + y, x))
        except OverflowError:
            ref = math.inf
        if min(x, y) <= 30 or math.isinf(ref):
            assert got[k] == ref, (x, y)
        else:
            assert got[k] == pytest.approx(ref, rel=1e-8), (x, y)
    # a split p-value exactly at a level stays at it: 1/40 at alpha = 0.025 is reachable
    floor = min_split_p(np.array([1]), np.array([39]), "greater")
    assert floor[0] == 0.025


def test_min_split_p_against_brute_force_and_the_old_comb_routine():
    # the old routine: c / float(math.comb(n_a + n_b, n_a)) pair by pair; brute force
    # over the splits of two separated samples where they are few
    rng = np.random.default_rng(8)
    n_a = np.concatenate([rng.integers(1, 8, 40), rng.integers(1, 20000, 40)])
    n_b = np.concatenate([rng.integers(1, 8, 40), rng.integers(1, 20000, 40)])
    for alternative in ("two-sided", "greater", "less"):
        got = min_split_p(n_a, n_b, alternative)
        for k in range(len(n_a)):
            x, y = int(n_a[k]), int(n_b[k])
            c = 2.0 if alternative == "two-sided" and x == y else 1.0
            try:
                old = min(1.0, c / float(math.comb(x + y, x)))
            except OverflowError:
                old = 0.0
            assert got[k] == pytest.approx(old, rel=1e-8, abs=0.0), (x, y, alternative)
            if x + y <= 9 and k < 40:
                a_s, b_s = np.arange(x) + 100.0, np.arange(y, dtype=float)
                if alternative == "less":
                    a_s, b_s = -a_s, b_s
                assert got[k] == pytest.approx(_brute_split(a_s, b_s, alternative))


@pytest.mark.parametrize("alpha", [0.1, 0.05, 0.01, 0.001])
@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_min_items_against_brute_force_smallest_exact_p(alpha, alternative):
    # the smallest p of the exact sign-flip test on n items is that of n equal
    # differences (brute force); min_paired_items is the first n where it reaches alpha
    n = min_paired_items(alpha, alternative)
    assert _brute_sign_flip(np.ones(n), alternative) <= alpha
    assert _brute_sign_flip(np.ones(n - 1), alternative) > alpha if n > 1 else True
    m = min_unpaired_items(alpha, alternative)
    # brute force over the splits of two separated samples of m items each
    a, b = np.arange(m) + 100.0, np.arange(m, dtype=float)
    if m <= 7:
        assert _brute_split(a, b, alternative) <= alpha
        assert _brute_split(a[:-1], b[:-1], alternative) > alpha
    tails = 2 if alternative == "two-sided" else 1
    assert tails / math.comb(2 * m, m) <= alpha < tails / math.comb(2 * m - 2, m - 1)


def test_power_of_two_scale_edge_cases():
    assert power_of_two_scale(np.array([0.0, 1.0, 0.0])) == 1.0
    assert power_of_two_scale(np.array([])) == 1.0
    assert power_of_two_scale(np.array([0.0])) == 1.0
    s = power_of_two_scale(np.array([3e-170, -1e-171]))
    assert 0.5 <= 3e-170 / s < 1 and math.frexp(s)[0] == 0.5


def test_sample_skewness_against_scipy_skew():
    rng = np.random.default_rng(3)
    D = rng.lognormal(size=(40, 3))
    # scipy: stats.skew(D, bias=True)
    assert sample_skewness(D) == pytest.approx(stats.skew(D, axis=0, bias=True), rel=1e-10)
    assert sample_skewness(np.ones((5, 1)))[0] == 0.0


def test_edgeworth_size_error_against_simulated_t_test_size():
    # simulation: one-sided t test at 0.025 of centred lognormal(0, 0.5) differences,
    # n = 30; the first-order Edgeworth term predicts the size's excess over alpha/2
    rng = np.random.default_rng(5)
    n, reps = 30, 200_000
    sigma = 0.5
    skew = (np.exp(sigma**2) + 2) * np.sqrt(np.exp(sigma**2) - 1)  # lognormal skewness
    x = rng.lognormal(0.0, sigma, size=(reps, n)) - np.exp(sigma**2 / 2)
    t = x.mean(axis=1) / (x.std(axis=1, ddof=1) / np.sqrt(n))
    lower = np.mean(t < stats.t.ppf(0.025, n - 1))  # right skew: the lower tail is heavy
    predicted = float(edgeworth_size_error(np.array(skew), n, 0.05))
    assert lower - 0.025 == pytest.approx(predicted, abs=0.006)


# ------------------------------------------------------------------ item 2


@pytest.mark.parametrize("method", ["auto", "permutation", "bootstrap"])
@pytest.mark.parametrize("n", [3, 5, 8, 12])
def test_constant_difference_gets_exact_sign_flip_p_against_enumeration(n, method):
    rng = np.random.default_rng(n)
    x = rng.normal(size=n)
    X = np.column_stack([x + 0.1, x])  # y = x + 0.1 up to rounding: not exactly constant
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        r = compare_paired(X, method=method, rng=1)
    # brute force: every sign vector of n equal differences of 0.1
    assert r.p_value[0] == pytest.approx(_brute_sign_flip(np.full(n, 0.1), "two-sided"))
    assert r.p_value[0] >= 2.0**-n * 2 - 1e-15
    # its interval inverts the same exact test (brute force over shifts): every shift
    # is kept while 2/2^n is above the interval's level (unbounded, not a point), else
    # only the difference itself is
    kept = [
        d
        for d in (-1.0, 0.0, 0.05, 0.1, 0.15, 1.0)
        if _brute_sign_flip(np.full(n, 0.1) - d, "two-sided") > 0.05
    ]
    if 2.0 ** (1 - n) > 0.05:
        assert len(kept) == 6 and np.isnan(r.ci_low[0]) and np.isnan(r.ci_high[0])
    else:
        assert kept == [0.1]
        assert r.ci_low[0] == pytest.approx(0.1) and r.ci_high[0] == pytest.approx(0.1)
    assert "same difference" in r.pair_notes[0] or n < 6


def test_issue_five_items_constant_difference_not_significant():
    # the issue's case: five items, y = x + 0.1 -> p = 2/2^5 = 0.0625, not 2e-63
    x = np.array([0.31, 0.77, 0.12, 0.95, 0.48])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        r = compare_paired(np.column_stack([x, x + 0.1]), systems=["x", "y"])
    assert r.p_value[0] == 2 / 2**5 and not r.significant()[0]
    assert r.min_items == 6


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_too_few_paired_items_take_exact_sign_flip_p_against_enumeration(n):
    # a strong, varying difference on n < 6 items: the t test would reject; the exact
    # sign-flip p (brute force) cannot reach 0.05, so nothing is significant
    rng = np.random.default_rng(10 + n)
    x = rng.normal(size=n)
    X = np.column_stack([x + 5 + 0.01 * rng.normal(size=n), x])
    for method in ("auto", "bootstrap"):
        r = compare_paired(X, method=method, rng=2)
        ref = _brute_sign_flip(X[:, 0] - X[:, 1], "two-sided")
        assert r.p_value[0] == pytest.approx(ref)
        assert not r.significant()[0]
        assert f"at least {min_paired_items(0.05, 'two-sided')} are needed" in r.pair_notes[0]


def test_llm_judge_two_items_never_significant():
    # the issue's HELM LLM-judge case: 2 instances, three systems far apart
    X = np.array([[0.2, 0.5, 0.9], [0.21, 0.52, 0.93]])
    r = compare_paired(X)
    assert not r.significant().any()
    assert r.p_value == pytest.approx(np.full(3, 0.5))  # 2/2^2


@pytest.mark.parametrize(("na", "nb"), [(2, 2), (3, 3), (2, 3)])
def test_too_few_unpaired_items_take_exact_label_shuffle_p_against_enumeration(na, nb):
    rng = np.random.default_rng(na * 10 + nb)
    a, b = rng.normal(5, 0.1, size=na), rng.normal(0, 0.1, size=nb)
    r = compare_unpaired([a, b])
    # brute force over every split (Welch would give p < 0.001)
    assert r.p_value[0] == pytest.approx(_brute_split(a, b, "two-sided"))
    assert not r.significant()[0]
    assert "per system are needed" in r.pair_notes[0]
    rb = compare_unpaired([(a > 2).astype(float), (b > 2).astype(float)])
    assert not rb.significant()[0]
    # binary: scipy's fisher_exact is the exact label-shuffle test of 0/1 samples
    table = [[na, 0], [0, nb]]
    assert rb.p_value[0] == pytest.approx(stats.fisher_exact(table).pvalue)


def test_unpaired_two_constant_samples_against_enumeration():
    with pytest.warns(DegenerateDataWarning, match="exact label-shuffle"):
        r = compare_unpaired([np.full(5, 1.0), np.full(6, 0.5)])
    # brute force over the C(11, 5) = 462 splits
    assert r.p_value[0] == pytest.approx(
        _brute_split(np.full(5, 1.0), np.full(6, 0.5), "two-sided")
    )
    assert r.p_value[0] == pytest.approx(1 / 462)


def test_identical_and_too_short_systems_have_notes():
    rng = np.random.default_rng(8)
    a = rng.normal(size=20)
    X = np.column_stack([a, a, a + 0.2 + rng.normal(size=20)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        r = compare_paired(X, systems=["a", "b", "c"])
    assert r.p_value[0] == 1.0 and "identical scores on all 20 items" in r.pair_notes[0]
    assert r.to_records()[0]["note"] == r.pair_notes[0]
    assert r.to_records()[1]["note"] is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        u = compare_unpaired([np.array([0.4]), np.array([0.1, 0.2, 0.3])], systems=["a", "b"])
    assert np.isnan(u.p_value[0]) and "a has 1 item;" in u.pair_notes[0]


# ------------------------------------------------------------------ item 3

SCALES = [1e-300, 1e-170, 1e-30, 1e-3, 1.0, 7.3, 1e30, 1e170, 1e300]


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("method", ["auto", "permutation", "bootstrap", "sign"])
def test_paired_scale_invariance_against_unscaled_scipy(scale, method):
    rng = np.random.default_rng(0)
    x = rng.normal(size=40)
    X = np.column_stack([x, 0.9 * x + 0.2 + rng.normal(size=40) * 0.6])
    ref = compare_paired(X, method=method, rng=3)
    got = compare_paired(X * scale, method=method, rng=3)
    assert got.p_value == pytest.approx(ref.p_value, rel=1e-9)
    assert got.ci_low / scale == pytest.approx(ref.ci_low, rel=1e-9)
    assert got.ci_high / scale == pytest.approx(ref.ci_high, rel=1e-9)
    assert got.diff / scale == pytest.approx(ref.diff, rel=1e-9)
    if method == "auto":
        # scipy: ttest_rel on the unscaled scores
        assert got.p_value[0] == pytest.approx(stats.ttest_rel(X[:, 0], X[:, 1]).pvalue, rel=1e-9)


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("method", ["auto", "permutation", "bootstrap"])
def test_unpaired_scale_invariance_against_unscaled_scipy(scale, method):
    rng = np.random.default_rng(1)
    a, b = rng.normal(0, 1, size=25), rng.normal(0.5, 2, size=30)
    ref = compare_unpaired([a, b], method=method, rng=4)
    got = compare_unpaired([a * scale, b * scale], method=method, rng=4)
    assert got.p_value == pytest.approx(ref.p_value, rel=1e-9)
    assert got.ci_low / scale == pytest.approx(ref.ci_low, rel=1e-9)
    assert got.ci_high / scale == pytest.approx(ref.ci_high, rel=1e-9)
    if method == "auto":
        # scipy: ttest_ind(equal_var=False) on the unscaled scores
        assert got.p_value[0] == pytest.approx(
            stats.ttest_ind(a, b, equal_var=False).pvalue, rel=1e-9
        )


def test_issue_sequence_likelihoods_scaled_1e_minus_170():
    # the issue's case: p = 0 "significant" at 1e-170 where the unscaled data give 0.175
    rng = np.random.default_rng(7)
    x = rng.normal(size=20)
    X = np.column_stack([x, x + 0.3 * rng.normal(size=20) + 0.05])
    ref = stats.ttest_rel(X[:, 0], X[:, 1]).pvalue  # scipy on the unscaled data
    assert compare_paired(X * 1e-170).p_value[0] == pytest.approx(ref, rel=1e-9)


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("method", ["auto", "permutation", "bootstrap"])
def test_margin_scale_invariance_against_unscaled(scale, method):
    # the shifted t (scipy: ttest_1samp of the differences at -margin) and the
    # resampling margin tests, on scores and margin rescaled together
    from reportgen.stats.margins import margin_paired, margin_unpaired

    rng = np.random.default_rng(2)
    b = rng.normal(size=30)
    X = np.column_stack([b, b - 0.05 + 0.3 * rng.normal(size=30)])
    ref = margin_paired(X, margin=0.2, method=method, rng=5)
    got = margin_paired(X * scale, margin=0.2 * scale, method=method, rng=5)
    assert got.p_lower == pytest.approx(ref.p_lower, rel=1e-9)
    assert got.p_superiority == pytest.approx(ref.p_superiority, rel=1e-9)
    assert got.ci_low / scale == pytest.approx(ref.ci_low, rel=1e-9)
    assert got.ci_high / scale == pytest.approx(ref.ci_high, rel=1e-9)
    assert got.margin == pytest.approx(0.2 * scale, rel=1e-12)
    if method == "auto":
        d = X[:, 1] - X[:, 0]
        p = stats.ttest_1samp(d, -0.2, alternative="greater").pvalue
        assert got.p_lower[0] == pytest.approx(p, rel=1e-9)
    u_ref = margin_unpaired([X[:, 0], X[:, 1]], margin=0.2, method=method, rng=5)
    u_got = margin_unpaired([X[:, 0] * scale, X[:, 1] * scale], margin=0.2 * scale,
                            method=method, rng=5)  # fmt: skip
    assert u_got.p_lower == pytest.approx(u_ref.p_lower, rel=1e-9)
    assert u_got.ci_low / scale == pytest.approx(u_ref.ci_low, rel=1e-9)


# ------------------------------------------------------------------ item 4


def _loop_bootstrap_t(d: np.ndarray, rng: np.random.Generator, reps: int) -> np.ndarray:
    """Bootstrap-t replicates by an explicit loop (Efron & Tibshirani 1993, §12.5)."""
    n = len(d)
    out = np.empty(reps)
    for r in range(reps):
        x = d[rng.integers(0, n, n)]
        s = x.std(ddof=1)
        out[r] = (x.mean() - d.mean()) / (s / np.sqrt(n)) if s > 0 else np.inf
    return out


def test_bootstrap_t_p_and_interval_against_explicit_loop():
    # a skewed unit rejects only where both the t test (scipy ttest_rel) and the
    # studentized bootstrap (an explicit loop) reject: p the larger, the interval the hull
    rng = np.random.default_rng(11)
    n = 40
    b = rng.normal(size=n)
    a = b + 0.35 - (rng.lognormal(size=n) - np.exp(0.5))
    r = compare_paired(np.column_stack([a, b]), n_resamples=40_000, rng=3)
    assert r.skewed[0] and "studentized bootstrap" in r.test_of(0)
    # the mean of so skewed differences is not decidable from 40 items (issue 41):
    # approximate, never significant, whatever its p
    assert r.approximate[0] and not r.significant()[0]
    assert r.note(0).startswith("approximate (skewed)")
    d = a - b
    t_star = _loop_bootstrap_t(d, np.random.default_rng(4), 40_000)
    t = d.mean() / (d.std(ddof=1) / np.sqrt(n))
    boot = 2 * min(np.mean(t_star >= t), np.mean(t_star <= t))
    scipy_t = stats.ttest_rel(a, b)
    ref = max(boot, scipy_t.pvalue)
    # Monte Carlo error of two independent bootstrap p-values of 40,000 resamples
    assert r.p_value[0] == pytest.approx(ref, abs=4 * np.sqrt(ref * (1 - ref) / 40_000) + 1e-3)
    se = d.std(ddof=1) / np.sqrt(n)
    q = np.quantile(t_star[np.isfinite(t_star)], [0.025, 0.975])
    ci = scipy_t.confidence_interval()
    low, high = min(ci.low, d.mean() - se * q[1]), max(ci.high, d.mean() - se * q[0])
    assert r.ci_low[0] == pytest.approx(low, abs=0.03 * se * abs(q[1]))
    assert r.ci_high[0] == pytest.approx(high, abs=0.03 * se * abs(q[0]))
    # and the bootstrap-t side by itself (the private helper) against the loop
    from reportgen.stats._pair_checks import _bootstrap_t
    from reportgen.stats.pairwise import _options_iv

    opts = _options_iv(method="auto", order="all-pairs", alternative="two-sided",
                       correction="none", alpha=0.05, confidence=0.95, n_resamples=40_000,
                       effect_threshold="medium", rng=3, max_memory=2**28)  # fmt: skip
    X = np.column_stack([a, b])
    bp, blow, bhigh = _bootstrap_t(
        X, np.array([0]), np.array([1]), np.array([d.mean()]), np.array([d.std(ddof=1)]), opts
    )
    assert bp[0] == pytest.approx(boot, abs=4 * np.sqrt(boot * (1 - boot) / 40_000) + 1e-3)
    assert blow[0] == pytest.approx(d.mean() - se * q[1], abs=0.03 * se * abs(q[1]))
    assert bhigh[0] == pytest.approx(d.mean() - se * q[0], abs=0.03 * se * abs(q[0]))


def test_skew_flags_threshold_against_closed_form():
    # flagged iff |g1| (2 z^2 + 1) phi(z) / (6 sqrt(n)) > alpha / 4, z = z_{1 - alpha/2}
    z = stats.norm.isf(0.025)
    for n in (30, 100, 200):
        g_star = 0.0125 * 6 * np.sqrt(n) / ((2 * z * z + 1) * stats.norm.pdf(z))
        below = float(edgeworth_size_error(np.array(g_star * 0.99), n, 0.05))
        above = float(edgeworth_size_error(np.array(g_star * 1.01), n, 0.05))
        assert below < 0.0125 < above
    assert g_star == pytest.approx(2.09, abs=0.01)  # n = 200 (the docstring's figure)


def test_margin_skewed_candidates_use_studentized_bootstrap():
    from reportgen.stats.margins import margin_paired

    rng = np.random.default_rng(12)
    n = 60
    b = rng.normal(size=n)
    skewed = b - 0.1 - (rng.lognormal(size=n) - np.exp(0.5))
    plain = b - 0.1 + rng.normal(size=n)
    r = margin_paired(np.column_stack([b, skewed, plain]), margin=0.5, rng=1)
    assert r.skewed.tolist() == [True, False]
    assert "studentized bootstrap" in r.test
    assert r.to_records()[0]["skewed"] is True
    # the skewed candidate's p is at least the shifted t's (scipy: ttest_1samp)
    p_t = stats.ttest_1samp(skewed - b, -0.5, alternative="greater").pvalue
    assert r.p_lower[0] >= p_t - 1e-12
    # the plain candidate keeps the shifted t (scipy: ttest_1samp at -margin)
    p = stats.ttest_1samp(plain - b, -0.5, alternative="greater").pvalue
    assert r.p_lower[1] == pytest.approx(p, rel=1e-9)
    # the interval agrees with the tests: its lower end is above -margin iff p_lower is
    # at most (1 - confidence) / 2
    lo = r.interval(0.95)[0]
    assert (lo[0] > -0.5) == (r.p_lower[0] <= 0.025)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_margin_too_few_items_exact_sign_flip_against_enumeration(n):
    from reportgen.stats.margins import margin_paired

    rng = np.random.default_rng(20 + n)
    b = rng.uniform(0.2, 0.4, size=n)
    X = np.column_stack([b, b + 0.3 + 0.01 * rng.normal(size=n)])
    r = margin_paired(X, margin=0.05)
    # brute force: sign flips of the differences shifted by the margin (H0: Δ <= -δ)
    ref = _brute_sign_flip(X[:, 1] - X[:, 0] + 0.05, "greater")
    assert r.p_lower[0] == pytest.approx(ref)
    assert r.p_lower[0] >= 2.0**-n and r.p_lower[0] > 0.025
    assert np.isinf(r.ci_low[0]) and np.isinf(r.ci_high[0])
    assert "no claim is made" in r.notes[0]


def test_skew_flags_against_scipy_skew_per_pair_whatever_the_chunk():
    # reference: scipy.stats.skew(X[:, a] - X[:, b], bias=True) of each pair, fed to the
    # Edgeworth size error; the chunking of the pairs must not change any flag
    rng = np.random.default_rng(8)
    X = np.column_stack(
        [rng.normal(size=400), rng.lognormal(0, 1.5, 400), rng.exponential(size=400)]
        + [rng.normal(size=400) for _ in range(3)]
    )
    ia, ib = np.triu_indices(X.shape[1], 1)
    g = stats.skew(X[:, ia] - X[:, ib], axis=0, bias=True)
    expected = edgeworth_size_error(g, X.shape[0], 0.05) > 0.05 / 4
    assert expected.any() and not expected.all()
    for chunk in (None, 1, 4, 1000):
        assert np.array_equal(skew_flags(X, ia, ib, 0.05, chunk=chunk), expected)


def test_studentized_replicates_against_the_plain_expression():
    # reference: the bootstrap-t replicate written as one numpy expression (Efron &
    # Tibshirani 1993, §12.5) on the same resamples; the in-place version must give the
    # same bits, ±inf for a resample of one repeated value and 0 when it equals the mean
    from reportgen.stats._degenerate import studentized_replicates
    from reportgen.stats._resampling import bootstrap_counts, exact_product

    rng = np.random.default_rng(11)
    n = 9
    D = np.column_stack(
        [
            rng.lognormal(size=n),  # skewed
            rng.normal(size=n),
            np.full(n, 0.25),  # constant: every resample repeats one value
            np.r_[np.zeros(n - 1), 3.0],  # mostly one value: some resamples constant
        ]
    )
    got = studentized_replicates(D, np.random.default_rng(5), 500, 2**26)  # one chunk
    counts = bootstrap_counts(np.random.default_rng(5), 500, n)
    C = D - D.mean(axis=0)  # the same exact sums (a constant resample has variance 0)
    sums = exact_product(np.hstack([C, C * C]), n).weighted_sums(counts)
    m1, m2 = sums[:, :4] / n, sums[:, 4:] / n
    var = np.maximum(m2 - m1 * m1, 0.0) * n / (n - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = m1 / np.sqrt(var / n)
    expected = np.where(var > 0, t, np.where(m1 > 0, np.inf, np.where(m1 < 0, -np.inf, 0.0)))
    np.testing.assert_array_equal(got, expected)  # bit for bit, infinities included
    assert np.isinf(got[:, 3]).any()
    assert np.isinf(got[:, 2]).sum() == 0 and np.all(got[:, 2] == 0)  # at the mean: 0


# ------------------------------------------------- issue 41: guards on what informs


@pytest.mark.parametrize(
    "d",
    [
        [0.1, 0.11, 0.09, 0.1, 0.12, 0.0, 0.0],  # 7 items, 5 non-zero differences
        [0.1, 0.11, 0.09, 0.1, 0.12, 0.0],  # 6 items, 5 non-zero
        [0.1] * 7 + [-0.1],  # 8 items: t p = 0.02, exact p = 18/256
    ],
    ids=["7-items-5-nonzero", "6-items-5-nonzero", "8-items-7-up-1-down"],
)
def test_issue_41_nonzero_differences_guard_against_enumeration(d):
    # brute force over the sign vectors of the differences: the exact sign-flip p; the
    # paired t test alone called each of these significant
    d = np.array(d)
    x = np.arange(len(d), dtype=float)
    r = compare_paired(np.column_stack([x + d, x]))
    ref = _brute_sign_flip(d, "two-sided")
    assert ref > 0.05
    assert stats.ttest_rel(x + d, x).pvalue < 0.05  # scipy: what t alone says
    assert r.p_value[0] == pytest.approx(ref) and not r.significant()[0]
    assert "sign-flip" in r.test_of(0)
    if (d == 0).any():
        assert "at least 6 non-zero differences are needed" in r.note(0)


def test_paired_binary_few_discordant_items_note_against_binomtest():
    # 0/1 scores: the information is in the discordant items; 5 of 40 cannot reach 0.05
    # (scipy binomtest: the exact McNemar p of 5 wins and 0 losses is 0.0625)
    a = np.zeros(40)
    b = np.zeros(40)
    a[:5] = 1.0
    a[10:30] = b[10:30] = 1.0
    r = compare_paired(np.column_stack([a, b]))
    assert r.p_value[0] == pytest.approx(stats.binomtest(5, 5).pvalue)
    assert not r.significant()[0]
    assert "only 5 of 40 items are discordant" in r.note(0)
    assert "at least 6 discordant items are needed" in r.note(0)


def test_unpaired_binary_few_successes_against_fisher_exact():
    # 4 successes among 2 x 1,000 items, all in A: the pooled z test says p = 0.0455,
    # but no exact test can go below 0.125 with these margins (scipy fisher_exact)
    a = np.zeros(1000)
    a[:4] = 1.0
    b = np.zeros(1000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        r = compare_unpaired([a, b])
    fisher = stats.fisher_exact([[4, 996], [0, 1000]]).pvalue
    assert fisher > 0.05
    assert r.p_value[0] == pytest.approx(fisher) and not r.significant()[0]
    assert r.test_of(0) == "label-shuffle permutation (exact, hypergeometric)"
    assert "only 4 scores of 1 among the 2000 items" in r.note(0)
    # and plenty of them: the z test as before
    a[:400] = 1.0
    b[:300] = 1.0
    r = compare_unpaired([a, b])
    assert r.test_of(0) == "two-proportion z" and r.significant()[0]


def test_hypergeometric_floor_against_brute_force_tables():
    # the smallest p over every table with the same margins (scipy fisher_exact of each)
    for k, na, nb in [(4, 10, 12), (3, 5, 30), (7, 9, 9), (2, 3, 3)]:
        tables = [
            [[x, na - x], [k - x, nb - (k - x)]] for x in range(max(0, k - nb), min(k, na) + 1)
        ]
        for alternative in ("two-sided", "greater", "less"):
            ref = min(stats.fisher_exact(t, alternative=alternative).pvalue for t in tables)
            got = hypergeometric_floor(np.array([k]), np.array([na]), np.array([nb]), alternative)
            assert got[0] == pytest.approx(ref), (k, na, nb, alternative)


def test_two_sided_count_guard_shortcut_against_the_exact_floor():
    # compare_unpaired skips the exact floor of two-sided tests when each score and each
    # group has at least 64 items: the floor (scipy hypergeometric at the extreme
    # tables) is then far below any alpha, so the skip cannot change a decision
    from reportgen.stats._pair_checks import RARE_SCORES

    rng = np.random.default_rng(64)
    n_a = rng.integers(RARE_SCORES, 5000, 3000)
    n_b = rng.integers(RARE_SCORES, 5000, 3000)
    k = np.array([rng.integers(RARE_SCORES, a + b - RARE_SCORES + 1) for a, b in zip(n_a, n_b)])
    assert hypergeometric_floor(k, n_a, n_b, "two-sided").max() < 1e-15
