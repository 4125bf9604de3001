"""The statistics of a release history (reportgen.analysis.history), on the real IBM RAG
data (140 items x 6 systems x 3 continuous metrics, paired) and checked against
independent references: scipy's paired and Welch t tests for a recomputed change,
statsmodels' multipletests for a step's adjustment, the closed form of the z test from two
intervals, and the results.json the analysis wrote for a stored verdict or comparison
(shown exactly as it holds it). The trend report and its e2e checks are
tests/report/test_history.py."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import reportgen
from reportgen.analysis import AnalysisOptions, analyze, analyze_release
from reportgen.analysis.history import (
    Release,
    StepSettings,
    StepTest,
    adjust_step,
    analyse_history,
    change_from_intervals,
    change_from_items,
    item_scores,
)
from reportgen.analysis.ledger import Interval, Ledger, Standing
from reportgen.config import default
from reportgen.data import load
from reportgen.errors import InputError
from reportgen.jsonsafe import json_safe

METRICS = ("precision", "recall", "sbert")
CORRECTIONS = ("holm-sidak", "holm", "bonferroni", "sidak", "fdr_bh", "fdr_by")


@pytest.fixture(scope="module")
def rag(shared_data):
    return load(shared_data / "ibm-rag")


@pytest.fixture(scope="module")
def wide(shared_data) -> dict[str, dict[str, np.ndarray]]:
    """metric -> system -> the 140 item scores, read from the CSV files with pandas."""
    import pandas as pd

    return {
        m: {s: f[s].to_numpy(float) for s in f.columns}
        for m in METRICS
        for f in [pd.read_csv(shared_data / "ibm-rag" / f"{m}.csv")]
    }


#: What each correction's intervals promise, by hand (docs/statistics.md), in a family
#: of more than one.
KINDS = {
    "holm-sidak": "step-down compatible",
    "holm": "step-down compatible",
    "bonferroni": "simultaneous",
    "sidak": "simultaneous",
    "fdr_bh": "FCR",
    "fdr_by": "FCR",
    "none": "unadjusted",
}


def _ledger(analysis) -> Ledger:
    """The ledger as a history reads it: from the results.json the analysis wrote."""
    doc = json.loads(json.dumps(json_safe(analysis.to_results())))
    return Ledger.from_results(doc)


def _release(label: str, system: str, ledger: Ledger, edited: str | None = None) -> Release:
    return Release(label, ledger.meta.created, system, "--system", ledger, Path(label), edited)


def _excludes_zero(ci: Interval) -> bool:
    return (ci.low is not None and ci.low > 0) or (ci.high is not None and ci.high < 0)


def _step_tests(rag) -> list[StepTest]:
    """Five real changes: two RAG systems' retriever swapped, on each metric."""
    out = []
    for before, after, metrics in (
        ("bm25_llama13b", "elser_llama13b", METRICS),
        ("bm25_flant5xxl", "elser_flant5xxl", METRICS[:2]),
    ):
        for m in metrics:
            out.append(
                change_from_items(
                    item_scores(rag, before, "ibm-rag", m),
                    item_scores(rag, after, "ibm-rag", m),
                    modality="continuous",
                    alpha=0.05,
                    confidence=0.95,
                    n_resamples=999,
                    seed=1,
                    key=("v1\0v2", "ibm-rag", m),
                )
            )
    return out


def test_change_from_items_against_scipy_ttest_rel(rag, wide):
    # scipy: ttest_rel(after, before) and its confidence_interval(0.95)
    for m in METRICS:
        a, b = wide[m]["elser_granite13b"], wide[m]["bm25_llama13b"]
        test = change_from_items(
            item_scores(rag, "bm25_llama13b", "ibm-rag", m),
            item_scores(rag, "elser_granite13b", "ibm-rag", m),
            modality="continuous",
            alpha=0.05,
            confidence=0.95,
            n_resamples=999,
            seed=3,
            key=("a", "ibm-rag", m),
        )
        ref = stats.ttest_rel(a, b)
        ci = ref.confidence_interval(0.95)
        assert (test.method, test.test, test.paired) == ("recomputed", "paired t", True)
        assert test.p_value == pytest.approx(ref.pvalue, rel=1e-9)
        assert test.diff == pytest.approx(np.mean(a - b), rel=1e-12)
        assert (test.mean_before, test.mean_after) == pytest.approx((b.mean(), a.mean()))
        assert (test.marginal.low, test.marginal.high) == pytest.approx((ci.low, ci.high))
        assert (test.marginal.level, test.marginal.kind) == (0.95, "unadjusted")


