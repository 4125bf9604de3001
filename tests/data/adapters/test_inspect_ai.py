"""Tests of the Inspect AI log adapter on logs written by Inspect itself.

The fixtures in ``tests/fixtures/inspect/`` come from running inspect-ai 0.3.285 offline
with the mockllm provider (``tests/fixtures/inspect/generate.py`` says how). The expected
tables are computed here independently, from the files read with plain ``json`` and
``zipfile``, following Inspect's documented log layout.
"""

from __future__ import annotations

import copy
import json
import math
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import reportgen.data.adapters.inspect_ai  # noqa: F401  (registers the adapter)
from reportgen.data.adapters import LoadOptions, detect_format, get_adapter, read_inputs
from reportgen.data.adapters._base import AdapterResult
from reportgen.data.adapters.inspect_ai import score_value_to_float
from reportgen.errors import InputError

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "inspect"
EVAL_DIR, JSON_DIR, DEFLATE_DIR = FIXTURES / "eval", FIXTURES / "json", FIXTURES / "deflate"
KEY = ["system", "dataset", "metric", "item", "run"]


def _read(path: Path) -> AdapterResult:
    return get_adapter("inspect").read(path, LoadOptions())


# --------------------------------------------------------------------------- oracles


def _plain_value(value: Any) -> float:
    # Inspect's value_to_float defaults: CORRECT "C" 1, INCORRECT "I" 0, PARTIAL "P" 0.5,
    # NOANSWER "N" 0; the fixtures also hold floats, ints and booleans
    letters = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
    return letters[value] if isinstance(value, str) else float(value)


def _expected_rows(samples: list[dict[str, Any]]) -> tuple[set[tuple], int]:
    """(metric, item, run, score) of every non-errored sample, and the errored count."""
    rows, errored = set(), 0
    for sample in samples:
        if sample.get("error"):
            errored += 1
            continue
        for scorer, score in sample["scores"].items():
            value = score["value"]
            pairs = (
                [(f"{scorer}/{k}", v) for k, v in value.items()]
                if isinstance(value, dict)
                else [(scorer, value)]
            )
            for metric, v in pairs:
                rows.add((metric, str(sample["id"]), sample["epoch"], _plain_value(v)))
    return rows, errored


def _json_samples(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text())["samples"]


def _zip_samples(path: Path) -> list[dict[str, Any]]:
    # stdlib zipfile reads the DEFLATE fixture; the sample entries, not the summaries
    with zipfile.ZipFile(path) as archive:
        return [
            json.loads(archive.read(name))
            for name in archive.namelist()
            if name.startswith("samples/")
        ]


def _frame_rows(frame: pd.DataFrame) -> set[tuple]:
    return set(zip(frame["metric"], frame["item"], frame["run"], frame["score"], strict=True))


def _copy_json_log(
    tmp_path: Path,
    mutate: Callable[[dict[str, Any]], Any],
    name: str = "log.json",
    source: str = "alpha.json",
) -> Path:
    data = json.loads((JSON_DIR / source).read_text())
    mutate(data)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def _rezip(
    source: Path, target: Path, keep: Callable[[str], bool], extra: dict[str, bytes] | None = None
) -> Path:
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if keep(info.filename):
                dst.writestr(info.filename, src.read(info))
        for name, data in (extra or {}).items():
            dst.writestr(name, data)
    return target


# --------------------------------------------------------------------------- fixtures


@pytest.mark.parametrize(
    "path",
    [
        EVAL_DIR / "alpha.eval",
        EVAL_DIR / "beta.eval",
        EVAL_DIR / "alpha-hint.eval",
        JSON_DIR / "alpha.json",
        JSON_DIR / "alpha-hint.json",
        DEFLATE_DIR / "alpha.eval",
    ],
)
def test_inspect_sniff_detects_logs(path: Path) -> None:
    assert detect_format(path).name == "inspect"


