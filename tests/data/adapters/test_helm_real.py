"""The HELM adapter on real HELM output (tests/fixtures/real/SOURCES.md): a suite written
by crfm-helm 0.5.16 with the ``schema.json`` of ``helm-summarize``, and three runs of
HELM's own (gpt2, pythia-1b) from every_eval_ever's test data.

References: the per-instance stats read with plain :mod:`json`, and the ``schema.json``
HELM wrote (``lower_is_better``, ``run_groups[].environment.main_name``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from reportgen.data import LoadOptions, load
from reportgen.data.adapters import AdapterResult, get_adapter

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "helm"
SUITE = REAL / "suite-0.5.16" / "benchmark_output" / "runs" / "fixture"
EEE = REAL / "eee"


def _read(path: Path, **options: Any) -> AdapterResult:
    return get_adapter("helm").read(path, LoadOptions(**options))


def _plain_means(run: Path, stat: str) -> float:
    values = [
        s["mean"]
        for entry in json.loads((run / "per_instance_stats.json").read_text())
        for s in entry["stats"]
        if s["name"]["name"] == stat
        and "perturbation" not in s["name"]
        and s["name"].get("split", "test") == "test"
        and s["count"] > 0
    ]
    return sum(values) / len(values)


def test_helm_schema_gives_directions_and_bookkeeping_is_descriptive() -> None:
    schema = json.loads((SUITE / "schema.json").read_text())
    lower = {m["name"]: m.get("lower_is_better") for m in schema["metrics"]}
    result = _read(SUITE)
    assert set(result.frame["metric"]) == {"exact_match", "quasi_exact_match"}
    assert result.directions == {"exact_match": "higher", "quasi_exact_match": "higher"}
    assert lower["exact_match"] is False and lower["num_prompt_tokens"] is None
    # num_prompt_tokens: a mean per system, as HELM's per-instance values give it
    rows = {(d["system"], d["statistic"]): d for d in result.descriptive}
    for run in sorted(SUITE.iterdir()):
        if not run.is_dir():
            continue
        model = json.loads((run / "run_spec.json").read_text())["adapter_spec"]["model"]
        row = rows[(model, "num_prompt_tokens")]
        assert row["mean"] == pytest.approx(_plain_means(run, "num_prompt_tokens"))
        assert row["n"] == 8 and row["dataset"] == "simple_mcqa"
    table = load(SUITE)
    assert table.metrics["exact_match"].direction_source == "source"
    assert [d["statistic"] for d in table.summary()["descriptive"]] == ["num_prompt_tokens"] * 2


def test_helm_bookkeeping_named_with_metric_is_compared() -> None:
    result = _read(SUITE, metric="num_prompt_tokens")
    assert "num_prompt_tokens" in set(result.frame["metric"])
    assert result.descriptive == []


def test_helm_main_metric_first_and_runtime_descriptive(tmp_path: Path) -> None:
    # the three every_eval_ever runs in one suite beside the helm-summarize schema.json
    suite = tmp_path / "runs" / "eee"
    shutil.copytree(EEE, suite)
    shutil.copy(SUITE / "schema.json", suite / "schema.json")
    schema = json.loads((SUITE / "schema.json").read_text())
    main = {g["name"]: g["environment"]["main_name"] for g in schema["run_groups"]}
    result = _read(suite)
    notes = {p.dataset: p.message for p in result.problems if "main metric" in p.message}
    assert notes["narrative_qa"] == (
        f"HELM's main metric of this run is {main['narrative_qa']!r} (schema.json)"
    )
    first = result.frame.groupby("dataset", sort=False)["metric"].first()
    assert first["narrative_qa"] == main["narrative_qa"] == "f1_score"
    assert first["mmlu:subject=philosophy,method=multiple_choice_joint"] == "exact_match"
    # schema.json gives inference_runtime a direction, but it stays descriptive
    assert {m["name"]: m.get("lower_is_better") for m in schema["metrics"]}["inference_runtime"]
    assert "inference_runtime" not in set(result.frame["metric"])
    assert "inference_runtime" in {d["statistic"] for d in result.descriptive}


def test_helm_eee_runs_against_plain_json() -> None:
    result = _read(EEE)
    frame = result.frame
    for run in sorted(EEE.iterdir()):
        spec = json.loads((run / "run_spec.json").read_text())
        model = spec["adapter_spec"]["model"]
        rows = frame[
            (frame["_file"] == str(run / "per_instance_stats.json"))
            & (frame["system"] == model)
            & (frame["metric"] == "exact_match")
            & ~frame["dataset"].str.contains(r"\|split=")
        ]
        if len(rows):
            assert rows["score"].mean() == pytest.approx(_plain_means(run, "exact_match"))
    assert set(frame["system"]) == {"openai/gpt2", "eleutherai/pythia-1b-v0"}
    assert "num_prompt_tokens" not in set(frame["metric"])