def test_change_from_items_unpaired_against_scipy_welch(wide):
    # different items in the two releases: scipy's ttest_ind(equal_var=False)
    a, b = wide["sbert"]["elser_llama13b"][:70], wide["sbert"]["bm25_llama13b"][70:]
    items = [f"q{k}" for k in range(140)]
    test = change_from_items(
        (items[70:], b),
        (items[:70], a),
        modality="continuous",
        alpha=0.05,
        confidence=0.95,
        n_resamples=999,
        seed=3,
        key=("a",),
    )
    ref = stats.ttest_ind(a, b, equal_var=False)
    assert (test.test, test.paired) == ("Welch t", False)
    assert test.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    ci = ref.confidence_interval(0.95)
    assert (test.marginal.low, test.marginal.high) == pytest.approx((ci.low, ci.high))


def test_change_from_intervals_against_the_closed_form():
    # closed form (Altman & Bland 2003): se = half-width / z(0.975) of each interval,
    # z = Δ / sqrt(se1² + se2²), p = 2 Φ(−|z|), the interval Δ ± z(0.975) se
    before = Standing("m-v1", 0.612, 0.571, 0.650, 400, confidence=0.95)
    after = Standing("m-v2", 0.668, 0.629, 0.705, 400, confidence=0.95)
    test = change_from_intervals(before, after, confidence=0.95)
    z975 = stats.norm.ppf(0.975)
    se = math.hypot((0.650 - 0.571) / (2 * z975), (0.705 - 0.629) / (2 * z975))
    diff = 0.668 - 0.612
    assert test is not None and test.method == "intervals" and test.paired is False
    assert test.diff == pytest.approx(diff, rel=1e-12)
    assert test.p_value == pytest.approx(2 * stats.norm.sf(diff / se), rel=1e-9)
    assert (test.marginal.low, test.marginal.high) == pytest.approx(
        (diff - z975 * se, diff + z975 * se), rel=1e-9
    )
    # a 90% interval is read with its own quantile
    narrow = Standing("m-v1", 0.612, 0.578, 0.644, 400, confidence=0.90)
    test90 = change_from_intervals(narrow, after, confidence=0.95)
    se90 = math.hypot((0.644 - 0.578) / (2 * stats.norm.ppf(0.95)), (0.705 - 0.629) / (2 * z975))
    assert test90.p_value == pytest.approx(2 * stats.norm.sf(diff / se90), rel=1e-9)


def test_change_from_intervals_edge_cases():
    after = Standing("m", 0.5, 0.4, 0.6, 10, confidence=0.95)
    # no interval, an interval of no width: no test
    assert change_from_intervals(Standing("m", 0.5, None, None, 10), after, confidence=0.95) is None
    flat = Standing("m", 0.5, 0.5, 0.5, 10, confidence=0.95)
    assert change_from_intervals(flat, flat, confidence=0.95) is None
    # an interval whose own level was not stored is read at the level given
    unknown = Standing("m", 0.45, 0.35, 0.55, 10)
    a = change_from_intervals(unknown, after, confidence=0.95)
    b = change_from_intervals(
        Standing("m", 0.45, 0.35, 0.55, 10, confidence=0.95), after, confidence=0.95
    )
    assert a is not None and b is not None and a.p_value == b.p_value