def test_inspect_sniff_claims_log_folders_only(tmp_path: Path) -> None:
    adapter = get_adapter("inspect")
    assert adapter.sniff(EVAL_DIR, None)
    assert adapter.sniff(JSON_DIR, None)
    shutil.copy(EVAL_DIR / "beta.eval", tmp_path)
    (tmp_path / "logs.json").write_text("{}")  # Inspect's log manifest is not a log
    assert adapter.sniff(tmp_path, None)
    (tmp_path / "other.csv").write_text("system,item,score\na,1,0\n")
    assert not adapter.sniff(tmp_path, None)  # mixed folders are read file by file
    assert not adapter.sniff(FIXTURES, None)  # no logs directly inside


@pytest.mark.parametrize("name", ["alpha.json", "alpha-hint.json"])
def test_inspect_json_against_plain_json(name: str) -> None:
    result = _read(JSON_DIR / name)
    expected, errored = _expected_rows(_json_samples(JSON_DIR / name))
    frame = result.frame
    assert _frame_rows(frame) == expected
    assert len(frame) == len(expected)
    assert set(frame["dataset"]) == {"arith"}
    assert set(frame["system"]) == {"mockllm/alpha"}
    assert frame["item"].nunique() == 8
    assert sorted(frame["run"].unique()) == [1, 2, 3]
    assert sorted(frame["metric"].unique()) == [
        "answer_stats/exact",
        "answer_stats/length",
        "closeness",
        "graded",
        "match",
    ]
    assert errored == 1
    [exclusion] = [e for e in result.exclusions if e.reason == "sample errored"]
    assert (exclusion.count, exclusion.metric, exclusion.system) == (1, None, "mockllm/alpha")


def test_inspect_deflate_eval_against_plain_zipfile() -> None:
    path = DEFLATE_DIR / "alpha.eval"
    expected, errored = _expected_rows(_zip_samples(path))
    result = _read(path)
    assert _frame_rows(result.frame) == expected
    assert len(result.frame) == len(expected)
    assert sum(e.count for e in result.exclusions if e.reason == "sample errored") == errored


def test_inspect_eval_and_json_give_the_same_table() -> None:
    for name in ("alpha", "alpha-hint"):
        frames = [
            _read(p).frame.drop(columns="_file")
            for p in (EVAL_DIR / f"{name}.eval", JSON_DIR / f"{name}.json")
        ]
        pd.testing.assert_frame_equal(frames[0], frames[1])
    deflate = _read(DEFLATE_DIR / "alpha.eval").frame.drop(columns="_file")
    pd.testing.assert_frame_equal(
        deflate, _read(JSON_DIR / "alpha.json").frame.drop(columns="_file")
    )


def test_inspect_zstd_eval_against_archive_listing() -> None:
    # the central directory lists samples/<id>_epoch_<n>.json without decompressing
    path = EVAL_DIR / "beta.eval"
    with zipfile.ZipFile(path) as archive:
        assert {i.compress_type for i in archive.infolist()} == {93}  # Zstandard
        keys = {
            tuple(n[len("samples/") : -len(".json")].split("_epoch_"))
            for n in archive.namelist()
            if n.startswith("samples/")
        }
    frame = _read(path).frame
    assert set(zip(frame["item"], frame["run"].astype(str), strict=True)) | {("5", "2")} == keys
    assert len(keys) == 24  # 8 samples x 3 epochs, sample 5 errored in epoch 2


def test_inspect_frame_columns_and_dtypes() -> None:
    frame = _read(EVAL_DIR / "alpha.eval").frame
    assert list(frame.columns) == [
        "system",
        "dataset",
        "metric",
        "item",
        "score",
        "run",
        "_file",
        "_line",
        # the item text (optional columns of the contract), taken out of the rows by
        # build_score_table before anything reads them
        "input",
        "output",
        "target",
        "explanation",
    ]
    assert frame["score"].dtype == "float64"
    assert frame["run"].dtype == "int64"
    assert frame["_line"].dtype == "int64"
    for column in ("system", "dataset", "metric", "item", "_file"):
        assert pd.api.types.is_string_dtype(frame[column])
    assert set(frame["_file"]) == {str(EVAL_DIR / "alpha.eval")}
    assert frame["_line"].between(1, 24).all()
    assert not frame.duplicated(KEY).any()


