"""The noise profile (eval-arena, seed 002) against the published figures, a plain loop
over pairs with scipy.stats.binomtest, brute-force enumeration of the sign test,
closed forms, eval-arena's own estimator formulas, and simulations of unbiasedness."""

from __future__ import annotations

import doctest
import functools
import itertools
import json
import math
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar

from reportgen.errors import DataWarning, DegenerateDataWarning, InputError
from reportgen.stats import noise as noise_module
from reportgen.stats.noise import (
    BOUNDARY_ALPHAS,
    noise_profile,
    prediction_noise,
    sign_test_boundary,
    signal_to_noise,
)

EVAL_ARENA = ("humaneval+", "mbpp+", "lcb_codegen", "cruxeval_output", "terminal-bench-2.0")


@functools.cache
def _view(path: str):
    from reportgen.data import load

    table = load(path)
    view = table.paired(table.datasets[0], "pass1")
    counts = None
    if "count" in table.system_attributes.columns:
        counts = table.system_attributes.loc[list(view.systems), "count"].to_numpy()
    return view, counts


@pytest.fixture
def arena(shared_data: Path):
    return lambda name: _view(str(shared_data / "eval-arena" / f"{name}.jsonl"))


@pytest.fixture
def arena_reference(shared_data: Path):
    return lambda name: _loop_reference_cached(str(shared_data / "eval-arena" / f"{name}.jsonl"))


@functools.cache
def _loop_reference_cached(path: str) -> dict:
    return _loop_reference(_view(path)[0].scores)


def _loop_reference(X: np.ndarray) -> dict:
    """Independent: a plain Python loop over pairs, wins/losses counted on explicit
    differences, p from scipy.stats.binomtest, p5 from the loop's own lists."""
    n, s = X.shape
    rows = []
    for i, j in itertools.combinations(range(s), 2):
        d = X[:, i] - X[:, j]
        wins, losses = int(np.sum(d > 1e-9)), int(np.sum(d < -1e-9))
        # scipy: binomtest(wins, wins + losses, 0.5) (two-sided exact sign test)
        p = stats.binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else 1.0
        rows.append((i, j, wins, losses, p, abs(d.sum()), np.std(d) / math.sqrt(n)))
    sig = [r[5] for r in rows if r[4] < 0.05]
    non = [r[5] for r in rows if r[4] >= 0.05]
    return {
        "rows": rows,
        "p5_min_items": min(sig) if sig else math.nan,
        "p5_max_items": max(non) if non else math.nan,
    }


# ------------------------------------------------------------------- p5 and the test


@pytest.mark.parametrize(
    "name, p5_min, p5_min_pct, p5_max, p5_max_pct",
    [
        ("humaneval+", 11, 6.71, 16, 9.76),
        ("mbpp+", 16, 4.23, 21, 5.56),
    ],
)
def test_noise_profile_p5_against_published_eval_arena_figures(
    arena, arena_reference, name, p5_min, p5_min_pct, p5_max, p5_max_pct
):
    # reference: issue 4 / seed 002 (eval-arena summary table, p5_min / p5_max columns)
    view, _ = arena(name)
    prof = noise_profile(view.scores, systems=view.systems)
    assert prof.modality == "binary"
    assert (prof.p5_min_items, prof.p5_max_items) == (p5_min, p5_max)
    assert round(100 * prof.p5_min, 2) == p5_min_pct
    assert round(100 * prof.p5_max, 2) == p5_max_pct
    ref = arena_reference(name)
    assert (prof.p5_min_items, prof.p5_max_items) == (ref["p5_min_items"], ref["p5_max_items"])
    # the methods generalise p5 to other levels; at 0.05 they are p5 itself
    assert prof.min_significant_diff(0.05) == prof.p5_min
    assert prof.max_nonsignificant_diff(0.05) == prof.p5_max


