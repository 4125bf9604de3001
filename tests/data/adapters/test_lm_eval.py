"""The lm-evaluation-harness adapter, on output written by lm_eval 0.4.13 itself.

The fixtures in ``tests/fixtures/lm_eval/`` come from ``generate.sh`` there (the dummy
model on two local tasks). Each count or score is checked against an independent reading
of the same files with plain :mod:`json`: the samples lines, and lm-eval's own aggregate
numbers in ``results_*.json`` (``"acc,none"`` is the mean of the per-sample ``acc``).
"""

from __future__ import annotations

import json
import shutil
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import reportgen.data.adapters.lm_eval  # noqa: F401  (registers the adapter)
from reportgen.data import TEXT_ROLES
from reportgen.data.adapters import AdapterResult, LoadOptions, detect_format, get_adapter
from reportgen.errors import InputError

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "lm_eval"
OUTPUT = FIXTURES / "output"
RERUN = FIXTURES / "output_rerun"
MODIFIED = FIXTURES / "output_modified"


def _read(path: Path, **options: Any) -> AdapterResult:
    return get_adapter("lm-eval").read(path, LoadOptions(**options))


def _results_file(folder: Path) -> Path:
    (path,) = sorted(folder.glob("results_*.json"))
    return path


def _samples_file(folder: Path, task: str) -> Path:
    (path,) = sorted(folder.glob(f"samples_{task}_*.jsonl"))
    return path


def _copy_models(tmp_path: Path, *folders: Path) -> Path:
    """An output folder in tmp_path holding copies of the given model folders' files."""
    out = tmp_path / "out"
    for folder in folders:
        target = out / folder.name
        target.mkdir(parents=True, exist_ok=True)
        for file in folder.iterdir():
            shutil.copy(file, target / file.name)
    return out


def _plain_expected(
    folders: list[Path], filters: dict[str, str] | None = None
) -> dict[tuple[str, str, str], list[float]]:
    """(system, task, metric) -> per-sample values, read with plain json: the lines of
    each task's first filter (or the one in ``filters``), numeric metric values only."""
    expected: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for folder in folders:
        system = json.loads(_results_file(folder).read_text())["model_name"]
        for path in sorted(folder.glob("samples_*.jsonl")):
            records = [json.loads(line) for line in path.read_text().splitlines()]
            task = path.name[len("samples_") :].rsplit("_", 1)[0]
            keep = (filters or {}).get(task, records[0]["filter"])
            for record in records:
                if record["filter"] != keep:
                    continue
                for metric in record["metrics"]:
                    value = record[metric]
                    if isinstance(value, (int, float)):
                        expected[(system, task, metric)].append(float(value))
    return dict(expected)


# --------------------------------------------------------------------------- detection


def test_lm_eval_sniff_folders_and_results_file() -> None:
    for path in (OUTPUT, OUTPUT / "sys-a", FIXTURES, _results_file(OUTPUT / "sys-b")):
        assert detect_format(path).name == "lm-eval", path


def test_lm_eval_sniff_rejects_other_paths(tmp_path: Path) -> None:
    adapter = get_adapter("lm-eval")
    samples = _samples_file(OUTPUT / "sys-a", "tiny_mc")
    assert not adapter.sniff(samples, samples.read_bytes()[:65536])
    assert not adapter.sniff(FIXTURES / "tasks", None)
    # results files three folder levels down are out of reach
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    shutil.copy(_results_file(OUTPUT / "sys-a"), deep)
    assert not adapter.sniff(tmp_path, None)
    assert adapter.sniff(tmp_path / "a", None)
    # a reportgen results.json is not an lm-eval results file
    other = tmp_path / "results.json"
    other.write_text('{"reportgen_version": "0", "results": {}}')
    assert not adapter.sniff(other, other.read_bytes())


# --------------------------------------------------------------------------- reading


