"""The OpenCompass adapter on a work folder OpenCompass 0.5.4 wrote
(tests/fixtures/real/SOURCES.md): ``opencompass eval_toy.py --dump-eval-details`` with two
toy models (``toy-good``, ``toy-bad``) on an eight-question JSON-lines dataset scored by
OpenCompass's ``EMEvaluator``.

The independent reference is the score OpenCompass itself wrote into each results file
(``"score": 87.5``, in percent) and its summary CSV: 100 × the mean of the per-item scores
must reproduce it.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from reportgen.data import LoadOptions, load
from reportgen.data.adapters import detect_format, get_adapter
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "opencompass" / "0.5.4"
(RUN,) = sorted((REAL / "out").iterdir())


def test_opencompass_means_against_its_results_and_summary() -> None:
    assert detect_format(RUN).name == "opencompass"
    table = load(RUN)
    assert set(table.systems) == {"toy-good", "toy-bad"}
    means = table.frame.groupby("system")["score"].mean()
    (summary,) = (RUN / "summary").glob("*.csv")
    (row,) = list(csv.DictReader(summary.open()))
    for system in ("toy-good", "toy-bad"):
        results = json.loads((RUN / "results" / system / "toy_add.json").read_text())
        assert 100 * means[system] == results["score"]
        assert f"{100 * means[system]:.2f}" == row[system]
    assert list(table.metrics) == ["score"]  # the results file's own metric
    assert table.paired("toy_add", "score").scores.shape == (8, 2)
    assert "toy_add_3" in set(table.frame["item"])  # example_abbr


def test_opencompass_work_folder_above_and_single_files() -> None:
    table = load(REAL / "out")
    assert set(table.systems) == {"toy-good", "toy-bad"}
    one = RUN / "results" / "toy-good" / "toy_add.json"
    assert detect_format(one).name == "opencompass"
    assert set(get_adapter("opencompass").read(one, LoadOptions()).frame["system"]) == {"toy-good"}
    # a predictions file is OpenCompass's, but holds no scores: skipped, said why
    predictions = RUN / "predictions" / "toy-good" / "toy_add.json"
    assert detect_format(predictions).name == "opencompass"
    with pytest.raises(InputError, match="no OpenCompass results with per-item details"):
        get_adapter("opencompass").read(predictions, LoadOptions())


def test_opencompass_results_without_details_are_skipped(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    bad = run / "results" / "toy-bad" / "toy_add.json"
    data = json.loads(bad.read_text())
    del data["details"]  # what a run without --dump-eval-details writes
    bad.write_text(json.dumps(data))
    table = load(run, min_systems=1)
    assert table.systems == ("toy-good",)
    assert any("no per-item details" in s.reason for s in table.skipped_inputs)


def test_opencompass_older_details_object(tmp_path: Path) -> None:
    # earlier releases keep details as an object keyed by the item's index, each entry
    # with is_correct
    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    for path in run.glob("results/*/toy_add.json"):
        data = json.loads(path.read_text())
        data["details"] = {
            str(k): {"pred": e["pred"], "answer": e["answer"], "is_correct": e["correct"][0]}
            for k, e in enumerate(data["details"])
        }
        path.write_text(json.dumps(data))
    table = load(run)
    means = table.frame.groupby("system")["score"].mean()
    assert 100 * means["toy-good"] == 87.5
    assert set(table.frame["item"]) == {str(k) for k in range(8)}
