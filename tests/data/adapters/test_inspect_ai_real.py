"""The Inspect adapter on real logs written by inspect_ai itself (tests/fixtures/real/
SOURCES.md names each file's repository, commit, inspect_ai version and licence).

The independent reference is Inspect's own aggregate in each log's header
(``results.scores[].metrics.accuracy``, or ``results.metrics.accuracy`` in log format
version 1), and the sample records read with plain :mod:`json` / :mod:`zipfile`.
"""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path
from typing import Any

import pytest

from reportgen.data import LoadOptions, load
from reportgen.data.adapters import AdapterResult, get_adapter
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "inspect"
ARC = REAL / "arc_easy-0.3.138"
V1 = REAL / "v1-0.3.17"
EVAL_SET = REAL / "eval_set-0.3.285"
EPOCHS = REAL / "epochs-0.3.285"
CANCELLED = REAL / "cancelled-0.3.95"
POPULARITY = REAL / "popularity-0.3.58"
INPUT_TASK = REAL / "input_task-0.3.43"
LETTERS = {"C": 1.0, "I": 0.0}


def _read(path: Path, **options: Any) -> AdapterResult:
    return get_adapter("inspect").read(path, LoadOptions(**options))


def _header(path: Path) -> dict[str, Any]:
    if path.suffix == ".eval":
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo("header.json")
            if info.compress_type == 93:  # Zstandard (inspect_ai >= 0.3.2xx)
                import zstandard

                archive.fp.seek(info.header_offset + 26)  # type: ignore[union-attr]
                name, extra = struct.unpack("<HH", archive.fp.read(4))  # type: ignore[union-attr]
                archive.fp.seek(info.header_offset + 30 + name + extra)  # type: ignore[union-attr]
                raw = archive.fp.read(info.compress_size)  # type: ignore[union-attr]
                return json.loads(
                    zstandard.ZstdDecompressor().decompress(raw, max_output_size=info.file_size)
                )
            return json.loads(archive.read(info))
    return json.loads(path.read_text())


def _accuracy(header: dict[str, Any]) -> float:
    results = header["results"]
    if "scores" in results:
        return float(results["scores"][0]["metrics"]["accuracy"]["value"])
    return float(results["metrics"]["accuracy"]["value"])  # log format version 1


def _means(result: AdapterResult) -> dict[str, float]:
    return result.frame.groupby("system")["score"].mean().to_dict()


def test_inspect_arc_two_models_against_plain_json_and_inspect_accuracy() -> None:
    # data_arc_qwen.json, data_arc_sonnet.json (every_eval_ever tests, inspect_ai 0.3.138)
    result = _read(ARC)
    for path in sorted(ARC.glob("*.json")):
        log = json.loads(path.read_text())
        system = log["eval"]["model"]
        rows = result.frame[result.frame["system"] == system]
        expected = {str(s["id"]): LETTERS[s["scores"]["choice"]["value"]] for s in log["samples"]}
        assert dict(zip(rows["item"], rows["score"])) == expected
        assert set(rows["metric"]) == {"choice"} and set(rows["run"]) == {1}
        assert rows["score"].mean() == pytest.approx(_accuracy(log), abs=1e-12)
    # the default epochs_reducer of a 1-epoch eval is recorded, but needs no note
    assert result.system_attributes["ollama/qwen2.5:0.5b"]["epochs_reducer"] == "mean"
    assert not any("epochs" in p.message for p in result.problems)


def test_inspect_log_format_v1_metric_is_named_after_the_scorer() -> None:
    # two JSON logs written by inspect_ai 0.3.17 (log format version 1: results.scorer)
    result = _read(V1)
    headers = [json.loads(p.read_text()) for p in sorted(V1.glob("*.json"))]
    assert {h["version"] for h in headers} == {1}
    assert {h["results"]["scorer"]["name"] for h in headers} == {"match"}
    assert set(result.frame["metric"]) == {"match"}
    means = _means(result)
    for header in headers:
        assert means[header["eval"]["model"]] == pytest.approx(_accuracy(header), abs=1e-12)


def test_inspect_v1_and_v2_logs_of_one_task_share_the_metric(tmp_path: Path) -> None:
    # the v1 logs (0.3.17) and an eval-set log (0.3.285) of the same toy task
    for path in [*V1.glob("*.json"), *EVAL_SET.glob("*.eval")]:
        (tmp_path / path.name).write_bytes(path.read_bytes())
    result = _read(tmp_path)
    assert set(result.frame["metric"]) == {"match"}
    # the two versions record different parameters of the generate() solver, so the
    # same model is two systems, told apart by a label
    goods = sorted(s for s in set(result.frame["system"]) if s.startswith("toy/good"))
    assert len(goods) == 2 and all("(plan_params=" in s for s in goods)


