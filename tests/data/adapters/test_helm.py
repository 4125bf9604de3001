"""Tests of the HELM run-folder adapter on real (trimmed) ``helm-run`` output.

The fixtures in ``tests/fixtures/helm`` were written by crfm-helm 0.5.16 (see its
README.md); the oracles here are plain ``json`` reads of the same files and HELM's own
aggregate ``stats.json``.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import reportgen.data.adapters.helm  # noqa: F401  (registers the adapter)
from reportgen.data.adapters import LoadOptions, detect_format
from reportgen.data.adapters._base import SOURCE_FILE, SOURCE_LINE
from reportgen.data.adapters.helm import HelmAdapter
from reportgen.errors import InputError

OUTPUT = Path(__file__).parents[2] / "fixtures" / "helm" / "benchmark_output"
SUITE = OUTPUT / "runs" / "fixture"
PLAIN1 = SUITE / "simple_mcqa:model=simple_model1"
PLAIN2 = SUITE / "simple_mcqa:model=simple_model2"
LOWER2 = SUITE / "simple_mcqa:model=simple_model2,data_augmentation=lower"
TRIALS2 = SUITE / "simple_mcqa:model=simple_model2,num_train_trials=3"
RUNS = sorted(p for p in SUITE.iterdir() if (p / "per_instance_stats.json").is_file())

ADAPTER = HelmAdapter()
# num_prompt_tokens is bookkeeping (descriptive by default); named, it is read as a metric,
# which lets these tests follow every stat of the fixture
OPTIONS = LoadOptions(metric="num_prompt_tokens")


def _load(path: Path) -> Any:
    return json.loads(path.read_text())


def _read(path: Path):
    return ADAPTER.read(path, OPTIONS)


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A writable copy of the fixture suite."""
    dst = tmp_path / "runs" / "fixture"
    shutil.copytree(SUITE, dst)
    return dst


def _minimal_run(
    folder: Path, entries: list[dict[str, Any]], *, name: str = "toy:model=a_b", model: str = "a/b"
) -> Path:
    folder.mkdir(parents=True)
    (folder / "run_spec.json").write_text(
        json.dumps({"name": name, "adapter_spec": {"model": model, "model_deployment": model}})
    )
    (folder / "per_instance_stats.json").write_text(json.dumps(entries, indent=2))
    return folder


def _stat(name: str, mean: Any = 1.0, **extra: Any) -> dict[str, Any]:
    return {
        "name": {"name": name, "split": "test"},
        "count": 1,
        "sum": mean,
        "sum_squared": 1,
        "min": mean,
        "max": mean,
        "mean": mean,
        **extra,
    }


# --------------------------------------------------------------------------- sniffing


def test_helm_sniff_accepts_run_suite_runs_and_output_folders() -> None:
    for path in (PLAIN1, SUITE, SUITE.parent, OUTPUT):
        assert ADAPTER.sniff(path, None), path
        assert detect_format(path).name == "helm", path
    pis = PLAIN1 / "per_instance_stats.json"
    assert ADAPTER.sniff(pis, pis.read_bytes()[:100])
    spec = PLAIN1 / "run_spec.json"
    assert ADAPTER.sniff(spec, spec.read_bytes()[:100])


def test_helm_sniff_rejects_other_folders_and_files(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "scores.csv").write_text("system,item,score\n")
    assert not ADAPTER.sniff(tmp_path, None)
    deep = tmp_path / "d1" / "d2" / "d3" / "d4"
    _minimal_run(
        deep, [{"instance_id": "id1", "train_trial_index": 0, "stats": [_stat("exact_match")]}]
    )
    assert not ADAPTER.sniff(tmp_path, None)  # run folder 4 levels down
    assert ADAPTER.sniff(tmp_path / "d1", None)  # 3 levels down
    stats = PLAIN1 / "stats.json"
    assert not ADAPTER.sniff(stats, stats.read_bytes()[:100])
    lonely = tmp_path / "run_spec.json"
    lonely.write_text("{}")
    assert not ADAPTER.sniff(lonely, b"{}")


# --------------------------------------------------------------------------- reading the fixtures


