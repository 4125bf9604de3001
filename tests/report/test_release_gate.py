"""The release gate as the issue of hard data asks: non-inferiority of every unit as an
intersection-union test (Berger 1982), and units compared on part of their items named
and failing the gate unless --allow-partial."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reportgen.analysis.release import _intersection_union
from reportgen.cli import main
from reportgen.stats.margins import margin_decisions, margin_paired

ROOT = Path(__file__).resolve().parents[2]
ARENA = ROOT.parent / "shared" / "data" / "eval-arena"


def test_noninferiority_gate_size_is_alpha_half_by_simulation():
    # simulation: four paired continuous units, one at the margin (the null of
    # non-inferiority, Δ = −δ) and three far better; the gate passes when every unit is
    # improved or non-inferior. An intersection-union test has size α/2 = 0.025 here
    # (Berger 1982); the Šidák-adjusted rule it replaces passed about 1/4 as often.
    rng = np.random.default_rng(2024)
    delta, n, reps = 0.5, 60, 1200
    passes = sidak = 0
    for _ in range(reps):
        results = []
        for shift in (-delta, 2.0, 2.0, 2.0):
            base = rng.normal(0, 1, n)
            cand = base + shift + rng.normal(0, 1, n)
            results.append(
                margin_paired(np.column_stack([base, cand]), margin=delta, n_resamples=99)
            )
        d = margin_decisions(results, alpha=0.05, correction="holm-sidak")
        verdicts = [_intersection_union(d.verdict[k], r, 0.05) for k, r in enumerate(results)]
        passes += all(v in ("improved", "non-inferior") for v in verdicts)
        sidak += all(v in ("improved", "non-inferior") for v in d.verdict)
    rate = passes / reps
    # Monte Carlo SD of a rate of 0.025 over 1,200 replicates: 0.0045
    assert 0.025 - 3 * 0.0045 < rate < 0.025 + 3 * 0.0045
    assert sidak / reps < 0.012  # the adjusted rule lost power for nothing


def test_noninferior_is_read_off_the_one_sided_bound_and_agrees_with_its_p():
    # the same decision as p_noninferiority <= α/2 (raw, one-sided), on real data with
    # margins around the observed difference
    rows = [json.loads(line) for line in (ARENA / "humaneval+.jsonl").open()]
    frame = pd.DataFrame(rows)
    a, b = "claude-3-haiku-20240307", "claude-3-opus-20240229"
    wide = frame[frame["model"].isin([a, b])].pivot_table(
        index="example_id", columns="model", values="pass1"
    )
    X = wide[[a, b]].to_numpy(float)
    for delta in (0.01, 0.03, 0.05, 0.08, 0.12):
        result = margin_paired(X, margin=delta, baseline=0)
        d = margin_decisions([result], alpha=0.05)
        verdict = _intersection_union(d.verdict[0], result, 0.05)
        if verdict in ("improved", "regressed"):
            continue
        assert (verdict == "non-inferior") == (float(result.p_noninferiority[0]) <= 0.025)


def _partial_csv(tmp_path: Path) -> Path:
    # real scores (eval-arena humaneval+), the candidate's last 44 items left out
    rows = [json.loads(line) for line in (ARENA / "humaneval+.jsonl").open()]
    frame = pd.DataFrame(rows)
    keep = frame["model"].isin(["code-llama-multi-13b", "code-llama-multi-34b"])
    frame = frame[keep].rename(columns={"model": "system", "example_id": "item", "pass1": "score"})
    items = sorted(frame["item"].unique())
    dropped = set(items[-44:])
    frame = frame[~((frame["system"] == "code-llama-multi-34b") & frame["item"].isin(dropped))]
    frame = frame.assign(dataset="humaneval+", metric="pass1")
    path = tmp_path / "scores.csv"
    frame[["system", "dataset", "metric", "item", "score"]].to_csv(path, index=False)
    return path


def _gate_args(data: Path, out: Path) -> list[str]:
    return [
        "run",
        str(data),
        "--template",
        "release",
        "--baseline",
        "code-llama-multi-13b",
        "--candidate",
        "code-llama-multi-34b",
        "--out",
        str(out),
        "--format",
        "html",
        "--seed",
        "1",
        "--gate",
        "regression",
        "--quiet",
    ]


@pytest.fixture(scope="module")
def partial_report(tmp_path_factory):
    """One real `reportgen run` of the partial data (the report is the same with or
    without --allow-partial, which only the CLI's gate reads): the data, the report
    folder and what `run_report` returned."""
    from reportgen.report import pipeline

    base = tmp_path_factory.mktemp("partial")
    data, out = _partial_csv(base), base / "report"
    made = []
    real = pipeline.run_report

    def recording(spec, *, progress=None, kernel=None):
        made.append(real(spec, progress=progress, kernel=kernel))
        return made[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "run_report", recording)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            status = main(_gate_args(data, out))
    assert status == 1  # the partial unit fails the gate (without --allow-partial)
    [result] = made
    return data, out, result


@pytest.mark.e2e
@pytest.mark.parametrize("allow", [False, True])
def test_partial_unit_is_named_and_fails_the_gate(
    partial_report, tmp_path, capsys, monkeypatch, allow
):
    # the CLI's gate over the report of partial_report: its library call is patched to
    # return that run's result, so each case checks the exit status and the message
    from reportgen.report import pipeline

    data, out, made = partial_report
    monkeypatch.setattr(pipeline, "run_report", lambda spec, *, progress=None, kernel=None: made)
    args = _gate_args(data, tmp_path / "report") + (["--allow-partial"] if allow else [])
    status = main(args)
    captured = capsys.readouterr()
    assert status == (0 if allow else 1)
    line = (
        "partial: humaneval+ / pass1: 44 items scored for the baseline only: compared on "
        "the 120 items both have"
    )
    assert line in captured.err
    verdict = json.loads((out / "results.json").read_text(encoding="utf-8"))["verdict"]
    assert verdict["decision"] == "incomplete"
    [entry] = verdict["partial"]
    assert (entry["n_baseline"], entry["n_candidate"], entry["n_common"]) == (164, 120, 120)
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<strong>Partial (1 dataset × metric)</strong>" in html
    assert "on part of the items only" in html
