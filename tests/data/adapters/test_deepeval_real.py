"""The DeepEval adapter on test runs DeepEval 4.3.1 wrote (tests/fixtures/real/SOURCES.md):
two runs of ``evaluate()`` (systems ``toy-good`` and ``toy-bad``) on the same six test
cases with DeepEval's ExactMatch and PatternMatch metrics.

The independent reference is what DeepEval itself wrote about each run: ``metricsScores``
(each metric's scores, passes and fails) and ``testPassed``; the per-item means must
reproduce them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reportgen.data import LoadOptions, load
from reportgen.data.adapters import detect_format, get_adapter, read_inputs
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "deepeval" / "4.3.1"
GOOD, BAD = REAL / "good" / ".deepeval", REAL / "bad" / ".deepeval"


def _run(folder: Path) -> dict:
    return json.loads((folder / ".latest_test_run.json").read_text())["testRunData"]


def test_deepeval_means_against_deepevals_metrics_scores() -> None:
    table = load([GOOD, BAD])
    means = table.frame.groupby(["system", "metric"])["score"].mean()
    for folder in (GOOD, BAD):
        run = _run(folder)
        system = run["hyperparameters"]["model"]
        for entry in run["metricsScores"]:
            scores = entry["scores"]
            assert means[(system, entry["metric"])] == pytest.approx(sum(scores) / len(scores))
            assert (
                table.frame.query("system == @system and metric == @entry['metric']")["score"]
                .ge(1.0)
                .sum()
                == entry["passes"]
            )
        cases = run["testPassed"] + run["testFailed"]
        assert means[(system, "passed")] == pytest.approx(run["testPassed"] / cases)
    assert set(table.systems) == {"toy-good", "toy-bad"}
    assert table.datasets == ("deepeval",)
    # both runs scored the same six test cases: paired on all of them
    pairing = table.paired("deepeval", "Exact Match")
    assert pairing.scores.shape == (6, 2)


def test_deepeval_hidden_folder_is_found_from_the_folder_above(tmp_path: Path) -> None:
    # the project folder holds .deepeval/, which the folder walk searches
    project = tmp_path / "project"
    shutil.copytree(GOOD.parent, project)
    (result,) = read_inputs(project)
    assert result.format == "deepeval"
    assert set(result.frame["system"]) == {"toy-good"}
    # only .latest_test_run.json is read, not its copy .latest_run_full.json
    assert [Path(f.path).name for f in result.files] == [".latest_test_run.json"]


def test_deepeval_system_from_the_folder_without_hyperparameters(tmp_path: Path) -> None:
    # the same run without the hyperparameters DeepEval records when evaluate() is given
    # them: the system is the run's folder, said in a note; --system overrides it
    data = json.loads((GOOD / ".latest_test_run.json").read_text())
    del data["testRunData"]["hyperparameters"]
    run = tmp_path / "rag-v2" / ".deepeval"
    run.mkdir(parents=True)
    (run / ".latest_test_run.json").write_text(json.dumps(data))
    result = get_adapter("deepeval").read(run, LoadOptions())
    assert set(result.frame["system"]) == {"rag-v2"}
    assert any("records no model" in p.message for p in result.problems)
    named = get_adapter("deepeval").read(run, LoadOptions(system="pipeline A"))
    assert set(named.frame["system"]) == {"pipeline A"}


def test_deepeval_run_full_file_and_directions() -> None:
    # .latest_run_full.json is the run without the testRunData wrapper
    full = GOOD / ".latest_run_full.json"
    assert detect_format(full).name == "deepeval"
    result = get_adapter("deepeval").read(full, LoadOptions())
    assert result.directions["Exact Match"] == "higher"
    assert len(result.frame) == 6 * 3


def test_deepeval_errored_metric_and_nonfinite_score(tmp_path: Path) -> None:
    data = json.loads((GOOD / ".latest_test_run.json").read_text())
    cases = data["testRunData"]["testCases"]
    # a metric that raised: DeepEval keeps "error" and no score
    cases[0]["metricsData"][0].update(score=None, error="judge timed out")
    cases[1]["metricsData"][1]["score"] = float("inf")
    path = tmp_path / "run" / ".latest_test_run.json"
    path.parent.mkdir()
    path.write_text(json.dumps(data))
    result = get_adapter("deepeval").read(path, LoadOptions())
    reasons = {e.reason: e.count for e in result.exclusions}
    assert reasons["DeepEval metric 'Exact Match' raised an error (metricsData[].error)"] == 1
    assert reasons["non-finite value of metricsData['Pattern Match'].score (Infinity)"] == 1
    (warning,) = [p for p in result.problems if "not a finite number" in p.message]
    assert "metricsData['Pattern Match'].score" in warning.message
    assert "1 per-item value of DeepEval's" in warning.message
    with pytest.raises(InputError, match=r"metricsData\['Pattern Match'\]\.score = Infinity"):
        get_adapter("deepeval").read(path, LoadOptions(nonfinite="error"))


def test_deepeval_link_only_file_is_skipped(tmp_path: Path) -> None:
    # logged in to Confident AI, DeepEval keeps only the run's link in the file
    path = tmp_path / ".deepeval" / ".latest_test_run.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"testRunLink": "https://app.confident-ai.com/x"}))
    result = get_adapter("deepeval").read(path.parent, LoadOptions())
    assert result.frame.empty
    (skipped,) = result.skipped
    assert "testRunLink" in skipped.reason
    with pytest.raises(InputError, match="testRunLink"):
        get_adapter("deepeval").read(path.parent, LoadOptions(strict_inputs=True))


def test_deepeval_older_metrics_metadata_keys(tmp_path: Path) -> None:
    # DeepEval releases before August 2024 name the list metricsMetadata and each
    # entry's name metric: the same run with those keys reads the same
    data = json.loads((GOOD / ".latest_test_run.json").read_text())
    for case in data["testRunData"]["testCases"]:
        entries = case.pop("metricsData")
        for entry in entries:
            entry["metric"] = entry.pop("name")
        case["metricsMetadata"] = entries
    path = tmp_path / "old" / ".latest_test_run.json"
    path.parent.mkdir()
    path.write_text(json.dumps(data))
    old = get_adapter("deepeval").read(path, LoadOptions()).frame
    new = get_adapter("deepeval").read(GOOD, LoadOptions()).frame
    columns = ["system", "dataset", "metric", "item", "score"]
    assert old[columns].sort_values(columns).values.tolist() == (
        new[columns].sort_values(columns).values.tolist()
    )


def test_deepeval_results_folder_file() -> None:
    # DEEPEVAL_RESULTS_FOLDER: DeepEval writes test_run_<time>.json (the run without the
    # testRunData wrapper), which projects keep when .deepeval is git-ignored
    (path,) = (REAL / "results-folder").glob("test_run_*.json")
    assert detect_format(path).name == "deepeval"
    kept = get_adapter("deepeval").read(path, LoadOptions()).frame
    latest = get_adapter("deepeval").read(GOOD, LoadOptions()).frame
    columns = ["system", "metric", "item", "score"]
    assert kept[columns].sort_values(columns).values.tolist() == (
        latest[columns].sort_values(columns).values.tolist()
    )
