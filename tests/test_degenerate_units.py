"""Degenerate units are results, not errors (issue 30, item 1): a dataset × metric where
every system scores alike, identical systems, a system with one item, or a handful of
items is reported for what it is, and every other unit is analysed."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from reportgen.analysis import AnalysisOptions, analyze
from reportgen.cli import main
from reportgen.data import load


def _write(path: Path, rows: list[tuple]) -> Path:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["system", "dataset", "metric", "item", "score"])
        w.writerows(rows)
    return path


def _two_datasets(tmp_path: Path, constant: float) -> Path:
    """'hard': every system scores ``constant`` on every item; 'easy': ordinary."""
    rng = np.random.default_rng(1)
    rows = []
    for s, p in (("a", 0.5), ("b", 0.6), ("c", 0.85)):
        for i in range(60):
            rows.append((s, "hard", "acc", i, constant))
            rows.append((s, "easy", "acc", i, int(rng.random() < p)))
    return _write(tmp_path / "deg.csv", rows)


@pytest.mark.parametrize("constant", [0.0, 1.0, 0.5])
def test_all_alike_unit_is_reported_and_others_analysed(tmp_path, capsys, constant):
    path = _two_datasets(tmp_path, constant)
    assert main(["analyze", str(path), "--out", str(tmp_path / "out"), "--seed", "1"]) == 0
    captured = capsys.readouterr()
    assert "means contain NaN" not in captured.err and "Traceback" not in captured.err
    assert f"hard / acc: every system scores {constant:g} on every item" in captured.err
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    hard = [c for c in results["comparisons"] if c["dataset"] == "hard"]
    easy = [c for c in results["comparisons"] if c["dataset"] == "easy"]
    assert len(hard) == 3 and all(c["p_value"] == 1.0 and c["note"] for c in hard)
    assert len(easy) == 3 and all(c["note"] is None for c in easy)
    assert results["degenerate"] == [
        {
            "dataset": "hard",
            "metric": "acc",
            "reason": f"every system scores {constant:g} on every item: no differences "
            "(p = 1 for every comparison)",
        }
    ]
    # the ordinary unit is analysed as if alone (scipy's binomtest on the discordant
    # items is the exact McNemar test: statsmodels mcnemar(exact=True))
    table = load([str(path)])
    view = table.paired("easy", "acc", ["a", "c"]).item_means()
    b = int(((view[:, 0] == 1) & (view[:, 1] == 0)).sum())
    c = int(((view[:, 0] == 0) & (view[:, 1] == 1)).sum())
    row = next(r for r in easy if {r["system_a"], r["system_b"]} == {"a", "c"})
    assert row["p_value"] == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue, rel=1e-9)


def test_identical_systems_and_one_item_system(tmp_path):
    rng = np.random.default_rng(2)
    rows = []
    for i in range(40):
        v, u = int(rng.random() < 0.5), rng.random()
        for s in ("a", "b"):  # two checkpoints giving identical answers
            rows.append((s, "d1", "acc", i, v))
            rows.append((s, "d2", "f1", i, u))
        rows.append(("c", "d1", "acc", i, int(rng.random() < 0.7)))
        rows.append(("c", "d2", "f1", i, rng.random()))
    # a run that stopped after 1 instance
    rows.append(("short", "d2", "f1", 0, 0.5))
    analysis = analyze(load([str(_write(tmp_path / "x.csv", rows))]), AnalysisOptions(seed=3))
    d1 = analysis.unit("d1", "acc")
    assert d1.degenerate_reason is not None and "identical scores on all 40 items" in (
        d1.degenerate_reason
    )
    k = next(
        k
        for k in range(d1.comparisons.n_pairs)
        if {*d1.comparisons.system_a[k : k + 1], *d1.comparisons.system_b[k : k + 1]} == {"a", "b"}
    )
    assert d1.comparisons.p_value[k] == 1.0
    d2 = analysis.unit("d2", "f1")
    assert d2.degenerate_reason is not None and "short has 1 item;" in d2.degenerate_reason
    assert analysis.ranking is not None


def test_tiny_units_never_significant(tmp_path, capsys):
    # HELM LLM-judge: 2 instances per scenario, systems far apart
    rng = np.random.default_rng(4)
    rows = [
        (s, d, "judge", i, m + 0.01 * rng.normal())
        for d in ("s1", "s2", "s3")
        for i in range(2)
        for s, m in (("a", 0.2), ("b", 0.5), ("c", 0.9))
    ]
    path = _write(tmp_path / "tiny.csv", rows)
    assert main(["analyze", str(path), "--out", str(tmp_path / "o"), "--seed", "1"]) == 0
    results = json.loads((tmp_path / "o" / "results.json").read_text())
    assert not any(c["significant"] for c in results["comparisons"])
    assert all("at least 6 are needed" in c["note"] for c in results["comparisons"])
    assert "cannot reach alpha" in capsys.readouterr().err


def test_skewed_unit_is_flagged_not_degenerate(tmp_path, capsys):
    # latencies with rare huge values: the unit's comparisons carry skewed = True and
    # the console says so; it is not a degenerate unit
    rng = np.random.default_rng(5)
    rows = []
    for i in range(60):
        base = rng.normal(100, 5)
        rows.append(("a", "d", "score", i, base))
        rows.append(("b", "d", "score", i, base + 1 + rng.lognormal(0, 1.5)))
    path = _write(tmp_path / "skew.csv", rows)
    assert main(["analyze", str(path), "--out", str(tmp_path / "o"), "--seed", "1"]) == 0
    err = capsys.readouterr().err
    assert "d / score: 1 of 1 comparison has heavily skewed differences" in err
    results = json.loads((tmp_path / "o" / "results.json").read_text())
    (row,) = results["comparisons"]
    assert row["skewed"] is True and "studentized bootstrap" in row["test"]
    assert results["degenerate"] == []
    # the p-value is at least the paired t's (scipy: ttest_rel)
    a = np.array([r[4] for r in rows if r[0] == "a"])
    b = np.array([r[4] for r in rows if r[0] == "b"])
    assert row["p_value"] >= stats.ttest_rel(a, b).pvalue - 1e-12


def test_real_lm_eval_outputs_where_every_system_scores_alike(tmp_path, capsys):
    # real lm-eval 0.4.5 outputs (tests/fixtures/real/SOURCES.md): with the strict-match
    # filter both systems score 0 on every tiny_gen item; the issue's "means contain
    # NaN" stop. Now that unit is reported and the others analysed.
    data = Path(__file__).parent / "fixtures" / "real" / "lm_eval" / "v0.4.5"
    out = tmp_path / "o"
    code = main(["analyze", str(data), "--lm-eval-filter", "strict-match", "--out", str(out)])
    assert code == 0
    err = capsys.readouterr().err
    assert "tiny_gen / exact_match: every system scores 0 on every item" in err
    results = json.loads((out / "results.json").read_text())
    gen = [c for c in results["comparisons"] if c["dataset"] == "tiny_gen"]
    assert gen and all(c["p_value"] == 1.0 for c in gen)
    assert {c["dataset"] for c in results["comparisons"]} == {"tiny_gen", "tiny_mc"}