def test_inspect_score_values_cover_inspect_letters() -> None:
    samples = _json_samples(JSON_DIR / "alpha.json")
    letters = {
        s["scores"]["graded"]["value"]
        for s in samples
        if not s.get("error") and "graded" in s["scores"]
    }
    assert letters == {"C", "I", "P", "N"}
    frame = _read(JSON_DIR / "alpha.json").frame
    assert set(frame.loc[frame["metric"] == "graded", "score"]) == {1.0, 0.0, 0.5}
    assert set(frame.loc[frame["metric"] == "answer_stats/exact", "score"]) <= {0.0, 1.0}


def test_inspect_folder_names_systems_that_share_a_model() -> None:
    result = _read(EVAL_DIR)
    # alpha.eval and alpha-hint.eval share model mockllm/alpha and differ in task_args
    assert sorted(result.frame["system"].unique()) == [
        "mockllm/alpha (hint=False)",
        "mockllm/alpha (hint=True)",
        "mockllm/beta",
    ]
    assert result.system_attributes["mockllm/alpha (hint=True)"] == {
        "model": "mockllm/alpha",
        "hint": "True",
    }
    assert result.system_attributes["mockllm/beta"] == {"model": "mockllm/beta"}
    per_system = result.frame.groupby("system").size()
    assert (per_system == 5 * 23 - 3).all()  # 5 metrics x 23 samples, 3 without graded
    json_folder = _read(JSON_DIR).frame.drop(columns="_file")
    eval_alpha = result.frame[result.frame["system"] != "mockllm/beta"]
    pd.testing.assert_frame_equal(
        json_folder.sort_values(KEY).reset_index(drop=True),
        eval_alpha.drop(columns="_file").sort_values(KEY).reset_index(drop=True),
    )


def test_inspect_exclusions_count_errored_and_unscored_samples() -> None:
    result = _read(EVAL_DIR)
    by_reason: dict[tuple[str, str | None], int] = {}
    for e in result.exclusions:
        by_reason[(e.reason, e.metric)] = by_reason.get((e.reason, e.metric), 0) + e.count
        assert e.dataset == "arith"
        assert e.source is not None and e.source.endswith(".eval")
    # one errored sample per log; graded returns no score for sample 2 (3 epochs)
    assert by_reason == {("sample errored", None): 3, ("sample has no score", "graded"): 9}
    assert result.problems == []


def test_inspect_same_configuration_is_one_system(tmp_path: Path) -> None:
    def first_half(data: dict[str, Any]) -> None:
        data["samples"] = [s for s in data["samples"] if s["id"] <= 4]

    def second_half(data: dict[str, Any]) -> None:
        data["samples"] = [s for s in data["samples"] if s["id"] > 4]

    _copy_json_log(tmp_path, first_half, "a.json")
    _copy_json_log(tmp_path, second_half, "b.json")
    result = _read(tmp_path)
    assert set(result.frame["system"]) == {"mockllm/alpha"}
    assert result.frame["item"].nunique() == 8
    [problem] = result.problems
    assert (
        problem.severity == "info"
        and "score different samples and are read as one run: a.json, b.json" in problem.message
    )
    # disjoint samples: one run, the log's own epochs
    assert set(result.frame["run"]) == {1, 2, 3}


def test_inspect_labels_with_generate_config(tmp_path: Path) -> None:
    def hot(data: dict[str, Any]) -> None:
        data["plan"]["config"] = {"temperature": 0.7}

    _copy_json_log(tmp_path, lambda data: None, "cold.json")
    _copy_json_log(tmp_path, hot, "hot.json")
    systems = set(_read(tmp_path).frame["system"])
    assert systems == {"mockllm/alpha", "mockllm/alpha (temperature=0.7)"}


def test_inspect_summaries_fall_back_to_sample_entries(tmp_path: Path) -> None:
    source = DEFLATE_DIR / "alpha.eval"
    target = _rezip(source, tmp_path / "nosummaries.eval", lambda n: "summaries" not in n)
    pd.testing.assert_frame_equal(
        _read(target).frame.drop(columns="_file"), _read(source).frame.drop(columns="_file")
    )


