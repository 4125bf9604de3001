"""Calibration caveats of a dataset × metric (docs/validation.md, "Warnings the reports
should carry"): each appears exactly in the settings where the calibration suite measured the
method off its nominal level, and not on well-behaved data."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from reportgen.analysis import AnalysisOptions, analyze
from reportgen.analysis._caveats import BOOTSTRAP_ITEMS, SKEW_LIMIT, moments, runs_caveats
from reportgen.data import load
from reportgen.report import sections as rs


def _table(tmp_path, scores: dict[str, np.ndarray], *, paired: bool = True):
    rows = []
    for system, values in scores.items():
        for i, v in enumerate(values):
            item = f"i{i}" if paired else f"{system}-{i}"
            rows.append((system, "d", "m", item, float(v)))
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["system", "dataset", "metric", "item", "score"]).to_csv(
        path, index=False
    )
    return load(path), path


def _caveats(tmp_path, scores, *, paired=True, **options):
    table, _ = _table(tmp_path, scores, paired=paired)
    analysis = analyze(table, AnalysisOptions(seed=1, n_resamples=199, **options))
    [unit] = analysis.units
    return list(unit.caveats)


def test_skewed_small_sample_gets_the_skew_caveat(tmp_path):
    rng = np.random.default_rng(1)
    base = rng.lognormal(0, 1.5, size=40)
    scores = {"a": base + rng.lognormal(0, 1.5, 40), "b": base + rng.lognormal(0, 1.5, 40)}
    assert max(abs(stats.skew(v)) for v in scores.values()) > SKEW_LIMIT  # scipy's view
    caveats = _caveats(tmp_path, scores, ci_method="t")
    assert any("strongly skewed" in c and "only 40 items" in c for c in caveats)


def test_normal_data_of_moderate_size_gets_no_caveat(tmp_path):
    rng = np.random.default_rng(2)
    base = rng.normal(size=200)
    scores = {"a": base + rng.normal(size=200), "b": base + rng.normal(size=200) + 0.1}
    assert _caveats(tmp_path, scores) == []


def test_binary_scores_get_no_continuous_caveat(tmp_path):
    rng = np.random.default_rng(3)
    scores = {"a": rng.random(20) < 0.5, "b": rng.random(20) < 0.6}
    assert _caveats(tmp_path, {k: v.astype(float) for k, v in scores.items()}) == []


def test_bootstrap_below_30_items_gets_the_bootstrap_caveat(tmp_path):
    rng = np.random.default_rng(4)
    base = rng.normal(size=BOOTSTRAP_ITEMS - 10)
    scores = {"a": base + rng.normal(size=20), "b": base + rng.normal(size=20)}
    caveats = _caveats(tmp_path, scores, method="bootstrap")
    assert any("bootstrap p-values are too small" in c for c in caveats)
    # with the t test and t intervals nothing bootstrap is left to warn about
    assert not any("bootstrap" in c for c in _caveats(tmp_path, scores, ci_method="t"))


def test_heavy_tails_with_bca_get_the_bca_caveat(tmp_path):
    rng = np.random.default_rng(5)
    scores = {"a": rng.standard_t(2, size=300), "b": rng.standard_t(2, size=300)}
    assert max(stats.kurtosis(v, fisher=False) for v in scores.values()) > 6
    caveats = _caveats(tmp_path, scores, ci_method="bca")
    assert any("heavy-tailed" in c for c in caveats)
    assert not any("heavy-tailed" in c for c in _caveats(tmp_path, scores, ci_method="t"))


def test_unpaired_permutation_with_unequal_sizes_and_spreads(tmp_path):
    rng = np.random.default_rng(6)
    scores = {"a": rng.normal(0, 2, size=60), "b": rng.normal(0, 1, size=180)}
    caveats = _caveats(tmp_path, scores, paired=False, method="permutation")
    assert any("compares whole distributions, not means" in c for c in caveats)
    # Welch's t (the automatic choice) tests the means: no caveat
    assert not any("distributions" in c for c in _caveats(tmp_path, scores, paired=False))


def test_runs_caveat_threshold():
    assert runs_caveats(BOOTSTRAP_ITEMS) == []
    assert "cluster-robust" in runs_caveats(BOOTSTRAP_ITEMS - 1)[0]


def test_report_section_shows_the_caveat_box(tmp_path):
    rng = np.random.default_rng(7)
    base = rng.lognormal(0, 1.5, size=30)
    _, path = _table(
        tmp_path, {"a": base + rng.lognormal(0, 1.5, 30), "b": base + rng.lognormal(0, 1.5, 30)}
    )
    report = rs.prepare(
        [str(path)],
        analysis_options={"seed": 4, "n_resamples": 199},
        output_dir=str(tmp_path / "out"),
    )
    html = rs.per_sample_list(report).html
    assert 'class="rg-warning rg-caveat"' in html and "strongly skewed" in html
    explore = rs.exploration(report)
    if explore is not None and "rank distributions" in explore.html:
        assert "per-system interval" in explore.html


@pytest.mark.parametrize("n", [10, 29])
def test_bootstrap_caveat_applies_to_bca_intervals_asked_for(tmp_path, n):
    """BCa asked for at small n gets the caveat; the default (auto) uses the t interval
    there instead, says so in a note, and carries no caveat against itself."""
    rng = np.random.default_rng(n)
    base = rng.normal(size=n)
    scores = {"a": base + rng.normal(size=n), "b": base + rng.normal(size=n)}
    caveats = _caveats(tmp_path, scores, ci_method="bca")
    assert any("bootstrap intervals are too narrow" in c for c in caveats)
    table, _ = _table(tmp_path, scores, paired=True)
    analysis = analyze(table, AnalysisOptions(seed=1, n_resamples=199))
    [unit] = analysis.units
    assert unit.ci_method.startswith("t")
    assert not any("bootstrap intervals" in c for c in unit.caveats)
    assert any(f"only {n} items" in note and "t intervals" in note for note in analysis.notes)


@pytest.mark.parametrize("shape", [(40,), (500, 6), (7, 3), (1,), (2, 2)])
@pytest.mark.parametrize("holes", [False, True])
def test_moments_against_scipy_skew_and_kurtosis(shape, holes):
    # scipy: stats.skew(x, axis=0, nan_policy="omit") and stats.kurtosis(x, axis=0,
    # fisher=False, nan_policy="omit"): the same bits (the caveats and the choice of t
    # intervals over BCa compare them with thresholds), heavy tails, constant columns,
    # NaN holes and a column that is all NaN
    rng = np.random.default_rng(sum(shape) + holes)
    x = rng.lognormal(0, 1.5, size=shape)
    if x.ndim == 2:
        x[:, 1] = 0.25  # constant: m2 is zero, both NaN
    if holes:
        x.ravel()[rng.random(x.size) < 0.2] = np.nan
        if x.ndim == 2:
            x[:, -1] = np.nan
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref_skew = np.atleast_1d(stats.skew(x, axis=0, nan_policy="omit"))
        ref_kurt = np.atleast_1d(stats.kurtosis(x, axis=0, fisher=False, nan_policy="omit"))
    skew, kurt = moments(x)
    np.testing.assert_array_equal(skew, ref_skew)
    np.testing.assert_array_equal(kurt, ref_kurt)