def test_lm_eval_frame_against_plain_json_reading() -> None:
    result = _read(OUTPUT)
    frame = result.frame
    expected = _plain_expected([OUTPUT / "sys-a", OUTPUT / "sys-b"])
    # the contract's columns, then the item text (optional columns of the contract)
    assert list(frame.columns) == [
        "system",
        "dataset",
        "metric",
        "item",
        "score",
        "_file",
        "_line",
        *TEXT_ROLES,
    ]
    assert frame["score"].dtype == np.float64
    assert frame["_line"].dtype == np.int64
    for column in ("system", "dataset", "metric", "item", "_file"):
        assert pd.api.types.is_string_dtype(frame[column]), column
    got = {
        key: list(group["score"])
        for key, group in frame.groupby(["system", "dataset", "metric"], sort=True)
    }
    assert got == dict(sorted(expected.items()))
    assert set(frame["system"]) == {"sys-a", "sys-b"}
    assert set(frame["dataset"]) == {"tiny_mc", "tiny_gen"}  # not the group tiny_suite
    assert set(frame["metric"]) == {"acc", "acc_norm", "exact_match"}
    assert frame.groupby("dataset")["item"].nunique().to_dict() == {"tiny_gen": 10, "tiny_mc": 10}
    assert sorted(frame["item"].unique(), key=int) == [str(i) for i in range(10)]
    assert len(frame) == 2 * (10 * 2 + 10)
    assert result.exclusions == []


def test_lm_eval_means_match_lm_eval_aggregates() -> None:
    # lm-eval's "acc,none" etc. are the means of the per-sample values it logged.
    frame = _read(OUTPUT).frame
    for model in ("sys-a", "sys-b"):
        aggregates = json.loads(_results_file(OUTPUT / model).read_text())["results"]
        means = frame[frame["system"] == model].groupby(["dataset", "metric"])["score"].mean()
        assert means[("tiny_mc", "acc")] == pytest.approx(aggregates["tiny_mc"]["acc,none"])
        assert means[("tiny_mc", "acc_norm")] == pytest.approx(
            aggregates["tiny_mc"]["acc_norm,none"]
        )
        assert means[("tiny_gen", "exact_match")] == pytest.approx(
            aggregates["tiny_gen"]["exact_match,strict-match"]
        )


def test_lm_eval_provenance_points_at_samples_line() -> None:
    frame = _read(OUTPUT).frame
    row = frame[
        (frame["system"] == "sys-b")
        & (frame["dataset"] == "tiny_mc")
        & (frame["metric"] == "acc_norm")
        & (frame["item"] == "7")
    ].iloc[0]
    line = Path(row["_file"]).read_text().splitlines()[row["_line"] - 1]
    record = json.loads(line)
    assert record["doc_id"] == 7
    assert record["acc_norm"] == row["score"]


def test_lm_eval_single_model_folder_and_single_file() -> None:
    folder = _read(OUTPUT / "sys-b").frame
    single = _read(_results_file(OUTPUT / "sys-b")).frame
    assert set(folder["system"]) == {"sys-b"}
    pd.testing.assert_frame_equal(folder, single)
    expected = _plain_expected([OUTPUT / "sys-b"])
    assert len(folder) == sum(len(v) for v in expected.values())


def test_lm_eval_json_output_path_layout(tmp_path: Path) -> None:
    # `--output_path NAME.json` writes NAME_<date>.json with the samples files beside it.
    out = _copy_models(tmp_path, OUTPUT / "sys-a")
    results = _results_file(out / "sys-a")
    renamed = results.with_name("mine_" + results.name[len("results_") :])
    results.rename(renamed)
    frame = _read(renamed).frame
    assert len(frame) == len(_read(OUTPUT / "sys-a").frame)


def test_lm_eval_directions_from_higher_is_better(tmp_path: Path) -> None:
    assert _read(OUTPUT).directions == {
        "acc": "higher",
        "acc_norm": "higher",
        "exact_match": "higher",
    }
    out = _copy_models(tmp_path, OUTPUT / "sys-a")
    path = _results_file(out / "sys-a")
    data = json.loads(path.read_text())
    data["higher_is_better"]["tiny_mc"]["acc_norm"] = False
    path.write_text(json.dumps(data))
    assert _read(out).directions["acc_norm"] == "lower"


