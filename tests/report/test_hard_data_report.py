"""Hard data in the report: a dataset × metric where every system scores alike is a
result (its reason in the report, results.json and on stderr), every other unit is
analysed, and a release verdict on heavily skewed differences says so in the decision.

Oracles: the scores themselves (every value 0, a constant difference) and the exact
sign-flip p of a constant difference over n items, 2/2^n (two-sided)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reportgen.cli import main

ROOT = Path(__file__).resolve().parents[2]
ARENA = ROOT.parent / "shared" / "data" / "eval-arena"


def _long(path: Path, frames: list[pd.DataFrame]) -> Path:
    pd.concat(frames, ignore_index=True).to_csv(path, index=False)
    return path


@pytest.mark.e2e
def test_a_unit_every_system_fails_is_reported_not_fatal(tmp_path, capsys):
    # real scores on humaneval+ for three systems, and a second dataset they all fail
    rows = [json.loads(line) for line in (ARENA / "humaneval+.jsonl").open()]
    frame = pd.DataFrame(rows)
    systems = ["claude-3-haiku-20240307", "claude-3-opus-20240229", "code-llama-multi-13b"]
    real = frame[frame["model"].isin(systems)].rename(
        columns={"model": "system", "example_id": "item", "pass1": "score"}
    )
    real = real.assign(dataset="humaneval+", metric="pass1")[
        ["system", "dataset", "metric", "item", "score"]
    ]
    zero = pd.DataFrame(
        [(s, "impossible", "pass1", f"q{k}", 0.0) for s in systems for k in range(30)],
        columns=["system", "dataset", "metric", "item", "score"],
    )
    data = _long(tmp_path / "scores.csv", [real, zero])
    out = tmp_path / "report"
    status = main(["run", str(data), "--out", str(out), "--format", "html", "--seed", "1"])
    err = capsys.readouterr().err
    assert status == 0
    assert "impossible / pass1: every system scores 0 on every item" in err
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    [entry] = results["degenerate"]
    assert entry["dataset"] == "impossible"
    rows = [c for c in results["comparisons"] if c["dataset"] == "impossible"]
    assert rows and all(c["p_value"] == 1.0 and not c["significant"] for c in rows)
    # the other unit is analysed as usual: opus beats code-llama on humaneval+
    assert any(c["significant"] for c in results["comparisons"] if c["dataset"] == "humaneval+")
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "every system scores 0 on every item: no differences" in html


def test_constant_difference_gets_the_exact_sign_flip_p_in_the_report(tmp_path):
    # five items where y = x + 0.1 exactly: the exact sign-flip p is 2/2^5 = 0.0625
    x = np.array([0.31, 0.52, 0.47, 0.66, 0.28])
    frames = [
        pd.DataFrame(
            {"system": name, "dataset": "tiny", "metric": "f1", "item": range(5), "score": s}
        )
        for name, s in (("x", x), ("y", x + 0.1))
    ]
    data = _long(tmp_path / "scores.csv", frames)
    out = tmp_path / "report"
    assert main(["analyze", str(data), "--out", str(out), "--seed", "1"]) == 0
    [row] = json.loads((out / "results.json").read_text(encoding="utf-8"))["comparisons"]
    assert row["p_value"] == 2 / 2**5 and not row["significant"]
    assert row["note"] and "exact sign-flip" in row["note"]
    # the adjusted interval agrees with the decision
    assert row["ci_adjusted_low"] <= 0 <= row["ci_adjusted_high"]


def test_release_verdict_on_skewed_differences_says_so(tmp_path):
    # rare large losses: the differences' skewness makes the t test's size unreliable,
    # and the decision line, the verdict row and the e-mail's list say so
    from reportgen.analysis import AnalysisOptions, analyze_release
    from reportgen.analysis.ledger.words import release_decision
    from reportgen.data import load
    from reportgen.report.sections import verdict_sentence

    rng = np.random.default_rng(5)
    n = 40
    base = rng.uniform(0.4, 0.6, n)
    cand = base + 0.01 - np.where(rng.random(n) < 0.08, rng.lognormal(-1.5, 0.5, n), 0.0)
    frames = [
        pd.DataFrame(
            {
                "system": name,
                "dataset": "rag",
                "metric": "faithfulness",
                "item": range(n),
                "score": s,
            }
        )
        for name, s in (("v1", base), ("v2", cand))
    ]
    table = load([_long(tmp_path / "scores.csv", frames)])
    release = analyze_release(
        table, AnalysisOptions(seed=1, n_resamples=999), baseline="v1", candidate="v2"
    ).release
    assert release is not None
    [v] = release.verdicts
    # scipy's view of the same differences: strongly skewed
    from scipy import stats

    assert stats.skew(cand - base) < -2
    assert v.skewed is True
    assert "heavily skewed differences" in release_decision(release).plain()
    assert "heavily skewed differences" in verdict_sentence(v)