def test_inspect_running_log_reads_journal_with_warning(tmp_path: Path) -> None:
    # a log still being written: _journal/start.json and journal summaries only
    source = DEFLATE_DIR / "alpha.eval"
    target = _rezip(
        source,
        tmp_path / "running.eval",
        lambda n: n not in ("header.json", "summaries.json", "reductions.json"),
    )
    result = _read(target)
    expected, _ = _expected_rows(_zip_samples(source))
    assert _frame_rows(result.frame) == expected
    [problem] = result.problems
    assert problem.severity == "warning"
    assert "has not finished (status 'started')" in problem.message


def test_inspect_rerun_sample_last_entry_wins(tmp_path: Path) -> None:
    source = DEFLATE_DIR / "alpha.eval"
    with zipfile.ZipFile(source) as archive:
        summaries = json.loads(archive.read("summaries.json"))
    rerun = copy.deepcopy(next(s for s in summaries if s["id"] == 5 and s["epoch"] == 2))
    rerun["error"] = None
    rerun["scores"] = {"match": {"value": "C"}}
    target = _rezip(
        source,
        tmp_path / "rerun.eval",
        lambda n: n != "summaries.json",
        {"summaries.json": json.dumps([*summaries, rerun]).encode()},
    )
    result = _read(target)
    frame = result.frame
    again = frame[(frame["item"] == "5") & (frame["run"] == 2)]
    assert list(again["metric"]) == ["match"] and list(again["score"]) == [1.0]
    assert not any(e.reason == "sample errored" for e in result.exclusions)


def test_inspect_score_on_error_keeps_scores(tmp_path: Path) -> None:
    def scored_error(data: dict[str, Any]) -> None:
        data["eval"]["config"]["score_on_error"] = True
        sample = next(s for s in data["samples"] if s.get("error"))
        sample["scores"] = {"match": {"value": "I"}}

    result = _read(_copy_json_log(tmp_path, scored_error))
    frame = result.frame
    assert list(frame.loc[(frame["item"] == "5") & (frame["run"] == 2), "score"]) == [0.0]
    assert not any(e.reason == "sample errored" for e in result.exclusions)
    assert any(p.severity == "info" and "score_on_error" in p.message for p in result.problems)


def test_inspect_legacy_single_score(tmp_path: Path) -> None:
    def legacy(data: dict[str, Any]) -> None:
        for sample in data["samples"]:
            scores = sample.pop("scores")
            if scores:
                sample["score"] = scores["match"]

    frame = _read(_copy_json_log(tmp_path, legacy)).frame
    assert set(frame["metric"]) == {"match"}  # named after results.scores[0].scorer
    assert len(frame) == 23


def test_inspect_eval_failed_with_samples_warns(tmp_path: Path) -> None:
    def failed(data: dict[str, Any]) -> None:
        data["status"] = "error"
        data["error"] = {"message": "RuntimeError('boom')", "traceback": ""}

    result = _read(_copy_json_log(tmp_path, failed))
    assert len(result.frame) > 0
    [problem] = result.problems
    assert problem.severity == "warning"
    assert "failed (status 'error'): RuntimeError('boom')" in problem.message


# --------------------------------------------------------------------------- values


def test_score_value_to_float_against_inspect_value_to_float() -> None:
    # inspect_ai.scorer._metric.value_to_float(): CORRECT "C" -> 1, PARTIAL "P" -> 0.5,
    # INCORRECT "I" / NOANSWER "N" -> 0, numbers cast, "yes"/"true" -> 1, "no"/"false"
    # -> 0 (lower-cased), finite numeric strings parsed
    cases = {
        "C": 1.0,
        "I": 0.0,
        "P": 0.5,
        "N": 0.0,
        True: 1.0,
        False: 0.0,
        3: 3.0,
        0.25: 0.25,
        "YES": 1.0,
        "true": 1.0,
        "No": 0.0,
        "false": 0.0,
        "2.5": 2.5,
        "-1e3": -1000.0,
    }
    for value, expected in cases.items():
        assert score_value_to_float(value) == expected, value
    assert math.isnan(score_value_to_float(None))


@pytest.mark.parametrize("value", ["c", "correct", "nan", "inf", "", [1, 0], {"a": 1}])
def test_score_value_to_float_input_validation(value: Any) -> None:
    with pytest.raises(ValueError, match="not a score value"):
        score_value_to_float(value)