def test_lm_eval_corpus_metric_skipped_with_problem() -> None:
    result = _read(OUTPUT)
    assert "bleu" not in set(result.frame["metric"])
    (problem,) = [p for p in result.problems if "bleu" in p.message]
    assert problem.severity == "warning"
    assert problem.dataset == "tiny_gen"
    assert (
        "inputs of a corpus-level metric (lm-eval aggregates them with 'bleu')" in problem.message
    )
    assert problem.location is not None and "samples_tiny_gen_" in str(problem.location.file)


def test_lm_eval_non_mean_aggregation_warns(tmp_path: Path) -> None:
    out = _copy_models(tmp_path, OUTPUT / "sys-a")
    path = _results_file(out / "sys-a")
    data = json.loads(path.read_text())
    data["configs"]["tiny_mc"]["metric_list"][1]["aggregation"] = "median"
    path.write_text(json.dumps(data))
    messages = [p.message for p in _read(out).problems]
    assert any(
        "'acc_norm' of task 'tiny_mc': lm-eval aggregates it with 'median'" in m for m in messages
    )


# --------------------------------------------------------------------------- filters


def test_lm_eval_filter_default_is_first_listed() -> None:
    result = _read(OUTPUT)
    gen = result.frame[result.frame["dataset"] == "tiny_gen"]
    lines = [json.loads(x) for x in Path(gen["_file"].iloc[0]).read_text().splitlines()]
    assert {lines[i - 1]["filter"] for i in gen["_line"]} == {"strict-match"}
    assert any(
        "filter 'strict-match' (the first of strict-match, flexible-extract)" in p.message
        for p in result.problems
        if p.severity == "info"
    )


def test_lm_eval_filter_option_selects_filter() -> None:
    frame = _read(OUTPUT, lm_eval_filter="flexible-extract").frame
    expected = _plain_expected(
        [OUTPUT / "sys-a", OUTPUT / "sys-b"], {"tiny_gen": "flexible-extract"}
    )
    got = {
        key: list(group["score"])
        for key, group in frame.groupby(["system", "dataset", "metric"], sort=True)
    }
    assert got == dict(sorted(expected.items()))
    aggregates = json.loads(_results_file(OUTPUT / "sys-a").read_text())["results"]
    em = frame[(frame["system"] == "sys-a") & (frame["metric"] == "exact_match")]["score"]
    assert em.mean() == pytest.approx(aggregates["tiny_gen"]["exact_match,flexible-extract"])
    assert em.mean() != aggregates["tiny_gen"]["exact_match,strict-match"]
    # tiny_mc has only the filter "none" and keeps it
    assert (frame["dataset"] == "tiny_mc").sum() == 2 * 2 * 10


def test_lm_eval_filter_unknown_everywhere() -> None:
    with pytest.raises(InputError, match=r"no task has the lm-eval filter 'flexible'") as info:
        _read(OUTPUT, lm_eval_filter="flexible")
    assert "flexible-extract, none, strict-match" in (info.value.hint or "")


def test_lm_eval_filter_missing_from_task_with_several() -> None:
    with pytest.raises(InputError, match=r"task 'tiny_gen' has no lm-eval filter 'none'") as info:
        _read(OUTPUT, lm_eval_filter="none")
    assert "strict-match, flexible-extract" in (info.value.hint or "")


# --------------------------------------------------------------------------- systems


def test_lm_eval_doc_hash_mismatch_excluded(tmp_path: Path) -> None:
    out = _copy_models(tmp_path, OUTPUT / "sys-a", OUTPUT / "sys-b", MODIFIED / "sys-c")
    result = _read(out)
    frame = result.frame
    # independent: doc_ids whose doc_hash differs, per task, from the raw lines
    hashes: dict[tuple[str, str], set[str]] = defaultdict(set)
    for path in out.glob("*/samples_*.jsonl"):
        task = path.name[len("samples_") :].rsplit("_", 1)[0]
        for line in path.read_text().splitlines():
            record = json.loads(line)
            hashes[(task, str(record["doc_id"]))].add(record["doc_hash"])
    differing = sorted((t, d) for (t, d), h in hashes.items() if len(h) > 1)
    assert differing == [("tiny_gen", "2"), ("tiny_gen", "4"), ("tiny_gen", "6")]

    gen = frame[frame["dataset"] == "tiny_gen"]
    assert sorted(gen["item"].unique(), key=int) == ["0", "1", "3", "5", "7", "8", "9"]
    assert Counter(gen["system"]) == {"sys-a": 7, "sys-b": 7, "sys-c": 7}
    assert (frame["dataset"] == "tiny_mc").sum() == 3 * 2 * 10
    (warning,) = [p for p in result.problems if "doc_hash" in p.message]
    assert warning.severity == "warning" and warning.dataset == "tiny_gen"
    assert "task 'tiny_gen': 3 documents have" in warning.message
    assert "doc_id 2" in warning.message
    assert {(e.system, e.dataset, e.metric, e.count, e.reason) for e in result.exclusions} == {
        (s, "tiny_gen", "exact_match", 3, "doc_hash differs between systems")
        for s in ("sys-a", "sys-b", "sys-c")
    }


