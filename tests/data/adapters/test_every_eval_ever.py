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
    for path in [
        V030,
        V021,
        *_aggregates(V030),
        *V030.rglob("*_samples.jsonl"),
        *V021.rglob("*.jsonl"),
    ]:
        assert detect_format(path).name == "every-eval-ever", path


def test_eee_030_against_the_inspect_logs_and_the_aggregates() -> None:
    result = _read(V030)
    frame = result.frame
    # every record's score is the Inspect log's (C = 1, I = 0) for the same sample
    for log_path in sorted(ARC_LOGS.glob("*.json")):
        log = json.loads(log_path.read_text())
        expected = {
            str(s["id"]): {"C": 1.0, "I": 0.0}[s["scores"]["choice"]["value"]]
            for s in log["samples"]
        }
        # the converter renames the models (claude-sonnet-4-0 -> ...-20250514): the
        # system is the one scored on this log's samples (3 and 5 samples)
        [system] = [s for s, rows in frame.groupby("system") if set(rows["item"]) == set(expected)]
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
    assert set(frame["dataset"]) == {"arc_easy"}
    assert "run" not in frame.columns  # one epoch: no run axis


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
    assert skipped.reason.startswith(
        "no instance-level file for evaluation 'ai2_arc/ollama_qwen2.5:0.5b/"
    )
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
    with pytest.raises(
        InputError,
        match=r"x_samples\.jsonl, line 1: the record has no "
        r"sample_id",
    ) as info:
        load(path, options=LoadOptions(format="every-eval-ever"))
    assert "instance_level_eval.schema.json" in (info.value.hint or "")


def test_eee_analyze_two_models() -> None:
    from reportgen.analysis import AnalysisOptions, analyze

    results = analyze(load(V030), AnalysisOptions(seed=1, n_resamples=99)).to_results()
    [comparison] = results["comparisons"]
    assert comparison["n_a"] == comparison["n_b"] == 3  # the shared samples


V022_LM_EVAL = REAL / "every_eval_ever" / "v0.2.2-lm_eval"
V022_EPOCHS = REAL / "every_eval_ever" / "v0.2.2-inspect-epochs"
V030_TRIALS = REAL / "every_eval_ever" / "v0.3.0-helm-trials"
HELM_TRIALS = REAL / "helm" / "trials-0.5.16"
LM_EVAL_045 = REAL / "lm_eval" / "v0.4.5"
EPOCH_LOGS = REAL / "inspect" / "epochs-0.3.285"


def test_eee_helm_trials_as_runs_against_helm_per_instance_stats() -> None:
    # reference: HELM's per_instance_stats.json of the same runs (num_train_trials=3), one
    # entry per (instance, train_trial_index); the converter writes one record per trial
    result = _read(V030_TRIALS)
    frame = result.frame
    assert set(frame["metric"]) == {"exact_match:test", "quasi_exact_match:test"}
    assert set(frame["run"]) == {1, 2, 3}
    assert (frame.groupby(["system", "metric", "item"])["run"].nunique() == 3).all()
    helm = {}
    for run in HELM_TRIALS.iterdir():
        model = "simple/" + run.name.split("model=simple_")[1].split(",")[0]
        for entry in json.loads((run / "per_instance_stats.json").read_text()):
            for stat in entry["stats"]:
                name = f"{stat['name']['name']}:{stat['name']['split']}"
                helm[(model, name, entry["instance_id"], entry["train_trial_index"] + 1)] = stat[
                    "mean"
                ]
    got = {
        (s, m, i, r): v
        for s, m, i, r, v in zip(
            frame["system"], frame["metric"], frame["item"], frame["run"], frame["score"]
        )
    }
    assert got == helm
    assert any(
        "HELM's converter writes one record per train trial" in p.message for p in result.problems
    )


def test_eee_lm_eval_placeholders_excluded_against_the_lm_eval_samples() -> None:
    # reference: the lm-eval 0.4.5 samples the converter read hold no "metrics" list, so
    # the converter's score 0.0 on every record is a placeholder, not a score
    source = next((LM_EVAL_045 / "sys-a").glob("samples_tiny_mc_*.jsonl"))
    lm_eval_samples = [json.loads(line) for line in source.read_text().splitlines()]
    assert all("metrics" not in sample for sample in lm_eval_samples)
    result = _read(V022_LM_EVAL)
    assert result.frame.empty
    counts = {e.system: e.count for e in result.exclusions}
    assert counts == {"sys-a": len(lm_eval_samples), "sys-b": len(lm_eval_samples)}
    assert all("placeholder" in e.reason for e in result.exclusions)
    assert any("metadata.lm_eval_metrics is {}" in p.message for p in result.problems)


def test_eee_inspect_epochs_reduced_against_the_inspect_logs() -> None:
    # reference: the Inspect logs the records were converted from (epochs=3, reducer
    # "mode"): the converter writes the epoch-reduced score on every epoch's record
    per_epoch = get_adapter("inspect").read(EPOCH_LOGS, LoadOptions()).frame
    mode = per_epoch.groupby(["system", "item"])["score"].agg(lambda s: s.mode().iloc[0])
    result = _read(V022_EPOCHS)
    frame = result.frame
    assert "run" not in frame.columns
    assert not frame.duplicated(["system", "item"]).any()
    got = frame.set_index(["system", "item"])["score"].sort_index()
    assert got.to_dict() == mode.sort_index().to_dict()
    # ... and the aggregate every_eval_ever wrote is their mean
    for path in _aggregates(V022_EPOCHS):
        aggregate = json.loads(path.read_text())
        [entry] = aggregate["evaluation_results"]
        rows = frame[frame["system"] == aggregate["model_info"]["id"]]
        assert rows["score"].mean() == pytest.approx(entry["score_details"]["score"])
    assert any("epoch-reduced score" in p.message for p in result.problems)


def test_eee_second_evaluation_adds_runs(tmp_path: Path) -> None:
    # two evaluations of toy/good on toy_addition: the epochs=3 log (reduced, one record
    # per sample kept) and an eval_set log of one epoch; reference: each evaluation's
    # own records, which become run 1 and run 2 in the order the files are read
    shutil.copytree(V022_EPOCHS, tmp_path / "data")
    rerun = REAL / "every_eval_ever" / "v0.2.2-inspect-rerun"
    shutil.copytree(rerun, tmp_path / "data", dirs_exist_ok=True)
    frame = _read(tmp_path / "data").frame
    good = frame[frame["system"] == "toy/good"]
    assert sorted(set(good["run"])) == [1, 2]
    assert (good.groupby("item")["run"].nunique() == 2).all()
    assert set(frame.loc[frame["system"] == "toy/mid", "run"]) == {1}
    by_run = {run: dict(zip(rows["item"], rows["score"])) for run, rows in good.groupby("run")}
    alone = {
        json.loads(line)["sample_id"]: float(json.loads(line)["evaluation"]["score"])
        for path in rerun.rglob("*_samples.jsonl")
        for line in path.read_text().splitlines()
    }
    assert alone in by_run.values()