def test_helm_read_counts_against_independent_json_count() -> None:
    result = _read(OUTPUT)
    frame = result.frame
    expected_rows: Counter[str] = Counter()
    expected_zero: Counter[str] = Counter()
    for run in RUNS:
        file = str(run / "per_instance_stats.json")
        for entry in _load(run / "per_instance_stats.json"):
            for stat in entry["stats"]:
                (expected_rows if stat["count"] > 0 else expected_zero)[file] += 1
    assert Counter(frame[SOURCE_FILE].map(str)) == expected_rows
    # the stats without a value are all training_co2_cost, a bookkeeping statistic: they
    # exclude nothing that is compared, so no exclusion is listed for them
    assert result.exclusions == []
    assert len(frame) == sum(expected_rows.values()) == 288
    assert sum(expected_zero.values()) == 96


def test_helm_read_columns_and_dtypes() -> None:
    frame = _read(OUTPUT).frame
    assert list(frame.columns) == [
        "system",
        "dataset",
        "metric",
        "item",
        "run",
        "score",
        SOURCE_FILE,
        SOURCE_LINE,
    ]
    assert frame["score"].dtype == np.float64
    assert frame["run"].dtype == np.int64
    assert frame[SOURCE_LINE].dtype == np.int64
    for column in ("system", "dataset", "metric", "item", SOURCE_FILE):
        assert all(isinstance(v, str) for v in frame[column])


def test_helm_read_maps_system_dataset_and_item() -> None:
    result = _read(SUITE)
    frame = result.frame
    assert set(frame["system"]) == {"simple/model1", "simple/model2"}
    assert result.system_attributes == {
        "simple/model1": {"model_deployment": "simple/model1"},
        "simple/model2": {"model_deployment": "local/parity-v1"},
    }
    assert set(frame["dataset"]) == {
        "simple_mcqa",
        "simple_mcqa:data_augmentation=lower",
        "simple_mcqa:num_train_trials=3",
    }
    for run in RUNS:
        spec = _load(run / "run_spec.json")
        rows = frame[frame[SOURCE_FILE] == str(run / "per_instance_stats.json")]
        assert set(rows["system"]) == {spec["adapter_spec"]["model"]}
        ids = {e["instance_id"] for e in _load(run / "per_instance_stats.json")}
        assert set(rows["item"]) == ids
    assert len(set(frame["item"])) == 8


def test_helm_read_means_match_helm_stats_json() -> None:
    # oracle: HELM's own aggregate stats.json (mean over train trials of the per-trial
    # mean over instances; equal to the pooled mean here since every trial has 8 instances)
    frame = _read(SUITE).frame
    checked = 0
    for run in RUNS:
        rows = frame[frame[SOURCE_FILE] == str(run / "per_instance_stats.json")]
        for stat in _load(run / "stats.json"):
            name = stat["name"]
            perturbation = name.get("perturbation")
            if stat["count"] == 0 or name.get("split") != "test":
                continue
            if perturbation is None:
                metric = name["name"]
            elif perturbation["computed_on"] == "perturbed":
                metric = f"{name['name']}|perturbation={perturbation['name']}"
            else:
                continue  # "original"/"worst" aggregates have no per-instance rows
            ours = rows.loc[rows["metric"] == metric, "score"]
            assert len(ours) > 0, (run.name, metric)
            assert ours.mean() == pytest.approx(stat["mean"], rel=1e-12), (run.name, metric)
            checked += 1
    assert checked == 24


def test_helm_read_train_trials_map_to_run() -> None:
    frame = _read(SUITE).frame
    trials = frame[frame["dataset"] == "simple_mcqa:num_train_trials=3"]
    assert sorted(set(trials["run"])) == [0, 1, 2]
    per_item = trials[trials["metric"] == "exact_match"].groupby(["system", "item"])["run"]
    assert (per_item.nunique() == 3).all() and (per_item.size() == 3).all()
    assert set(frame.loc[frame["dataset"] != "simple_mcqa:num_train_trials=3", "run"]) == {0}
    # each row's run is the entry's train_trial_index in the file
    entries = _load(TRIALS2 / "per_instance_stats.json")
    expected = Counter(
        (e["instance_id"], e["train_trial_index"])
        for e in entries
        for s in e["stats"]
        if s["count"] > 0
    )
    rows = frame[frame[SOURCE_FILE] == str(TRIALS2 / "per_instance_stats.json")]
    assert Counter(zip(rows["item"], rows["run"], strict=True)) == expected