def test_lm_eval_repeated_runs_get_run_index(tmp_path: Path) -> None:
    out = _copy_models(tmp_path, OUTPUT / "sys-a", RERUN / "sys-a", OUTPUT / "sys-b")
    result = _read(out)
    frame = result.frame
    assert "run" in frame.columns and frame["run"].dtype == np.int64
    runs = frame.groupby("system")["run"].unique()
    assert sorted(runs["sys-a"]) == [0, 1] and list(runs["sys-b"]) == [0]
    # run 0 is the earlier results file (by its "date"): output/, seed 1
    dates = {
        p: json.loads(_results_file(p).read_text())["date"]
        for p in (OUTPUT / "sys-a", RERUN / "sys-a")
    }
    assert dates[OUTPUT / "sys-a"] < dates[RERUN / "sys-a"]
    first = frame[(frame["system"] == "sys-a") & (frame["run"] == 0)]
    assert {Path(f).name for f in first["_file"]} == {
        p.name for p in (OUTPUT / "sys-a").glob("samples_*.jsonl")
    }
    acc = json.loads(_results_file(RERUN / "sys-a").read_text())["results"]["tiny_mc"]
    second = frame[(frame["system"] == "sys-a") & (frame["run"] == 1) & (frame["metric"] == "acc")]
    assert second["score"].mean() == pytest.approx(acc["acc,none"])
    assert any("read as repeated runs 0..1" in p.message for p in result.problems)


def test_lm_eval_same_name_different_model_args(tmp_path: Path) -> None:
    out = _copy_models(tmp_path, OUTPUT / "sys-a")
    shutil.copytree(RERUN / "sys-a", out / "sys-a-rev")
    path = _results_file(out / "sys-a-rev")
    data = json.loads(path.read_text())
    data["config"]["model_args"]["revision"] = "step2"
    path.write_text(json.dumps(data))
    result = _read(out)
    assert set(result.frame["system"]) == {
        "sys-a [dummy: pretrained=sys-a]",
        "sys-a [dummy: pretrained=sys-a,revision=step2]",
    }
    assert "run" not in result.frame.columns
    attrs = result.system_attributes["sys-a [dummy: pretrained=sys-a,revision=step2]"]
    assert attrs["model"] == "dummy" and attrs["lm_eval_version"] == "0.4.13"


def test_lm_eval_builds_score_table() -> None:
    from reportgen.data import build_score_table

    table = build_score_table(_read(OUTPUT))
    assert set(table.systems) == {"sys-a", "sys-b"}
    assert set(table.datasets) == {"tiny_mc", "tiny_gen"}


# --------------------------------------------------------------------------- malformed


def test_lm_eval_truncated_results_json(tmp_path: Path) -> None:
    out = _copy_models(tmp_path, OUTPUT / "sys-a")
    path = _results_file(out / "sys-a")
    path.write_text(path.read_text()[:500])
    with pytest.raises(
        InputError,
        match=r"results_.*\.json, line \d+, column \d+: "
        r"invalid JSON",
    ):
        _read(out)


def test_lm_eval_results_without_results_object(tmp_path: Path) -> None:
    out = _copy_models(tmp_path, OUTPUT / "sys-a")
    path = _results_file(out / "sys-a")
    path.write_text('{"config": {"model": "dummy"}}')
    with pytest.raises(
        InputError,
        match=r"not an lm-evaluation-harness results file: "
        r'no "results" object',
    ):
        _read(out)