# --------------------------------------------------------------------------- malformed


def test_inspect_zip_that_is_not_a_log(tmp_path: Path) -> None:
    path = tmp_path / "results.eval"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data.csv", "system,item,score\n")
    with pytest.raises(
        InputError,
        match=r"not an Inspect log: the archive has neither "
        r"header\.json nor _journal/start\.json",
    ):
        _read(path)


def test_inspect_eval_that_is_not_a_zip(tmp_path: Path) -> None:
    path = tmp_path / "results.eval"
    path.write_text("hello")
    assert detect_format(path).name == "inspect"
    with pytest.raises(InputError, match=r"not an Inspect log: the \.eval file is not a zip"):
        _read(path)


@pytest.mark.parametrize("source", [DEFLATE_DIR / "alpha.eval", EVAL_DIR / "beta.eval"])
def test_inspect_truncated_zip(tmp_path: Path, source: Path) -> None:
    path = tmp_path / "cut.eval"
    data = source.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    assert detect_format(path).name == "inspect"
    with pytest.raises(
        InputError,
        match=r"cut\.eval: the \.eval archive is truncated or "
        r"corrupt.*\n  hint: .*inspect log recover",
    ):
        _read(path)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            DEFLATE_DIR / "alpha.eval",
            r"cannot read the archive entry \(Error -3 while "
            r"decompressing data",
        ),
        (
            EVAL_DIR / "beta.eval",
            r"cannot decompress the archive entry \(decompression error: "
            r"Data corruption detected",
        ),
    ],
)
def test_inspect_corrupt_entry(tmp_path: Path, source: Path, message: str) -> None:
    path = tmp_path / "bad.eval"
    data = bytearray(source.read_bytes())
    with zipfile.ZipFile(source) as archive:
        info = archive.getinfo("summaries.json")
    # scramble 64 bytes of the compressed data; the zip structure stays intact
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 8
    for offset in range(start, start + 64):
        data[offset] ^= 0x5A
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match=rf"bad\.eval/summaries\.json: {message}"):
        _read(path)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (DEFLATE_DIR / "alpha.eval", r"cannot read the archive entry \(Bad CRC-32"),
        (EVAL_DIR / "beta.eval", r"the archive entry fails its CRC check"),
    ],
)
def test_inspect_entry_with_wrong_crc(tmp_path: Path, source: Path, message: str) -> None:
    # change the CRC-32 that the central directory records for summaries.json
    # (central directory header: signature PK\1\2, CRC-32 at offset 16, APPNOTE 4.3.12)
    data = bytearray(source.read_bytes())
    name = b"summaries.json"
    record = -1
    while True:
        record = data.find(b"PK\x01\x02", record + 1)
        assert record >= 0
        if data[record + 46 : record + 46 + len(name)] == name:
            break
    data[record + 16] ^= 0xFF
    path = tmp_path / "crc.eval"
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match=rf"crc\.eval/summaries\.json: {message}"):
        _read(path)


def test_inspect_json_with_missing_keys(tmp_path: Path) -> None:
    path = tmp_path / "log.json"
    path.write_text(json.dumps({"version": 2, "samples": []}))
    with pytest.raises(
        InputError,
        match=r"log\.json: not an Inspect log: the JSON object "
        r"lacks the keys 'status', 'eval'",
    ):
        _read(path)


def test_inspect_json_without_model(tmp_path: Path) -> None:
    path = _copy_json_log(tmp_path, lambda data: data["eval"].pop("model"))
    with pytest.raises(InputError, match=r"lacks 'eval\.model' \(found None\)"):
        _read(path)


