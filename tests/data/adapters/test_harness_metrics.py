"""Metrics are what the harness reports as metrics (issue 43, item 3).

Inspect: the keys of a dict-valued scorer are metrics only when the log's
``results.scores`` aggregates them (Inspect writes one entry per key it computes metrics
of); the others are descriptive. HELM: the metrics of the schema's metric groups that a
run's group reports are compared; every other per-instance statistic (``logprob``,
``exact_match@5``, token counts) is descriptive. ``inspect`` names what was left out and
how to compare it (``--metric``).

References: the logs themselves read with :mod:`json` (which keys ``results.scores``
names), and HELM's ``schema_classic.yaml`` metric groups (stanford-crfm/helm).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from reportgen.data import LoadOptions, load
from reportgen.data.adapters import get_adapter

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"
SECURITY = REAL / "inspect" / "cancelled-0.3.95" / "2025-05-12T20-28-26-04-00_security-guide.json"
HELM_SUITE = REAL / "helm" / "suite-0.5.16" / "benchmark_output" / "runs" / "fixture"
HELM_EEE = REAL / "helm" / "eee"


def _dict_scored_log(tmp_path: Path) -> tuple[Path, dict[str, list[float]]]:
    """Edge case made from a real log (Inspect 0.3.95, model_graded_fact on 3 samples): its
    scorer's value becomes a dict ``{"correct", "winrate_low", "winrate_high"}`` whose
    results.scores aggregates ``correct`` only, as Inspect writes a scorer with
    ``metrics={"correct": [accuracy(), stderr()]}`` (no public log with dict scores was
    found)."""
    data = json.loads(SECURITY.read_text())
    values: dict[str, list[float]] = {"correct": [], "winrate_low": [], "winrate_high": []}
    for k, sample in enumerate(data["samples"]):
        score = sample["scores"]["model_graded_fact"]
        correct = 1.0 if score["value"] == "C" else 0.0
        score["value"] = {"correct": correct, "winrate_low": 0.1 * k, "winrate_high": 0.5 + 0.1 * k}
        for key, value in score["value"].items():
            values[key].append(value)
    entry = data["results"]["scores"][0]
    data["results"]["scores"] = [{**entry, "name": "correct", "scorer": "model_graded_fact"}]
    path = tmp_path / "security-guide.json"
    path.write_text(json.dumps(data))
    return path, values


def test_inspect_dict_keys_the_log_aggregates_against_its_results(tmp_path: Path) -> None:
    path, values = _dict_scored_log(tmp_path)
    result = get_adapter("inspect").read(path, LoadOptions())
    # results.scores names "correct" for the scorer: that key alone is a metric
    assert set(result.frame["metric"]) == {"model_graded_fact/correct"}
    assert result.frame["score"].mean() == pytest.approx(np.mean(values["correct"]))
    left = {d["statistic"]: d for d in result.descriptive}
    assert set(left) == {"model_graded_fact/winrate_low", "model_graded_fact/winrate_high"}
    assert left["model_graded_fact/winrate_high"]["mean"] == pytest.approx(
        np.mean(values["winrate_high"])
    )
    assert left["model_graded_fact/winrate_low"]["n"] == 3
    (note,) = [p for p in result.problems if "do not aggregate" in p.message]
    assert "model_graded_fact/winrate_low" in note.message
    assert "--metric model_graded_fact/" in note.message


def test_inspect_dict_key_named_with_metric_is_compared(tmp_path: Path) -> None:
    path, _ = _dict_scored_log(tmp_path)
    options = LoadOptions(metric="model_graded_fact/winrate_high")
    result = get_adapter("inspect").read(path, options)
    assert set(result.frame["metric"]) == {
        "model_graded_fact/correct",
        "model_graded_fact/winrate_high",
    }


def test_inspect_dict_keys_of_a_log_without_results_all_stay(tmp_path: Path) -> None:
    path, _ = _dict_scored_log(tmp_path)
    data = json.loads(path.read_text())
    data["results"]["scores"] = []  # nothing aggregated: nothing to tell the keys apart by
    path.write_text(json.dumps(data))
    result = get_adapter("inspect").read(path, LoadOptions())
    assert len(set(result.frame["metric"])) == 3
    assert result.descriptive == []


#: HELM's metric groups as ``src/helm/benchmark/static/schema_classic.yaml`` declares them
#: (stanford-crfm/helm): the fixture's schema.json was trimmed with its metric groups
#: emptied, so they are put back here (an edge case built from the real schema).
CLASSIC_GROUPS = [
    {"name": "accuracy", "metrics": [{"name": "${main_name}", "split": "${main_split}"}]},
    {"name": "calibration", "metrics": [{"name": "ece_10_bin", "split": "${main_split}"}]},
    {
        "name": "robustness",
        "metrics": [
            {"name": "${main_name}", "split": "${main_split}", "perturbation_name": "robustness"}
        ],
    },
    {"name": "efficiency", "metrics": [{"name": "inference_denoised_runtime"}]},
    {
        "name": "general_information",
        "metrics": [
            {"name": n} for n in ("num_instances", "num_prompt_tokens", "num_train_trials")
        ],
    },
]


def test_helm_metric_groups_of_the_schema_decide_the_metrics(tmp_path: Path) -> None:
    suite = tmp_path / "runs" / "eee"
    shutil.copytree(HELM_EEE, suite)
    schema = json.loads((HELM_SUITE / "schema.json").read_text())
    schema["metric_groups"] = CLASSIC_GROUPS
    (suite / "schema.json").write_text(json.dumps(schema, indent=2))
    main = {g["name"]: g["environment"]["main_name"] for g in schema["run_groups"]}
    result = get_adapter("helm").read(suite, LoadOptions())
    compared = result.frame.groupby("dataset")["metric"].unique()
    # each run compares its group's main metric (accuracy); nothing else is per-instance
    assert sorted(compared["narrative_qa"]) == [main["narrative_qa"]] == ["f1_score"]
    for dataset, metrics in compared.items():
        assert set(metrics) <= {"exact_match", "f1_score"}, dataset
    described = {d["statistic"] for d in result.descriptive}
    assert {"logprob", "exact_match@5", "rouge_l", "quasi_exact_match"} <= described
    table = load(suite)
    notes = [p.message for p in table.problems if "descriptive data" in p.message]
    assert notes and "--metric" in notes[0]


def test_helm_logprob_is_descriptive_without_a_schema() -> None:
    result = get_adapter("helm").read(HELM_EEE, LoadOptions())
    metrics = set(result.frame["metric"])
    assert "logprob" not in metrics and "max_prob" not in metrics
    assert {"logprob", "max_prob"} <= {d["statistic"] for d in result.descriptive}
    assert "exact_match" in metrics
