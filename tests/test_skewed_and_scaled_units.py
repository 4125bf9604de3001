"""Issue 41 end to end: intervals that say what they promise, exact guards, scale
invariance from 1e-300 to 1e300 and skewed units that never pass on an approximation,
through ``reportgen analyze`` and the release analysis.

Oracles: scipy (``binomtest``, ``ttest_rel``), brute-force sign-flip enumeration, the
same analysis of unscaled scores (scaled back), and the closed form of the gate's
error rate (α/2 per unit, Berger 1982)."""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from reportgen.analysis import AnalysisOptions, analyze_release
from reportgen.analysis.release import ReleaseComparison
from reportgen.cli import main
from reportgen.data import load


def _write(path: Path, rows: list[tuple], header=("system", "dataset", "metric", "item", "score")):
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


def _analyze(tmp_path: Path, data: Path, *flags: str, name: str = "out") -> dict:
    out = tmp_path / name
    code = main(["analyze", str(data), "--out", str(out), "--seed", "2", *flags])
    assert code == 0
    return json.loads((out / "results.json").read_text())


def _skewed_pair(n: int, seed: int, shift: float = 0.35) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    b = rng.normal(size=n) + 5
    return b + shift - (rng.lognormal(size=n) - np.exp(0.5)), b


# ------------------------------------------------------------- sign test at p = 1


def test_sign_test_ten_wins_ten_losses_interval_contains_zero(tmp_path):
    # issue 41: 10 wins and 10 losses (scipy binomtest: p = 1) with a positive mean
    # difference gave an adjusted interval of [0.25, 0.74]; it must contain 0
    wins = [1.0] * 10 + [-0.3] * 10 + [0.0] * 5
    rows = []
    for i, d in enumerate(wins):
        rows += [("a", "set", "score", i, 2.0 + d), ("b", "set", "score", i, 2.0)]
    doc = _analyze(tmp_path, _write(tmp_path / "s.csv", rows), "--method", "sign")
    (row,) = doc["comparisons"]
    assert row["p_value"] == pytest.approx(stats.binomtest(10, 20).pvalue) == 1.0
    assert not row["significant"]
    low, high = row["ci_adjusted_low"], row["ci_adjusted_high"]
    assert low <= 0 <= high
    assert row["ci_adjusted_kind"] == "unadjusted"  # a family of one


# ------------------------------------------------------------- exact guards


def test_five_nonzero_differences_not_significant_through_the_cli(tmp_path):
    # 7 items, 5 differences of about 0.1 and 2 ties: paired t p = 0.0089; the exact
    # sign-flip p (brute force) is 2/32
    d = np.array([0.1, 0.11, 0.09, 0.1, 0.12, 0.0, 0.0])
    rows = []
    for i, x in enumerate(d):
        rows += [("a", "set", "score", i, 3.0 + x), ("b", "set", "score", i, 3.0)]
    doc = _analyze(tmp_path, _write(tmp_path / "g.csv", rows))
    (row,) = doc["comparisons"]
    flips = np.array(list(itertools.product([-1.0, 1.0], repeat=5)))
    exact = np.mean(np.abs(flips @ d[:5]) >= abs(d[:5].sum()) - 1e-12)
    assert stats.ttest_rel(3 + d, np.full(7, 3.0)).pvalue < 0.05
    assert row["p_value"] == pytest.approx(exact) and not row["significant"]
    assert row["test"] == "paired sign-flip permutation (exact)"
    assert "at least 6 non-zero differences are needed" in row["note"]


