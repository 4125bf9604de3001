"""The lm-eval adapter on output of three lm-evaluation-harness versions (tests/fixtures/
real/SOURCES.md): 0.4.2 (``results.json`` + ``<model_args>_<task>.jsonl`` holding one JSON
array, no filter key), 0.4.5 (``samples_<task>_<date>.jsonl`` without a filter key, each
document once per filter; ``v0.4.5-cls``: a yes/no task with lm-eval's corpus metrics
``f1`` and ``mcc``, whose per-sample values are (gold, prediction) pairs) and 0.4.9.2
(filter key, one task's samples file missing).

The independent reference is the aggregate lm-eval itself wrote into the results file
(``"acc,none"``, ``"exact_match,strict-match"``, ...): the mean of the per-sample values of
one filter must reproduce it exactly; for the corpus metrics ``f1`` and ``mcc`` (computed
by lm-eval with scikit-learn's ``f1_score`` and ``matthews_corrcoef``), our corpus metric
on the carried labels must reproduce it.
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

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "lm_eval"
V042, V045, V0492 = REAL / "v0.4.2", REAL / "v0.4.5", REAL / "v0.4.9.2"
V045_CLS = REAL / "v0.4.5-cls"


def _read(path: Path, **options: Any) -> AdapterResult:
    return get_adapter("lm-eval").read(path, LoadOptions(**options))


def _results(folder: Path) -> dict[str, Any]:
    (path,) = sorted(folder.glob("results*.json"))
    return json.loads(path.read_text())


def _means(result: AdapterResult) -> dict[tuple[str, str, str], float]:
    return result.frame.groupby(["system", "dataset", "metric"])["score"].mean().to_dict()


def test_lm_eval_042_array_layout_against_the_harness_aggregates() -> None:
    # lm_eval 0.4.2 with --output_path DIR: results.json beside pretrained__sys-a_tiny_mc.jsonl
    assert detect_format(V042).name == "lm-eval"
    result = _read(V042)
    means = _means(result)
    for model in ("sys-a", "sys-b"):
        results = _results(V042 / model)
        assert "model_name" not in results  # 0.4.2 names the model only in model_args
        for task in ("tiny_mc", "tiny_mc2"):
            for metric in ("acc", "acc_norm"):
                assert means[(model, task, metric)] == results["results"][task][f"{metric},none"]
    # the group has no samples of its own; its subtasks are the datasets
    assert set(result.frame["dataset"]) == {"tiny_mc", "tiny_mc2"}
    # records numbered by the line on which each array element starts
    first = result.frame.iloc[0]
    lines = Path(first["_file"]).read_text().split("\n")
    assert lines[first["_line"] - 1] == "  {"


def test_lm_eval_045_filters_without_key_reproduce_each_filters_aggregate() -> None:
    # lm_eval 0.4.5: no "filter" key; tiny_gen repeats every doc for strict-match, then
    # flexible-extract (the order of the "metric,filter" keys of results)
    for name in ("strict-match", "flexible-extract"):
        result = _read(V045, lm_eval_filter=name)
        means = _means(result)
        for model in ("sys-a", "sys-b"):
            expected = _results(V045 / model)["results"]["tiny_gen"][f"exact_match,{name}"]
            assert means[(model, "tiny_gen", "exact_match")] == expected
            assert (
                means[(model, "tiny_mc", "acc")]
                == _results(V045 / model)["results"]["tiny_mc"]["acc,none"]
            )
    # the two filters differ here, so the assignment is tested, not assumed
    strict = _results(V045 / "sys-a")["results"]["tiny_gen"]["exact_match,strict-match"]
    flexible = _results(V045 / "sys-a")["results"]["tiny_gen"]["exact_match,flexible-extract"]
    assert strict != flexible


def test_lm_eval_045_default_filter_is_the_first_and_said() -> None:
    result = _read(V045)
    note = next(p for p in result.problems if "filter" in p.message)
    assert "'strict-match' (the first of strict-match, flexible-extract)" in note.message
    with pytest.raises(InputError, match="no task has the lm-eval filter 'nope'") as info:
        _read(V045, lm_eval_filter="nope")
    assert "filters in these results: flexible-extract, none, strict-match" in (
        info.value.hint or ""
    )


def test_lm_eval_045_filter_blocks_must_match_the_results(tmp_path: Path) -> None:
    # a samples file cut after the first filter's block no longer fits the 2 filters
    out = tmp_path / "out"
    shutil.copytree(V045 / "sys-a", out / "sys-a")
    (samples,) = (out / "sys-a").glob("samples_tiny_gen_*.jsonl")
    lines = samples.read_text().splitlines(keepends=True)
    samples.write_text("".join(lines[: len(lines) // 2]))
    with pytest.raises(InputError, match="no filter key and repeat documents 1 time"):
        _read(out)


def test_lm_eval_mid_2024_json_named_samples(tmp_path: Path) -> None:
    # main between May and June 2024 named the JSON-lines samples samples_<task>_<date>.json;
    # the same 0.4.5 files renamed so
    out = tmp_path / "out"
    shutil.copytree(V045, out)
    for path in out.glob("*/samples_*.jsonl"):
        path.rename(path.with_suffix(".json"))
    assert _means(_read(out)) == _means(_read(V045))


def test_lm_eval_09_missing_samples_of_one_task_is_skipped() -> None:
    # every_eval_ever's lm_eval test data: results of two tasks, samples of one (trimmed)
    result = _read(V0492)
    assert set(result.frame["dataset"]) == {"math_perturbed_full"}
    [skipped] = result.skipped
    assert skipped.reason.startswith(
        "no per-sample file for task 'math_rephrased_full': "
        "expected samples_math_rephrased_full_2026-01-21T03-44-18"
        ".458309.jsonl"
    )
    (samples,) = V0492.glob("samples_*.jsonl")
    expected = [float(json.loads(line)["exact_match"]) for line in samples.read_text().splitlines()]
    assert result.frame["score"].tolist() == expected
    table = load(V0492, min_systems=1)
    assert table.summary()["skipped_inputs"][0]["format"] == "lm-eval"
    with pytest.raises(InputError, match="no per-sample file for task 'math_rephrased_full'"):
        _read(V0492, strict_inputs=True)


def test_lm_eval_042_and_045_read_together() -> None:
    table = load([V042, V045])
    assert set(table.systems) == {"sys-a", "sys-b"}
    # tiny_mc of 0.4.2 and of 0.4.5 are repeated runs of each system (two results files)
    assert table.runs_of("tiny_mc") == (0, 1)


def test_lm_eval_045_label_pairs_are_carried_and_reproduce_f1_and_mcc() -> None:
    # tiny_cls: metric_list acc (mean), f1 (aggregation f1), mcc (matthews_corrcoef);
    # each sample holds "f1": [gold, pred] and "mcc": [gold, pred], the same pair
    from reportgen.stats.corpus import classification_statistics, corpus_metric

    result = _read(V045_CLS)
    frame = result.frame
    assert set(frame["metric"]) == {"acc", "labels"}  # f1 and mcc share their pairs
    infos = [p.message for p in result.problems if p.severity == "info"]
    assert any(
        "'labels'" in m and "--corpus-metric f1-binary" in m and "--corpus-metric mcc" in m
        for m in infos
    ), infos
    assert not any(p.severity == "warning" and "skipped" in p.message for p in result.problems)
    for model in ("sys-a", "sys-b"):
        (samples_path,) = (V045_CLS / model).glob("samples_tiny_cls_*.jsonl")
        samples = [json.loads(line) for line in samples_path.read_text().splitlines()]
        rows = frame[(frame["system"] == model) & (frame["metric"] == "labels")]
        rows = rows.set_index(rows["item"].astype(int)).sort_index()
        # the labels are the samples' own pairs, in order
        assert (
            [[r, p] for r, p in zip(rows["reference"], rows["prediction"])]
            == [s["f1"] for s in samples]
            == [s["mcc"] for s in samples]
        )
        aggregate = _results(V045_CLS / model)["results"]["tiny_cls"]
        # per-item exact match of the labels: lm-eval's acc (the same argmax)
        assert rows["score"].mean() == aggregate["acc,none"]
        sums = classification_statistics(
            rows["prediction"].to_numpy(object), rows["reference"].to_numpy(object)
        ).counts.sum(axis=0)
        assert corpus_metric("f1-binary")(sums) == pytest.approx(aggregate["f1,none"], rel=1e-12)
        assert corpus_metric("mcc")(sums) == pytest.approx(aggregate["mcc,none"], rel=1e-12)


def test_lm_eval_label_metrics_with_different_pairs_stay_apart(tmp_path: Path) -> None:
    # the real samples with the mcc pair of one document changed: f1 and mcc no longer
    # share their labels, so each is carried as its own metric
    for model in ("sys-a", "sys-b"):
        shutil.copytree(V045_CLS / model, tmp_path / model)
    (path,) = (tmp_path / "sys-a").glob("samples_*.jsonl")
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    first["mcc"] = [first["mcc"][0], 1 - first["mcc"][1]]
    path.write_text("\n".join([json.dumps(first)] + lines[1:]) + "\n")
    frame = _read(tmp_path).frame
    assert set(frame["metric"]) == {"acc", "f1 (labels)", "mcc (labels)"}


def test_lm_eval_label_metrics_end_to_end_corpus_units() -> None:
    from reportgen.analysis import AnalysisOptions, analyze

    table = load(V045_CLS)
    assert table.has_predictions("tiny_cls", "labels")
    results = analyze(
        table, AnalysisOptions(corpus_metrics=("f1-binary", "mcc"), n_resamples=999, seed=1)
    )
    corpus = {(u.metric, u.derived_from) for u in results.units if u.modality == "corpus"}
    assert corpus == {("f1-binary", "labels"), ("mcc", "labels")}
    for unit in results.units:
        if unit.metric in ("f1-binary", "mcc"):
            means = dict(zip(unit.systems, unit.means))
            for model in ("sys-a", "sys-b"):
                aggregate = _results(V045_CLS / model)["results"]["tiny_cls"]
                key = "f1,none" if unit.metric == "f1-binary" else "mcc,none"
                assert means[model] == pytest.approx(aggregate[key], rel=1e-12)
