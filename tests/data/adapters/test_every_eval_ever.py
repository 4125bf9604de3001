"""The every_eval_ever adapter on files its own converters wrote (tests/fixtures/real/
SOURCES.md): schema 0.3.0 (aggregate + samples, converted here from the two real Inspect
arc_easy logs by every_eval_ever's Inspect converter) and schema 0.2.1 (instance-level
files of HELM runs, committed in the every_eval_ever repository).

Independent references: the Inspect logs the 0.3.0 files were converted from, the
aggregate ``score_details.score`` every_eval_ever wrote, and HELM's own
``per_instance_stats.json`` of the runs the 0.2.1 files were converted from.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from reportgen.data import LoadOptions, load
from reportgen.data.adapters import AdapterResult, detect_format, get_adapter
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"
V030 = REAL / "every_eval_ever" / "v0.3.0-inspect"
V021 = REAL / "every_eval_ever" / "v0.2.1-helm"
ARC_LOGS = REAL / "inspect" / "arc_easy-0.3.138"
HELM_RUNS = REAL / "helm" / "eee"


def _read(path: Path, **options: Any) -> AdapterResult:
    return get_adapter("every-eval-ever").read(path, LoadOptions(**options))


def _aggregates(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.json"))


def test_eee_detected_from_content() -> None:
    for path in [V030, V021, *_aggregates(V030), *V030.rglob("*_samples.jsonl"),
                 *V021.rglob("*.jsonl")]:
        assert detect_format(path).name == "every-eval-ever", path


def test_eee_030_against_the_inspect_logs_and_the_aggregates() -> None:
    result = _read(V030)
    frame = result.frame
    # every record's score is the Inspect log's (C = 1, I = 0) for the same sample
    for log_path in sorted(ARC_LOGS.glob("*.json")):
        log = json.loads(log_path.read_text())
        expected = {str(s["id"]): {"C": 1.0, "I": 0.0}[s["scores"]["choice"]["value"]]
                    for s in log["samples"]}
        # the converter renames the models (claude-sonnet-4-0 -> ...-20250514): the
        # system is the one scored on this log's samples (3 and 5 samples)
        [system] = [s for s, rows in frame.groupby("system")
                    if set(rows["item"]) == set(expected)]
        rows = frame[frame["system"] == system]
        assert dict(zip(rows["item"], rows["score"])) == expected
    # the aggregate every_eval_ever wrote is the mean of its records
    for path in _aggregates(V030):
        aggregate = json.loads(path.read_text())
        [entry] = aggregate["evaluation_results"]
        rows = frame[frame["system"] == aggregate["model_info"]["id"]]
        assert rows["score"].mean() == pytest.approx(entry["score_details"]["score"])
        assert entry["metric_config"]["lower_is_better"] is False
    assert set(frame["metric"]) == {"accuracy"}  # metric_config.evaluation_description
    assert result.directions == {"accuracy": "higher"}
    assert set(frame["dataset"]) == {"arc_easy"} and set(frame["run"]) == {1}


def test_eee_021_samples_alone_against_helm_per_instance_stats() -> None:
    result = _read(V021)
    frame = result.frame
    assert set(frame["metric"]) == {"score"} and result.directions == {}
    helm = {}
    for run in HELM_RUNS.iterdir():
        model = json.loads((run / "run_spec.json").read_text())["adapter_spec"]["model"]
        for entry in json.loads((run / "per_instance_stats.json").read_text()):
            for stat in entry["stats"]:
                if stat["name"]["name"] == "exact_match" and "perturbation" not in stat["name"]:
                    helm[(model, entry["instance_id"])] = stat["mean"]
    got = {(s, i): v for s, i, v in zip(frame["system"], frame["item"], frame["score"])}
    assert got and all(helm[key] == value for key, value in got.items())


def test_eee_aggregate_without_samples_is_skipped(tmp_path: Path) -> None:
    shutil.copytree(V030, tmp_path / "data")
    (lonely,) = [p for p in (tmp_path / "data").rglob("*_samples.jsonl") if "ollama" in str(p)]
    lonely.unlink()
    result = _read(tmp_path / "data")
    [skipped] = result.skipped
    assert skipped.reason.startswith("no instance-level file for evaluation "
                                     "'ai2_arc/ollama_qwen2.5:0.5b/")
    assert set(result.frame["system"]) == {"anthropic/claude-sonnet-4-20250514"}
    with pytest.raises(InputError, match="no instance-level file for evaluation"):
        _read(tmp_path / "data", strict_inputs=True)


def test_eee_sample_hash_mismatch_excludes_the_item(tmp_path: Path) -> None:
    shutil.copytree(V030, tmp_path / "data")
    (samples,) = [p for p in (tmp_path / "data").rglob("*_samples.jsonl") if "ollama" in str(p)]
    lines = samples.read_text().splitlines()
    record = json.loads(lines[0])
    record["sample_hash"] = "0" * 64
    samples.write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    result = _read(tmp_path / "data")
    assert record["sample_id"] not in set(result.frame["item"])
    assert {e.reason for e in result.exclusions} == {"sample_hash differs between systems"}
    assert any("different sample_hash" in p.message for p in result.problems)


def test_eee_020_boolean_score_and_bad_records(tmp_path: Path) -> None:
    # schema 0.2.0 allowed a boolean score; a record without sample_id is an error
    source = next(V021.rglob("*.jsonl"))
    record = json.loads(source.read_text().splitlines()[0])
    record["schema_version"], record["evaluation"]["score"] = "0.2.0", True
    path = tmp_path / "x_samples.jsonl"
    path.write_text(json.dumps(record) + "\n")
    assert _read(path).frame["score"].tolist() == [1.0]
    del record["sample_id"]
    path.write_text(json.dumps({**record, "sample_id": None}) + "\n")
    with pytest.raises(InputError, match=r"x_samples\.jsonl, line 1: the record has no "
                                         r"sample_id") as info:
        load(path, options=LoadOptions(format="every-eval-ever"))
    assert "instance_level_eval.schema.json" in (info.value.hint or "")


def test_eee_analyze_two_models() -> None:
    from reportgen.analysis import AnalysisOptions, analyze

    results = analyze(load(V030), AnalysisOptions(seed=1, n_resamples=99)).to_results()
    [comparison] = results["comparisons"]
    assert comparison["n_a"] == comparison["n_b"] == 3  # the shared samples