def test_helm_read_perturbation_qualifies_the_metric() -> None:
    frame = _read(LOWER2).frame
    assert set(frame["metric"]) == {
        "exact_match",
        "quasi_exact_match",
        "num_prompt_tokens",
        "exact_match|perturbation=lowercase",
        "quasi_exact_match|perturbation=lowercase",
        "num_prompt_tokens|perturbation=lowercase",
    }
    entries = _load(LOWER2 / "per_instance_stats.json")
    for entry in entries:
        perturbed = entry.get("perturbation") is not None
        metric = "exact_match|perturbation=lowercase" if perturbed else "exact_match"
        stat = next(s for s in entry["stats"] if s["name"]["name"] == "exact_match")
        row = frame[(frame["metric"] == metric) & (frame["item"] == entry["instance_id"])]
        assert list(row["score"]) == [stat["mean"]]
    # perturbed and original copies share item ids, so they pair up
    original = set(frame.loc[frame["metric"] == "exact_match", "item"])
    assert (
        set(frame.loc[frame["metric"] == "exact_match|perturbation=lowercase", "item"]) == original
    )
    # the parity client errs on lower-cased questions about multiples of 4 (id38 = 48)
    pick = frame[(frame["item"] == "id38") & frame["metric"].str.startswith("exact_match")]
    assert dict(zip(pick["metric"], pick["score"], strict=True)) == {
        "exact_match": 1.0,
        "exact_match|perturbation=lowercase": 0.0,
    }


def test_helm_read_run_folder_file_and_run_spec_agree() -> None:
    by_folder = _read(PLAIN2).frame
    by_file = _read(PLAIN2 / "per_instance_stats.json").frame
    by_spec = _read(PLAIN2 / "run_spec.json").frame
    assert by_folder.equals(by_file) and by_folder.equals(by_spec)
    assert len(by_folder) == 24


def test_helm_read_lines_point_at_the_entry() -> None:
    frame = _read(PLAIN1).frame
    lines = (PLAIN1 / "per_instance_stats.json").read_text().splitlines()
    for line, item in zip(frame[SOURCE_LINE], frame["item"], strict=True):
        assert lines[line - 1].strip() == "{"
        assert lines[line].strip() == f'"instance_id": "{item}",'


def test_helm_read_model_with_two_deployments_gets_two_systems(suite: Path) -> None:
    spec_path = suite / TRIALS2.name / "run_spec.json"
    spec = _load(spec_path)
    spec["adapter_spec"]["model_deployment"] = "local/parity-v2"
    spec_path.write_text(json.dumps(spec))
    result = _read(suite)
    assert set(result.frame["system"]) == {
        "simple/model1",
        "simple/model2@local/parity-v1",
        "simple/model2@local/parity-v2",
    }
    assert result.system_attributes["simple/model2@local/parity-v2"] == {
        "model_deployment": "local/parity-v2"
    }


def test_helm_read_split_sub_split_seed_and_sum(tmp_path: Path) -> None:
    valid = {"name": "exact_match", "split": "valid", "sub_split": "toxic"}
    entries = [
        {
            "instance_id": "id1",
            "train_trial_index": 0,
            "stats": [{"name": valid, "count": 2, "sum": 1.0}],
        },
        {
            "instance_id": "id2",
            "train_trial_index": 0,
            "perturbation": {
                "name": "typo",
                "robustness": True,
                "computed_on": "perturbed",
                "seed": 3,
            },
            "stats": [
                {
                    "name": {
                        "name": "exact_match",
                        "split": "test",
                        "perturbation": {"name": "typo", "computed_on": "worst"},
                    },
                    "count": 1,
                    "mean": 1,
                }
            ],
        },
    ]
    frame = _read(_minimal_run(tmp_path / "run", entries)).frame
    rows = frame.to_dict("records")
    assert [(r["dataset"], r["metric"], r["item"], r["score"]) for r in rows] == [
        ("toy|split=valid", "exact_match", "id1", 0.5),
        ("toy", "exact_match|perturbation=typo|computed_on=worst", "id2|seed=3", 1.0),
    ]
    assert frame["sub_split"].iloc[0] == "toxic" and pd.isna(frame["sub_split"].iloc[1])