@pytest.mark.parametrize("correction", CORRECTIONS)
def test_adjust_step_against_statsmodels_multipletests(rag, correction):
    tests = _step_tests(rag)
    raw = [t.p_value for t in tests]
    # statsmodels: multipletests(raw, alpha=0.05, method=correction)
    reject, expected, _, _ = multipletests(raw, alpha=0.05, method=correction)
    adjusted = adjust_step(tests, correction, alpha=0.05)
    assert [p for p, _ in adjusted] == pytest.approx(list(expected), rel=1e-9, abs=1e-300)
    for (p, ci), rejected in zip(adjusted, reject):
        # the interval agrees with the adjusted decision, and says what kind it is
        assert _excludes_zero(ci) == bool(rejected) == (p <= 0.05)
        assert ci.kind == KINDS[correction]
        assert (ci.correction, ci.family_level) == (correction, 0.95)
    assert any(reject) and not all(reject)  # the real data decide both ways


def test_adjust_step_edge_cases(rag):
    one = _step_tests(rag)[:1]
    [(p, ci)] = adjust_step(one, "holm-sidak", alpha=0.05)
    # a family of one is not adjusted, and its interval is the marginal one at 1 − α
    assert p == pytest.approx(one[0].p_value) and ci.kind == "unadjusted"
    assert (ci.low, ci.high) == pytest.approx((one[0].marginal.low, one[0].marginal.high))
    assert ci.label() == "95% CI"
    assert adjust_step([], "holm", alpha=0.05) == []


@pytest.mark.parametrize("correction", ["holm", "bonferroni"])
def test_recomputed_step_against_scipy_and_statsmodels(rag, wide, correction):
    """A step recomputed from the per-item data: scipy's paired t test per metric, the
    step's three p-values adjusted with the later report's correction by statsmodels."""
    options = AnalysisOptions(seed=2, n_resamples=199, correction=correction)
    ledger = _ledger(analyze(rag, options))
    releases = [
        _release("v1", "bm25_llama13b", ledger),
        _release("v2", "elser_flant5xxl", ledger),
    ]
    history = analyse_history(releases, order="given", recompute="always", tables=lambda r: rag)
    assert [c.metric for c in history.changes] == list(METRICS)
    raw = [
        stats.ttest_rel(wide[m]["elser_flant5xxl"], wide[m]["bm25_llama13b"]).pvalue
        for m in METRICS
    ]
    _, expected, _, _ = multipletests(raw, alpha=0.05, method=correction)
    for c, p, p_adj in zip(history.changes, raw, expected):
        assert (c.method, c.test, c.source) == ("recomputed", "paired t", "per-item data")
        assert c.p_value == pytest.approx(p, rel=1e-9)
        assert c.p_adjusted == pytest.approx(p_adj, rel=1e-9, abs=1e-300)
        assert (c.correction, c.alpha) == (correction, 0.05)
        assert c.significant == (p_adj <= 0.05) == _excludes_zero(c.decided)
        assert c.decided.kind == KINDS[correction]
        expected_verdict = (
            ("improved" if c.diff > 0 else "regressed")
            if c.significant
            else "no detectable difference"
        )
        assert c.verdict == expected_verdict
    kind = {"holm": "step-down compatible", "bonferroni": "simultaneous"}[correction]
    name = {"holm": "Holm", "bonferroni": "Bonferroni"}[correction]
    assert history.changes[0].decided.label() == f"95% {kind} CI ({name})"
    assert history.changes[0].to_dict()["ci_label"] == f"95% {kind} CI ({name})"


def test_stored_comparison_shown_as_results_json_holds_it(rag):
    # the oracle: the comparison row the analysis wrote to results.json
    analysis = analyze(rag, AnalysisOptions(seed=2, n_resamples=199))
    doc = json.loads(json.dumps(json_safe(analysis.to_results())))
    ledger = Ledger.from_results(doc)
    releases = [
        _release("v1", "elser_granite13b", ledger),
        _release("v2", "bm25_flant5xxl", ledger),
    ]
    history = analyse_history(releases, order="given", tables=lambda r: "not asked")
    assert history.notes == (
        "v1: follows elser_granite13b (--system)",
        "v2: follows bm25_flant5xxl (--system)",
    )
    for c in history.changes:
        row = next(
            r
            for r in doc["comparisons"]
            if r["metric"] == c.metric
            and {r["system_a"], r["system_b"]} == {"elser_granite13b", "bm25_flant5xxl"}
        )
        sign = 1 if row["system_a"] == "bm25_flant5xxl" else -1  # after − before
        lo, hi = row["ci_adjusted_low"], row["ci_adjusted_high"]
        assert (c.method, c.source, c.test) == ("stored", "v2", row["test"])
        assert (c.p_value, c.p_adjusted, c.correction) == (
            row["p_value"],
            row["p_adjusted"],
            row["correction"],
        )
        assert c.diff == sign * row["diff"]
        assert (c.decided.low, c.decided.high) == ((lo, hi) if sign > 0 else (-hi, -lo))
        assert c.decided.kind == doc["ledger"]["family"]["interval_kind"]
        assert c.decided.level == row["confidence_adjusted"]
        assert c.significant == row["significant"]