# ------------------------------------------------------------- scale invariance


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e160, 1e300])
def test_scaled_scores_same_answers_through_the_cli(tmp_path, scale):
    # scores times any factor: the same decisions, p-values, interval methods and
    # (scaled) intervals as the unscaled scores (the oracle); 1e160 and above exited
    # with "sd=inf must be a finite number", and the system intervals switched between
    # t and BCa with the scale
    rng = np.random.default_rng(4)
    rows, scaled = [], []
    for s, shift in (("a", 0.0), ("b", 0.4), ("c", 0.5)):
        for i in range(40):
            x = float(rng.lognormal() + shift + (i % 5))
            rows.append((s, "set", "latency", i, x))
            scaled.append((s, "set", "latency", i, x * scale))
    base = _analyze(tmp_path, _write(tmp_path / "b.csv", rows), name="base")
    other = _analyze(tmp_path, _write(tmp_path / "x.csv", scaled), name="scaled")
    key = lambda r: (r["system_a"], r["system_b"])  # noqa: E731
    by_key = {key(r): r for r in other["comparisons"]}
    for r0 in base["comparisons"]:
        r1 = by_key[key(r0)]
        for k in ("significant", "test", "ci_adjusted_kind", "approximate", "skewed"):
            assert r0[k] == r1[k], k
        for k in ("p_value", "p_adjusted", "confidence_adjusted"):
            assert r1[k] == pytest.approx(r0[k], rel=1e-6, abs=1e-12), k
        for k in ("diff", "ci_low", "ci_high", "ci_adjusted_low", "ci_adjusted_high"):
            if r0[k] is None or abs(r0[k]) < 1e-200:  # an end just off 0 is off 0
                assert r1[k] is None or abs(r1[k]) < 1e-200 * scale or r0[k] is None
                continue
            assert r1[k] / scale == pytest.approx(r0[k], rel=1e-6), k
    for s0, s1 in zip(base["systems"], other["systems"]):
        assert s0["ci_method"] == s1["ci_method"]
        assert s1["ci_low"] / scale == pytest.approx(s0["ci_low"], rel=1e-6)
    for p0, p1 in zip(base["power"], other["power"]):
        assert p1["mde"] / scale == pytest.approx(p0["mde"], rel=1e-6)


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_scaled_scores_read_the_same_on_the_console(tmp_path, scale, capsys):
    # what a reader sees scales too: Δ and its interval from `compare` are the unscaled
    # ones times the factor (3 significant digits shown); scores of 1e-300 lie in
    # [0, 1] but are no percentages ("+<0.01 pts, 95% CI [0, 0]" before)
    import re

    rng = np.random.default_rng(1)
    rows, scaled = [], []
    for i in range(40):
        x = float(rng.normal())
        for s, v in (("A", 1 + 0.1 * x), ("B", 1.3 + 0.1 * x + 0.2 * float(rng.normal()))):
            rows.append((s, "d", "m", i, v))
            scaled.append((s, "d", "m", i, v * scale))
    shown = []
    for name, data in (("u.csv", rows), ("s.csv", scaled)):
        assert main(["compare", "A", "B", str(_write(tmp_path / name, data))]) == 0
        line = capsys.readouterr().out.splitlines()[-1]
        m = re.search(r"Δ = (\S+), 95% CI \[(\S+), (\S+)\]", line)
        assert m, line
        shown.append([float(g.replace("−", "-")) for g in m.groups()])
    assert "pts" not in line
    for unscaled, big in zip(*shown):
        assert big / scale == pytest.approx(unscaled, rel=5e-3)


# ------------------------------------------------------------- skewed units


def test_skewed_evaluation_comparison_is_approximate_and_not_significant(tmp_path):
    a, b = _skewed_pair(60, 1, shift=0.6)
    rows = []
    for i in range(60):
        rows += [("a", "set", "cost", i, a[i]), ("b", "set", "cost", i, b[i])]
    data = _write(tmp_path / "k.csv", rows)
    doc = _analyze(tmp_path, data)
    (row,) = doc["comparisons"]
    assert row["skewed"] and row["approximate"] and not row["significant"]
    assert stats.ttest_rel(a, b).pvalue < 0.05  # scipy: the mean's t test would claim it
    assert row["ci_adjusted_low"] <= 0 <= row["ci_adjusted_high"]
    assert row["note"].startswith("approximate (skewed)")
    # a robust estimand decides it, and says what it is
    cfg = tmp_path / "r.toml"
    cfg.write_text('[metrics.cost]\nestimand = "hodges-lehmann"\n')
    doc = _analyze(tmp_path, data, "--config", str(cfg), name="robust")
    (row,) = doc["comparisons"]
    assert row["estimand"] == "hodges-lehmann" and not row["approximate"]
    assert row["test"].startswith("Wilcoxon signed-rank")
    ref = stats.wilcoxon(a - b, method="asymptotic", correction=False).pvalue
    assert row["p_value"] == pytest.approx(ref, rel=1e-9)
    assert row["significant"] == (ref <= 0.05)
    assert doc["config"]["metrics"]["cost"]["estimand"] == "hodges-lehmann"


def _release(tmp_path: Path, estimand: str | None) -> ReleaseComparison:
    rows = []
    for k, metric in enumerate(("quality", "acc")):
        a, b = _skewed_pair(40, 10 + k, shift=0.8)
        if metric == "acc":  # an ordinary unit: normal differences
            rng = np.random.default_rng(3)
            a = b + 0.5 + rng.normal(size=40) * 0.3
        for i in range(40):
            rows += [("new", "set", metric, i, a[i]), ("old", "set", metric, i, b[i])]
    data = _write(tmp_path / "rel.csv", rows)
    cfg = tmp_path / "rel.toml"
    cfg.write_text(
        "[metrics.quality]\nmargin = 0.3\n"
        + (f'estimand = "{estimand}"\n' if estimand else "")
        + "[metrics.acc]\nmargin = 0.3\n"
    )
    table = load([data], config=cfg)
    analysis = analyze_release(
        table, AnalysisOptions(seed=1, correct_across="all"), baseline="old", candidate="new"
    )
    assert analysis.release is not None
    return analysis.release


