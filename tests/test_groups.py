"""Seed 000 §10: comparisons within item-metadata levels and condition-and-compare over
hyperparameters, checked against scipy on the same subsets and pandas group means."""

from __future__ import annotations

from pathlib import Path

import pytest
from scipy import stats

from reportgen.analysis import AnalysisOptions, analyze
from reportgen.data import load, parse_config
from reportgen.errors import ConfigError, InputError

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def example():
    return load(ROOT / "examples" / "data", config=ROOT / "examples" / "reportgen.toml")


def test_group_by_difficulty_against_scipy_on_the_subset(example):
    analysis = analyze(example, AnalysisOptions(seed=0, n_resamples=200, group_by=("difficulty",)))
    entry = next(
        e
        for e in analysis.to_results()["groups"]
        if (e["dataset"], e["metric"], e["group"])
        == ("java", "edit_similarity", {"difficulty": "hard"})
    )
    view = example.paired("java", "edit_similarity")
    hard = (
        example.item_metadata.loc[[("java", i) for i in view.items], "difficulty"] == "hard"
    ).to_numpy()
    assert entry["n_items"] == int(hard.sum())
    row = entry["comparisons"][0]
    i, j = view.systems.index(row["system_a"]), view.systems.index(row["system_b"])
    # scipy: ttest_rel on the hard items only
    ref = stats.ttest_rel(view.scores[hard, i], view.scores[hard, j])
    assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-10)
    levels = {
        e["group"]["difficulty"] for e in analysis.to_results()["groups"] if e["dataset"] == "java"
    }
    assert levels == {"easy", "medium", "hard"}


def test_condition_and_compare_against_pandas_and_scipy(example):
    analysis = analyze(
        example,
        AnalysisOptions(
            seed=0, n_resamples=200, compare_by=("prompt_format",), condition_on=("model",)
        ),
    )
    entry = next(
        e
        for e in analysis.to_results()["hyperparameters"]
        if (e["dataset"], e["metric"], e["condition"])
        == ("python", "identifier_f1", {"model": "starcoder2-15b"})
    )
    frame = example.frame
    sub = frame[
        (frame.dataset == "python")
        & (frame.metric == "identifier_f1")
        & frame.system.str.startswith("starcoder2-15b|")
    ].copy()
    sub["fmt"] = sub.system.str.split("|").str[1]
    # pandas: per item, the mean over the systems of each prompt format
    per_item = sub.groupby(["fmt", "item"]).score.mean().unstack(0)
    means = {lv["name"]: lv["mean"] for lv in entry["levels"]}
    assert means["prompt_format=fim"] == pytest.approx(per_item["fim"].mean())
    assert means["prompt_format=l2r"] == pytest.approx(per_item["l2r"].mean())
    assert entry["levels"][0]["name"] == "prompt_format=fim"  # ordered best first
    (row,) = entry["comparisons"]
    # scipy: right-tailed paired t of the best level against the other
    ref = stats.ttest_rel(per_item["fim"], per_item["l2r"], alternative="greater")
    assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-8)
    single = next(
        e
        for e in analysis.to_results()["hyperparameters"]
        if e["condition"] == {"model": "granite-3b"}
    )
    assert single["comparisons"] == [] and "single level" in single["note"]


def test_compare_without_condition_orders_all_levels(example):
    analysis = analyze(
        example, AnalysisOptions(seed=0, n_resamples=200, compare_by=("context_size",))
    )
    entry = next(
        e
        for e in analysis.to_results()["hyperparameters"]
        if (e["dataset"], e["metric"]) == ("python", "edit_distance")
    )
    names = [lv["name"] for lv in entry["levels"]]
    means = [lv["mean"] for lv in entry["levels"]]
    assert means == sorted(means)  # edit distance: lower is better, best first
    assert len(entry["comparisons"]) == 2 and names[0] == "context_size=8k"


def test_groups_input_validation(example):
    with pytest.raises(InputError, match="group_by column 'model' is not item metadata"):
        analyze(example, AnalysisOptions(group_by=("model",)))
    with pytest.raises(InputError, match="hyperparameter 'difficulty' is not a system"):
        analyze(example, AnalysisOptions(compare_by=("difficulty",)))
    with pytest.raises(InputError, match="model is both compared and conditioned on"):
        analyze(example, AnalysisOptions(compare_by=("model",), condition_on=("model",)))
    with pytest.raises(InputError, match="condition_on needs compare_by"):
        analyze(example, AnalysisOptions(condition_on=("model",)))


def test_analysis_config_section():
    config = parse_config({"analysis": {"group_by": "difficulty", "compare_by": ["prompt_format"]}})
    assert config.analysis == {"group_by": ("difficulty",), "compare_by": ("prompt_format",)}
    with pytest.raises(ConfigError, match=r"unknown key in \[analysis\]: colour_by"):
        parse_config({"analysis": {"colour_by": ["x"]}})
    with pytest.raises(ConfigError, match=r"analysis\.group_by = \[1\] is not valid"):
        parse_config({"analysis": {"group_by": [1]}})


def test_cli_group_and_compare_flags(tmp_path, capsys):
    import json

    from reportgen.cli import main

    config = tmp_path / "c.toml"
    config.write_text(
        (ROOT / "examples" / "reportgen.toml").read_text()
        + '\n[analysis]\ngroup_by = ["difficulty"]\n'
    )
    assert (
        main(
            [
                "analyze",
                str(ROOT / "examples" / "data"),
                "--config",
                str(config),
                "--out",
                str(tmp_path / "out"),
                "--n-resamples",
                "100",
                "--seed",
                "1",
                "--compare-by",
                "prompt_format",
            ]
        )
        == 0
    )
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["groups"] and results["hyperparameters"]
    assert results["config"]["group_by"] == ["difficulty"]
