"""The comparison engine against named references: scipy, statsmodels, brute-force
enumeration, closed forms, and simulations of size."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportions_ztest

from reportgen.errors import DegenerateDataWarning, InputError, OneSidedWarning
from reportgen.stats.pairwise import (
    compare_paired,
    compare_unpaired,
    comparison_pairs,
    effect_magnitude,
)


def _pairs(result):
    return list(zip(result.index_a, result.index_b))


@pytest.fixture
def continuous():
    rng = np.random.default_rng(0)
    return rng.normal(size=(60, 4)) + rng.normal(size=(60, 1)) + np.array([0, 0.2, 0.5, 0.1])


@pytest.fixture
def binary():
    rng = np.random.default_rng(1)
    latent = rng.normal(size=(250, 1))
    return (latent + rng.normal(size=(250, 5)) + np.array([0, 0.1, 0.3, 0.35, 0.6]) > 0.3).astype(
        float
    )


# ----------------------------------------------------------------------- paired


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_paired_t_against_scipy_ttest_rel(continuous, alternative):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneSidedWarning)
        r = compare_paired(continuous, alternative=alternative)
    assert r.test == "paired t" and r.effect_size_kind == "paired d"
    for k, (i, j) in enumerate(_pairs(r)):
        # scipy: ttest_rel(x_i, x_j, alternative=...)
        ref = stats.ttest_rel(continuous[:, i], continuous[:, j], alternative=alternative)
        assert r.statistic[k] == pytest.approx(ref.statistic, rel=1e-12)
        assert r.p_value[k] == pytest.approx(ref.pvalue, rel=1e-10)
        ci = stats.ttest_rel(continuous[:, i], continuous[:, j]).confidence_interval(0.95)
        assert (r.ci_low[k], r.ci_high[k]) == pytest.approx((ci.low, ci.high), rel=1e-10)
        d = continuous[:, i] - continuous[:, j]
        assert r.effect_size[k] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_mcnemar_against_statsmodels_and_scipy_binomtest(binary, alternative):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneSidedWarning)
        r = compare_paired(binary, alternative=alternative)
    assert r.test == "exact McNemar" and r.modality == "binary"
    for k, (i, j) in enumerate(_pairs(r)):
        a, b = binary[:, i], binary[:, j]
        n10, n01 = int(np.sum((a == 1) & (b == 0))), int(np.sum((a == 0) & (b == 1)))
        assert (r.a_only[k], r.b_only[k]) == (n10, n01)
        # scipy: binomtest(n10, n10 + n01, 0.5, alternative=...)
        ref = stats.binomtest(n10, n10 + n01, 0.5, alternative=alternative).pvalue
        assert r.p_value[k] == pytest.approx(ref, rel=1e-10)
        if alternative == "two-sided":
            table = [[np.sum((a == 1) & (b == 1)), n10], [n01, np.sum((a == 0) & (b == 0))]]
            # statsmodels: mcnemar(table, exact=True)
            assert r.p_value[k] == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)


def test_paired_sign_flip_against_brute_force_enumeration():
    rng = np.random.default_rng(3)
    for n in (2, 5, 9, 12):
        X = np.round(rng.normal(size=(n, 3)), 2)  # rounding creates ties
        for alternative in ("two-sided", "greater", "less"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = compare_paired(
                    X, method="permutation", alternative=alternative, n_resamples=2**n
                )
            assert r.exact and r.test == "paired sign-flip permutation (exact)"
            for k, (i, j) in enumerate(_pairs(r)):
                d = X[:, i] - X[:, j]
                obs = d.sum()
                # brute force: all 2^n sign vectors, counted with a float tolerance
                null = np.array([np.dot(s, d) for s in itertools.product([1, -1], repeat=n)])
                if alternative == "two-sided":
                    count = np.sum(np.abs(null) >= abs(obs) - 1e-9)
                elif alternative == "greater":
                    count = np.sum(null >= obs - 1e-9)
                else:
                    count = np.sum(null <= obs + 1e-9)
                assert r.p_value[k] == count / 2**n


def test_paired_sign_flip_monte_carlo_converges_to_exact():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(17, 2)) + np.array([0, 0.6])
    exact = compare_paired(X, method="permutation", n_resamples=2**17).p_value[0]
    errors = []
    for R in (1000, 16000, 128000):
        mc = compare_paired(X, method="permutation", n_resamples=R, rng=5)
        assert not mc.exact and mc.n_resamples == R
        errors.append(abs(mc.p_value[0] - exact))
        # within 4 Monte Carlo standard errors of the exact value
        assert errors[-1] <= 4 * np.sqrt(exact * (1 - exact) / R) + 1 / R
    assert errors[-1] < 0.01


def test_paired_permutation_binary_is_exact_binomial(binary):
    r = compare_paired(binary, method="permutation")
    auto = compare_paired(binary)
    # sign flips of differences in {-1, 0, 1}: the number of +1 among the discordant
    # items is Binomial(b + c, 1/2), i.e. the exact McNemar test
    np.testing.assert_array_equal(r.p_value, auto.p_value)
    assert r.exact


def test_sign_test_against_scipy_binomtest():
    rng = np.random.default_rng(6)
    X = rng.integers(0, 11, size=(80, 3)) / 10  # share of 10 samples solved
    r = compare_paired(X, method="sign")
    for k, (i, j) in enumerate(_pairs(r)):
        d = X[:, i] - X[:, j]
        wins, losses = int(np.sum(d > 0)), int(np.sum(d < 0))
        # scipy: binomtest(wins, wins + losses, 0.5)
        assert r.p_value[k] == pytest.approx(stats.binomtest(wins, wins + losses).pvalue, rel=1e-10)
        assert r.statistic[k] == wins


def test_paired_bootstrap_bca_against_scipy_bootstrap(continuous):
    r = compare_paired(continuous[:, :2], method="bootstrap", n_resamples=40000, rng=7)
    d = continuous[:, 0] - continuous[:, 1]
    # scipy: bootstrap((d,), np.mean, method="BCa"); both are Monte Carlo estimates of
    # the same interval, so they agree to Monte Carlo error
    ref = stats.bootstrap(
        (d,), np.mean, method="BCa", n_resamples=40000, rng=np.random.default_rng(8)
    ).confidence_interval
    se = d.std(ddof=1) / np.sqrt(len(d))
    assert r.ci_low[0] == pytest.approx(ref.low, abs=0.05 * se)
    assert r.ci_high[0] == pytest.approx(ref.high, abs=0.05 * se)
    assert r.ci_method == "paired bootstrap BCa"


def test_paired_bootstrap_pvalue_close_to_t_test(continuous):
    # for a mean difference on 60 items the null-shifted bootstrap and the t test agree
    # to within the bootstrap's known small-sample liberalness
    boot = compare_paired(continuous, method="bootstrap", n_resamples=20000, rng=9)
    t = compare_paired(continuous)
    np.testing.assert_allclose(boot.p_value, t.p_value, atol=0.03)


# --------------------------------------------------------------------- unpaired


@pytest.fixture
def samples():
    rng = np.random.default_rng(10)
    return [rng.normal(m, s, size=n) for m, s, n in [(0, 1, 30), (0.3, 2, 45), (0.8, 1, 20)]]


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_welch_against_scipy_ttest_ind(samples, alternative):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneSidedWarning)
        r = compare_unpaired(samples, alternative=alternative)
    assert r.test == "Welch t" and r.effect_size_kind == "Cohen's d"
    for k, (i, j) in enumerate(_pairs(r)):
        # scipy: ttest_ind(x_i, x_j, equal_var=False, alternative=...)
        ref = stats.ttest_ind(samples[i], samples[j], equal_var=False, alternative=alternative)
        assert r.statistic[k] == pytest.approx(ref.statistic, rel=1e-12)
        assert r.p_value[k] == pytest.approx(ref.pvalue, rel=1e-10)
        ci = stats.ttest_ind(samples[i], samples[j], equal_var=False).confidence_interval()
        assert (r.ci_low[k], r.ci_high[k]) == pytest.approx((ci.low, ci.high), rel=1e-10)
        x, y = samples[i], samples[j]
        sp = np.sqrt(
            ((len(x) - 1) * x.var(ddof=1) + (len(y) - 1) * y.var(ddof=1)) / (len(x) + len(y) - 2)
        )
        assert r.effect_size[k] == pytest.approx((x.mean() - y.mean()) / sp, rel=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "larger", "smaller"])
def test_two_proportion_z_against_statsmodels_proportions_ztest(alternative):
    rng = np.random.default_rng(11)
    bs = [(rng.random(n) < p).astype(float) for p, n in [(0.5, 100), (0.6, 120), (0.7, 90)]]
    ours = {"larger": "greater", "smaller": "less"}.get(alternative, alternative)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneSidedWarning)
        r = compare_unpaired(bs, alternative=ours)
    assert r.test == "two-proportion z" and r.effect_size_kind == "Cohen's h"
    for k, (i, j) in enumerate(_pairs(r)):
        # statsmodels: proportions_ztest([k_i, k_j], [n_i, n_j], alternative=...)
        z, p = proportions_ztest(
            [bs[i].sum(), bs[j].sum()], [len(bs[i]), len(bs[j])], alternative=alternative
        )
        assert r.statistic[k] == pytest.approx(z, rel=1e-12)
        assert r.p_value[k] == pytest.approx(p, rel=1e-10)
        h = 2 * np.arcsin(np.sqrt(bs[i].mean())) - 2 * np.arcsin(np.sqrt(bs[j].mean()))
        assert r.effect_size[k] == pytest.approx(h, rel=1e-12)


def _hypergeom_reference(ka, na, kb, nb, alternative):
    # brute force over the support of the label-shuffle distribution
    N, K = na + nb, ka + kb
    x = np.arange(max(0, K - nb), min(K, na) + 1)
    pmf = stats.hypergeom.pmf(x, N, K, na)
    d, obs = x / na - (K - x) / nb, ka / na - kb / nb
    if alternative == "two-sided":
        return pmf[np.abs(d) >= abs(obs) - 1e-12].sum()
    if alternative == "greater":
        return pmf[d >= obs - 1e-12].sum()
    return pmf[d <= obs + 1e-12].sum()


def test_unpaired_permutation_binary_exact_against_enumeration_and_fisher():
    rng = np.random.default_rng(12)
    for _ in range(150):
        na, nb = rng.integers(1, 40, 2)
        ka, kb = rng.integers(0, na + 1), rng.integers(0, nb + 1)
        a = np.r_[np.ones(ka), np.zeros(na - ka)]
        b = np.r_[np.ones(kb), np.zeros(nb - kb)]
        for alternative in ("two-sided", "greater", "less"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = compare_unpaired(
                    [a, b], method="permutation", alternative=alternative, modality="binary"
                )
            assert r.exact
            assert r.p_value[0] == pytest.approx(
                min(1.0, _hypergeom_reference(ka, na, kb, nb, alternative)), rel=1e-9, abs=1e-12
            )
            if alternative == "greater":
                # scipy: fisher_exact(table, alternative="greater") is the same tail
                table = [[ka, na - ka], [kb, nb - kb]]
                assert r.p_value[0] == pytest.approx(
                    stats.fisher_exact(table, alternative="greater").pvalue, rel=1e-9
                )


def test_unpaired_permutation_continuous_exact_against_enumeration():
    rng = np.random.default_rng(13)
    x, y = rng.normal(size=5), rng.normal(0.5, size=6)
    r = compare_unpaired([x, y], method="permutation", n_resamples=10000)
    assert r.exact  # C(11, 5) = 462 splits <= n_resamples
    pooled = np.r_[x, y]
    obs = x.mean() - y.mean()
    null = [
        pooled[list(c)].mean() - np.delete(pooled, list(c)).mean()
        for c in itertools.combinations(range(11), 5)
    ]
    assert r.p_value[0] == np.mean(np.abs(null) >= abs(obs) - 1e-12)


def test_unpaired_permutation_monte_carlo_close_to_scipy():
    rng = np.random.default_rng(14)
    x, y = rng.normal(size=40), rng.normal(0.4, size=50)
    r = compare_unpaired([x, y], method="permutation", n_resamples=20000, rng=15)
    assert not r.exact
    # scipy: permutation_test((x, y), mean difference, permutation_type="independent")
    ref = stats.permutation_test(
        (x, y),
        lambda a, b, axis: a.mean(axis) - b.mean(axis),
        n_resamples=20000,
        vectorized=True,
        rng=np.random.default_rng(16),
    ).pvalue
    assert r.p_value[0] == pytest.approx(ref, abs=4 * np.sqrt(ref * (1 - ref) / 20000) + 1e-3)


def test_unpaired_bootstrap_bca_against_scipy_bootstrap(samples):
    x, y = samples[0], samples[1]
    r = compare_unpaired([x, y], method="bootstrap", n_resamples=40000, rng=17)
    # scipy: bootstrap((x, y), mean difference, method="BCa") (independent resampling)
    ref = stats.bootstrap(
        (x, y),
        lambda a, b, axis: a.mean(axis) - b.mean(axis),
        method="BCa",
        n_resamples=40000,
        vectorized=True,
        rng=np.random.default_rng(18),
    ).confidence_interval
    se = np.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y))
    assert r.ci_low[0] == pytest.approx(ref.low, abs=0.05 * se)
    assert r.ci_high[0] == pytest.approx(ref.high, abs=0.05 * se)


# ------------------------------------------------------------------ published checks


MMLU = {
    "Llama 3 8B": 69.4,
    "GPT-3.5 Turbo": 70.7,
    "Mixtral 8x22B": 76.9,
    "Nemotron-4 340B": 82.6,
    "Llama 3 70B": 83.6,
    "GPT-4 (0125)": 85.1,
    "Llama 3 405B": 87.3,
    "GPT-4o": 89.1,
    "Claude 3.5 Sonnet": 89.9,
}


@pytest.mark.parametrize("method", ["auto", "permutation"])
def test_mmlu_case_reproduces_seed_003_table_1(method):
    # seed 003 §5: reconstructed 0/1 vectors, unpaired, all 36 pairs, Holm; 3 of the 8
    # adjacent-rank pairs are not significant at 0.05
    n = 14042
    names = list(MMLU)
    samples = [
        np.r_[np.ones(round(a / 100 * n)), np.zeros(n - round(a / 100 * n))] for a in MMLU.values()
    ]
    r = compare_unpaired(samples, systems=names, method=method, correction="holm")
    assert r.n_pairs == 36
    adjusted = {(names[i], names[j]): r.p_adjusted[k] for k, (i, j) in enumerate(_pairs(r))}
    not_significant = [
        (names[i], names[i + 1]) for i in range(8) if adjusted[(names[i], names[i + 1])] > 0.05
    ]
    assert not_significant == [
        ("Llama 3 8B", "GPT-3.5 Turbo"),
        ("Nemotron-4 340B", "Llama 3 70B"),
        ("GPT-4o", "Claude 3.5 Sonnet"),
    ]
    # statsmodels: the Holm step applied to our raw p-values
    np.testing.assert_allclose(r.p_adjusted, multipletests(r.p_value, method="holm")[1])


def _p5_min_reference(matrix):
    # independent: a plain loop over pairs with scipy.stats.binomtest
    best = None
    for i, j in itertools.combinations(range(matrix.shape[1]), 2):
        b = int(np.sum((matrix[:, i] == 1) & (matrix[:, j] == 0)))
        c = int(np.sum((matrix[:, i] == 0) & (matrix[:, j] == 1)))
        if b + c and stats.binomtest(b, b + c).pvalue < 0.05:
            best = abs(b - c) if best is None else min(best, abs(b - c))
    return best


@pytest.mark.parametrize("name", ["humaneval+.jsonl", "mbpp+.jsonl"])
def test_p5_min_on_eval_arena(shared_data, name):
    from reportgen.data import load

    table = load(shared_data / "eval-arena" / name)
    dataset = table.datasets[0]
    view = table.paired(dataset, "pass1")
    r = compare_paired(view.scores, systems=view.systems, correction="none")
    gaps = np.abs(r.a_only - r.b_only)[r.p_value < 0.05]
    assert gaps.min() == _p5_min_reference(view.scores)
    if name == "humaneval+.jsonl":
        # published (seed 002 / ../shared/data/README.md): 11 items = 6.7%
        assert gaps.min() == 11 and round(100 * gaps.min() / view.n_items, 1) == 6.7


def test_ibm_rag_paired_t_holm_sidak_against_scipy_statsmodels(shared_data):
    from reportgen.data import load

    table = load(shared_data / "ibm-rag")
    for metric in ("precision", "recall", "sbert"):
        view = table.paired("ibm-rag", metric)
        r = compare_paired(view.scores, systems=view.systems)
        # scipy ttest_rel per pair, then statsmodels multipletests(method="holm-sidak")
        raw = np.array(
            [stats.ttest_rel(view.scores[:, i], view.scores[:, j]).pvalue for i, j in _pairs(r)]
        )
        np.testing.assert_allclose(r.p_value, raw, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(
            r.p_adjusted, multipletests(raw, method="holm-sidak")[1], rtol=1e-10, atol=1e-14
        )


# ------------------------------------------------------------------ size under H0


def _rejection_rate(kind, n, trials, rng):
    rejections = 0
    for _ in range(trials):
        if kind == "paired-continuous":
            x = rng.standard_t(3, size=(n, 1)) + rng.standard_t(3, size=(n, 2))
            r = compare_paired(x)
        elif kind == "paired-binary":
            latent = rng.normal(size=(n, 1))
            x = (latent + rng.normal(size=(n, 2)) > 0).astype(float)
            r = compare_paired(x, modality="binary")
        elif kind == "unpaired-continuous":
            r = compare_unpaired([rng.exponential(size=n), rng.exponential(size=n + 7)])
        else:
            r = compare_unpaired(
                [(rng.random(n) < 0.3).astype(float), (rng.random(n + 7) < 0.3).astype(float)],
                modality="binary",
            )
        rejections += bool(r.p_value[0] <= 0.05)
    return rejections / trials


@pytest.mark.parametrize(
    "kind", ["paired-continuous", "paired-binary", "unpaired-continuous", "unpaired-binary"]
)
def test_size_under_null_simulation(kind):
    # simulation: under H0 the rejection rate at alpha = 0.05 is within Monte Carlo error
    # (exact McNemar is conservative by construction, so only an upper bound there)
    trials = 1500
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        rate = _rejection_rate(kind, 60, trials, np.random.default_rng(19))
    se = np.sqrt(0.05 * 0.95 / trials)
    assert rate <= 0.05 + 3.5 * se
    if kind != "paired-binary":
        assert rate >= 0.05 - 3.5 * se


@pytest.mark.slow
@pytest.mark.parametrize(
    "kind", ["paired-continuous", "paired-binary", "unpaired-continuous", "unpaired-binary"]
)
@pytest.mark.parametrize("n", [10, 30, 200])
def test_size_under_null_simulation_large(kind, n):
    trials = 10000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        rate = _rejection_rate(kind, n, trials, np.random.default_rng(n))
    se = np.sqrt(0.05 * 0.95 / trials)
    assert rate <= 0.05 + 4 * se + (0.01 if n == 10 else 0)


# ------------------------------------------------------------------ degenerate data


def test_paired_degenerate_identical_and_constant_difference():
    X = np.array([[1.0, 1.0, 2.0], [2.0, 2.0, 3.0], [3.0, 3.0, 4.0]])
    with pytest.warns(DegenerateDataWarning, match="zero variance"):
        r = compare_paired(X)
    by_pair = dict(zip(_pairs(r), range(r.n_pairs)))
    same = by_pair[(0, 1)]
    assert r.p_value[same] == 1.0 and np.isnan(r.statistic[same])
    assert r.effect_size[same] == 0.0
    shift = by_pair[(0, 2)]
    # brute force: all 2^3 sign vectors of the differences (-1, -1, -1); two reach |sum| 3
    flips = np.array(list(itertools.product([-1, 1], repeat=3)))
    exact = np.mean(np.abs(flips @ np.full(3, -1.0)) >= 3)
    assert r.p_value[shift] == exact == 0.25 and r.statistic[shift] == -np.inf
    # issue 41: its interval is the exact sign-flip one, not the point -1: with 3 items
    # no shift is rejected at 95% (2/2^3 > 0.05), so it is unbounded
    assert np.isnan(r.ci_low[shift]) and np.isnan(r.ci_high[shift])
    assert r.test_of(shift) == "paired sign-flip permutation (exact)"


def test_paired_fewer_than_two_items():
    with pytest.warns(DegenerateDataWarning, match="1 item"):
        r = compare_paired(np.array([[1.0, 0.0]]), modality="continuous")
    assert np.isnan(r.p_value).all() and np.isnan(r.p_adjusted).all()
    # an exact test is defined on one item: one discordant item gives p = 1
    r = compare_paired(np.array([[1.0, 0.0]]))
    assert r.p_value[0] == 1.0


def test_unpaired_degenerate_all_zero_and_constant():
    with pytest.warns(DegenerateDataWarning, match="all 0 or all 1"):
        r = compare_unpaired([np.zeros(10), np.zeros(12)], modality="binary")
    assert r.p_value[0] == 1.0 and np.isnan(r.statistic[0])
    with pytest.warns(DegenerateDataWarning, match="zero variance"):
        r = compare_unpaired([np.full(5, 2.0), np.full(6, 2.0)])
    assert r.p_value[0] == 1.0
    with pytest.warns(DegenerateDataWarning, match="fewer than 2 item"):
        r = compare_unpaired([np.array([1.0]), np.array([1.0, 2.0, 3.0])])
    assert np.isnan(r.p_value[0])


# ------------------------------------------------------------------ options


def test_comparison_orders():
    assert [tuple(x) for x in zip(*comparison_pairs(4, "all-pairs"))] == [
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 2),
        (1, 3),
        (2, 3),
    ]
    assert [tuple(x) for x in zip(*comparison_pairs(4, "first-vs-rest"))] == [
        (0, 1),
        (0, 2),
        (0, 3),
    ]
    assert [tuple(x) for x in zip(*comparison_pairs(4, "successive"))] == [(0, 1), (1, 2), (2, 3)]


def test_baseline_by_name_and_one_sided_warning(continuous):
    with pytest.warns(OneSidedWarning, match="fixed before looking at the data"):
        r = compare_paired(
            continuous,
            systems=list("ABCD"),
            order="first-vs-rest",
            baseline="C",
            alternative="greater",
        )
    assert r.system_a == ("C", "C", "C") and r.system_b == ("A", "B", "D")


def test_records_and_effect_labels(binary):
    r = compare_paired(binary, systems=list("ABCDE"), effect_threshold="small")
    rows = r.to_records()
    assert len(rows) == 10 and rows[0]["system_a"] == "A"
    assert {"a_only", "b_only", "p_adjusted", "effect_size_kind", "ci_method"} <= set(rows[0])
    assert list(effect_magnitude(np.array([0.1, -0.3, 0.6, 1.2, np.nan]))) == [
        "negligible",
        "small",
        "medium",
        "large",
        "",
    ]
    np.testing.assert_array_equal(r.effect_significant(), np.abs(r.effect_size) >= 0.2)


def test_compare_input_validation(continuous):
    with pytest.raises(InputError, match=r"(?s)method='fast' is not valid.*permutation"):
        compare_paired(continuous, method="fast")
    with pytest.raises(InputError, match="scores contain NaN"):
        compare_paired(np.array([[1.0, np.nan], [2.0, 3.0]]))
    with pytest.raises(InputError, match="at least 2 systems"):
        compare_paired(np.ones((5, 1)))
    with pytest.raises(InputError, match="items × systems matrix"):
        compare_paired(np.ones(5))
    with pytest.raises(InputError, match="modality='binary' but the scores are not all 0"):
        compare_paired(continuous, modality="binary")
    with pytest.raises(InputError, match="n_resamples=0 must be a positive integer"):
        compare_paired(continuous, method="permutation", n_resamples=0)
    with pytest.raises(InputError, match="alpha=1.5 must be between 0 and 1"):
        compare_paired(continuous, alpha=1.5)
    with pytest.raises(InputError, match="unknown baseline system 'Z'"):
        compare_paired(continuous, systems=list("ABCD"), order="first-vs-rest", baseline="Z")
    with pytest.raises(InputError, match="method='sign' needs paired data"):
        compare_unpaired([np.ones(3), np.zeros(3)], method="sign")


def test_memory_bound_gives_the_same_answer(continuous):
    # chunking changes nothing: tiny max_memory forces many chunks
    big = compare_paired(continuous, method="permutation", n_resamples=3000, rng=20)
    small = compare_paired(
        continuous, method="permutation", n_resamples=3000, rng=20, max_memory=2**20
    )
    np.testing.assert_array_equal(big.p_value, small.p_value)


def test_same_seed_same_numbers(continuous):
    a = compare_paired(continuous, method="bootstrap", n_resamples=2000, rng=21)
    b = compare_paired(continuous, method="bootstrap", n_resamples=2000, rng=21)
    np.testing.assert_array_equal(a.p_value, b.p_value)
    np.testing.assert_array_equal(a.ci_low, b.ci_low)


def test_column_nanquantiles_against_numpy_nanquantile():
    # reference: np.nanquantile(M, q, axis=0), bit for bit, with columns free of NaN,
    # with some NaN, all NaN, and constant
    from reportgen.stats._pair_checks import _column_nanquantiles

    rng = np.random.default_rng(8)
    for nan_share in (0.0, 0.0002, 0.01):
        M = rng.standard_t(3, size=(499, 700))
        M[rng.random(M.shape) < nan_share] = np.nan
        M[:, 7] = 1.0
        if nan_share:
            M[:, 5] = np.nan
        q = [0.025, 0.975]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the all-NaN column
            expected = np.nanquantile(M, q, axis=0)
            got = _column_nanquantiles(M, q)
        np.testing.assert_array_equal(got, expected)