@pytest.mark.parametrize("name", EVAL_ARENA)
def test_noise_profile_against_scipy_binomtest_loop(arena, arena_reference, name):
    view, _ = arena(name)
    X = view.scores
    prof = noise_profile(X, systems=view.systems)
    ref = arena_reference(name)
    assert prof.n_pairs == len(ref["rows"]) == X.shape[1] * (X.shape[1] - 1) // 2
    for k, (i, j, wins, losses, p, abs_items, se) in enumerate(ref["rows"]):
        assert (prof.index_a[k], prof.index_b[k]) == (i, j)
        assert (prof.a_wins[k], prof.b_wins[k]) == (wins, losses)
        assert prof.p_value[k] == pytest.approx(p, rel=1e-9, abs=1e-300)
        assert prof.abs_diff_items[k] == pytest.approx(abs_items, abs=1e-9)
        assert prof.se_diff[k] == pytest.approx(se, rel=1e-9, abs=1e-15)
    assert prof.p5_min_items == pytest.approx(ref["p5_min_items"], abs=1e-9)
    assert prof.p5_max_items == pytest.approx(ref["p5_max_items"], abs=1e-9)
    assert prof.p5_min == pytest.approx(ref["p5_min_items"] / X.shape[0], rel=1e-12)
    expected_test = "McNemar" if name in ("humaneval+", "mbpp+") else "sign test"
    assert expected_test in prof.test


def test_noise_profile_binary_equals_exact_mcnemar_statsmodels(arena):
    view, _ = arena("humaneval+")
    X = view.scores
    prof = noise_profile(X)
    for k in range(0, prof.n_pairs, 97):
        a, b = X[:, prof.index_a[k]], X[:, prof.index_b[k]]
        table = [
            [np.sum((a == 1) & (b == 1)), np.sum((a == 1) & (b == 0))],
            [np.sum((a == 0) & (b == 1)), np.sum((a == 0) & (b == 0))],
        ]
        # statsmodels: mcnemar(table, exact=True)
        assert prof.p_value[k] == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-10)