@pytest.fixture(scope="module")
def release_ledgers(rag):
    """A release of elser_llama13b over bm25_llama13b with margins, and the evaluation
    of every system, each read back from its results.json."""
    margins = {"precision": 0.02, "recall": 0.02, "sbert": 0.02}
    options = AnalysisOptions(seed=4, n_resamples=199, margins=margins)
    release = analyze_release(
        rag, options, baseline="bm25_llama13b", candidate="elser_llama13b", release="v2"
    )
    doc = json.loads(json.dumps(json_safe(release.to_results())))
    evaluation = _ledger(analyze(rag, AnalysisOptions(seed=4, n_resamples=199)))
    return doc, Ledger.from_results(doc), evaluation


def test_stored_release_verdict_shown_as_results_json_holds_it(release_ledgers):
    doc, release, evaluation = release_ledgers
    rows = {r["metric"]: r for r in doc["verdict"]["rows"]}
    assert {r["verdict"] for r in rows.values()} >= {"improved", "non-inferior"}
    releases = [
        _release("v1", "bm25_llama13b", evaluation),
        _release("v2", "elser_llama13b", release),
    ]
    history = analyse_history(releases, order="given", tables=lambda r: "not asked")
    for c in history.changes:
        row = rows[c.metric]
        assert (c.method, c.source) == ("stored", "v2's release verdict")
        assert (c.verdict, c.p_value, c.p_adjusted, c.correction, c.margin) == (
            row["verdict"],
            row["p_value"],
            row["p_adjusted"],
            row["correction"],
            row["margin"],
        )
        assert (c.decided.low, c.decided.high, c.decided.level) == (
            row["ci_adjusted_low"],
            row["ci_adjusted_high"],
            row["confidence_adjusted"],
        )
        assert c.decided.kind == row["ci_adjusted_kind"] == "simultaneous"
        assert (c.marginal.low, c.marginal.high) == (row["ci_low"], row["ci_high"])
        assert c.alpha == doc["verdict"]["alpha"]
        assert c.significant == (row["verdict"] in ("improved", "regressed"))
        # a verdict at a margin is read off the one-sided bound, and says so
        assert c.bound is not None and c.bound.low == row["ni_bound"]
        assert c.at_margin == (row["verdict"] == "non-inferior")
        if c.at_margin:
            assert c.read_off is c.bound
            assert (
                f"one-sided 97.5% bound {c.bound.text(proportion=c.proportion)}"
                in c.sentence().plain()
            )
        d = c.to_dict()
        assert (d["ci_low"], d["ci_high"], d["ni_bound"]) == (
            row["ci_adjusted_low"],
            row["ci_adjusted_high"],
            row["ni_bound"],
        )


def test_a_release_verdict_read_the_other_way_round_is_flipped(release_ledgers):
    # the earlier report is the release, its candidate followed first: the change
    # after − before is baseline − candidate, improved and regressed swap
    doc, release, evaluation = release_ledgers
    rows = {r["metric"]: r for r in doc["verdict"]["rows"]}
    releases = [
        _release("v1", "elser_llama13b", release),
        _release("v2", "bm25_llama13b", evaluation),
    ]
    history = analyse_history(releases, order="given", tables=lambda r: "not asked")
    swap = {"improved": "regressed", "regressed": "improved"}
    for c in history.changes:
        row = rows[c.metric]
        assert c.source == "v1's release verdict"
        assert c.diff == -row["diff"]
        assert (c.decided.low, c.decided.high) == (
            -row["ci_adjusted_high"],
            -row["ci_adjusted_low"],
        )
        assert (c.mean_before, c.mean_after) == (row["mean_candidate"], row["mean_baseline"])
        assert c.verdict == swap.get(row["verdict"], row["verdict"])