def test_lm_eval_missing_samples_file_is_skipped(tmp_path: Path) -> None:
    out = _copy_models(tmp_path, OUTPUT / "sys-a")
    _samples_file(out / "sys-a", "tiny_mc").unlink()
    result = _read(out)
    assert set(result.frame["dataset"]) == {"tiny_gen"}
    (skipped,) = result.skipped
    assert Path(skipped.path).name.startswith("results_")
    assert skipped.reason.startswith(
        "no per-sample file for task 'tiny_mc': expected samples_tiny_mc_"
    )
    with pytest.raises(
        InputError,
        match=r"no per-sample file for task 'tiny_mc': expected "
        r"samples_tiny_mc_.*\.jsonl",
    ) as info:
        _read(out, strict_inputs=True)
    assert info.value.location is not None
    assert Path(str(info.value.location.file)).name.startswith("results_")
    assert "--log_samples" in (info.value.hint or "")


def test_lm_eval_samples_line_not_json(tmp_path: Path) -> None:
    out = _copy_models(tmp_path, OUTPUT / "sys-a")
    path = _samples_file(out / "sys-a", "tiny_gen")
    lines = path.read_text().splitlines()
    lines[3] = lines[3][:40]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(
        InputError,
        match=r"samples_tiny_gen_.*\.jsonl, line 4, column \d+: "
        r"invalid JSON",
    ):
        _read(out)


def test_lm_eval_samples_line_without_doc_id(tmp_path: Path) -> None:
    out = _copy_models(tmp_path, OUTPUT / "sys-a")
    path = _samples_file(out / "sys-a", "tiny_mc")
    lines = path.read_text().splitlines()
    record = json.loads(lines[1])
    del record["doc_id"]
    lines[1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"line 2: sample without a doc_id"):
        _read(out)


def test_lm_eval_samples_line_without_listed_metric(tmp_path: Path) -> None:
    out = _copy_models(tmp_path, OUTPUT / "sys-a")
    path = _samples_file(out / "sys-a", "tiny_mc")
    lines = path.read_text().splitlines()
    record = json.loads(lines[0])
    del record["acc_norm"]
    lines[0] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(
        InputError,
        match=r"line 1: sample lacks the value of metric "
        r"acc_norm",
    ):
        _read(out)


def test_lm_eval_filter_missing_in_one_file(tmp_path: Path) -> None:
    out = _copy_models(tmp_path, OUTPUT / "sys-a", OUTPUT / "sys-b")
    path = _samples_file(out / "sys-b", "tiny_gen")
    kept = [
        line
        for line in path.read_text().splitlines()
        if json.loads(line)["filter"] != "flexible-extract"
    ]
    path.write_text("\n".join(kept) + "\n")
    with pytest.raises(
        InputError,
        match=r"task 'tiny_gen' has no samples for filter "
        r"'flexible-extract' in this file",
    ):
        _read(out, lm_eval_filter="flexible-extract")


def test_lm_eval_folder_without_results(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no lm-eval results_\*\.json file in this folder"):
        _read(tmp_path)


def test_lm_eval_samples_metrics_not_a_list(tmp_path: Path) -> None:
    out = _copy_models(tmp_path, OUTPUT / "sys-a")
    path = _samples_file(out / "sys-a", "tiny_mc")
    lines = path.read_text().splitlines()
    record = json.loads(lines[2])
    record["metrics"] = "acc"
    lines[2] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"line 3: \"metrics\" is 'acc', expected a list"):
        _read(out)


def test_lm_eval_results_with_only_a_group(tmp_path: Path) -> None:
    out = _copy_models(tmp_path, OUTPUT / "sys-b")
    path = _results_file(out / "sys-b")
    data = json.loads(path.read_text())
    data["results"] = {"tiny_suite": data["results"]["tiny_suite"]}
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=r"the results file lists no task"):
        _read(out)


def test_lm_eval_outputs_given_as_separate_inputs_are_read_together() -> None:
    # a rerun passed as a second input becomes a second run, not a duplicate score
    from reportgen.data import load

    base = FIXTURES / "output"
    table = load([base, FIXTURES / "output_rerun"])
    assert table.runs_of("tiny_mc") == (0, 1)