def test_sign_test_boundary_against_scipy_binomtest_enumeration():
    totals = np.arange(0, 81)
    # brute force: every split (a, m - a) with a <= m/2 (the test is symmetric),
    # scipy binomtest(a, m).pvalue
    pvalues = {
        m: [(m - 2 * a, stats.binomtest(a, m, 0.5).pvalue) for a in range(m // 2 + 1)]
        for m in totals
        if m
    }
    for alpha in BOUNDARY_ALPHAS:
        got = sign_test_boundary(totals, alpha=alpha)
        assert math.isnan(got[0])
        for m in totals[1:]:
            ok = [d for d, p in pvalues[m] if p < alpha]
            expected = min(ok) if ok else math.nan
            assert (math.isnan(got[m]) and math.isnan(expected)) or got[m] == expected, (alpha, m)


def test_sign_test_boundary_large_totals_against_scipy_binomtest():
    totals = np.array([500, 1001, 4000, 20000])
    for alpha in (0.01, 0.05, 0.2):
        for m, d in zip(totals, sign_test_boundary(totals, alpha=alpha)):
            a = int((m + d) // 2)
            # scipy: the boundary is significant, two fewer is not
            assert stats.binomtest(a, int(m)).pvalue < alpha
            assert stats.binomtest(a - 1, int(m)).pvalue >= alpha


def test_noise_profile_boundaries_against_sign_test_boundary(arena):
    view, _ = arena("humaneval+")
    prof = noise_profile(view.scores, boundary_alphas=(0.05, 0.2))
    assert prof.boundary_alphas == (0.05, 0.2)
    np.testing.assert_array_equal(prof.boundary_totals, np.arange(165))
    # every observed pair is on the side of the 0.05 curve its p-value says
    curve = prof.boundary_abs_diff[0]
    total = prof.a_wins + prof.b_wins
    margin = np.abs(prof.a_wins - prof.b_wins)
    sig = prof.p_value < 0.05
    assert np.all(margin[sig] >= curve[total[sig]])
    assert np.all(~(margin[~sig] >= curve[total[~sig]]))
    recs = prof.boundary_records()
    assert len(recs) == 2 * 165 and recs[0] == {
        "alpha": 0.05,
        "sum_wins": 0,
        "min_abs_diff_wins": None,
    }


# ------------------------------------------------------------------- SEs and null SD


def test_noise_profile_se_against_closed_form(arena):
    view, _ = arena("mbpp+")
    X = view.scores
    n = X.shape[0]
    prof = noise_profile(X)
    acc = X.mean(axis=0)
    # closed form: SE(A) = sqrt(p(1 - p)/n)
    np.testing.assert_allclose(prof.se_system, np.sqrt(acc * (1 - acc) / n), rtol=1e-12)
    b = np.array(
        [np.sum((X[:, i] == 1) & (X[:, j] == 0)) for i, j in zip(prof.index_a, prof.index_b)],
        dtype=float,
    )
    c = np.array(
        [np.sum((X[:, i] == 0) & (X[:, j] == 1)) for i, j in zip(prof.index_a, prof.index_b)],
        dtype=float,
    )
    # closed form: SE of the mean per-item difference sqrt(b + c - (b - c)^2/n) / n
    np.testing.assert_allclose(prof.se_diff, np.sqrt(b + c - (b - c) ** 2 / n) / n, rtol=1e-10)
    # close pairs: |diff| <= p5_max; medians by hand over them
    close = np.abs(b - c) <= prof.p5_max_items
    np.testing.assert_array_equal(prof.close, close)
    assert prof.se_diff_median == pytest.approx(
        np.median(np.sqrt(b + c - (b - c) ** 2 / n)[close] / n), rel=1e-12
    )
    both = np.concatenate([prof.index_a[close], prof.index_b[close]])
    assert prof.se_system_median == pytest.approx(
        np.median(np.sqrt(acc[both] * (1 - acc[both]) / n)), rel=1e-12
    )


def test_noise_profile_null_sd_against_seed_formula(arena):
    view, _ = arena("humaneval+")
    prof = noise_profile(view.scores)
    # seed 002: std(A) = p5 / (sqrt(2) * 1.96)
    assert prof.null_sd == pytest.approx((11 / 164) / (math.sqrt(2) * 1.96), rel=1e-12)
    assert prof.null_sd_items == pytest.approx(11 / (math.sqrt(2) * 1.96), rel=1e-12)
    # the implied null SD is the same order as the SE of one system near 50 %
    assert 0.5 * prof.se_system_median < prof.null_sd < 1.5 * prof.se_system_median


# ------------------------------------------------------------------- prediction noise


def _simulate_shares(rng, p, k, reps):
    # R replicate "systems" on the same items: shares of k Bernoulli(p_i) samples
    return rng.binomial(k, p[:, None], size=(len(p), reps)) / k


@pytest.mark.parametrize("k", [2, 5])
def test_prediction_noise_against_simulation_unbiased(k):
    # reference: simulation with known item probabilities; truth from the law of total
    # variance: prediction = sum p(1-p)/(k n^2), data = var(p, ddof=1)/n
    rng = np.random.default_rng(12)
    n, reps = 30, 20000
    p = rng.beta(0.7, 0.7, n)
    r = prediction_noise(_simulate_shares(rng, p, k, reps), counts=k)
    truth_pred = np.sum(p * (1 - p)) / (k * n * n)
    truth_data = np.var(p, ddof=1) / n
    for est, truth in (
        (r.prediction_var, truth_pred),
        (r.data_var, truth_data),
        (r.total_var, truth_pred + truth_data),
    ):
        mc_se = est.std(ddof=1) / math.sqrt(reps)
        assert abs(est.mean() - truth) < 4 * mc_se, (est.mean(), truth, mc_se)
    np.testing.assert_allclose(r.data_var + r.prediction_var, r.total_var, rtol=1e-12, atol=1e-18)
    # power: the plug-in x(1-x)/k without the small-k correction is detectably biased
    X = _simulate_shares(rng, p, k, reps)
    plug_in = np.sum(X * (1 - X), axis=0) / (k * n * n)
    assert abs(plug_in.mean() - truth_pred) > 4 * plug_in.std(ddof=1) / math.sqrt(reps)


def test_prediction_noise_runs_axis_against_simulation_unbiased():
    # continuous runs: item score = mu_i + N(0, sd_i^2) per run, k = 3 runs
    rng = np.random.default_rng(5)
    n, reps, k = 25, 20000, 3
    mu, sd = rng.normal(size=n), rng.uniform(0.2, 1.5, n)
    runs = mu[:, None, None] + sd[:, None, None] * rng.normal(size=(n, reps, k))
    r = prediction_noise(runs)
    truth = np.sum(sd**2) / (k * n * n)
    mc_se = r.prediction_var.std(ddof=1) / math.sqrt(reps)
    assert abs(r.prediction_var.mean() - truth) < 4 * mc_se
    truth_data = np.var(mu, ddof=1) / n
    mc_se = r.data_var.std(ddof=1) / math.sqrt(reps)
    assert abs(r.data_var.mean() - truth_data) < 4 * mc_se
    assert (r.samples == k).all()


@pytest.mark.slow
@pytest.mark.parametrize("k", [2, 3, 10])
def test_prediction_noise_against_simulation_unbiased_large(k):
    rng = np.random.default_rng(99)
    n, reps = 60, 400000
    p = rng.beta(0.5, 0.8, n)
    truth_pred = np.sum(p * (1 - p)) / (k * n * n)
    truth_data = np.var(p, ddof=1) / n
    est_p, est_d = [], []
    for _ in range(4):
        r = prediction_noise(_simulate_shares(rng, p, k, reps // 4), counts=k)
        est_p.append(r.prediction_var)
        est_d.append(r.data_var)
    for est, truth in ((np.concatenate(est_p), truth_pred), (np.concatenate(est_d), truth_data)):
        assert abs(est.mean() - truth) < 4 * est.std(ddof=1) / math.sqrt(reps)


def test_prediction_noise_against_eval_arena_estimator(arena):
    view, counts = arena("terminal-bench-2.0")
    X = view.scores
    n = X.shape[0]
    with pytest.warns(DegenerateDataWarning, match="single sample"):
        r = prediction_noise(X, counts, systems=view.systems)
    for s, k in enumerate(counts):
        # per-sample matrix: round(x k) passes out of k
        A = (np.arange(k)[None, :] < np.rint(X[:, s] * k)[:, None]).astype(float)
        assert r.total_var[s] == pytest.approx(np.var(X[:, s], ddof=1) / n, rel=1e-12)
        if k < 2:
            assert math.isnan(r.prediction_var[s]) and math.isnan(r.data_var[s])
            continue
        # eval-arena estimators.Single.from_samples_unbiasedK:
        #   E_var = mean(var(A, axis=1)) * (1 + 1/(k-1))   (variance of one sample)
        e_var = np.mean(np.var(A, axis=1)) * (1 + 1 / (k - 1))
        assert r.prediction_var[s] == pytest.approx(e_var / (k * n), rel=1e-12)
        # the runs-axis path on the same samples gives the same split
        runs = prediction_noise(A[:, None, :])
        assert runs.prediction_var[0] == pytest.approx(r.prediction_var[s], rel=1e-12)
        assert runs.data_var[0] == pytest.approx(r.data_var[s], rel=1e-12)


def test_noise_profile_terminal_bench_reports_both_components(arena):
    view, counts = arena("terminal-bench-2.0")
    with pytest.warns(DegenerateDataWarning, match="single sample"):
        prof = noise_profile(view.scores, systems=view.systems, counts=counts)
    pn = prof.prediction
    assert pn is not None and pn.n_systems_split == int(np.sum(counts >= 2)) == 4
    split = counts >= 2
    assert np.all(pn.prediction_var[split] >= 0)
    # three of them answer differently across their 5 samples on some item
    assert np.count_nonzero(pn.prediction_var[split] > 0) == 3
    np.testing.assert_allclose(
        pn.data_var[split] + pn.prediction_var[split], pn.total_var[split], rtol=1e-12
    )
    d = prof.to_dict()
    summary = d["prediction_noise"]
    assert summary["n_systems_split"] == 4
    for key in ("median_se_total", "median_se_data", "median_se_prediction"):
        assert summary[key] is not None and summary[key] > 0
    for rec in summary["systems"]:
        if rec["samples"] >= 2:
            assert rec["data_var"] + rec["prediction_var"] == pytest.approx(
                rec["total_var"], rel=1e-12
            )
        else:
            assert rec["prediction_var"] is None and rec["data_var"] is None
    json.dumps(d, allow_nan=False)


# ------------------------------------------------------------------- signal to noise


def test_signal_to_noise_against_closed_form():
    # two systems, b = 20 items only the 70B solves, c = 10 only the 7B, 70 both
    x = np.array([[1, 0]] * 20 + [[0, 1]] * 10 + [[1, 1]] * 70, dtype=float)
    fam = {"m-7b": ("m", 7), "m-70b": ("m", 70)}
    r = signal_to_noise(x, fam, systems=["m-70b", "m-7b"])
    # closed form: (b - c)/n / (sqrt(b + c - (b - c)^2/n)/n) / log2(70/7)
    assert r.n_pairs == 1
    assert r.snr[0] == pytest.approx(10 / math.sqrt(29) / math.log2(10), rel=1e-12)
    assert r.median_snr == r.snr[0]
    # eval-arena signal_noise.py: sum(A-B) / sqrt(sum(A!=B)) / logsize
    r2 = signal_to_noise(x, fam, systems=["m-70b", "m-7b"], se="sign-test")
    assert r2.snr[0] == pytest.approx(10 / math.sqrt(30) / math.log2(10), rel=1e-12)
    rec = r.to_records()[0]
    assert (rec["system_a"], rec["system_b"], rec["size_a"], rec["size_b"]) == (
        "m-70b",
        "m-7b",
        70.0,
        7.0,
    )
    assert rec["snr_per_sqrt_n"] == pytest.approx(rec["snr"] / 10, rel=1e-12)


def test_signal_to_noise_families_against_closed_form():
    rng = np.random.default_rng(3)
    n = 300
    X = (rng.random((n, 5)) < [0.3, 0.45, 0.6, 0.5, 0.4]).astype(float)
    names = ["a-1b", "a-3b", "a-9b", "other-7b", "loner"]
    fam = {
        "a-1b": ("a", 1),
        "a-3b": ("a", 3),
        "a-9b": ("a", 9),
        "other-7b": ("b", 7),
        "not-in-data": ("a", 5),
    }
    r = signal_to_noise(X, fam, systems=names)
    assert r.n_pairs == 3 and set(r.family) == {"a"}
    expected = {}
    for big, small in (("a-3b", "a-1b"), ("a-9b", "a-1b"), ("a-9b", "a-3b")):
        i, j = names.index(big), names.index(small)
        b = np.sum((X[:, i] == 1) & (X[:, j] == 0))
        c = np.sum((X[:, i] == 0) & (X[:, j] == 1))
        # closed form with the discordant counts
        expected[(big, small)] = (
            ((b - c) / n)
            / (math.sqrt(b + c - (b - c) ** 2 / n) / n)
            / math.log2(fam[big][1] / fam[small][1])
        )
    got = {(rec["system_a"], rec["system_b"]): rec["snr"] for rec in r.to_records()}
    assert got.keys() == expected.keys()
    for key in expected:
        assert got[key] == pytest.approx(expected[key], rel=1e-10)
    assert r.median_snr == pytest.approx(np.median(list(expected.values())), rel=1e-10)
    # through the profile
    prof = noise_profile(X, systems=names, families=fam)
    assert prof.signal_to_noise is not None
    assert prof.to_dict()["signal_to_noise"]["median_snr"] == pytest.approx(r.median_snr)


# ------------------------------------------------------------------- result object, speed


def test_noise_profile_to_dict_json_ready(arena):
    view, _ = arena("humaneval+")
    prof = noise_profile(view.scores, systems=view.systems)
    d = prof.to_dict()
    assert "pairs" not in d and "boundaries" not in d
    assert (d["n_items"], d["n_systems"], d["n_pairs"]) == (164, 49, 1176)
    assert d["prediction_noise"] is None and d["signal_to_noise"] is None
    json.dumps(d, allow_nan=False)
    full = prof.to_dict(include_figure_data=True)
    assert len(full["pairs"]) == 1176 and len(full["boundaries"]) == 3 * 165
    json.dumps(full, allow_nan=False)
    rec = full["pairs"][0]
    assert rec["sum_wins"] == rec["a_wins"] + rec["b_wins"]
    assert rec["abs_diff_wins"] == abs(rec["a_wins"] - rec["b_wins"])
    assert rec["abs_diff_items"] == pytest.approx(rec["abs_diff_wins"])  # binary
    with pytest.raises(AttributeError):
        prof.p5_min = 0.0  # frozen


def test_noise_profile_speed_mbpp_plus(arena):
    view, _ = arena("mbpp+")
    best = math.inf
    for _ in range(3):
        t0 = time.perf_counter()
        prof = noise_profile(view.scores, systems=view.systems)
        best = min(best, time.perf_counter() - t0)
    assert prof.n_pairs == 59 * 58 // 2
    assert best < 0.5, f"all pairs of mbpp+ took {best:.3f} s"


def test_noise_doctests():
    # the Examples sections run as doctests
    result = doctest.testmod(noise_module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# ------------------------------------------------------------------- validation, edges


def test_noise_profile_input_validation():
    x = np.array([[1, 0], [0, 1], [1, 1]], dtype=float)
    with pytest.raises(InputError, match="items × systems"):
        noise_profile(np.ones(5))
    with pytest.raises(InputError, match="NaN"):
        noise_profile(np.array([[1, np.nan], [0, 1]]))
    with pytest.raises(InputError, match="at least 2 systems"):
        noise_profile(np.ones((4, 1)))
    with pytest.raises(InputError, match="no items"):
        noise_profile(np.ones((0, 3)))
    with pytest.raises(InputError, match="2 system names for 3"):
        noise_profile(np.ones((4, 3)), systems=["a", "b"])
    with pytest.raises(InputError, match="distinct"):
        noise_profile(x, systems=["a", "a"])
    with pytest.raises(InputError, match="counts has shape"):
        noise_profile(x, counts=[1, 2, 3])
    with pytest.raises(InputError, match="positive integers"):
        noise_profile(x, counts=2.5)
    with pytest.raises(InputError, match="positive integers"):
        noise_profile(x, counts=0)
    with pytest.raises(InputError, match="not a share"):
        noise_profile(np.array([[0.5, 0.2], [0.0, 1.0]]), counts=3)
    with pytest.raises(InputError, match="in \\[0, 1\\]"):
        noise_profile(np.array([[1.5, 0.0], [0.0, 1.0]]), counts=2)
    with pytest.raises(InputError, match="drop counts"):
        noise_profile(np.ones((3, 2, 2)), counts=2)
    with pytest.raises(InputError, match="no run"):
        noise_profile(np.full((3, 2, 2), np.nan))
    with pytest.raises(InputError, match="boundary_alphas"):
        noise_profile(x, boundary_alphas=(0.05, 1.0))
    with pytest.raises(InputError, match="snr_se='z'"):
        noise_profile(x, snr_se="z")
    with pytest.raises(InputError, match="mapping"):
        noise_profile(x, families=[("a", 1)])
    with pytest.raises(InputError, match="not \\(family, size\\)"):
        noise_profile(x, systems=["a", "b"], families={"a": "llama"})
    with pytest.raises(InputError, match="must be positive"):
        noise_profile(x, systems=["a", "b"], families={"a": ("f", -7)})
    with pytest.raises(InputError, match="max_memory"):
        noise_profile(x, max_memory=10)
    with pytest.raises(InputError, match="needs the number of samples"):
        prediction_noise(x)
    with pytest.raises(InputError, match="se='z'"):
        signal_to_noise(x, {}, se="z")
    with pytest.raises(InputError, match="alpha=1.5"):
        sign_test_boundary([10], alpha=1.5)
    with pytest.raises(InputError, match="non-negative integers"):
        sign_test_boundary([-1, 3])


def test_noise_profile_edge_cases():
    # identical systems: no wins either way, p = 1, SE 0, no significant pair
    same = np.tile(np.array([[1.0], [0.0], [1.0]]), (1, 3))
    prof = noise_profile(same)
    assert np.all(prof.p_value == 1) and np.all(prof.se_diff == 0)
    assert math.isnan(prof.p5_min) and prof.p5_max == 0.0 and math.isnan(prof.null_sd)
    assert prof.to_dict()["p5_min"] is None

    # every pair significant: the close pairs fall back to the closest 20 %
    n = 200
    X = np.zeros((n, 6))
    for s in range(6):
        X[: 30 * s, s] = 1.0
    prof = noise_profile(X)
    assert np.all(prof.p_value < 0.05) and math.isnan(prof.p5_max)
    assert "20%" in prof.close_rule and prof.close.sum() == math.ceil(0.2 * 15)
    assert np.all(prof.abs_diff_items[prof.close] <= prof.abs_diff_items[~prof.close].min())

    # one item: defined p-values, zero SEs
    prof = noise_profile(np.array([[1.0, 0.0, 1.0]]))
    assert prof.n_items == 1 and prof.p_value.tolist() == [1.0, 1.0, 1.0]

    # float noise in shares: 0.1 + 0.2 and 0.3 are one level (a tie, not a win)
    Y = np.array([[0.3, 0.1 + 0.2], [0.7, 0.2], [0.0, 0.5]])
    prof = noise_profile(Y)
    assert (prof.a_wins[0], prof.b_wins[0]) == (1, 1)

    # many distinct levels (> 64): pairwise path, same counts as the loop
    rng = np.random.default_rng(8)
    Z = rng.normal(size=(90, 5))
    prof = noise_profile(Z)
    for k, (_i, _j, wins, losses, p, _, _se) in enumerate(_loop_reference(Z)["rows"]):
        assert (prof.a_wins[k], prof.b_wins[k]) == (wins, losses)
        assert prof.p_value[k] == pytest.approx(p, rel=1e-9)
    # and a small max_memory gives the same answer
    small = noise_profile(Z, max_memory=2**20)
    np.testing.assert_array_equal(small.a_wins, prof.a_wins)

    # a runs axis is averaged for the pair statistics
    runs = rng.integers(0, 2, size=(40, 3, 4)).astype(float)
    prof_runs = noise_profile(runs)
    prof_mean = noise_profile(runs.mean(axis=2))
    np.testing.assert_array_equal(prof_runs.p_value, prof_mean.p_value)
    assert prof_runs.prediction is not None and prof_mean.prediction is None


def test_prediction_noise_and_signal_to_noise_edge_cases():
    with pytest.warns(DegenerateDataWarning, match="fewer than 2 items"):
        r = prediction_noise(np.array([[0.4, 0.6]]), counts=5)
    assert np.isnan(r.total_var).all() and r.to_records()[0]["total_var"] is None
    # deterministic answers: no prediction noise
    r = prediction_noise(np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]]), counts=4)
    assert np.all(r.prediction_var == 0)
    np.testing.assert_allclose(r.data_var, r.total_var)

    x = np.array([[1, 0], [0, 1], [1, 1]], dtype=float)
    with pytest.warns(DataWarning, match="no two systems of one family"):
        r = signal_to_noise(x, {"a": ("f", 7), "b": ("g", 13)}, systems=["a", "b"])
    assert r.n_pairs == 0 and math.isnan(r.median_snr)
    assert r.to_dict()["median_snr"] is None
    with pytest.warns(DataWarning):  # same family, same size: not a size pair
        signal_to_noise(x, {"a": ("f", 7), "b": ("f", 7)}, systems=["a", "b"])
    with pytest.warns(DegenerateDataWarning, match="zero standard error"):
        r = signal_to_noise(np.ones((4, 2)), {"a": ("f", 7), "b": ("f", 70)}, systems=["a", "b"])
    assert math.isnan(r.snr[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        const = np.column_stack([np.ones(4), np.zeros(4)])
        with pytest.warns(DegenerateDataWarning):
            r = signal_to_noise(const, {"a": ("f", 70), "b": ("f", 7)}, systems=["a", "b"])
        assert r.snr[0] == math.inf