def test_helm_read_skips_run_without_per_instance_stats(suite: Path) -> None:
    failed = suite / "simple_mcqa:model=simple_model3"
    failed.mkdir()
    shutil.copyfile(PLAIN1 / "run_spec.json", failed / "run_spec.json")
    result = _read(suite)
    assert len(result.frame) == 288
    assert [p.severity for p in result.problems] == ["warning"]
    assert "without per_instance_stats.json" in result.problems[0].message
    assert result.problems[0].location is not None
    assert result.problems[0].location.file == str(failed)


def test_helm_read_empty_list_warns(tmp_path: Path) -> None:
    result = _read(_minimal_run(tmp_path / "run", []))
    assert len(result.frame) == 0
    assert "empty list" in result.problems[0].message


# --------------------------------------------------------------------------- malformed input


def test_helm_read_missing_run_spec(suite: Path) -> None:
    (suite / PLAIN1.name / "run_spec.json").unlink()
    with pytest.raises(
        InputError,
        match=r"run_spec\.json is missing next to "
        r"per_instance_stats\.json",
    ) as info:
        _read(suite)
    assert info.value.location is not None
    assert info.value.location.file == str(suite / PLAIN1.name / "run_spec.json")
    assert info.value.hint


def test_helm_read_per_instance_stats_not_a_list(tmp_path: Path) -> None:
    run = _minimal_run(tmp_path / "run", [])
    (run / "per_instance_stats.json").write_text('{"instance_id": "id1"}')
    with pytest.raises(
        InputError,
        match=r"per_instance_stats\.json holds a JSON object, "
        r"expected a list",
    ) as info:
        _read(run)
    assert info.value.location is not None and info.value.location.line == 1


def test_helm_read_stat_without_name(suite: Path) -> None:
    path = suite / PLAIN1.name / "per_instance_stats.json"
    entries = _load(path)
    del entries[2]["stats"][1]["name"]
    path.write_text(json.dumps(entries, indent=2))
    with pytest.raises(InputError, match=r"instance 'id41', stat 2 has no name") as info:
        _read(path)
    assert info.value.location is not None and info.value.location.file == str(path)
    # the entry starts on the line of its third "{" at indentation 2
    lines = path.read_text().splitlines()
    assert lines[info.value.location.line - 1] == "  {"
    assert '"id41"' in lines[info.value.location.line]


def test_helm_read_non_numeric_mean(suite: Path) -> None:
    path = suite / PLAIN2.name / "per_instance_stats.json"
    entries = _load(path)
    entries[0]["stats"][0]["mean"] = "high"
    path.write_text(json.dumps(entries, indent=2))
    with pytest.raises(
        InputError,
        match=r"stat 1 \('num_prompt_tokens'\): mean = 'high' is not "
        r"a number",
    ) as info:
        _read(suite)
    assert info.value.location is not None and info.value.location.line == 2


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda e: e[0].pop("instance_id"), r"entry 1 has no instance_id"),
        (
            lambda e: e[0].update(train_trial_index="zero"),
            r"entry 1: train_trial_index = 'zero' is not a non-negative whole number",
        ),
        (
            lambda e: e[0].update(stats={"exact_match": 1}),
            r"entry 1 \(instance 'id60'\): 'stats' is object, expected a list",
        ),
        (lambda e: e.__setitem__(0, ["id60"]), r"entry 1 is a JSON list, expected an object"),
        (
            lambda e: e[0]["stats"][0].update(count=-1),
            r"stat 1 \('num_prompt_tokens'\): count = -1 is not a non-negative number",
        ),
        (
            lambda e: e[0]["stats"][0].pop("mean") and e[0]["stats"][0].pop("sum"),
            r"stat 1 \('num_prompt_tokens'\) has no mean",
        ),
        (
            lambda e: e[0]["stats"][0]["name"].update(perturbation={"robustness": True}),
            r"stat 1 \('num_prompt_tokens'\): the perturbation has no name",
        ),
        (lambda e: e[0]["stats"][0]["name"].update(split=3), r"split = 3 is not text"),
        (
            lambda e: e[0].update(perturbation="lower"),
            r"entry 1: 'perturbation' is string, expected an object",
        ),
    ],
)
def test_helm_read_malformed_entries(suite: Path, mutate: Any, message: str) -> None:
    path = suite / PLAIN1.name / "per_instance_stats.json"
    entries = _load(path)
    mutate(entries)
    path.write_text(json.dumps(entries, indent=2))
    with pytest.raises(InputError, match=message) as info:
        _read(path)
    assert info.value.location is not None and info.value.location.file == str(path)
    assert info.value.hint


