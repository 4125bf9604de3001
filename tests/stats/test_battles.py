"""Battles (stats/battles.py) against independent references: counts by a plain loop over
battles, Bradley-Terry against statsmodels' Logit on Chatbot Arena's own design (every
battle twice, a tie as one win for each side), its bootstrap spread against the inverse
Fisher information of that fit, the pair tests against scipy's binomtest and
statsmodels' Clopper-Pearson interval, the adjusted intervals against their decisions
by enumeration, and the win-fraction matrix against FastChat's
``compute_pairwise_win_fraction`` (pandas pivot tables).

The battles are real: GenAI-Arena's ``clean_battle_20240220.json`` (tests/fixtures/real).
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from reportgen.errors import InputError
from reportgen.stats.battles import (
    BattleCounts,
    battle_counts,
    battle_tests,
    bradley_terry_battles,
)
from reportgen.stats.multiplicity import adjust_pvalues

ARENA = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "real"
    / "arena"
    / "genai-arena-20240220"
    / "clean_battle_20240220.json.gz"
)


def _battles() -> pd.DataFrame:
    frame = pd.DataFrame(json.loads(gzip.decompress(ARENA.read_bytes())))
    return frame[frame["model_a"] != frame["model_b"]].reset_index(drop=True)


def _counts(frame: pd.DataFrame) -> BattleCounts:
    systems = list(pd.unique(pd.concat([frame["model_a"], frame["model_b"]])))
    code = {s: k for k, s in enumerate(systems)}
    outcome = frame["winner"].map(
        {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}
    )
    return battle_counts(
        frame["model_a"].map(code),
        frame["model_b"].map(code),
        outcome,
        systems=systems,
        both_bad=frame["winner"] == "tie (bothbad)",
    )


def _generation() -> pd.DataFrame:
    """The image-generation arena: one group of systems that all met."""
    frame = _battles()
    return frame[frame["model_a"].str.endswith("_generation")].reset_index(drop=True)


def test_battle_counts_against_a_loop_over_battles() -> None:
    frame = _battles()
    counts = _counts(frame)
    wins: dict[tuple[str, str], float] = {}
    ties: dict[tuple[str, str], float] = {}
    for a, b, w in zip(frame["model_a"], frame["model_b"], frame["winner"], strict=True):
        if w == "model_a":
            wins[(a, b)] = wins.get((a, b), 0) + 1
        elif w == "model_b":
            wins[(b, a)] = wins.get((b, a), 0) + 1
        else:
            for key in ((a, b), (b, a)):
                ties[key] = ties.get(key, 0) + 1
    s = counts.systems
    for i, a in enumerate(s):
        for j, b in enumerate(s):
            assert counts.wins[i, j] == wins.get((a, b), 0)
            assert counts.ties[i, j] == ties.get((a, b), 0)
    assert counts.n_battles == len(frame)
    # the arena holds two groups that never met: image editing and image generation
    groups = [{s[k].rsplit("_", 1)[1] for k in g} for g in counts.components()]
    assert groups == [{"edition"}, {"generation"}]


def _arena_design(frame: pd.DataFrame, systems: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """FastChat's compute_mle_elo design: every battle twice; a tie is an A win in the
    first copy and a B win in the second (columns ±log 10, no intercept)."""
    code = {s: k for k, s in enumerate(systems)}
    double = pd.concat([frame, frame], ignore_index=True)
    n = len(double)
    X = np.zeros((n, len(systems)))
    X[np.arange(n), double["model_a"].map(code).to_numpy()] = math.log(10)
    X[np.arange(n), double["model_b"].map(code).to_numpy()] = -math.log(10)
    y = (double["winner"] == "model_a").to_numpy(dtype=float)
    tie = double["winner"].str.startswith("tie").to_numpy().copy()
    tie[len(frame) :] = False
    y[tie] = 1.0
    return X, y


def test_bradley_terry_battles_against_statsmodels_logit() -> None:
    frame = _generation()
    counts = _counts(frame)
    bt = bradley_terry_battles(counts, n_resamples=0)
    # statsmodels: Logit of the arena's design with the first system's column dropped
    # (fixed at 0), then centred like our ratings: 1000 + 400 θ
    X, y = _arena_design(frame, list(counts.systems))
    fit = sm.Logit(y, X[:, 1:]).fit(disp=0, tol=1e-12, maxiter=200)
    theta = np.r_[0.0, fit.params]
    expected = 1000 + 400 * (theta - theta.mean())
    np.testing.assert_allclose(bt.rating, expected, atol=1e-6)
    assert bt.n_items == len(frame)


def test_bradley_terry_battles_bootstrap_against_the_sandwich_covariance() -> None:
    frame = _generation()
    counts = _counts(frame)
    bt = bradley_terry_battles(counts, n_resamples=1000, rng=7)
    X, y = _arena_design(frame, list(counts.systems))
    # statsmodels: the cluster-robust (sandwich) covariance of the Logit fit, a battle's
    # two rows one cluster: the large-sample limit of resampling battles (a tie is a fixed
    # half win, less variable than the model's Bernoulli outcome, so the model-based
    # information would overstate the spread)
    battle = np.tile(np.arange(len(frame)), 2)
    fit = sm.Logit(y, X[:, 1:]).fit(
        disp=0, tol=1e-12, cov_type="cluster", cov_kwds={"groups": battle}
    )
    cov = np.zeros((X.shape[1], X.shape[1]))
    cov[1:, 1:] = np.asarray(fit.cov_params())
    centre = np.eye(X.shape[1]) - 1 / X.shape[1]
    se = 400 * np.sqrt(np.diag(centre @ cov @ centre.T))
    # 1,000 resamples: the bootstrap SD is within ~5% of its limit (SD of an SD ≈ 1/√2000)
    np.testing.assert_allclose(bt.se, se, rtol=0.1)
    assert np.all(bt.ci_low < bt.rating) and np.all(bt.rating < bt.ci_high)


def test_bradley_terry_battles_input_validation() -> None:
    counts = _counts(_battles())
    with pytest.raises(InputError, match="2 groups of systems that never met"):
        bradley_terry_battles(counts, n_resamples=0)
    with pytest.raises(InputError, match="n_resamples"):
        bradley_terry_battles(_counts(_generation()), n_resamples=-1)
    with pytest.raises(InputError, match="with itself"):
        battle_counts([0], [0], [1.0], systems=["a", "b"])
    with pytest.raises(InputError, match="outcomes must be"):
        battle_counts([0], [1], [0.7], systems=["a", "b"])


def test_battle_tests_against_scipy_and_statsmodels() -> None:
    counts = _counts(_generation())
    tests = battle_tests(counts, correction="holm", alpha=0.05)
    for k in range(tests.n_pairs):
        w, n = int(tests.wins_a[k]), int(tests.wins_a[k] + tests.wins_b[k])
        # scipy: binomtest(k, n, 0.5), two-sided (symmetric, so twice the smaller tail)
        assert tests.p_value[k] == pytest.approx(stats.binomtest(w, n, 0.5).pvalue, rel=1e-12)
        # statsmodels: proportion_confint(method="beta") is Clopper-Pearson
        low, high = proportion_confint(w, n, alpha=0.05, method="beta")
        assert tests.ci_low[k] == pytest.approx(low, abs=1e-12)
        assert tests.ci_high[k] == pytest.approx(high, abs=1e-12)
    np.testing.assert_allclose(tests.p_adjusted, adjust_pvalues(tests.p_value, method="holm"))


def test_battle_tests_adjusted_intervals_against_their_decisions() -> None:
    # enumeration: every record of up to 25 decisive battles, in families of 6 pairs
    rng = np.random.default_rng(3)
    for correction in ("holm-sidak", "bonferroni", "fdr_bh", "none"):
        for _ in range(40):
            s = 4
            wins = np.zeros((s, s))
            iu = np.triu_indices(s, 1)
            n = rng.integers(1, 26, size=len(iu[0]))
            k = rng.binomial(n, rng.uniform(0.2, 0.95, size=len(n)))
            wins[iu] = k
            wins[(iu[1], iu[0])] = n - k
            counts = BattleCounts(tuple("abcd"), wins, np.zeros((s, s)), np.zeros((s, s)))
            tests = battle_tests(counts, correction=correction)
            low, high = tests.adjusted_interval()
            excludes = (low > 0.5) | (high < 0.5)
            np.testing.assert_array_equal(excludes, tests.significant())


def test_decisive_share_against_fastchat_win_fraction() -> None:
    # FastChat elo_analysis.compute_pairwise_win_fraction on the battles without ties
    frame = _battles()
    counts = _counts(frame)
    decisive = frame[~frame["winner"].str.contains("tie")]
    a_win = pd.pivot_table(
        decisive[decisive["winner"] == "model_a"],
        index="model_a",
        columns="model_b",
        aggfunc="size",
        fill_value=0,
    )
    b_win = pd.pivot_table(
        decisive[decisive["winner"] == "model_b"],
        index="model_a",
        columns="model_b",
        aggfunc="size",
        fill_value=0,
    )
    n = pd.pivot_table(decisive, index="model_a", columns="model_b", aggfunc="size", fill_value=0)
    names = list(counts.systems)
    a_win, b_win, n = (
        t.reindex(index=names, columns=names, fill_value=0) for t in (a_win, b_win, n)
    )
    expected = ((a_win + b_win.T) / (n + n.T)).to_numpy(dtype=float)
    np.testing.assert_allclose(counts.decisive_share(), expected, equal_nan=True)
