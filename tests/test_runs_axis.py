"""The run axis: run analyses only where a system has at least 2 runs, and a note where
they do not apply; ``analyze`` and ``run`` on real 1-epoch / 1-trial evaluations.

Inputs are real logs (tests/fixtures/real/SOURCES.md): an Inspect eval set of three
models with the default epochs (1), a 3-epoch eval of two of them, and a HELM suite with
one train trial per run. The reference for "which systems have repeated runs" is a plain
count of each system's (sample, epoch) records.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from reportgen.analysis import AnalysisOptions, analyze
from reportgen.cli import main
from reportgen.data import load

REAL = Path(__file__).resolve().parent / "fixtures" / "real"
EVAL_SET = REAL / "inspect" / "eval_set-0.3.285"
EPOCHS = REAL / "inspect" / "epochs-0.3.285"
HELM_SUITE = REAL / "helm" / "suite-0.5.16" / "benchmark_output"


def _notes(results: dict) -> list[str]:
    return [n for n in results.get("notes", []) if "run analyses" in n]


def test_run_analyses_cover_only_systems_with_two_runs(tmp_path: Path) -> None:
    for path in [*EVAL_SET.glob("*.eval"), *EPOCHS.glob("*.eval")]:
        shutil.copy(path, tmp_path / path.name)
    table = load(tmp_path)
    # plain count: records per (system, item) over the logs, from the frame's provenance
    per_item = Counter(zip(table.frame["system"], table.frame["item"]))
    repeated = sorted({system for (system, _), n in per_item.items() if n >= 2})
    assert repeated == ["toy/good", "toy/mid"]  # toy/bad is only in the 1-epoch eval set
    results = analyze(table, AnalysisOptions(seed=1, n_resamples=199)).to_results()
    [entry] = results["runs"]
    assert sorted(r["system"] for r in entry["runs_differ"]) == repeated
    assert entry["n_runs"] == 4  # the eval-set log's epoch, then the 3 epochs
    [note] = _notes(results)
    assert "cover the 2 systems with at least 2 runs; not toy/bad (one run per item)" in note


def test_one_run_everywhere_gives_a_note_not_an_error() -> None:
    results = analyze(load(EVAL_SET), AnalysisOptions(seed=1, n_resamples=199)).to_results()
    assert results["runs"] == []
    [note] = _notes(results)
    assert note.startswith("toy_addition / match: every system has one run per item")


def test_constant_run_column_of_a_long_table(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    rows = ["system,item,score,run"] + [
        f"{s},{i},{(i + k) % 2},7" for k, s in enumerate("ab") for i in range(6)
    ]
    path.write_text("\n".join(rows) + "\n")
    results = analyze(load(path), AnalysisOptions(seed=1, n_resamples=99)).to_results()
    assert results["runs"] == [] and len(_notes(results)) == 1


@pytest.mark.integration
@pytest.mark.parametrize("data", [EVAL_SET, HELM_SUITE], ids=["inspect-eval-set", "helm-1-trial"])
def test_analyze_succeeds_on_one_run(data: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert (
        main(["analyze", str(data), "--out", str(out), "--seed", "1", "--n-resamples", "199"]) == 0
    )
    results = json.loads((out / "results.json").read_text())
    assert results["comparisons"] and results["runs"] == []
    assert "at least 2 runs" not in capsys.readouterr().err


@pytest.mark.e2e
@pytest.mark.parametrize("data", [EVAL_SET, HELM_SUITE], ids=["inspect-eval-set", "helm-1-trial"])
def test_run_report_succeeds_on_one_run(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    assert (
        main(
            [
                "run",
                str(data),
                "--out",
                str(out),
                "--format",
                "html",
                "--quiet",
                "--seed",
                "1",
                "--n-resamples",
                "199",
            ]
        )
        == 0
    )
    html = (out / "report.html").read_text()
    assert "run analyses" in html  # the note is in the Data section
    if data == HELM_SUITE:
        assert "Descriptive statistics" in html and "num_prompt_tokens" in html