def test_inspect_truncated_json(tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    text = (JSON_DIR / "alpha.json").read_text()
    path.write_text(text[: len(text) // 2])
    with pytest.raises(InputError, match=r"cut\.json, line \d+, column \d+: invalid JSON"):
        _read(path)


def test_inspect_unknown_score_value(tmp_path: Path) -> None:
    def maybe(data: dict[str, Any]) -> None:
        data["samples"][3]["scores"]["match"]["value"] = "maybe"

    path = _copy_json_log(tmp_path, maybe)
    with pytest.raises(
        InputError,
        match=r"log\.json: sample '4', epoch 1 \(record 4\): "
        r"score 'match' has value 'maybe', which is not "
        r"a score\n  hint: Inspect score values",
    ):
        _read(path)


def test_inspect_list_score_value(tmp_path: Path) -> None:
    def listed(data: dict[str, Any]) -> None:
        data["samples"][0]["scores"]["answer_stats"]["value"]["length"] = [1, 2]

    path = _copy_json_log(tmp_path, listed)
    with pytest.raises(InputError, match=r"score 'answer_stats/length' has value \[1, 2\]"):
        _read(path)


def test_inspect_score_without_value(tmp_path: Path) -> None:
    path = _copy_json_log(
        tmp_path, lambda data: data["samples"][0]["scores"]["closeness"].pop("value")
    )
    with pytest.raises(InputError, match=r"the score of scorer 'closeness' has no 'value'"):
        _read(path)


def test_inspect_sample_without_id(tmp_path: Path) -> None:
    path = _copy_json_log(tmp_path, lambda data: data["samples"][1].pop("id"))
    with pytest.raises(InputError, match=r"sample record 2 has no valid 'id' \(found None\)"):
        _read(path)


def test_inspect_unfinished_log_without_samples(tmp_path: Path) -> None:
    def started(data: dict[str, Any]) -> None:
        data["status"] = "started"
        data["samples"] = []

    with pytest.raises(
        InputError,
        match=r"holds no samples: the eval has not finished "
        r"\(status 'started'\)",
    ):
        _read(_copy_json_log(tmp_path, started))


def test_inspect_finished_log_without_samples(tmp_path: Path) -> None:
    path = _copy_json_log(tmp_path, lambda data: data.pop("samples"))
    with pytest.raises(
        InputError,
        match=r"the log holds no samples\n  hint: .*"
        r"--no-log-samples",
    ):
        _read(path)


def test_inspect_eval_header_only(tmp_path: Path) -> None:
    target = _rezip(
        DEFLATE_DIR / "alpha.eval",
        tmp_path / "header.eval",
        lambda n: not n.startswith(("samples/", "_journal/summaries")) and n != "summaries.json",
    )
    with pytest.raises(InputError, match=r"header\.eval: the log holds no samples"):
        _read(target)


def test_inspect_folder_without_logs(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="the folder holds no Inspect logs"):
        _read(tmp_path)


def test_inspect_read_inputs_folder() -> None:
    [result] = read_inputs(EVAL_DIR)
    assert result.frame["system"].nunique() == 3


def test_inspect_all_samples_errored(tmp_path: Path) -> None:
    def all_errored(data: dict[str, Any]) -> None:
        for sample in data["samples"]:
            sample["error"] = {"message": "RuntimeError('boom')", "traceback": ""}
            sample["scores"] = {}

    # the only log has nothing to keep: an error (next to good logs it is skipped)
    with pytest.raises(
        InputError,
        match=r"no sample of the log has a score "
        r"\(24 errored, 0 unscored\)",
    ) as info:
        _read(_copy_json_log(tmp_path, all_errored))
    assert "inspect eval-retry" in (info.value.hint or "")


def test_inspect_fixture_folder_loads_into_score_table() -> None:
    from reportgen.data import load

    table = load(EVAL_DIR)
    assert sorted(table.systems) == [
        "mockllm/alpha (hint=False)",
        "mockllm/alpha (hint=True)",
        "mockllm/beta",
    ]
    assert table.datasets == ("arith",)
    assert set(table.metrics) == {
        "match",
        "graded",
        "closeness",
        "answer_stats/exact",
        "answer_stats/length",
    }
    assert table.metrics["match"].modality == "binary"


def test_inspect_logs_given_as_separate_files_are_named_together() -> None:
    # two logs of one model that differ in a task argument, passed as two inputs
    from reportgen.data import load

    table = load([EVAL_DIR / "alpha.eval", EVAL_DIR / "alpha-hint.eval"])
    assert set(table.systems) == {"mockllm/alpha (hint=False)", "mockllm/alpha (hint=True)"}
    folder = load(EVAL_DIR)
    assert set(table.systems) < set(folder.systems)