def test_step_settings_come_from_the_options_declaration(rag):
    # a results.json that does not state its options: each is the declared default
    doc = json.loads(
        json.dumps(
            json_safe(
                analyze(rag, AnalysisOptions(seed=5, n_resamples=199, alpha=0.1)).to_results()
            )
        )
    )
    stated = StepSettings.of(_release("v1", "bm25_llama13b", Ledger.from_results(doc)))
    assert (stated.alpha, stated.n_resamples, stated.seed) == (0.1, 199, 5)
    for key in ("alpha", "confidence", "correction", "n_resamples"):
        del doc["config"][key]
    del doc["seed"], doc["ledger"]
    settings = StepSettings.of(_release("v1", "bm25_llama13b", Ledger.from_results(doc)))
    assert settings == StepSettings(
        default("alpha"),
        default("confidence"),
        default("correction"),
        default("n_resamples"),
        default("seed"),
    )


def test_history_states_no_default_of_its_own():
    # the defaults come from reportgen.config (the one declaration), never a literal
    literals = {0.05, 0.95, 0.8, 9999, "holm-sidak"}
    root = Path(reportgen.__file__).parent
    modules = [
        root / "report" / "history.py",
        *sorted((root / "analysis" / "history").glob("*.py")),
    ]
    found = [
        f"{path.name}:{node.lineno} {node.value!r}"
        for path in modules
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant)
        and not isinstance(node.value, bool)
        and node.value in literals
    ]
    assert len(modules) > 3 and not found, found


def test_an_edited_release_warns_on_its_steps(rag):
    ledger = _ledger(analyze(rag, AnalysisOptions(seed=2, n_resamples=199)))
    why = "its results.json differs from the SHA-256 its manifest recorded"
    releases = [
        _release("v1", "bm25_llama13b", ledger),
        _release("v2", "elser_llama13b", ledger, edited=why),
        _release("v3", "elser_granite13b", ledger),
    ]
    history = analyse_history(releases, order="given")
    assert [r.label for r in history.edited] == ["v2"]
    assert {c.edited for c in history.changes} == {f"v2: {why}"}  # both steps touch v2
    assert [s.edited for s in history.steps()] == [f"v2: {why}"] * 2
    doc = history.to_dict(title="t")
    assert [r["edited"] for r in doc["reports"]] == [None, why, None]
    assert all(c["edited"] == f"v2: {why}" for c in doc["changes"])
    assert all(c.edited_in == ("v2",) for c in history.changes)
    assert "; warning: the results.json of v2 was edited)" in history.changes[0].sentence().plain()
    assert f"v2: {why}" in history.notes


def test_analyse_history_input_validation(rag):
    ledger = _ledger(analyze(rag, AnalysisOptions(seed=2, n_resamples=199)))
    releases = [_release("v1", "bm25_llama13b", ledger), _release("v2", "elser_llama13b", ledger)]
    with pytest.raises(InputError, match="unknown recompute mode 'sometimes'"):
        analyse_history(releases, order="given", recompute="sometimes")  # type: ignore[arg-type]
    # no per-item data and no stored test: the intervals, with the reason said
    history = analyse_history(releases, order="given", recompute="always", tables=lambda r: "gone")
    assert {c.method for c in history.changes} == {"intervals"}
    assert "v1: not recomputed from per-item data (gone)" in history.notes


@pytest.mark.parametrize("name", ["_steps", "_releases", "_changes", "words"])
def test_docstring_examples(name):
    import doctest
    import importlib

    module = importlib.import_module(f"reportgen.analysis.history.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0 and result.attempted > 0, name