def test_inspect_eval_set_of_three_models_against_inspect_accuracy() -> None:
    # inspect eval-set with three models, default epochs (1); eval-set.json and
    # logs.json beside the logs are Inspect's bookkeeping, not logs
    result = _read(EVAL_SET)
    means = _means(result)
    assert set(means) == {"toy/good", "toy/mid", "toy/bad"}
    for path in EVAL_SET.glob("*.eval"):
        header = _header(path)
        assert means[header["eval"]["model"]] == pytest.approx(_accuracy(header), abs=1e-12)
    table = load(EVAL_SET)
    assert table.runs_of("toy_addition") == (1,)


def test_inspect_epochs_reducer_is_recorded_and_named() -> None:
    # 3 epochs reduced by "mode" (inspect_ai 0.3.285): per-epoch scores stay runs
    result = _read(EPOCHS)
    assert sorted(set(result.frame["run"])) == [1, 2, 3]
    for path in EPOCHS.glob("*.eval"):
        header = _header(path)
        assert header["eval"]["config"]["epochs_reducer"] == ["mode"]
        system = header["eval"]["model"]
        assert result.system_attributes[system]["epochs_reducer"] == "mode"
    [note] = [p for p in result.problems if "epochs_reducer" in p.message]
    assert note.severity == "warning" and "'mode'" in note.message
    assert note.dataset == "toy_addition"


def test_inspect_cancelled_empty_log_is_skipped_next_to_good_ones() -> None:
    # 2025-05-12 logs of the inspect_ai tests: one cancelled with no samples, one
    # cancelled with 3 samples, one finished
    result = _read(CANCELLED)
    [skipped] = result.skipped
    assert Path(skipped.path).name == "2025-05-12T20-28-13-04-00_no-samples.json"
    assert skipped.reason == (
        "the log holds no samples: the eval was cancelled (status 'cancelled')"
    )
    assert skipped.format == "inspect"
    assert set(result.frame["dataset"]) == {"popularity", "security_guide"}
    table = load(CANCELLED, min_systems=1)
    assert [s.path for s in table.skipped_inputs] == [skipped.path]
    assert table.summary()["skipped_inputs"] == [skipped.to_dict()]
    assert any(p.message.startswith("skipped: the log holds no samples") for p in table.problems)
    with pytest.raises(
        InputError, match="the log holds no samples: the eval was cancelled"
    ) as info:
        _read(CANCELLED, strict_inputs=True)
    assert "--strict-inputs" in (info.value.hint or "")


def test_inspect_unscored_log_is_skipped() -> None:
    # two popularity logs of one model (inspect_ai 0.3.58): the first was never scored
    result = _read(POPULARITY)
    [skipped] = result.skipped
    assert "dPiJifoWeEQBrfWsAopzWr" in skipped.path
    assert skipped.reason == "no sample of the log has a score (0 errored, 10 unscored)"
    header = _header(
        POPULARITY / "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"
    )
    assert result.frame["score"].mean() == pytest.approx(_accuracy(header), abs=1e-12)
    assert set(result.frame["run"]) == {1}


def test_inspect_same_task_and_model_twice_become_two_runs() -> None:
    # input_task logged twice with gpt-4o-mini (a .json and an .eval log, 0.3.43)
    result = _read(INPUT_TASK)
    assert set(result.frame["system"]) == {"openai/gpt-4o-mini"}
    by_file = {Path(f).suffix: set(g["run"]) for f, g in result.frame.groupby("_file")}
    assert by_file == {".json": {1}, ".eval": {2}}  # in the order the evals were created
    [note] = [p for p in result.problems if "repeated runs" in p.message]
    assert note.severity == "info" and "read as repeated runs 1..2" in note.message


def test_inspect_duplicate_hint_fits_inspect(tmp_path: Path) -> None:
    from reportgen.data import build_score_table

    log = next(EVAL_SET.glob("*.eval"))
    result = _read(log)
    twice = get_adapter("inspect").read(log, LoadOptions())
    with pytest.raises(InputError, match="given more than once") as info:
        build_score_table([result, twice])
    assert "np.int64" not in str(info.value)
    assert "--run-col" not in (info.value.hint or "")
    assert "pass each log once" in (info.value.hint or "")