def test_skewed_release_unit_is_inconclusive_never_improved(tmp_path):
    release = _release(tmp_path, None)
    cost = next(v for v in release.verdicts if v.metric == "quality")
    acc = next(v for v in release.verdicts if v.metric == "acc")
    assert cost.skewed and cost.estimand == "mean"
    assert cost.verdict == "inconclusive" and cost.undecidable
    assert cost.note == (
        "inconclusive: the mean is not decidable from 40 items (heavily skewed differences)"
    )
    assert cost.ci_adjusted_low <= 0 <= cost.ci_adjusted_high
    assert acc.verdict == "improved" and acc.ci_adjusted_kind == "simultaneous"
    failures = release.gate_failures("non-inferiority")
    assert any("not decidable" in f and "estimand" in f for f in failures)
    assert release.decision == "inconclusive"
    # the words say why, never "a loss over the margin is not ruled out" (the margin
    # was not what failed: no verdict on the mean is possible at this n)
    from reportgen.analysis.ledger.words import release_decision, release_headline

    words = release_decision(release).plain()
    assert "the mean is not decidable from 40 items (heavily skewed differences)" in words
    assert "not ruled out" not in words
    assert "not decidable on set / quality" in release_headline(release)


@pytest.mark.parametrize("estimand", ["trimmed", "hodges-lehmann"])
def test_robust_estimand_decides_the_skewed_release_unit(tmp_path, estimand):
    release = _release(tmp_path, estimand)
    cost = next(v for v in release.verdicts if v.metric == "quality")
    assert cost.estimand == estimand and not cost.undecidable
    assert cost.verdict in ("improved", "non-inferior")
    assert not release.gate_failures("non-inferiority")
    row = cost.to_dict()
    assert row["estimand"] == estimand and row["ci_adjusted_kind"] == "simultaneous"


def test_gate_guarantee_wording_from_alpha():
    # the intersection-union gate: each unit's one-sided bound at 1 - alpha/2, so a
    # unit truly at the margin passes at most alpha/2 of the time (Berger 1982)
    r = ReleaseComparison("a", "b", None, (), (), 0.05, 0.8)
    assert (
        r.gate_guarantee("non-inferiority")
        == "false-pass rate ≤ 2.5% per unit (one-sided 97.5% bounds)"
    )
    r10 = ReleaseComparison("a", "b", None, (), (), 0.1, 0.8)
    assert r10.gate_guarantee("non-inferiority") == (
        "false-pass rate ≤ 5% per unit (one-sided 95% bounds)"
    )
    assert "5%" in r.gate_guarantee("regression")  # the release's family-wise rate


def test_history_step_intervals_agree_with_statsmodels_decisions():
    # a history step is a family too: its intervals come from the same interval plan
    # (step-down compatible under Holm: a rejected change gets only its sign)
    from statsmodels.stats.multitest import multipletests

    from reportgen.analysis.history import StepTest, adjust_step
    from reportgen.analysis.ledger import Interval

    rng = np.random.default_rng(12)
    diff = rng.normal(0, 0.05, 8)
    se = np.full(8, 0.01)
    p = 2 * stats.norm.sf(np.abs(diff) / se)
    changes = [
        StepTest(
            "intervals",
            "z test",
            "stored intervals",
            None,
            None,
            float(d),
            Interval(float(d - 1.96 * s), float(d + 1.96 * s), 0.95),
            float(q),
            None,
        )
        for d, q, s in zip(diff, p, se)
    ]
    out = adjust_step(changes, "holm", alpha=0.05)
    reject = multipletests(p, alpha=0.05, method="holm")[0]
    adjusted = multipletests(p, alpha=0.05, method="holm")[1]
    for (p_adj, ci), r, ref in zip(out, reject, adjusted):
        low, high = ci.low, ci.high
        assert p_adj == pytest.approx(ref, rel=1e-12)
        assert ci.kind == "step-down compatible"
        excludes = (low is not None and low > 0) or (high is not None and high < 0)
        assert excludes == bool(r)
        if r and not reject.all():
            assert low is None or high is None  # the sign only