def test_helm_read_truncated_json_names_line(suite: Path) -> None:
    path = suite / PLAIN1.name / "per_instance_stats.json"
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    with pytest.raises(InputError, match=r"invalid JSON") as info:
        _read(path)
    assert info.value.location is not None and info.value.location.line is not None


def test_helm_read_trailing_garbage(tmp_path: Path) -> None:
    run = _minimal_run(tmp_path / "run", [])
    (run / "per_instance_stats.json").write_text("[]\n]")
    with pytest.raises(InputError, match=r"invalid JSON: Extra data") as info:
        _read(run)
    assert info.value.location is not None and info.value.location.line == 2


def test_helm_read_empty_per_instance_stats_file(tmp_path: Path) -> None:
    run = _minimal_run(tmp_path / "run", [])
    (run / "per_instance_stats.json").write_text("  \n")
    with pytest.raises(InputError, match=r"the file is empty"):
        _read(run)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ([], r"run_spec\.json holds a JSON list, expected an object"),
        ({"adapter_spec": {"model": "a/b"}}, r"run_spec\.json has no run name"),
        ({"name": "toy:model=a_b"}, r"run_spec\.json has no 'adapter_spec' object"),
        (
            {"name": "toy:model=a_b", "adapter_spec": {"model": ""}},
            r"run_spec\.json names no model",
        ),
    ],
)
def test_helm_read_malformed_run_spec(tmp_path: Path, spec: Any, message: str) -> None:
    run = _minimal_run(tmp_path / "run", [])
    (run / "run_spec.json").write_text(json.dumps(spec))
    with pytest.raises(InputError, match=message) as info:
        _read(run)
    assert info.value.location is not None
    assert info.value.location.file == str(run / "run_spec.json")


def test_helm_read_same_run_in_two_suites(tmp_path: Path) -> None:
    # runs/v3 and runs/v4 with the same run names: one dataset per suite
    for suite_name in ("v3", "v4"):
        for run in (PLAIN1, PLAIN2):
            shutil.copytree(run, tmp_path / "runs" / suite_name / run.name)
    result = _read(tmp_path)
    assert set(result.frame["dataset"]) == {"simple_mcqa|suite=v3", "simple_mcqa|suite=v4"}
    assert set(result.frame["system"]) == {"simple/model1", "simple/model2"}
    assert any("come from several suites" in p.message for p in result.problems)


def test_helm_read_other_files_of_a_run_folder(suite: Path) -> None:
    with pytest.raises(
        InputError,
        match=r"the HELM format reads run folders, "
        r"per_instance_stats\.json or run_spec\.json, "
        r"not 'stats\.json'",
    ):
        _read(suite / PLAIN1.name / "stats.json")
    (suite / PLAIN1.name / "per_instance_stats.json").unlink()
    with pytest.raises(
        InputError,
        match=r"per_instance_stats\.json is missing next to "
        r"run_spec\.json",
    ):
        _read(suite / PLAIN1.name / "run_spec.json")


def test_helm_read_folder_without_runs(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    with pytest.raises(
        InputError,
        match=r"no HELM run folder \(run_spec\.json \+ "
        r"per_instance_stats\.json\) found",
    ):
        _read(tmp_path)


def test_helm_dataset_name_drops_only_model_arguments() -> None:
    from reportgen.data.adapters.helm import _dataset_name

    name = "mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2"
    assert _dataset_name(name) == "mmlu:subject=anatomy,method=multiple_choice_joint"
    assert _dataset_name("simple1:model=simple_model1") == "simple1"
    assert (
        _dataset_name("x:model_deployment=h_gpt2,model=openai_gpt2,data_augmentation=lower")
        == "x:data_augmentation=lower"
    )
    assert _dataset_name("plain") == "plain"
